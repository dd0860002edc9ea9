"""`reviewtool check <msgid | URL | mbox>`: review one series."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ..render import render_review
from ..render.output import emit
from ..review import ReviewOptions, load_series, review_series


class Format(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"
    email = "email"


def check(
    source: str = typer.Argument(..., help="An mbox/maildir/mail file, a format-patch file or directory, "
                                           "a message-id or a lore URL."),
    msgid: Optional[str] = typer.Option(None, "--msgid", help="Review the thread holding this message-id "
                                                              "when the input holds several."),
    revision: Optional[int] = typer.Option(None, "--revision", "-v", min=1,
                                           help="Review this revision (default: the newest)."),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p",
                                          help="Target project profile (see `reviewtool rules`)."),
    select: list[str] = typer.Option([], "--select", help="Only these rules or families."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules or families."),
    max_patches: Optional[int] = typer.Option(None, "--max-patches", min=1,
                                              help="series-too-long threshold (default from the profile)."),
) -> int:
    """Review a patch series and print evidenced review notes.

    Exit codes: 0 no error-level findings, 1 error-level findings, 2 the input could not be read or used.
    """
    options = ReviewOptions(msgid=_clean_msgid(msgid), revision=revision, profile=profile,
                            select=tuple(select), ignore=tuple(ignore),
                            settings={"max_patches": max_patches})
    series = load_series(source, options)
    review = review_series(series, options)
    emit(render_review(review, fmt.value), fmt.value, output)
    return review.exit_code


def _clean_msgid(value: str | None) -> str | None:
    if not value:
        return None
    return value.strip().removeprefix("id:").strip("<>") or None


def register(app: typer.Typer) -> None:
    app.command("check")(check)
