"""Command-line values converted without pydantic, for the plain parameter types reviewtool uses.

typer >= 0.2x converts the value of every parameter of a command (each default too) through a
pydantic TypeAdapter: importing pydantic and building the adapters was a sixth of a triage run
that the result store answers whole (0.2 s). For str, int, float, bool, Enum, Path and lists of
them, the value typer's adapter gives is made here directly, with typer's own helpers for choices
and paths. Anything else, and any value this path is not sure of (a number outside its range or
written another way, a path or choice that fails), goes to typer's adapter, so that every message
stays typer's. tests/test_cliparams.py holds both paths to the same value on every parameter.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import get_args, get_origin

_NUMBER_RE = {int: re.compile(r"0|[1-9][0-9]{0,14}"), float: re.compile(r"(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")}
_UNSURE = object()


def install(command) -> None:
    """Give each typer parameter of `command` and of its subcommands the quick conversion (a
    typer that converts otherwise, without pydantic, is left as it is)."""
    for param in getattr(command, "params", ()):
        install_param(param)
    for sub in getattr(command, "commands", {}).values():
        install(sub)


def install_param(param) -> None:
    """The quick conversion for one parameter (--help's option is made anew for each command)."""
    quick = _quick_class()
    desc = getattr(param, "type_descriptor", None)
    if quick is not None and desc is not None and getattr(param, "_runtime_param", False) is None \
            and desc.file_annotation is None:
        param._runtime_param = quick(annotation=desc.annotation, parameter_info=desc.parameter_info, descriptor=desc)


@lru_cache(maxsize=1)
def _quick_class():
    try:
        from dataclasses import dataclass, field

        from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
        from typer._param_types import coerce_cli_choice, coerce_cli_path
    except ImportError:
        return None

    @dataclass(frozen=True)
    class QuickRuntimeParam(RuntimeParam):
        """typer's RuntimeParam (its None and multiple-value handling), values converted here;
        typer's own (pydantic) conversion for the rest, built on first use."""

        descriptor: TypeDescriptor = None
        full: list = field(default_factory=list)

        def _coerce_value(self, value, param, ctx):
            try:
                out = _convert(self.annotation, self.parameter_info, value, param, ctx,
                               coerce_cli_choice, coerce_cli_path)
            except Exception:  # a value typer refuses: its adapter says why, in its words
                out = _UNSURE
            if out is not _UNSURE:
                return out
            if not self.full:
                self.full.append(build_runtime_param(self.descriptor))
            return self.full[0]._coerce_value(value, param=param, ctx=ctx)

    return QuickRuntimeParam


def _convert(annotation, info, value, param, ctx, choice, path):
    """What typer's adapter for `annotation` makes of `value`, or _UNSURE."""
    if info.parser is not None:
        return _UNSURE
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        items = [_leaf(item, info, v, param, ctx, choice, path)
                 for v in (value if isinstance(value, (list, tuple)) else [value])]
        return _UNSURE if any(v is _UNSURE for v in items) else items
    return _leaf(annotation, info, value, param, ctx, choice, path)


def _leaf(annotation, info, value, param, ctx, choice, path):
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return choice(value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx)
    if annotation is int or annotation is float:
        if info.clamp:
            return _UNSURE
        if type(value) is annotation:
            number = value
        elif type(value) is str and _NUMBER_RE[annotation].fullmatch(value):
            number = annotation(value)
        else:
            return _UNSURE
        if info.min is not None and number < info.min or info.max is not None and number > info.max:
            return _UNSURE
        return number
    if annotation is bool or annotation is str:
        return value if type(value) is annotation else _UNSURE
    if annotation is Path and info.path_type is None:
        if type(value) is str and value:
            value = Path(value)  # what pydantic makes of a path's text
        elif type(value) is not Path and not isinstance(value, Path):
            return _UNSURE
        return path(value, info, path_type=Path, param=param, ctx=ctx)
    return _UNSURE
