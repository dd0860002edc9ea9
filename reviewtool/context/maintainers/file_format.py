"""The MAINTAINERS file format: sections of M/R/L/S/F/X/N/K entries, read as
scripts/get_maintainer.pl reads them (context/maintainers/lookup.py matches paths and text against them).

F/X values are globs turned into regexes (`.` escaped, `*` -> `.*`, `?` -> `.`); an existing
directory gets a trailing `/`; N and K are regexes, compiled on first use (patterns.Lazy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ...model.series import Person
from .patterns import Lazy, glob_to_regex, path_matcher

_LINE_RE = re.compile(r"^([A-Z]):\s*(.*)$")
_ROLE_BY_STATUS = {"supported": "supporter", "maintained": "maintainer", "odd fixes": "odd fixer",
                   "orphan": "orphan minder", "obsolete": "obsolete minder",
                   "buried alive in reporters": "chief penguin"}
_CATCH_ALL = {".*", ".*/"}


@dataclass(frozen=True)
class Recipient:
    """Someone (or a list) a patch should be sent to, and why."""

    address: str
    name: str
    kind: str  # "maintainer" | "reviewer" | "list" | "blamed"
    role: str  # get_maintainer's wording: "maintainer", "supporter", "open list", "moderated list", ...
    section: str  # the MAINTAINERS section title (or the blamed commit)
    reason: str = ""  # the file or keyword that selected the section

    def __str__(self) -> str:
        return f"{self.name} <{self.address}>" if self.name else self.address


@dataclass(frozen=True)
class Section:
    title: str
    order: int
    status: str
    maintainers: tuple[Person, ...]
    reviewers: tuple[Person, ...]
    lists: tuple[tuple[str, str], ...]  # (address, role: "open list" | "moderated list" | "subscribers-only")
    # F and N lines in file order: (kind, F pattern as converted or "", regex, depth); N has depth 0.
    matchers: tuple[tuple[str, str, Any, int], ...]  # regex, or Prefix for a plain path
    excludes: tuple[tuple[str, Any], ...]
    keywords: tuple[Lazy, ...]  # K:
    trees: tuple[str, ...] = ()  # T: as written ("git git://.../iproute2-next.git")

    @cached_property  # read for every patch; a section never changes
    def files(self) -> tuple[str, ...]:
        return tuple(pat for kind, pat, _, _ in self.matchers if kind == "F")

    @cached_property
    def has_regexes(self) -> bool:
        return any(kind == "N" for kind, _, _, _ in self.matchers)

    @cached_property
    def catch_all(self) -> bool:
        return bool(self.files) and all(p in _CATCH_ALL for p in self.files)

    @cached_property
    def whole_tree(self) -> bool:
        """No file patterns at all: in a MAINTAINERS without a catch-all section, the section for
        every file (iproute2's "Main Branch" and "Next Tree")."""
        return not (self.matchers or self.excludes or self.keywords)

    @cached_property
    def repositories(self) -> tuple[str, ...]:
        """The repositories its T: lines name, as "name.git" (context/remotes.repository_name)."""
        from ..history.remotes import repository_name

        return tuple(repository_name(t.split()[-1]) for t in self.trees if t.split())

    @cached_property
    def role(self) -> str:
        # No S: line says nothing of the status; an M: entry is still a maintainer.
        status = (self.status or "maintained").lower()
        return _ROLE_BY_STATUS.get(status, status)


def _person(value: str) -> Person | None:
    m = re.match(r"^(.*?)<([^<>\s]+@[^<>\s]+)>", value)  # the name is stripped: `\s*(.*?)\s*` is quadratic
    if m:
        return Person(m.group(1).strip().strip('"'), m.group(2))
    bare = value.split()[0] if value.split() else ""
    return Person("", bare) if "@" in bare else None


def _list_entry(value: str) -> tuple[str, str] | None:
    parts = value.split(None, 1)
    if not parts or "@" not in parts[0]:
        return None
    note = parts[1].lower() if len(parts) > 1 else ""
    if "subscribers-only" in note:
        return parts[0], "subscribers-only"
    if "moderated" in note:
        return parts[0], "moderated list"
    return parts[0], "open list"


def parse_maintainers(text: str, is_dir=lambda p: False) -> tuple[Section, ...]:
    """Sections of a MAINTAINERS file, in file order. `is_dir` says whether a path is a directory
    of the tree (get_maintainer adds a trailing slash to such F/X patterns)."""
    blocks: list[tuple[str, list[tuple[str, str]]]] = []
    title = ""
    entries: list[tuple[str, str]] = []
    started = False
    for raw in text.splitlines():
        m = _LINE_RE.match(raw)
        if m:
            if started:
                entries.append((m.group(1), m.group(2).strip()))
        elif raw.strip():
            if started and (entries or title):
                blocks.append((title, entries))
            title, entries = raw.strip(), []
            # The preamble holds no entries; the first title line followed by entries opens sections.
            started = True
        # blank lines separate sections but a title line alone decides where one starts
    if started and (entries or title):
        blocks.append((title, entries))
    sections = []
    for order, (title, entries) in enumerate(b for b in blocks if b[1]):
        sections.append(_section(title, order, entries, is_dir))
    return tuple(sections)


def _section(title: str, order: int, entries: list[tuple[str, str]], is_dir) -> Section:
    status = ""
    maint, review, lists, matchers, excludes, keywords, trees = [], [], [], [], [], [], []
    for kind, value in entries:
        if kind == "S":
            status = value  # the last S line decides, as in get_maintainer
        elif kind == "M" and (p := _person(value)):
            maint.append(p)
        elif kind == "R" and (p := _person(value)):
            review.append(p)
        elif kind == "L" and (entry := _list_entry(value)):
            lists.append(entry)
        elif kind in ("F", "X"):
            pat = glob_to_regex(value)
            if not pat.endswith("/") and is_dir(pat):
                pat += "/"
            rx = path_matcher(pat)  # an unusable regex never matches (patterns.Lazy)
            if kind == "F":
                depth = pat.count("/") + (0 if pat.endswith("/") else 1)
                matchers.append(("F", pat, rx, -1 if pat.startswith(".*") else depth))
            else:
                excludes.append((pat, rx))
        elif kind == "N" and (rx := Lazy(value, re.VERBOSE)):
            matchers.append(("N", "", rx, 0))
        elif kind == "K" and (rx := Lazy(value, re.VERBOSE)):
            keywords.append(rx)
        elif kind == "T" and value:
            trees.append(value)
    return Section(title=title, order=order, status=status, maintainers=tuple(maint), reviewers=tuple(review),
                   lists=tuple(lists), matchers=tuple(matchers), excludes=tuple(excludes), keywords=tuple(keywords),
                   trees=tuple(trees))
