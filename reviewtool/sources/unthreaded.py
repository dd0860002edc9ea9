"""Patches sent without threading, joined into one series the way patchwork does it.

`git send-email --no-thread` (or a broken mailer) posts `[PATCH v2 0/3]`, `1/3`, `2/3` and `3/3`
as four unrelated mails. patchwork joins them when the sender, revision and total agree, no
counter appears twice, and each follows the previous one within 12 hours
(SERIES_DELAY_INTERVAL). `check`, `triage` and
`profile learn` (conversation/revisions.py) and the archive narrowing (conversation/narrow.py) apply it.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Protocol, TypeVar

UNTHREADED_WINDOW_S = 12 * 3600  # patchwork's SERIES_DELAY_INTERVAL

T = TypeVar("T")


class _Numbered(Protocol):
    counter: int | None
    expected: int | None
    revision: int
    tags: tuple[str, ...]


def unthreaded_marker(patches: Iterable[tuple[str, _Numbered]]) -> tuple | None:
    """(sender, revision, total, tags) when every numbered mail (sender, subject) of a thread
    agrees on them and the series has more than one patch; None for anything else (never
    joined). A cover letter (0/N) counts as one of them: patchwork attaches an unthreaded cover
    letter to its series by the same markers."""
    patches = list(patches)
    marks = {(sender, s.revision, s.expected, s.tags) for sender, s in patches}
    if len(marks) != 1 or any(s.counter is None for _, s in patches):
        return None
    sender, rev, total, tags = next(iter(marks))
    return (sender, rev, total, tags) if total and total > 1 else None


def join_unthreaded(threads: list[T], marker: Callable[[T], Hashable | None],
                    counters: Callable[[T], set[int]], when: Callable[[T], float]) -> list[list[T]]:
    """The threads in groups that are one series each: unmarked threads alone, in their order,
    then each marker's threads in date order, chained while the rule holds."""
    by_marker: dict[Hashable, list[T]] = {}
    out: list[list[T]] = []
    for t in threads:
        mk = marker(t)
        if mk is None:
            out.append([t])
        else:
            by_marker.setdefault(mk, []).append(t)
    for group in by_marker.values():
        group.sort(key=when)
        current: list[T] | None = None
        seen: set[int] = set()
        for t in group:
            mine = counters(t)
            if current is not None and not (mine & seen) and when(t) - when(current[-1]) <= UNTHREADED_WINDOW_S:
                current.append(t)
                seen |= mine
                continue
            current, seen = [t], set(mine)
            out.append(current)
    return out
