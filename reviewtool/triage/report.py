"""The triage report as plain data (the JSON output and every template's input), its sort
orders, and the patchwork check payloads.

patchwork has no series-level checks, so (as NIPA's pw_upload does) a series-level result is
copied onto every patch: a patch fails when it or its series has an error finding.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable, Iterator

from .. import TOOL_NAME, __version__
from ..render.env import render_template
from .group import Grouping, OrphanThread
from .entry import TriageOptions, iso, thread_url
from .spool import Rows, Spool, Summary
from .status import STATUSES

SORTS = ("status", "age", "tree")
# The order a maintainer works through the queue: what can be applied first.
STATUS_ORDER = {s: i for i, s in enumerate((*STATUSES, "skipped"))}
PW_STATES = ("success", "warning", "fail")


def _age_key(s: Summary) -> tuple:
    return (-(s.age_days or 0), s.date or "", s.id)


def sort_key(order: str) -> Callable[[Summary], tuple]:
    if order == "age":  # oldest first: the queue is first come, first served
        return _age_key
    if order == "tree":
        return lambda s: (s.tree or "~", STATUS_ORDER.get(s.status, 99), *_age_key(s))
    return lambda s: (STATUS_ORDER.get(s.status, 99), *_age_key(s))


def orphan_data(o: OrphanThread, opts: TriageOptions, state: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"msgid": o.msgid, "subject": o.subject, "date": iso(o.date), "messages": o.messages,
            "url": thread_url(opts.link_base, o.msgid), "answers": list(o.missing), "state": state}


def build_report(spool: Spool, grouping: Grouping, opts: TriageOptions, *, inputs: list[str],
                 order: str = "status", only: tuple[str, ...] = (),
                 notes: list[str] | tuple[str, ...] = (), orphan_states: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report; its "series" is a `Rows` view that decodes entries as they are read."""
    counts = {s: 0 for s in STATUSES}
    for s in spool.summaries:
        counts[s.status] = counts.get(s.status, 0) + 1
    skipped = [{"msgid": i["msgid"], "subject": i["full_subject"], "url": i["url"], "reason": i["skip_reason"]}
               for i in spool.skipped]
    trees = sorted({s.tree for s in spool.summaries if s.tree and s.status != "superseded"})
    return {
        "tool": TOOL_NAME,
        "version": __version__,
        "kind": "triage",
        "now": opts.now.isoformat(),
        "stale_days": opts.stale_days,
        "sort": order,
        "inputs": inputs,
        # the series triaged, as the progress bar and the store count them less those that could not
        # be built (listed as skipped): one the maintainers marked superseded is one of them, an
        # earlier revision is a row, not a series
        "totals": {"messages": grouping.messages, "series": len(grouping.series) - len(skipped),
                   "superseded": counts["superseded"], "skipped": len(skipped),
                   "orphan_replies": len(grouping.orphans), "other_threads": grouping.other_threads,
                   "not_series": dict(grouping.kinds)},
        "counts": counts,
        "trees": trees,
        "statuses": list(STATUSES),
        "series": spool.rows(sort_key(order), only),
        "skipped": skipped,
        "orphans": [orphan_data(o, opts, (orphan_states or {}).get(o.msgid)) for o in grouping.orphans],
        "notes": list(notes),
    }


def json_chunks(report: dict[str, Any]) -> Iterator[str]:
    """The report as indented JSON with one series per line (grep- and diff-friendly), written
    entry by entry straight from the spool's JSON text: the series are never decoded."""
    yield "{"
    for n, (key, value) in enumerate(report.items()):
        yield ("," if n else "") + "\n  " + json.dumps(key) + ": "
        if isinstance(value, Rows):
            yield "["
            for i, text in enumerate(value.texts()):
                yield ("," if i else "") + "\n    " + text
            yield "\n  ]" if len(value) else "]"
        else:
            yield json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
    yield "\n}\n"


def _state(findings: list[dict[str, Any]]) -> str:
    sev = {f["severity"] for f in findings}
    return "fail" if "error" in sev else "warning" if "warning" in sev else "success"


def patchwork_checks(report: dict[str, Any], *, context: str = "reviewtool",
                     report_url: str | None = None) -> dict[str, Any]:
    """One check per patch, in the shape patchwork's `POST /api/patches/<id>/checks/` takes
    (state, target_url, context, description), keyed by the patch's Message-ID so an uploader can
    look the patch up (`GET /api/patches/?msgid=`)."""
    checks = []
    for item in report["series"]:
        if item["status"] in ("superseded", "skipped"):
            continue
        target = f"{report_url}#s-{item['id']}" if report_url else item["url"]
        for p in item["patches"]:
            mine = [f for f in item["findings"] if f["patch"] in (p["counter"], None, 0)]
            state = _state(mine)
            description = render_template("triage.patchwork.j2", item=item, patch=p, findings=mine,
                                           state=state).strip()
            checks.append({"msgid": p["msgid"], "series_msgid": item["msgid"], "patch": p["counter"],
                           "check": {"state": state, "target_url": target, "context": context,
                                     "description": " ".join(description.split())[:255]}})
    return {"tool": TOOL_NAME, "version": __version__, "context": context, "checks": checks}


def parse_now(value: str | None) -> datetime:
    """`--now` for reproducible reports: an ISO 8601 date or time (UTC when no zone is given)."""
    from datetime import timezone

    from ..errors import InputError

    if not value:
        return datetime.now(timezone.utc)
    try:
        d = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InputError(f"--now {value!r}: not an ISO 8601 date (e.g. 2026-11-10 or 2026-11-10T12:00Z)") from exc
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)
