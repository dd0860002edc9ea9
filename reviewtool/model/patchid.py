"""`git patch-id --stable` of many mail bodies in one git process.

b4 runs one `git patch-id` per patch (50 processes for a 50-patch series, a third of a review's
time). git patch-id reads a stream of patches, each starting at a `commit <oid>` line, and
ignores the text before a patch's first `diff ` line, so feeding each body from its first `diff `
line under a numbered `commit` line gives the same ids as one call per body.

Answers are remembered by the digest of the diff text, so a caller that knows many bodies ahead
(triage, for a batch of series) can ask once for all of them (`warm`) and b4's later per-series
requests cost no process.
"""

from __future__ import annotations

import hashlib
import re
import subprocess

_DIFF_START_RE = re.compile(r"^diff ", re.M)
_OUTPUT_RE = re.compile(r"^([0-9a-f]{40,64}) ([0-9a-f]{40,64})$")
_MEMO: dict[bytes, str | None] = {}
_MEMO_MAX = 20000  # digests, not texts: bounded memory however long the run


def _diff_text(body: str) -> str | None:
    start = _DIFF_START_RE.search(body)
    return body[start.start():] if start is not None else None


def _key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).digest()


def patch_ids(bodies: list[str]) -> list[str | None] | None:
    """The stable patch-id of each body (None where git finds no patch); None if git failed."""
    texts = [_diff_text(b) for b in bodies]
    keys = [_key(t) if t is not None else None for t in texts]
    todo: dict[bytes, str] = {}
    for k, t in zip(keys, texts):
        if k is not None and k not in _MEMO and k not in todo:
            todo[k] = t  # type: ignore[assignment]
    if todo:
        found = _run([*todo.values()])
        if found is None:
            return None
        if len(_MEMO) + len(todo) > _MEMO_MAX:
            _MEMO.clear()
        _MEMO.update(zip(todo, found))
    return [_MEMO.get(k) if k is not None else None for k in keys]


def warm(bodies: list[str]) -> None:
    """Compute (in one git process) and remember the patch-ids of bodies asked about later."""
    patch_ids(bodies)


def _run(texts: list[str]) -> list[str | None] | None:
    """git patch-id --stable of diff texts (each starting at its `diff ` line), one process."""
    # A 64-digit fake id whose first 40 digits number the text: git reads as many digits as its
    # object ids have (40 for SHA-1, 64 for SHA-256: a repository in the current directory decides).
    stream = [f"commit {i + 1:040x}{'0' * 24}\n{t}{'' if t.endswith(chr(10)) else chr(10)}" for i, t in enumerate(texts)]
    ids: list[str | None] = [None] * len(texts)
    try:
        proc = subprocess.run(["git", "patch-id", "--stable"], input="".join(stream).encode("utf-8", "surrogateescape"),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    for line in proc.stdout.decode("ascii", "replace").splitlines():
        m = _OUTPUT_RE.match(line.strip())
        if m:
            index = int(m.group(2)[:40], 16) - 1
            if 0 <= index < len(ids):
                ids[index] = m.group(1)
    return ids
