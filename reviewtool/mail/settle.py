"""What the maintainers' replies settled for one posting of a series: pure, over plain values.

    settle(patches, answers) -> PostingState | None

`patches`: the posting's mails as PostingPatch(msgid, counter, summary) (counter 0: the cover
letter; an empty sequence: the posting is not in the input, as for replies whose patch the
archive lacks). `answers`: Answer(action, counter) for each trusted reply (replies.ReplyAction;
counter: the posting's mail it answers, 0 for the cover letter, None when unknown). Whom to
trust is the caller's choice (ReplyAction.trust).

Which patches a reply settles: the ones it names (by `[N/M]` when M is the posting's size, else
by subject: the same summary, or one ending with the other, since maintainers add a prefix such
as "wifi: " when they apply), else the mail it answers (the cover letter: all of them). A patch's
latest reply decides its state. The posting's state: a state that asks something of the author
or ends the posting (changes requested, NAK, rejected, deferred, superseded, not applicable) on
any patch, else applied when some patch was applied; `open` lists the patches no reply settled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .replies import ReplyAction
from .reply_lists import PatchRef

# When patches of one posting end in different states, the first of these decides.
PRECEDENCE = ("changes-requested", "nak", "rejected", "deferred", "superseded", "not-applicable", "applied")
_PREFIX_RE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")


@dataclass(frozen=True)
class PostingPatch:
    msgid: str
    counter: int
    summary: str


@dataclass(frozen=True)
class Answer:
    action: ReplyAction
    counter: int | None


@dataclass(frozen=True)
class PostingState:
    state: str
    action: ReplyAction  # the latest reply that set `state`
    counters: tuple[int, ...]  # the patches in `state` (empty: the posting's patches are unknown)
    applied: tuple[int, ...]  # patches a reply applied
    not_applied: tuple[int, ...]  # patches a reply named as not applied
    open: tuple[int, ...]  # patches no reply settled
    total: int  # patches in the posting (cover letter not counted)
    replies: tuple[ReplyAction, ...]  # every reply that settled something, oldest first

    @property
    def whole(self) -> bool:
        return not self.open and not self.not_applied and len(self.counters) == self.total


def norm(summary: str | None) -> str:
    """A subject's summary for matching: no [PATCH ...] prefix, one space, lower case."""
    return " ".join(_PREFIX_RE.sub("", summary or "").split()).lower()


def _by_subject(ref: PatchRef, patches: Sequence[PostingPatch]) -> int | None:
    want = norm(ref.subject)
    if not want:
        return None
    exact = [p.counter for p in patches if norm(p.summary) == want]
    if exact:
        return exact[0]
    near = [p.counter for p in patches if (s := norm(p.summary)) and (want.endswith(s) or s.endswith(want))]
    return near[0] if len(near) == 1 else None


def _named(refs: tuple[PatchRef, ...], patches: Sequence[PostingPatch]) -> dict[int, PatchRef]:
    real = [p for p in patches if p.counter > 0]
    counters = {p.counter for p in real}
    out: dict[int, PatchRef] = {}
    for ref in refs:
        if ref.counter is not None and ref.total == len(real) and ref.counter in counters:
            out[ref.counter] = ref
            continue
        c = _by_subject(ref, real)
        if c is None and len(real) == 1 and len(refs) == 1:
            c = real[0].counter  # one patch, one commit: the maintainer reworded the subject
        if c is not None:
            out.setdefault(c, ref)
    return out


def targets(a: Answer, patches: Sequence[PostingPatch]) -> dict[int, PatchRef | None]:
    """{counter: the entry of the reply's list that names it, None when the reply settles the
    mail it answers} for the patches `a` settles (what the maintainers' tools listed as the
    commit, with the subject it got, is in the entry)."""
    real = sorted(p.counter for p in patches if p.counter > 0)
    if a.action.patches:
        named = _named(a.action.patches, patches)
        if named:
            return dict(named)
    if a.counter and a.counter in real:
        return {a.counter: None}
    return {c: None for c in real}


def _targets(a: Answer, patches: Sequence[PostingPatch]) -> dict[int, bool]:
    """{counter: applied?} for the patches `a` settles."""
    return {c: ref.applied if ref is not None else True for c, ref in targets(a, patches).items()}


def settle(patches: Sequence[PostingPatch], answers: Sequence[Answer]) -> PostingState | None:
    """The posting's state from its trusted replies (see the module docstring), or None."""
    if not answers:
        return None
    ordered = sorted(answers, key=lambda a: (a.action.date is None, a.action.date.timestamp() if a.action.date else 0))
    total = sum(1 for p in patches if p.counter > 0)
    if not total:  # the posting is not in the input: the latest reply decides
        last = ordered[-1].action
        return PostingState(state=last.state, action=last, counters=(), applied=(), not_applied=(), open=(),
                            total=0, replies=tuple(a.action for a in ordered))
    state: dict[int, tuple[str, ReplyAction]] = {}
    applied: set[int] = set()
    refused: set[int] = set()
    for a in ordered:
        for c, ok in _targets(a, patches).items():
            if a.action.state == "applied" and not ok:
                refused.add(c)
                continue
            state[c] = (a.action.state, a.action)
            (applied.add if a.action.state == "applied" else applied.discard)(c)
    if not state:
        return None
    chosen = next(s for s in PRECEDENCE if any(v[0] == s for v in state.values()))
    counters = tuple(sorted(c for c, v in state.items() if v[0] == chosen))
    action = max((state[c][1] for c in counters), key=lambda x: x.date.timestamp() if x.date else 0)
    real = sorted(p.counter for p in patches if p.counter > 0)
    return PostingState(state=chosen, action=action, counters=counters, applied=tuple(sorted(applied)),
                        not_applied=tuple(sorted(refused - set(state))),
                        open=tuple(c for c in real if c not in state and c not in refused), total=total,
                        replies=tuple(a.action for a in ordered))
