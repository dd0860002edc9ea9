"""Release calendar: was the merge window open at a given moment?

The merge window for vX.(Y+1) runs from the final vX.Y tag to the vX.(Y+1)-rc1 tag; development
trees that follow it (net-next, bpf-next, ...) are closed meanwhile. Dates come from the shipped
table reviewtool/data/kernel-releases.tsv (UTC days; a trailing `?` marks a day not confirmed),
refreshed and extended by the mainline tags of `--repo` when it has them.

A day-precision boundary is uncertain by its whole day (±1 day when marked `?`): a moment on it
answers "uncertain". After the last known release the answer is "unknown", never a guess (after a
last known -rc1 the tree is open for the six weeks that always separate -rc1 from the release).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from datetime import date, datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from ..bounded import number

STAGE_ORDER = 20

_TAG_RE = re.compile(r"^v(\d+)\.(\d+)(-rc1(?:-dontuse)?)?$")
_AGREE_DAYS = 2  # repository tags must agree with the table this closely to be trusted
_RC_MIN_DAYS = 42  # no release has come sooner than this after its -rc1 (shortest: 48 days)


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @staticmethod
    def parse(text: str) -> "Version":
        major, minor = text.strip().split(".")
        return Version(int(major), int(minor))


@dataclass(frozen=True)
class Boundary:
    """A release or -rc1 tag: the moment lies in [earliest, latest)."""

    version: Version
    kind: str  # "release" (opens the next window) or "rc1" (closes this version's window)
    earliest: datetime
    latest: datetime
    source: str  # "table" or "tag"

    @property
    def tag(self) -> str:
        return f"v{self.version}" + ("-rc1" if self.kind == "rc1" else "")

    @property
    def day(self) -> str:
        if self.source == "tag":
            return self.earliest.strftime("%Y-%m-%d %H:%M UTC")
        return (self.earliest + (self.latest - self.earliest) / 2).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class WindowState:
    """The answer for one moment. status: closed | open | uncertain | unknown."""

    status: str
    when: datetime
    opened_by: Boundary | None = None  # the boundary before `when`
    closes_at: Boundary | None = None  # the boundary after `when`
    why: str = ""

    @property
    def window_version(self) -> str | None:
        """The release whose merge window this is (vX.(Y+1) for a window opened by vX.Y)."""
        if self.closes_at is not None and self.closes_at.kind == "rc1":
            return str(self.closes_at.version)
        if self.opened_by is not None and self.opened_by.kind == "rc1":
            return str(self.opened_by.version)
        return None


def _day_span(day: date, unsure: bool) -> tuple[datetime, datetime]:
    start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    if unsure:
        return start - timedelta(days=1), start + timedelta(days=2)
    return start, start + timedelta(days=1)


def parse_table(text: str) -> list[Boundary]:
    """Rows `version release_date rc1_date source`; empty fields are unknown dates."""
    out: list[Boundary] = []
    for line in text.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) < 3 or not cols[0].strip():
            continue
        version = Version.parse(cols[0])
        for kind, raw in (("rc1", cols[2]), ("release", cols[1])):
            raw = raw.strip()
            if not raw:
                continue
            unsure = raw.endswith("?")
            earliest, latest = _day_span(date.fromisoformat(raw.rstrip("?")), unsure)
            out.append(Boundary(version, kind, earliest, latest, "table"))
    return out


def shipped_table() -> list[Boundary]:
    return list(_shipped_rows())


@lru_cache(maxsize=1)  # package data: read once per process
def _shipped_rows() -> tuple[Boundary, ...]:
    text = resources.files("reviewtool.data").joinpath("kernel-releases.tsv").read_text(encoding="utf-8")
    return tuple(parse_table(text))


def tag_boundaries(lines: list[str]) -> list[Boundary]:
    """`<tag> <ISO date>` lines (git for-each-ref output) -> boundaries for vX.Y and vX.Y-rc1."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) < 2:
            continue
        m = _TAG_RE.match(parts[0])
        if not m:
            continue
        try:
            when = datetime.fromisoformat(parts[1]).astimezone(timezone.utc)
        except ValueError:
            continue
        major, minor = number(m.group(1)), number(m.group(2))
        if major is None or minor is None:
            continue  # a tag name no release carries
        out.append(Boundary(Version(major, minor), "rc1" if m.group(3) else "release", when, when, "tag"))
    return out


