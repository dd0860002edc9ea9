"""Where the repository's remotes point, read as the profiles' trees name their repositories
(`git = "iproute2-next.git"`): a clone of iproute2.git is iproute2's own repository, and its
origin/HEAD is the iproute2 tree's ref when neither the profile nor git config names one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

REMOTE_URL_PATTERN = r"^remote\..+\.url$"


def remotes_of(config: Any) -> tuple[tuple[str, str], ...]:
    """(remote name, url) for each `remote.<name>.url` of a sources.gitconfig.GitConfig."""
    out = []
    for key, value in config.matching(REMOTE_URL_PATTERN):
        if value and value.strip():
            out.append((key[len("remote."):-len(".url")], value.strip()))
    return tuple(out)


def read_remotes(repo: Path | None, config: Any = None) -> tuple[tuple[str, str], ...]:
    """The remotes of `repo`, from `config` when it was already read, else one git call."""
    if config is not None:
        return remotes_of(config)
    if repo is None:
        return ()
    from ...errors import RepositoryError
    from ...sources.gitbatch import GitRunner
    from ...sources.gitconfig import GitConfig

    try:
        res = GitRunner(Path(repo)).run(["config", "-z", "--get-regexp", REMOTE_URL_PATTERN], check=False)
    except RepositoryError:
        return ()
    return remotes_of(GitConfig.parse(res.out)) if res.code == 0 else ()


def repository_name(location: str) -> str:
    """The repository a URL or a profile's `git` names, as "name.git", lower-cased:
    "git://git.kernel.org/pub/scm/network/iproute2/iproute2-next.git" -> "iproute2-next.git"."""
    last = location.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower()
    return last if last.endswith(".git") else last + ".git"


def remote_holding(git: str | None, remotes: Iterable[tuple[str, str]]) -> tuple[str, str] | None:
    """(remote, url) of the first remote that is the repository `git` names."""
    if not git:
        return None
    want = repository_name(git)
    return next(((name, url) for name, url in remotes if repository_name(url) == want), None)


def remote_refs(remote: str) -> tuple[str, ...]:
    """The refs that track a remote's main line, best first (a clone sets HEAD)."""
    return tuple(f"refs/remotes/{remote}/{branch}" for branch in ("HEAD", "main", "master"))


def repository_profile(profiles: dict[str, Any], remotes: Iterable[tuple[str, str]]) -> tuple[Any, str, str] | None:
    """(profile, remote, url) of the first profile one of whose trees is a remote of the repository."""
    remotes = tuple(remotes)
    for p in profiles.values():
        for t in p.trees:
            held = remote_holding(t.git, remotes)
            if held is not None:
                return p, held[0], held[1]
    return None


def tree_refs_wanted(trees: Iterable[Any], configured: Iterable[tuple[str, str | None]],
                     overrides: dict[str, str] | None, remotes: Iterable[tuple[str, str]]):
    """({tree: TreeRef without sha}, {tree: refs to try in order}) for the profile's TreeSpecs: a
    ref from the profile, overridden by git config `reviewtool.tree.<name>` (`configured`: its
    (key, value) entries), then by --tree; a tree with none of them and a remote that is its
    repository tries that remote's refs."""
    from .values import TreeRef

    remotes = tuple(remotes)
    specs: dict[str, Any] = {}
    alternatives: dict[str, tuple[str, ...]] = {}
    kinds = {t.name: t.kind for t in trees}
    for t in trees:
        held = None if t.ref else remote_holding(getattr(t, "git", None), remotes)
        if t.ref:
            specs[t.name] = TreeRef(t.name, t.ref, "profile", kind=t.kind)
        elif held is not None:
            alternatives[t.name] = remote_refs(held[0])
            specs[t.name] = TreeRef(t.name, alternatives[t.name][0], f"remote {held[0]} ({held[1]})", kind=t.kind)
    for key, value in configured:
        if value and value.strip():
            name = key[len("reviewtool.tree."):]
            specs[name] = TreeRef(name, value.strip(), "config", kind=kinds.get(name, "development"))
            alternatives.pop(name, None)
    for name, ref in (overrides or {}).items():
        specs[name] = TreeRef(name, ref, "option", kind=kinds.get(name, "development"))
        alternatives.pop(name, None)
    return specs, alternatives
