"""`git patch-id --stable` of many mail bodies in one git process.

b4 runs one `git patch-id` per patch (50 processes for a 50-patch series, a third of a review's
time). git patch-id reads a stream of patches, each starting at a `commit <oid>` line, and
ignores the text before a patch's first `diff ` line, so feeding each body from its first `diff `
line under a numbered `commit` line gives the same ids as one call per body.
"""

from __future__ import annotations

import re
import subprocess

_DIFF_START_RE = re.compile(r"^diff ", re.M)
_OUTPUT_RE = re.compile(r"^([0-9a-f]{40,64}) ([0-9a-f]{40,64})$")


def patch_ids(bodies: list[str]) -> list[str | None] | None:
    """The stable patch-id of each body (None where git finds no patch); None if git failed."""
    stream: list[str] = []
    for i, body in enumerate(bodies):
        start = _DIFF_START_RE.search(body)
        if start is None:
            continue
        text = body[start.start():]
        stream.append(f"commit {i + 1:040x}\n{text}{'' if text.endswith(chr(10)) else chr(10)}")
    ids: list[str | None] = [None] * len(bodies)
    if not stream:
        return ids
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
            index = int(m.group(2), 16) - 1
            if 0 <= index < len(ids):
                ids[index] = m.group(1)
    return ids
