"""Whole archives (issue 29): the shared stretches cold, warm and with a day appended; a four-year
archive at three sizes; a public-inbox inbox of three epochs read in place. Each run is its own
process with a fresh XDG_CACHE_HOME; every stored run's JSON is compared with a --no-store run of
the same input, byte for byte; `git mailsplit` of the same file is timed in the same run.

    python3 benchmarks/bench_archives.py stretches [--jobs N]       # the four of ../shared/corpus/lists
    python3 benchmarks/bench_archives.py years --keep DIR            # gen_years.py: 1, 2 and 4 years
    python3 benchmarks/bench_archives.py inbox --keep DIR            # a v2 inbox of 3 epochs (public-inbox tools)
    python3 benchmarks/bench_archives.py maildir --keep DIR          # the four-year archive as a maildir

`stretches`: each stretch unpacked to a plain mbox (as a maintainer's growing mbox is), less its
last day of mail; a cold run with a new store on the full file and a --no-store run (the JSON
reference), a warm run; then the file cut before its last day is run cold into another store, the
day appended and run again ("appended"); and two floors, what a run pays before it reads an
archive: `--version` and triage of the stretch's first mail alone into a new store. `years`: the archives gen_years.py makes of 2, 4 and 8
half-years: triage cold (--no-store and into a new store, peak memory sampled), warm, a day
appended, `triage --since 14d` (without a store and from the warm store), `profile learn`, and git
mailsplit. `inbox`: the 2022 linux-wireless stretch less its last day imported into a v2 inbox by
public-inbox's own importer, rotated into three epochs; triage cold, warm, then the last day
imported and triaged again: the store reads only the commits that arrived. `maildir`: the
four-year archive of `years` (made first if missing) written as a maildir, a file per mail, as
`lei q -o` and mail clients keep a list; triage cold, warm, a day delivered, and `--since 14d`.

The machine the figures come from is shared with other work: the load average is printed with
each table, and the ratios (to the cold run, to git mailsplit) are the figures to trust.
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_triage import held_tree_kb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
STRETCHES = ("linux-wireless-2022-06_2022-11", "linux-wireless-2024-03", "intel-wired-lan-2023-07_2023-12",
             "netfilter-devel-2023-07_2023-12")
STORE_RE = re.compile(r"([\d,]+) series reused, ([\d,]+) reviewed; .*\(([\d,]+) mails read\)")
SEP_RE = re.compile(rb"^From mboxrd@z ", re.M)
DATE_RE = re.compile(rb"^Date:[ \t]*([^\n]*)", re.M | re.I)


def run(args: list, env: dict | None = None, memory: bool = False, cwd: str = "/") -> dict:
    """Wall, CPU (the process and what it waited for), peak PSS of the tree (held 20 ms, every 0.1 s) and output."""
    peak = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env={**os.environ, **(env or {})})
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, held_tree_kb(proc.pid))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    if memory:
        sampler.start()
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []

    def drain(pipe, into):
        for chunk in iter(lambda: pipe.read(1 << 16), b""):
            into.append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, out_chunks)),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    for r in readers:
        r.join()
    done.set()
    if memory:
        sampler.join()
    out, err = b"".join(out_chunks), b"".join(err_chunks)
    m = STORE_RE.search(err.decode("utf-8", "replace"))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "code": os.waitstatus_to_exitcode(status),
            "peak": peak / 1024, "out": out, "err": err.decode("utf-8", "replace"),
            "reused": int(m.group(1).replace(",", "")) if m else None,
            "reviewed": int(m.group(2).replace(",", "")) if m else None,
            "read": int(m.group(3).replace(",", "")) if m else None}


def reviewtool(*args, cache: Path, memory: bool = False) -> dict:
    r = run([sys.executable, "-m", "reviewtool", *args], {"XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)},
            memory=memory)
    if r["code"] not in (0, 1):
        raise SystemExit(f"reviewtool {' '.join(map(str, args))[:200]} failed ({r['code']}): {r['err'][-600:]}")
    return r


def triage(path, now: str, *extra, cache: Path, memory: bool = False) -> dict:
    return reviewtool("triage", path, "--format", "json", "--now", now, "--no-progress", *extra, cache=cache,
                      memory=memory)


def mailsplit(path: Path, tmp: Path) -> float:
    out = tmp / "split"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    r = run(["git", "mailsplit", f"-o{out}", str(path)])
    shutil.rmtree(out, ignore_errors=True)
    return r["wall"]


def last_day_cut(data: bytes) -> tuple[int, str]:
    """(where the mails of the archive's last day start, the ISO time just after the last mail)."""
    starts = [m.start() for m in SEP_RE.finditer(data)]
    dates = []
    for a, b in zip(starts, starts[1:] + [len(data)]):
        m = DATE_RE.search(data, a, b)
        try:
            dates.append(parsedate_to_datetime(m.group(1).decode("ascii", "replace").strip()).timestamp() if m else None)
        except (TypeError, ValueError):
            dates.append(None)
    last = max(d for d in dates if d is not None)
    first_late = next(i for i, d in enumerate(dates) if d is not None and d >= last - 86400)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last + 3600))
    return starts[first_late], now


