"""MAINTAINERS patterns as matchers: F:/X: globs, N: and K: regexes.

Most of the kernel's 20,000 F: lines are plain paths, matched as string prefixes; the rest, and
every N:/K: regex, are compiled on first use (a review consults a few dozen of them).
"""

from __future__ import annotations

import re

from ...foreign_regex import compile_foreign


def glob_to_regex(value: str) -> str:
    return value.replace(".", r"\.").replace("*", ".*").replace("?", ".")


def compile_or_none(pattern: str, flags: int = 0) -> re.Pattern[str] | None:
    """The pattern compiled; None for a Perl-only construct or one that can take exponential time
    on a patch (foreign_regex.py: a repository's MAINTAINERS is written by others): the entry
    cannot be used, the rest still can."""
    try:
        return compile_foreign(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return None


class Prefix:
    """A pattern without wildcards, matched as a string prefix: most of the kernel's 20,000 F: lines
    are such paths, and compiling each one as a regex was most of the time of reading MAINTAINERS."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def match(self, path: str) -> bool:
        return path.startswith(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Prefix) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class Lazy:
    """A regex compiled on first use (an unusable one never matches): a review consults a few
    dozen of the kernel's ~1,400 wildcard, N: and K: patterns, and only those get compiled. `guard`
    is the literal start every match needs, so most paths are turned away without compiling."""

    __slots__ = ("pattern", "flags", "guard", "_rx")

    def __init__(self, pattern: str, flags: int = 0, guard: str = ""):
        self.pattern, self.flags, self.guard, self._rx = pattern, flags, guard, None

    def _compiled(self):
        if self._rx is None:
            self._rx = compile_or_none(self.pattern, self.flags) or False
        return self._rx

    def match(self, text: str):
        if not text.startswith(self.guard):
            return None
        rx = self._compiled()
        return rx.match(text) if rx else None

    def search(self, text: str):
        rx = self._compiled()
        return rx.search(text) if rx else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lazy) and (other.pattern, other.flags) == (self.pattern, self.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))


class Always:
    """A prefilter that lets everything through."""

    @staticmethod
    def search(text: str) -> bool:
        return True


ALWAYS = Always()
_SPECIAL_RE = re.compile(r"[.*?+^$()\[\]{}|\\]")


def path_matcher(pat: str) -> "Prefix | Lazy":
    """An F:/X: pattern (already converted from a glob) anchored at the start of the path."""
    plain = pat.replace(r"\.", "")
    m = _SPECIAL_RE.search(plain)
    if m is None:
        return Prefix(pat.replace(r"\.", "."))
    guard = pat[: _literal_end(pat)].replace(r"\.", ".")
    return Lazy("^" + pat, 0, guard)


def _literal_end(pat: str) -> int:
    """Where the literal start of a converted pattern ends (escaped dots are literal)."""
    i = 0
    while i < len(pat):
        if pat.startswith(r"\.", i):
            i += 2
        elif pat[i] in ".*?+^$()[]{}|\\":
            return i
        else:
            i += 1
    return i
