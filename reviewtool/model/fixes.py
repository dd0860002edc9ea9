"""Fixes: tag values as written: the commit id and the quoted subject, parsed once for every rule.

`Fixes: 1234567890ab ("net: foo: fix bar")` -> FixesRef(sha="1234567890ab", subject="net: foo: fix bar").
Pure parsing, no judgement: format problems are the fixes-format rule's business, history problems
the fixes-target-* rules'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .series import Patch, Trailer

_VALUE_RE = re.compile(r"^\s*(?:commit\s+)?(?P<sha>[0-9a-fA-F]{4,64})(?![0-9a-zA-Z])\s*(?P<rest>.*?)\s*$", re.I)
_OPEN_QUOTES = "\"'\u201c\u2018\u201e"
_CLOSE_QUOTES = "\"'\u201d\u2019\u201c"
_CLOSING_RE = re.compile("[" + _CLOSE_QUOTES + "]\\)")  # a quote, then the parenthesis closing the subject


@dataclass(frozen=True)
class FixesRef:
    trailer: Trailer  # the Fixes: trailer it came from
    sha: str | None  # the commit id as written, lower-cased; None when the value holds none
    subject: str | None  # the quoted subject without parentheses and quotes; None when absent
    from_reply: bool = False  # given by a reviewer in a reply (b4 follow-up trailer)

    @property
    def line(self) -> str:
        return self.trailer.line or f"{self.trailer.name}: {self.trailer.value}"


def parse_fixes_value(value: str) -> tuple[str | None, str | None]:
    """(sha, subject) from a Fixes value; either may be None."""
    m = _VALUE_RE.match(value or "")
    if not m:
        return None, None
    rest = m.group("rest").strip()
    if rest.startswith("("):
        # What follows the closing parenthesis is a comment (`("ss: add SCTP") # sctp`), not subject.
        close = [c.start() for c in _CLOSING_RE.finditer(rest)]
        end = close[-1] + 1 if close else (len(rest) - 1 if rest.endswith(")") else len(rest))
        rest = rest[1:end]
    rest = rest.strip()
    if rest[:1] and rest[0] in _OPEN_QUOTES:
        rest = rest[1:]
    if rest[-1:] and rest[-1] in _CLOSE_QUOTES:
        rest = rest[:-1]
    return m.group("sha").lower(), (rest.strip() or None)


def fixes_of(patch: Patch, *, replies: bool = True) -> tuple[FixesRef, ...]:
    """Every Fixes: trailer of a patch (and, unless replies=False, those given in replies)."""
    out = []
    for t in patch.trailers:
        if t.key == "fixes":
            sha, subject = parse_fixes_value(t.value)
            out.append(FixesRef(t, sha, subject))
    if replies:
        own = {(r.sha) for r in out}
        for t in patch.followup_trailers:
            if t.key == "fixes":
                sha, subject = parse_fixes_value(t.value)
                if sha not in own:
                    out.append(FixesRef(t, sha, subject, from_reply=True))
    return tuple(out)
