"""The one next step of a triage entry, said once here so every output format (text, markdown,
HTML, JSON, patchwork checks) gives the same words for the same series.

`review_step` is decided with the review (the tree verdict's own step where it speaks to the
status triage shows); `entry_step` at report time, when a later pull request, a newer revision
the archive lacks or the clock (stale) changed the status after the review.
"""

from __future__ import annotations

from typing import Any, Iterable

GENERIC = {
    "ready": "apply it",
    "needs-review": "review it, or ask a reviewer",
    "needs-revision": "wait for a new revision that answers the review",
    "wrong-tree": "ask for a repost to the right tree",
    "incomplete": "ask for the whole series to be resent",
    "applied": "nothing to do",
    "rejected": "nothing to do",
    "superseded": "nothing to do",
    "changes-requested": "wait for the new revision",
    "deferred": "nothing to do now: the author reposts it later",
}

STALE = {
    "needs-review": "ping the reviewers (it waits for a review), or drop it",
    "needs-revision": "ping the author for the new revision, or drop it",
    "changes-requested": "ping the author for the new revision, or drop it",
    "wrong-tree": "ping the author to resend it to the right tree, or drop it",
    "incomplete": "ping the author for the missing patches, or drop it",
}


def _patches(counters: list[int]) -> str:
    return ("patch " if len(counters) == 1 else "patches ") + ", ".join(map(str, counters))


def review_step(status: str, verdict: dict[str, Any] | None, reasons: Iterable[dict[str, Any]],
                rfc: bool = False) -> str:
    """The step for the status the review decided. The verdict's own step counts where it speaks
    to that status: the same status (not ready/needs-review, whose generic step says more to a
    maintainer), a ready verdict a rule decided ("Settle the tree before applying: ..."), or a
    ready RFC (`rfc`: posted as one, the tag not taken off in the thread), which is not applied."""
    v = verdict or {}
    step, decided = v.get("next_step"), v.get("decided_by")
    if step and (v.get("status") == status and status not in ("ready", "needs-review")
                 or v.get("status") == "ready" and status in ("ready", "needs-review") and decided
                 or v.get("status") == "ready" and status == "ready" and rfc):
        return step
    if status == "needs-review" and rfc:
        return "comment on the approach, or ask a reviewer: an RFC is not applied"
    if status == "needs-review":
        cover = next((r for r in reasons if r.get("code") == "unreviewed"), None)
        if cover and cover.get("reviewed") and cover.get("missing"):
            return f"review {_patches(cover['missing'])} (the others have reviews), or ask a reviewer"
    return GENERIC.get(status, "")


def entry_step(status: str, was: str | None, reviewed_status: str, step: str | None) -> str:
    """The step at report time: the review's own when the status is still the one it decided."""
    if status == "stale":
        return STALE.get(was or "", "ping the author, or drop it")
    if status == reviewed_status and step:
        return step
    return GENERIC.get(status, "")


def superseded_step(status: str, revision: int) -> str:
    return "nothing to do" if status == "applied" else f"nothing: v{revision} replaces it"
