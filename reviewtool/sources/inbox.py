"""A local public-inbox inbox read in place: v2 (epochs `git/0.git`, `git/1.git`, ..., oldest
first), v1 (one repository), and the mirrors of lore that public-inbox-clone and grokmirror make
(the same layout, `inbox.lock` or not), or one epoch given alone.

Each commit adds one message as a blob: `m` in a v2 epoch, a path named after the message-id's
hash in a v1 repository. A commit that removes a message (v2: it holds `d`, the removed blob;
v1: it deletes the path) takes that message out. The commits are listed in the order they were
made (`rev-list`, v1 `log --raw`), and their messages read through one `git cat-file --batch`
stream per epoch, one at a time: nothing is written out, and the archive is never held. A mail's
place (MailRef) is its epoch, its number in the epoch's order and its object id, which the
readers (sources/mail_refs.py) ask git for again. `read_epoch(since=TIP)` reads only the commits
made after TIP: the result store keeps each epoch's mails under the commit it read last
(triage/store_inbox.py), so tomorrow's run reads only what arrived since.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..errors import InputError
from ..limits import limits
from .gitbatch import DIFF_NO_PROGRAMS, GitRunner
from .gitstream import stream_objects
from .index import HEAD_BYTES, MailHead, single_head

_V1_PATH_RE = re.compile(r"^[0-9a-f]{2}/[0-9a-f]{38}$")
_RAW_RE = re.compile(r"^:\d{6} \d{6} ([0-9a-f]{40,64}) ([0-9a-f]{40,64}) ([AMD])\t(.*)$")


def _is_repo(p: Path) -> bool:
    return (p / "HEAD").is_file() and (p / "objects").is_dir() and (p / "refs").is_dir()


def epochs(path: Path) -> list[Path]:
    """The git repositories of an inbox, oldest first ([] when `path` is not an inbox)."""
    try:
        git = path / "git"
        if git.is_dir():
            found = [p for p in git.iterdir() if p.name.endswith(".git") and p.name[:-4].isdigit() and _is_repo(p)]
            if found:
                return sorted(found, key=lambda p: int(p.name[:-4]))
        return [path] if _is_repo(path) else []
    except OSError:
        return []


def is_inbox(path: Path) -> bool:
    return path.is_dir() and bool(epochs(path))


@dataclass
class EpochRead:
    """The mails of the commits read (with each mail's digest), in order; the blobs those commits
    removed; the commit read last."""

    tip: str | None
    mails: list[tuple[MailHead, bytes]] = field(default_factory=list)
    deleted: set[str] = field(default_factory=set)
    commits: int = 0
    next: int = 0  # the number the next commit's message gets (MailRef.offset)


def tip_of(repo: Path) -> str | None:
    """The epoch's newest commit (None: it has none yet)."""
    res = GitRunner(repo).run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], check=False)
    return res.out.strip() or None if res.code == 0 else None


def descends(repo: Path, old: str, new: str) -> bool:
    """Whether `new` holds `old` in its history (public-inbox only adds; a purge rewrites it)."""
    return GitRunner(repo).run(["merge-base", "--is-ancestor", old, new], check=False).code == 0


def read_epoch(repo: Path, label: str, tip: str, since: str | None = None, first: int = 0) -> EpochRead:
    """The messages of `repo`'s commits up to `tip` (after `since`, when given), numbered from
    `first` in the order they were committed. InputError when the repository is no inbox."""
    git = GitRunner(repo)
    span = f"{since}..{tip}" if since else tip
    out = EpochRead(tip)
    layout = _layout(git, tip, label)
    if layout == "v2":
        commits = git.run(["rev-list", "--reverse", span]).out.split()
        names = [f"{c}:m" for c in commits]
    else:
        commits, names, out.deleted = _v1_blobs(git, span)
    out.commits = len(commits)
    removals: list[str] = []
    seq, keep = first, limits().mail_bytes
    for name, obj in stream_objects(git, names, keep):
        if obj is None:
            removals.append(name[:-2])  # no `m`: a commit that removed a message (its `d`)
            continue
        data = obj.content if obj.whole else obj.content[:HEAD_BYTES]
        head = single_head(str(repo), data, seq, label, None if obj.whole else obj.size, obj.sha)
        if head is not None:
            out.mails.append((head, hashlib.sha256(obj.content).digest()[:16] if obj.whole else obj.sha256[:16]))
        seq += 1
    out.next = seq
    if removals:
        out.deleted |= {obj.sha for _, obj in stream_objects(git, [f"{c}:d" for c in removals], 0) if obj is not None}
    if out.deleted:
        out.mails = [(h, d) for h, d in out.mails if h.ref.blob not in out.deleted]
    return out


def _layout(git: GitRunner, tip: str, label: str) -> str:
    """"v2" (each commit's tree holds `m` or `d`) or "v1" (messages under hashed paths)."""
    names = git.run(["ls-tree", "--name-only", tip]).out.split("\n")
    names = [n for n in names if n]
    if names and set(names) <= {"m", "d"}:
        return "v2"
    if names and all(len(n) == 2 and all(c in "0123456789abcdef" for c in n) for n in names):
        return "v1"
    raise InputError(f"{label}: {git.repo} is a git repository, not a public-inbox (its commits hold no messages)")


def _v1_blobs(git: GitRunner, span: str) -> tuple[list[str], list[str], set[str]]:
    """(the commits, the blobs they added in order, the blobs they removed) of a v1 inbox."""
    commits: list[str] = []
    added: list[str] = []
    removed: set[str] = set()
    text = git.run(["log", "--reverse", "--raw", "--no-abbrev", "--no-renames", "--root", *DIFF_NO_PROGRAMS,
                    "--format=C%H", span]).out
    for line in text.split("\n"):
        if line.startswith("C"):
            commits.append(line[1:])
            continue
        m = _RAW_RE.match(line)
        if m is None or not _V1_PATH_RE.match(m.group(4)):
            continue
        if m.group(3) == "D":
            removed.add(m.group(1))
        else:
            added.append(m.group(2))
    return commits, added, removed


def index_inbox(path: Path, label: str | None = None) -> Iterator[MailHead]:
    """Every message of the inbox at `path`, in the order it was added (epoch by epoch)."""
    name = label or str(path)
    for repo in epochs(path):
        tip = tip_of(repo)
        if tip is not None:
            for head, _ in read_epoch(repo, name, tip).mails:
                yield head
