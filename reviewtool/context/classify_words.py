"""What a patch's prose says about itself: a bug described in the message, a change that says it
fixes nothing users can hit, cosmetic work, a cover letter naming patches as clean-ups, and an
author who says the bug is only in the development tree.

Pure functions over the model, like classify_signals.py; each signal keeps the line it read, so a
finding can quote the words it rests on. The word lists are deliberately narrow: a phrase that
also describes features ("is not set", "problem description") is not a bug report.
"""

from __future__ import annotations

import re

from ..model.series import Patch
from .classify_signals import Signal, description
from .regexlit import required_any

class _Phrases:
    """Phrases (regexes, any case) looked for sentence by sentence; each is tried only when the text
    holds a literal every match of it needs (context/regexlit.py), so most never run."""

    def __init__(self, patterns: tuple[str, ...]):
        self.patterns = [(re.compile(p, re.I), required_any(p, re.I)) for p in patterns]

    def first(self, sentences: list[str]) -> tuple[str, str] | None:
        """(words, sentence) of the first match not negated just before it ("not a theoretical ...")."""
        text = " ".join(sentences).lower()
        live = [rx for rx, req in self.patterns if req is None or any(t in text for t in req[0])]
        for sentence in sentences if live else ():
            for rx in live:
                for m in rx.finditer(sentence):
                    if not _NEGATED_RE.search(sentence[: m.start()]):
                        return m.group(0), sentence
        return None


# A bug described in prose ("this causes a crash", "the PTB isn't sent", "is backwards").
_BUG_RE = _Phrases((
    r"\b(?:this|it|which|that|so)\s+(?:\w+\s+){0,2}?(?:causes?|caused|leads?\s+to|led\s+to|results?\s+in|resulted\s+in|"
    r"creates?|created|triggers?|triggered)\s+(?:\w+\s+){0,4}?(?:issues?|problems?|crash\w*|leaks?|hangs?|"
    r"deadlocks?|panics?|oops\w*|corruption|failures?|splats?|use[- ]after[- ]free|out[- ]of[- ]bounds|"
    r"regressions?|stalls?|lockups?|errors?)\b",
    r"\b(?:memory|resource|refcount|reference|skb|page|buffer)\s+leaks?\b",
    r"\buse[- ]after[- ]free\b", r"\bnull[- ]pointer\s+deref\w*", r"\bdouble[- ]free\b",
    r"\bout[- ]of[- ]bounds\s+(?:read|write|access)\b", r"\b(?:kernel\s+)?(?:crash|crashes|crashed|panics|panicked)\b",
    r"\bregression\b", r"\brace\s+condition\b", r"\bdeadlocks?\b",
    r"\b(?:isn't|aren't|wasn't|weren't|is\s+not|are\s+not|was\s+not|were\s+not|is\s+never|are\s+never|"
    r"never\s+gets?)\s+(?:being\s+)?(?:sent|freed|released|reverted|restored|unregistered|torn\s+down)\b",
    r"\bfails?\s+to\s+(?:\w+\s+){0,2}?(?:load|probe|boot|build|compile|link|register|work|start|bind|attach|open)\b",
    r"\b(?:no\s+longer|stopped)\s+work(?:s|ing)?\b", r"\b(?:doesn't|does\s+not|don't|do\s+not)\s+work\b",
    r"\bis\s+(?:backwards|broken|wrong|incorrect|inverted)\b", r"\bbroke\b", r"\bmistakenly\b|\bby\s+mistake\b",
    r"\berroneous(?:ly)?\b", r"\b(?:compilation|build)\s+(?:fails?|failures?|errors?|breaks?)\b",
    r"\bwill\s+fail\b", r"\binfinite\s+loop\b", r"\b(?:soft|hard)\s+lockup\b", r"\b(?:memory|data)\s+corruption\b",
    r"\boff-by-one\b", r"\binteger\s+(?:overflow|underflow)\b", r"\b(?:divide|division)\s+by\s+zero\b",
    r"\b(?:is|are|gets?)\s+leaked\b", r"\bdangling\s+pointer\b", r"\bunbalanced\s+(?:lock|unlock|refcount|reference)",
    r"\buninitiali[sz]ed\s+(?:variable|memory|value|field|data)\b", r"\b(?:stack|buffer)\s+overflow\b",
))
# The author says it fixes nothing a user can hit.
_NO_BUG_RE = _Phrases((
    r"\bno\s+(?:in-tree\s+|existing\s+|current\s+)?(?:callers?|users?)\s+(?:will|can|could|would|does|do|currently)\b",
    r"\b(?:can\s*not|cannot|can't|could\s+not|couldn't|will\s+never|would\s+never|should\s+never)\s+"
    r"(?:actually\s+)?(?:happen|occur|be\s+(?:hit|triggered|reached))\b",
    r"\bnever\s+(?:happens|occurs|triggers)\b", r"\b(?:is|are)\s+(?:not\s+reachable|unreachable)\b",
    r"\bnot\s+(?:a|an)\s+(?:real\s+|actual\s+)?(?:bug|problem|issue)\b",
    r"\bno\s+(?:functional|functionality|behaviou?r(?:al)?|user[- ]visible|runtime)\s+changes?\b",
    r"\b(?:cleanup|clean-up|clean\s+up)\s*(?:,|and)\s*not\s+(?:a\s+)?(?:bug\s*fix|fix)\b",
    r"\b(?:purely|just)\s+(?:a\s+)?(?:cosmetic|cleanup|clean-up)\b", r"\btheoretical\b",
    r"\bmake\s+(?:the\s+)?(?:static\s+)?(?:checker|compiler|smatch|sparse|coverity|gcc|clang)s?\s+happy\b",
    r"\bsilence\s+(?:a|the|this)?\s*(?:compiler|gcc|clang|sparse|smatch|coverity|static\s+checker|W=1|-W[\w-]+)\s+"
    r"warnings?\b",
))
_NEGATED_RE = re.compile(r"\b(?:not|isn't|is\s+not|aren't|no\s+longer)\s+(?:just\s+|only\s+|merely\s+)?(?:a\s+)?$", re.I)
# Work that changes how code reads, not what it does. Matched in the subject (after `subsys:`).
_COSMETIC_RE = re.compile(
    r"\b(typos?|spelling|misspell\w*|grammar|wording|whitespace|white\s+space|indentation|coding[- ]style|"
    r"code\s+style|checkpatch|kernel-?doc|comments?|punctuation|capitali[sz]ation|cocci\w*|coccinelle|"
    r"(?:sparse|smatch|coverity|W=1|kernel-doc|doc(?:umentation)?|htmldocs)\s+warnings?|quotes)\b", re.I)
