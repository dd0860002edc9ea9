"""Mail fields in, frozen model out: the construction shared by every series builder.

The b4 adapter (threads from a list, with replies and revisions) and the own-series builder
(mails we generated from commits, see model/own.py) both end here, so a patch reads the same
whichever way it came in.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from email.message import EmailMessage

from ..mail.footer import strip_list_footer
from ..mail.headers import address_list, header, mailbox
from ..mail.message import is_patch_mail
from .diff import parse_basement
from .series import Patch, Person, Reply, Series, Trailer
from ..mail.subject import list_name_of, parse_subject
from .trailers import split_commit_message

_HEX_RE = re.compile(r"^[0-9a-f]{7,64}$")
_DASHES_RE = re.compile(r"^---[ \t]*$", re.M)
_DIFF_AFTER_RE = re.compile(r"^(diff |--- \S|Index: |[^\S\n]*\d+ files? changed)", re.M)
_DIFF_START_RE = re.compile(r"^(diff --git |--- a/)", re.M)
_PREREQ_RE = re.compile(r"^(prerequisite-[\w-]+:\s*\S+)", re.M)


def person(name: str | None, email: str | None) -> Person:
    return Person((name or "").strip(), (email or "").strip())


def addresses(msg: EmailMessage, name: str, read=None) -> tuple[str, ...]:
    value = read(name) if read is not None else header(msg, name)
    return address_list([value]) if value else ()


def split_body(body: str) -> tuple[str, str]:
    """Commit message and what follows '---' (only cut when the mail carries a diff)."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    m = _DASHES_RE.search(body)
    if m and _DIFF_AFTER_RE.search(body[m.end():]):
        return body[: m.start()], body[m.end():]
    m = _DIFF_START_RE.search(body)
    if m:
        return body[: m.start()], body[m.start():]
    m2 = _DASHES_RE.search(body)
    if m2:  # a cover letter: notes below '---' (shortlog, diffstat, base-commit)
        return body[: m2.start()], body[m2.end():]
    return body, ""


def dedupe_trailers(trailers: list[Trailer]) -> tuple[Trailer, ...]:
    seen: set[tuple[str, str]] = set()
    out = []
    for t in trailers:
        key = (t.key, t.value.lower())
        if key not in seen:
            seen.add(key)
            out.append(t)
    return tuple(out)


def make_patch(msg: EmailMessage, *, msgid: str, body: str, sender: Person, subject: str, counter_hint: int | None,
               date: datetime | None, in_reply_to: str | None, references: tuple[str, ...],
               followups: list[Trailer] | tuple[Trailer, ...] = (), patch_id: str | None = None,
               read=None) -> Patch:
    """One patch mail (or cover letter) of the model from its decoded parts (`read`: a
    mail.headers.header_reader of the mail, when the caller has one)."""
    above, below = split_body(strip_list_footer(body))
    parts = split_commit_message(above)
    author = sender
    for k, v in parts.inbody_headers:
        if k.lower() == "from":
            name, addr = mailbox(v)
            if addr:
                author = Person(name, addr)
    basement = parse_basement(below)
    parsed = parse_subject(subject, list_name_of(read("List-Id") if read is not None else header(msg, "List-Id")))
    counter = parsed.counter if parsed.counter is not None else counter_hint
    return Patch(
        counter=counter or 0,
        msgid=msgid,
        subject=parsed,
        sender=sender,
        author=author,
        date=date,
        to=addresses(msg, "To", read),
        cc=addresses(msg, "Cc", read),
        in_reply_to=in_reply_to,
        references=references,
        message=parts.prose,
        message_lines=parts.lines,
        trailers=parts.trailers,
        followup_trailers=dedupe_trailers(list(followups)),
        notes=basement.notes,
        diff=basement.diff,
        patch_id=patch_id or None,
    )


def _kv(text: str, key: str) -> str | None:
    m = re.search(rf"^{key}:[ \t]*(\S+)", text, re.M)
    return m.group(1) if m else None


def duplicate_counters(msgs: list[EmailMessage], revision: int) -> tuple[int, ...]:
    """Counters sent more than once in revision `revision` of `msgs`."""
    counts = Counter(
        s.counter for m in msgs
        if is_patch_mail(m) and (s := parse_subject(header(m, "Subject"))).revision == revision
        and s.counter is not None)
    return tuple(sorted(c for c, n in counts.items() if n > 1))


def make_series(*, revision: int, expected: int | None, cover: Patch | None, patches: tuple[Patch, ...],
                duplicates: tuple[int, ...], source: str, replies: tuple[Reply, ...] = (),
                trailer_mismatches: tuple = (), reposts: tuple[Patch, ...] = (),
                notes: tuple[str, ...] = (), earlier_replies: tuple[Reply, ...] = ()) -> Series:
    """One revision of a series; base-commit, change-id and prerequisites are read from the cover
    letter and the first patch, where b4 and format-patch put them."""
    received = {p.counter for p in patches}
    missing = tuple(i for i in range(1, (expected or 0) + 1) if i not in received)
    first = cover or (patches[0] if patches else None)
    ident_text = "\n".join(x.notes + "\n" + "\n".join(x.message_lines)
                           for x in (cover, patches[0] if patches else None) if x)
    base_raw = _kv(ident_text, "base-commit")
    return Series(
        subject=first.subject.summary if first else "",
        msgid=first.msgid if first else "",
        revision=revision,
        expected=expected or len(patches),
        cover=cover,
        patches=patches,
        missing=missing,
        duplicates=duplicates,
        base_commit=base_raw.lower() if base_raw and _HEX_RE.match(base_raw.lower()) else None,
        base_commit_raw=base_raw,
        change_id=_kv(ident_text, "change-id"),
        prerequisites=tuple(_PREREQ_RE.findall(ident_text)),
        replies=replies,
        earlier_replies=earlier_replies,
        trailer_mismatches=trailer_mismatches,
        reposts=reposts,
        source=source,
        notes=notes,
    )
