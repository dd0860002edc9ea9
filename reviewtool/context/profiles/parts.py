"""The parts of a profile, as plain frozen values: its trees (and their former names), the
sub-trees that feed them, untagged-patch policy, required subject prefixes, announced closures,
paths that go separately, and how a subject tag read as a tree. context/profiles/load.py builds a
Profile from them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone

@dataclass(frozen=True)
class TreeSpec:
    name: str  # the exact subject tag: net, net-next, bpf, ...
    kind: str  # "fixes" or "development"
    ref: str | None = None  # git ref that tracks this tree in a local repository
    pair: str | None = None  # the development tree for a fixes tree and vice versa
    closed_in_merge_window: bool = False  # takes no new work between vX.Y and vX.(Y+1)-rc1
    former_names: tuple["FormerName", ...] = ()  # names it had before (subjects and replies of that time)
    git: str | None = None  # the repository as the maintainers' replies name it ("wireless-next.git")
    source: str = ""  # where its policy is written down
    tags: tuple[str, ...] = ()  # other subject tags that name it exactly (nftables: "nft")


@dataclass(frozen=True)
class FormerName:
    """A name a tree had until a date: `[PATCH wireless-drivers]` meant today's `wireless`."""

    name: str
    until: date | None = None  # the last day it was the tree's name (None: not known)
    source: str = ""


@dataclass(frozen=True)
class SubTree:
    """A tree that feeds one of the profile's trees: its maintainers apply a driver family's patches
    and send them on by pull request (ath.git's ath-next feeds wireless-next)."""

    name: str  # as subjects and replies write it: "ath-next"
    feeds: str  # the profile tree it is pulled into
    git: str | None = None  # the repository, as replies name it: "ath.git"
    paths: tuple[str, ...] = ()  # what it takes (prefixes); empty: whatever the fed tree takes
    source: str = ""
    # A queue with its own maintainers keeps taking postings while the tree it feeds is closed
    # (they send them on after the merge window), unless the profile says it closes too.
    closed_in_merge_window: bool = False


UNTAGGED_SIGNALS = ("maintainers", "build-break", "regression")


@dataclass(frozen=True)
class UntaggedPolicy:
    """What a patch without a tree tag means on a list whose maintainers pick the tree: it goes to
    `tree`, unless it shows one of `fixes_when` (then the fixes tree takes it)."""

    tree: str
    fixes_when: tuple[str, ...] = ()  # of UNTAGGED_SIGNALS
    source: str = ""


@dataclass(frozen=True)
class RequiredPrefix:
    """A summary prefix the list requires on patches touching its paths ("wifi:" on linux-wireless).

    From `since` a missing prefix is a warning; between `noted_since` and `since` (the maintainers
    added it when applying, before they asked posters for it) it is a note."""

    prefix: str
    since: date
    noted_since: date | None = None
    paths: tuple[str, ...] = ()  # empty: the profile's own paths
    exempt: tuple[str, ...] = ()  # summaries that keep their own convention ("dt-bindings:")
    source: str = ""

    def convention_at(self, when: datetime | None) -> str | None:
        """For a posting sent at `when`: "asked" once posters are asked for the prefix (`since`),
        "added" once the maintainers add it to every patch they apply (`noted_since`: a summary
        without it is edited when applied), None before either (not yet a convention)."""
        if when is None:
            return "asked"
        day = (when.astimezone(timezone.utc) if when.tzinfo else when).date()
        if day >= self.since:
            return "asked"
        return "added" if self.noted_since is not None and day >= self.noted_since else None


@dataclass(frozen=True)
class Closure:
    """A closure of a tree the maintainers announced outside the merge window (netdev's end-of-year
    break), as UTC days, both included."""

    tree: str
    first_day: date
    last_day: date
    why: str
    source: str = ""

    def covers(self, when: datetime) -> bool:
        day = (when.astimezone(timezone.utc) if when.tzinfo else when).date()
        return self.first_day <= day <= self.last_day


@dataclass(frozen=True)
class SeparatePaths:
    """Files that reach mainline through a tree of their own (devicetree sources, bindings)."""

    name: str
    paths: tuple[str, ...]  # prefixes; `*` is one path component
    tree: str  # where they go, in words

    def matches(self, path: str) -> bool:
        return any(_prefix_match(pattern, path) for pattern in self.paths)


def _prefix_match(pattern: str, path: str) -> bool:
    parts, have = pattern.rstrip("/").split("/"), path.split("/")
    return len(have) > len(parts) and all(p == "*" or p == h for p, h in zip(parts, have))


@dataclass(frozen=True)
class TreeReading:
    """The tree a subject tag names, and how it was written: "exact", "case" (`NET-NEXT`),
    "alias" (a form the profile lists, `-next`) or "spelling" (one edit away, `net-nxt`)."""

    spec: TreeSpec
    written: str
    how: str
