"""Which profile reviews a series (the order is in context/profiles/load.py's docstring), and which of
its patches another profile claims."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ...errors import ConfigError
from .profile import DEFAULT_DOCS_PATHS, Profile
from .parts import TreeReading
from .load import repo_default_profile

def _addresses(recipients: Iterable[str]) -> list[str]:
    """Bare lower-case addresses in the order they were written (To before Cc)."""
    from ...mail.headers import mailboxes

    return [addr.lower() for _, addr in mailboxes(recipients) if addr]


def _claim(p: Profile, path: str) -> int:
    """How specifically `p` claims `path`: the length of its longest matching prefix (0: not at all)."""
    # one C call each: most profiles claim none of a path, and a generator cost a frame per prefix
    if not path.startswith(tuple(p.paths)) or path.startswith(tuple(p.excluded_paths)):
        return 0
    return max((len(x) for x in p.paths if path.startswith(x)), default=0)


def file_owner(profiles: dict[str, Profile], paths: Iterable[str]) -> tuple[Profile, str] | None:
    """(profile, an example path) of the profile with trees that most specifically claims more than
    half of the files a series touches, documentation aside (like MAINTAINERS, the longest prefix wins)."""
    paths = [x for x in dict.fromkeys(paths) if x]
    code = [x for x in paths if not x.startswith(DEFAULT_DOCS_PATHS)] or paths
    if not code:
        return None
    candidates = [p for p in profiles.values() if p.trees and p.select_by_files]  # once, not per path
    tally: dict[str, list[str]] = {}
    for path in code:
        best = max(((_claim(p, path), p.name) for p in candidates), default=(0, ""))
        if best[0]:
            tally.setdefault(best[1], []).append(path)
    if not tally:
        return None
    name, owned = max(tally.items(), key=lambda kv: len(kv[1]))
    return (profiles[name], owned[0]) if len(owned) * 2 > len(code) else None


def foreign_patches(profiles: dict[str, Profile], chosen: Profile, series) -> dict[int, tuple[str, tuple[str, ...], str]]:
    """Patches of a series whose files another profile claims, the series' own profile none of them
    (a wireless driver patch inside a tree-wide series sent to another subsystem): counter ->
    (that profile, its lists, a path)."""
    from ...model.series import is_pull_request

    out = {}
    if len(series.patches) < 2 or is_pull_request(series):  # a pull request carries what its trees took
        return out
    for p in series.patches:
        paths = [f.path for f in p.diff.files if not chosen.is_test_path(f.path) and not chosen.is_docs_path(f.path)]
        if not paths:
            continue  # tests and documentation travel with their series
        owner = file_owner(profiles, paths)
        if owner is not None and owner[0].name != chosen.name and not any(_claim(chosen, x) for x in paths):
            out[p.counter] = (owner[0].name, owner[0].lists, owner[1])
    return out


def _tag_reading(p: Profile, tags: list[str]) -> TreeReading | None:
    """The tree a subject tag names in `p` as it is (in any case), was, or is fed by (no aliases,
    no misspellings: `-next` names no project)."""
    spec = p.exact_tree(tags)
    if spec is not None:
        return TreeReading(spec, spec.name, "exact")
    reading = p.read_tree(tags)
    return reading if reading is not None and reading.how in ("former", "subtree", "case") else None


_FROM_REPO: Any = object()


def select_profile(profiles: dict[str, Profile], *, name: str | None, tags: Iterable[str],
                   recipients: Iterable[str], repo: Path | None = None, config: Any = None,
                   paths: Iterable[str] = (), default: Any = _FROM_REPO) -> tuple[Profile, str]:
    """(profile, why it was chosen); see the module docstring for the order. `default`, when
    given, is the (name, where it was set) that stands for the repository's default (a profile
    file the caller has read: context/profiles/file.py)."""
    if name:
        if name not in profiles:
            raise ConfigError(f"unknown profile {name!r} (known: {', '.join(sorted(profiles))})")
        return profiles[name], "chosen with --profile"
    tags = list(tags)
    owner = file_owner(profiles, paths)
    for p in profiles.values():
        reading = _tag_reading(p, tags)
        if reading is None:
            continue
        # `[PATCH net-next] ath11k: ...`: the files are wireless's, netdev excludes them, and the
        # wireless maintainers read the tag as their own development tree.
        if owner is not None and owner[0] is not p and not any(_claim(p, x) for x in paths):
            theirs = owner[0].read_tree(tags)
            if theirs is not None:
                return owner[0], (f"the files it touches are {owner[0].name}'s ({owner[1]}); its subject tag "
                                  f"[{theirs.written}] reads there as {theirs.spec.name}")
        return p, f"subject tag [{reading.written}]"
    default = repo_default_profile(repo, config) if default is _FROM_REPO else default
    if default is not None:
        if default[0] not in profiles:
            raise ConfigError(f"{default[1]} names unknown profile {default[0]!r} "
                              f"(known: {', '.join(sorted(profiles))})")
        return profiles[default[0]], f"repository default ({default[1]})"
    if owner is not None:
        return owner[0], f"the files it touches are {owner[0].name}'s ({owner[1]})"
    if repo is not None:
        from ..history.remotes import read_remotes, repository_profile

        own = repository_profile({k: p for k, p in profiles.items() if p.trees}, read_remotes(repo, config))
        if own is not None:
            return own[0], f"the repository is {own[0].name}'s (remote {own[1]}: {own[2]})"
    # A subsystem's list says more than LKML, which is Cc'd on nearly everything: the first
    # address (To before Cc) that a profile with trees claims wins over an earlier LKML.
    claimed = sorted(((addr, p) for addr in _addresses(recipients) for p in profiles.values() if addr in p.lists),
                     key=lambda c: not c[1].trees)
    if claimed:
        return claimed[0][1], f"sent to {claimed[0][0]}"
    return profiles["generic"], "no tree tag, known files or known list: generic rules"
