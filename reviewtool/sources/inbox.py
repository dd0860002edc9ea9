"""A local public-inbox inbox (v1 or v2: what `public-inbox-clone` or a mirror of lore leaves)
read as an mbox: each commit of the inbox's git history adds one message as the blob `m`.

v2 inboxes keep their history in epochs (`git/0.git`, `git/1.git`, ...), oldest first; a v1
inbox is one bare repository. The messages are written, in the order they were added, as an
mboxrd file in the caller's scratch directory, which is then read like any other archive.
Commits that delete a message (they hold `d`, not `m`) are skipped. git is run read-only, 1,000
messages per `cat-file --batch`.
"""

from __future__ import annotations

import re
from pathlib import Path

from .gitbatch import GitRunner
from ..errors import InputError

CHUNK = 1000
_HEADER_RE = re.compile(rb"^([0-9a-f]{40,64}) (\w+) (\d+)$")


def epochs(path: Path) -> list[Path]:
    """The git repositories of an inbox, oldest first ([] when `path` is not an inbox)."""
    if (path / "git").is_dir() and ((path / "inbox.lock").exists() or (path / "all.git").exists()):
        found = [p for p in (path / "git").glob("*.git") if p.name[:-4].isdigit()]
        return sorted(found, key=lambda p: int(p.name[:-4]))
    if (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir():
        return [path]  # v1: the inbox is the bare repository
    return []


def is_inbox(path: Path) -> bool:
    return path.is_dir() and bool(epochs(path))


def export_inbox(path: Path, target: Path) -> Path:
    """Every message of the inbox at `path`, in order, as an mboxrd file at `target`."""
    with open(target, "wb") as out:
        for repo in epochs(path):
            git = GitRunner(repo)
            res = git.run(["rev-list", "--reverse", "--all"], check=False)
            if res.code != 0:
                raise InputError(f"{path}: not a readable public-inbox ({repo.name}: {res.err.strip()[:120]})")
            commits = res.out.split()
            for i in range(0, len(commits), CHUNK):
                batch = "".join(f"{c}:m\n" for c in commits[i:i + CHUNK])
                data = git.run(["cat-file", "--batch"], input=batch, binary=True).out
                for blob in _blobs(data):
                    body = re.sub(rb"^(>*From )", rb">\1", blob, flags=re.M)
                    out.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + body.rstrip(b"\n") + b"\n\n")
    return target


def _blobs(data: bytes):
    pos = 0
    while pos < len(data):
        end = data.index(b"\n", pos)
        m = _HEADER_RE.match(data[pos:end])
        if m is None:  # "<name> missing": a commit that deleted a message
            pos = end + 1
            continue
        size = int(m.group(3))
        yield data[end + 1:end + 1 + size]
        pos = end + 1 + size + 1
