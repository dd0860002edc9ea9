"""Benchmark `reviewtool triage` on generated list archives of 100, 1,000 and 10,000 series.

The archives are made of the real threads in fixtures/corpus (netfilter-devel, netdev, b4
samples) by gen_triage.py: series i is a copy of one corpus thread with its message-ids,
subjects and change-ids made unique, its dates moved and the first added line of each diff
marked with the copy's number, so every copy is its own series with its own patch-ids.

For each size it runs `reviewtool triage ARCHIVE --format json --no-store` in a fresh process, with and
without `--jobs 2`, and reports wall time, series/s and peak memory (the process tree's summed PSS, sampled from
/proc every 20 ms: the RSS of the workers without counting their shared pages twice).

As the reference it times b4's own parse of the same archive in the same run: reading
the mbox (b4.get_msgs_from_mailbox_or_maildir) and building every series (LoreMailbox +
get_series), which is the floor under anything built on b4.

With --store it measures the result store instead, in one run per size: a --no-store run, the
cold run that fills a new store, a warm re-run of the unchanged archive, and a run after 300 new
mails were appended (new series, new revisions and replies to old series), each compared byte
for byte with the JSON of a --no-store run of the same input.

    python3 benchmarks/bench_triage.py                 # 100, 1000, 10000
    python3 benchmarks/bench_triage.py --sizes 100 1000 --keep /tmp/archives
    python3 benchmarks/bench_triage.py --store --sizes 10000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_triage import append_mails, generate, templates  # noqa: E402

NOW = "2026-11-20T00:00:00Z"


_KCMP = {"x86_64": 312, "aarch64": 272}.get(platform.machine())  # kcmp(2)'s syscall number
_KCMP_VM = 1


def _same_memory(a: int, b: int, rollup_a: str | None, rollup_b: str | None) -> bool:
    """Whether process b, a child of a, holds a's memory rather than its own: made by vfork and
    sharing a's address space (kcmp(2) says so), or forked and not yet running its program (its
    smaps_rollup is a's, figure for figure)."""
    if _KCMP is not None:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).syscall(_KCMP, a, b, _KCMP_VM, 0, 0) == 0:
            return True
    return rollup_a is not None and rollup_b is not None and rollup_a.splitlines()[1:] == rollup_b.splitlines()[1:]


def _tree_rss_kb(pid: int) -> int:
    """Memory of a process and all its descendants, from /proc: the sum of their PSS (pages shared
    between forked workers counted once), or of their RSS where smaps_rollup is missing. A child
    made by vfork (subprocess's way to start `git`) shares its parent's memory until it runs the
    program, and so does a forked one until it has: neither is counted twice. They were, and a
    120 MB worker starting `git patch-id` read as 240 MB for that instant (a tree peak of 440 to
    510 MB where it holds 370)."""
    total, todo, seen = 0, [(pid, None, None)], set()
    while todo:
        p, parent, parent_rollup = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        rollup = None
        try:
            try:
                with open(f"/proc/{p}/smaps_rollup") as fh:
                    rollup = fh.read()
                if parent is None or not _same_memory(parent, p, parent_rollup, rollup):
                    total += next(int(l.split()[1]) for l in rollup.splitlines() if l.startswith("Pss:"))
            except (OSError, StopIteration):
                with open(f"/proc/{p}/status") as fh:
                    total += next(int(l.split()[1]) for l in fh if l.startswith("VmRSS:"))
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend((int(c), p, rollup) for c in fh.read().split())
        except (OSError, ValueError, StopIteration):
            continue
    return total


def held_tree_kb(pid: int) -> int:
    """What the process tree holds for 20 ms at least: the smaller of two readings of
    _tree_rss_kb 20 ms apart. A child between fork and exec reads for a moment as a copy of its
    parent (a worker starting `git patch-id`), which no reading of one instant tells apart."""
    first = _tree_rss_kb(pid)
    time.sleep(0.02)
    return min(first, _tree_rss_kb(pid))


def measure(cmd: list[str], memory: bool = True) -> dict:
    """Wall time, exit code and peak memory (process tree PSS held 20 ms, sampled every 40 ms) of a command.
    Without `memory`, nothing is sampled (peak 0): reading smaps_rollup 50 times a second walks
    the processes' page tables and takes a share of two cores (up to 2 s of a 9 s run)."""
    peak = 0
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, held_tree_kb(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    if memory:
        sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    if memory:
        sampler.join()
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command and every process it waited for
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "code": proc.returncode, "peak_rss_mb": peak / 1024,
            "stdout": out, "stderr": err}


