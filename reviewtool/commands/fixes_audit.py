"""`reviewtool fixes-audit [REVRANGE]`: verify every Fixes tag in the commits of a range.

A maintainer's audit of a branch before a pull request: the same fixes rules as `check` (and
fixes-format), run over commits instead of mails, each finding naming the commit with the tag.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError

# The stages are imported when the command runs: every command is registered on each start.
if TYPE_CHECKING:
    from ..context.history.repository import History
    from ..model.series import Patch, Series
    from ..render.audit import Audit

AUDIT_RULES = ("fixes-format",)  # besides the "fixes" family
OPT_IN = ("fixes-introduced-in",)  # one info per tag: only with --select


class AuditFormat(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"


def commit_patch(counter: int, commit) -> Patch:
    """A commit read as the patch model the rules know (no diff: the rules here read messages)."""
    from ..mail.subject import parse_subject
    from ..model.series import Patch
    from ..model.trailers import split_commit_message

    subject_lines = commit.message.lstrip("\n").split("\n\n", 1)
    body = subject_lines[1] if len(subject_lines) > 1 else ""
    parts = split_commit_message(body)
    return Patch(counter=counter, msgid=commit.sha, subject=parse_subject(commit.subject), sender=commit.committer,
                 author=commit.author, date=commit.date, message=parts.prose, message_lines=parts.lines,
                 trailers=parts.trailers, commit=commit.sha)


def audit_series(revrange: str, commits) -> Series:
    from ..model.series import Series

    patches = tuple(commit_patch(i, c) for i, c in enumerate(commits, 1))
    return Series(subject=f"fixes-audit {revrange}", msgid="", revision=1, expected=len(patches), cover=None,
                  patches=patches, missing=(), source=revrange)


def _audit_registry() -> list:
    """The fixes family and fixes-format, importing only their modules (the audit starts faster);
    every rule module when fixes-format has moved elsewhere."""
    import importlib

    from ..rules import registry
    from ..rules.registry import all_rules

    for name in ("fixes", "fixes_format"):
        try:
            importlib.import_module(f"reviewtool.rules.{name}")
        except ImportError:
            pass
    if not all(n in registry.REGISTRY for n in AUDIT_RULES):
        return all_rules()
    return sorted(registry.REGISTRY.values(), key=lambda r: (r.family, r.name))


def audit_rules(select: tuple[str, ...], ignore: tuple[str, ...], profile) -> list:
    rules = [r for r in _audit_registry() if (r.family == "fixes" or r.name in AUDIT_RULES)
             and r.name not in profile.disabled]
    if select:
        rules = [r for r in rules if r.name in select or r.family in select]
    else:
        rules = [r for r in rules if r.name not in OPT_IN]
    return [r for r in rules if r.name not in ignore and r.family not in ignore]


def run_audit(hist: History, revrange: str, profile, select=(), ignore=()) -> Audit:
    from ..context import Context
    from ..context.history.notes import history_notes
    from ..context.history.scan import grep_commits
    from ..model.fixes import GREP_ERE, GREP_PCRE, fixes_of
    from ..render.audit import Audit
    from ..rules.runner import run_rules

    hist.prefetch_walk(revrange)  # one walk: the commit list to grep, then ancestry
    # every commit with a line model/fixes.py reads as a Fixes tag (and a few more): fixes-format looks at all
    commits = grep_commits(hist, revrange, GREP_ERE, GREP_PCRE)
    series = audit_series(revrange, commits)
    refs = [(f.sha, p.commit) for p in series.patches for f in fixes_of(p, replies=False) if f.sha]
    resolved = hist.resolve([sha for sha, _ in refs])
    found = [(resolved[sha].sha, c) for sha, c in refs if resolved[sha].found]
    hist.reachable_pairs(found, within=revrange)  # one walk, cached for fixes-target-not-ancestor
    ctx = Context(profile=profile, history=hist, now=datetime.now(timezone.utc))
    rules = audit_rules(tuple(select), tuple(ignore), profile)
    findings, not_checked = run_rules(series, ctx, rules)
    by_counter = {p.counter: p.commit for p in series.patches}
    findings = [replace(f, commit=f.commit or by_counter.get(f.patch)) for f in findings]
    findings.sort(key=lambda f: (f.patch or 0, f.severity.rank, f.rule))
    return Audit(repo=str(hist.path), revrange=revrange, commits=tuple(commits), tags=len(refs),
                 findings=tuple(findings), not_checked=tuple(not_checked), notes=tuple(history_notes(hist, series)),
                 trees={n: t.ref for n, t in hist.tree_refs.items() if t.sha})


def fixes_audit(
    revrange: Optional[list[str]] = typer.Argument(None, metavar="[REVRANGE]...",
                                                   help="Commits to audit, as `git log` takes them (default HEAD: "
                                                        "the whole history; v6.1..net/main: one branch's new "
                                                        "commits; `-- --all`: every ref)."),
    repo: Optional[Path] = typer.Option(None, "--repo", metavar="PATH",
                                        help="Git repository (default: the current directory)."),
    tree: list[str] = typer.Option([], "--tree", metavar="NAME=REF", help="The ref tracking a tree (repeatable)."),
    profile: str = typer.Option("generic", "--profile", "-p", help="Profile whose trees and rule settings apply."),
    fmt: AuditFormat = typer.Option(AuditFormat.text, "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False, help="Write to this file."),
    select: list[str] = typer.Option([], "--select", help="Only these rules (fixes-introduced-in is opt-in)."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules."),
) -> int:
    """Verify every Fixes tag in a range of commits: exists, unambiguous, subject, ancestry, format.

    Exit codes: 0 no error-level findings, 1 error-level findings, 2 unusable repository or range.
    """
    from ..context.history.repository import History
    from ..context.profiles.load import load_profiles
    from ..context.history.options import repo_or_default, tree_overrides
    from ..render.audit import render_audit
    from ..render.output import emit
    from ..rules.registry import Severity

    path = repo_or_default(repo)
    if path is None:
        raise InputError("not inside a git repository: use --repo PATH")
    profiles = load_profiles(path)
    if profile not in profiles:
        raise InputError(f"unknown profile {profile!r} (known: {', '.join(sorted(profiles))})")
    prof = profiles[profile]
    hist = History.open(path, trees=prof.trees, overrides=tree_overrides(tree),
                        release_pattern=prof.settings.get("release_tag_pattern") or "v[0-9]*")
    try:
        audit = run_audit(hist, " ".join(revrange or ["HEAD"]), prof, tuple(select), tuple(ignore))
    finally:
        hist.close()
    emit(render_audit(audit, fmt.value), fmt.value, output)
    return EXIT_FINDINGS if audit.count(Severity.ERROR) else EXIT_OK


EPILOG = """Examples:
  reviewtool fixes-audit           # every commit of HEAD
  reviewtool fixes-audit v6.12..HEAD --repo ~/src/linux --format json
  reviewtool fixes-audit v6.1..net/main --select fixes-introduced-in

More: docs/fixes-audit.md in reviewtool's source."""


def register(app: typer.Typer) -> None:
    app.command("fixes-audit", epilog=EPILOG)(fixes_audit)
