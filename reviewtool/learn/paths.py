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
from typing import Callable

from .archive import Posting
from .counts import share, table
from .learned_profile import LearnedProfile
from .projects import Project

PATH_MIN = 2  # applied postings that make a directory the project's
PATH_SHARE = 0.01
FOCUSED_KEYS = 3  # a posting touching more directories than this (a tree-wide change) is no one's
POSTED_MIN, POSTED_SHARE = 5, 0.005  # focused postings that make a directory the project's
KERNEL_SHARE = 0.8
HOME_SHARE = 0.9  # a directory's home holds this share of its files


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


def _is_list(address: str, own: str) -> bool:
    """`address` is the list `own` names (the List-Id's intel-wired-lan@osuosl.org is posters'
    intel-wired-lan@lists.osuosl.org)."""
    a, _, ad = address.partition("@")
    o, _, od = own.partition("@")
    return a == o and bool(ad) and (ad.endswith(od) or od.endswith(ad))


def sent_elsewhere(own: str | None) -> Callable[[Posting], str | None]:
    """The list of another project a posting was sent to before this one (`own`, the archive's
    List-Id), as a profile with trees names it (shipped: netdev@vger.kernel.org): a netdev series
    Cc'd to intel-wired-lan is netdev's, not the list's. A list no profile names (ath11k@, a
    driver's) says nothing; without the archive's own list nothing is told."""
    if own is None:
        return lambda p: None
    from ..context.profiles.load import shipped_profiles

    # a profile that names this list too (netfilter's coreteam@ beside netfilter-devel@) is this project's
    theirs = {a.lower() for prof in shipped_profiles().values()
              if prof.trees and not any(_is_list(x.lower(), own) for x in prof.lists) for a in prof.lists}

    def other(p: Posting) -> str | None:
        for a in p.recipients:
            if _is_list(a, own):
                return None
            if a in theirs:
                return a
        return None
    return other


def project_paths(postings: list[Posting], posted: list[Posting] = (),
                  elsewhere: Callable[[Posting], str | None] = lambda p: None) -> tuple[list[str], int, list[str]]:
    """The directories (and shared-directory files) the project's applied patches touch, and those
    that postings to the list touch without touching much else (maintainers who apply without a
    reply leave only these: mac80211's). Revisions are not counted apart: the later revisions of a
    series count as one, beside its first (ten revisions of one patch are one poster's view of
    where a directory belongs, not ten)."""
    unit = _series_of([*postings, *posted])
    per: dict[str, set] = defaultdict(set)
    theirs: dict[str, set] = defaultdict(set)  # the series sent to another project's list first
    for p in postings:
        for counter in p.applied:
            for f in p.files.get(counter, ()):
                k = _path_key(f)
                if k:
                    (theirs if elsewhere(p) else per)[k].add(unit(p))
    series = len({unit(p) for p in postings})
    # a path the list's own series touch, at least as often as another list's series do
    keep = {k for k, ps in per.items() if len(ps) >= PATH_MIN and len(ps) >= PATH_SHARE * series
            and len(ps) >= len(theirs.get(k, ()))}
    focused_in: dict[str, set] = defaultdict(set)
    for p in posted:
        if elsewhere(p):
            continue
        keys = {k for fs in p.files.values() for f in fs if (k := _path_key(f))}
        if 0 < len(keys) <= FOCUSED_KEYS:
            for k in keys:
                focused_in[k].add(unit(p))
    focused = Counter({k: len(units) for k, units in focused_in.items()})
    posted_series = len({unit(p) for p in posted})
    silent = {k for k, n in focused.items() if n >= POSTED_MIN and n >= POSTED_SHARE * posted_series} - keep
    keep |= silent
    keep = {_narrowed(k, postings, elsewhere) for k in keep}
    keep |= _parents(keep)
    keep = {k for k in keep if not any(o != k and o.endswith("/") and k.startswith(o) for o in keep)}
    silent &= keep
    covered = sum(1 for p in postings if any(_path_key(f) and any(f.startswith(k) or _path_key(f) == k for k in keep)
                                             for c in p.applied for f in p.files.get(c, ())))
    order = sorted(keep, key=lambda k: (-len(per.get(k, ())), -focused[k], k))
    return order, covered, sorted(silent, key=lambda k: (-focused[k], k))


def _narrowed(key: str, postings: list[Posting], elsewhere) -> str:
    """A directory narrowed to the home of the list's own files under it (drivers/net/ethernet/ is
    intel-wired-lan's only in drivers/net/ethernet/intel/)."""
    if not key.endswith("/"):
        return key
    files = Counter(f for p in postings if not elsewhere(p) for c in p.applied for f in p.files.get(c, ())
                    if f.startswith(key))
    home = home_of(files)
    return home if home.startswith(key) and len(home) > len(key) else key


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


def home_of(files: Counter) -> str:
    """The deepest directory holding HOME_SHARE of the files ("" for the top)."""
    total = sum(files.values())
    if not total:
        return ""
    best = ""
    while True:
        below: Counter = Counter()
        depth = best.count("/")
        for f, n in files.items():
            parts = f.split("/")
            if f.startswith(best) and len(parts) > depth + 1:
                below["/".join(parts[:depth + 1]) + "/"] += n
        if not below:
            return best
        d, n = below.most_common(1)[0]
        if n < HOME_SHARE * total:
            return best
        best = d


def kernel_layout(paths: list[str]) -> bool:
    tops = table()["paths"]["kernel"]
    return bool(paths) and sum(1 for x in paths if any(x.startswith(t) for t in tops)) >= KERNEL_SHARE * len(paths)


def learn_paths(lp: LearnedProfile, project: Project, posted: list[Posting], own: str | None = None) -> None:
    """`own`: the archive's list (its List-Id), which tells the list's own postings from another's."""
    postings = [p for p in project.postings if p.applied]
    elsewhere = sent_elsewhere(own)
    paths, covered, silent = project_paths(postings, posted, elsewhere)
    shut = sorted({k for p in postings if elsewhere(p) for c in p.applied for f in p.files.get(c, ())
                   if (k := _path_key(f)) and not any(k.startswith(x) or x.startswith(k) for x in paths)})
    if not paths:
        lp.left_out.append("paths: no directory is touched by two applied postings")
        return
    lp.paths = paths
    lp.select_by_files = kernel_layout(paths)
    why = (f"the directories (and shared-directory files) that at least {PATH_MIN} applied series touch "
           f"({share(covered, len(postings))} applied postings touch one)")
    theirs = sum(1 for p in postings if elsewhere(p))
    if theirs:
        why += (f"; not what the {theirs} applied postings sent first to another project's list "
                f"({', '.join(sorted({elsewhere(p) for p in postings if elsewhere(p)}))}, this one in copy) touch "
                "as much as the list's own or more"
                + (f": {', '.join(shut[:6])}{', ...' if len(shut) > 6 else ''}" if shut else ""))
    if silent:
        why += (f"; and those that at least {POSTED_MIN} series of the {len(posted):,} postings touch without much "
                f"else, applied without a reply: {', '.join(silent)}")
    lp.note("paths", why)
    if not lp.select_by_files:
        lp.note("select_by_files", "its paths are not the kernel's layout: chosen by its tree tag or list only")
