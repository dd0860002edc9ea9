"""The longest piece of plain text every match of a regex must contain.

`"hwmon_device_" in text` is a C substring search; the regex
`(devm_)?hwmon_device_(un)?register` cannot start with one (it begins with an optional group), so
Python's engine tries it at every position: 3 ms over a 50-patch series, for each of the kernel's
K: patterns. Testing for the required text first skips nearly all of them. Sound by
construction: only literals that sit, in sequence, on the one path every match takes (the top
level and mandatory groups, outside alternatives, repeats, classes and case-insensitive parts)
are used; anything the parser gives that is not understood yields "" (no prefilter).
"""

from __future__ import annotations

import re

try:  # Python 3.11+: the parser is re._parser (sre_parse before; both private, so guarded)
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - other Pythons: no prefilter
    _p = _c = None


def required_literal(pattern: str, flags: int = 0) -> str:
    """A substring of every string the pattern matches (via search), or "" if none is known."""
    if _p is None or flags & re.IGNORECASE:
        return ""
    try:
        parsed = _p.parse(pattern, flags)
    except Exception:  # re.error, RecursionError, anything a hostile pattern provokes
        return ""
    if parsed.state.flags & re.IGNORECASE:
        return ""
    best = ""
    for run in _runs(list(parsed)):
        if len(run) > len(best):
            best = run
    return best if best.isascii() else ""


def _runs(items: list) -> list[str]:
    """Literal runs of a sequence that every match contains."""
    out: list[str] = []
    cur: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            cur.append(chr(av))
            continue
        if cur:
            out.append("".join(cur))
            cur = []
        if op is _c.SUBPATTERN:
            group, add_flags, del_flags, sub = av
            if not add_flags & re.IGNORECASE:
                out.extend(_runs(list(sub)))  # a group is mandatory: its runs are required too
        # Anything else (alternatives, repeats, classes, anchors, lookarounds) ends the run and
        # contributes nothing: a repeat may run zero times, a branch may take another way.
    if cur:
        out.append("".join(cur))
    return out
