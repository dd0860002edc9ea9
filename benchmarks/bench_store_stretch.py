"""Benchmark the triage result store on a real stretch of a list (../shared/corpus/lists/).

For the stretch (default: the June-November 2022 linux-wireless archive, 5,402 messages, as the
gzip it is shipped as) it runs, in one run and each as its own process:

- `--no-store`: every series reviewed, the reference JSON;
- cold: a new store filled (its JSON compared with the reference);
- warm: the same archive again, --repeat times (median; each JSON compared);

and prints wall and CPU seconds, messages/s of the full runs and the warm run as a share of the
cold one (issue 20's target: at most 10%); cold runs are repeated as warm ones are, each into a
new store (median). Timed runs are not watched: peak memory (process tree PSS, sampled every
20 ms, which costs the two cores up to a fifth of a run) comes from one more run of each kind.

`--compare CHECKOUT` also times `--no-store` runs of another checkout's reviewtool (its
directory put first on PYTHONPATH), interleaved with this one's, so that a change can be seen
not to slow the cold run down on a machine whose speed drifts.

    python3 benchmarks/bench_store_stretch.py                          # --jobs 2 --repeat 3
    python3 benchmarks/bench_store_stretch.py --stretch ../shared/corpus/lists/linux-wireless-2024-03.mbox.gz
    python3 benchmarks/bench_store_stretch.py --compare /path/to/older/checkout --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_triage import measure  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
DEFAULT = LISTS / "linux-wireless-2022-06_2022-11.mbox.gz"
NOW = {"linux-wireless-2022-06_2022-11": "2022-12-01T00:00:00Z", "linux-wireless-2024-03": "2024-04-01T00:00:00Z"}


def _cmd(stretch: Path, jobs: int, *extra: str) -> list[str]:
    now = NOW.get(stretch.name.split(".mbox")[0], "2026-01-01T00:00:00Z")
    return [sys.executable, "-c", "from reviewtool.cli import run; run()", "triage", str(stretch), "--format", "json",
            "--now", now, "--jobs", str(jobs), "--no-progress", *extra]


def _run(cmd: list[str], checkout: Path | None = None, memory: bool = False) -> dict:
    old = os.environ.get("PYTHONPATH")
    if checkout is not None:
        os.environ["PYTHONPATH"] = str(checkout)
    try:
        r = measure(cmd, memory=memory)
    finally:
        if checkout is not None:
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old
    if r["code"] not in (0, 1):
        raise SystemExit(f"triage failed: {r['stderr'].decode()[-500:]}")
    m = re.search(r"([\d,]+) series reused, ([\d,]+) reviewed", r["stderr"].decode())
    r["reused"], r["reviewed"] = ((int(g.replace(",", "")) for g in m.groups()) if m else (None, None))
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stretch", type=Path, default=DEFAULT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="Warm runs (and compared cold runs) per measurement.")
    ap.add_argument("--compare", type=Path, help="Another checkout: its --no-store runs, interleaved with ours.")
    args = ap.parse_args()
    if not args.stretch.is_file():
        print(f"{args.stretch}: not there (../shared/corpus/lists beside the checkout)", file=sys.stderr)
        return 2
    messages = None
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        store = Path(tmp) / "store.sqlite"
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # nothing from or into the user's cache
        plain, other = [], []
        for _ in range(args.repeat if args.compare else 1):
            plain.append(_run(_cmd(args.stretch, args.jobs, "--no-store")))
            if args.compare:
                other.append(_run(_cmd(args.stretch, args.jobs, "--no-store"), args.compare))
        colds = []
        for _ in range(args.repeat):
            store.unlink(missing_ok=True)
            colds.append(_run(_cmd(args.stretch, args.jobs, "--store", str(store), "--store-info")))
        warm = [_run(_cmd(args.stretch, args.jobs, "--store", str(store), "--store-info")) for _ in range(args.repeat)]
        watched = Path(tmp) / "watched.sqlite"  # the memory runs: one of each kind, sampled
        peaks = [_run(_cmd(args.stretch, args.jobs, *extra), memory=True)["peak_rss_mb"]
                 for extra in (("--no-store",), ("--store", str(watched)), ("--store", str(watched)))]
        reference = plain[0]["stdout"]
        messages = json.loads(reference)["totals"]["messages"]
        med = sorted(warm, key=lambda r: r["wall_s"])[len(warm) // 2]
        cold = sorted(colds, key=lambda r: r["wall_s"])[len(colds) // 2]
        rows = [("--no-store" + (f" (median of {len(plain)})" if len(plain) > 1 else ""),
                 sorted(plain, key=lambda r: r["wall_s"])[len(plain) // 2], None),
                ("cold: a new store" + (f" (median of {len(colds)})" if len(colds) > 1 else ""), cold, reference),
                (f"warm (median of {len(warm)})", med, reference)]
        for (_, r, _), peak in zip(rows, peaks):
            r["peak_rss_mb"] = peak
        if other:
            rows.insert(1, (f"--no-store, {args.compare.name} (median of {len(other)})",
                            sorted(other, key=lambda r: r["wall_s"])[len(other) // 2], None))
        print(f"{args.stretch.name}: {messages:,} messages, --jobs {args.jobs}, load average "
              f"{os.getloadavg()[0]:.1f}")
        print(f"{'run':<44} {'wall s':>7} {'CPU s':>7} {'msg/s':>6} {'x cold':>7} {'peak MB':>8} {'reused':>7} "
              f"{'reviewed':>8}  JSON = --no-store")
        for name, r, ref in rows:
            runs = colds if r is cold else warm if r is med else [r]
            same = "" if ref is None else ("yes" if all(x["stdout"] == ref for x in runs) else "NO")
            print(f"{name:<44} {r['wall_s']:>7.2f} {r['cpu_s']:>7.2f} {messages / r['wall_s']:>6.0f} "
                  f"{r['wall_s'] / cold['wall_s']:>7.3f} {(format(r['peak_rss_mb'], '.1f') if r['peak_rss_mb'] else '-'):>8} "
                  f"{'' if r['reused'] is None else r['reused']:>7} {'' if r['reviewed'] is None else r['reviewed']:>8}"
                  f"  {same}")
        if other:
            ours = statistics.median(r["wall_s"] for r in plain)
            theirs = statistics.median(r["wall_s"] for r in other)
            print(f"--no-store: this checkout {ours:.2f} s, {args.compare} {theirs:.2f} s ({ours / theirs:.2f}x)")
        print(f"warm / cold: {med['wall_s'] / cold['wall_s']:.3f} (target <= 0.10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
