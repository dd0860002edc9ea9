"""An mbox read for the store's index: its mails, and a digest of exactly the bytes they came from.

The digest is taken as the bytes pass, in a layer under the file's buffer, so it describes what
the index was built from even if another program writes the file meanwhile. The next run reads
the file's first `end` bytes: the same digest means the file only grew since, and the scan goes
on from the last mail's `From ` line (that mail may have grown; whether a line after it
separates mails depends on it). A file changed anywhere before `end` is read whole again.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import InputError
from ..sources.index import MailHead, probe, scan_mbox
from ..sources.newest import Newest

_CHUNK = 1 << 20


class _HashingRaw(io.RawIOBase):
    """A file whose bytes are hashed the first time they are read, in file order; a read that
    skips bytes not yet hashed leaves a gap, and then no digest is given."""

    def __init__(self, path: Path, h):
        self._raw = io.FileIO(path, "rb")
        self.h, self.pos, self.hashed, self.gap = h, 0, 0, False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = self._raw.seek(offset, whence)
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, b) -> int:
        n = self._raw.readinto(b) or 0
        start, self.pos = self.pos, self.pos + n
        if start > self.hashed:
            self.gap = self.gap or n > 0
        elif self.pos > self.hashed:
            self.h.update(memoryview(b)[self.hashed - start:n])
            self.hashed = self.pos
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()

    def digest_upto(self) -> int | None:
        """How many bytes from the start the digest covers (None: not all of them were read)."""
        return None if self.gap else self.hashed


@dataclass
class Scanned:
    heads: list[MailHead]
    state: dict | None  # {"kind": "mbox", "end", "digest"}; None when the bytes read were not contiguous
    left_out: int = 0  # mails read first and left out (sources/newest.py: the mails a run keeps)


def _open(f: Path, label: str, h) -> tuple[BinaryIO, _HashingRaw]:
    try:
        raw = _HashingRaw(f, h)
    except OSError as exc:
        raise InputError(f"{label}: cannot read ({exc.strerror or exc})") from exc
    return io.BufferedReader(raw, _CHUNK), raw


def _state(raw: _HashingRaw) -> dict | None:
    end = raw.digest_upto()
    return None if end is None else {"kind": "mbox", "end": end, "digest": raw.h.hexdigest()}


def scan_whole(f: Path, label: str) -> Scanned | None:
    """Every mail of `f` when it is an mbox (None for a single mail: index_file reads those)."""
    fh, raw = _open(f, label, hashlib.sha256())
    with fh:
        kind, skip = probe(fh, label)
        if kind != "mbox":
            return None
        kept: Newest = Newest()
        kept.extend(scan_mbox(str(f), fh, skip, label))
        heads = kept.done()
        return Scanned(heads, _state(raw), kept.left_out)


def scan_grown(f: Path, label: str, state: dict, old: list[MailHead]) -> Scanned | None:
    """The mails of an mbox after the old ones but the last (the last one again first), when its
    first state["end"] bytes are those indexed; None when it must be read whole."""
    end = state["end"]
    try:
        fh, raw = _open(f, label, hashlib.sha256())
    except InputError:
        return None
    with fh:
        while raw.hashed < end:  # unbuffered and exact: the digest must stop at `end`
            if not raw.read(min(_CHUNK, end - raw.hashed)):
                return None  # shorter than what was indexed
        if not old or raw.h.copy().hexdigest() != state["digest"]:
            return None
        fh.seek(0)
        try:
            kind, skip = probe(fh, label)
        except InputError:
            return None
        fh.seek(skip)
        first_line = fh.readline()  # the file's first separator decides the separator rule
        start = _separator_start(fh, old[-1].ref.offset)
        if kind != "mbox" or start is None:
            return None
        return Scanned(list(scan_mbox(str(f), fh, start, label, first_line)), _state(raw))


def _separator_start(fh: BinaryIO, offset: int) -> int | None:
    """Where the `From ` line that ends just before `offset` (a mail's first byte) starts."""
    start = max(0, offset - 4096)
    fh.seek(start)
    buf = fh.read(offset - start)
    cut = buf[:-1].rfind(b"\n")
    if cut < 0 and start > 0:
        return None  # a separator line of over 4 KB: read the file whole instead
    return start + cut + 1 if buf[cut + 1:].startswith(b"From ") else None
