"""Regular expressions written by others: a profile's reply forms (also a cloned repository's own
`.reviewtool.toml`), MAINTAINERS N:/K: lines.

The package's own patterns are timed against adversarial input by the test suite
(tests/regexscan.py); these cannot be. Python's backtracking engine takes exponential time on a
repeat inside a repeat (`(a+)+b`), on alternatives inside a repeat (`(a|aa)+`) and on
backreferences, so such a pattern is refused, with what in it is refused. One exception keeps
ordinary patterns: a repeated group that starts or ends with a character nothing else in it can
match (`(?:/[\\w-]+)*`, `(?:[^,]+,)+`) cannot split its input two ways. What stays is at worst
polynomial, and callers bound the text they match (reply lines: mail/replies.py MAX_FORM_LINE).
"""

from __future__ import annotations

import re
import re._constants as C  # the parser's opcodes (sre_constants before 3.11)
import re._parser as P

_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT)
_CATEGORY = {C.CATEGORY_DIGIT: str.isdigit, C.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
             C.CATEGORY_SPACE: str.isspace, C.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
             C.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
             C.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_")}


def _atom_takes(op, av, ch: str) -> bool:
    """Whether one character item of a parsed pattern can match `ch` (unknown items: yes)."""
    if op == C.LITERAL:
        return chr(av) == ch
    if op == C.NOT_LITERAL:
        return chr(av) != ch
    if op == C.IN:
        negate = any(o == C.NEGATE for o, _ in av)
        hit = False
        for o, a in av:
            if o == C.LITERAL:
                hit |= chr(a) == ch
            elif o == C.RANGE:
                hit |= a[0] <= ord(ch) <= a[1]
            elif o == C.CATEGORY:
                hit |= _CATEGORY.get(a, lambda c: True)(ch)
        return hit != negate
    return True  # ANY, a category outside a set, a group: assume it can


def _atoms(items):
    """Every one-character item of a parsed pattern, through groups, branches and repeats."""
    for op, av in items:
        if op in _REPEATS or op == C.POSSESSIVE_REPEAT:
            yield from _atoms(av[2])
        elif op == C.SUBPATTERN:
            yield from _atoms(av[3])
        elif op == C.BRANCH:
            for b in av[1]:
                yield from _atoms(b)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            yield from _atoms(av[1])
        elif op == C.ATOMIC_GROUP:
            yield from _atoms(av)
        elif op in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY):
            yield op, av


def _flat(body) -> list:
    items = list(body)
    while items and items[0][0] == C.SUBPATTERN and len(items) == 1:
        items = list(items[0][1][3])
    return items


def _separated(body) -> bool:
    """A repeated body that starts or ends with a literal character nothing else in it can match
    (`/` in `(?:/[\\w-]+)*`, `,` in `(?:[^,]+,)+`): each repetition's bounds are then fixed."""
    items = _flat(body)
    for edge, rest in ((items[:1], items[1:]), (items[-1:], items[:-1])):
        if edge and edge[0][0] == C.LITERAL:
            ch = chr(edge[0][1])
            if not any(_atom_takes(op, av, ch) for op, av in _atoms(rest)):
                return True
    return False


def _walk(items, in_repeat: bool) -> str | None:
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            if in_repeat:
                return "a repeat inside a repeat"
            why = None if _separated(av[2]) else _walk(av[2], True)
        elif op in _REPEATS or op == C.POSSESSIVE_REPEAT:
            why = _walk(av[2], in_repeat)
        elif op == C.SUBPATTERN:
            why = _walk(av[3], in_repeat)
        elif op == C.BRANCH:
            why = "alternatives inside a repeat" if in_repeat else next(
                (w for b in av[1] if (w := _walk(b, False))), None)
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            why = "a backreference"
        elif op in (C.ASSERT, C.ASSERT_NOT):
            why = _walk(av[1], in_repeat)
        elif op == C.ATOMIC_GROUP:
            why = _walk(av, in_repeat)
        else:
            why = None
        if why:
            return why
    return None


def unsafe(pattern: str, flags: int = 0) -> str | None:
    """What in `pattern` can take exponential time ("a repeat inside a repeat"), or None."""
    try:
        return _walk(P.parse(pattern, flags), False)
    except (re.error, RecursionError, OverflowError):
        return None  # not a pattern at all: re.compile says why


def compile_foreign(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile`, refusing (re.error) what `unsafe` finds."""
    why = unsafe(pattern, flags)
    if why:
        raise re.error(f"{why} can take exponential time on a long line; write it without")
    return re.compile(pattern, flags)
