"""The review as plain data: the JSON output and the input of every template."""

from __future__ import annotations

from typing import Any

from .. import TOOL_NAME, __version__
from ..model.series import Patch, Trailer
from ..rules.registry import Severity


def _trailer(t: Trailer) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.name, "value": t.value}
    if t.address_problem:
        out["address_problem"] = t.address_problem
    if t.source_msgid:
        out["msgid"] = t.source_msgid
    return out


def patch_data(p: Patch) -> dict[str, Any]:
    return {
        "counter": p.counter,
        "subject": p.subject.raw,
        "author": str(p.author),
        "msgid": p.msgid,
        "date": p.date.isoformat() if p.date else None,
        "files": [f.path for f in p.diff.files],
        "insertions": p.diff.insertions,
        "deletions": p.diff.deletions,
        "trailers": [_trailer(t) for t in p.trailers],
        "followup_trailers": [_trailer(t) for t in p.followup_trailers],
    }


def reply_data(first: Patch | None, full_subject: str) -> dict[str, Any] | None:
    """The headers of a reply to the series (to the cover letter, else patch 1): to its sender,
    copying everyone it was sent to, threaded under it."""
    if first is None:
        return None
    from ..mail.headers import address_of

    seen: set[str] = set()
    to, cc = [], []
    for bucket, addresses in ((to, (str(first.sender),)), (cc, first.to + first.cc)):
        for address in addresses:
            key = address_of(address).lower()
            if address.strip() and key not in seen:
                seen.add(key)
                bucket.append(address.strip())
    references = list(dict.fromkeys(r for r in (*first.references, first.msgid) if r))
    return {"subject": f"Re: {full_subject}", "to": to, "cc": cc, "in_reply_to": first.msgid,
            "references": references}


def review_data(review) -> dict[str, Any]:
    s = review.series
    first = s.first
    return {
        "tool": TOOL_NAME,
        "version": __version__,
        "series": {
            "subject": s.subject,
            "full_subject": first.subject.raw if first else "",
            "msgid": s.msgid,
            "revision": s.revision,
            "tree": review.tree,
            "tags": list(first.subject.tags) if first else [],
            "profile": review.profile.name,
            "profile_reason": review.profile_reason,
            "expected": s.expected,
            "received": list(s.received),
            "missing": list(s.missing),
            "has_cover": s.has_cover,
            "base_commit": s.base_commit or s.base_commit_raw,
            "change_id": s.change_id,
            "author": str(first.author) if first else "",
            "date": first.date.isoformat() if first and first.date else None,
            "earlier_revisions": [e.revision for e in s.earlier],
            "source": s.source,
        },
        "reply": reply_data(first, first.subject.raw if first else ""),
        "cover": patch_data(s.cover) if s.cover else None,
        "patches": [patch_data(p) for p in s.patches],
        "findings": [
            {"rule": f.rule, "severity": f.severity.value, "patch": f.patch, "message": f.message,
             "evidence": list(f.evidence), "advice": f.advice, **({"commit": f.commit} if f.commit else {})}
            for f in review.findings
        ],
        "summary": {
            "errors": review.count(Severity.ERROR),
            "warnings": review.count(Severity.WARNING),
            "infos": review.count(Severity.INFO),
            "not_checked": [f"{n.rule}: {n.reason}" for n in review.not_checked],
            "notes": list(s.notes) + list(review.context_notes),
        },
        "verdict": verdict_data(getattr(review, "verdict", None)),
        "state": getattr(review, "reply_state", None),
        **review.extras,
    }


def verdict_data(v) -> dict[str, Any] | None:
    """verdict.Verdict as data: status, next step, and each patch's kind, reasons and tree."""
    if v is None:
        return None
    return {"status": v.status, "next_step": v.next_step, "decided_by": v.decided_by,
            "patches": [{"counter": p.counter, "kind": p.kind, "reasons": list(p.reasons), "tree": p.tree,
                         "declared": p.declared, "certain": p.certain, "basis": p.basis,
                         "phrases": list(p.phrases)} for p in v.patches]}
