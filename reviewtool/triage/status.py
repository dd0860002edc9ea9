"""Classify one reviewed series for a maintainer's queue: a pure function of the review.

Statuses, first match wins (a series gets exactly one; every reason found is kept):
- what the maintainers' replies settled (review.reply_state; with --repo, every patch found in
  the tree): applied, changes-requested (also a NAK, or an applier's request in words:
  context/replies/acts.py), deferred, rejected (or not applicable), superseded (set so by the
  maintainers);
- incomplete: patches of the series did not reach the archive (or only the cover letter did);
- wrong-tree: the tree verdict (reviewtool/verdict.py) says the series is aimed at the wrong tree;
- needs-revision: error-level findings, a reviewer asked for changes in words, or the author
  took the posting back (context/replies/acts.py; a request from someone who applies for the tree
  settles changes-requested there);
- ready: complete, every patch reviewed or acked by someone other than its author, no errors
  (and it applies, when a repository was given: a failed apply check is an error finding);
- needs-review: everything else.
A series that waits for someone (needs-review, needs-revision, wrong-tree, incomplete) and has
seen no mail for `stale_days` is stale instead (its status before that is kept as `was`): nobody
is acting on it. A settled state is never hidden so. Earlier revisions are superseded; that is decided by
grouping (triage/group.py), not here.

Reasons are data (a code plus values); the templates word them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # names for the hints: a triage run the store answers reads statuses only
    from ..model.series import Person, Series, Trailer

STATUSES = ("ready", "needs-review", "needs-revision", "wrong-tree", "incomplete", "changes-requested", "stale",
            "deferred", "applied", "rejected", "superseded")
# Statuses where the series waits for someone: those can go stale.
# A settled state (changes-requested) is what the series shows, however long it waits.
WAITING = frozenset({"needs-review", "needs-revision", "wrong-tree", "incomplete"})
# Rules whose absence means "applies" was not verified (they need a repository).
APPLY_RULES = frozenset({"series-applies", "apply-check", "does-not-apply"})


@dataclass(frozen=True)
class Classification:
    status: str
    reasons: tuple[dict[str, Any], ...]
    reviewed: tuple[int, ...] = ()  # counters of patches with an outside Reviewed-by/Acked-by
    reviewers: tuple[str, ...] = ()


def _outside_reviews(trailers: tuple[Trailer, ...], author: Person) -> list[Person]:
    from ..context.replies.acts import APPROVALS
    from ..model.series import same_person

    return [t.person for t in trailers
            if t.key in APPROVALS and t.person is not None and not t.address_problem
            and not same_person(t.person, author)]


def review_coverage(series: Series, in_words: tuple[dict[str, Any], ...] = ()) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Patches carrying a Reviewed-by/Acked-by from someone other than their author (in the
    patch, in a reply to it, or in a reply to the cover letter, which b4 applies to every patch),
    or reviewed in words by someone who applies for the tree (`in_words`: context/reply_acts
    approvals; one to the cover letter, or to a mail not known, counts for every patch)."""
    from ..mail.headers import mailbox

    cover_trailers = series.cover.followup_trailers if series.cover else ()
    reviewed, who = [], {}
    for p in series.patches:
        people = [(x.email.lower() or x.name, str(x))
                  for x in _outside_reviews(p.trailers + p.followup_trailers + cover_trailers, p.author)]
        people += [(mailbox(a["by"])[1].lower() or a["by"], a["by"]) for a in in_words
                   if a["patch"] in (None, 0, p.counter)]
        if people:
            reviewed.append(p.counter)
            for key, label in people:
                who.setdefault(key, label)
    return tuple(reviewed), tuple(who.values())


def _verdict_status(review) -> tuple[str | None, str | None]:
    """(status, next step) of the tree verdict, when this build computes one."""
    verdict = getattr(review, "verdict", None)
    if verdict is None:
        return None, None
    if isinstance(verdict, dict):
        return verdict.get("status"), verdict.get("next_step")
    return getattr(verdict, "status", None), getattr(verdict, "next_step", None)


def classify(review) -> Classification:
    """The status the review alone decides; staleness, which depends on the clock, is added at
    report time by `staleness` (so a stored review stays right on any later day)."""
    from ..rules.registry import Severity
    from ..settled_verdict import state_verdict

    series: Series = review.series
    reasons: list[dict[str, Any]] = []
    reviewed, reviewers = review_coverage(series, getattr(review, "reply_approvals", ()))
    errors = [f for f in review.findings if f.severity is Severity.ERROR]
    verdict, next_step = _verdict_status(review)

    if not series.patches:
        reasons.append({"code": "cover-only", "expected": series.expected})
    elif series.missing:
        reasons.append({"code": "missing", "missing": list(series.missing), "expected": series.expected})
    wrong_tree = verdict == "wrong-tree" or (verdict is None and any(f.rule == "tree-mismatch" for f in errors))
    if wrong_tree:
        reasons.append({"code": "wrong-tree", "tree": review.tree or series.tree, "next_step": next_step})
    if errors:
        reasons.append({"code": "errors", "count": len(errors), "rules": sorted({f.rule for f in errors})})
    settled = state_verdict(getattr(review, "reply_state", None))
    # what replies ask of the author (context/replies/acts.py); a settled state says it already
    asked = [] if settled is not None else list(getattr(review, "reply_requests", ()))
    reasons += asked
    applied = [f for f in review.findings if f.rule == "already-applied"]
    if applied:
        reasons.append({"code": "already-applied", "evidence": applied[0].message})
    unreviewed = [p.counter for p in series.patches if p.counter not in reviewed]
    if series.patches:
        reasons.append({"code": "reviewed" if not unreviewed else "unreviewed",
                        "reviewed": len(reviewed), "total": len(series.patches), "by": list(reviewers),
                        "missing": unreviewed})

    reasons += [{"code": "claim", **c} for c in getattr(review, "reply_claims", ())]
    if settled is not None:
        reasons.insert(0, {"code": "state", **review.reply_state})
    if settled is not None:
        status = settled[0]
    elif not series.patches or series.missing:
        status = "incomplete"
    elif wrong_tree:
        status = "wrong-tree"
    elif errors or asked or verdict == "needs-revision":
        status = "needs-revision"
    elif not unreviewed:
        status = "ready"
        skipped = sorted(n.rule for n in review.not_checked if n.rule in APPLY_RULES)
        if skipped or not any(r in APPLY_RULES for r in review.rules_run):
            reasons.append({"code": "apply-not-checked"})
    else:
        status = "needs-review"

    return Classification(status=status, reasons=tuple(reasons), reviewed=reviewed, reviewers=reviewers)


def staleness(status: str, reasons: list[dict[str, Any]], *, last_activity: datetime | None, now: datetime,
              stale_days: int) -> tuple[str, str | None, list[dict[str, Any]]]:
    """(status, was, reasons) at `now`: a series that waits for someone (WAITING) and has seen
    no mail for `stale_days` is stale, its status before that kept as `was` and the reason put
    first."""
    if status not in WAITING or last_activity is None:
        return status, None, reasons
    idle = (now - last_activity).total_seconds() / 86400
    if idle < stale_days:
        return status, None, reasons
    return "stale", status, [{"code": "stale", "days": int(idle), "limit": stale_days, "was": status,
                              "last": last_activity.astimezone(timezone.utc).isoformat()}, *reasons]
