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
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import InputError
from ..sources.index import MailHead, mbox_segments, probe, scan_mbox, scan_segment
from ..sources.newest import Newest
from ..sources.segments import SegmentScan
from .store_keys import mail_digest

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
    digests: list[bytes] | None = None  # each head's mail_digest, when the scan took them


def _open(f: Path, label: str, h) -> tuple[BinaryIO, _HashingRaw]:
    try:
        raw = _HashingRaw(f, h)
    except OSError as exc:
        raise InputError(f"{label}: cannot read ({exc.strerror or exc})") from exc
    return io.BufferedReader(raw, _CHUNK), raw


def _state(raw: _HashingRaw) -> dict | None:
    end = raw.digest_upto()
    return None if end is None else {"kind": "mbox", "end": end, "digest": raw.h.hexdigest()}


def scan_whole(f: Path, label: str, segmented: SegmentScan | None = None) -> Scanned | None:
    """Every mail of `f` when it is an mbox (None for a single mail: index_file reads those). With
    `segmented`, a large mbox is scanned in segments (the workers take all but the first) and the
    mails come with their digests."""
    fh, raw = _open(f, label, hashlib.sha256())
    with fh:
        kind, skip = probe(fh, label)
        if kind != "mbox":
            return None
        cuts = mbox_segments(str(f), skip, segmented.parts) if segmented is not None else [(skip, None)]
        if len(cuts) > 1:
            return _scan_segments(f, fh, raw, label, skip, cuts, segmented)
        kept: Newest = Newest()
        kept.extend(scan_mbox(str(f), fh, skip, label))
        heads = kept.done()
        return Scanned(heads, _state(raw), kept.left_out)


def _scan_segments(f: Path, fh: BinaryIO, raw: _HashingRaw, label: str, skip: int, cuts: list,
                   segmented: SegmentScan) -> Scanned:
    """scan_whole's mails, the first segment's scanned here and the others' in the workers; the
    digest is of the whole file, taken here, and stands only if the file did not change meanwhile
    (a write changes its size, mtime or ctime: store_index only keeps a file not written lately)."""
    before = _signature(f)
    later = segmented.map(scan_digested, [(str(f), a, b, skip, label) for a, b in cuts[1:]])
    own = list(scan_mbox(str(f), fh, skip, label, stop=cuts[0][1]))
    # The rest of the file is hashed for its digest in a thread while this one digests its own
    # mails: reads and hashlib release the GIL, and the workers' segments, done sooner, leave a
    # core for it (this process hashed its half three times over, in turn, the workers theirs once).
    rest = threading.Thread(target=_hash_rest, args=(raw,), daemon=True)
    rest.start()
    kept: Newest = Newest()
    try:
        kept.extend(with_digests(f, own))
    finally:
        rest.join()
    for pairs in later:
        kept.extend(pairs)
    done = kept.done()
    state = _state(raw) if _signature(f) == before else None
    return Scanned([h for h, _ in done], state, kept.left_out, [d for _, d in done])


def _hash_rest(raw: _HashingRaw) -> None:
    """Read `raw` on to its end, hashing what was not hashed yet (its digest then covers the file).
    A read error leaves a gap: no digest is given, and the file is read whole next time (raised
    in a thread, it would only be a traceback on stderr)."""
    raw.seek(raw.hashed)
    buf = bytearray(_CHUNK)
    try:
        while raw.readinto(buf):
            pass
    except OSError:
        raw.gap = True


def _signature(f: Path) -> tuple[int, int, int]:
    st = os.stat(f)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _mail_bytes(fh: BinaryIO, h: MailHead) -> bytes:
    """A mail's bytes as the parser gets them (index.raw_mail): an mbox mail's blank lines at its
    end are not its own, and a mail appended after the last one adds one there."""
    fh.seek(h.ref.offset)
    data = fh.read(h.ref.length)
    return data.rstrip(b"\n") if h.ref.in_mbox else data


def with_digests(path: Path, heads: list[MailHead]) -> list[tuple[MailHead, bytes]]:
    """Each mail with the digest of its bytes as the parser gets them."""
    if not heads:
        return []
    with open(path, "rb") as fh:
        return [(h, mail_digest(_mail_bytes(fh, h))) for h in heads]


def scan_digested(path: str, start: int, stop: int | None, skip: int, label: str) -> list[tuple[MailHead, bytes]]:
    """One segment's mails with their digests (a worker's part of _scan_segments)."""
    return with_digests(Path(path), scan_segment(path, start, stop, skip, label))


class PrefixDigest:
    """The digest of a file's first `end` bytes, taken in a thread while the caller decodes the
    file's stored row: reads and hashlib release the GIL, so on two cores the check costs nothing
    the decoding did not. result() is the hash object, None when the file is shorter or unreadable."""

    def __init__(self, f: Path, end: int):
        self._h, self._cancelled = None, False
        self._thread = threading.Thread(target=self._run, args=(f, end), daemon=True)
        self._thread.start()

    def _run(self, f: Path, end: int) -> None:
        h, done, buf = hashlib.sha256(), 0, bytearray(_CHUNK)
        try:
            with io.FileIO(f, "rb") as raw:
                while done < end:
                    if self._cancelled:
                        return
                    n = raw.readinto(memoryview(buf)[:min(_CHUNK, end - done)])
                    if not n:
                        return  # shorter than what was indexed
                    h.update(memoryview(buf)[:n])
                    done += n
        except OSError:
            return
        self._h = h

    def result(self):
        self._thread.join()
        return self._h

    def cancel(self) -> None:
        """Stop hashing (the row did not decode: the file is read whole instead)."""
        self._cancelled = True


def scan_grown(f: Path, label: str, state: dict, old: list[MailHead],
               prefix: PrefixDigest | None = None) -> Scanned | None:
    """The mails of an mbox after the old ones but the last (the last one again first), when its
    first state["end"] bytes are those indexed; None when it must be read whole. `prefix`: the
    digest of those bytes, already being taken."""
    end = state["end"]
    try:
        fh, raw = _open(f, label, hashlib.sha256())
    except InputError:
        return None
    with fh:
        if prefix is not None:
            h = prefix.result()
            if h is None:
                return None
            raw.h, raw.hashed = h, end
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
