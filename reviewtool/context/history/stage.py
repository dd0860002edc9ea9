"""The history's context stage: open the repository the review names (if any) as a History and
say what it could not use; lint's prefetch starts the object reader early."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...sources.gitbatch import CatFile, GitRunner
from ...sources.gitconfig import RepoFacts
from .notes import history_notes, unrelated_reason
from .repository import History

STAGE_ORDER = 20


def prefetch(repo: Path, facts: RepoFacts) -> None:
    """Start the object reader while the series is still being read (lint)."""
    catfile = CatFile(GitRunner(repo))
    catfile.start()
    facts.started["cat-file"] = catfile


def context_stage(series, options, fields: dict[str, Any]) -> None:
    """Open options.repo (if any) and put a History into fields["history"].

    A repository with no commits, or one picked from the current directory (not named with
    --repo) that holds nothing the series names, is not used: checks against an unrelated
    history would only produce noise.
    """
    repo = options.repo
    if repo is None:
        fields["unavailable"].setdefault("repo", "no repository given (use --repo PATH, or run inside one)")
        return
    profile = fields.get("profile")
    hist = History.open(Path(repo), trees=profile.trees if profile else (), overrides=dict(options.trees),
                        release_pattern=(profile.settings.get("release_tag_pattern") if profile else None)
                        or "v[0-9]*", facts=options.repo_facts)
    why = unrelated_reason(hist, series, from_cwd=bool(options.settings.get("repo_from_cwd")))
    if why:
        hist.close()
        fields["unavailable"]["repo"] = why
        return
    fields["closers"].append(hist.close)
    fields["history"] = hist
    fields["notes"].extend(history_notes(hist, series))
