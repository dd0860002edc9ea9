"""A patch mail's diff in brief, read while the archive is indexed: the files it changes and a
sketch of its changed lines, so that grouping can tell a repost of a patch (the same files,
nearly the same lines) from another patch with the same subject.

The sketch is the SKETCH smallest CRC-32s of the distinct `+`/`-` lines (bottom-k MinHash),
packed as big-endian 32-bit values: two sketches estimate the Jaccard similarity of the line
sets. CRC-32 is stable across processes (Python's hash() of bytes is not), so sketches can be
stored with the index.
"""

from __future__ import annotations

import binascii
import re
import struct
import zlib
from typing import Iterable

SKETCH = 32
_DIFF_GIT_RE = re.compile(rb"^diff --git (?:\"?a/)?(.*?)\"? (?:\"?b/)?(.*?)\"?\s*$")


_CTE_RE = re.compile(rb"^content-transfer-encoding:[ \t]*(quoted-printable|base64)", re.I | re.M)


def decoded(head: bytes, body: bytes) -> bytes:
    """The body of a single-part mail with its transfer encoding undone (quoted-printable and
    base64 bodies carry the same diff as plain ones); other bodies as they are."""
    if b"ncoding" not in head and b"NCODING" not in head:
        return body
    m = _CTE_RE.search(head)
    if m is None or re.search(rb"^content-type:[ \t]*multipart", head, re.I | re.M):
        return body
    try:
        return binascii.a2b_qp(body) if m.group(1).lower() == b"quoted-printable" else binascii.a2b_base64(body)
    except (binascii.Error, ValueError):
        return body


def path_of(line: bytes) -> str:
    """The b/ path of a `diff --git a/x b/y` line."""
    m = _DIFF_GIT_RE.match(line)
    raw = m.group(2) if m else line[11:].strip()
    return raw.decode("utf-8", "replace")


def sketch(hashes: Iterable[int]) -> bytes:
    values = sorted(set(hashes))[:SKETCH]
    return struct.pack(f">{len(values)}I", *values)


def _values(s: bytes) -> list[int]:
    return list(struct.unpack(f">{len(s) // 4}I", s))


def merge(sketches: Iterable[bytes]) -> bytes:
    """The sketch of the union of the line sets."""
    return sketch(v for s in sketches for v in _values(s))


def similarity(a: bytes, b: bytes) -> float | None:
    """Estimated Jaccard similarity of the two line sets (0..1), None when either is empty."""
    if not a or not b:
        return None
    va, vb = set(_values(a)), set(_values(b))
    union = sorted(va | vb)[:SKETCH]
    return sum(1 for v in union if v in va and v in vb) / len(union)


DIFF_BYTES = 1 << 13  # the sketch reads the first 8 KiB of a diff (some 200 lines): enough to tell patches apart


def scan_text(body: bytes) -> tuple[tuple[str, ...], bytes]:
    """(paths, sketch) of a mail body: the files of its `diff --git` lines, and the changed
    lines of the first DIFF_BYTES of its diff. A body without a diff costs one search."""
    start = 0 if body.startswith(b"diff --git ") else body.find(b"\ndiff --git ") + 1
    if not start and not body.startswith(b"diff --git "):
        return (), b""
    paths: list[bytes] = []
    at = start
    while at >= 0:
        end = body.find(b"\n", at)
        paths.append(body[at:end if end >= 0 else len(body)])
        at = body.find(b"\ndiff --git ", at + 1)
        at = at + 1 if at >= 0 else -1
    changed = {line.rstrip(b"\r") for line in body[start:start + DIFF_BYTES].split(b"\n")
               if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- "))}
    changed.discard(b"--")  # the signature line: "-- "
    changed.discard(b"-- ")
    return tuple(dict.fromkeys(path_of(p) for p in paths)), sketch(map(zlib.crc32, changed))
