"""One patch on its own: is it a fix, development work, a test or documentation, and on what basis?

`kind_of(reading, limit)` weighs a `PatchReading` (context/classify/reading.py) in a fixed order:

1. what the files are (tests only, documentation only);
2. a Fixes tag or a revert;
3. what the diff adds that only new work adds (a new file, Kconfig, a module parameter, uAPI);
   a diff that only changes comments (no code runs differently, whatever its summary says);
4. the summary: a bug it names beats the cosmetic words beside it ("fix refcount leak found by
   coccinelle" is a fix; "fix sparse warnings" is not), and a crash report in the message counts
   as a bug named;
5. a bug the message tells in its own sentences;
6. a clean-up: the diff only touches comments or removes unused code, the summary or the message
   says so (deleting a redundant free or unlock fixes a double release, so it is no clean-up);
7. new device IDs, then a new-work verb, a size past the profile's limit, or nothing at all.

The basis says how strong the verdict is: what the diff adds ("diff") or a clean-up ("cleanup")
may contradict the tree the author chose; a verb, a size or nothing at all may not (DECISIVE).
`not_needed(...)` is the evidence that a Fixes-tagged patch fixes no bug; evidence that a bug
happened (a crash report, a double release the diff removes) is asked first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diff_evidence import Signal, summarize
from ..phrases import PhraseHit, meaning
from .reading import PatchReading

# What a development kind may rest on to tell the author the tree is wrong: what the diff adds, a
# clean-up, a size past the profile's fix_size_limit.
DECISIVE = ("diff", "cleanup", "size")
# Summary words that name what went wrong (not only "fix"): they outweigh cosmetic words.
_STRONG_BUG = ("memory-safety", "failure")


@dataclass
class Kind:
    kind: str  # fix | development | test | docs
    basis: str  # diff | cleanup | tag | words | description | verb | size | device-id | default | test | docs
    reasons: list[str]
    evidence: list[str] = field(default_factory=list)
    cosmetic: Signal | None = None  # a docs change that only corrects wording
    phrases: tuple[str, ...] = ()  # the phrase-table entries it rests on ("bug-prose/leak")

    @property
    def decisive(self) -> bool:
        return self.basis in DECISIVE


def _lines_text(n: int) -> str:
    return f"{n} line" + ("s" if n != 1 else "")


def _said(hit: PhraseHit, what: str) -> Signal:
    return Signal(hit.key, what, hit.text, f"'{hit.words}'")


def _development(signals, lines: int, basis: str) -> Kind:
    return Kind("development", basis, [f"adds {summarize(list(signals))}", _lines_text(lines), "no Fixes tag"]
                + [s.reason for s in signals], [s.evidence for s in signals])


_SMALL_DELETION = 20  # lines: "remove redundant spin_unlock()" deletes a call, not a feature


def double_release(r: PatchReading) -> bool:
    """A small deletion, among it a free/put/unlock call, that the summary calls redundant or
    duplicated: the same thing was released twice."""
    return (r.deletion_only and r.removes_release and r.lines <= _SMALL_DELETION
            and r.hit("dead-code-summary") is not None)


def _cosmetic(r: PatchReading, subject: str) -> Signal | None:
    hit = r.hit("cosmetic-summary")
    if hit is None:
        return None
    bug = r.hit("bug-summary")
    if r.crash or (bug is not None and bug.phrase in _STRONG_BUG):
        return None  # the words name a bug; the tool or comment beside them says how it was found
    return Signal(hit.key, "a cosmetic change", subject, f"(the subject says '{hit.words}')")


def failure_named(r: PatchReading, subject: str) -> Signal | None:
    """The failure users meet that a patch names: its summary says what goes wrong ("fix
    use-after-free in teardown", "fix regression with ...", "fix deadlock") or its message quotes
    a crash report. Not a bare "fix" (of a log message, a loop, a warning): what a Fixes-tagged
    patch sent to the development tree is asked about."""
    bug = next((h for h in meaning("bug-summary").all((r.summary,)) if h.phrase in _STRONG_BUG), None)
    if bug is not None:  # "fix regression with ...": the words after the "fix" name the failure
        return Signal(bug.key, f"the subject says '{bug.words}'", subject)
    if r.crash:
        return Signal("crash-report/report", "the message quotes a crash report", r.crash)
    return None


def cleanup(r: PatchReading, subject: str) -> Signal | None:
    """A clean-up by its diff, its summary or its own words."""
    if r.comment_only:
        return Signal("comment-only", "the diff only changes comments", subject)
    dead = r.hit("dead-code-summary")
    if r.deletion_only and dead is not None and not r.removes_release:
        return Signal(dead.key, "removes unused code", subject, f"(only deletions; the subject says '{dead.words}')")
    words = r.hit("cleanup-summary")
    if words is not None and not (words.phrase == "unneeded" and double_release(r)):
        return Signal(words.key, "a clean-up or refactor", subject, f"(the subject says '{words.words}')")
    said = r.hit("no-bug")
    if said is not None:
        return _said(said, "the description says it fixes no reachable bug")
    return None


def kind_of(r: PatchReading, subject: str, limit: int) -> Kind:
    """The kind of one patch and what it rests on (see the module docstring)."""
    fixes_reason = [t.line + (" (given in a reply)" if t.from_reply else "") for t in r.fixes]
    if r.only_tests:
        if r.test_infra and not r.fixes:
            return _development(r.test_infra, r.lines, "diff")
        return Kind("test", "test", ["only touches tests"] + fixes_reason)
    if r.only_docs:
        shown = None if r.fixes else (_cosmetic(r, subject) or (
            Signal("comment-only", "a wording change", subject) if r.comment_only else None))
        return Kind("docs", "docs", ["only touches documentation"] + fixes_reason, cosmetic=shown)
    if r.fixes or r.reverted is not None:
        reasons = fixes_reason or ["reverts a commit" + (f" ({r.reverted})" if r.reverted else "")]
        if r.new_work:
            reasons.append(f"also adds {summarize(list(r.new_work))}")
        return Kind("fix", "tag", reasons, [t.line for t in r.fixes])
    if r.strong_new_work:
        return _development(r.new_work, r.lines, "diff")
    if r.comment_only:  # "fix the wrong comment", "add missing Return: to kernel-doc": no code runs differently
        return Kind("development", "cleanup", ["the diff only changes comments", _lines_text(r.lines), "no Fixes tag"],
                    [subject], phrases=("comment-only",))
    shown = _cosmetic(r, subject)
    if shown is not None:  # "fix typo in comment", "fix checkpatch warning": work on how code reads
        return Kind("development", "cleanup", [f"a cosmetic change {shown.detail}", _lines_text(r.lines),
                                               "no Fixes tag"], [shown.evidence], phrases=(shown.kind,))
    bug = r.hit("bug-summary")
    if bug is not None or r.crash:
        reasons, evidence, phrases = [], [], []
        if bug is not None:
            reasons.append(f"the subject says '{bug.words}'")
            evidence.append(subject)
            phrases.append(bug.key)
        if r.crash:
            reasons.append("the message quotes a crash report")
            evidence.append(r.crash)
            phrases.append("crash-report/report")
        elif bug is not None and bug.phrase not in _STRONG_BUG:  # a bare "fix": what goes wrong, if told
            told = r.hit("bug-prose")
            if told is not None:
                reasons.append(f"the description says '{told.words}'")
                evidence.append(told.text)
                phrases.append(told.key)
        return Kind("fix", "words", reasons + ["no Fixes tag"], evidence, phrases=tuple(phrases))
    told = r.hit("bug-prose")
    if told is not None:
        return Kind("fix", "description", [f"the description says '{told.words}'", "no Fixes tag"], [told.text],
                    phrases=(told.key,))
    if double_release(r):
        return Kind("fix", "diff", ["it only deletes code, a free/put/unlock call among it: a double release",
                                    "no Fixes tag"], [subject])
    tidy = cleanup(r, subject)
    if tidy is not None:
        return Kind("development", "cleanup", [tidy.reason, _lines_text(r.lines), "no Fixes tag"], [tidy.evidence],
                    phrases=(tidy.kind,))
    if r.new_work:  # only device IDs: stable rules take new IDs, so either tree may apply them
        return Kind("development", "device-id", [f"adds {summarize(list(r.new_work))}", _lines_text(r.lines),
                                                 "no Fixes tag", "new device IDs are taken by either tree"],
                    [s.evidence for s in r.new_work])
    verb = r.hit("new-work-summary")
    if verb is not None:
        big = r.lines > limit
        return Kind("development", "size" if big else "verb",
                    [f"the subject says '{verb.words}'", _lines_text(r.lines) + (f" (over {limit})" if big else ""),
                     "no Fixes tag"], [subject], phrases=(verb.key,))
    return Kind("development", "default", ["no Fixes tag", "nothing in the subject or message describes a bug"])


def not_needed(r: PatchReading, subject: str, cover_says: Signal | None) -> Signal | None:
    """Evidence that a patch carrying Fixes fixes no bug: its diff only touches comments or removes
    unused code, its words call it a clean-up or unreachable, or the cover letter does. A crash
    report, or a double release the diff removes, says the bug was real."""
    if not r.fixes or r.crash or double_release(r):
        return None
    if r.comment_only:
        return Signal("comment-only", "the diff only changes comments", subject)
    said = r.hit("no-bug")
    if said is not None:
        return _said(said, "the description says it fixes no reachable bug")
    bug = r.hit("bug-summary")
    if r.hit("bug-prose") is not None or (bug is not None and bug.phrase in _STRONG_BUG):
        return None
    dead = r.hit("dead-code-summary")
    if r.deletion_only and dead is not None:
        return Signal(dead.key, "removes unused code", subject, f"(only deletions; the subject says '{dead.words}')")
    if cover_says is not None:
        return cover_says
    if bug is not None:
        return None
    cos = r.hit("cosmetic-summary")
    if cos is not None:
        return Signal(cos.key, "a cosmetic change", subject, f"(the subject says '{cos.words}')")
    words = r.hit("cleanup-summary")
    if words is not None:
        return Signal(words.key, "a clean-up or refactor", subject, f"(the subject says '{words.words}')")
    return None