B4_REFERENCE = r"""
import argparse, json, logging, re, resource, sys, time
t0 = time.perf_counter()
import b4
logging.getLogger("b4").handlers[:] = [logging.NullHandler()]
logging.getLogger("b4").propagate = False
b4.setup_config(argparse.Namespace(config={"attestation-policy": "off"}))
b4.can_network = False
t1 = time.perf_counter()
msgs = b4.get_msgs_from_mailbox_or_maildir(sys.argv[1])
t2 = time.perf_counter()
# thread the messages (References/In-Reply-To) and build each thread's series, as b4 am would
parent = {}
def find(x):
    while parent.setdefault(x, x) != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
ids = []
for m in msgs:
    mid = b4.LoreMessage.get_clean_msgid(m) or ""
    ids.append(mid)
    find(mid)
    for h in ("In-Reply-To", "References"):
        for ref in re.findall(r"<([^<>\s]+)>", str(m.get(h, ""))):
            parent[find(ref)] = find(mid)
threads = {}
for mid, m in zip(ids, msgs):
    threads.setdefault(find(mid), []).append(m)
built = 0
for group in threads.values():
    lmbx = b4.LoreMailbox()
    for m in group:
        try:
            lmbx.add_message(m)
        except Exception:
            pass
    try:
        if lmbx.get_series(codereview_trailers=False) is not None:
            built += 1
    except (Exception, SystemExit):
        pass
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "read_s": t2 - t1, "series_s": t3 - t2, "messages": len(msgs),
                  "threads": len(threads), "series_built": built,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def triage_cmd(archive: Path, jobs: int, *extra: str) -> list[str]:
    return [sys.executable, "-c", "from reviewtool.cli import run; run()", "triage", str(archive), "--format", "json",
            "--now", NOW, "--jobs", str(jobs), "--no-progress", *extra]


def _stored(archive: Path, jobs: int, store: Path) -> dict:
    """A run with the store: its measure() and the counts --store-info gives."""
    r = measure(triage_cmd(archive, jobs, "--store", str(store), "--store-info"))
    m = re.search(r"([\d,]+) series reused, ([\d,]+) reviewed", r["stderr"].decode())
    if r["code"] not in (0, 1) or not m:
        raise SystemExit(f"triage failed: {r['stderr'].decode()[-500:]}")
    r["reused"], r["reviewed"] = (int(g.replace(",", "")) for g in m.groups())
    return r


def _median(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]


def store_benchmark(args, pool, work: Path) -> list[dict]:
    """Cold, warm and +300 mails with the result store, each against a --no-store run's JSON."""
    results = []
    print(f"{'series':>7} {'jobs':>4}  {'run':<28} {'wall s':>8} {'x cold':>7} {'CPU s':>7} {'peak MB':>8} "
          f"{'reused':>7} {'reviewed':>8}  JSON = --no-store", flush=True)
    for size in args.sizes:
        for jobs in args.jobs:
            archive, store = work / f"archive-{size}.mbox", work / f"store-{size}-{jobs}.sqlite"
            msgs = generate(archive, size, pool)
            for f in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
                f.unlink(missing_ok=True)
            plain = measure(triage_cmd(archive, jobs, "--no-store"))
            cold = _stored(archive, jobs, store)
            warm = _median([_stored(archive, jobs, store) for _ in range(args.repeat)])
            kept = store.read_bytes()  # the store as the morning finds it (its WAL is checkpointed at exit)
            added = append_mails(archive, size, pool)
            grown = []
            for _ in range(args.repeat):
                store.write_bytes(kept)
                grown.append(_stored(archive, jobs, store))
            grown_run = _median(grown)
            plain_grown = measure(triage_cmd(archive, jobs, "--no-store"))
            rows = [("no store", plain, None), ("cold (new store)", cold, plain),
                    (f"warm (median of {args.repeat})", warm, plain),
                    (f"+{added['mails']} mails (median of {args.repeat})", grown_run, plain_grown),
                    ("no store, +mails", plain_grown, None)]
            for name, r, ref in rows:
                same = "" if ref is None else ("yes" if r["stdout"] == ref["stdout"] else "NO")
                row = {"series": size, "messages": msgs, "jobs": jobs, "run": name, "wall_s": round(r["wall_s"], 2),
                       "of_cold": round(r["wall_s"] / cold["wall_s"], 3), "cpu_s": round(r["cpu_s"], 2),
                       "peak_rss_mb": round(r["peak_rss_mb"], 1), "reused": r.get("reused"),
                       "reviewed": r.get("reviewed"), "json_equal": same or None, "appended": added}
                results.append(row)
                print(f"{size:>7} {jobs:>4}  {name:<28} {row['wall_s']:>8.2f} {row['of_cold']:>7.3f} {row['cpu_s']:>7.2f} "
                      f"{row['peak_rss_mb']:>8.1f} {'' if r.get('reused') is None else r['reused']:>7} "
                      f"{'' if r.get('reviewed') is None else r['reviewed']:>8}  {same}", flush=True)
            print(f"        appended: {added['new_series']} new series, {added['revisions']} new revisions, "
                  f"{added['replies']} replies to old series; load average {os.getloadavg()[0]:.1f}", flush=True)
            if not args.keep:
                for f in (archive, store):
                    f.unlink(missing_ok=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--keep", type=Path, help="Keep the generated archives in this directory.")
    ap.add_argument("--no-b4", action="store_true", help="Skip the b4 reference.")
    ap.add_argument("--json", type=Path, help="Also write the results here.")
    ap.add_argument("--store", action="store_true", help="Measure the result store: cold, warm, +300 mails.")
    ap.add_argument("--repeat", type=int, default=3, help="With --store: runs of warm and +300 mails (median).")
    args = ap.parse_args()

    pool = templates()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-triage-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    print(f"{len(pool)} corpus threads as templates; {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.1f} at the start; archives in {work}", flush=True)
    if args.store:
        results = store_benchmark(args, pool, work)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2) + "\n")
        return 0 if all(r["json_equal"] in (None, "yes") for r in results) else 1
    print(f"{'series':>7} {'msgs':>7} {'MB':>6} {'jobs':>4} {'wall s':>8} {'series/s':>9} {'CPU s':>8} "
          f"{'CPU ms/series':>13} {'peak MB':>8}   b4 read+build: wall s, CPU s (CPU ms/series), RSS MB",
          flush=True)
    for size in args.sizes:
        archive = work / f"archive-{size}.mbox"
        msgs = generate(archive, size, pool)
        mb = archive.stat().st_size / 1e6
        ref = None
        if not args.no_b4:
            r = measure([sys.executable, "-c", B4_REFERENCE, str(archive)])
            ref = json.loads(r["stdout"]) if r["code"] == 0 else {"error": r["stderr"].decode()[-300:]}
            ref["cpu_s"] = round(r["cpu_s"], 2)
        for jobs in args.jobs:
            r = measure(triage_cmd(archive, jobs, "--no-store"))  # every series reviewed: no store
            if r["code"] not in (0, 1):
                print(f"triage failed: {r['stderr'].decode()[-500:]}", file=sys.stderr)
                return 1
            report = json.loads(r["stdout"])
            triaged = report["totals"]["series"] + report["totals"]["skipped"]
            row = {"series": size, "messages": msgs, "archive_mb": round(mb, 1), "jobs": jobs,
                   "triaged": triaged, "superseded": report["totals"]["superseded"],
                   "wall_s": round(r["wall_s"], 2), "series_per_s": round(triaged / r["wall_s"], 1),
                   "cpu_s": round(r["cpu_s"], 2), "cpu_ms_per_series": round(1000 * r["cpu_s"] / triaged, 2),
                   "load_average": round(os.getloadavg()[0], 1),
                   "peak_rss_mb": round(r["peak_rss_mb"], 1), "b4_reference": ref}
            results.append(row)
            b4_text = ""
            if ref and "read_s" in ref and jobs == args.jobs[0]:
                b4_s = ref["read_s"] + ref["series_s"]
                b4_text = (f"{b4_s:8.2f} {ref['cpu_s']:8.2f} ({1000 * ref['cpu_s'] / max(1, ref['series_built']):.1f}), "
                           f"{ref['peak_rss_mb']:.0f}")
            print(f"{size:>7} {msgs:>7} {mb:>6.1f} {jobs:>4} {r['wall_s']:>8.2f} {row['series_per_s']:>9.1f} "
                  f"{row['cpu_s']:>8.2f} {row['cpu_ms_per_series']:>13.2f} {row['peak_rss_mb']:>8.1f}   {b4_text}",
                  flush=True)
        if not args.keep:
            archive.unlink()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