def merge_boundaries(table: list[Boundary], tags: list[Boundary]) -> tuple[list[Boundary], str | None]:
    """The table refreshed by the tags, or the table alone (and why) when the tags disagree with it.

    A repository whose vX.Y tags are not the kernel's (another project, rewritten tags) must not
    move the calendar: tags are trusted only when at least one overlaps the table and all
    overlapping ones agree within _AGREE_DAYS."""
    if not tags:
        return table, None
    known = {(b.version, b.kind): b for b in table}
    overlap = [(t, known[(t.version, t.kind)]) for t in tags if (t.version, t.kind) in known]
    if not overlap:
        return table, "the repository's vX.Y tags do not overlap the release table; using the table"
    slack = timedelta(days=_AGREE_DAYS)
    bad = [t for t, row in overlap if not (row.earliest - slack <= t.earliest <= row.latest + slack)]
    if bad:
        return table, (f"the repository's tag {bad[0].tag} ({bad[0].day}) disagrees with the release table; "
                       "using the table")
    merged = dict(known)
    for t in tags:
        merged[(t.version, t.kind)] = t
    return list(merged.values()), None


@dataclass(frozen=True)
class Calendar:
    boundaries: tuple[Boundary, ...]  # chronological
    source: str  # "shipped table" or "shipped table + tags of <repo>"

    @staticmethod
    def build(boundaries: list[Boundary], source: str) -> "Calendar":
        order = {"rc1": 0, "release": 1}
        return Calendar(tuple(sorted(boundaries, key=lambda b: (b.version, order[b.kind]))), source)

    @property
    def last(self) -> Boundary | None:
        return self.boundaries[-1] if self.boundaries else None

    def release_phase(self, version: str, when: datetime) -> str | None:
        """Where release `version` stood at `when`: "next" (its predecessor not yet released: the
        development trees take work for it), "current" (in its merge window or release
        candidates: the fixes trees take its fixes), "released" (a fix for it is a stable
        backport), or None when the calendar does not know."""
        when = when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
        try:
            wanted = Version.parse(version)
        except ValueError:
            return None
        releases = [b for b in self.boundaries if b.kind == "release"]
        mine = next((b for b in releases if b.version == wanted), None)
        earlier = [b for b in releases if b.version < wanted]
        prev = earlier[-1] if earlier else None
        follows = prev is not None and (prev.version == Version(wanted.major, wanted.minor - 1) or (
            wanted.minor == 0 and prev.version.major == wanted.major - 1))
        if not follows:  # a release the calendar cannot place (7.9 before 7.0 is known)
            return None
        if mine is not None and when >= mine.latest:
            return "released"
        if when >= prev.earliest:
            return "current" if mine is not None or prev is releases[-1] else None
        return "next"

    def state_at(self, when: datetime) -> WindowState:
        """closed: between a release and the next -rc1; open: between an -rc1 and its release."""
        when = when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
        before = [b for b in self.boundaries if b.earliest <= when]
        after = [b for b in self.boundaries if b.earliest > when]
        prev = before[-1] if before else None
        nxt = after[0] if after else None
        if prev is not None and when < prev.latest:
            around = " (give or take a day)" if prev.latest - prev.earliest > timedelta(days=1) else ""
            return WindowState("uncertain", when, prev, nxt, f"{prev.tag} was tagged on {prev.day}{around}, "
                                                             "too close to tell")
        if prev is None:
            return WindowState("unknown", when, None, nxt, "before the first release in the calendar")
        if nxt is None:
            # An -rc1 is followed by weeks of -rcN before the release (48-57 days so far): the
            # tree is open for _RC_MIN_DAYS after it; after a release nothing is known.
            if prev.kind == "rc1" and when < prev.latest + timedelta(days=_RC_MIN_DAYS):
                return WindowState("open", when, prev, None)
            return WindowState("unknown", when, prev, None,
                               f"after {prev.tag} ({prev.day}), the last date the calendar knows")
        expected = (prev.version, "release") if prev.kind == "rc1" else (Version(prev.version.major,
                                                                                prev.version.minor + 1), "rc1")
        consistent = (nxt.kind == expected[1] and
                      (nxt.version == expected[0] or (prev.kind == "release" and nxt.version.major
                                                      == prev.version.major + 1 and nxt.version.minor == 0)))
        if not consistent:
            return WindowState("unknown", when, prev, nxt, f"the calendar has a gap between {prev.tag} and {nxt.tag}")
        status = "closed" if prev.kind == "release" else "open"
        return WindowState(status, when, prev, nxt)


