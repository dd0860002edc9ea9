"""What decides a stored review, as digests (triage/store.py keeps reviews under them).

- the code: reviewtool's version and the bytes of every file of the installed package (the
  rules and their registry, the profiles' TOML, context, parsers, the release calendar), and the
  versions of b4, unidiff and Python. A rule changed on any branch gives other keys: nothing
  another build reviewed is ever reused.
- the options that reach the review: --profile (a profile file: its bytes too), --select,
  --ignore, --repo, --tree and the link base the entry's links are made from, b4's settings in
  git config (b4 builds the series), and the resource limits (REVIEWTOOL_MAX_*: a series over one
  is kept as "could not be reviewed").
  --now, --stale-days, --sort, --status, --jobs and the format are applied at report time and
  are not part of it.
- the mails: each one's bytes (a digest taken while the archive is indexed) and how it is read
  (mbox, mboxrd, format-patch), in the group's order. Where a mail is (file, offset) is left
  out: the entry does not show it, and a mail client that renames maildir files or compacts an
  mbox must not cost a review (a skip reason naming the place is not stored: triage/reuse.py).
- with --repo, the repository as a review can see it (`repo_state`), kept beside the key: every
  ref (any fetch can bring the commits another tree's series name in Fixes:), HEAD, the shallow
  boundary and grafts, which objects the object store holds (objects_digest), git's config and
  version, and the MAINTAINERS, .mailmap and .reviewtool.toml it reads.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from ..limits import limits
from ..sources.index import MailRef

_DEPENDENCIES = ("b4", "unidiff")
_WORK_TREE_FILES = ("MAINTAINERS", ".mailmap", ".reviewtool.toml")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """reviewtool's version, every file of its package, and the versions of what parses mail."""
    from importlib import metadata

    from .. import __version__

    h = hashlib.sha256(f"{__version__}\0{sys.version_info[:2]}\0{package_digest(Path(__file__).resolve().parents[1])}"
                       .encode())
    for dep in _DEPENDENCIES:
        try:
            h.update(f"\0{dep}={metadata.version(dep)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"\0{dep}=none".encode())
    return h.hexdigest()


def package_digest(package: Path) -> str:
    """The names and bytes of every file of a package directory, compiled bytecode left out."""
    h = hashlib.sha256()
    for f in sorted(package.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts and f.suffix not in (".pyc", ".pyo"):
            h.update(str(f.relative_to(package)).encode() + b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def options_digest(opts) -> str:
    """The options (triage.entry.TriageOptions) that reach a review or its stored entry."""
    from ..context.profiles.file import option_digest

    r = opts.review
    parts = [code_digest(), option_digest(r.profile), str(Path(r.repo).resolve()) if r.repo else "",
             *sorted(f"tree={k}={v}" for k, v in r.trees.items()), *(f"select={s}" for s in r.select),
             *(f"ignore={s}" for s in r.ignore), *sorted(f"set={k}={v!r}" for k, v in r.settings.items()),
             f"link={opts.link_base}", _b4_settings(), f"limits={limits()!r}"]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _b4_settings() -> str:
    """The b4.* entries of git config as b4 will read them (user, system and this directory's)."""
    from ..sources.gitbatch import GitRunner
    from ..errors import ReviewtoolError

    try:
        return GitRunner(Path.cwd()).run(["config", "-z", "--get-regexp", r"^b4\."], check=False).out
    except ReviewtoolError as exc:  # no git: b4 reads no settings either
        return exc.one_line()


def mail_digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:16]


def series_key(base: str, refs: Iterable[MailRef], digests: dict[MailRef, bytes]) -> str:
    """The key of one group: `base` (options_digest) and each mail's bytes and way of reading."""
    h = hashlib.sha256(base.encode())
    for r in refs:
        h.update(b"%d%d%d" % (r.in_mbox, r.mboxrd, r.format_patch))
        h.update(digests[r])
    return h.hexdigest()


def repo_state(repo: Path | None) -> str:
    """A digest of the repository as a review can see it ("" without --repo); a repository git
    cannot read gives a digest of git's answer, which changes when it becomes readable."""
    if repo is None:
        return ""
    from ..sources.gitbatch import GitRunner

    git = GitRunner(Path(repo))
    h = hashlib.sha256(str(Path(repo).resolve()).encode())
    for args in (["--version"], ["rev-parse", "-q", "--verify", "HEAD"],
                 ["for-each-ref", "--format=%(refname) %(objectname)"], ["config", "-z", "--list"],
                 ["rev-parse", "--git-path", "shallow", "--git-path", "objects", "--git-path", "info/grafts"]):
        res = git.run(args, check=False)
        h.update(f"\0{res.code}\0".encode() + res.out.encode())
        if args[0] == "rev-parse" and args[1] == "--git-path" and res.code == 0:
            shallow, objects, grafts = (Path(repo) / line for line in res.out.splitlines()[:3])
            h.update(_file_digest(shallow) + _file_digest(grafts))
            h.update(objects_digest(objects))
    for name in _WORK_TREE_FILES:
        h.update(name.encode() + _file_digest(Path(repo) / name))
    h.update(_default_profile_file(Path(repo)))
    return "repo:" + h.hexdigest()


def objects_digest(objects: Path, depth: int = 0) -> bytes:
    """What objects the repository holds, without reading one: the names of its loose objects,
    its packs (a pack's name is the digest of its contents) and what its alternates hold. The
    review looks Fixes targets and bases up in the object store, not only through refs: objects
    arrive without a ref moving (`git fetch` from a path writes only FETCH_HEAD, `git
    unpack-objects`) and vanish without one (`gc --prune=now` after a branch was deleted)."""
    h = hashlib.sha256()
    try:
        with os.scandir(objects) as top:
            dirs = sorted((e.name, e.path) for e in top if e.is_dir(follow_symlinks=False))
        for name, path in dirs:
            if len(name) == 2:
                with os.scandir(path) as fan:
                    h.update(name.encode() + b"\0" + b"\0".join(sorted(e.name.encode() for e in fan)) + b"\n")
        with os.scandir(Path(objects) / "pack") as packs:
            for e in sorted(packs, key=lambda e: e.name):
                if e.name.endswith((".pack", ".idx", ".keep", ".promisor")):
                    h.update(f"{e.name}\0{e.stat().st_size}\n".encode())
    except OSError:
        h.update(b"unreadable")
    alternates = Path(objects) / "info" / "alternates"
    h.update(_file_digest(alternates))
    if depth < 5:  # git follows alternates five deep
        try:
            for line in alternates.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    alt = Path(line) if os.path.isabs(line) else Path(objects) / line
                    h.update(objects_digest(alt, depth + 1))
        except OSError:
            pass
    return h.digest()


def _default_profile_file(repo: Path) -> bytes:
    """The bytes of the profile file the repository's default names, if it names one."""
    from ..context.profiles.file import names_a_file
    from ..context.profiles.load import repo_default_profile
    from ..errors import ReviewtoolError

    try:
        default = repo_default_profile(repo)
    except ReviewtoolError:
        return b"-"
    if default is None or not names_a_file(default[0]):
        return b""
    target = Path(default[0]).expanduser()
    return _file_digest(target if target.is_absolute() else repo / target)


def _file_digest(path: Path) -> bytes:
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return b"-"
