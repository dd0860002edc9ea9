"""A learned profile before it is written: the profile's tables, and beside each setting the
evidence it rests on (written as a comment and into the profile's `[evidence]` table), what was
left out for want of evidence, and what the maintainers sent back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LearnedProfile:
    name: str
    description: str = ""
    lists: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    select_by_files: bool = True
    trees: list[dict[str, Any]] = field(default_factory=list)  # name, kind, pair, git, closed_in_merge_window, source
    subtrees: list[dict[str, Any]] = field(default_factory=list)  # name, feeds, git, paths, source
    required_prefixes: list[dict[str, Any]] = field(default_factory=list)
    tree_aliases: dict[str, str] = field(default_factory=dict)
    untagged: dict[str, Any] | None = None
    disable: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    appliers: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # setting -> the counts behind it
    left_out: list[str] = field(default_factory=list)  # conventions with too little evidence, and why
    objections: list[str] = field(default_factory=list)  # what the maintainers sent back, counted
    postings: int = 0  # applied postings learned from
    sent_back: int = 0
    untagged_postings: list = field(default_factory=list, repr=False)  # the first pass's, for the second

    def note(self, key: str, why: str) -> None:
        self.evidence[key] = why

    def data(self) -> dict[str, Any]:
        """The profile as the loader reads it (context/profiles/load.py)."""
        out: dict[str, Any] = {"name": self.name, "description": self.description, "lists": self.lists,
                               "paths": self.paths, "select_by_files": self.select_by_files,
                               "trees": self.trees, "subtrees": self.subtrees,
                               "required_prefixes": self.required_prefixes, "tree_aliases": self.tree_aliases,
                               "rules": {"disable": self.disable, "severity": self.severity},
                               "settings": self.settings, "replies": {"appliers": self.appliers},
                               "evidence": self.evidence}
        if self.untagged is not None:
            out["untagged"] = self.untagged
        return out
