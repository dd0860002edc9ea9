"""What kind of mail one message is: a patch (or cover letter), or not."""

from __future__ import annotations

import re
from email.message import EmailMessage

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


def all_text(msg: EmailMessage, cap: int = 2 << 20) -> str:
    """Every text/plain part of the mail, decoded and joined, up to `cap` characters (a release
    announcement's shortlog is often an attachment of its own)."""
    out, size = [], 0
    try:
        for part in msg.walk():
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
