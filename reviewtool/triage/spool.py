"""Triage results kept compact while the run goes on, and read back one at a time to render.

A reviewed series as Python dicts (findings, evidence, patches) is some 30 KB; 10,000 of them
would be most of the run's memory. The spool keeps each entry as compressed JSON plus the few
fields that sorting, filtering and counting need, and renderers iterate a `Rows` view that
decodes one entry at a time.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Iterator


@dataclass(frozen=True, slots=True)
class Summary:
    """What sorting, filtering, counting and the exit code need of one entry."""

    index: int
    status: str
    tree: str | None
    age_days: int | None
    date: str | None
    id: str
    errors: int


def pack(item: dict[str, Any]) -> tuple:
    """An entry as the spool keeps it: ("skipped", item) or ("row", summary fields, head text,
    compressed rest): the entry's compact JSON is head + the rest. triage/entry.py builds the
    head per run and splices in a review's rest as workers (or the store) compressed it, so the
    parent never re-encodes nested dicts."""
    if item["status"] == "skipped":
        return ("skipped", item)
    fields = (item["status"], item.get("tree"), item.get("age_days"), item.get("date"), str(item["id"]),
              (item.get("counts") or {}).get("errors", 0))
    return ("row", fields, "", zlib.compress(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode(), 1))


class Spool:
    def __init__(self) -> None:
        self._blobs: list[tuple[str, bytes]] = []
        self.summaries: list[Summary] = []
        self.skipped: list[dict[str, Any]] = []  # few, and listed in full by every format

    def add(self, item: dict[str, Any]) -> None:
        self.add_packed(pack(item))

    def add_packed(self, packed: tuple) -> None:
        if packed[0] == "skipped":
            self.skipped.append(packed[1])
            return
        _, fields, head, rest = packed
        self.summaries.append(Summary(len(self._blobs), *fields))
        self._blobs.append((head, rest))

    def item(self, index: int) -> dict[str, Any]:
        return json.loads(self.text(index))

    def text(self, index: int) -> str:
        """The entry as compact JSON text, without decoding it."""
        head, rest = self._blobs[index]
        return head + zlib.decompress(rest).decode()

    def rows(self, key: Callable[[Summary], Any], only: tuple[str, ...] = ()) -> "Rows":
        chosen = [s for s in self.summaries if not only or s.status in only]
        chosen.sort(key=key)
        return Rows(self, tuple(s.index for s in chosen))


class Rows(Sequence):
    """The entries of a report in order, decoded as they are read (a template's `t.series`)."""

    def __init__(self, spool: Spool, order: tuple[int, ...]):
        self._spool, self._order = spool, order

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._spool.item(j) for j in self._order[i]]
        return self._spool.item(self._order[i])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for j in self._order:
            yield self._spool.item(j)

    def texts(self) -> Iterator[str]:
        """The entries as compact JSON text, in order (for the JSON report: nothing decoded)."""
        for j in self._order:
            yield self._spool.text(j)
