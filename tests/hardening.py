"""Counters the hardening tests fill; conftest prints them at the end of the run."""

from __future__ import annotations

import hashlib

COUNTS: dict[str, int] = {"inputs tried": 0, "distinct inputs": 0, "faults injected": 0,
                          "repository-safety commands": 0}
_SEEN: set[str] = set()


def tried(data: bytes) -> None:
    COUNTS["inputs tried"] += 1
    digest = hashlib.sha1(data).hexdigest()
    if digest not in _SEEN:
        _SEEN.add(digest)
        COUNTS["distinct inputs"] += 1


def bump(key: str, n: int = 1) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + n
