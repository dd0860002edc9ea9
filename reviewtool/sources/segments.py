"""Cutting a large mbox into segments at separators, so that several processes can index it at
once (sources/index.index_file, scan_segment): scan_mbox of each segment, in order, gives what
one scan of the whole file gives. `piece` is the longest piece of a line the scan reads at once
(index._LINE_PIECE): a cut is decided on what the scan would see.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterable

from . import files

PARALLEL_BYTES = 8 << 20  # an mbox this big is scanned in segments, one per process


@dataclass(frozen=True)
class SegmentScan:
    """How index_file may scan a large mbox in `parts` segments: `map(scan_segment, [args, ...])`
    runs scan_segment on each args tuple elsewhere (a process pool) and gives the results in order."""

    parts: int
    map: Callable[..., Iterable[list]]



def _piece(data: bytes, at: int, piece: int) -> bytes:
    """The line (or first piece of it) starting at `at`, as _lines reads it."""
    end = data.find(b"\n", at)
    return data[at:min(at + piece, len(data) if end < 0 else end + 1)]


def _separator_after(fh: BinaryIO, offset: int, strict: bool, piece: int) -> int | None:
    """The offset of the first `From ` line at or after `offset` that scan_mbox takes for a
    separator by the line alone (a blank line before it; the date rule, or in a file of dateless
    separators a header line after it), so a scan may start or stop there."""
    window = 1 << 20
    while True:
        fh.seek(offset)
        data = fh.read(window + 2 * piece)
        if len(data) < 8:
            return None
        at = 0
        while (hit := data.find(b"\nFrom ", at, window + 8)) >= 0:
            line_at = hit + 1
            at = line_at
            before = data[:hit]
            if not (before.endswith(b"\n") or before.endswith(b"\n\r")):
                continue  # the line before is not blank
            line = _piece(data, line_at, piece)
            nxt_at = line_at + len(line)
            nxt = _piece(data, nxt_at, piece) if nxt_at < len(data) else None
            if line.endswith(b"\n") and (files._SEPARATOR_RE.match(line)
                                         or not strict and nxt is not None and files._FIELD_RE.match(nxt)):
                return offset + line_at
        if len(data) < window + 2 * piece:
            return None
        offset += window


def segments(path: str, skip: int, parts: int, piece: int) -> list[tuple[int, int | None]]:
    """[(start, stop)] cutting an mbox at separators into about `parts` equal runs: scan_mbox of
    each, in order, gives what one scan of the whole file gives."""
    size = os.path.getsize(path)
    if parts < 2 or size < PARALLEL_BYTES:
        return [(skip, None)]
    with open(path, "rb") as fh:
        fh.seek(skip)
        first = fh.readline(piece)
        strict = bool(files._SEPARATOR_RE.match(first))
        cuts = [skip]
        for k in range(1, parts):
            cut = _separator_after(fh, max(cuts[-1] + 1, skip + size * k // parts), strict, piece)
            if cut is None:
                break
            cuts.append(cut)
    return [(a, b) for a, b in zip(cuts, cuts[1:] + [None])]
