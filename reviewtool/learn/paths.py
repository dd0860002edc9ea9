"""The paths a project owns, from the files its applied patches touch.

A file counts under its directory three levels down at most (drivers/net/wireless/), or as
itself in a directory many projects share (include/net/mac80211.h: include/net/ is netdev's
too); files that are everyone's (MAINTAINERS, Documentation/) count for no one. A directory is
the project's when two applied series touch it (a hundredth of them at least), or when five
series of the archive (half a percent) touch it without touching more than three directories:
maintainers who apply without a reply (mac80211's) leave only that. The later revisions of a
series count as one (twelve revisions of one ath9k patch made drivers/char/hw_random/ wireless's). A directory three or more of
whose subdirectories are the project's is the project's.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from .archive import Posting
from .counts import share, table
from .learned_profile import LearnedProfile
from .projects import Project

PATH_MIN = 2  # applied postings that make a directory the project's
PATH_SHARE = 0.01
FOCUSED_KEYS = 3  # a posting touching more directories than this (a tree-wide change) is no one's
POSTED_MIN, POSTED_SHARE = 5, 0.005  # focused postings that make a directory the project's
KERNEL_SHARE = 0.8


def _path_key(path: str) -> str | None:
    """The directory a file counts under: three levels down at most (drivers/net/wireless/), the
    file itself in a directory many projects share (include/net/mac80211.h); None for files
    that are everyone's (MAINTAINERS, Documentation/)."""
    paths = table()["paths"]
    if any(path == x or path.startswith(x) for x in paths["ignore"] if x.endswith("/") or path == x):
        return None
    parts = path.split("/")
    if len(parts) == 1:
        return None
    key = "/".join(parts[:min(3, len(parts) - 1)]) + "/"
    return path if key in paths["shared"] else key


def project_paths(postings: list[Posting], posted: list[Posting] = ()) -> tuple[list[str], int, list[str]]:
    """The directories (and shared-directory files) the project's applied patches touch, and those
    that postings to the list touch without touching much else (maintainers who apply without a
    reply leave only these: mac80211's). Revisions are not counted apart: the later revisions of a
    series count as one, beside its first (ten revisions of one patch are one poster's view of
    where a directory belongs, not ten)."""
    unit = _series_of([*postings, *posted])
    per: dict[str, set] = defaultdict(set)
    for p in postings:
        for counter in p.applied:
            for f in p.files.get(counter, ()):
                k = _path_key(f)
                if k:
                    per[k].add(unit(p))
    series = len({unit(p) for p in postings})
    keep = {k for k, ps in per.items() if len(ps) >= PATH_MIN and len(ps) >= PATH_SHARE * series}
    focused_in: dict[str, set] = defaultdict(set)
    for p in posted:
        keys = {k for fs in p.files.values() for f in fs if (k := _path_key(f))}
        if 0 < len(keys) <= FOCUSED_KEYS:
            for k in keys:
                focused_in[k].add(unit(p))
    focused = Counter({k: len(units) for k, units in focused_in.items()})
    posted_series = len({unit(p) for p in posted})
    silent = {k for k, n in focused.items() if n >= POSTED_MIN and n >= POSTED_SHARE * posted_series} - keep
    keep |= silent
    keep |= _parents(keep)
    keep = {k for k in keep if not any(o != k and o.endswith("/") and k.startswith(o) for o in keep)}
    silent &= keep
    covered = sum(1 for p in postings if any(_path_key(f) and any(_path_key(f).startswith(k) for k in keep)
                                             for c in p.applied for f in p.files.get(c, ())))
    order = sorted(keep, key=lambda k: (-len(per.get(k, ())), -focused[k], k))
    return order, covered, sorted(silent, key=lambda k: (-focused[k], k))


def _series_of(postings: list[Posting]):
    """What a posting counts as: itself, or, when it is a later revision of a series (above the
    lowest revision the archive holds of that series), one with every later revision of it."""
    first: dict[int, int] = {}
    for p in postings:
        first[p.family] = min(first.get(p.family, p.revision), p.revision)
    return lambda p: p.key if p.family < 0 or p.revision <= first[p.family] else ("later", p.family)


def _parents(keys: set[str]) -> set[str]:
    """A directory (not a shared one) three or more of whose subdirectories are the project's."""
    shared = set(table()["paths"]["shared"])
    by_parent: dict[str, int] = Counter()
    for k in keys:
        if k.endswith("/") and k.count("/") >= 3:
            by_parent[k.rsplit("/", 2)[0] + "/"] += 1
    return {d for d, n in by_parent.items() if n >= 3 and d not in shared}


def kernel_layout(paths: list[str]) -> bool:
    tops = table()["paths"]["kernel"]
    return bool(paths) and sum(1 for x in paths if any(x.startswith(t) for t in tops)) >= KERNEL_SHARE * len(paths)


def learn_paths(lp: LearnedProfile, project: Project, posted: list[Posting]) -> None:
    postings = [p for p in project.postings if p.applied]
    paths, covered, silent = project_paths(postings, posted)
    if not paths:
        lp.left_out.append("paths: no directory is touched by two applied postings")
        return
    lp.paths = paths
    lp.select_by_files = kernel_layout(paths)
    why = (f"the directories (and shared-directory files) that at least {PATH_MIN} applied series touch "
           f"({share(covered, len(postings))} applied postings touch one)")
    if silent:
        why += (f"; and those that at least {POSTED_MIN} series of the {len(posted):,} postings touch without much "
                f"else, applied without a reply: {', '.join(silent)}")
    lp.note("paths", why)
    if not lp.select_by_files:
        lp.note("select_by_files", "its paths are not the kernel's layout: chosen by its tree tag or list only")
