"""The review model: plain frozen dataclasses, built once by the adapter and read by rules.

Vocabulary follows b4: a *series* is one revision (vN) of a set of patches, optionally with a
cover letter (counter 0); *follow-up trailers* are trailers given in replies; earlier revisions
found in the same input or thread are kept in `Series.earlier`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from .subject import Subject


@dataclass(frozen=True)
class Person:
    name: str
    email: str

    def __str__(self) -> str:
        if self.name and self.email:
            return f"{self.name} <{self.email}>"
        return self.email or self.name

    def same_as(self, other: "Person | None") -> bool:
        """Same identity: equal addresses (case-insensitive) or, failing that, equal names."""
        if other is None:
            return False
        if self.email and other.email:
            return self.email.lower() == other.email.lower()
        return bool(self.name) and self.name.casefold() == other.name.casefold()


def same_person(a: Person | None, b: Person | None) -> bool:
    """Matched by address or by name, case-insensitively and ignoring spacing and quotes (as
    NIPA's verify_signedoff does): the rules' and the replies' one test of who someone is."""
    if a is None or b is None:
        return False
    if a.email and b.email and a.email.lower() == b.email.lower():
        return True
    return bool(a.name and b.name and name_key(a.name) == name_key(b.name))


_BLANKS_RE = re.compile(r"\s+")


def name_key(name: str) -> str:
    """A display name as same_person compares it: spacing, quotes and case set aside."""
    return _BLANKS_RE.sub(" ", name.strip().strip('"')).casefold()


@dataclass(frozen=True)
class Trailer:
    """One `Name: value` trailer line, as written, with what we could parse from it."""

    name: str  # as written (case kept)
    value: str
    line: str  # the whole line as it appeared
    lineno: int  # 1-based line number in the commit message (0 for reply trailers)
    kind: str  # "person" | "utility" | "unknown"
    person: Person | None = None
    address_problem: str | None = None  # why the address is malformed, if it is
    source_msgid: str | None = None  # the reply that gave it (follow-up trailers)
    source_from: Person | None = None  # who sent that reply

    @property
    def key(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class FileChange:
    path: str  # target path (b/ side); for deletions the source path
    old_path: str | None  # source path when renamed/copied
    status: str  # "added" | "deleted" | "modified" | "renamed" | "copied" | "mode" | "unparsed"
    insertions: int
    deletions: int
    binary: bool = False
    added_lines: tuple[str, ...] = ()  # the text of '+' lines, for classification rules
    removed_lines: tuple[str, ...] = ()
    unsafe_path: str | None = None  # why the path is dangerous (../, absolute, control chars)


@dataclass(frozen=True)
class Diff:
    files: tuple[FileChange, ...] = ()
    has_diff: bool = False  # a diff header was seen
    has_diffstat: bool = False
    diffstat_files: int = 0  # how many files the diffstat announces
    problem: str | None = None  # why the diff is unusable or corrupt
    text: str = ""  # the diff as received (for git apply / patch-id), trailing base-commit lines removed

    @property
    def insertions(self) -> int:
        return sum(f.insertions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)


@dataclass(frozen=True)
class Reply:
    """A reply in the thread (not a patch, not a cover letter)."""

    msgid: str
    subject: str
    author: Person
    date: datetime | None
    in_reply_to: str | None
    counter: int | None  # the patch it answers (0 = cover letter), None when unknown
    body: str  # the reply's own text, quoted lines removed
    trailers: tuple[Trailer, ...] = ()  # every trailer-looking line we found, valid or not
    text: str = ""  # the body as sent, quotes included (reply forms ask which lines stand alone)


@dataclass(frozen=True)
class Patch:
    """A patch mail (counter >= 1) or a cover letter (counter 0)."""

    counter: int
    msgid: str
    subject: Subject
    sender: Person  # the mail's From: header
    author: Person  # in-body From: when present, else the sender
    date: datetime | None
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    message: str = ""  # the commit message: body above the trailer block, in-body headers removed
    message_lines: tuple[str, ...] = ()  # full text above '---', as lines (for line-based rules)
    trailers: tuple[Trailer, ...] = ()  # the patch's own trailers
    followup_trailers: tuple[Trailer, ...] = ()  # accepted from replies (b4's view)
    notes: str = ""  # text between '---' and the diffstat/diff (version log, comments)
    diff: Diff = field(default_factory=Diff)
    patch_id: str | None = None  # git patch-id --stable, when computed
    commit: str | None = None  # full sha when the patch was read from a git commit (fixes-audit, lint)

    @property
    def is_cover(self) -> bool:
        return self.counter == 0

    def trailers_named(self, *names: str) -> tuple[Trailer, ...]:
        wanted = {n.lower() for n in names}
        return tuple(t for t in self.trailers if t.key in wanted)

    def untrailered_lines(self) -> list[tuple[int, str]]:
        """(line number, text) of the message lines that are not the patch's trailers."""
        trailer_lines = {t.lineno for t in self.trailers}
        return [(n, line) for n, line in enumerate(self.message_lines, 1) if n not in trailer_lines]


@dataclass(frozen=True)
class Series:
    """One revision of a patch series, as received."""

    subject: str  # the cover letter's summary, else patch 1's
    msgid: str  # cover letter's msgid, else the first patch's
    revision: int
    expected: int  # N of "M/N"
    cover: Patch | None
    patches: tuple[Patch, ...]  # received patches, ordered by counter (no cover)
    missing: tuple[int, ...]  # counters 1..N that did not arrive
    duplicates: tuple[int, ...] = ()  # counters that arrived more than once
    base_commit: str | None = None  # only when well-formed hex
    base_commit_raw: str | None = None  # the value as written
    change_id: str | None = None
    prerequisites: tuple[str, ...] = ()  # prerequisite-* lines as written
    replies: tuple[Reply, ...] = ()
    # Replies to postings of these patches that the input lacks (a review of v2 2/2 beside v3),
    # matched by summary: their review trailers were given on an earlier posting.
    earlier_replies: tuple[Reply, ...] = ()
    trailer_mismatches: tuple[tuple[str, str, str, str], ...] = ()  # (name, value, sender name, sender address)
    earlier: tuple["Series", ...] = ()  # older revisions found in the same input, oldest first
    reposts: tuple[Patch, ...] = ()  # older postings of this revision's mails (a RESEND, or a repost
    #                                  without a version bump), oldest first; not part of the series
    source: str = ""  # where the mail came from (path or URL)
    notes: tuple[str, ...] = ()  # what the adapter had to work around (skipped mail, ...)

    @property
    def received(self) -> tuple[int, ...]:
        return tuple(p.counter for p in self.patches)

    @property
    def first(self) -> Patch | None:
        """The message that carries the series' identity: cover letter, else first patch."""
        return self.cover or (self.patches[0] if self.patches else None)

    @property
    def has_cover(self) -> bool:
        return self.cover is not None

    @property
    def tree(self) -> str | None:
        first = self.first
        return first.subject.tree if first else None

    @property
    def is_rfc(self) -> bool:
        first = self.first
        return bool(first and first.subject.rfc)

    @property
    def all_mails(self) -> tuple[Patch, ...]:
        return ((self.cover,) if self.cover else ()) + self.patches

    def patch(self, counter: int) -> Patch | None:
        for p in self.all_mails:
            if p.counter == counter:
                return p
        return None


_REQUEST_PULL_RE = re.compile(r"^The following changes since commit [0-9a-f]{7,64}", re.M)


def is_pull_request(series: Series) -> bool:
    """A `[GIT PULL]`, or a series whose cover letter carries `git request-pull` text (maintainers
    send pull requests as patch series on netdev): its cover describes a branch, not a revision."""
    first = series.first
    if first is not None and first.subject.pull:
        return True
    return series.cover is not None and bool(_REQUEST_PULL_RE.search(series.cover.message + "\n" + series.cover.notes))
