"""The phrase table (reviewtool/data/phrases.toml): what a patch's words mean, as data.

`table()` loads it once per process. A `Meaning` finds its phrases in a list of sentences (or a
summary, or lines) and answers with a `PhraseHit`: which phrase (its stable id), the words it
matched and the sentence they stand in. Negation ("no regression in throughput", "does not cause
a crash") and contrast ("this looked theoretical, but syzbot hits it", "we assumed this could not
happen") are read the same way for every phrase of a meaning that asks for them.

Each phrase is tried only when the text holds a literal every match of it needs
(reviewtool/regexlit.py), so most never run on a given patch.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..regexlit import required_any

# "not", "no", "never", "without" up to two words before the phrase ("no regression",
# "does not cause any crash"); "no longer works" is a bug, not a negation.
_NEGATED_RE = re.compile(r"\b(?:not|no(?!\s+longer\b)|never|without|isn't|aren't|wasn't|weren't|doesn't|don't|"
                         r"didn't|won't|nor)\s+(?:\w+[\s,]+){0,2}$", re.I)
# A phrase the author only assumed, or took back later in the sentence.
_BELIEF_RE = re.compile(r"\b(?:assumed|thought|believed|seemed|looked|appeared|expected|was\s+considered)\b", re.I)
# "..., but syzbot hits it": a contrast that reports what did happen.
_CONTRAST_RE = re.compile(r"\b(?:but|however|yet|although|though|until)\b", re.I)
_OCCURRED_RE = re.compile(r"\b(?:syzbot|syzkaller|hits?|triggers?|triggered|happens|happened|occurs|occurred|seen|"
                          r"observed|reported|reproduc\w*|crash\w*|panic\w*|in\s+practice|actually\s+(?:does|can|did))\b",
                          re.I)
# A hypothetical: "avoids any future deadlock" describes robustness, not a bug users hit.
_FUTURE_RE = re.compile(r"\b(?:future|in\s+case\s+\w+\s+(?:ever|later))\b", re.I)
# What such code tends to end in, said of a kind of code ("returning an error code from .remove()
# is ignored, and this typically results in resource leaks": the reason a tree-wide conversion
# gives for an interface), not a bug told of this code ("this results in a leak").
_TENDENCY_RE = re.compile(r"\b(?:typically|usually|generally|commonly|often|tends?\s+to)\s+"
                          r"(?:results?|leads?|causes?|ends?\s+up)\b", re.I)


@dataclass(frozen=True)
class PhraseHit:
    meaning: str
    phrase: str  # the phrase's id
    words: str  # what it matched, as written
    text: str  # the sentence (or summary, or line) it stands in
    whole_series: bool = False  # said of one patch, it speaks for the series (see Phrase)

    @property
    def key(self) -> str:
        return f"{self.meaning}/{self.phrase}"


# A negation inside the matched words ("this does not cause a crash"), for phrases that do not
# carry one by design ("is never freed", "does not work": `keeps_not`).
_INNER_NOT_RE = re.compile(r"\b(?:not|no|never|n't)\b|n't\b", re.I)


@dataclass(frozen=True)
class Phrase:
    id: str
    pattern: re.Pattern[str]
    needs: tuple[str, ...] | None  # texts one of which every match holds, None: unknown
    fold: bool = False  # `needs` are compared with the text in lower case
    keeps_not: bool = False  # its words hold a negation by design
    # said in reply to one patch, the words speak for the whole series ("I fixed that in the
    # pending branch": the branch holds the series, not the one patch)
    whole_series: bool = False


@dataclass(frozen=True)
class Meaning:
    name: str
    where: str
    negate: bool
    contrast: bool
    case: bool
    phrases: tuple[Phrase, ...]

    def _live(self, joined: str) -> list[Phrase]:
        low = joined.lower()
        # map over `__contains__` tests the literals in C: a generator here was a third of `first`.
        return [p for p in self.phrases
                if p.needs is None or any(map((low if p.fold else joined).__contains__, p.needs))]

    def _counts(self, text: str, m: re.Match[str], phrase: Phrase) -> bool:
        # Only the words near the phrase qualify it (and a huge sentence costs no more to read).
        before, after = text[max(0, m.start() - 200): m.start()], text[m.end(): m.end() + 400]
        if self.negate and (_NEGATED_RE.search(before[-60:]) or _FUTURE_RE.search(before[-40:])
                            or _TENDENCY_RE.search(before[-40:] + m.group(0))
                            or (not phrase.keeps_not and _INNER_NOT_RE.search(m.group(0)))):
            return False
        if self.contrast:
            turn = _CONTRAST_RE.search(after)
            if _BELIEF_RE.search(before) or (turn is not None and _OCCURRED_RE.search(after, turn.end())):
                return False
        return True

    def _tries(self, texts: list[str] | tuple[str, ...]) -> Iterator[tuple[str, Phrase]]:
        """(text, phrase) for each phrase a text may hold, in text order, then phrase order."""
        live = self._live(" ".join(texts)) if texts else []
        fold = any(p.fold for p in live)
        for text in texts if live else ():
            low = text.lower() if fold else text
            for p in live:
                # A match lies in one text, and so do the literals it needs: a phrase is live for
                # the series when one sentence holds them, and is tried on that sentence alone
                # (a third of the review's phrase time was spent on the others).
                if p.needs is None or any(map((low if p.fold else text).__contains__, p.needs)):
                    yield text, p

    def first(self, texts: list[str] | tuple[str, ...]) -> PhraseHit | None:
        """The first phrase that counts, in text order (then phrase order)."""
        for text, p in self._tries(texts):
            for m in p.pattern.finditer(text):
                if self._counts(text, m, p):
                    return PhraseHit(self.name, p.id, m.group(0), text, p.whole_series)
        return None

    def all(self, texts: list[str] | tuple[str, ...]) -> tuple[PhraseHit, ...]:
        """Every phrase that counts somewhere in the texts, once each (for the benchmark tables)."""
        out: dict[str, PhraseHit] = {}
        for text, p in self._tries(texts):
            if p.id in out:
                continue
            m = next((m for m in p.pattern.finditer(text) if self._counts(text, m, p)), None)
            if m is not None:
                out[p.id] = PhraseHit(self.name, p.id, m.group(0), text, p.whole_series)
        return tuple(out.values())


def _phrase(entry: dict, flags: int, fmt: dict[str, str] | None) -> Phrase:
    source = entry["re"].format(**fmt) if fmt is not None else entry["re"]
    req = required_any(source, flags)
    keeps = bool(entry.get("keeps_not", False))
    whole = bool(entry.get("whole_series", False))
    if req is None:
        return Phrase(entry["id"], re.compile(source, flags), None, keeps_not=keeps, whole_series=whole)
    texts, fold = req
    return Phrase(entry["id"], re.compile(source, flags), tuple(t.lower() for t in texts) if fold else texts, fold,
                  keeps, whole)


def _meaning(name: str, data: dict, fmt: dict[str, str] | None = None) -> Meaning:
    case = bool(data.get("case", False))
    flags = 0 if case else re.I
    return Meaning(name=name, where=str(data.get("where", "prose")), negate=bool(data.get("negate", False)),
                   contrast=bool(data.get("contrast", False)), case=case,
                   phrases=tuple(_phrase(e, flags, fmt) for e in data.get("phrases", ())))


@lru_cache(maxsize=1)
def _data() -> dict:
    return tomllib.loads(resources.files("reviewtool.data").joinpath("phrases.toml").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def table() -> dict[str, Meaning]:
    """Every meaning of the table whose phrases name no tree (see `templated`)."""
    return {name: _meaning(name, d) for name, d in _data().items() if not d.get("template")}


@lru_cache(maxsize=32)
def templated(name: str, fix: str, dev: str) -> Meaning:
    """A meaning whose phrases name the profile's trees (`{fix}`, `{dev}`), filled in."""
    return _meaning(name, _data()[name], {"fix": re.escape(fix), "dev": re.escape(dev)})


def meaning(name: str) -> Meaning:
    return table()[name]


# Sentence ends: a full stop (or ! ?) followed by a capital, a quote or a bracket.
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(])")


def sentences(lines) -> tuple[str, ...]:
    """Lines joined into sentences, so a phrase wrapped over two lines is still one phrase; a
    blank line ends one ("... Phil Sutter wrote:" then "This one sucks: ..." are two)."""
    out: list[str] = []
    para: list[str] = []
    for line in (*lines, ""):
        if line.strip():
            para.append(line)
            continue
        if para:
            out += (s.strip() for s in _SENTENCE_END_RE.split(" ".join(para)) if s.strip())
            para = []
    return tuple(out)
