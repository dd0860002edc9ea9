"""A group's mails read back from the archive by their offsets (sources/index.py's MailRefs): what
triage's review, its earlier states and its pull-request reading all read."""

from __future__ import annotations

from typing import Any


def read_refs(ref_lists: list) -> list[list]:
    """The mails of each list of MailRefs, read back from the archive by offset; a mail over the
    mail limit is not read (parse_mail refuses it by its size, in one line)."""
    from ..limits import limits
    from ..sources.files import RawMail
    from ..sources.index import raw_mail

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
