"""Giving the C heap's free memory back to the system between pieces of work.

glibc's malloc keeps what a process frees for its next allocations. A review worker reads a
family's mails, builds and reviews its series, and frees it all; the next family's objects land
in between what is left, and the freed pages stay with the process. Over an archive a worker's
resident memory grew from 105 to 148 MB this way, with 33 MB of it live (the caches); trimmed
after each batch of series it peaked at 118 MB, in the same CPU time (benchmarks/bench_triage.py
measures the whole run).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache


@lru_cache(maxsize=1)
def _trim():
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back() -> bool:
    """Return the heap's free pages to the system; whether the C library could be asked."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
