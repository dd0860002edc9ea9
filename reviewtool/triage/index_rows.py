"""The store's row of one archive file's mails: their headers as the index read them, with each
mail's digest.

A row is a sequence of parts, each compressed alone: [drop, mails], where `drop` is how many of
the mails before it this part takes back. A file that grew is stored as its old row and a part
with what was read from its last mail on (that mail again first, `drop` 1), so a day appended to
years of mail costs what the day holds, not a new encoding of the years. Past MAX_PARTS the
row is written again as one part.
"""

from __future__ import annotations

import marshal
from itertools import repeat
from pathlib import Path

from ..collector import paused
from ..sources.index import MailHead, MailRef


class Blob:
    """A row's bytes, made when first asked for: a triage run encodes the rows it read while the
    workers review, not before the archive is grouped."""

    __slots__ = ("_make", "_bytes")

    def __init__(self, make):
        self._make, self._bytes = make, None

    @property
    def made(self) -> bool:
        return self._bytes is not None

    def get(self) -> bytes:
        if self._bytes is None:
            self._bytes, self._make = self._make(), None
        return self._bytes


def blob_bytes(blob: bytes | Blob) -> bytes:
    return blob.get() if isinstance(blob, Blob) else blob


MAX_PARTS = 32  # a row's parts before it is written whole again (a month of daily appends)
_LEN = 4  # bytes of a part's length, before the part


def encode_rows(pairs: list[tuple[MailHead, bytes]]) -> bytes:
    """The row of these mails, one part."""
    return _frame(0, pairs)


def append_rows(blob: bytes, drop: int, pairs: list[tuple[MailHead, bytes]],
                whole: list[tuple[MailHead, bytes]]) -> bytes:
    """The row `blob` with its last `drop` mails taken back and `pairs` after them; `whole` is what
    that row decodes to, written as one part once the row has MAX_PARTS parts."""
    if _parts(blob) >= MAX_PARTS:
        return encode_rows(whole)
    return blob + _frame(drop, pairs)


def row_tuples(pairs: list[tuple[MailHead, bytes]]) -> list[tuple]:
    """The mails as a row stores them: everything but the path and label, which the file gives."""
    return [(h.ref.offset, h.ref.length, h.ref.in_mbox, h.ref.mboxrd, h.ref.format_patch, h.msgid, h.parents,
             h.in_reply_to, h.subject, h.sender, h.date, h.change_id, h.synthesized, d, h.paths,
             h.sketch, h.has_diff, h.list_id, h.ref.blob) for h, d in pairs]


@paused()
def _frame(drop: int, pairs: list[tuple[MailHead, bytes]]) -> bytes:
    rows = row_tuples(pairs)
    # marshal, not JSON: half the time to write and no hex for the digests; it keeps a header's
    # undecodable bytes (lone surrogates) as they are. The store is the user's own cache file.
    # Not compressed: zlib took longer than marshal (0.11 s to write the four-year row, 0.05 s to
    # read it) to save 9 MB of a store beside a 527 MB archive.
    part = marshal.dumps((drop, rows), 4)
    return len(part).to_bytes(_LEN, "big") + part


def _split(blob: bytes):
    at = 0
    while at < len(blob):
        n = int.from_bytes(blob[at:at + _LEN], "big")
        part = blob[at + _LEN:at + _LEN + n]
        if len(part) != n or n == 0:
            raise ValueError("a row part cut short")
        yield part
        at += _LEN + n


def _parts(blob: bytes) -> int:
    return sum(1 for _ in _split(blob))


@paused()
def decode_rows(blob: bytes, f: Path, label: str) -> list[tuple[MailHead, bytes]]:
    """The row's mails, on path `f`; ValueError when it does not decode to mails (the store's CRC
    only says it is the row that was written)."""
    path = str(f)
    out: list[tuple[MailHead, bytes]] = []
    for part in _split(blob):
        try:
            drop, rows = marshal.loads(part)
        except EOFError as exc:  # marshal's word for data cut short
            raise ValueError("a row part cut short") from exc
        if not (type(drop) is int and 0 <= drop <= len(out) and type(rows) is list):
            raise ValueError("not a part of a row")
        del out[len(out) - drop:]
        out.extend(mails_of(rows, path, label))
    return out


def mails_of(rows: list, path: str, label: str) -> list[tuple[MailHead, bytes]]:
    """The mails of row_tuples' `rows`, on `path`; ValueError when some is not a mail of the index."""
    out: list[tuple[MailHead, bytes]] = []
    # marshal gives exact types (no subclasses but bool's of int), so `type(x) is T` is the check
    for off, length, in_mbox, rd, fp, msgid, parents, irt, subject, sender, date, cid, synth, d, paths, sk, \
            diff, lid, obj in rows:
        if not (type(off) is int and type(length) is int and off >= 0 and length >= 0
                and type(in_mbox) is bool and type(rd) is bool and type(fp) is bool and type(synth) is bool
                and type(diff) is bool
                and type(msgid) is str and type(subject) is str and type(sender) is str and type(d) is bytes
                and type(sk) is bytes
                and type(paths) is tuple and all(map(isinstance, paths, repeat(str)))
                and (irt is None or type(irt) is str) and (cid is None or type(cid) is str)
                and (lid is None or type(lid) is str) and type(obj) is str
                and type(parents) is tuple and all(map(isinstance, parents, repeat(str)))
                and (date is None or type(date) is float or type(date) is int)):
            raise ValueError("not a mail of the index")
        ref = MailRef(path, off, length, in_mbox, rd, fp, label, obj)
        out.append((MailHead(ref, msgid, parents, irt, subject, sender, date, cid, synth, paths, sk, diff, lid), d))
    return out
