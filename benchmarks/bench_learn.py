#!/usr/bin/env python3
"""Learn a profile from a list archive, time it, and score it against the hand-written profile.

    python3 benchmarks/bench_learn.py                       # the half-year linux-wireless file
    python3 benchmarks/bench_learn.py --archive X.mbox.gz --shipped wireless --set wireless-accepted
    python3 benchmarks/bench_learn.py --no-score            # the timing only
    python3 benchmarks/bench_learn.py --archive ../shared/corpus/lists/netfilter-devel-2023-07_2023-12.mbox.gz \
        --until 2023-10-01 --set netfilter-accepted --set netfilter-userspace --shipped ""

1. `reviewtool profile learn ARCHIVE -o OUT --jobs N` in a subprocess: wall time, the CPU time
   of it and its workers, and the load average around it (other work on the machine shows there).
2. The postings of `--set` (../shared/cases) reviewed with `--profile OUT` and with the shipped
   `--profile NAME`, by calibrate.py's scoring (the shared scorers' code): errors, wrong trees,
   tree agreement, warnings; for both halves and for the postings sent before, during and after
   the stretch the archive covers (a profile learned from one part of a list's history reviews
   the later part).

`--until DAY` learns from the archive's messages dated before that day only (a scratch mbox):
the postings after it ("after") are the part no decision was made on. `--shipped ""` compares
with the profiles reviewtool chooses by itself (netfilter's kernel and user-space profiles).
"""

from __future__ import annotations

import argparse
import email.utils
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import calibrate  # noqa: E402

ARCHIVE = calibrate.SHARED / "corpus" / "lists" / "linux-wireless-2022-06_2022-11.mbox.gz"


def cut(archive: Path, until: str, out: Path) -> Path:
    """The archive's messages dated before `until` (YYYY-MM-DD, UTC), as an mbox."""
    import gzip
    from datetime import datetime, timezone

    limit = datetime.fromisoformat(until).replace(tzinfo=timezone.utc).timestamp()
    opener = gzip.open if archive.suffix == ".gz" else open
    kept = 0
    with opener(archive, "rb") as src, open(out, "wb") as dst:
        mail: list[bytes] = []

        def flush() -> None:
            nonlocal kept
            head = b"".join(mail).split(b"\n\n", 1)[0].decode("utf-8", "replace")
            date = next((ln[5:].strip() for ln in head.splitlines() if ln.lower().startswith("date:")), "")
            try:
                when = email.utils.parsedate_to_datetime(date).timestamp()
            except (TypeError, ValueError):
                when = None
            if when is not None and when < limit:
                dst.writelines(mail)
                kept += 1

        for line in src:
            if line.startswith(b"From ") and mail:
                flush()
                mail = []
            mail.append(line)
        if mail:
            flush()
    print(f"{archive.name}: {kept:,} messages dated before {until} in {out}")
    return out


def learn(archive: Path, out: Path, jobs: int, exe: str) -> dict:
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    res = subprocess.run([exe, "profile", "learn", str(archive), "-o", str(out), "--jobs", str(jobs), "--no-progress"],
                         capture_output=True, text=True)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        sys.exit(f"profile learn failed: {res.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": [round(x, 2) for x in load],
            "load_after": [round(x, 2) for x in os.getloadavg()], "stderr": res.stderr.strip()}


def _date(item: str, folder: str) -> float | None:
    meta = json.loads((calibrate.CASES / folder / (item.split("/")[-1] + ".json")).read_text())
    try:
        return email.utils.parsedate_to_datetime(meta["date"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return None


def _period(ts: float | None, span: tuple[float, float]) -> str:
    if ts is None:
        return "undated"
    return "before" if ts < span[0] else "after" if ts > span[1] else "during"


def _line(items: list[dict]) -> str:
    n = len(items) or 1
    errors = sum(1 for i in items if i["errors"])
    wrong = sum(1 for i in items if i["wrong_tree"])
    agrees = sum(1 for i in items if i["tree_agrees"])
    warnings = sum(len(i["warnings"]) for i in items)
    return (f"{len(items):4} postings: with an error {errors}; wrong tree {wrong}; tree agrees {agrees} "
            f"({agrees / n:.1%}); warnings {warnings} ({warnings / n:.2f} a posting)")


def score(profile: str, name: str, span: tuple[float, float], jobs: int) -> None:
    folder, _ = calibrate.SETS[name]
    res, kind = calibrate.score_set(name, "all", jobs, ("--profile", profile) if profile else ())
    items = res["items"]
    print(f"  {profile or 'the profiles reviewtool chooses'}")
    print(f"    all    {_line(items)}")
    for half in "AB":
        print(f"    half {half} {_line([i for i in items if calibrate.half_of(Path(i['item'])) == half])}")
    for period in ("before", "during", "after"):
        picked = [i for i in items if _period(_date(i["item"], folder), span) == period]
        print(f"    {period:6} {_line(picked)}")
    warn = {}
    for i in items:
        for w in i["warnings"]:
            warn[w] = warn.get(w, 0) + 1
    print("    warnings: " + " ".join(f"{k}x{v}" for k, v in sorted(warn.items(), key=lambda kv: -kv[1])[:10]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--archive", type=Path, default=ARCHIVE)
    ap.add_argument("--out", type=Path, default=Path("/tmp/reviewtool-learned.toml"))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--reviewtool", default=str(Path(sys.executable).with_name("reviewtool")))
    ap.add_argument("--shipped", default="wireless", help="the hand-written profile to compare with")
    ap.add_argument("--set", action="append", choices=list(calibrate.SETS),
                    help="a labelled set to score (repeat it; default wireless-accepted)")
    ap.add_argument("--until", help="learn from the messages dated before this day (YYYY-MM-DD) only")
    ap.add_argument("--no-score", action="store_true")
    a = ap.parse_args()
    sets = a.set or ["wireless-accepted"]
    if a.until:
        a.archive = cut(a.archive, a.until, a.out.resolve().with_suffix(".mbox"))
    timing = learn(a.archive, a.out.resolve(), a.jobs, a.reviewtool)
    print(f"profile learn {a.archive.name} --jobs {a.jobs}: {timing['wall_s']} s wall, {timing['cpu_s']} s CPU "
          f"(with its workers); load average before {timing['load_before']}, after {timing['load_after']}")
    print(f"  {timing['stderr']}")
    if a.no_score:
        return 0
    from reviewtool.learn.archive import read_archive
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        span = read_archive([a.archive], Path(scratch)).span
    for name in sets:
        print(f"{name}, the archive spans {time.strftime('%Y-%m-%d', time.gmtime(span[0]))} to "
              f"{time.strftime('%Y-%m-%d', time.gmtime(span[1]))}:")
        score(str(a.out.resolve()), name, span, a.jobs)
        score(a.shipped, name, span, a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