def row(name: str, r: dict, cold: dict | None = None, messages: int | None = None, same: str = "") -> str:
    ratio = f"{r['wall'] / cold['wall']:.3f}" if cold else ""
    rate = f"{messages / r['wall']:,.0f}" if messages else ""
    peak = f"{r['peak']:.0f}" if r["peak"] else "-"
    reused = "" if r["reused"] is None else f"{r['reused']:,}/{r['reviewed']:,}/{r['read']:,}"
    return f"  {name:<34} {r['wall']:>7.2f} {r['cpu']:>7.2f} {rate:>7} {ratio:>7} {peak:>7} {reused:>18}  {same}"


HEADER = (f"  {'run':<34} {'wall s':>7} {'CPU s':>7} {'msg/s':>7} {'x cold':>7} {'peak MB':>7} "
          f"{'reused/rev./read':>18}  JSON")


def same(run: dict, ref: dict) -> str:
    return "= --no-store" if run["out"] == ref["out"] else "DIFFERS"


def cold_warm_rows(ref: dict, cold: dict, warm: dict, messages: int) -> None:
    print(HEADER)
    print(row("--no-store", ref, cold, messages))
    print(row("cold (a new store)", cold, cold, messages, same(cold, ref)))
    print(row("warm", warm, cold, messages, same(warm, ref)))


def since_runs(path: Path, now: str, store: Path, keep: Path, cache: Path, memory: bool = False) -> list[tuple[str, dict]]:
    """`--since 14d` without a store, into a new one, and from `store` (warm)."""
    fresh = keep / "since.sqlite"
    fresh.unlink(missing_ok=True)
    runs = [("--since 14d, no store", triage(path, now, "--no-store", "--since", "14d", cache=cache, memory=memory)),
            ("--since 14d, a new store", triage(path, now, "--store", fresh, "--since", "14d", cache=cache, memory=memory))]
    fresh.unlink(missing_ok=True)
    runs.append(("--since 14d, warm store", triage(path, now, "--store", store, "--since", "14d", "--store-info", cache=cache)))
    return runs


def floor_runs(tmp: Path, data: bytes, now: str) -> list[tuple[str, dict]]:
    """What any run pays before it reads an archive: the interpreter and the CLI (`--version`),
    and triage of an archive of the stretch's first mail, into a new store (the whole path, with
    nothing to review). A warm run cannot take less; its ratio to cold is the warm target's floor."""
    first = tmp / "first.mbox"
    starts = [m.start() for m in SEP_RE.finditer(data, 0, 1 << 20)]
    first.write_bytes(data[:starts[1]] if len(starts) > 1 else data)
    return [("floor: --version", reviewtool("--version", cache=tmp / "c4")),
            ("floor: one mail, a new store", triage(first, now, "--store", tmp / "s4.sqlite", cache=tmp / "c4"))]


def stretches(args) -> None:
    for name in args.names or STRETCHES:
        src = LISTS / f"{name}.mbox.gz"
        if not src.is_file():
            print(f"{src}: not there (../shared beside the checkout)")
            continue
        with tempfile.TemporaryDirectory(prefix="bench-archives-") as tmp:
            tmp = Path(tmp)
            data = gzip.decompress(src.read_bytes())
            full = tmp / f"{name}.mbox"
            full.write_bytes(data)
            cut, now = last_day_cut(data)
            jobs = ("--jobs", str(args.jobs)) if args.jobs else ()
            ref = triage(full, now, "--no-store", *jobs, cache=tmp / "c0")
            messages = json.loads(ref["out"])["totals"]["messages"]
            split = mailsplit(full, tmp)
            cold = triage(full, now, "--store", tmp / "s1.sqlite", "--store-info", *jobs, cache=tmp / "c1", memory=True)
            warm = triage(full, now, "--store", tmp / "s1.sqlite", "--store-info", *jobs, cache=tmp / "c1")
            growing = tmp / "growing.mbox"
            growing.write_bytes(data[:cut])
            triage(growing, now, "--store", tmp / "s2.sqlite", *jobs, cache=tmp / "c2")
            with open(growing, "ab") as fh:
                fh.write(data[cut:])
            grown = triage(growing, now, "--store", tmp / "s2.sqlite", "--store-info", *jobs, cache=tmp / "c2")
            grown_ref = triage(growing, now, "--no-store", *jobs, cache=tmp / "c3")
            floors = floor_runs(tmp, data, now)
            day = len(SEP_RE.findall(data, cut))
            print(f"{name}: {messages:,} messages ({len(data) / 1e6:.1f} MB), the last day {day} mails; load average "
                  f"{os.getloadavg()[0]:.1f}; git mailsplit {split:.2f} s")
            cold_warm_rows(ref, cold, warm, messages)
            print(row("a day appended", grown, cold, None, same(grown, grown_ref)))
            for label, r in floors:
                print(row(label, r, cold))
            print(f"  cold / git mailsplit: {cold['wall'] / split:.1f}x; warm / cold {warm['wall'] / cold['wall']:.3f} "
                  f"(target <= 0.05; a one-mail archive takes {floors[1][1]['wall'] / cold['wall']:.3f}); appended / "
                  f"cold {grown['wall'] / cold['wall']:.3f} (target <= 0.10); cold {messages / cold['wall']:,.0f} "
                  "messages/s")


