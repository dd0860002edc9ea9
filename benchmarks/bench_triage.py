"""Benchmark `reviewtool triage` on generated list archives of 100, 1,000 and 10,000 series.

The archives are made of the real threads in fixtures/corpus (netfilter-devel, netdev, b4
samples): series i is a copy of one corpus thread with its message-ids, subjects and change-ids
made unique, its dates moved and the first added line of each diff marked with the copy's
number, so every copy is its own series with its own patch-ids, as in a real list archive.

For each size it runs `reviewtool triage ARCHIVE --format json` in a fresh process, with and
without `--jobs 2`, and reports wall time, series/s and peak memory (the process tree's summed PSS, sampled from
/proc every 20 ms: the RSS of the workers without counting their shared pages twice).

As the reference it times b4's own parse of the same archive in the same run: reading
the mbox (b4.get_msgs_from_mailbox_or_maildir) and building every series (LoreMailbox +
get_series), which is the floor under anything built on b4.

    python3 benchmarks/bench_triage.py                 # 100, 1000, 10000
    python3 benchmarks/bench_triage.py --sizes 100 1000 --keep /tmp/archives
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "corpus" / "mbox"
TEMPLATE_DIRS = ("netfilter-devel", "netdev", "b4")
NOW = "2026-11-20T00:00:00Z"
_ID_HEADERS_RE = re.compile(rb"^(Message-I[dD]|In-Reply-To|References):(.*(?:\n[ \t].*)*)", re.M | re.I)
_SUBJECT_RE = re.compile(rb"^(Subject:[^\n]*?)(\]\s*)([^\n]*)$", re.M | re.I)
_DATE_RE = re.compile(rb"^Date:[^\n]*(\n[ \t][^\n]*)*", re.M)
_CHANGE_ID_RE = re.compile(rb"^(change-id:[ \t]*\S+)", re.M)
_ADDED_LINE_RE = re.compile(rb"^\+(?!\+\+ )[^\n]*", re.M)
_BASE64_RE = re.compile(rb"^content-transfer-encoding:[ \t]*base64", re.M | re.I)
_SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"


def templates() -> list[list[bytes]]:
    """Each corpus thread as a list of mails (mboxrd bodies), through reviewtool's own splitter."""
    sys.path.insert(0, str(ROOT))
    from reviewtool.sources.files import read_raw_mails

    out = []
    for d in TEMPLATE_DIRS:
        for f in sorted((CORPUS / d).glob("*.mbox")):
            try:
                mails = [r.data for r in read_raw_mails(f)]
            except Exception:
                continue
            if any(b"[PATCH" in m[:4000] for m in mails):
                out.append(mails)
    return out


def _unique(mail: bytes, n: int, when: datetime) -> bytes:
    head, sep, body = mail.partition(b"\n\n")
    head = _ID_HEADERS_RE.sub(lambda m: m.group(1) + b":" + re.sub(rb"<([^<>\s]+)>", rb"<g%d.\1>" % n, m.group(2)),
                              head)
    head = _SUBJECT_RE.sub(lambda m: m.group(1) + m.group(2) + b"s%d " % n + m.group(3), head, count=1)
    head = _DATE_RE.sub(b"Date: " + format_datetime(when).encode(), head, count=1)
    body = _CHANGE_ID_RE.sub(rb"\1-g%d" % n, body)
    if not _BASE64_RE.search(head):  # each copy's diffs differ too, so no patch-id repeats across copies
        body = _ADDED_LINE_RE.sub(lambda m: m.group(0) + b" /* g%d */" % n, body, count=1)
    body = re.sub(rb"^(>*From )", rb">\1", body, flags=re.M)  # mboxrd quoting
    return head + sep + body


def generate(path: Path, series: int, pool: list[list[bytes]]) -> int:
    """An mboxrd archive of `series` copies of corpus threads; returns its message count."""
    start = datetime(2026, 6, 1, tzinfo=timezone.utc)
    count = 0
    with open(path, "wb") as out:
        for n in range(series):
            base = start + timedelta(minutes=20 * n)
            for k, mail in enumerate(pool[n % len(pool)]):
                out.write(_SEP + _unique(mail, n, base + timedelta(minutes=k)).rstrip(b"\n") + b"\n\n")
                count += 1
    return count


def _tree_rss_kb(pid: int) -> int:
    """Memory of a process and all its descendants, from /proc: the sum of their PSS (pages shared
    between forked workers counted once), or of their RSS where smaps_rollup is missing."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            try:
                with open(f"/proc/{p}/smaps_rollup") as fh:
                    total += next(int(l.split()[1]) for l in fh if l.startswith("Pss:"))
            except (OSError, StopIteration):
                with open(f"/proc/{p}/status") as fh:
                    total += next(int(l.split()[1]) for l in fh if l.startswith("VmRSS:"))
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError, StopIteration):
            continue
    return total


def measure(cmd: list[str]) -> dict:
    """Wall time, exit code and peak memory (process tree PSS, sampled every 20 ms) of a command."""
    peak = 0
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--keep", type=Path, help="Keep the generated archives in this directory.")
    ap.add_argument("--no-b4", action="store_true", help="Skip the b4 reference.")
    ap.add_argument("--json", type=Path, help="Also write the results here.")
    args = ap.parse_args()

    pool = templates()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-triage-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    print(f"{len(pool)} corpus threads as templates; {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.1f} at the start; archives in {work}", flush=True)
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
            r = measure([sys.executable, "-c", "from reviewtool.cli import run; run()", "triage", str(archive), "--format", "json",
                         "--now", NOW, "--jobs", str(jobs), "--no-progress"])
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
