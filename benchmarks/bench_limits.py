"""Size limits (issue 7): each input finishes with bounded memory or stops with a clear message.

Generates a 10,000-deep reply chain, a 5,000-message thread, a single 20 MB patch and a 100 MB
mbox of one-patch threads, runs `reviewtool check --format json` on each in a subprocess, and
prints wall time, peak RSS and the exit code. Usage:

    python3 benchmarks/bench_limits.py [--out DIR] [--small]

--small uses a tenth of each size (a quick look; the README quotes the full run).
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
from gen_limits import (big_mbox, big_thread, bracket_run, deep_reply_chain, encoded_cc,  # noqa: E402
                        encoded_subject, folded_header, huge_patch, long_tag)


def run(path: Path) -> tuple[float, int, int, str]:
    """(seconds, peak RSS in MB, exit code, first stderr line) of one reviewtool run; the RSS is
    that child's own (os.wait4), not a maximum over every child so far."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "reviewtool", "check", str(path), "--format", "json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    return wall, usage.ru_maxrss // 1024, proc.returncode, (err.strip().splitlines() or [""])[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args()
    k = 10 if args.small else 1
    out = args.out or Path(tempfile.mkdtemp(prefix="rt-limits-"))
    out.mkdir(parents=True, exist_ok=True)
    cases = [
        (f"reply chain {10000 // k} deep", "deep.mbox", lambda p: deep_reply_chain(p, 10000 // k)),
        (f"thread of {5000 // k} messages", "thread.mbox", lambda p: big_thread(p, 5000 // k)),
        (f"single {20 // k or 2} MB patch", "huge.mbox", lambda p: huge_patch(p, 20 // k or 2)),
        (f"{100 // k} MB mbox", "big.mbox", lambda p: big_mbox(p, 100 // k)),
        (f"header folded {400000 // k} times", "folded.mbox", lambda p: folded_header(p, 400000 // k)),
        (f"subject tag of {100000 // k} chars", "tag.mbox", lambda p: long_tag(p, 100000 // k)),
        (f"subject opening {20000 // k} [", "brackets.mbox", lambda p: bracket_run(p, 20000 // k)),
        (f"Cc of {20000 // k} encoded names", "cc.mbox", lambda p: encoded_cc(p, 20000 // k)),
        (f"Subject of {20000 // k} encoded words", "subj.mbox", lambda p: encoded_subject(p, 20000 // k)),
    ]
    env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} cores"
    print(f"# reviewtool size limits ({env_note})")
    print(f"{'input':28} {'size MB':>8} {'seconds':>8} {'peak RSS MB':>12} {'exit':>5}  message")
    for label, name, make in cases:
        path = out / name
        make(path)
        wall, rss, code, msg = run(path)
        size = path.stat().st_size / 1e6
        print(f"{label:28} {size:8.1f} {wall:8.2f} {rss:12d} {code:5d}  {msg[:60]}")


if __name__ == "__main__":
    main()
