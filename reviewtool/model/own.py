"""The series the author is about to send, from the mails we generated from commits (lint).

Those mails are one revision of one thread, every patch present and no replies: there is nothing
for b4 to rebuild, and reading them through b4 cost a third of a lint run (plus b4's import). The
fields are read as the b4 adapter reads them (model/assemble.py builds both), and a test holds the
two builders to the same Series on the same mails.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from email.message import EmailMessage

from ..errors import InputError
from ..limits import limits
from ..mail.headers import capped_note, date_of, header, header_reader, ids_in, mailboxes, message_id_of
from ..mail.message import is_patch_mail
from ..mail.subject import parse_subject
from .assemble import duplicate_counters, make_patch, make_series, person
from .patchid import patch_ids
from .series import Patch, Series

_GIT_DIFF_RE = re.compile(r"^diff --git a/\S+ b/\S+$", re.M)
_ONCE = ("subject", "from", "date", "message-id", "in-reply-to", "references")
# b4's test for "this mail carries a diff" (b4.DIFF_RE): only such mails get a patch-id.
_B4_DIFF_RE = re.compile(r"^(---.*\n\+\+\+|GIT binary patch|diff --git \w/\S+ \w/\S+)", re.M | re.I)


def _body(msg: EmailMessage) -> str:
    """The first text/plain part, decoded (format-patch writes one part)."""
    charset = msg.get_content_charset() or "utf-8"
    for part in msg.walk():
        ctype = part.get_content_type()
        if "/plain" not in ctype and "/x-patch" not in ctype:
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        cs = part.get_content_charset() or charset
        try:
            return payload.decode(cs, errors="replace")
        except (LookupError, ValueError):  # an unknown charset, or a name no codec lookup accepts
            return payload.decode("utf-8", errors="replace")
    return ""


def _sender(from_text: str):
    pairs = mailboxes([from_text])
    name, addr = pairs[0] if pairs else ("", "")
    return person(name if name.strip() else addr, addr)


def _references(references: str, in_reply_to: str | None) -> tuple[str, ...]:
    refs: list[str] = []
    for ref in ids_in(references):
        if ref not in refs:
            refs.append(ref)
    if in_reply_to and in_reply_to not in refs:
        refs.append(in_reply_to)
    return tuple(refs)


class OwnSeriesBuilder:
    """Builds the Series mail by mail (lint feeds it while format-patch is still writing)."""

    def __init__(self) -> None:
        self._mails: list[EmailMessage] = []
        self._bodies: list[str] = []
        self._built: list[Patch] = []

    def add(self, msg: EmailMessage) -> None:
        read = header_reader(msg)  # one pass over the headers for every field below
        msgid = message_id_of(msg, read)
        if not (msgid and is_patch_mail(msg, read("Subject"))):
            return
        body = _body(msg)
        irt = (ids_in(read("In-Reply-To")) or [None])[0]
        self._mails.append(msg)
        self._bodies.append(body)
        self._built.append(make_patch(msg, msgid=msgid, body=body, sender=_sender(read("From")),
                                      subject=read("Subject"), counter_hint=1, date=date_of(read("Date")),
                                      in_reply_to=irt, references=_references(read("References"), irt),
                                      read=read))

    def series(self, source: str) -> Series:
        if not self._mails:
            raise InputError(f"{source}: no patch mail in the series")
        with_diff = [i for i, b in enumerate(self._bodies) if b and _B4_DIFF_RE.search(b)]
        ids = patch_ids([self._bodies[i] for i in with_diff]) if with_diff else None
        built = list(self._built)
        for i, pid in zip(with_diff, ids or ()):  # one git patch-id for the whole series
            if pid:
                built[i] = replace(built[i], patch_id=pid)
        cover = next((p for p in built if p.counter == 0), None)
        patches = tuple(sorted((p for p in built if p.counter != 0), key=lambda p: p.counter))
        first = parse_subject(header(self._mails[0], "Subject"))
        expected = max((p.subject.expected or 0 for p in built), default=0) or len(patches)
        return make_series(revision=first.revision, expected=expected, cover=cover, patches=patches,
                           duplicates=duplicate_counters(self._mails, first.revision), source=source)


def own_series(msgs: list[EmailMessage], *, source: str) -> Series:
    """The Series of mails built from the author's commits (sources/gitrange.py)."""
    builder = OwnSeriesBuilder()
    for msg in msgs:
        builder.add(msg)
    return builder.series(source)


def plain_series(msgs: list[EmailMessage], *, source: str) -> Series | None:
    """The Series of mails that need none of b4's thread logic, or None (ask the b4 adapter).

    Plain means: every mail a patch or cover letter by its subject, no reply, one revision, each
    counter once, every patch a git diff, each identity and threading header given once. That is
    what b4 hands a check command (one patch, or one series) and what a directory of
    format-patch files holds; reading them here spares the command b4's import (about 200 ms).
    A test holds this reading to the b4 adapter's on every such thread of the corpus.
    """
    if not msgs:
        return None
    subjects = [parse_subject(header(m, "Subject")) for m in msgs]
    if any(not s.is_patch or s.reply or s.pull for s in subjects):
        return None
    if len({s.revision for s in subjects}) != 1:
        return None
    counters = [s.counter if s.counter is not None else 1 for s in subjects]
    if len(set(counters)) != len(counters) or any(s.expected and (s.counter or 0) > s.expected for s in subjects):
        return None
    if sum(1 for c in counters if c != 0) > limits().series_patches:
        return None  # over the patch limit: build_series says so, for check as for triage
    for msg, counter in zip(msgs, counters):
        seen = Counter(k.lower() for k, _ in msg.raw_items())  # raw: a hostile value must not be parsed here
        if any(seen[name] > 1 for name in _ONCE):
            return None
        if counter != 0 and not _GIT_DIFF_RE.search(_body(msg)):
            return None  # other diff formats (CVS, plain diff -u) are read as b4 reads them
    series = own_series(msgs, source=source)
    capped = capped_note(msgs)
    return replace(series, notes=series.notes + (capped,)) if capped else series
