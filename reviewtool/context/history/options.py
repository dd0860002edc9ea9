"""The repository options every command shares: --repo (default: the current directory when it
is a git repository) and --tree NAME=REF."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ...sources.gitbatch import GitRunner


def default_repo(cwd: Path | None = None) -> Path | None:
    """The current directory when it is inside a git repository (the --repo default), else None."""
    cwd = cwd or Path.cwd()
    res = GitRunner(cwd).run(["rev-parse", "--git-dir"], check=False)
    return cwd if res.code == 0 else None


def repo_or_default(repo: Path | None) -> Path | None:
    """--repo as given (checked when opened), else the current directory when it is a repository."""
    return repo if repo is not None else default_repo()


def tree_overrides(values: Iterable[str]) -> dict[str, str]:
    """--tree NAME=REF options into {name: ref}; InputError on a malformed one."""
    from ...errors import InputError

    out: dict[str, str] = {}
    for v in values:
        name, sep, ref = v.partition("=")
        name, ref = name.strip(), ref.strip()
        if not sep or not name or not ref or " " in ref or ref.startswith("-"):
            raise InputError(f"--tree {v!r}: expected NAME=REF, e.g. --tree net=refs/remotes/net/main")
        out[name] = ref
    return out