def years(args) -> None:
    from gen_years import HALF, START, append_day, generate

    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    cache = keep / "cache"
    for halves in (2, 4, 8):
        path = keep / f"years-{halves // 2}.mbox"
        if not path.exists():
            made = generate(path, halves)
            print(f"generated {path}: {made['mails']:,} mails, {made['bytes'] / 1e6:.0f} MB")
    now = (START + 8 * HALF + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")  # after the day appended
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"  {'archive':<16} {'mails':>7} {'MB':>5} {'wall s':>7} {'CPU s':>7} {'msg/s':>6} {'peak MB':>7} "
          f"{'mailsplit s':>11} {'x mailsplit':>11}")
    for halves in (2, 4, 8):
        path = keep / f"years-{halves // 2}.mbox"
        r = triage(path, now, "--no-store", cache=cache, memory=True)
        total = json.loads(r["out"])["totals"]["messages"]
        split = mailsplit(path, keep)
        print(f"  {path.name:<16} {total:>7,} {path.stat().st_size / 1e6:>5.0f} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
              f"{total / r['wall']:>6,.0f} {r['peak']:>7.0f} {split:>11.2f} {r['wall'] / split:>11.1f}")
    four = keep / "years-4.mbox"
    work = keep / "years-4-growing.mbox"
    shutil.copyfile(four, work)
    store = keep / "years.sqlite"
    store.unlink(missing_ok=True)
    ref = triage(work, now, "--no-store", cache=cache)
    messages = json.loads(ref["out"])["totals"]["messages"]
    cold = triage(work, now, "--store", store, "--store-info", cache=cache, memory=True)
    warm = triage(work, now, "--store", store, "--store-info", cache=cache)
    since = since_runs(work, now, store, keep, cache, memory=True)
    added = append_day(work, START + 8 * HALF, 0)
    grown = triage(work, now, "--store", store, "--store-info", cache=cache)
    grown_ref = triage(work, now, "--no-store", cache=cache)
    learn = reviewtool("profile", "learn", work, "-o", keep / "learned.toml", "--no-progress", cache=cache, memory=True)
    print(f"{work.name} (four years, {messages:,} messages); load average {os.getloadavg()[0]:.1f}")
    cold_warm_rows(ref, cold, warm, messages)
    for name, run in since:
        print(row(name, run, cold))
    print(row(f"a day appended ({added} mails)", grown, cold, None, same(grown, grown_ref)))
    print(row("profile learn", learn, cold))


