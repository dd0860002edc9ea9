"""Mails read back from the archive by where the index found them (sources/index.py's MailRefs):
what triage's review, its earlier states and pull requests, `profile learn`'s reviews and
`check`'s narrowed archive all read."""

from __future__ import annotations

from typing import Any

from ..limits import limits
from .files import RawMail
from .index import raw_mail


def read_refs(ref_lists: list) -> list[list[RawMail]]:
    """The mails of each list of MailRefs, read back from the archive by offset; a mail over the
    mail limit is not read (parse_mail refuses it by its size, in one line)."""
    out = []
    handles: dict[str, Any] = {}
    cap = limits().mail_bytes
    try:
        for refs in ref_lists:
            raws = []
            for ref in refs:
                if ref.length > cap:
                    raws.append(RawMail(b"", ref.origin, ref.format_patch, unread=ref.length))
                    continue
                fh = handles.get(ref.path) or handles.setdefault(ref.path, open(ref.path, "rb"))
                raws.append(raw_mail(ref, fh))
            out.append(raws)
    finally:
        for fh in handles.values():
            fh.close()
    return out
