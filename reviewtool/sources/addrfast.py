"""Address headers in their common shape, read without the email package's RFC 5322 parser.

Reading `From:`/`To:`/`Cc:` through the email package builds a full parse tree per value: the
largest single cost of reading a thread (a tenth of a triage run). Nearly every value is a plain
list of `Name Surname <local@domain>` or `local@domain`; for those the text the parser would give
(`str()` of its header object) is written here directly. Anything else (quoted names, comments,
encoded words, groups, odd spacing) returns None and takes the parser's path. A test holds both
paths to the same text on every address header of the corpus and on generated variants.
"""

from __future__ import annotations

import re

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDR_SPEC = rf"{_ATEXT}(?:\.{_ATEXT})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
_NAME = rf"{_ATEXT}(?: {_ATEXT})*"
_MAILBOX_RE = re.compile(rf"({_NAME}) <({_ADDR_SPEC})>|<({_ADDR_SPEC})>|({_ADDR_SPEC})")


def simple_address_text(value: str) -> str | None:
    """str(AddressHeader) of `value` when it is a plain address list, else None."""
    if len(value) > 4000 or "=?" in value:  # encoded words are decoded by the parser
        return None
    out = []
    for i, piece in enumerate(value.split(",")):
        if i:
            piece = piece.lstrip(" \t")  # folding whitespace after a comma: the parser drops it
        m = _MAILBOX_RE.fullmatch(piece)
        if m is None:
            return None
        name, angled, bracketed, bare = m.groups()
        out.append(f"{name} <{angled}>" if name else bracketed or bare)
    return ", ".join(out)
