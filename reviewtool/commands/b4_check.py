"""`reviewtool b4-check`: one patch (or a whole series) on stdin -> what b4 0.16 expects from a check
command, so `b4 review`, `b4 prep --check` and `b4 am --check` show reviewtool's findings.

b4 runs the command in the repository's top directory with the message on stdin, so the history
checks (Fixes targets, base-commit) use that repository. Given one patch of a larger series, only
what can be judged from that patch is reported: the series-shape rules and the whole-series
findings would be guesses about mails that were not given.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from enum import Enum
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import InputError

# The stages are imported when the command runs: every command is registered on each start.
if TYPE_CHECKING:
    from ..sources.files import RawMail

MAX_STDIN = 64 * 1024 * 1024
PARTIAL_SKIP_FAMILIES = ("series",)
PARTIAL_SKIP_RULES = ("does-not-apply",)  # one patch of several does not apply without the others
PREP_SKIP_RULES = ("cc-missing", "already-applied")


class B4Format(str, Enum):
    json = "json"  # review-perpatch-check-cmd / review-series-check-cmd
    checkpatch = "checkpatch"  # am-perpatch-check-cmd / prep-perpatch-check-cmd


def read_stdin_mails(data: bytes) -> list[RawMail]:
    from ..sources.files import RawMail, split_mbox

    if not data.strip():
        raise InputError("stdin is empty: b4 passes the message on standard input")
    if len(data) > MAX_STDIN:
        raise InputError(f"stdin holds more than the limit of {MAX_STDIN} bytes")
    if data.startswith(b"From "):
        mails = split_mbox(data, "stdin")
        if mails:
            return mails
    return [RawMail(data, "stdin")]


def patch_mails(msgs) -> list[tuple[int, bytes]]:
    """(counter, bytes) of every patch mail (not cover letters, not replies), for checkpatch."""
    from ..mail.subject import parse_subject
    from ..mail.headers import header

    out = []
    for m in msgs:
        subj = parse_subject(header(m, "Subject"))
        if subj.is_patch and not subj.reply and subj.counter != 0:
            out.append((subj.counter or 1, m.as_bytes()))
    return out


def b4_check(
    fmt: B4Format = typer.Option(B4Format.json, "--format", "-f",
                                 help="json for b4 review's check commands, checkpatch for b4 am/prep --check."),
    repo: Optional[str] = typer.Option(None, "--repo", metavar="PATH",
                                       help="Repository for the history checks (default: the current directory, "
                                            "where b4 runs the command)."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p", help="Target project profile."),
    select: list[str] = typer.Option([], "--select", help="Only these rules or families."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules or families."),
    tree: list[str] = typer.Option([], "--tree", metavar="NAME=REF", help="The ref tracking a tree (repeatable)."),
    prep: bool = typer.Option(False, "--prep",
                              help="The patches are your own commits (b4 prep --check): skip cc-missing (b4 send adds "
                                   "the recipients) and already-applied (your branch holds them)."),
    checkpatch: bool = typer.Option(False, "--checkpatch",
                                    help="Also run the repository's scripts/checkpatch.pl and report it as its own "
                                         "tool."),
) -> int:
    """Check the patch or series on stdin and print the result in the format b4 reads.

    Exit codes: 0 no error-level findings, 1 error-level findings, 2 unusable input.
    """
    from pathlib import Path

    from ..context.history.options import repo_or_default, tree_overrides
    from ..model.own import plain_series
    from ..render.b4check import render_b4
    from ..render.output import emit
    from ..review import ReviewOptions, review_series
    from ..sources.files import parse_mails

    raws = read_stdin_mails(sys.stdin.buffer.read(MAX_STDIN + 1))  # never more than the limit held
    msgs = parse_mails(raws)
    series = plain_series(msgs, source="stdin")
    if series is None:  # replies, several revisions, odd numbering: b4 rebuilds the thread
        from ..model.b4adapter import build_series

        series = build_series(msgs, source="stdin")
    path = repo_or_default(Path(repo) if repo else None)
    partial = bool(series.missing) or (series.cover is not None and not series.patches)
    options = ReviewOptions(profile=profile, repo=path, trees=tree_overrides(tree), select=tuple(select),
                            ignore=tuple(ignore) + ((PARTIAL_SKIP_FAMILIES + PARTIAL_SKIP_RULES) if partial else ())
                            + (PREP_SKIP_RULES if prep else ()))
    review = review_series(series, options)
    findings = [f for f in review.findings if not (partial and f.patch is None)]
    not_checked = [f"{n.rule}: {n.reason}" for n in review.not_checked]
    if checkpatch:
        from ..checkpatch import run_checkpatch

        found, missing = run_checkpatch(path, patch_mails(msgs))
        findings += found
        not_checked += [f"{n.rule}: {n.reason}" for n in missing]
    review = replace(review, findings=tuple(findings))
    emit(render_b4(findings, not_checked, fmt.value), "plain")
    return review.exit_code


EPILOG = """Examples:
  git format-patch -1 --stdout | reviewtool b4-check
  git format-patch -1 --stdout | reviewtool b4-check --format checkpatch
  git config b4.am-perpatch-check-cmd 'reviewtool b4-check -f checkpatch'

More: docs/b4.md in reviewtool's source gives the git config lines for b4 review, am
and prep."""


def register(app: typer.Typer) -> None:
    app.command("b4-check", epilog=EPILOG)(b4_check)
