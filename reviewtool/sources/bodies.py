"""Where an mbox body ends, found without a Python step per line (index.scan_mbox): the file is
mapped into memory and searched for the next `From ` line after a blank one; scan_mbox tests that
line as it tests every line. Bodies are a third of an archive's lines and ten times its header
lines, and the scan needs nothing else from them."""

from __future__ import annotations

import mmap
from typing import BinaryIO

from . import files


RELEASE_BYTES = 4 << 20  # the mapped pages behind the scan are let go this often


class Bodies:
    """An mbox mapped into memory, for scan_mbox to skip its bodies. The pages the scan has left
    behind are let go as it goes (they stay in the page cache, out of the process's resident
    memory): the scan of a 500 MB archive holds tens of megabytes, not the archive."""

    def __init__(self, mm: mmap.mmap, piece: int):
        self.mm, self.piece = mm, piece
        self.released = 0

    def _release(self, upto: int) -> None:
        """Drop the mapping's pages before `upto` from the process (MADV_DONTNEED on a file's
        read-only mapping: read again from the page cache if ever touched)."""
        end = upto - upto % mmap.PAGESIZE
        if end - self.released < RELEASE_BYTES or not hasattr(self.mm, "madvise"):
            return
        try:
            self.mm.madvise(mmap.MADV_DONTNEED, self.released, end - self.released)
        except (OSError, ValueError, AttributeError):
            return
        self.released = end

    @classmethod
    def open(cls, fd: int, piece: int) -> "Bodies | None":
        """The file open as `fd`; `piece` is the longest piece of a line the scan reads at once."""
        try:
            return cls(mmap.mmap(fd, 0, access=mmap.ACCESS_READ), piece)
        except (OSError, ValueError):  # an empty or unmappable file: every line is read
            return None

    def close(self) -> None:
        self.mm.close()

    def next_separator(self, body_start: int, strict: bool, cap: int) -> int | None:
        """The offset of the separator line that ends the body starting at `body_start`, by
        scan_mbox's rule; None where that rule reads the lines itself: no separator follows (the
        file may still grow), the body or a line is as long as a line piece (the scan's pieces
        decide), or the separator lies past `cap` (a gzip's copy cut at its bound). scan_mbox tests the line it
        is sent to as it tests every line: what must hold here is that no separator is skipped."""
        mm, piece = self.mm, self.piece
        self._release(body_start - piece)
        at = body_start - 1  # the newline of the blank line before the body: a separator may follow at once
        while (hit := mm.find(b"\nFrom ", at)) >= 0:
            start = hit + 1
            if start - body_start >= piece or start > cap:
                return None
            at = start
            blank_from = hit
            while mm[blank_from - 1] == 13:  # a blank line is \r* then \n
                blank_from -= 1
            if mm[blank_from - 1] != 10:
                continue  # the line before is not blank
            end = mm.find(b"\n", start)
            if end < 0 or end + 1 >= len(mm) or end + 1 - start > piece:
                return None
            line = mm[start:end + 1]
            if files._SEPARATOR_RE.match(line):
                return start
            if not strict:
                nxt_end = mm.find(b"\n", end + 1)
                nxt = mm[end + 1:min(end + 1 + piece, len(mm) if nxt_end < 0 else nxt_end + 1)]
                if files._FIELD_RE.match(nxt):
                    return start
        return None


def read_on_to(fh: BinaryIO, offset: int) -> None:
    """Put `fh` at `offset` by reading up to it, not seeking: a file that hashes what passes
    (triage/store_mbox.py) sees every byte in order (a body is under a line piece here)."""
    at = fh.tell()
    if offset >= at:
        fh.read(offset - at)
    else:
        fh.seek(offset)  # the separator was the line already read ahead