# Removal of code nobody uses.
_DEAD_CODE_RE = re.compile(r"\b(unused|dead|redundant|unneeded|unnecessary|superfluous|leftover|obsolete|"
                           r"stale|useless|duplicated?)\b", re.I)
# The author says the bug exists only in the development tree, or chose that tree on purpose.
_DEV_ONLY_PATTERN = (
    r"(?:does\s*n[o']t|did\s*n[o']t|not)\s+(?:yet\s+)?exist\s+in\s+(?:the\s+)?{fix}\b|\bonly\s+in\s+{dev}\b|"
    r"\b(?:introduced|added|merged)\s+(?:\w+\s+){{0,3}}in(?:to)?\s+{dev}\b|\bnot\s+(?:yet\s+)?in\s+{fix}\b|"
    r"\b(?:target|targets|targeting|retarget\w*)\s+(?:the\s+)?{dev}\b|\b{dev}[- ]only\b")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_CLEANUP_WORDS_RE = re.compile(r"\b(clean[- ]?ups?|clean\s+up|refactor\w*|cosmetic|tidy|no\s+functional\s+change)\b",
                               re.I)
_FIX_WORDS_RE = re.compile(r"\b(fix\w*|bug|leak|crash\w*|regression|oops|panic)\b", re.I)


_INBODY_HEADER_RE = re.compile(r"^(From|Subject|Date):\s")


def prose(patch: Patch) -> list[str]:
    """The description's own lines: no trailers, quotes, indented output or in-body headers."""
    trailer_lines = {t.lineno for t in patch.trailers}
    out = []
    for n, line in enumerate(patch.message_lines, 1):
        if n in trailer_lines or not line.strip() or line[:1] in (" ", "\t", ">"):
            continue
        if _INBODY_HEADER_RE.match(line):
            continue
        out.append(line.strip())
    return out


