"""One patch on its own: is it a fix, development work, a test or documentation, and on what basis?

`kind_of(patch, tags, profile, limit)` weighs the signals of classify_signals.py and classify_words.py in
a fixed order. The basis says how strong the verdict is: what the diff adds ("diff") or a clean-up
("cleanup") may contradict the tree the author chose; a subject verb, a size or nothing at all may
not (DECISIVE). `not_needed(...)` is the evidence that a Fixes-tagged patch fixes no bug.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.series import Patch
from .classify_signals import (FixesTag, Signal, cleanup_words, dev_verb, diff_signals, fix_words, reverted_commit,
                               summarize, test_infra_signals)
from .classify_words import (bug_in_description, comment_only, cosmetic, dead_code_removal, no_bug_said)
from .profiles import Profile

# What a development kind may rest on to tell the author the tree is wrong: what the diff adds, a
# clean-up, a size past the profile's fix_size_limit.
DECISIVE = ("diff", "cleanup", "size")


@dataclass
class Kind:
    kind: str  # fix | development | test | docs
    basis: str  # diff | cleanup | tag | words | description | verb | size | device-id | default | test | docs
    reasons: list[str]
    evidence: list[str] = field(default_factory=list)
    cosmetic: Signal | None = None  # a docs change that only corrects wording

    @property
    def decisive(self) -> bool:
        return self.basis in DECISIVE


def _lines_text(n: int) -> str:
    return f"{n} line" + ("s" if n != 1 else "")


def _development(signals: list[Signal], lines: int, basis: str) -> Kind:
    return Kind("development", basis, [f"adds {summarize(signals)}", _lines_text(lines), "no Fixes tag"]
                + [s.reason for s in signals], [s.evidence for s in signals])


def _cleanup(patch: Patch) -> Signal | None:
    """A clean-up by its diff, its subject or its own words (cosmetic subjects are asked first)."""
    if comment_only(patch):
        return Signal("comment-only", "the diff only changes comments", patch.subject.raw)
    return dead_code_removal(patch) or cleanup_words(patch) or no_bug_said(patch)


def kind_of(patch: Patch, tags: tuple[FixesTag, ...], profile: Profile, limit: int) -> Kind:
    """The kind of one patch (`tags`: its Fixes tags) and what it rests on (see the module docstring)."""
    files = patch.diff.files
    lines = patch.diff.insertions + patch.diff.deletions
    is_test, is_docs = profile.is_test_path, profile.is_docs_path
    fixes_reason = [t.line + (" (given in a reply)" if t.from_reply else "") for t in tags]
    if files and all(is_test(f.path) or is_docs(f.path) for f in files) and any(is_test(f.path) for f in files):
        infra = [] if tags else test_infra_signals(patch, is_test=is_test)
        if infra:
            return _development(infra, lines, "diff")
        return Kind("test", "test", ["only touches tests"] + fixes_reason)
    if files and all(is_docs(f.path) for f in files):
        return Kind("docs", "docs", ["only touches documentation"] + fixes_reason,
                    cosmetic=None if tags else (cosmetic(patch) or (Signal("comment-only", "a wording change",
                                                                           patch.subject.raw)
                                                                    if comment_only(patch) else None)))
    dev = diff_signals(patch, is_test=is_test, is_docs=is_docs)
    strong_dev = [s for s in dev if s.kind != "device-id"]
    reverted = reverted_commit(patch)
    if tags or reverted is not None:
        reasons = fixes_reason or ["reverts a commit" + (f" ({reverted})" if reverted else "")]
        if dev:
            reasons.append(f"also adds {summarize(dev)}")
        return Kind("fix", "tag", reasons, [t.line for t in tags])
    if strong_dev:
        return _development(dev, lines, "diff")
    shown = cosmetic(patch)
    if shown is not None:  # "fix typo in comment", "fix checkpatch warning": work on how code reads
        return Kind("development", "cleanup", [f"a cosmetic change {shown.detail}", _lines_text(lines), "no Fixes tag"],
                    [shown.evidence])
    words = [s for s in fix_words(patch) if s.kind in ("subject", "crash")]  # a Reported-by may request a feature
    if words:
        return Kind("fix", "words", [s.reason for s in words] + ["no Fixes tag"], [s.evidence for s in words])
    bug = bug_in_description(patch)
    if bug is not None:
        return Kind("fix", "description", [f"{bug.reason}", "no Fixes tag"], [bug.evidence])
    tidy = _cleanup(patch)
    if tidy is not None:
        return Kind("development", "cleanup", [tidy.reason, _lines_text(lines), "no Fixes tag"], [tidy.evidence])
    if dev:  # only device IDs: stable rules take new IDs, so either tree may apply them
        return Kind("development", "device-id", [f"adds {summarize(dev)}", _lines_text(lines), "no Fixes tag",
                                                 "new device IDs are taken by either tree"], [s.evidence for s in dev])
    verb = dev_verb(patch)
    if verb:
        big = lines > limit
        return Kind("development", "size" if big else "verb",
                    [verb.reason, _lines_text(lines) + (f" (over {limit})" if big else ""), "no Fixes tag"],
                    [verb.evidence])
    return Kind("development", "default", ["no Fixes tag", "nothing in the subject or message describes a bug"])


def not_needed(patch: Patch, tags: tuple[FixesTag, ...], cover_says: Signal | None) -> Signal | None:
    """Evidence that a patch carrying Fixes (`tags`) fixes no bug: its diff only touches comments or
    removes unused code, its words call it a clean-up or unreachable, or the cover letter does."""
    if not tags:
        return None
    if comment_only(patch):
        return Signal("comment-only", "the diff only changes comments", patch.subject.raw)
    said = no_bug_said(patch)
    if said is not None:
        return said
    found = dead_code_removal(patch) or cover_says
    if found is not None:
        return found
    if fix_words(patch) or bug_in_description(patch):
        return None
    return cosmetic(patch) or cleanup_words(patch)
