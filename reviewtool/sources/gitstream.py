"""A whole repository's objects streamed through one `git cat-file --batch` (gitbatch.py's
companion, run the same read-only way): a public-inbox's mails, one at a time as git writes them,
so the caller never holds them all. An object over `keep` bytes is never held either: its first
`keep` bytes and the sha256 of all of it."""

from __future__ import annotations

import hashlib
import subprocess
import threading
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..errors import RepositoryError
from .gitbatch import GitRunner, git_env


@dataclass(frozen=True)
class Streamed:
    """One object: all its bytes, or (whole False) the first ones and the sha256 of all of them."""

    sha: str
    kind: str
    size: int
    content: bytes
    whole: bool = True
    sha256: bytes | None = None


def stream_objects(runner: GitRunner, names: Sequence[str], keep: int) -> Iterator[tuple[str, Streamed | None]]:
    """(name, its object or None when missing) for each name, in order."""
    bad = [n for n in names if not n or "\n" in n or n != n.strip()]
    if bad:
        raise ValueError(f"object names must be one word: {bad[0]!r}")
    if not names:
        return
    runner.calls += 1
    try:
        proc = subprocess.Popen(runner.base_args() + ["cat-file", "--batch"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env(), close_fds=False)
    except FileNotFoundError as exc:
        raise RepositoryError(f"cannot run {runner.git!r}: is git installed?") from exc
    writer = threading.Thread(target=_feed, args=(proc, names), daemon=True)
    writer.start()
    try:
        for name in names:
            header = proc.stdout.readline()
            if not header:
                raise RepositoryError(f"{runner.repo}: git cat-file stopped answering")
            if header.endswith((b" missing\n", b" ambiguous\n")):
                yield name, None
                continue
            sha, kind, size = header.decode("ascii", "replace").split()
            yield name, _read(proc.stdout, runner, sha, kind, int(size), keep)
    finally:
        for pipe in (proc.stdin, proc.stdout):  # git ends at once with both closed (see CatFile.close)
            try:
                pipe.close()
            except OSError:
                pass
        writer.join()
        proc.wait()


def _feed(proc: subprocess.Popen, names: Sequence[str]) -> None:
    """Write the names from a thread, in blocks, while the answers are read."""
    try:
        for i in range(0, len(names), 4096):
            proc.stdin.write("".join(n + "\n" for n in names[i:i + 4096]).encode("utf-8", "surrogateescape"))
        proc.stdin.flush()
    except (BrokenPipeError, OSError, ValueError):  # ValueError: closed by the reader, which stopped early
        pass


def _read(out, runner: GitRunner, sha: str, kind: str, size: int, keep: int) -> Streamed:
    if size <= keep:
        data = out.read(size + 1)
        if len(data) != size + 1:
            raise RepositoryError(f"{runner.repo}: git cat-file stopped answering")
        return Streamed(sha, kind, size, data[:-1])
    first, h, left = out.read(keep), hashlib.sha256(), size - keep
    h.update(first)
    while left > 0:
        chunk = out.read(min(left, 1 << 20))
        if not chunk:
            raise RepositoryError(f"{runner.repo}: git cat-file stopped answering")
        h.update(chunk)
        left -= len(chunk)
    out.read(1)  # the newline after the object
    return Streamed(sha, kind, size, first, False, h.digest())
