"""Review every series group with the check pipeline, serially or in a process pool.

Each group is read back from the archive by offset, parsed (sources/files.parse_mails), built
by b4 (model/b4adapter.build_series) and reviewed (review.review_series) exactly as `reviewtool
check` would, then classified (triage/status.py). Workers are processes, not threads: b4's
globals are not thread-safe. A worker returns a small dict, so the parent holds the archive's
index and the results, never the parsed mail.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import quote

from ..errors import ReviewtoolError
from ..review import ReviewOptions, review_series
from .group import SeriesGroup, Superseded
from .status import classify

DEFAULT_LINK_BASE = "https://lore.kernel.org/all/"


@dataclass(frozen=True)
class TriageOptions:
    review: ReviewOptions
    now: datetime
    stale_days: int = 14
    jobs: int = 1
    link_base: str = DEFAULT_LINK_BASE


def thread_url(link_base: str, msgid: str) -> str:
    """The public-inbox address of a message (lore's `/all/<msgid>/` form)."""
    return link_base.rstrip("/") + "/" + quote(msgid, safe="@!$&'()*+,;=:~") + "/"


def _when(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, timezone.utc) if ts is not None else None


def _iso(ts: float | None) -> str | None:
    d = _when(ts)
    return d.isoformat() if d else None


def _days(now: datetime, ts: float | None) -> int | None:
    d = _when(ts)
    return max(0, int((now - d).total_seconds() // 86400)) if d else None


def _superseded_data(s: Superseded, by: SeriesGroup, opts: TriageOptions) -> dict[str, Any]:
    return {"revision": s.revision, "msgid": s.msgid, "subject": s.subject, "date": _iso(s.date),
            "url": thread_url(opts.link_base, s.msgid), "why": s.why,
            "superseded_by": {"msgid": by.msgid, "revision": by.revision}}


def _read_raws(groups: list[SeriesGroup]) -> list[list]:
    """The mails of each group, read back from the archive by offset."""
    from ..sources.index import raw_mail

    out = []
    handles: dict[str, Any] = {}
    try:
        for group in groups:
            raws = []
            for ref in group.refs:
                fh = handles.get(ref.path) or handles.setdefault(ref.path, open(ref.path, "rb"))
                raws.append(raw_mail(ref, fh))
            out.append(raws)
    finally:
        for fh in handles.values():
            fh.close()
    return out


_PLAIN_CTE_RE = re.compile(rb"^content-transfer-encoding:[ \t]*(quoted-printable|base64)|^content-type:[ \t]*multipart",
                           re.M | re.I)


def _plain_body(data: bytes) -> str | None:
    """The body of a single-part 7/8-bit mail as b4 will decode it, read without parsing; None
    for anything else (those patch-ids are computed when b4 asks, as before)."""
    head, sep, body = data.partition(b"\n\n")
    if not sep or b"\ndiff " not in body or _PLAIN_CTE_RE.search(head):
        return None
    return body.decode("utf-8", "replace")


def _warm_patch_ids(raw_lists: list[list]) -> None:
    """One `git patch-id` for a batch of series instead of one per series."""
    from ..model.patchid import warm

    bodies = [b for raws in raw_lists for r in raws if (b := _plain_body(r.data)) is not None]
    if bodies:
        warm(bodies)


def _load(group: SeriesGroup, raws: list):
    from ..model.b4adapter import build_series
    from ..sources.files import parse_mails

    source = (group.refs[0].label or group.refs[0].path) if group.refs else ""
    return build_series(parse_mails(raws), source=source)


def _forget_parsed_headers() -> None:
    """sources/files.py caches parsed header objects (16,384 of them) for the many reads of one
    review; across thousands of series with unique headers that cache is 150+ MB of parse trees
    no later series uses. Dropping it after each series keeps triage's memory flat."""
    from ..sources import files

    clear = getattr(getattr(files, "_parsed_header", None), "cache_clear", None)
    if clear is not None:
        clear()


def triage_group(group: SeriesGroup, opts: TriageOptions, raws: list) -> dict[str, Any]:
    """The triage entry of one group (its mails `raws`, read by _read_raws): its review as data,
    plus status, age and links."""
    try:
        return _triage_group(group, opts, raws)
    finally:
        _forget_parsed_headers()


def triage_batch(groups: list[SeriesGroup], opts: TriageOptions) -> list[dict[str, Any]]:
    """triage_group for several groups, their patch-ids asked of git once for all."""
    raw_lists = _read_raws(groups)
    _warm_patch_ids(raw_lists)
    return [triage_group(g, opts, raws) for g, raws in zip(groups, raw_lists)]


def _triage_group(group: SeriesGroup, opts: TriageOptions, raws: list) -> dict[str, Any]:
    from ..render.data import review_data

    base = {"id": str(group.key), "msgid": group.msgid, "url": thread_url(opts.link_base, group.msgid),
            "full_subject": group.subject, "revision": group.revision, "date": _iso(group.date),
            "last_activity": _iso(group.last_activity), "age_days": _days(opts.now, group.date),
            "idle_days": _days(opts.now, group.last_activity),
            "superseded": [_superseded_data(s, group, opts) for s in group.superseded]}
    try:
        series = _load(group, raws)
        review = review_series(series, opts.review)
    except ReviewtoolError as exc:
        return {**base, "status": "skipped", "skip_reason": exc.one_line()}
    except Exception as exc:  # one bad series must not sink a 10,000-series report
        return {**base, "status": "skipped",
                "skip_reason": f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}
    c = classify(review, last_activity=_when(group.last_activity), now=opts.now, stale_days=opts.stale_days)
    data = review_data(review)
    s = data["series"]
    errors_by_patch: dict[Any, int] = {}
    for f in data["findings"]:
        if f["severity"] == "error":
            errors_by_patch[f["patch"]] = errors_by_patch.get(f["patch"], 0) + 1
    return {
        **base,
        "status": c.status, "was": c.was, "reasons": list(c.reasons),
        "subject": s["subject"], "full_subject": s["full_subject"] or group.subject, "msgid": s["msgid"] or group.msgid,
        "url": thread_url(opts.link_base, s["msgid"] or group.msgid),
        "tree": s["tree"], "profile": s["profile"], "author": s["author"],
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


def superseded_entries(group: SeriesGroup, opts: TriageOptions) -> list[dict[str, Any]]:
    """Rows for the earlier revisions of a group: listed, not reviewed."""
    from ..model.subject import parse_subject

    return [{"id": f"{group.key}.{i + 1}", "status": "superseded", "msgid": s.msgid, "full_subject": s.subject,
             "subject": parse_subject(s.subject).summary, "tree": parse_subject(s.subject).tree, "revision": s.revision, "date": _iso(s.date), "url": thread_url(opts.link_base, s.msgid),
             "age_days": _days(opts.now, s.date), "why": s.why,
             "superseded_by": {"msgid": group.msgid, "revision": group.revision,
                               "url": thread_url(opts.link_base, group.msgid)}}
            for i, s in enumerate(group.superseded)]


_WORKER_OPTS: TriageOptions | None = None
BATCH = 16  # series per task: one patch-id process and one round trip to a worker for each


def _init_worker(opts: TriageOptions) -> None:
    """Each worker loads b4, the rules and the context stages now, while the parent indexes the
    archive, instead of on its first series."""
    global _WORKER_OPTS
    _WORKER_OPTS = opts
    from ..model.b4adapter import init_b4
    from ..review import context_stages
    from ..rules.registry import all_rules

    init_b4()
    all_rules()
    context_stages()


def _work(groups: list[SeriesGroup]) -> list[tuple]:
    from .spool import pack

    assert _WORKER_OPTS is not None
    return [pack(item) for item in triage_batch(groups, _WORKER_OPTS)]


def _pool_context():
    # fork starts workers with reviewtool and b4 already imported; spawn where fork is missing.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _ready() -> bool:
    return _WORKER_OPTS is not None


def _with_now(opts: TriageOptions) -> TriageOptions:
    return replace(opts, review=replace(opts.review, now=opts.review.now or opts.now))


@contextmanager
def worker_pool(opts: TriageOptions) -> Iterator[ProcessPoolExecutor | None]:
    """The worker processes for `--jobs N`, started before the archive is indexed: a fork copies
    the parent's memory, so workers forked from a small parent stay small (forked after indexing,
    each would carry the whole index). None for a serial run."""
    if opts.jobs <= 1:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=opts.jobs, mp_context=_pool_context(),
                               initializer=_init_worker, initargs=(_with_now(opts),))
    try:
        pool.submit(_ready)  # with fork, the first task starts every worker; they warm up while we index
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_groups(groups: Iterable[SeriesGroup], opts: TriageOptions,
               on_done: Callable[[tuple], None] | None = None,
               pool: ProcessPoolExecutor | None = None) -> Iterator[tuple]:
    """Triage entries, packed for the spool (spool.pack), in the order of `groups`; `on_done` is
    called as each one finishes. With a pool (worker_pool), groups are reviewed there; otherwise
    here, one after the other."""
    from .spool import pack

    opts = _with_now(opts)
    groups = list(groups)
    size = max(1, min(BATCH, len(groups) // (max(1, opts.jobs) * 8) or 1))
    batches = [groups[i:i + size] for i in range(0, len(groups), size)]
    results = (map(lambda b: [pack(i) for i in triage_batch(b, opts)], batches) if pool is None
               else pool.map(_work, batches))
    for items in results:
        for item in items:
            if on_done:
                on_done(item)
            yield item


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
