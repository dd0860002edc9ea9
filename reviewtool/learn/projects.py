"""What the archive shows of a tree (its name as replies write it, its applied postings, who applied
them, its kind) and of a project (its trees and the sub-trees feeding them): trees.py finds them,
the other learners read them."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .postings import Posting

_RELEASE_RE = re.compile(r"^(v?\d|for-v?\d|-?stable$|rfc)", re.I)


def tree_tags(p: Posting) -> list[str]:
    """The subject tags of a posting that may name a tree (not a release, a stable branch or RFC)."""
    return [t for t in p.tags if not _RELEASE_RE.match(t)]


@dataclass
class SeenTree:
    name: str
    repo: str
    git: str
    family: str
    branch_of: bool  # "X branch of Y.git": a branch of another repository
    words: Counter = field(default_factory=Counter)  # the tree as replies write it
    postings: list[Posting] = field(default_factory=list)
    appliers: Counter = field(default_factory=Counter)
    pulled: Counter = field(default_factory=Counter)  # tree -> the pull requests this one took from it
    sent: Counter = field(default_factory=Counter)  # upstream tree -> the pull requests of this one it took
    tagged: int = 0  # of its postings, those applied without a tree named, by their subject tag
    robot: Counter = field(default_factory=Counter)  # branch -> its postings a build robot showed at its head
    kind: str | None = None
    kind_why: str = ""
    tags: list[str] = field(default_factory=list)  # other subject tags that name it (lower case: nftables' "nft")

    @property
    def patches(self) -> int:
        return sum(len(p.applied) for p in self.postings)

    @property
    def with_fixes(self) -> int:
        return sum(1 for p in self.postings for c in p.applied if c in p.fixes)


@dataclass
class Project:
    stem: str
    trees: list[SeenTree]  # the project's own trees (one family)
    subtrees: list[tuple[SeenTree, str]] = field(default_factory=list)  # (sub-tree, the home it takes)
    home: str = ""
    by_tag: bool = False  # known by its subject tag alone (no reply names its tree): chosen by it

    @property
    def postings(self) -> list[Posting]:
        return [p for t in self.trees + [s for s, _ in self.subtrees] for p in t.postings]

    def tree_of(self, p: Posting) -> SeenTree | None:
        return next((t for t in self.trees if p in t.postings), None)

    def fed(self, sub: SeenTree) -> SeenTree | None:
        """The project tree a sub-tree feeds: the one of its kind."""
        return next((t for t in self.trees if t.kind == (sub.kind or "development")), None) or (
            self.trees[0] if self.trees else None)

    def main_tree(self, p: Posting) -> SeenTree | None:
        """The project tree a posting ends in (through a sub-tree, the tree that sub-tree feeds)."""
        own = self.tree_of(p)
        if own is not None:
            return own
        sub = next((s for s, _ in self.subtrees if p in s.postings), None)
        return self.fed(sub) if sub is not None else None


def tree_names(project: Project) -> dict[str, SeenTree]:
    """Every name a subject tag may give a project's trees (lower case): its trees', their other
    tags, and its sub-trees' (read as the tree each feeds)."""
    names = {t.name.lower(): t for t in project.trees}
    names.update({tag: t for t in project.trees for tag in t.tags})
    names.update({s.name.lower(): project.fed(s) for s, _ in project.subtrees})
    return names
