"""Fixes tags as written, read once for every stage: the line, the commit id and the quoted subject.

`Fixes: 1234567890ab ("net: foo: fix bar")` -> sha "1234567890ab", subject "net: foo: fix bar".

The one reading, checkpatch's: a line that starts with `fixes` (any case, after blanks), then a
colon (or, without one, a subject in parentheses), the word `commit` when written, and 4 to 64 hex
digits (4: the shortest abbreviation git takes) not followed by a letter or digit. A `Fixes:` line
naming no hex id is read too, with sha None: it is still a Fixes tag to the classifier and a
malformed one to fixes-format. A tag wrapped over two lines is read with its continuation. What
follows the subject's closing parenthesis (`("ss: add SCTP") # sctp`) is a comment, not subject.

Every stage asks here: the rules (fixes, fixes-format, body), the classifier, `fixes-audit`'s
grep, `lint --suggest` and `profile learn`. Pure parsing, no judgement: format problems are the
fixes-format rule's business, history problems the fixes-target-* rules'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .series import Patch, Trailer
from .trailers import is_trailer_line

MIN_SHA = 4  # git's shortest abbreviation; fixes-format asks for 12
_LINE_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<tag>fixes)(?P<sp1>[ \t]*)(?:(?P<colon>:)(?P<sp2>[ \t]*))?"
                      rf"(?:(?P<commit>commit[ \t]+)?(?P<sha>[0-9a-f]{{{MIN_SHA},64}})(?![0-9a-z]))?(?P<rest>.*)$",
                      re.I)
# For `git log --grep` (POSIX ERE, case-insensitive): every commit with a line read here, and more.
GREP_ERE = rf"^[[:space:]]*fixes[[:space:]]*(:|[[:space:]](commit[[:space:]]+)?[0-9a-f]{{{MIN_SHA}}})"
GREP_PCRE = rf"^\s*fixes\s*(:|\s(commit\s+)?[0-9a-f]{{{MIN_SHA}}})"
_OPEN_QUOTES = "\"'\u201c\u2018\u201e"
_CLOSE_QUOTES = "\"'\u201d\u2019\u201c"
_CLOSING_RE = re.compile("[" + _CLOSE_QUOTES + "]\\)")  # a quote, then the parenthesis closing the subject
_WORD_END_RE = re.compile(r"\w$")


@dataclass(frozen=True)
class FixesLine:
    """One Fixes tag as written, in the parts fixes-format judges."""

    line: str  # the line as written (the first of a wrapped tag)
    indent: str  # blanks before `Fixes` (an indented line quotes another message)
    tag: str  # `Fixes` as written
    space_before_colon: str
    colon: bool
    space_after_colon: str
    commit_word: bool  # `Fixes: commit 1234...`
    sha: str | None  # the hex as written (case kept); None when the line names none
    rest: str  # what follows the hex (or the colon), the continuation joined at a blank
    continued: str | None = None  # the next line, when the tag was wrapped onto it

    @property
    def wrapped(self) -> bool:
        return self.continued is not None

    @property
    def subject(self) -> str | None:
        """The quoted subject without parentheses and quotes (None when absent or no hex is named)."""
        return subject_of(self.rest) if self.sha else None

    @property
    def break_in_word(self) -> bool:
        """The wrap fell between two letters or digits ("Compensat" / "ion"), no blank left at the
        line's end: only the repository can tell a word split from two words."""
        return bool(self.continued) and bool(_WORD_END_RE.search(self.line)) and self.continued[:1].isalnum()

    @property
    def subjects(self) -> tuple[str, ...]:
        """The subject as it may have been before the wrap: joined at a blank, or, when the break
        fell inside a word, glued."""
        if self.subject is None:
            return ()
        if not self.break_in_word:
            return (self.subject,)
        glued = subject_of(self.rest[: len(self.rest) - len(self.continued) - 1] + self.continued)
        return (self.subject,) + ((glued,) if glued and glued != self.subject else ())