def _sentences(lines: list[str]) -> list[str]:
    """Lines joined into sentences, so a phrase wrapped over two lines is still one phrase."""
    text = " ".join(lines)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`'\"(])", text) if s.strip()]


def bug_in_description(patch: Patch) -> Signal | None:
    """The message describes a bug ("this creates issues such as ...", "is backwards")."""
    found = _BUG_RE.first(_sentences(prose(patch)))
    if found is None:
        return None
    words, sentence = found
    return Signal("description", "the description says", _clip(sentence), f"'{words}'")


def no_bug_said(patch: Patch) -> Signal | None:
    """The message (or the notes below ---) says the change fixes nothing users can hit."""
    found = _NO_BUG_RE.first(_sentences(prose(patch)) + _sentences(patch.notes.splitlines()))
    if found is None:
        return None
    words, sentence = found
    return Signal("no-bug", "the description says it fixes no reachable bug", _clip(sentence), f"'{words}'")


def cosmetic(patch: Patch) -> Signal | None:
    m = _COSMETIC_RE.search(description(patch))
    return Signal("cosmetic", "a cosmetic change", patch.subject.raw, f"(the subject says '{m.group(0)}')") if m else None


def comment_only(patch: Patch) -> bool:
    """Every changed line of every file is a comment (or blank): the code does not change."""
    lines = [l for f in patch.diff.files for l in f.added_lines + f.removed_lines if l.strip()]
    return bool(lines) and all(re.match(r"^\s*(/\*|\*|//|#(?!\s*(define|include|if|else|endif|undef))|;)", l)
                               for l in lines)


def dead_code_removal(patch: Patch) -> Signal | None:
    """The diff only removes lines, and the subject calls them unused, dead or redundant."""
    if not patch.diff.files or patch.diff.insertions or not patch.diff.deletions:
        return None
    m = _DEAD_CODE_RE.search(description(patch))
    if not m:
        return None
    return Signal("dead-code", "removes unused code", patch.subject.raw,
                  f"(only deletions; the subject says '{m.group(0)}')")


def cover_cleanups(cover: Patch | None, expected: int) -> dict[int, Signal]:
    """Patches the cover letter calls clean-ups: "First two patches are to do cleanup",
    "Patch 2 is a cleanup", "patches 1-3 refactor ..."; a sentence that also names a fix counts not."""
    if cover is None:
        return {}
    out: dict[int, Signal] = {}
    for sentence in _sentences(prose(cover)):
        if not _CLEANUP_WORDS_RE.search(sentence) or _FIX_WORDS_RE.search(sentence):
            continue
        for n in _named_patches(sentence, expected):
            out.setdefault(n, Signal("cover-cleanup", "the cover letter calls it a clean-up", _clip(sentence)))
    return out


def _named_patches(sentence: str, expected: int) -> list[int]:
    s = sentence.lower()
    m = re.search(r"\b(?:the\s+)?(first|last)\s+(one|two|three|four|five|six|\d+)\s+patch(?:es)?\b", s)
    if m:
        k = _NUMBERS.get(m.group(2)) or int(m.group(2))
        return list(range(1, k + 1)) if m.group(1) == "first" else list(range(expected - k + 1, expected + 1))
    m = re.search(r"\bpatch(?:es)?\s+#?(\d+)\s*(?:-|to|\.\.)\s*#?(\d+)\b", s)
    if m:
        return list(range(int(m.group(1)), int(m.group(2)) + 1))
    m = re.search(r"\bpatch(?:es)?\s+((?:#?\d+(?:/\d+)?\s*(?:,|and|&)?\s*)+)", s)
    if m:
        return [int(x) for x in re.findall(r"#?(\d+)(?:/\d+)?", m.group(1))]
    m = re.search(r"\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)\s+"
                  r"(?:one|patch|commit)\b", s)
    if m:
        return [expected if m.group(1) == "last" else _ORDINALS[m.group(1)]]
    return []


def says_development_only(texts: list[str], fixes_tree: str, dev_tree: str) -> str | None:
    """The sentence in which the author says the bug is only in `dev_tree` (or that they target it)."""
    rx = re.compile(_DEV_ONLY_PATTERN.format(fix=re.escape(fixes_tree), dev=re.escape(dev_tree)), re.I)
    for text in texts:
        for sentence in _sentences([l.strip() for l in text.splitlines() if l.strip() and not l.startswith(">")]):
            if rx.search(sentence):
                return _clip(sentence)
    return None


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
