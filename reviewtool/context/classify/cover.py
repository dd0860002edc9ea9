"""What a cover letter says of its own patches: "First two patches are to do cleanup", "Patch 2 is
a cleanup", "patches 1-3 refactor ...". And whether a patch says it prepares for another.

Numbers read from prose are bounded by the series: a range is cut to 1..N, a number past N is
ignored, and nothing is allocated in proportion to a number written in the mail.
"""

from __future__ import annotations

import re

from ...model.series import Patch
from .diff_evidence import Signal
from ..phrases import meaning, sentences
from .reading import PatchReading, prose_lines

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_MAX_DIGITS = 4  # a series counter has at most four digits (subject.py reads no more)
_FIRST_LAST_RE = re.compile(r"\b(?:the\s+)?(first|last)\s+(one|two|three|four|five|six|seven|eight|\d{1,4})\s+"
                            r"patch(?:es)?\b")
_PATCH_WORD_RE = re.compile(r"\bpatch(?:es)?\b")
_ORDINAL_RE = re.compile(r"\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)\s+"
                         r"(?:one|patch|commit)\b")
_TOKEN_RE = re.compile(r"\s*(#?\d+(?:/\d+)?|,|and|&|-|to|\.\.)")
# A patch that says it prepares for another: its Fixes tag is there so that stable takes both.
_PREPARATION_RE = re.compile(r"\b(?:prepar(?:e|es|ation|atory|ing)|needed\s+(?:by|for)|in\s+preparation|"
                             r"(?:next|following|subsequent|later)\s+(?:patch|commit|fix)|so\s+that\s+patch)\b", re.I)


def _number(text: str, expected: int) -> int | None:
    digits = text.lstrip("#").split("/", 1)[0]
    if not digits.isdigit() or len(digits) > _MAX_DIGITS:
        return None
    n = int(digits)
    return n if 1 <= n <= expected else None


def _span(a: int | None, b_text: str, expected: int) -> range:
    digits = b_text.lstrip("#").split("/", 1)[0]
    if a is None or not digits.isdigit():
        return range(0)
    end = expected if len(digits) > _MAX_DIGITS else min(int(digits), expected)
    return range(a, end + 1)


def _listed(text: str, pos: int, expected: int) -> list[int]:
    """`1, 3 and 5-7` from `pos` (right after "patches"): the numbers and ranges, within 1..expected."""
    out: list[int] = []
    last, pending_range = None, False
    for _ in range(64):  # a bounded walk: a list in prose is short
        m = _TOKEN_RE.match(text, pos)
        if not m:
            break
        tok, pos = m.group(1), m.end()
        if tok in ("-", "to", ".."):
            pending_range = last is not None
            continue
        if tok in (",", "and", "&"):
            pending_range = False
            continue
        if pending_range:
            out.extend(n for n in _span(last, tok, expected) if n not in out)
            pending_range, last = False, None
            continue
        last = _number(tok, expected)
        if last is not None and last not in out:
            out.append(last)
    return out


def named_patches(sentence: str, expected: int) -> list[int]:
    """The patches a sentence is about, within 1..expected: the first reference in it decides
    ("First patch refactors X so that patch 2 can use it" is about patch 1)."""
    s = sentence.lower()
    found: list[tuple[int, list[int]]] = []
    m = _FIRST_LAST_RE.search(s)
    if m:
        k = min(_NUMBERS.get(m.group(2)) or int(m.group(2)), expected)
        found.append((m.start(), list(range(1, k + 1)) if m.group(1) == "first"
                      else list(range(expected - k + 1, expected + 1))))
    for m in _PATCH_WORD_RE.finditer(s):
        listed = _listed(s, m.end(), expected)
        if listed:
            found.append((m.start(), listed))
            break
    m = _ORDINAL_RE.search(s)
    if m:
        n = expected if m.group(1) == "last" else _ORDINALS[m.group(1)]
        found.append((m.start(), [n] if 1 <= n <= expected else []))
    return min(found)[1] if found else []


def cover_cleanups(cover: Patch | None, expected: int) -> dict[int, Signal]:
    """Patches the cover letter calls clean-ups; a sentence that also names a fix counts not."""
    if cover is None:
        return {}
    out: dict[int, Signal] = {}
    cleanup, fix = meaning("cleanup-cover"), meaning("fix-cover")
    for sentence in sentences(prose_lines(cover)):
        if cleanup.first((sentence,)) is None or fix.first((sentence,)) is not None:
            continue
        for n in named_patches(sentence, expected):
            out.setdefault(n, Signal("cleanup-cover/cleanup", "the cover letter calls it a clean-up", _clip(sentence)))
    return out


def is_preparation(r: PatchReading) -> bool:
    """The patch says it prepares for another ("needed by the next patch", "in preparation for")."""
    return any(_PREPARATION_RE.search(s) for s in r.prose + r.notes)


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