def read_fixes_line(line: str, following: str | None = None) -> FixesLine | None:
    """The Fixes tag on `line`, or None when it holds none ("fixes the leak": prose). `following`,
    the next line, is joined when the tag was wrapped onto it: its parentheses or quotes left open,
    or the subject itself on the next line; a trailer there is never a continuation."""
    m = _LINE_RE.match(line)
    if not m:
        return None
    rest = m.group("rest")
    if not m.group("colon") and not (m.group("sha") and rest.strip().startswith("(")):
        return None  # "fixes deadbeef handling", "Fixesfoo": prose, not a tag
    continued = None
    if m.group("sha") and following and following.strip() and not is_trailer_line(following):
        unbalanced = rest.count("(") != rest.count(")") or rest.count('"') % 2
        cut_before_subject = not rest.strip() and following.strip().startswith(("(", '"', "\u201c"))
        if unbalanced or cut_before_subject:
            continued = following.strip()
            rest = rest.rstrip() + " " + continued
    return FixesLine(line, m.group("indent"), m.group("tag"), m.group("sp1"), bool(m.group("colon")),
                     m.group("sp2") or "", bool(m.group("commit")), m.group("sha"), rest, continued)


def fixes_lines(lines: Sequence[str]) -> list[tuple[int, FixesLine]]:
    """(index, tag) for every line of a message that holds a Fixes tag, each read with the line
    after it."""
    out = []
    for i, line in enumerate(lines):
        fl = read_fixes_line(line, lines[i + 1] if i + 1 < len(lines) else None)
        if fl is not None:
            out.append((i, fl))
    return out


def has_fixes_tag(message: str) -> bool:
    """A commit message with a Fixes tag naming a commit on a line of its own (not indented)."""
    return any(fl.sha and not fl.indent for _, fl in fixes_lines(message.splitlines()))


def subject_of(rest: str) -> str | None:
    """The subject in what follows a Fixes tag's hex: `("net: foo")` -> "net: foo"; a comment after
    the closing parenthesis is no part of it."""
    rest = rest.strip()
    if rest.startswith("("):
        close = [c.start() for c in _CLOSING_RE.finditer(rest)]
        end = close[-1] + 1 if close else (len(rest) - 1 if rest.endswith(")") else len(rest))
        rest = rest[1:end]
    rest = rest.strip()
    if rest[:1] and rest[0] in _OPEN_QUOTES:
        rest = rest[1:]
    if rest[-1:] and rest[-1] in _CLOSE_QUOTES:
        rest = rest[:-1]
    return rest.strip() or None


def parse_fixes_value(value: str) -> tuple[str | None, str | None]:
    """(sha, subject) from a Fixes trailer's value; either may be None."""
    fl = read_fixes_line("Fixes: " + (value or ""))
    if fl is None or fl.sha is None:
        return None, None
    return fl.sha.lower(), fl.subject


@dataclass(frozen=True)
class FixesRef:
    trailer: Trailer  # the Fixes: trailer it came from
    sha: str | None  # the commit id as written, lower-cased; None when the value holds none
    subject: str | None  # the quoted subject without parentheses and quotes; None when absent
    from_reply: bool = False  # given by a reviewer in a reply (b4 follow-up trailer)
    read: FixesLine | None = None  # the tag as read, with its continuation when wrapped

    @property
    def line(self) -> str:
        return self.trailer.line or f"{self.trailer.name}: {self.trailer.value}"

    @property
    def subjects(self) -> tuple[str, ...]:
        """What the subject may have been (a tag wrapped inside a word: joined and glued)."""
        return self.read.subjects if self.read is not None else ((self.subject,) if self.subject else ())


def _ref(t: Trailer, following: str | None, from_reply: bool = False) -> FixesRef:
    fl = read_fixes_line("Fixes: " + t.value, following)
    if fl is None or fl.sha is None:
        return FixesRef(t, None, None, from_reply, fl)
    return FixesRef(t, fl.sha.lower(), fl.subject, from_reply, fl)


def fixes_of(patch: Patch, *, replies: bool = True) -> tuple[FixesRef, ...]:
    """Every Fixes: trailer of a patch (and, unless replies=False, those given in replies)."""
    out = []
    lines = patch.message_lines
    for t in patch.trailers:
        if t.key == "fixes":
            out.append(_ref(t, lines[t.lineno] if 0 < t.lineno < len(lines) else None))
    if replies:
        own = {r.sha for r in out}
        for t in patch.followup_trailers:
            if t.key == "fixes":
                ref = _ref(t, None, from_reply=True)
                if ref.sha not in own:
                    out.append(ref)
    return tuple(out)
