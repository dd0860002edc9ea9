"""The verdict when the maintainers already settled the series (context/replies/settled.py): its
status and next step. Before any finding: once a maintainer applied, rejected or sent back a
series, that is what a reader of the review must know first.

  applied            applied (every patch a reply named, or --repo found them all in the tree)
  changes-requested  a maintainer or reviewer asked for a new revision (patchwork state, pw-bot,
                     an applier's words), or someone who applies for the tree NAKed it: the
                     author's move (patchwork's Changes Requested), not a final rejection
  deferred           set aside until later (patchwork Deferred, pw-bot: defer)
  rejected           rejected, or not applicable
  superseded         set to Superseded by the maintainers (a newer posting replaces it)
"""

from __future__ import annotations

import re
from typing import Any, Iterable

STATE_STATUS = {"applied": "applied", "changes-requested": "changes-requested", "deferred": "deferred",
                "rejected": "rejected", "nak": "changes-requested", "not-applicable": "rejected",
                "superseded": "superseded"}
_ALREADY_RE = re.compile(r"^already in (?P<tree>.+?) as (?P<sha>[0-9a-f]{7,40})\b")


def _who_when(s: dict[str, Any]) -> str:
    out = f" by {s['by']}" if s.get("by") else ""
    return out + (f" on {s['date'][:10]}" if s.get("date") else "")


def _patches(counters: Iterable[int]) -> str:
    counters = list(counters)
    return ("patch " if len(counters) == 1 else "patches ") + ", ".join(map(str, counters))


def _where(s: dict[str, Any]) -> str:
    where = s.get("tree") or s.get("tree_words")
    return f" to {where}" if where else ""


def state_step(s: dict[str, Any]) -> str:
    """The next step for a settled series (s: context.replies.settled.state_data)."""
    state, reason = s["state"], f' ("{s["reason"]}")' if s.get("reason") else ""
    if state == "applied":
        done = "Nothing to do: applied" if s.get("patches") is None else f"Nothing to do for {_patches(s['patches'])}: applied"
        step = done + _where(s) + _who_when(s) + "."
        for key, words in (("not_applied", ("was not applied: the author resends it if it is still wanted",
                                             "were not applied: the author resends them if they are still wanted")),
                           ("open", ("has no answer yet: review it, or ask the maintainer",
                                     "have no answer yet: review them, or ask the maintainer"))):
            if s.get(key):
                step += f" {_patches(s[key]).capitalize()} {words[len(s[key]) != 1]}."
        return step
    if state == "changes-requested":
        done = f" {_patches(s['applied']).capitalize()} {'was' if len(s['applied']) == 1 else 'were'} applied." \
            if s.get("applied") else ""
        return f"Wait for a new revision: changes were requested{_who_when(s)}{reason}.{done}"
    if state == "nak":
        return f"Wait for another approach: NAKed{_who_when(s)}{reason}; this posting is not applied as it is."
    if state == "deferred":
        return f"Nothing to do now: deferred{_who_when(s)}{reason}; the author reposts it when the tree takes it."
    if state == "superseded":
        return f"Nothing to do: set to superseded{_who_when(s)}{reason}."
    verb = {"not-applicable": "set to not applicable"}.get(state, "rejected")
    return f"Nothing to do: {verb}{_who_when(s)}{reason}."


def state_verdict(s: dict[str, Any] | None) -> tuple[str, str] | None:
    """(status, next step) for a settled series, or None."""
    if not s or s.get("state") not in STATE_STATUS:
        return None
    return STATE_STATUS[s["state"]], state_step(s)


def from_findings(series, findings) -> dict[str, Any] | None:
    """The applied state --repo found: every patch of the series is already in the tree
    (already-applied), with the tree and the commits it found."""
    hits = {f.patch: _ALREADY_RE.match(f.message) for f in findings if f.rule == "already-applied"}
    counters = [p.counter for p in series.patches]
    if not counters or any(not hits.get(c) for c in counters):
        return None
    first = hits[counters[0]]
    return {"state": "applied", "tree": None, "tree_words": first.group("tree"), "branch": None,
            "by": None, "date": None, "patches": None, "applied": counters, "not_applied": [], "open": [],
            "commits": [hits[c].group("sha") for c in counters], "reason": None, "form": "already-applied",
            "msgid": None, "evidence": hits[counters[0]].group(0)}
