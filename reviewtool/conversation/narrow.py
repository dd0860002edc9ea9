"""Narrow a large archive to the threads a review can need, before parsing any body.

A list archive of 100 MB holds thousands of threads; parsing every mail to review one series
costs seconds and hundreds of megabytes. The header index (one streaming pass, no email objects)
finds the thread to review and the postings that come along with it, by the same choice
(posting.choose_posting) `check` makes on parsed mail: its other revisions and reposts, and
replies answering them. Only those mails are parsed; posting.select_posting then decides as it
would have on the whole file, because the threads left out are no part of that conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..limits import limits
from ..sources.files import RawMail
from ..sources.index import index_file, raw_mail
from .posting import choose_posting

NARROW_FROM_BYTES = 4 * 1024 * 1024  # smaller files are parsed whole: simpler and as fast


@dataclass(frozen=True)
class Narrowed:
    raws: list[RawMail]  # the mails worth parsing, in file order
    outside: list[tuple[str, tuple[str, ...], str, float]]  # the headers of the mails left out


def narrowed_raws(path: Path, msgid: str | None) -> list[RawMail] | None:
    """The raw mails worth parsing, in file order; None when narrowing does not apply (small or
    compressed input, or nothing recognisable as a patch: the whole-file path then explains)."""
    got = narrow(path, msgid)
    return got.raws if got is not None else None


def narrow(path: Path, msgid: str | None) -> Narrowed | None:
    """narrowed_raws, with the headers of the mails left out (to say which series were not
    reviewed: sources/threads.series_outside)."""
    try:
        if not path.is_file() or path.stat().st_size < NARROW_FROM_BYTES:
            return None
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return None
    except OSError:
        return None
    cap = limits().input_bytes
    if path.stat().st_size > cap:  # as the whole-file read refuses it (files._read_bytes)
        raise InputError(f"{path}: {path.stat().st_size} bytes is over the input limit of {cap} bytes "
                         "(REVIEWTOOL_MAX_INPUT_MB)")
    heads = list(index_file(path))
    choice = choose_posting(heads, msgid)
    if choice is None:
        return None
    kept = {id(h) for t in (choice.chosen, *choice.others, *choice.reviews) for h in t.heads}
    ids = {h.msgid for h in heads if id(h) in kept}
    kept |= {id(h) for h in heads if h.msgid in ids}  # every copy of a mail sent twice
    refs = sorted((h.ref for h in heads if id(h) in kept), key=lambda r: r.offset)
    big = limits().mail_bytes
    with open(path, "rb") as fh:  # a mail over the mail limit is never read: parse_mail refuses it by its size
        raws = [raw_mail(ref, fh) if ref.length <= big else RawMail(b"", ref.origin, ref.format_patch, unread=ref.length)
                for ref in refs]
    return Narrowed(raws, [(h.msgid, h.parents, h.subject, h.date or 0.0) for h in heads if id(h) not in kept])
