"""Writing rendered output: rich for the terminal text format, plain text otherwise."""

from __future__ import annotations

import io
import os
import re
import secrets
import stat
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


def write_file(output: Path, chunks) -> None:
    """The chunks into `output` by way of a temporary file beside it, renamed onto it once every
    byte is out: a failed write (a full disk) leaves the earlier report whole, never cut short."""
    target = os.path.realpath(output)  # through a link, as before: the link stays, its file is replaced
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        try:
            st = os.stat(output)  # through links, as the file they name
            mode = stat.S_IMODE(st.st_mode)  # a replaced report keeps its permissions
        except OSError:
            st = mode = None
        if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            tmp = None  # /dev/stdout, a pipe: nothing there to keep or to rename onto
            fd = os.open(output, os.O_WRONLY)
            try:
                _write_pieces(fd, chunks)
            finally:
                os.close(fd)
            return
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_pieces(fd, chunks)
            os.fsync(fd)  # a full disk may only say so here (delayed allocation, NFS)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:  # an interrupt or a failed rendering as well: no stray temporary file
        try:
            if tmp is not None:
                os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"{output}: cannot write ({exc.strerror or exc}); nothing was replaced") from exc
        raise


def emit(text: str, fmt: str, output: Path | None = None) -> None:
    text = printable(text)
    if output is not None:
        from rich.text import Text

        if fmt == "text":  # files get the plain text, without markup
            text = Text.from_markup(text).plain
        write_file(output, [text])
        return
    write_stdout([text], fmt)