def inbox(args) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from pi_inbox import PublicInbox, missing_tools

    if missing_tools():
        print(f"public-inbox is not installed (missing {', '.join(missing_tools())})")
        return
    keep = Path(args.keep)
    shutil.rmtree(keep / "pi", ignore_errors=True)
    keep.mkdir(parents=True, exist_ok=True)
    name = STRETCHES[0]
    data = gzip.decompress((LISTS / f"{name}.mbox.gz").read_bytes())
    cut, now = last_day_cut(data)
    before, day = keep / "before.mbox", keep / "day.mbox"
    before.write_bytes(data[:cut])
    day.write_bytes(data[cut:])
    t = time.perf_counter()
    pi = PublicInbox(keep / "pi", "wireless").add(before, rotate_bytes=cut // 3 + 1)
    made = time.perf_counter() - t
    cache = keep / "cache"
    store = keep / "inbox.sqlite"
    store.unlink(missing_ok=True)
    ref = triage(pi.path, now, "--no-store", cache=cache)
    messages = json.loads(ref["out"])["totals"]["messages"]
    cold = triage(pi.path, now, "--store", store, "--store-info", cache=cache, memory=True)
    warm = triage(pi.path, now, "--store", store, "--store-info", cache=cache)
    mbox = triage(before, now, "--no-store", cache=cache)
    pi.add(day)
    grown = triage(pi.path, now, "--store", store, "--store-info", cache=cache)
    grown_ref = triage(pi.path, now, "--no-store", cache=cache)
    print(f"{name} less its last day in a v2 inbox of {len(pi.epochs())} epochs ({messages:,} messages, imported in "
          f"{made:.0f} s); the day: {len(SEP_RE.findall(day.read_bytes()))} mails; load average {os.getloadavg()[0]:.1f}")
    cold_warm_rows(ref, cold, warm, messages)
    print(row("the same mails as an mbox, --no-store", mbox, cold, messages))
    print(row("the day imported", grown, cold, None, same(grown, grown_ref)))


def maildir(args) -> None:
    """The four-year archive as a maildir: a file per mail in new/, named in the mbox's order."""
    from gen_years import HALF, START, append_day

    keep = Path(args.keep)
    four = keep / "years-4.mbox"
    if not four.exists():
        years(args)
    md = keep / "years-4.maildir"
    shutil.rmtree(md, ignore_errors=True)
    for d in ("cur", "new", "tmp"):
        (md / d).mkdir(parents=True)
    data = four.read_bytes()
    day = keep / "day.mbox"
    shutil.copyfile(four, day)
    append_day(day, START + 8 * HALF, 0)
    extra = day.read_bytes()[len(data):]
    day.unlink()
    t0 = time.perf_counter()
    written = _write_maildir(md, data, 0)
    wrote = time.perf_counter() - t0
    now = (START + 8 * HALF + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    cache, store = keep / "cache", keep / "maildir.sqlite"
    store.unlink(missing_ok=True)
    ref = triage(md, now, "--no-store", cache=cache)
    messages = json.loads(ref["out"])["totals"]["messages"]
    cold = triage(md, now, "--store", store, "--store-info", cache=cache, memory=True)
    warm = triage(md, now, "--store", store, "--store-info", cache=cache)
    since = since_runs(md, now, store, keep, cache)
    added = _write_maildir(md, extra, written)
    grown = triage(md, now, "--store", store, "--store-info", cache=cache)
    grown_ref = triage(md, now, "--no-store", cache=cache)
    print(f"{md.name} ({written:,} files written in {wrote:.1f} s, {messages:,} messages); load average "
          f"{os.getloadavg()[0]:.1f}")
    cold_warm_rows(ref, cold, warm, messages)
    for name, run in since:
        print(row(name, run, cold))
    print(row(f"a day delivered ({added} mails)", grown, cold, None, same(grown, grown_ref)))


def _write_maildir(md: Path, data: bytes, first: int) -> int:
    """Each mail of the mbox bytes `data` as a file of new/ (mboxrd quoting undone, as the index
    reads it), numbered from `first`; how many were written."""
    sys.path.insert(0, str(ROOT))
    from reviewtool.sources.files import split_mbox

    n = 0
    for n, raw in enumerate(split_mbox(data, "bench"), start=1):
        (md / "new" / f"{1700000000 + first + n}.M{first + n:07d}P1.bench").write_bytes(raw.data)
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("stretches")
    s.add_argument("names", nargs="*", help="Stretches (default: the four).")
    s.add_argument("--jobs", type=int, default=0, help="--jobs for triage (default: its own default).")
    y = sub.add_parser("years")
    y.add_argument("--keep", required=True, help="Where the generated archives are kept (about 1 GB).")
    i = sub.add_parser("inbox")
    i.add_argument("--keep", required=True)
    m = sub.add_parser("maildir")
    m.add_argument("--keep", required=True, help="Where years-4.mbox is (made there if missing) and the maildir goes.")
    args = ap.parse_args()
    # reviewtool as installed: `pip install .` compiles its bytecode, while the source tree run
    # here, under PYTHONDONTWRITEBYTECODE=1 (this machine's setting), would compile every module in
    # every run (0.1 s of a warm run's 0.45 s). The bytecode goes to __pycache__, which git ignores.
    compileall.compile_dir(str(ROOT / "reviewtool"), quiet=1)
    print(f"bytecode of {ROOT / 'reviewtool'} compiled, as an installed reviewtool has it")
    {"stretches": stretches, "years": years, "inbox": inbox, "maildir": maildir}[args.what](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
