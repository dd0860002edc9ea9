"""Review state: which review trailers the thread holds, and which ones b4 would lose."""

from __future__ import annotations

import re

from ..model.series import Patch, Reply, Series, Trailer
from ..model.series import same_person
from .registry import Hit, rule
from .trailerlib import REVIEW_KEYS, accepted_by_b4, already_in_patch, corrected_line, mismatches_from


def _mismatched(series: Series, reply: Reply, t: Trailer) -> bool:
    """b4 listed it as sent by someone other than the person it names (or we see the same)."""
    if t.person and t.person.email:
        named = t.person.email.lower()
        if any(name == t.key and named in value for name, value in mismatches_from(series, reply.author.email)):
            return True
    return t.person is not None and not same_person(t.person, reply.author)


def _below_signature(reply: Reply, t: Trailer) -> bool:
    sig = re.search(r"^-- $", reply.body, re.M)
    return bool(sig) and t.line in reply.body[sig.end():]


def drop_reason(series: Series, patch: Patch, reply: Reply, t: Trailer) -> str | None:
    """Why b4 did not collect a reply's review trailer; None when it did, or when we cannot tell."""
    if accepted_by_b4(series, patch, reply, t) or already_in_patch(series, patch, t):
        return None
    if t.address_problem:
        return f"the address is malformed ({t.address_problem})"
    if not re.match(r"^\S+:\s", t.line):
        return "there is no space after the colon, so b4 does not read it as a trailer"
    if _below_signature(reply, t):
        return "it is below the reply's `-- ` signature line, where b4 stops reading"
    if _mismatched(series, reply, t):
        return (f"it was sent by {reply.author}, not by {t.person}; b4 only collects a trailer from the "
                "person it names")
    return None


def _drop_advice(series: Series, reply: Reply, t: Trailer, reason: str) -> str:
    if reason.startswith("it was sent by"):
        return (f"Ask {t.person} to confirm on the list, or add `{t.line}` by hand if {reply.author} may "
                "relay it (e.g. from an internal review); `b4 am -S` would take it as well.")
    fixed = corrected_line(t, series)
    if fixed:
        return f"Add `{fixed}` by hand when applying the patch."
    return f"Add `{t.name}: {t.person.name if t.person else t.value} <real address>` by hand when applying."


@rule("review-trailer-dropped", family="review", severity="warning",
      summary="A reply's Reviewed-by/Acked-by/Tested-by that b4 does not collect")
def review_trailer_dropped(series, ctx):
    """Why: b4 (b4 am, b4 trailers -u, b4 shazam) silently skips reply trailers it cannot use: a
    malformed or archive-obfuscated address, a trailer sent by someone other than the person it
    names, no space after the colon, a line under the signature. The maintainer then applies the
    patch without a review the thread contains. Each finding names the reply and the reason.
    Source: reference b4-library.md (find_trailers, get_trailers and trailer_mismatches);
    kernel submitting-patches ("Using Reported-by:, Tested-by:, Reviewed-by: ...").
    Bad:
      Reviewed-by: Some Reviewer <some@some@xxxxxxxxxx>     (b4: dropped, address unusable)
    Good:
      Reviewed-by: Some Reviewer <some@example.org>
    """
    for r in series.replies:
        p = series.patch(r.counter) if r.counter is not None else None
        if p is None:
            continue
        for t in r.trailers:
            if t.key not in REVIEW_KEYS:
                continue
            reason = drop_reason(series, p, r, t)
            if reason:
                yield Hit(f"b4 does not collect this {t.name}: {reason}", patch=r.counter,
                          evidence=(t.line, f"in reply <{r.msgid}> from {r.author}"),
                          advice=_drop_advice(series, r, t, reason))


def _reviews(series: Series, p: Patch, cover_followups: tuple[Trailer, ...]) -> list[str]:
    out = []
    for t in p.trailers:
        if t.key in REVIEW_KEYS:
            out.append(f"{t.name} {t.person.name if t.person and t.person.name else t.value} (in the patch)")
    from_cover = set(cover_followups)  # asked of every trailer: a tuple's `in` was quadratic
    for t in p.followup_trailers + cover_followups:
        if t.key in REVIEW_KEYS and not already_in_patch(series, p, t):
            where = "reply to the cover letter" if t in from_cover else "reply"
            flag = ", address malformed" if t.address_problem else ""
            out.append(f"{t.name} {t.person.name if t.person and t.person.name else t.value} ({where}{flag})")
    return out


def _relayed(p: Patch) -> str:
    """A patch passed on by a handler (a maintainer's pull-style posting) is not unreviewed work."""
    if not same_person(p.sender, p.author) and any(
            t.key == "signed-off-by" and same_person(p.sender, t.person) for t in p.trailers):
        return f" (relayed by {p.sender.name or p.sender.email}, who signed off)"
    return ""


@rule("review-coverage", family="review", severity="info",
      summary="Which patches carry Reviewed-by/Acked-by/Tested-by, and from whom")
def review_coverage(series, ctx):
    """Why: Before applying, a maintainer wants to know which patches someone else has looked
    at: trailers in the patches and those given in replies (a trailer on the cover letter
    counts for every patch, as b4 applies it). Trailers b4 drops are not counted (see
    review-trailer-dropped).
    Source: maintainer practice; b4 am's trailer collection (reference b4-library.md).
    Bad:
      1/3 Reviewed-by: Rob Reviewer   2/3 Acked-by: Maria Maintainer   3/3 (none)
    Good:
      every patch carries at least one Reviewed-by, Acked-by or Tested-by
    """
    if not series.patches:
        return
    cover_followups = tuple(t for t in (series.cover.followup_trailers if series.cover else ())
                            if t.key in REVIEW_KEYS)
    lines, bare = [], []
    for p in series.patches:
        reviews = _reviews(series, p, cover_followups)
        label = f"{p.counter}/{series.expected}"
        lines.append(f"{label}: " + ("; ".join(reviews) if reviews else "none" + _relayed(p)))
        if not reviews:
            bare.append(label)
    covered = len(series.patches) - len(bare)
    if len(series.patches) == 1:
        message = ("the patch carries a review trailer" if covered
                   else "the patch carries no Reviewed-by, Acked-by or Tested-by yet")
    elif not bare:
        message = f"all {covered} patches carry a review trailer"
    elif not covered:
        message = "no patch carries Reviewed-by, Acked-by or Tested-by yet"
    else:
        message = f"{covered} of {len(series.patches)} patches carry a review trailer; none on " + ", ".join(bare)
    if not bare:
        advice = "Pick up the reply trailers when applying (`b4 am` or `b4 trailers -u` collects them)."
    elif not covered:
        advice = "Wait for a review, or review the code yourself, before applying."
    else:
        advice = f"Get a review of {', '.join(bare)} before applying, or review it yourself."
    yield Hit(message, evidence=tuple(lines), advice=advice)
