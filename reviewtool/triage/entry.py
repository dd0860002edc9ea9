"""One triage entry, in the two parts that have different lifetimes.

`review_group` gives what reviewing a group's mails decides (`Reviewed`): a function of those
mails' bytes, reviewtool's code, the options and, with --repo, the trees. The result store keeps
that part. `entry` joins it, at report time, with what the archive and the clock decide: the
series' id (its place in the report), links, ages, staleness and earlier postings. A run without
the store goes through the same two steps, so both give the same JSON byte for byte.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from ..errors import LimitError, ReviewtoolError
from ..options import ReviewOptions
from ..settled_verdict import STATE_STATUS
from .group import SeriesGroup, Superseded
from .next_step import entry_step, review_step, superseded_step
from .status import classify, staleness

DEFAULT_LINK_BASE = "https://lore.kernel.org/all/"
NESTS_TOO_DEEPLY = "error: input nests too deeply to process"  # cli.main's words for a RecursionError


@dataclass(frozen=True)
class TriageOptions:
    review: ReviewOptions
    now: datetime
    stale_days: int = 14
    jobs: int = 1
    link_base: str = DEFAULT_LINK_BASE


@dataclass(frozen=True)
class Reviewed:
    """What the review of one group decided. `tail` is the zlib-compressed compact JSON of the
    entry's members from "subject" to the end (the closing brace included): the report splices
    it in as it is, never decoding it."""

    status: str  # before staleness; "skipped" when the series could not be reviewed
    msgid: str | None = None  # the series' cover letter or first patch (None: the group's)
    full_subject: str | None = None
    reasons: tuple[dict[str, Any], ...] = ()
    tail: bytes = b""
    skip_reason: str | None = None
    tree: str | None = None
    profile: str | None = None
    errors: int = 0
    keep: bool = True  # False for failures that may pass (internal errors, the repository)
    placed: bool = False  # skip_reason is said of the group's archive: the entry names it first
    step: str | None = None  # the next step for `status` (triage/next_step.review_step)


def thread_url(link_base: str, msgid: str) -> str:
    """The public-inbox address of a message (lore's `/all/<msgid>/` form)."""
    from ..render.output import printable  # undecodable bytes (lone surrogates): U+FFFD, as everywhere

    return link_base.rstrip("/") + "/" + quote(printable(msgid), safe="@!$&'()*+,;=:~") + "/"


def when(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, timezone.utc) if ts is not None else None


def iso(ts: float | None) -> str | None:
    d = when(ts)
    return d.isoformat() if d else None


def days(now: datetime, ts: float | None) -> int | None:
    d = when(ts)
    return max(0, int((now - d).total_seconds() // 86400)) if d else None


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _skipped(reason: str, keep: bool, placed: bool = False) -> Reviewed:
    return Reviewed(status="skipped", skip_reason=reason, keep=keep, placed=placed)


def _source(group: SeriesGroup) -> str:
    return (group.refs[0].label or group.refs[0].path) if group.refs else ""


def _internal(exc: Exception) -> Reviewed:
    # One bad series must not sink a 10,000-series report; and what failed may pass next time.
    return _skipped(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}", keep=False)


def _unplaced(reason: str, source: str) -> tuple[str, bool]:
    """(`reason` without the `ARCHIVE: ` it starts with, whether it did): the entry puts the
    archive's name back (entry()), and the stored review holds no place, so the store keeps it
    (one series of a real stretch was otherwise reviewed again on every warm run)."""
    if source and reason.startswith(f"{source}: "):
        return reason[len(source) + 2:], True
    return reason, False


def review_group(group: SeriesGroup, opts: TriageOptions, raws: list) -> Reviewed:
    """Parse, build and review one group's mails (`raws`, read back by offset) as `check` would."""
    from ..model.b4adapter import build_series
    from ..review import review_series
    from ..sources.files import parse_mails
    from .earlier_postings import earlier_states  # here: a run the store answers reads no replies

    source = _source(group)
    places = [source, *(r.origin for r in raws)]
    try:
        msgs = parse_mails(raws)
        series = build_series(msgs, source=source, current=group.msgid)
    except LimitError as exc:  # the same bytes are over the same limit (the limits are in the key)
        return _skipped(exc.what, keep=True)
    except ReviewtoolError as exc:  # the mails themselves: the same bytes fail the same way...
        reason, placed = _unplaced(exc.one_line(), source)
        # ...unless the reason names where they are, which the store's key leaves out
        return _skipped(reason, keep=not any(p and p in reason for p in places), placed=placed)
    except RecursionError:  # as `check` says it (cli.main); the same bytes nest as deep next time
        return _skipped(NESTS_TOO_DEEPLY, keep=True)
    except Exception as exc:
        return _internal(exc)
    try:
        review = review_series(series, opts.review)
        earlier = earlier_states(group, msgs, review.profile,
                                 [p.msgid for p in series.all_mails] + [r.msgid for r in series.replies],
                                 series.earlier)
    except ReviewtoolError as exc:  # the repository, say: it can change without a tree moving
        return _skipped(exc.one_line(), keep=False)
    except RecursionError:
        return _skipped(NESTS_TOO_DEEPLY, keep=opts.review.repo is None)
    except Exception as exc:
        return _internal(exc)
    return _reviewed(review, opts, earlier)


def _utf8(text: str) -> bytes:
    """UTF-8 of text that may hold lone surrogates (undecodable header bytes, kept by the email
    package): U+FFFD, as the report writes them anyway (render.output.printable)."""
    from ..render.output import printable

    return printable(text).encode("utf-8")


def _reviewed(review, opts: TriageOptions, earlier: list[dict[str, Any]] = ()) -> Reviewed:
    from ..render.data import review_data

    c = classify(review)
    data = review_data(review)
    s = data["series"]
    errors_by_patch: dict[Any, int] = {}
    for f in data["findings"]:
        if f["severity"] == "error":
            errors_by_patch[f["patch"]] = errors_by_patch.get(f["patch"], 0) + 1
    tail = {
        "subject": s["subject"], "tree": s["tree"], "profile": s["profile"], "author": s["author"],
        "expected": s["expected"], "received": s["received"], "missing": s["missing"], "has_cover": s["has_cover"],
        "reviewed": list(c.reviewed), "reviewers": list(c.reviewers),
        "patches": [{"counter": p["counter"], "subject": p["subject"], "msgid": p["msgid"],
                     "url": thread_url(opts.link_base, p["msgid"]), "reviewed": p["counter"] in c.reviewed,
                     "errors": errors_by_patch.get(p["counter"], 0)} for p in data["patches"]],
        "cover_msgid": data["cover"]["msgid"] if data["cover"] else None,
        "findings": data["findings"],
        "counts": {k: data["summary"][k] for k in ("errors", "warnings", "infos")},
        "not_checked": data["summary"]["not_checked"],
        "notes": data["summary"]["notes"],
        **({"verdict": data["verdict"]} if "verdict" in data else {}),
    }
    return Reviewed(status=c.status, msgid=s["msgid"] or None, full_subject=s["full_subject"] or None,
                    reasons=tuple(c.reasons) + tuple(earlier), tail=zlib.compress(_utf8(compact(tail)[1:]), 1),
                    tree=s["tree"], profile=s["profile"], errors=tail["counts"]["errors"],
                    step=review_step(c.status, data.get("verdict"), c.reasons,
                                     rfc=review.series.is_rfc and getattr(review, "rfc_lifted", None) is None))


def _superseded_data(s: Superseded, by: SeriesGroup, opts: TriageOptions) -> dict[str, Any]:
    return {"revision": s.revision, "msgid": s.msgid, "subject": s.subject, "date": iso(s.date),
            "url": thread_url(opts.link_base, s.msgid), "why": s.why,
            "superseded_by": {"msgid": by.msgid, "revision": by.revision}}


# What a later pull request may settle (triage/pulls.py): not what the maintainers settled already.
PULLABLE = frozenset({"ready", "needs-review", "needs-revision", "wrong-tree", "incomplete", "changes-requested"})


def entry(group: SeriesGroup, r: Reviewed, opts: TriageOptions, pulled: dict[str, Any] | None = None) -> tuple:
    """The entry of `group` as the spool keeps it (spool.Spool.add_packed): ("skipped", item) or
    ("row", summary fields, JSON text up to "reasons", compressed tail). `pulled`: the applied
    state a later pull request gives it (triage/pulls.py)."""
    # the review's own id (a cover letter the linker did not take for one), unless it is that of a
    # superseded posting (a partial resend is reviewed with v1's other patches): then the group's
    msgid = r.msgid if r.msgid and r.msgid not in {x.msgid for x in group.superseded} else group.msgid
    base = {"id": str(group.key), "msgid": msgid, "url": thread_url(opts.link_base, msgid),
            "full_subject": r.full_subject or group.subject, "revision": group.revision, "date": iso(group.date),
            "last_activity": iso(group.last_activity), "age_days": days(opts.now, group.date),
            "idle_days": days(opts.now, group.last_activity),
            "superseded": [_superseded_data(s, group, opts) for s in group.superseded]}
    if r.status == "skipped":
        reason = f"{_source(group)}: {r.skip_reason}" if r.placed else r.skip_reason
        return ("skipped", {**base, "status": "skipped", "skip_reason": reason})
    status, reasons = r.status, list(r.reasons)
    if pulled is not None and status in PULLABLE:
        status, reasons = "applied", [{"code": "state", **pulled}] + [x for x in reasons if x["code"] != "state"]
    newer = next((x for x in reasons if x["code"] == "earlier-state" and x.get("newer")), None)
    if newer is not None and status in PULLABLE and newer["state"]["state"] in STATE_STATUS:
        # a newer revision the archive lacks ("Re: [PATCH v3] ..." answered "Applied"): what
        # the maintainers settled for it is what became of the series
        status = STATE_STATUS[newer["state"]["state"]]
        reasons = [{"code": "state", **newer["state"], "revision": newer["revision"], "absent": True}] + [
            x for x in reasons if x is not newer and x["code"] != "state"]
    status, was, reasons = staleness(status, reasons, last_activity=when(group.last_activity),
                                     now=opts.now, stale_days=opts.stale_days)
    state = next(({k: v for k, v in x.items() if k != "code"} for x in reasons if x["code"] == "state"), None)
    head = compact({**base, "status": status, "was": was, "state": state,
                    "next_step": entry_step(status, was, r.status, r.step), "reasons": reasons})[:-1] + ","
    fields = (status, r.tree, base["age_days"], base["date"], base["id"], r.errors)
    return ("row", fields, head, r.tail)


def superseded_entries(group: SeriesGroup, opts: TriageOptions, r: Reviewed | None = None) -> list[dict[str, Any]]:
    """Rows for the earlier revisions of a group: listed, not reviewed; each with what the
    maintainers' replies settled for it (the review's "earlier-state" reasons), if anything, and
    `applied` for its status when they applied it."""
    from ..mail.subject import parse_subject

    states = {x["msgid"]: x["state"] for x in (r.reasons if r else ()) if x.get("code") == "earlier-state"}

    def status(msgid: str) -> str:
        # applied is what the revision shows, however many came after it (they carry the rest)
        return "applied" if (states.get(msgid) or {}).get("state") == "applied" else "superseded"

    return [{"id": f"{group.key}.{i + 1}", "status": status(s.msgid), "state": states.get(s.msgid),
             "msgid": s.msgid, "full_subject": s.subject,
             "subject": parse_subject(s.subject).summary, "tree": parse_subject(s.subject).tree,
             "revision": s.revision, "date": iso(s.date), "url": thread_url(opts.link_base, s.msgid),
             "age_days": days(opts.now, s.date), "why": s.why,
             "next_step": superseded_step(status(s.msgid), group.revision),
             "patches": [{"counter": c, "msgid": m} for c, m in s.patches],  # to mark each in patchwork
             "superseded_by": {"msgid": group.msgid, "revision": group.revision,
                               "url": thread_url(opts.link_base, group.msgid)}}
            for i, s in enumerate(group.superseded)]
