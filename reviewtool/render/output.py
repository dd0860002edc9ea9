"""Writing rendered output: rich for the terminal text format, plain text otherwise."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

from ..errors import InputError

# Undecodable bytes in mail headers come out of the email package as lone surrogates
# (surrogateescape); they cannot be written as UTF-8, so they become U+FFFD on the way out.
_SURROGATES_RE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    if text.isascii():  # no surrogates in it: most of a report's lines, seen at C speed
        return text
    return _SURROGATES_RE.sub("\ufffd", text)


def refuse_clobbering(output: Path | None, inputs: list[Path], keep: list[Path] = ()) -> None:
    """InputError when `--output` names an input (a file given, or a file inside a directory
    given: a maildir the next run reads again) or one of `keep` (the result store and its WAL):
    the report would replace what it was made from."""
    if output is None:
        return
    out = os.path.realpath(output)
    for path, what in [*((p, "the input") for p in inputs), *((p, "the result store") for p in keep)]:
        real = os.path.realpath(path)
        same = out == real or os.path.isdir(real) and out.startswith(real.rstrip(os.sep) + os.sep)
        try:
            same = same or os.path.samefile(out, real)
        except OSError:
            pass
        if same:
            raise InputError(f"--output {output}: is {what} {path}; the report would replace it, so nothing was "
                             "written (name another file)")


class StdoutError(InputError):
    """Standard output could not be written (a full disk, a file size limit)."""


def stdout_failed(exc: OSError) -> StdoutError:
    """The error to raise for a failed write to stdout. What is still buffered there is sent to
    /dev/null, so the interpreter's own flush at exit cannot fail again and print a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return StdoutError(f"cannot write to standard output ({exc.strerror or exc})")


def _descriptor() -> int | None:
    """stdout's file descriptor when it is a real file, pipe or terminal (not a test's capture)."""
    try:
        return sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is out: a partial write (a file size limit, a full disk) ends in
    an OSError, never in a report cut short and exit 0 (a buffered stream took the short write
    for success and dropped the rest)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_stdout(chunks, fmt: str) -> None:
    """Text (an iterable of chunks) to stdout: rich for the text format (into a string unless
    stdout is a terminal), plain otherwise; written with os.write, so any failure is seen (the
    other formats in pieces of some 64 KB: a triage report is a thousand chunks)."""
    fd = _descriptor()
    if fmt == "text" or fd is None:
        from rich.console import Console
    try:
        if fd is None or fmt == "text" and os.isatty(fd):
            console = Console(highlight=False, soft_wrap=True, emoji=False) if fmt == "text" else None
            for chunk in chunks:
                console.print(chunk, end="") if console else sys.stdout.write(chunk)
            sys.stdout.flush()
            return
        sys.stdout.flush()  # whatever was printed before goes first
        if fmt != "text":
            _write_pieces(fd, chunks)
            return
        for chunk in chunks:
            buffer = io.StringIO()
            Console(file=buffer, highlight=False, soft_wrap=True, emoji=False).print(chunk, end="")
            _write_all(fd, buffer.getvalue().encode("utf-8", "replace"))
    except BrokenPipeError:
        raise  # the reader went away (`| head`): not an error (cli.main)
    except OSError as exc:
        raise stdout_failed(exc) from exc


def _write_pieces(fd: int, chunks, size: int = 1 << 16) -> None:
    pending: list[str] = []
    held = 0
    for chunk in chunks:
        pending.append(chunk)
        held += len(chunk)
        if held >= size:
            _write_all(fd, "".join(pending).encode("utf-8", "replace"))
            pending, held = [], 0
    if pending:
        _write_all(fd, "".join(pending).encode("utf-8", "replace"))


def emit(text: str, fmt: str, output: Path | None = None) -> None:
    text = printable(text)
    if output is not None:
        from rich.text import Text

        if fmt == "text":  # files get the plain text, without markup
            text = Text.from_markup(text).plain
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{output}: cannot write ({exc.strerror or exc})") from exc
        return
    write_stdout([text], fmt)


