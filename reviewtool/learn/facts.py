"""What `profile learn` keeps of one posting: its review by the check pipeline, and a few facts of
its mails (sign-offs, Fixes tags, files, recipients), small enough to send back from a worker.

Each posting is read back from the archive by offset, built by b4 (the revision the maintainers
answered) and reviewed with `review_series`, under the provisional profile the first pass learned
(its trees, nothing turned off), so that every rule that can fire does, and the learner can ask
which findings the maintainers accepted.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ..errors import ReviewtoolError
from ..sources.index import MailRef


@dataclass(frozen=True)
class Job:
    key: int
    refs: tuple[MailRef, ...]
    revision: int


@dataclass(frozen=True)
class PatchFacts:
    counter: int
    summary: str  # as posted, after the [PATCH ...] prefix
    prefixes: tuple[str, ...]  # its leading `subsys:` prefixes, lower case
    paths: tuple[str, ...]
    signed: bool  # it carries a Signed-off-by
    fixes: bool  # it carries a Fixes: tag
    kind: str | None  # fix | development | test | docs (the classifier's)
    tree: str | None  # the tree the provisional profile routes it to
    urgent: tuple[str, ...]  # the untagged-policy signals it shows (maintainers, build-break, regression)


@dataclass(frozen=True)
class Facts:
    key: int
    skipped: str | None = None  # why it could not be reviewed
    recipients: tuple[str, ...] = ()  # addresses of the first mail's To and Cc
    has_cover: bool = False
    findings: tuple[tuple[str, str, int | None], ...] = ()  # (rule, severity, patch), notes too
    patches: tuple[PatchFacts, ...] = ()
    pull: bool = False


def _patch_facts(p, cls, profile, calendar) -> PatchFacts:
    from ..context.classify.series import urgent_signals
    from ..context.profiles.parts import UNTAGGED_SIGNALS
    from ..context.classify.reading import read_patch
    from ..mail.subject import leading_prefixes  # the rules' own reading of `subsys:` prefixes

    reading = read_patch(p, profile, calendar)
    return PatchFacts(counter=p.counter, summary=p.subject.summary, prefixes=tuple(leading_prefixes(p.subject.summary)),
                      paths=p.diff.paths, signed=bool(p.trailers_named("signed-off-by")),
                      fixes=bool(p.trailers_named("fixes")), kind=cls.kind if cls else None,
                      tree=cls.tree if cls else None, urgent=urgent_signals(reading, UNTAGGED_SIGNALS))


def facts_of(job: Job, raws: list, options) -> Facts:
    """Build and review one posting (`raws`: its mails read back by offset) as `check` would."""
    from ..context.calendar import load_calendar
    from ..mail.headers import mailboxes
    from ..model.b4adapter import build_series
    from ..model.series import is_pull_request
    from ..review import review_series
    from ..sources.files import parse_mails

    try:
        series = build_series(parse_mails(raws), revision=job.revision, source=raws[0].origin if raws else "")
        review = review_series(series, options)
        calendar, _ = load_calendar(None)
        classes = {c.counter: c for c in (review.verdict.patches if review.verdict is not None else ())}
        first = series.first
        return Facts(
            key=job.key,
            recipients=tuple(a.lower() for _, a in mailboxes(first.to + first.cc) if a) if first else (),
            has_cover=series.has_cover,
            findings=tuple((f.rule, f.severity.value, f.patch) for f in review.findings),
            patches=tuple(_patch_facts(p, classes.get(p.counter), review.profile, calendar) for p in series.patches),
            pull=is_pull_request(series))
    except ReviewtoolError as exc:
        return Facts(job.key, skipped=exc.one_line())
    except Exception as exc:  # one bad posting must not end the run: it is counted as not reviewed
        return Facts(job.key, skipped=f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}")


_OPTIONS = None


def _init(options) -> None:
    global _OPTIONS
    _OPTIONS = options
    from ..sources.b4fetch import init_b4
    from ..review import context_stages
    from ..rules.registry import all_rules

    init_b4()
    all_rules()
    context_stages()


def _batch(jobs: list[Job], options=None) -> list[Facts]:
    """facts_of for several postings, their patch-ids asked of git once for all (as triage does)."""
    from ..mail.headers import forget_parsed_headers
    from ..triage.run import _read_raws, _warm_patch_ids

    raw_lists = _read_raws(jobs)
    _warm_patch_ids(raw_lists)
    out = []
    for job, raws in zip(jobs, raw_lists):
        try:
            out.append(facts_of(job, raws, options or _OPTIONS))
        finally:
            forget_parsed_headers()
    return out


def review_postings(jobs: list[Job], options, workers: int,
                    on_done: Callable[[Facts], None] | None = None) -> Iterator[Facts]:
    """The facts of every job, in order; in `workers` processes when more than one."""
    size = max(1, min(16, len(jobs) // (max(1, workers) * 8) or 1))
    batches = [jobs[i:i + size] for i in range(0, len(jobs), size)]
    if workers <= 1 or len(batches) <= 1:
        results: Iterable[list[Facts]] = (_batch(b, options) for b in batches)
        yield from _each(results, on_done)
        return
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp, initializer=_init, initargs=(options,)) as pool:
        yield from _each(pool.map(_batch, batches), on_done)


def _each(results: Iterable[list[Facts]], on_done) -> Iterator[Facts]:
    for items in results:
        for item in items:
            if on_done:
                on_done(item)
            yield item


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
