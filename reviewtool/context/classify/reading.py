"""What one patch says about itself, read once: its words, its trailers and what its diff adds.

`read_patch(patch, profile, calendar)` is a pure function of the model. It splits the message into
sentences once, asks the phrase table (context/phrases.py) each meaning once, and looks at the
diff once; context/classify/kind.py then weighs the `PatchReading` in a fixed order. Every hit
keeps the words and the line it stands in, so a finding can quote its evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...model.series import Patch, Trailer
from .diff_evidence import FixesTag, Signal, diff_signals, fixes_tags, reverted_commit, test_infra_signals
from ..phrases import PhraseHit, meaning, sentences, table, templated
from ..profiles.profile import Profile

_INBODY_HEADER_RE = re.compile(r"^(From|Subject|Date):\s")
# `[PATCH 5.9]`, `[PATCH for v5.17]`, `[PATCH v6.1]`, `[PATCH 5.6+]`: a kernel release the patch is for.
_RELEASE_TAG_RE = re.compile(r"^v?([3-9]|[1-9]\d)\.(\d{1,3})\+?$", re.I)
# Tags of backports for stable trees whatever the date (`[PATCH 5.10.y]`, `[PATCH -stable]`, AUTOSEL).
_STABLE_TAG_RE = re.compile(r"^(-?stable|autosel|\d+\.\d+(\.y|\.\d+))$", re.I)
_COMMENT_RE = re.compile(r"^\s*(/\*|\*|//|#(?!\s*(define|include|if|else|endif|undef))|;)")
# Calls that give something back: deleting a redundant one fixes a double release.
# (an indented statement, not the definition of such a function).
_CALL_RE = re.compile(r"^\s+(?:\w+\s*=\s*)?(\w+)\s*\([^;]*\);")
_RELEASE_WORDS = ("free", "put", "unlock", "release", "destroy", "unregister", "del", "disable", "dec")


@dataclass(frozen=True)
class ReleaseTag:
    """A kernel release named in the subject prefix, and where it stood when the patch was sent:
    "next" (not yet in its merge window: the development tree), "current" (in its merge window or
    release candidates: the fixes tree) or "released" (a stable backport)."""

    tag: str
    version: str
    phase: str | None  # None: the calendar does not know the date


@dataclass(frozen=True)
class PatchReading:
    counter: int
    summary: str  # the subject after its `subsys:` prefixes
    prose: tuple[str, ...]  # the message's own sentences
    notes: tuple[str, ...]  # the sentences below `---`
    hits: dict[str, PhraseHit]  # meaning -> the first phrase of it that counts
    crash: str | None  # the first line quoting a crash report or a bug-finding tool
    report: Trailer | None  # Reported-by / Closes
    fixes: tuple[FixesTag, ...]
    reverted: str | None  # the reverted sha, "" for a revert naming none, None: not a revert
    new_work: tuple[Signal, ...]  # what the diff adds that only new work adds (device IDs too)
    test_infra: tuple[Signal, ...]
    only_tests: bool  # every file is a test or docs, and one is a test
    only_docs: bool
    comment_only: bool  # every changed line is a comment
    deletion_only: bool  # the diff only removes lines
    removes_release: bool  # it deletes calls that free, put or unlock
    maintainers_only: bool  # it only touches MAINTAINERS-like files
    release_tag: ReleaseTag | None
    stable_tag: str | None  # a tag that marks a stable backport
    lines: int

    def hit(self, name: str) -> PhraseHit | None:
        return self.hits.get(name)

    @property
    def strong_new_work(self) -> tuple[Signal, ...]:
        return tuple(s for s in self.new_work if s.kind != "device-id")


def description(patch: Patch) -> str:
    """The subject without its `subsys: sub:` prefixes: what the patch says it does."""
    return patch.subject.description.strip()


def prose_lines(patch: Patch) -> list[str]:
    """The description's own lines: no trailers, quotes, indented output or in-body headers."""
    return [line.strip() for _, line in patch.untrailered_lines()
            if line.strip() and line[:1] not in (" ", "\t", ">") and not _INBODY_HEADER_RE.match(line)]


def _release_tag(patch: Patch, calendar: Any) -> ReleaseTag | None:
    for tag in patch.subject.tags:
        m = _RELEASE_TAG_RE.match(tag)
        if m:
            version = f"{int(m.group(1))}.{int(m.group(2))}"
            phase = calendar.release_phase(version, patch.date) if calendar is not None and patch.date else None
            return ReleaseTag(tag, version, phase)
    return None


# The regressions list and regzbot: a fix Cc'd there, or linking a report there, fixes a regression
# (Documentation/admin-guide/reporting-regressions.rst asks for both).
_REGRESSIONS_LIST = "regressions@lists.linux.dev"
_REGRESSION_LINK_RE = re.compile(r"lore\.kernel\.org/regressions/|\bregzbot\b", re.I)


