"""Size limits (issue 7) and small inputs that cost more than their size (issue 32's table): each
input finishes with bounded memory or stops with a clear message.

Generates a 10,000-deep reply chain, a 5,000-message thread, a single 20 MB patch, a 100 MB mbox
of one-patch threads, then issue 32's shapes at the table's largest sizes, runs `reviewtool check
--format json` (or `triage`) on each in a subprocess, and prints wall time, the child's CPU time,
its peak RSS, the exit code and the first line of stderr. Usage:

    python3 benchmarks/bench_limits.py [--out DIR] [--small] [--only WORD] [--table]

--small uses a tenth of each size (a quick look; docs/performance.md quotes the full run); --only
runs the cases whose label holds WORD, --table issue 32's alone. Run it from a directory that holds
no reviewtool/ (the children's `-c` puts the working directory first on their path).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_limits import (asking_thread, big_mbox, big_thread, bracket_run, deep_reply_chain,  # noqa: E402
                        encoded_cc, encoded_cc_8bit, encoded_subject, encoded_subject_8bit, folded_header,
                        huge_patch, long_tag, many_trailers, patch_thread, reply_bracket_run)


# The child reports its own peak resident size (VmHWM: this address space's, from exec on);
# ru_maxrss also counts what the child held before exec, a copy of this generating process.
_CHILD = """
import os, runpy, sys
sys.argv = ["reviewtool", *sys.argv[1:]]
try:
    runpy.run_module("reviewtool", run_name="__main__")
finally:
    hwm = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    os.write(2, f"\\nVmHWM {hwm}\\n".encode())
"""


def run(path: Path, command: str = "check") -> tuple[float, float, int, int, str]:
    """(seconds, CPU seconds, peak RSS in MB, exit code, first stderr line) of one reviewtool run,
    CPU (os.wait4) and peak RSS that child's own."""
    extra = ["--no-store", "--jobs", "1"] if command == "triage" else []
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, command, str(path), "--format", "json", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    cpu = usage.ru_utime + usage.ru_stime
    lines = err.strip().splitlines()
    rss = int(lines.pop().split()[1]) // 1024 if lines and lines[-1].startswith("VmHWM ") else usage.ru_maxrss // 1024
    return wall, cpu, rss, proc.returncode, (lines or [""])[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--table", action="store_true", help="only issue 32's table")
    args = ap.parse_args()
    k = 10 if args.small else 1
    out = args.out or Path(tempfile.mkdtemp(prefix="rt-limits-"))
    out.mkdir(parents=True, exist_ok=True)
    cases = [  # (label, file, generator, command)
        (f"reply chain {10000 // k} deep", "deep.mbox", lambda p: deep_reply_chain(p, 10000 // k), "check"),
        (f"thread of {5000 // k} messages", "thread.mbox", lambda p: big_thread(p, 5000 // k), "check"),
        (f"single {20 // k or 2} MB patch", "huge.mbox", lambda p: huge_patch(p, 20 // k or 2), "check"),
        (f"{100 // k} MB mbox", "big.mbox", lambda p: big_mbox(p, 100 // k), "check"),
        None,  # issue 32's table, at its largest sizes, below
        (f"Subject of {20000 // k} encoded words", "subj.mbox", lambda p: encoded_subject(p, 20000 // k), "check"),
        (f"... and an accented letter", "subj8.mbox", lambda p: encoded_subject_8bit(p, 20000 // k), "check"),
        (f"Cc of {20000 // k} encoded names", "cc.mbox", lambda p: encoded_cc(p, 20000 // k), "check"),
        (f"Cc of {8000 // k} accented encoded names", "cc8.mbox", lambda p: encoded_cc_8bit(p, 8000 // k), "check"),
        (f"header folded {800000 // k} times", "folded.mbox", lambda p: folded_header(p, 800000 // k), "check"),
        (f"subject opening {64000 // k} [", "brackets.mbox", lambda p: bracket_run(p, 64000 // k), "check"),
        (f"reply subject of {64000 // k} [", "rbrackets.mbox", lambda p: reply_bracket_run(p, 64000 // k), "check"),
        (f"thread of {19000 // k} reviews", "reviews.mbox", lambda p: big_thread(p, 19000 // k), "check"),
        (f"thread of {4000 // k} requests", "asks.mbox", lambda p: asking_thread(p, 4000 // k), "check"),
        (f"thread of {20000 // k} patches", "patches.mbox", lambda p: patch_thread(p, 20000 // k), "triage"),
        (f"{30000 // k} trailers in one patch", "trailers.mbox", lambda p: many_trailers(p, 30000 // k), "check"),
        (f"subject tag of {900000 // k} chars", "tag.mbox", lambda p: long_tag(p, 900000 // k), "check"),
    ]
    env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} cores"
    print(f"# reviewtool size limits ({env_note})")
    print(f"{'input':34} {'size MB':>8} {'seconds':>8} {'CPU s':>6} {'peak RSS MB':>12} {'exit':>5}  message")
    table = cases.index(None)
    for label, name, make, command in cases[table + 1:] if args.table else [c for c in cases if c]:
        if args.only and args.only not in label:
            continue
        path = out / name
        make(path)
        wall, cpu, rss, code, msg = run(path, command)
        size = path.stat().st_size / 1e6
        shown = label if command == "check" else f"{label} (triage)"
        print(f"{shown:34} {size:8.1f} {wall:8.2f} {cpu:6.2f} {rss:12d} {code:5d}  {msg[:60]}")


if __name__ == "__main__":
    main()
