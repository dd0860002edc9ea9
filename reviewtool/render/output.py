"""Writing rendered output: rich for the terminal text format, plain text otherwise."""

from __future__ import annotations

import sys
from pathlib import Path

import re

from ..errors import InputError

# Undecodable bytes in mail headers come out of the email package as lone surrogates
# (surrogateescape); they cannot be written as UTF-8, so they become U+FFFD on the way out.
_SURROGATES_RE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    return _SURROGATES_RE.sub("\ufffd", text)


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
    if fmt == "text":
        from rich.console import Console

        Console(highlight=False, soft_wrap=True, emoji=False).print(text, end="")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


