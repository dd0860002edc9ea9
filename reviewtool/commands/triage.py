"""`reviewtool triage ARCHIVE...`: one maintainer's report over many series."""

from __future__ import annotations

import json
import sys
import tempfile
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, InputError

# Kept in step with triage/status.py and triage/run.py (imported lazily: the CLI starts fast).
STATUSES = ("ready", "needs-review", "needs-revision", "wrong-tree", "incomplete", "stale", "superseded")
DEFAULT_LINK_BASE = "https://lore.kernel.org/all/"


class Format(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"
    html = "html"
    patchwork = "patchwork"


class Sort(str, Enum):
    status = "status"
    age = "age"
    tree = "tree"


def triage(
    sources: list[str] = typer.Argument(None, help="mbox or maildir archives, gzip of either, or directories "
                                                   "of mail files."),
    msgids: Optional[Path] = typer.Option(None, "--msgids", help="A file of message-ids (one a line) to fetch."),
    query: Optional[str] = typer.Option(None, "--query", help="A public-inbox search on the configured server, "
                                                              "e.g. 's:\"PATCH net\" d:7.days.ago..'."),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False,
                                          help="Write to this file (never an input or the store)."),
    sort: Sort = typer.Option(Sort.status, "--sort", help="Row order: status, age (oldest first) or tree."),
    status: list[str] = typer.Option([], "--status", help="Only list series with this status (repeatable)."),
    stale_days: int = typer.Option(14, "--stale-days", min=1, help="Days without any mail before a series "
                                                                   "that is not ready is stale."),
    now: Optional[str] = typer.Option(None, "--now", help="Take this ISO 8601 time as now (ages, staleness)."),
    since: Optional[str] = typer.Option(None, "--since", metavar="WHEN",
                                        help="Only series with mail since then: a duration before now (14d, 36h) "
                                             "or a date (2026-11-01)."),
    until: Optional[str] = typer.Option(None, "--until", metavar="WHEN", help="Only series with mail until then."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, max=64,
                                       help="Series reviewed in parallel (processes). Default: the machine's "
                                            "cores for an archive of 4 MB or more, else 1."),
    repo: Optional[Path] = typer.Option(None, "--repo", help="A git repository for history and apply checks."),
    tree: list[str] = typer.Option([], "--tree", help="NAME=REF: where a tree is in --repo (repeatable)."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p", help="Force one profile for every series."),
    select: list[str] = typer.Option([], "--select", help="Only these rules or families."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules or families."),
    lore_url: Optional[str] = typer.Option(None, "--lore-url", metavar="URL",
                                           help="Archive server for --msgids and --query (as for `check`)."),
    offline: bool = typer.Option(False, "--offline", help="--msgids from the cache only."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Fetch again even when a cached thread is fresh."),
    cache_ttl: str = typer.Option("10m", "--cache-ttl", help="Reuse a fetched thread this long."),
    timeout: str = typer.Option("30s", "--timeout", help="Give up on the server after this long."),
    link_base: Optional[str] = typer.Option(None, "--link-base",
                                            help="Archive address thread links are made from (message-id "
                                                 "appended). Default: --lore-url, else lore.kernel.org/all."),
    report_url: Optional[str] = typer.Option(None, "--report-url",
                                             help="Where the HTML report is published (patchwork target_url)."),
    pw_context: str = typer.Option("reviewtool", "--pw-context", help="patchwork check context name."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                            help="Progress bar on stderr (default: when stderr is a terminal)."),
    store: Optional[Path] = typer.Option(None, "--store", metavar="PATH", readable=False,  # said by the store itself
                                         help="The result store (SQLite) to reuse reviews from and keep them in. "
                                              "Default: $XDG_CACHE_HOME/reviewtool/triage.sqlite."),
    no_store: bool = typer.Option(False, "--no-store", help="Review every series; neither read nor write the store."),
    store_info: bool = typer.Option(False, "--store-info",
                                    help="Say on stderr how many series were reused and reviewed; alone, describe "
                                         "the store."),
) -> int:
    """Triage many series at once: ready, needs review or revision, applied, sent back, stale.

    Every series of the archive gets one status and its next step; what the maintainers' replies
    settled comes first (applied, changes requested, deferred, rejected); earlier revisions are
    listed as superseded.

    Exit codes: 0 no triaged series has error-level findings, 1 some have, 2 unusable input.
    """
    from ..options import ReviewOptions
    from ..triage import reuse
    from ..triage.group_memo import grouped
    from ..triage.group_memo import keep as keep_grouping
    from ..triage.store import default_path
    from ..triage.store_index import index_archive
    from ..triage.inputs import fetch_msgids, read_msgid_file, search
    from ..triage.output import render_chunks, write_report
    from ..triage.report import build_report, json_chunks, parse_now, patchwork_checks
    from ..triage.entry import entry
    from ..triage.pulls_memo import pulled_states
    from ..triage.run import (TriageOptions, late_worker_pool, segment_scan, superseded_entries, warm_pool,
                              worker_pool)
    from ..triage.spool import Spool
    from ..collector import settle, unsettle

    from ..sources.lore import FetchOptions, parse_duration, server_base

    show = sys.stderr.isatty() if progress is None else progress
    unknown = [s for s in status if s not in STATUSES]
    if unknown:
        raise InputError(f"--status {unknown[0]!r}: not a status (one of {', '.join(STATUSES)})")
    if store is not None and no_store:
        raise InputError("--store and --no-store: choose one")
    if not sources and msgids is None and query is None:
        if store_info and not no_store:
            return _describe_store(store or default_path())
        raise InputError("nothing to triage: give archives, --msgids FILE or --query")
    trees = {}
    for spec in tree:
        name, sep, ref = spec.partition("=")
        if not sep or not name or not ref:
            raise InputError(f"--tree {spec!r}: expected NAME=REF")
        trees[name] = ref
    if repo is not None and not repo.is_dir():
        raise InputError(f"--repo {repo}: no such directory")
    from ..render.output import refuse_clobbering

    configured_store = store or default_path()
    refuse_clobbering(output, [Path(s) for s in sources or ()] + ([msgids] if msgids else []),
                      [configured_store, Path(f"{configured_store}-wal"), Path(f"{configured_store}-shm")])
    when = parse_now(now)
    from ..triage.window import narrow, parse_when

    window = (parse_when(since, "--since", when) if since else None, parse_when(until, "--until", when) if until else None)
    if jobs is None:
        jobs = _auto_jobs([Path(s) for s in sources or ()])
    fetch = FetchOptions(lore_url=lore_url, cache_ttl_s=parse_duration(cache_ttl, "--cache-ttl"),
                         no_cache=no_cache, offline=offline, quiet=not show,
                         timeout_s=parse_duration(timeout, "--timeout", positive=True))
    if link_base is None:
        link_base = server_base(lore_url, "--lore-url") + "/" if lore_url else DEFAULT_LINK_BASE
    opts = TriageOptions(review=ReviewOptions(profile=profile, repo=repo, trees=trees, select=tuple(select),
                                              ignore=tuple(ignore), now=when),
                         now=when, stale_days=stale_days, jobs=jobs, link_base=link_base)
    store_path = None if no_store else store or default_path()
    # With a store that likely answers most series, the workers are forked only once the plan
    # says some series must be reviewed (a run the store answers whole forks none).
    deferred = _has_reviews(store_path)
    with ExitStack() as stack:
        # Not warmed: the idle workers scan the archive's segments while the parent scans its own,
        # and their imports (b4, the rules: 0.4 s each) would come first, on the index's critical path.
        pool = None if deferred else stack.enter_context(worker_pool(opts, warm=False))
        scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="reviewtool-triage-"))
        guard = stack.enter_context(_store(store_path))
        paths = [Path(s) for s in sources or ()]
        labels = [str(p) for p in paths]
        notes: list[str] = []
        skipped_files: list[str] = []
        scratch_labels: dict[Path, str] = {}
        if msgids is not None:
            fetched, notes = fetch_msgids(read_msgid_file(msgids), Path(scratch), fetch)
            paths.append(fetched)
            labels.append(f"message-ids from {msgids}")
            scratch_labels[fetched] = labels[-1]
        if query is not None:
            paths.append(search(query, Path(scratch), fetch))
            scratch_labels[paths[-1]] = f"search {query!r}"
            labels.append(f"search: {query}")
        with _status(show, "Reading the archive …"):
            # The rows read are encoded and written while the workers review (or at the end, whatever happens)
            indexed = index_archive(paths, Path(scratch), guard, skipped_files, scratch_labels, segment_scan(pool, opts.jobs),
                                    defer=True)
            settle()  # the index lives as long as the run: no collection walks it again
            stack.callback(unsettle)
            stack.callback(indexed.save_rows)
            if deferred and indexed.mails_new:  # new mail: its series will be reviewed, so fork now
                pool = stack.enter_context(late_worker_pool(opts))
            warm_pool(pool, opts.jobs)  # the workers load b4 and the rules while the archive is grouped
            grouping, grouping_key = grouped(indexed, guard, defer=True)
            settle()
            whole = replace(grouping, series=list(grouping.series), orphans=list(grouping.orphans))  # before narrowing
        if not grouping.messages:
            raise InputError(f"{', '.join(labels)}: no mail messages found")
        limited = indexed.notes() + _cap_series(grouping)
        for line in limited:
            _say(line)  # a limit that trips is said even when the report goes to a file
        notes += narrow(grouping, *window)
        plan = reuse.plan(grouping.series, opts, guard, indexed.digests)
        if plan.todo:
            indexed.unpack()  # a gzip whose index the store gave: its mails are read now
            if deferred and pool is None:
                pool = stack.enter_context(late_worker_pool(opts))
        later: dict = {}

        def meanwhile() -> None:  # what the replies settled outside the series, read while they are reviewed
            nonlocal grouping_key
            indexed.save_rows()
            if grouping_key is None:
                grouping_key = keep_grouping(whole, indexed, guard)
            later["pulled"], later["pull_keys"] = pulled_states(grouping, indexed, opts, guard, grouping_key)
            later["orphans"] = reuse.orphan_states(grouping.orphans, opts, guard, indexed.digests, plan.env,
                                                   indexed.unpack)

        with _progress(show, len(grouping.series), done=plan.reused) as tick:
            reviewed = reuse.review(plan, grouping.series, opts, guard, pool=pool, on_done=tick, meanwhile=meanwhile)
        over = _over_limits(reviewed)
        if over:
            _say(over)
        pulled = later["pulled"]
        orphans, orphan_keys = later["orphans"]
        spool = Spool()
        for g, r in zip(grouping.series, reviewed):
            spool.add_packed(entry(g, r, opts, pulled.get(g.key)))
        for g, r in zip(grouping.series, reviewed):
            for item in superseded_entries(g, opts, r):
                spool.add(item)
        notes += [f"skipped a file that is not mail: {why}" for why in skipped_files] + limited
        report = build_report(spool, grouping, opts, inputs=labels, order=sort.value, only=tuple(status),
                              notes=notes, orphan_states=orphans)
        if fmt is Format.json:
            chunks = json_chunks(report)
        elif fmt is Format.patchwork:
            chunks = iter([json.dumps(patchwork_checks(report, context=pw_context, report_url=report_url),
                                      indent=2, ensure_ascii=False) + "\n"])
        else:
            chunks = render_chunks(f"triage.{fmt.value}.j2", t=report)
        write_report(chunks, fmt.value, output)
        summary = {"reused": plan.reused, "reviewed": len(plan.todo), "files_read": indexed.files_read,
                   "files_resumed": indexed.files_resumed, "files_kept": indexed.files_kept,
                   "mails_read": indexed.mails_read}
        used = plan.used_keys() + orphan_keys + later["pull_keys"] + ([grouping_key] if grouping_key else [])
        guard.call(lambda st: st.finish_run(summary, used, indexed.used_files))
        if store_info:
            _say(_run_line(guard, store_path, summary))
    shown = {s.index for s in spool.summaries if not status or s.status in status}
    errors = any(s.errors for s in spool.summaries if s.index in shown and s.status != "superseded")
    return EXIT_FINDINGS if errors else EXIT_OK


def _say(line: str) -> None:
    from ..render.env import strip_controls

    sys.stderr.write(f"reviewtool: {strip_controls(line)}\n")


@contextmanager
def _store(path: Path | None):
    """The run's result store (triage/store.Guard): a store that fails is said in one line."""
    from ..triage.store import Guard

    guard = Guard.open(path, _say)
    guard.call(lambda st: st.begin_run())
    try:
        yield guard
    finally:
        guard.close()


def _cap_series(grouping) -> list[str]:
    """Keep the newest REVIEWTOOL_MAX_SERIES series of the archives (the report's ids are counted
    again from 0); the line that says how many older ones were left out."""
    from dataclasses import replace

    from ..limits import limits

    cap = limits().archive_series
    total = len(grouping.series)
    if total <= cap:
        return []
    grouping.series = [replace(g, key=i) for i, g in enumerate(grouping.series[total - cap:])]
    return [f"the archives hold {total:,} series, over the limit of {cap:,} (REVIEWTOOL_MAX_SERIES): the "
            f"{total - cap:,} oldest were not triaged"]


def _over_limits(reviewed) -> str | None:
    """The line that says how many series a limit set aside (the report lists each, with its limit)."""
    import re
    from collections import Counter

    names = Counter(m.group(1) for r in reviewed if r.status == "skipped"
                    for m in [re.search(r"\((REVIEWTOOL_[A-Z_]+)\)", r.skip_reason or "")] if m)
    if not names:
        return None
    n = sum(names.values())
    return (f"{n:,} series could not be reviewed for a limit ("
            + ", ".join(f"{name}: {k:,}" for name, k in sorted(names.items()))
            + "); the report lists them under 'could not be reviewed'")


AUTO_JOBS_BYTES = 4 << 20  # about a thousand mails: below it, forking workers costs more than it saves


def _auto_jobs(paths: list[Path]) -> int:
    """The default --jobs: every core (triage/run.default_jobs) for archives of AUTO_JOBS_BYTES
    or more, one process for less (a directory's files are counted until the size is reached)."""
    from ..triage.run import default_jobs

    total = 0
    for p in paths:
        try:
            if p.is_dir():
                for f in p.rglob("*"):
                    total += f.stat().st_size if f.is_file() else 0
                    if total >= AUTO_JOBS_BYTES:
                        break
            else:
                total += p.stat().st_size
        except OSError:
            continue  # said by the reader of the archive
        if total >= AUTO_JOBS_BYTES:
            return default_jobs()
    return 1


def _has_reviews(path: Path | None) -> bool:
    """Whether a store is there, likely to answer most series (told without opening it: without
    one, the workers are forked before it is opened)."""
    try:
        return path is not None and path.stat().st_size > 64 * 1024
    except OSError:
        return False


def _run_line(guard, path: Path | None, s: dict) -> str:
    if path is None or not guard.usable:
        return f"no result store used: {s['reviewed']:,} series reviewed"
    return (f"result store {path}: {s['reused']:,} series reused, {s['reviewed']:,} reviewed; archive files: "
            f"{s['files_resumed']:,} read from where the last run stopped, {s['files_read']:,} read whole, "
            f"{s['files_kept']:,} unchanged ({s['mails_read']:,} mails read)")


def _describe_store(path: Path) -> int:
    """`triage --store-info` alone: what the store holds, on stdout."""
    from ..triage.store import Guard

    guard = Guard.open(path, _say)
    info = guard.call(lambda st: st.info())
    guard.close()
    if info is None:
        return EXIT_INPUT
    last = info["last_run"]
    print(f"result store {info['path']}: {info['reviews']:,} reviews, {info['files']:,} indexed archive files, "
          f"{info['bytes'] / 1e6:.1f} MB")
    if last:
        print(f"last run: {last['reused']:,} series reused, {last['reviewed']:,} reviewed")
    return EXIT_OK


def _status(show: bool, text: str):
    """A spinner on stderr while the archive is indexed (no count is known yet)."""
    if not show:
        return nullcontext()
    from rich.console import Console

    return Console(stderr=True, force_terminal=True if not sys.stderr.isatty() else None).status(text)


def _progress(show: bool, total: int, done: int = 0):
    """A rich progress bar on stderr, advanced once per finished series (`done` reused ones)."""
    if not show or total == 0:
        return nullcontext(lambda item: None)
    from contextlib import contextmanager

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    @contextmanager
    def bar():
        console = Console(stderr=True, force_terminal=True if not sys.stderr.isatty() else None)
        with Progress(TextColumn("triage"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=console, transient=True) as prog:
            task = prog.add_task("triage", total=total, completed=done)
            yield lambda item: prog.advance(task)

    return bar()


EPILOG = """Examples:
  reviewtool triage netdev-week.mbox
  reviewtool triage ~/Mail/netdev/ --jobs 2 -f html -o triage.html
  reviewtool triage --msgids queue.txt --repo ~/linux --tree net=net/main

More: docs/triage.md in reviewtool's source describes the statuses, the formats and
the result store."""


def register(app: typer.Typer) -> None:
    app.command("triage", epilog=EPILOG)(triage)
