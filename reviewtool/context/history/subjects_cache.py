"""The subject log of `subject-prefix-history` (ranges.subjects_touching), kept between
commands in $XDG_CACHE_HOME/reviewtool/subjects/.

That log lists the files of each of a ref's newest 10,000 commits: git diffs every one of those
trees, about a second on a kernel history, and most of a lint or `check --repo` there. What it
prints depends only on the commit it starts from, so an entry is keyed by that commit's full id
(a branch name is never kept), the git arguments, and the repository's shallow boundary (a
deepened clone walks further). A contributor who lints again before the next fetch, or a
maintainer who checks series against a tree between pulls, reads it back in milliseconds. An
entry that cannot be read is walked again; one that cannot be written is skipped. The 32 most
recently used entries are kept (about half a megabyte each for a kernel).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from pathlib import Path
from typing import Sequence

from ... import cachedir
from ...sources.gitbatch import GitResult

_FULL_ID_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
FORMAT = b"reviewtool-subjects-1\n"
KEEP = 32  # entries kept (the most recently used): a fetch a day would otherwise add one a day


def entry_path(git_dir: Path, ref: str | None, args: Sequence[str], shallow: Path | None = None) -> Path | None:
    """Where the log of `args` from commit `ref` is kept; None when `ref` is not a commit id.
    `shallow`: the repository's shallow file (`git rev-parse --git-path shallow`)."""
    if not ref or not _FULL_ID_RE.match(ref):
        return None
    shallow = shallow or git_dir / "shallow"
    try:
        boundary = shallow.read_bytes() if shallow.is_file() else b""
    except OSError:
        return None
    key = hashlib.sha256(b"\0".join([str(git_dir.resolve()).encode("utf-8", "surrogateescape"), ref.encode(),
                                     "\0".join(args).encode("utf-8", "surrogateescape"), boundary])).hexdigest()
    return cachedir.root("subjects") / f"{key[:40]}.z"


def load(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        data = zlib.decompress(path.read_bytes())
    except (OSError, zlib.error):
        return None
    if not data.startswith(FORMAT):
        return None
    cachedir.mark_used(path)
    return data[len(FORMAT):].decode("utf-8", "surrogateescape")


def store(path: Path | None, text: str) -> None:
    data = zlib.compress(FORMAT + text.encode("utf-8", "surrogateescape"), 1)
    if path is not None and cachedir.write_atomically(path, data):
        cachedir.keep_newest(path.parent, "*.z", KEEP)


class Kept:
    """A log read back from the cache, answering like a finished git process."""

    def __init__(self, text: str):
        self._result = GitResult(0, text, "")

    def result(self) -> GitResult:
        return self._result

    def wait(self) -> None:
        pass


class Keeping:
    """A running git log whose output is kept once it finished well."""

    def __init__(self, started, path: Path | None):
        self._started, self._path, self._kept = started, path, False

    def result(self) -> GitResult:
        res = self._started.result()
        if not self._kept and res.code == 0:
            self._kept = True
            store(self._path, res.out)
        return res

    def wait(self) -> None:
        self._started.wait()
