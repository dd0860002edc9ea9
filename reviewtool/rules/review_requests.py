"""Requests on an earlier revision that the new one's change log does not account for."""

from __future__ import annotations

import re

from .registry import Hit, rule
from .revisions import has_version_log


def _log_text(series) -> str:
    """The current revision's notes: the cover letter and every note below `---`."""
    mails = [m for m in series.all_mails if m.subject.revision == series.revision] or list(series.all_mails)
    return "\n".join(t for m in mails for t in (m.notes, m.message if m.is_cover else "") if t)


def _names(person) -> list[str]:
    """How a change log names a reviewer: a part of their name (three letters or more), or the
    local part of their address."""
    words = [w for w in re.split(r"[\s,.\"']+", person.name or "") if len(w) >= 3]
    local = (person.email or "").split("@", 1)[0]
    return words + ([local] if len(local) >= 3 else [])


@rule("review-not-answered", family="revisions", severity="info",
      summary="A reviewer's request on the earlier revision goes unmentioned in the new one's change log")
def review_not_answered(series, ctx):
    """Why: A reviewer who asked for a change on vN reads vN+1's change log to see what became of
    it; a log that names the other changes but not theirs leaves them to diff the postings, or
    to find their request ignored ("you did not address my comment on v1"). A note: a log may
    answer it in other words. Only requests the conversation layer reads as such count (the
    `change-request` phrases, context/replies/acts.py), from someone other than the author, and
    only when the new revision has a change log at all (else changelog-missing says it).
    Source: maintainer-netdev ("Changes requested": resend addressing all comments); kernel
    submitting-patches (summarise the changes since the previous version).
    Bad:
      v1, Jakub Kicinski: "hairpin-bandwidth or some such would be a much better name"
      v2 log: "v2: rebased, fixed the kdoc"
    Good:
      v2 log: "v2: renamed the parameter to hairpin-bandwidth (Jakub)"
    """
    from ..context.replies.acts import by_author, change_requests

    if not series.earlier:
        return
    log = _log_text(series)
    if not has_version_log(log, strict=False):
        return  # no change log at all: changelog-missing says it
    low = log.lower()
    told: set[str] = set()
    for earlier in series.earlier:
        for reply, words in change_requests(earlier):
            who = reply.author
            key = (who.email or who.name).lower()
            if key in told or by_author(series, who) or any(n.lower() in low for n in _names(who)):
                continue
            told.add(key)
            yield Hit(f"v{earlier.revision} got a request from {who} that the v{series.revision} change log does not "
                      f"mention: \"{words}\"", evidence=(f"{who} on v{earlier.revision}: {words}",),
                      advice=f"Say in the change log what became of it (done, or why not), naming {who.name or who.email}.")
