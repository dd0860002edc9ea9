"""Review every series group with the check pipeline, serially or in a process pool.

Each group is read back from the archive by offset, parsed (sources/files.parse_mails), built
by b4 (model/b4adapter.build_series) and reviewed (review.review_series) exactly as `reviewtool
check` would, then classified (triage/entry.py, triage/status.py). Workers are processes, not
threads: b4's globals are not thread-safe. A worker returns a `Reviewed` (a few fields and the
entry's compressed JSON), so the parent holds the archive's index and the results, never the
parsed mail.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

if TYPE_CHECKING:  # the pool's modules load when a pool is made: a run the store answers makes none
    from concurrent.futures import ProcessPoolExecutor

from .entry import DEFAULT_LINK_BASE, Reviewed, TriageOptions, review_group, superseded_entries, thread_url  # noqa: F401
from .group import SeriesGroup
from ..sources.mail_refs import read_refs


def _read_raws(groups: list[SeriesGroup]) -> list[list]:
    """The mails of each group, read back from the archive by offset."""
    return read_refs([g.refs for g in groups])


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


def triage_group(group: SeriesGroup, opts: TriageOptions, raws: list) -> Reviewed:
    """What the review of one group (its mails `raws`, read by _read_raws) decides."""
    from ..mail.headers import forget_parsed_headers

    try:
        return review_group(group, opts, raws)
    finally:
        forget_parsed_headers()


def triage_batch(groups: list[SeriesGroup], opts: TriageOptions) -> list[Reviewed]:
    """triage_group for several groups, their patch-ids asked of git once for all."""
    from ..heap import give_back

    raw_lists = _read_raws(groups)
    _warm_patch_ids(raw_lists)
    out = [triage_group(g, opts, raws) for g, raws in zip(groups, raw_lists)]
    del raw_lists
    give_back()  # what the batch freed, before the next one scatters itself in between
    return out


_WORKER_OPTS: TriageOptions | None = None
BATCH = 16  # series per task: one patch-id process and one round trip to a worker for each


def _init_worker(opts: TriageOptions, warm: bool) -> None:
    """With `warm`, each worker loads b4, the rules and the context stages now, while the parent
    indexes the archive, instead of on its first series."""
    global _WORKER_OPTS
    _WORKER_OPTS = opts
    if warm:
        _load()


def _load() -> None:
    from ..sources.b4fetch import init_b4
    from ..review import context_stages
    from ..rules.registry import all_rules

    init_b4()
    all_rules()
    context_stages()


def _work(groups: list[SeriesGroup]) -> list[Reviewed]:
    assert _WORKER_OPTS is not None
    return triage_batch(groups, _WORKER_OPTS)


def warm_pool(pool: ProcessPoolExecutor | None, jobs: int) -> None:
    """Have each worker load b4, the rules and the context stages now (the archive is indexed;
    the parent groups it meanwhile), not on its first series: a task per worker, each busy long
    enough that the next one goes to another worker."""
    if pool is not None:
        for _ in range(jobs):
            pool.submit(_load)


def _pool_context():
    # fork starts workers with reviewtool and b4 already imported; spawn where fork is missing.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _ready() -> bool:
    return _WORKER_OPTS is not None


def _with_now(opts: TriageOptions) -> TriageOptions:
    return replace(opts, review=replace(opts.review, now=opts.review.now or opts.now))


@contextmanager
def worker_pool(opts: TriageOptions, warm: bool = True) -> Iterator[ProcessPoolExecutor | None]:
    """The worker processes for `--jobs N`, started before the archive is indexed: a fork copies
    the parent's memory, so workers forked from a small parent stay small (forked after indexing,
    each would carry the whole index). `warm`: they load b4 and the rules at once (not worth it
    when a result store will answer most series). None for a serial run."""
    if opts.jobs <= 1:
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=opts.jobs, mp_context=_pool_context(),
                               initializer=_init_worker, initargs=(_with_now(opts), warm))
    try:
        pool.submit(_ready)  # with fork, the first task starts every worker; they warm up while we index
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def late_worker_pool(opts: TriageOptions) -> Iterator[ProcessPoolExecutor | None]:
    """worker_pool forked after the archive is indexed: what the parent holds is settled out of
    the collector first (collector.settle), so that a worker's collections do not write to (and
    so copy) its pages, and the parent's do not walk it again."""
    from ..collector import settle

    settle()
    with worker_pool(opts) as pool:
        yield pool


def segment_scan(pool: ProcessPoolExecutor | None, jobs: int):
    """How the archive's index may use the pool: the parent scans one segment of a large mbox
    while each worker, idle until the archive is indexed, scans another (None: serial)."""
    from ..sources.segments import SegmentScan

    if pool is None:
        return None
    return SegmentScan(parts=jobs, map=lambda fn, args: pool.map(fn, *zip(*args)))


def run_groups(groups: Iterable[SeriesGroup], opts: TriageOptions,
               on_done: Callable[[Reviewed], None] | None = None,
               pool: ProcessPoolExecutor | None = None,
               meanwhile: Callable[[], None] | None = None) -> Iterator[Reviewed]:
    """The review of each group, in the order of `groups`; `on_done` is called as each one
    finishes. With a pool (worker_pool), groups are reviewed there, and `meanwhile` is called
    here once they are all handed out (the parent's own work, done while the workers review);
    otherwise here, one after the other, `meanwhile` first."""
    opts = _with_now(opts)
    groups = list(groups)
    size = max(1, min(BATCH, len(groups) // (max(1, opts.jobs) * 8) or 1))
    batches = [groups[i:i + size] for i in range(0, len(groups), size)]
    results = (map(lambda b: triage_batch(b, opts), batches) if pool is None
               else pool.map(_work, batches))
    if meanwhile is not None:
        meanwhile()
    for items in results:
        for item in items:
            if on_done:
                on_done(item)
            yield item


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
