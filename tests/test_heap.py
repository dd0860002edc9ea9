"""heap.give_back returns the C heap's free pages to the system (a review worker calls it after
each batch of series)."""

import pytest

from reviewtool.heap import give_back


def _rss_kb() -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


def test_freed_heap_pages_leave_the_process():
    # 1,000-byte objects come from malloc's heap (not a mapping of their own); one kept in fifty
    # holds the heap's end in place, so only a trim can return what lies between
    blocks = [bytes(1000) + i.to_bytes(4, "little") for i in range(120_000)]
    kept = blocks[::50]
    del blocks
    before = _rss_kb()
    if not give_back():
        pytest.skip("the C library has no malloc_trim")
    after = _rss_kb()
    assert before - after > 40_000, (before, after)
    assert len(kept) == 2400
