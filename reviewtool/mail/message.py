"""What kind of mail one message is: a patch (or cover letter), or not."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from email.message import EmailMessage, Message

from .headers import header
from .subject import parse_subject

# A diff in a mail's text, as `check` recognises one (sources/index.py reads the same on bytes).
DIFF_RE = re.compile(r"^(diff --git |Index: \S|--- \S.*\n\+\+\+ \S)", re.M)


def body_text(msg: EmailMessage) -> str:
    """The mail's first text/plain part, decoded ("" when it has none or it does not decode)."""
    try:
        part = msg.get_body(preferencelist=("plain",))
        return part.get_content() if part is not None else ""
    except Exception:
        return ""


def own_parts(msg: Message) -> Iterator[Message]:
    """msg.walk() without the mails it forwards: a message/rfc822 part (or any message/* part) is
    someone else's mail, and what it says is not its sender's word ("Applied, thanks." in a
    forwarded reply applies nothing). A mail that is itself message/rfc822 has no words of its own."""
    yield msg
    if msg.get_content_maintype() == "multipart" and isinstance(parts := msg.get_payload(), list):
        for part in parts:
            if part.get_content_maintype() != "message":
                yield from own_parts(part)


def without_forwarded(msg: EmailMessage) -> EmailMessage:
    """`msg` when it forwards no mail, else a copy without the forwarded parts (own_parts): what
    a reader that walks every part (b4) should see. The caller's message is untouched."""
    if msg.get_content_maintype() not in ("multipart", "message") \
            or not any(p.get_content_maintype() == "message" for p in msg.walk()):
        return msg
    return _pruned(msg)


def _pruned(part: EmailMessage) -> EmailMessage:
    clone = copy.copy(part)
    clone._headers = list(part._headers)  # its own header list and payload, so the original is untouched
    if part.get_content_maintype() == "message":
        del clone["Content-Type"]  # a forwarded mail alone: nothing of the sender's own (text/plain, empty)
        clone.set_payload("")
    elif part.get_content_maintype() == "multipart" and isinstance(kids := part.get_payload(), list):
        clone.set_payload([_pruned(k) for k in kids if k.get_content_maintype() != "message"])
    return clone


def all_text(msg: EmailMessage, cap: int = 2 << 20) -> str:
    """Every text/plain part of the mail, decoded and joined, up to `cap` characters (a release
    announcement's shortlog is often an attachment of its own); a mail it forwards is not read."""
    out, size = [], 0
    try:
        for part in own_parts(msg):
            if part.get_content_type() != "text/plain" or part.is_multipart():
                continue
            try:
                text = part.get_content()
            except Exception:  # noqa: BLE001 - an undecodable part is skipped, the rest read
                continue
            out.append(text[:cap - size])
            size += len(out[-1])
            if size >= cap:
                break
    except Exception:  # noqa: BLE001 - a broken MIME tree: what was read so far
        pass
    return "\n".join(out)


def is_patch_mail(msg: EmailMessage, subject: str | None = None) -> bool:
    """A patch or cover letter: a PATCH/RFC/PULL prefix, or (prefix missing or garbled, e.g.
    patchwork's `[net,v2,1/2]`) a mail that is not a reply and carries a diff. `subject`: the
    Subject header's text when the caller has read it."""
    s = parse_subject(header(msg, "Subject") if subject is None else subject)
    if s.reply:
        return False
    return s.is_patch or bool(DIFF_RE.search(body_text(msg)))
