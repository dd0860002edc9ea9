"""What of a reply's body is the mail it answers, not the reply's own words.

    original_starts(lines) -> int | None

Inline replies quote with `>`; each reader tests its lines for that itself. Outlook's
top-posting puts the answered mail below the reply, unquoted: below "-----Original Message-----"
(in the client's language) or below a rule of underscores over its "From:" line. A reader that
took it for the reply's words would read an earlier reviewer's request, or the patch's own
trailers, as the replier's.
"""

from __future__ import annotations

import re

_ORIGINAL_RE = re.compile(r"[ \t]*-{3,}[ \t]*(?:original message|original-nachricht|urspr\u00fcngliche nachricht|"
                          r"message d'origine|oorspronkelijk bericht|\u539f\u59cb\u90f5\u4ef6|\u539f\u59cb\u90ae\u4ef6)"
                          r"[ \t]*-{3,}[ \t]*", re.I)
_OUTLOOK_RULE_RE = re.compile(r"_{20,}[ \t]*")


def original_starts(lines: list[str]) -> int | None:
    """Where a top-posted reply's copy of the mail it answers starts, or None."""
    for i, line in enumerate(lines):
        if _ORIGINAL_RE.fullmatch(line):
            return i
        if _OUTLOOK_RULE_RE.fullmatch(line) and i + 1 < len(lines) and lines[i + 1].lower().startswith("from:"):
            return i
    return None
