"""The lead clause of a paragraph of a reply: the one clause of substance it opens with, past
courtesy (the reply-forms table's `courtesy`). A `lead` reply form (mail/replies.py) may match it
where no form matches a whole line: "Good catch, applied, thanks Thomas." reads "applied"."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .reply_forms import courtesy

_SENTENCE_END_RE = re.compile(r"(?<=[.!?]) ")
_CLAUSE_RE = re.compile(r"[,;] ")


def lead_clause(paragraph: str) -> tuple[str, str] | None:
    """(clause, sentence): the one clause of substance a paragraph opens with, in its first
    sentence that is not all courtesy ("Sure.", "Thanks!"), less the courtesy clauses ("Good
    catch, applied, thanks Thomas." -> "applied"); None when that sentence holds two ("Applied,
    and started testing.")."""
    polite = courtesy()
    for sentence in _SENTENCE_END_RE.split(" ".join(paragraph.split())):
        clauses = [c for c in _CLAUSE_RE.split(sentence) if not polite.fullmatch(c)]
        if clauses:
            return (clauses[0], sentence) if len(clauses) == 1 else None
    return None


def paragraphs_of(lines: list[str], quoted: list[bool], at: list[int]) -> Iterator[tuple[int, int]]:
    """(start, stop) of each run of the reply's own non-blank lines holding a line of `at`, once."""
    def own(j: int) -> bool:
        return 0 <= j < len(lines) and not quoted[j] and bool(lines[j].strip())
    stop = -1
    for i in at:
        if i < stop or not own(i):
            continue
        start, stop = i, i + 1
        while own(start - 1):
            start -= 1
        while own(stop):
            stop += 1
        yield start, stop
