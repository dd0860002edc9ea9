"""What the replies ask of the author, in words: a request for changes, or the author's own
withdrawal. A context stage, read by `check`'s verdict and triage's status alike, so both say
the same thing of one thread.

- a request for changes: a reply, not from the series' author or sender, that says
  "changes requested" or asks for another posting or a change (the `change-request` phrases),
  unless its sender gave a Reviewed-by/Acked-by in it or later, or took it as it is ("no need to
  resend", "I will fix this up locally": the `fixed-up` phrases), or the author answered with the
  changed code in the thread (a diff in their reply): the request was met, or a nit.
  The first from someone who applies for the tree is the one reported, else the first. From someone who applies patches for the tree (settled.applier_check) it settles the
  series as changes requested, as the patchwork state would; from anyone else it is an objection
  that keeps the series from "apply it" (needs-revision).
- a withdrawal: the author's own reply that takes the posting back (the `withdrawal` phrases), or
  a promise: one that promises another revision or owns a reported fault ("I will respin this
  series", "sorry about that": the `revision-promised` phrases). Either waits for the author.
- a rejection: someone who applies for the tree saying it will not be applied ("I'm dropping
  this", "... or just don't bother", "I've flagged as N/A in patchwork": the `rejection`
  phrases; the author's own only when they apply for the tree). It settles the series as
  rejected, and decides over a request for changes. Said of one patch of several, it drops that
  patch, not the series: not read here.

`fields["reply_requests"]` holds them (request first), each {"code", "by", "msgid", "evidence",
"patch"} and, for a request, "applier"; `fields["reply_state"]`, when no reply form settled the
series, becomes the applier's request. `fields["reply_approvals"]`: the reviews in words of those
who apply for the tree ("LGTM", "this looks good now": the `approval` phrases), which triage
counts as reviews.
"""

from __future__ import annotations

import re
from typing import Any

from ...mail.replies import Address
from ...model.series import name_key, same_person
from ..phrases import meaning, sentences
from .settled import applier_check

STAGE_ORDER = 71  # after reply_state: a reply form that settled the series says it already
# A reviewer's approval of the patch (a Tested-by says it works, not that it is right).
APPROVALS = frozenset({"reviewed-by", "acked-by"})
_CHANGES_RE = re.compile(r"\bchanges\s+requested\b", re.I)


def by_author(series, person) -> bool:
    """Whether `person` is the series' author or its sender (their replies ask nothing of them)."""
    first = series.first
    return first is not None and (same_person(person, first.author) or same_person(person, first.sender))


def _quote(sentence: str) -> str:
    words = " ".join(sentence.split())
    return words if len(words) <= 120 else words[:117] + "..."


# A diff in a reply's own words (not quoted): a hunk header or git's diff line.
_DIFF_RE = re.compile(r"^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+)", re.M)


class _Answers:
    """Whether a request is met since it was made: the person who asked gave a review trailer in
    that reply or a later one, or said they take it as it is ("no need to resend", "I will fix
    this up locally": the `fixed-up` phrases); or the author answered with the changed code in the
    thread (the split patches as replies, "how about this?" with a diff): the request is answered,
    the new code waits for a review.

    Read once per series: the latest reply of the author's with a diff, and for each address and
    name (same_person's two ways) the latest of their replies that answers, and whether one is
    undated. Each request was checked against every reply: 4,000 requests in a thread, minutes."""

    def __init__(self, series) -> None:
        self.code = max((r.date for r in series.replies if r.date and by_author(series, r.author)
                         and _DIFF_RE.search(r.body)), default=None)
        self.replies: dict[tuple[str, str], list] = {}
        for r in series.replies:
            for key in _keys(r.author):
                self.replies.setdefault(key, []).append(r)
        self.fixed_up = meaning("fixed-up")
        self.answers: dict[tuple[str, str], tuple[bool, bool, Any]] = {}

    def _answers(self, key: tuple[str, str]) -> tuple[bool, bool, Any]:
        """(any reply that answers, any of them undated, the latest date) of one address or name."""
        found = self.answers.get(key)
        if found is None:
            replies = [r for r in self.replies.get(key, ()) if any(t.key in APPROVALS for t in r.trailers)
                       or self.fixed_up.first(sentences(r.body.splitlines()))]
            found = self.answers[key] = (bool(replies), any(r.date is None for r in replies),
                                         max((r.date for r in replies if r.date), default=None))
        return found

    def met(self, asked) -> bool:
        if self.code is not None and asked.date and self.code > asked.date:
            return True
        for key in _keys(asked.author):
            some, undated, latest = self._answers(key)
            if some and (undated or not asked.date or latest >= asked.date):
                return True
        return False


def _keys(person) -> list[tuple[str, str]]:
    """What same_person matches on: the address (any case), the name (name_key)."""
    return ([("address", person.email.lower())] if person.email else []) + \
        ([("name", name_key(person.name))] if person.name else [])


def change_requests(series, only=None) -> list[tuple[Any, str]]:
    """(the reply, its words) of each request for changes not met since, oldest first (see the
    module docstring); `only`: of the repliers whose Address it accepts (the others are not read)."""
    asks = meaning("change-request")
    out = []
    answers = _Answers(series)
    for r in series.replies:
        if by_author(series, r.author):
            continue
        if only is not None and not only(Address(r.author.name, (r.author.email or "").lower())):
            continue
        m = _CHANGES_RE.search(r.body)
        hit = None if m else asks.first(sentences(r.body.splitlines()))
        if m is None and hit is None:
            continue
        if hit is not None and answers.met(r):
            continue
        out.append((r, m.group(0).strip() if m else _quote(hit.text)))
    return out


