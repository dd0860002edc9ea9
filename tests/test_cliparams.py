"""Command-line values converted without pydantic (reviewtool/cliparams.py) are exactly the values
typer's own conversion gives, on every parameter of every command; anything else is typer's."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import get_args, get_origin

import pytest

from conftest import ROOT

typer_coercion = pytest.importorskip("typer._coercion", reason="a typer that converts without pydantic")


def _params(command):
    for p in command.params:
        yield command, p
    for sub in getattr(command, "commands", {}).values():
        yield from _params(sub)


def _all_params():
    from reviewtool.cli import _command

    return [(cmd, p) for cmd, p in _params(_command()) if getattr(p, "type_descriptor", None) is not None]


SAMPLES = {
    str: ["x", "", "-", "a b", "zoë", "--jobs", "10m"],
    int: ["1", "0", "2", "64", "65", "-1", "01", "+2", " 2", "2 ", "1.0", "1_000", "２", "99999999999999999999", "",
          1, 0, 64, 65, True, 2.0],
    float: ["30", "0.1", "0.05", "30.5", "1e3", "30.", ".5", "inf", "nan", "-1", "", 30.0, 0.01, 30, True],
    bool: [True, False, "true", "0", "", 1],
    Path: ["x", "", ".", "./a", "a//b", "~/a", "/tmp", "/nonexistent/x", "-", Path("y"), Path("")],
}


def _samples(annotation, param):
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        values = [m.value for m in annotation] + [m.value.upper() for m in annotation] + list(annotation)
        return values + ["nope", "", 3]
    return SAMPLES[annotation] + [param.default]


def _outcome(runtime, value, param, ctx):
    try:
        out = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return ("raises", type(exc).__name__, str(exc))
    items = out if isinstance(out, (list, tuple)) else [out]
    return ("value", type(out), out, [type(i) for i in items])


def test_every_parameter_converts_as_typer_does():
    import typer._click as click

    from reviewtool.cliparams import _quick_class

    quick = _quick_class()
    assert quick is not None
    checked = answered = 0
    for command, param in _all_params():
        name = command.name
        desc = param.type_descriptor
        assert type(param._runtime_param) is quick or desc.file_annotation is not None, (name, param.name)
        full = typer_coercion.build_runtime_param(desc)
        inner = get_args(desc.annotation)[0] if get_origin(desc.annotation) is list else desc.annotation
        values = _samples(inner, param)
        if inner is not desc.annotation:  # a list: several items, one item, an item typer refuses
            values = values + [[], (), tuple(values[:3]), [values[0]], [values[0], values[-2]], None]
        for value in values + [None]:
            ctx = click.Context(command)
            assert _outcome(param._runtime_param, value, param, ctx) == _outcome(full, value, param, ctx), \
                (name, param.name, value)
            checked += 1
            answered += value is not None and _answers(param, value, ctx)
    assert checked > 1000 and answered > checked / 3  # the common values do not need typer's adapter


def _answers(param, value, ctx) -> bool:
    from typer._param_types import coerce_cli_choice, coerce_cli_path

    from reviewtool.cliparams import _UNSURE, _convert

    desc = param.type_descriptor
    try:
        return _convert(desc.annotation, desc.parameter_info, value, param, ctx, coerce_cli_choice,
                        coerce_cli_path) is not _UNSURE
    except Exception:  # noqa: BLE001 - typer's adapter answers
        return False


def test_a_command_runs_without_pydantic():
    """The values of every option of `triage` (defaults and given ones) and of `--help` are
    converted without importing pydantic; a value typer refuses still gets typer's message."""
    code = ("import sys; from reviewtool.cli import main; "
            "rc = main(['triage', 'none.mbox', '--jobs', '2', '--stale-days', '3', '--format', 'json', "
            "'--sort', 'age', '--status', 'nope', '--now', '2022-12-01T00:00:00Z', '--no-progress', "
            "'--store', 'x.db', '-o', 'out.json', '--timeout', '5s']); "
            "print(rc, 'pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["2", "False"], out.stderr
    assert "--status 'nope': not a status" in out.stderr
    code = ("from reviewtool.cli import main; "
            "main(['triage', 'none.mbox', '--jobs', '0'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "--jobs" in out.stderr and "greater than or equal to 1" in out.stderr, out.stderr
