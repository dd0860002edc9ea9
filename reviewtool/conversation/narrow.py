"""Narrow a large archive to the threads a review can need, before parsing any body.

A list archive of 100 MB holds thousands of threads; parsing every mail to review one series
costs seconds and hundreds of megabytes. The header index (one streaming pass, no email objects)
finds the thread to review and the postings that come along with it, by the same choice
(posting.choose_posting) `check` makes on parsed mail: its other revisions and reposts, and
replies answering them. Only those mails are parsed; posting.select_posting then decides as it
would have on the whole file, because the threads left out are no part of that conversation.
An archive of any size is read so (a gzip unpacked to a scratch file first, a directory file by
file): its memory is the index's, never the archive's.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..sources.files import RawMail
from ..sources.archives import index_inputs
from ..sources.mail_refs import read_refs
from ..sources.inbox import is_inbox
from ..sources.input_files import is_gzip, mail_files
from ..sources.newest import Newest, left_out_note
from .posting import choose_posting

NARROW_FROM_BYTES = 4 * 1024 * 1024  # smaller inputs are parsed whole: simpler and as fast
NARROW_GZIP_FROM_BYTES = 1024 * 1024  # a gzip this big is unpacked to a scratch file, not into memory


@dataclass(frozen=True)
class Narrowed:
    raws: list[RawMail]  # the mails worth parsing, in file order
    outside: list[tuple[str, tuple[str, ...], str, float]]  # the headers of the mails left out
    notes: tuple[str, ...] = ()  # limits that tripped while the archive was read (what was left out)


def narrowed_raws(path: Path, msgid: str | None) -> list[RawMail] | None:
    """The raw mails worth parsing, in file order; None when narrowing does not apply (a small
    input: the whole-file path reads it)."""
    got = narrow(path, msgid)
    return got.raws if got is not None else None


def _large(path: Path) -> bool:
    """Whether `path` is read through the index: a file of NARROW_FROM_BYTES or more, a gzip of
    NARROW_GZIP_FROM_BYTES, a directory whose files add up to NARROW_FROM_BYTES, a public-inbox."""
    try:
        if path.is_file():
            size = path.stat().st_size
            return size >= NARROW_FROM_BYTES or size >= NARROW_GZIP_FROM_BYTES and is_gzip(path)
        if path.is_dir():
            if is_inbox(path):  # read in place, whatever its size
                return True
            total = 0
            for f in mail_files(path):
                total += f.stat().st_size
                if total >= NARROW_FROM_BYTES:
                    return True
    except (OSError, InputError):
        return False
    return False


def narrow(path: Path, msgid: str | None) -> Narrowed | None:
    """narrowed_raws, with the headers of the mails left out (to say which series were not
    reviewed: sources/threads.series_outside) and the limits that tripped. InputError, as
    posting.select_posting words it, when the archive holds no such patch."""
    if not _large(path):
        return None
    with tempfile.TemporaryDirectory(prefix="reviewtool-check-") as scratch:
        limited: list[str] = []
        kept: Newest = Newest()
        kept.extend(index_inputs([path], Path(scratch), skipped=[], limited=limited))
        heads = kept.done()
        notes = tuple(limited) + tuple(n for n in (left_out_note(kept.left_out, len(heads)),) if n)
        choice = choose_posting(heads, msgid)
        if choice is None:
            raise InputError(_nothing_to_review(str(path), heads, msgid))
        chosen = {id(h) for t in (choice.chosen, *choice.others, *choice.reviews) for h in t.heads}
        ids = {h.msgid for h in heads if id(h) in chosen}
        chosen |= {id(h) for h in heads if h.msgid in ids}  # every copy of a mail sent twice
        refs = [h.ref for h in heads if id(h) in chosen]  # in the order read
        raws = read_refs([refs])[0]
    outside = [(h.msgid, h.parents, h.subject, h.date or 0.0) for h in heads if id(h) not in chosen]
    return Narrowed(raws, outside, notes)


def _nothing_to_review(origin: str, heads: list, msgid: str | None) -> str:
    """posting.select_posting's words for an input with no patch thread to review."""
    if not heads:
        return f"{origin}: no mail messages found"
    if msgid and not any(h.msgid == msgid for h in heads):
        return f"{origin}: message-id <{msgid}> is not in the input"
    if msgid:
        return f"{origin}: the thread of <{msgid}> holds no patch"
    return f"{origin}: no patch in the input (first subject: {(heads[0].subject or '(no subject)')[:80]!r})"
