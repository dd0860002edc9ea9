"""`triage --since/--until`: the series and orphan replies with mail inside a window of time.

A series counts when any mail of its family falls inside (its first posting, earlier revisions
included, up to its newest reply); the whole archive is still indexed and grouped, so a series
inside the window keeps the revisions and replies it has outside it. Only what is inside is
reviewed, which is where a run's time goes.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from ..errors import InputError
from ..sources.lore import parse_duration


def parse_when(text: str, option: str, now: datetime) -> datetime:
    """A moment: a duration before `now` ("14d", "36h", "2w") or an ISO 8601 date or time (UTC
    when no zone is given)."""
    try:
        return now - timedelta(seconds=parse_duration(text, option))
    except InputError:
        pass
    try:
        d = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{option}: {text!r} is neither a duration (14d, 36h) nor an ISO 8601 date "
                         "(2026-11-01)") from None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


def _first(group) -> float | None:
    dates = [d for d in (group.date, *(s.date for s in group.superseded)) if d is not None]
    return min(dates) if dates else None


def _inside(first: float | None, last: float | None, since: float, until: float) -> bool:
    if first is None and last is None:
        return True  # no date to judge by: kept rather than lost
    return (last if last is not None else first) >= since and (first if first is not None else last) <= until


def narrow(grouping, since: datetime | None, until: datetime | None) -> list[str]:
    """Keep the series and orphans of `grouping` with mail inside [since, until] (ids counted
    again from 0); the line that says what the window left out, or nothing."""
    if since is None and until is None:
        return []
    lo = since.timestamp() if since else float("-inf")
    hi = until.timestamp() if until else float("inf")
    if lo > hi:
        raise InputError("--since is after --until: the window holds nothing")
    total = len(grouping.series)
    kept = [g for g in grouping.series if _inside(_first(g), g.last_activity, lo, hi)]
    grouping.series = [replace(g, key=i) for i, g in enumerate(kept)]
    grouping.orphans = [o for o in grouping.orphans if _inside(o.date, o.date, lo, hi)]
    span = " ".join(([f"from {since:%Y-%m-%d %H:%M}"] if since else []) + ([f"until {until:%Y-%m-%d %H:%M}"] if until else []))
    return [f"window {span}: {len(kept):,} of the archive's {total:,} patch families have mail inside it (the others were read only "
            "for the replies and revisions of these)"]