def withdrawal(series) -> tuple[str, Any, str] | None:
    """(code, the reply, its words) of the author's first reply that takes the posting back
    ("withdrawn") or promises another revision ("will-revise")."""
    takes_back, promises = meaning("withdrawal"), meaning("revision-promised")
    for r in series.replies:
        if not by_author(series, r.author):
            continue
        said = sentences(r.body.splitlines())
        hit = takes_back.first(said)
        code = "withdrawn"
        if hit is None:
            hit, code = promises.first(said), "will-revise"
        if hit is not None:
            return code, r, _quote(hit.text)
    return None


def rejection(series, is_applier) -> tuple[Any, str] | None:
    """(the reply, its words) of the first reply from an applier (the author too, when they apply
    for the tree) that says the posting will not be applied (see the module docstring)."""
    refuses = meaning("rejection")
    several = len(series.patches) > 1
    for r in series.replies:
        if not is_applier(Address(r.author.name, (r.author.email or "").lower())):
            continue  # the author's own words count only when they apply for the tree themselves
        if several and r.counter:
            continue  # "I'm dropping it" on patch 8 of 8 drops that patch; the rest may well be applied
        hit = refuses.first(sentences(r.body.splitlines()))
        if hit is not None:
            return r, _quote(hit.text)
    return None


def approvals(series, asking: set[str], is_applier) -> tuple[dict[str, Any], ...]:
    """The reviews in words (the `approval` phrases) of those who apply for the tree, each
    {"by", "patch", "evidence"} (patch: the mail it answers, None or 0 for the whole series);
    never from the author, nor in a reply that also asks for a change (`asking`: their msgids)."""
    approve = meaning("approval")
    out = []
    for r in series.replies:
        if r.msgid in asking or by_author(series, r.author) \
                or not is_applier(Address(r.author.name, (r.author.email or "").lower())):
            continue
        hit = approve.first(sentences(r.body.splitlines()))
        if hit is not None:
            out.append({"by": str(r.author), "patch": None if hit.whole_series else r.counter,
                        "evidence": _quote(hit.text)})
    return tuple(out)


def rfc_lifted(series, is_applier) -> tuple[Any, str] | None:
    """(the reply, its words) of the first reply from an applier or the author that takes the RFC tag
    off ("let's ignore the RFC label for this v2"): the posting is then one for applying."""
    if not series.is_rfc:
        return None
    lifts = meaning("rfc-lifted")
    for r in series.replies:
        if by_author(series, r.author) or is_applier(Address(r.author.name, (r.author.email or "").lower())):
            hit = lifts.first(sentences(r.body.splitlines()))
            if hit is not None:
                return r, _quote(hit.text)
    return None


def _act(code: str, reply, evidence: str, **extra) -> dict[str, Any]:
    return {"code": code, "by": str(reply.author), "msgid": reply.msgid, "evidence": evidence,
            "patch": reply.counter, **extra}


def requested_state(act: dict[str, Any], date, state: str = "changes-requested") -> dict[str, Any]:
    """An applier's request (or rejection) as the series' state (the shape of settled.state_data)."""
    return {"state": state, "tree": None, "tree_words": None, "branch": None, "by": act["by"],
            "date": date.isoformat() if date else None, "patches": None,
            "applied": [], "not_applied": [], "open": [], "commits": [], "reason": act["evidence"],
            "form": "rejection" if state == "rejected" else "change-request", "msgid": act["msgid"], "evidence": act["evidence"]}


def _request(asked, is_applier) -> tuple[dict[str, Any], Any] | None:
    """(the request for changes reported, its date) of `asked` (change_requests): the applier's
    decides what becomes of the posting; else the first reviewer's."""
    if not asked:
        return None
    by_applier = [is_applier(Address(r.author.name, (r.author.email or "").lower())) for r, _ in asked]
    (reply, words), applier = next(((a, True) for a, ok in zip(asked, by_applier) if ok), (asked[0], False))
    return _act("asked-for-changes", reply, words, applier=applier), reply.date


def state_in_words(series, is_applier) -> dict[str, Any] | None:
    """The state an applier's words settle for a posting no reply form settled, as context_stage
    reads it for the triaged series: a rejection, else a request for changes not met since
    (triage reads its superseded postings so: triage/earlier_postings.py)."""
    refused = rejection(series, is_applier)
    if refused is not None:
        return requested_state(_act("rejected", *refused, applier=True), refused[0].date, "rejected")
    asked = _request(change_requests(series, only=is_applier), is_applier)  # only an applier's settles
    return requested_state(*asked) if asked is not None else None


def context_stage(series, options, fields: dict[str, Any]) -> None:
    acts = []
    asked = change_requests(series)
    is_applier = applier_check(fields["profile"], fields.get("maintainers"), series)
    fields["reply_approvals"] = approvals(series, {r.msgid for r, _ in asked}, is_applier)
    request = _request(asked, is_applier)
    if request is not None:
        act, date = request
        acts.append(act)
        if act["applier"] and fields.get("reply_state") is None:
            fields["reply_state"] = requested_state(act, date)
    refused = rejection(series, is_applier)
    if refused is not None:
        act = _act("rejected", *refused, applier=True)
        acts.append(act)
        settled = fields.get("reply_state")
        if settled is None or settled.get("form") == "change-request":
            fields["reply_state"] = requested_state(act, refused[0].date, "rejected")
    taken_back = withdrawal(series)
    if taken_back is not None:
        acts.append(_act(*taken_back))
    fields["reply_requests"] = tuple(acts)
    lifted = rfc_lifted(series, is_applier)
    if lifted is not None:
        fields["rfc_lifted"] = _act("rfc-lifted", *lifted)
