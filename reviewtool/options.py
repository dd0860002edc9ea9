"""What the command line may set for a review: a module of its own, so that a command that only
reads stored reviews (a warm triage run) does not load the review pipeline to name its options."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ReviewOptions:
    """Everything the command line may set for a review."""

    msgid: str | None = None
    revision: int | None = None
    profile: str | None = None
    repo: Path | None = None  # local git repository for history checks
    trees: dict[str, str] = field(default_factory=dict)  # tree name -> git ref (--tree net=REF)
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    now: datetime | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # overrides of profile settings
    repo_facts: Any = None  # sources.gitconfig.RepoFacts: what lint already read of `repo`
