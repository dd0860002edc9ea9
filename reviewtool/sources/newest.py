"""The mails one run indexes, bounded: REVIEWTOOL_MAX_ARCHIVE_MAILS is the memory of a run (each
indexed mail costs about 2 KB), never a cap on an archive's size. Past it the mails read first (an
archive's oldest: mbox, maildir and inbox keep the order they arrived in) are left out, and the
note says how many. The list is trimmed as it grows, so a run never holds much more than the limit.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterable, TypeVar

from ..limits import limits

T = TypeVar("T")


class Newest(Generic[T]):
    """The last `cap` items added (default: the limit the environment sets)."""

    def __init__(self, cap: int | None = None, on_drop: Callable[[list[T]], None] | None = None):
        self.cap = cap or limits().archive_mails
        self.items: list[T] = []
        self.left_out = 0
        self._on_drop = on_drop

    def add(self, item: T) -> None:
        self.items.append(item)
        if len(self.items) > self.cap + max(1, self.cap // 4):
            self._trim()

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.add(item)

    def _trim(self) -> None:
        extra = len(self.items) - self.cap
        if extra > 0:
            dropped = self.items[:extra]
            del self.items[:extra]
            self.left_out += extra
            if self._on_drop is not None:
                self._on_drop(dropped)

    def done(self) -> list[T]:
        """The kept items, in the order added (at most `cap`)."""
        self._trim()
        return self.items


def left_out_note(left_out: int, kept: int) -> str | None:
    """The line that says the oldest mails were left out (None: none were)."""
    if not left_out:
        return None
    return (f"the archives hold {left_out + kept:,} mails, over the limit of {limits().archive_mails:,} a run "
            f"(REVIEWTOOL_MAX_ARCHIVE_MAILS): the {left_out:,} read first (the oldest) were left out")