def _tracked_regression(patch: Patch) -> PhraseHit | None:
    for t in patch.trailers:
        if t.key in ("link", "closes", "cc") and (_REGRESSION_LINK_RE.search(t.value)
                                                   or _REGRESSIONS_LIST in t.value.lower()):
            return PhraseHit("regression", "tracked", t.value, t.line)
    for addr in patch.to + patch.cc:
        if _REGRESSIONS_LIST in addr.lower():
            return PhraseHit("regression", "tracked", _REGRESSIONS_LIST, f"Cc: {_REGRESSIONS_LIST}")
    return None


def is_comment_only(patch: Patch) -> bool:
    lines = [l for f in patch.diff.files for l in f.added_lines + f.removed_lines if l.strip()]
    return bool(lines) and all(_COMMENT_RE.match(l) for l in lines)


# Which meanings are read where (the phrase table's `where`).
_SUMMARY_MEANINGS = ("bug-summary", "cosmetic-summary", "cleanup-summary", "dead-code-summary", "new-work-summary",
                     "build-break-summary")


def read_patch(patch: Patch, profile: Profile, calendar: Any = None) -> PatchReading:
    """The reading of one patch (see the module docstring)."""
    summary = description(patch)
    prose = sentences(prose_lines(patch))
    notes = sentences(line.strip() for line in patch.notes.splitlines() if line.strip() and not line.startswith(">"))
    hits: dict[str, PhraseHit] = {}
    for name in _SUMMARY_MEANINGS:
        found = meaning(name).first((summary,))
        if found is not None:
            hits[name] = found
    for name, texts in (("bug-prose", prose), ("no-bug", prose + notes), ("regression", (summary,) + prose)):
        found = meaning(name).first(texts)
        if found is not None:
            hits[name] = found
    if "regression" not in hits:
        tracked = _tracked_regression(patch)
        if tracked is not None:
            hits["regression"] = tracked
    crash = meaning("crash-report").first(tuple(patch.message_lines))
    files = patch.diff.files
    is_test, is_docs = profile.is_test_path, profile.is_docs_path
    only_tests = bool(files) and all(is_test(f.path) or is_docs(f.path) for f in files) and any(
        is_test(f.path) for f in files)
    removed = [l for f in files for l in f.removed_lines]
    return PatchReading(
        counter=patch.counter, summary=summary, prose=prose, notes=notes, hits=hits,
        crash=crash.text.strip() if crash else None,
        report=next((t for t in patch.trailers if t.key in ("reported-by", "closes")), None),
        fixes=fixes_tags(patch), reverted=reverted_commit(patch),
        new_work=tuple(diff_signals(patch, is_test=is_test, is_docs=is_docs)),
        test_infra=tuple(test_infra_signals(patch, is_test=is_test)) if only_tests else (),
        only_tests=only_tests, only_docs=bool(files) and all(is_docs(f.path) for f in files),
        comment_only=is_comment_only(patch),
        deletion_only=bool(files) and not patch.diff.insertions and bool(patch.diff.deletions),
        removes_release=any((m := _CALL_RE.match(l)) and any(w in m.group(1) for w in _RELEASE_WORDS) for l in removed),
        maintainers_only=bool(files) and all(f.path.rsplit("/", 1)[-1] in ("MAINTAINERS", "CREDITS", ".mailmap")
                                             for f in files),
        release_tag=_release_tag(patch, calendar),
        stable_tag=next((t for t in patch.subject.tags if _STABLE_TAG_RE.match(t)), None),
        lines=patch.diff.insertions + patch.diff.deletions,
    )


def every_hit(patch: Patch, reading: PatchReading) -> tuple[PhraseHit, ...]:
    """Every phrase of the table that counts in this patch, each once (benchmarks/rule_table.py)."""
    out: list[PhraseHit] = []
    for name, m in table().items():
        if name.endswith("-cover") and not patch.is_cover:
            continue
        texts = {"summary": (reading.summary,), "prose": reading.prose, "prose+notes": reading.prose + reading.notes,
                 "summary+prose": (reading.summary,) + reading.prose, "lines": tuple(patch.message_lines)}.get(m.where, ())
        out.extend(m.all(texts))
    return tuple(out)


def says_development_only(texts: list[str], fixes_tree: str, dev_tree: str) -> PhraseHit | None:
    """Where the author says the bug is only in `dev_tree` (or that they target it)."""
    found = []
    for text in texts:
        found += sentences(l.strip() for l in text.splitlines() if l.strip() and not l.startswith(">"))
    return templated("development-only", fixes_tree, dev_tree).first(found)
