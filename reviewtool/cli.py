"""The typer application: parse options, call the stage, pick a renderer, decide the exit code.

Each command lives in reviewtool/commands/<name>.py with a `register(app)` function; they are
found by listing that package, so adding a command touches no other file.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from . import commands
from .errors import EXIT_INPUT, ReviewtoolError

app = typer.Typer(
    name="reviewtool",
    help="Review assistant for mailing-list patch series (Linux kernel, netdev, bpf, iproute2, git).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    importlib.import_module(f"{commands.__name__}.{_mod}").register(app)


def _version(value: bool) -> None:
    if value:
        from . import TOOL_NAME, __version__

        typer.echo(f"{TOOL_NAME} {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                          help="Print the version and exit.")) -> None:
    """Review assistant for mailing-list patch series (Linux kernel, netdev, bpf, iproute2, git)."""


def _command():
    """The click command of the app, its help shaped for an 80-column terminal (clihelp.py: no
    type after a flag, one-word metavars); values are converted without pydantic where that
    gives typer's value (cliparams.py)."""
    from .cliparams import install
    from .clihelp import all_commands, shape

    command = typer.main.get_command(app)
    install(command)
    shape(command)
    for cmd in all_commands(command):
        cmd.get_help_option = _flag_help_option(cmd.get_help_option)
    return command


def _flag_help_option(make):
    from .cliparams import install_param

    def get_help_option(ctx):
        option = make(ctx)
        if option is not None:
            option.metavar = ""
            install_param(option)
        return option
    return get_help_option


def _usage_error_types() -> tuple[type[Exception], ...]:
    """Command-line mistakes. typer >= 0.2x vendors its own click (typer._click) and no longer
    installs click; older typer uses click itself. Accept whichever is present."""
    types: list[type[Exception]] = []
    try:
        from typer._click.exceptions import ClickException as VendoredClickException

        types.append(VendoredClickException)
    except ImportError:
        pass
    try:
        from click import ClickException

        types.append(ClickException)
    except ImportError:
        pass
    return tuple(types)


_USAGE_ERRORS = _usage_error_types()


def _usage_message(exc: Exception) -> str:
    """A command-line mistake in reviewtool's words: click's "(Possible options: ...)" and
    pydantic's "Value error, ... is not one of" read as library internals."""
    kind = type(exc).__name__
    if kind == "NoSuchOption":
        near = getattr(exc, "possibilities", None) or []
        return f"unknown option {exc.option_name}" + (f", did you mean {' or '.join(near)}?" if near else "")
    param = getattr(exc, "param", None)
    choices = _choices(param)
    if kind == "BadParameter" and choices:
        flag = max(param.opts, key=len)
        value = _refused_value(exc)
        return (f"{flag}: unknown {flag.lstrip('-')}{'' if value is None else f' {value!r}'} "
                f"(choose from: {', '.join(choices)})")
    return " ".join(exc.format_message().split())


def _choices(param) -> list[str]:
    """The values an Enum option takes (typer), or a click.Choice's (older typer)."""
    from enum import Enum
    from typing import get_args

    desc = getattr(param, "type_descriptor", None)
    annotation = getattr(desc, "annotation", None)
    for cls in (annotation, *get_args(annotation)):  # Optional[Fmt], list[Fmt]: the Enum inside
        if isinstance(cls, type) and issubclass(cls, Enum):
            return [str(m.value) for m in cls]
    return [str(c) for c in getattr(getattr(param, "type", None), "choices", None) or []]


def _refused_value(exc: Exception):
    """The text given, from pydantic's error under typer's (None when not known)."""
    errors = getattr(exc.__cause__, "errors", None)
    try:
        value = errors()[0]["input"] if errors else None
    except (TypeError, LookupError):
        return None
    return value if isinstance(value, str) else None


def _fail(message: str, code: int) -> int:
    from .render.env import strip_controls

    sys.stderr.write(f"reviewtool: {strip_controls(message)}\n")
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point: never a traceback; exit 0 clean, 1 error findings, 2 unusable input."""
    command = _command()
    try:
        rv = command.main(args=argv, prog_name="reviewtool", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        return _fail("aborted", 130)
    except _USAGE_ERRORS as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # `reviewtool` alone: the help text
            return EXIT_INPUT
        return _fail(f"{_usage_message(exc)} (see `reviewtool --help`)", EXIT_INPUT)
    except ReviewtoolError as exc:
        return _fail(exc.one_line(), exc.exit_code)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:
        return 0
    except RecursionError:
        return _fail("error: input nests too deeply to process", EXIT_INPUT)
    except MemoryError:
        return _fail("error: out of memory while processing the input", EXIT_INPUT)
    except Exception as exc:  # a bug: still one line, with a distinct code so tests catch it
        return _fail(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}", 3)
    try:
        sys.stdout.flush()  # what a command printed last: a full disk must be one line too
    except BrokenPipeError:
        return 0
    except OSError as exc:
        from .render.output import stdout_failed

        return _fail(stdout_failed(exc).one_line(), EXIT_INPUT)
    return rv if isinstance(rv, int) else 0


def run() -> None:
    sys.exit(main())