@lru_cache(maxsize=1)
def _shipped_calendar() -> Calendar:
    """Built once per process: `reviewtool triage` reviews thousands of series."""
    return Calendar.build(shipped_table(), "shipped table")


_TAGS_ARGS = ["for-each-ref", "--format=%(refname:short) %(creatordate:iso-strict)", "refs/tags/v*"]


def prefetch(repo: Path, facts) -> None:
    """Start reading the tags while the series is still being read (lint)."""
    from ..sources.gitbatch import GitRunner

    facts.started["calendar-tags"] = GitRunner(repo).start(_TAGS_ARGS)


def load_calendar(repo: Path | None, started=None) -> tuple[Calendar, list[str]]:
    """The calendar for a review, and notes on what could not be used. `started` is the tag
    read prefetch() began."""
    if repo is None:
        return _shipped_calendar(), []
    table = shipped_table()
    lines, problem = _repo_tags(repo, started)
    if problem:
        return _shipped_calendar(), [problem]
    merged, why = merge_boundaries(table, tag_boundaries(lines))
    if why or merged is table:
        return _shipped_calendar(), [f"calendar: {why}"] if why else []
    return Calendar.build(merged, f"shipped table + tags of {repo}"), []


def _repo_tags(repo: Path, started=None) -> tuple[list[str], str | None]:
    """Mainline-looking tags with their dates, read-only (one for-each-ref)."""
    from ..errors import RepositoryError
    from ..sources.gitbatch import GitRunner

    try:
        res = started.result() if started is not None else GitRunner(repo).run(_TAGS_ARGS, check=False)
    except RepositoryError as exc:
        return [], f"calendar: cannot read tags of {repo} ({exc})"
    if res.code != 0:
        return [], f"calendar: cannot read tags of {repo} ({' '.join(res.err.split())[:120]})"
    return res.out.splitlines(), None


def context_stage(series, options, fields: dict[str, Any]) -> None:
    facts = getattr(options, "repo_facts", None)
    repo = getattr(options, "repo", None)
    calendar, notes = load_calendar(repo, facts.take("calendar-tags") if facts else None)
    fields["calendar"] = calendar
    # Tags that disagree with the release table are another project's (its own v6.1), not a
    # problem to report on every run: the table decides, as it does without a repository. Only
    # a failure to read the tags is said.
    fields["notes"].extend(n for n in notes if n.startswith("calendar: cannot read"))
    # Say so when the closed-window check had nothing to go on, rather than staying silent.
    first = series.first
    spec = fields["profile"].series_tree(series)
    queue = fields["profile"].series_queue(series)
    if spec is not None and spec.closed_in_merge_window and first.date is not None and not series.is_rfc \
            and (queue is None or queue.closed_in_merge_window):
        state = calendar.state_at(first.date)
        if state.status in ("unknown", "uncertain"):
            fields["notes"].append(f"net-next-closed: whether {spec.name} was open on "
                                   f"{state.when:%Y-%m-%d} is {state.status} ({state.why}); "
                                   "--repo with mainline tags refreshes the calendar")
