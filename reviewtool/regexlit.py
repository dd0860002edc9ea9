"""The texts one of which every match of a regex must contain.

`"hwmon_device_" in text` is a C substring search; the regex
`(devm_)?hwmon_device_(un)?register` cannot start with one (it begins with an optional group), so
Python's engine tries it at every position: 3 ms over a 50-patch series, for each of the kernel's
K: patterns. Testing for the required text first skips nearly all of them. The costliest
patterns need one of several texts (`\b(pstore|ramoops)`), or need them in any case
(`\b(?i:clang|llvm)\b`, `(?i)pidfd`): those are compared in lower case, on ASCII text only.

Sound by construction: only literals on every path a match takes are used (the top level and
mandatory groups; of an alternative, one requirement from each branch; repeats, classes, anchors
and lookarounds contribute nothing), and anything the parser gives that is not understood
yields no prefilter. TextIndex answers which of many short texts occur in a string.
"""

from __future__ import annotations

import re

try:  # Python 3.11+: the parser is re._parser (sre_parse before; both private, so guarded)
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - other Pythons: no prefilter
    _p = _c = None


_PLAIN_RE = re.compile(r"[A-Za-z0-9_/,:;=<>@%'\"-]+")  # no character a regex gives a meaning to


def required_any(pattern: str, flags: int = 0) -> tuple[tuple[str, ...], bool] | None:
    """(texts, ignore_case): every match contains one of `texts` (compared in lower case when
    ignore_case, which only holds for ASCII text); None when nothing is known."""
    if not flags & re.IGNORECASE and _PLAIN_RE.fullmatch(pattern):
        return (pattern,), False  # most N: lines (`owl`, `allwinner`): the text is the pattern
    if _p is None:
        return None
    try:
        parsed = _p.parse(pattern, flags)
    except Exception:  # re.error, RecursionError, anything a hostile pattern provokes
        return None
    req = _seq_requirement(list(parsed), bool(parsed.state.flags & re.IGNORECASE))
    if req is None or not all(t and t.isascii() for t in req[0]):
        return None
    texts, ic = req
    return (tuple(dict.fromkeys(t.lower() for t in texts)) if ic else texts), ic


def _score(req: tuple[tuple[str, ...], bool]) -> tuple[int, int]:
    """Longer shortest text first, then case-sensitive."""
    return min(len(t) for t in req[0]), not req[1]


def _seq_requirement(items: list, ic: bool) -> tuple[tuple[str, ...], bool] | None:
    """The best requirement among the mandatory parts of a sequence."""
    found: list[tuple[tuple[str, ...], bool]] = []
    cur: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            cur.append(chr(av))
            continue
        if cur:
            found.append((("".join(cur),), ic))
            cur = []
        if op is _c.SUBPATTERN:
            _, add_flags, del_flags, sub = av
            sub_ic = (ic or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
            req = _seq_requirement(list(sub), sub_ic)
        elif op is _c.BRANCH:
            req = _branch_requirement(av[1], ic)
        else:
            req = None  # repeats may run zero times; classes, anchors and lookarounds carry no text
        if req is not None:
            found.append(req)
    if cur:
        found.append((("".join(cur),), ic))
    return max(found, key=_score) if found else None


def _branch_requirement(branches: list, ic: bool) -> tuple[tuple[str, ...], bool] | None:
    """Every branch must bring its own requirement; their texts together are the requirement."""
    texts: list[str] = []
    any_ic = False
    for branch in branches:
        req = _seq_requirement(list(branch), ic)
        if req is None:
            return None
        texts.extend(req[0])
        any_ic = any_ic or req[1]
    return tuple(dict.fromkeys(texts)), any_ic


class TextIndex:
    """Which of many short texts occur in a string, without trying each one: texts are filed
    under their first two characters, and only those filed under a pair the string holds are
    tested with `in`."""

    def __init__(self, items) -> None:  # (text, payload) pairs; texts not empty
        self._by_pair: dict[str, list[tuple[str, object]]] = {}
        for text, payload in items:
            self._by_pair.setdefault(text[:2], []).append((text, payload))

    def found(self, s: str) -> set:
        """Payloads of the texts that occur in `s`."""
        out = set()
        pairs = {s[i:i + 2] for i in range(len(s))} | set(s)  # a one-character text is filed under itself
        for pair in pairs:
            for text, payload in self._by_pair.get(pair, ()):
                if payload not in out and text in s:
                    out.add(payload)
        return out
