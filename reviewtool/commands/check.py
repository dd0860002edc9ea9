"""`reviewtool check <msgid | URL | mbox>`: review one series."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

# The stages are imported when the command runs: every command is registered on each start.


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
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False,
                                          help="Write to this file (never the input)."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p",
                                          help="Target project profile (see `reviewtool rules`)."),
    select: list[str] = typer.Option([], "--select", help="Only these rules or families."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules or families."),
    max_patches: Optional[int] = typer.Option(None, "--max-patches", min=1,
                                              help="series-too-long threshold (default from the profile)."),
    lore_url: Optional[str] = typer.Option(None, "--lore-url", metavar="URL",
                                           help="Archive to fetch from: a midmask (https://HOST/all/%s) or base "
                                                "URL. Default: git config reviewtool.loreurl, then b4.midmask, "
                                                "then lore.kernel.org."),
    latest: bool = typer.Option(False, "--latest", help="Search the archive for newer revisions of the series "
                                                        "and review the newest."),
    cache_ttl: str = typer.Option("10m", "--cache-ttl", metavar="DURATION",
                                  help="Reuse a fetched thread this long (600, 90s, 10m, 1h)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Fetch anew even when a fresh copy is cached."),
    offline: bool = typer.Option(False, "--offline", help="No network: only local files and cached threads."),
    timeout: str = typer.Option("30s", "--timeout", metavar="DURATION",
                                help="Give up on the archive server after this long (30, 5s, 2m)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress messages on stderr."),
    repo: Optional[Path] = typer.Option(None, "--repo", metavar="PATH",
                                        help="Git repository for the history checks (Fixes targets, base-commit, "
                                             "applying). Default: the current directory when it is one."),
    tree: list[str] = typer.Option([], "--tree", metavar="NAME=REF",
                                   help="The git ref tracking a tree, e.g. --tree net=net/main (repeatable; "
                                        "default: git config reviewtool.tree.NAME, then the profile)."),
) -> int:
    """Review a patch series and print evidenced review notes.

    Exit codes: 0 no error-level findings, 1 error-level findings, 2 the input could not be read or used.
    """
    from ..context.history.options import repo_or_default, tree_overrides
    from ..render import render_review
    from ..render.output import emit, refuse_clobbering
    from ..review import ReviewOptions, load_series, review_series
    from ..sources.lore import FetchOptions, parse_duration

    options = ReviewOptions(msgid=_clean_msgid(msgid), revision=revision, profile=profile,
                            select=tuple(select), ignore=tuple(ignore),
                            settings={"max_patches": max_patches, "repo_from_cwd": repo is None},
                            repo=repo_or_default(repo), trees=tree_overrides(tree))
    fetch = FetchOptions(lore_url=lore_url, latest=latest, cache_ttl_s=parse_duration(cache_ttl, "--cache-ttl"),
                         no_cache=no_cache, offline=offline, quiet=quiet,
                         timeout_s=parse_duration(timeout, "--timeout", positive=True))
    refuse_clobbering(output, [Path(source)] if Path(source).exists() else [])
    series = load_series(source, options, fetch)
    _say_limits(series.notes)
    review = review_series(series, options)
    emit(render_review(review, fmt.value), fmt.value, output)
    return review.exit_code


def _say_limits(notes) -> None:
    """A limit that left mail out of the archive is said on stderr too (the review's notes hold it)."""
    import sys

    from ..render.env import strip_controls

    for note in notes:
        if "(REVIEWTOOL_" in note:
            sys.stderr.write(f"reviewtool: {strip_controls(note)}\n")


def _clean_msgid(value: str | None) -> str | None:
    if not value:
        return None
    return value.strip().removeprefix("id:").strip("<>") or None


EPILOG = """Examples:
  reviewtool check fixtures/examples/net-foo-3-patches.mbox
  reviewtool check 20230409-ipvs-cleanup-v2-0-204cd17da708@kernel.org
  reviewtool check series.mbox --repo ~/src/linux --format json

More: `reviewtool rules` lists every rule; docs/check.md in reviewtool's source describes
every option."""


def register(app: typer.Typer) -> None:
    app.command("check", epilog=EPILOG)(check)
