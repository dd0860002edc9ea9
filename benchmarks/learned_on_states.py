"""Issue 28's measure: the postings a stretch's states.tsv shows applied, reviewed by `triage` with
the profile learned from that stretch, beside the shipped profiles.

For each stretch of ../shared/corpus/lists/ (an mbox.gz with its states.tsv: what the
maintainers' replies in the series' own thread settled), learn a profile (`profile learn`, from
the whole stretch, or with --until from the mail before that day only, scoring the postings
after it), triage the stretch with it and with the shipped profiles, and for every series the
TSV lists as applied count: an error-level finding, warnings, and whether the kind of the tree the
verdict routes each patch to (fixes or development) agrees with the kind of the tree it was
applied to (score_accepted.py --by-kind's "tree agrees").
Trees with no kind (a user-space project's) are left out of the agreement, as score_accepted.py
leaves them. A series is found by its first Message-ID among the reviewed entries and the earlier
postings they supersede (a row for a revision set aside is not reviewed, and not counted).

    python3 benchmarks/learned_on_states.py                     # every stretch
    python3 benchmarks/learned_on_states.py --until-half        # learn from the first half only
    python3 benchmarks/learned_on_states.py --stretch intel-wired-lan-2023-07_2023-12 --keep /tmp/l
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))  # bench_learn.cut
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
NOW = "2026-12-01T00:00:00"


def _kinds(files: list[Path]) -> dict[str, str]:
    """Tree or sub-tree name -> fixes | development, from profile files (shipped or learned)."""
    kinds: dict[str, str] = {}
    feeds: dict[str, str] = {}

    def walk(d: dict) -> None:
        for t in d.get("trees", ()):
            if t.get("kind") in ("fixes", "development"):
                kinds.setdefault(t["name"], t["kind"])
                for tag in t.get("tags", ()):
                    kinds.setdefault(tag, t["kind"])
        for s in d.get("subtrees", ()):
            feeds.setdefault(s["name"], s.get("feeds", ""))
        for v in d.get("profiles", {}).values():
            walk(v)

    for f in files:
        walk(tomllib.loads(f.read_text()))
    for name, fed in feeds.items():
        if fed in kinds:
            kinds.setdefault(name, kinds[fed])
    return kinds


def _applied(tsv: Path, after: datetime | None) -> dict[str, str]:
    """Series first Message-ID -> the tree the TSV says it was applied to."""
    out = {}
    with tsv.open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["state"] != "applied":
                continue
            if after is not None:
                try:
                    if parsedate_to_datetime(row["reply_date"]).replace(tzinfo=None) < after:
                        continue
                except (TypeError, ValueError):
                    continue
            out.setdefault(row["series"], row["tree"])
    return out


def _triage(mbox: Path, profile: Path | None, scratch: Path) -> dict:
    cmd = [sys.executable, "-m", "reviewtool", "triage", str(mbox), "-f", "json", "--no-store", "--now", NOW]
    if profile is not None:
        cmd += ["--profile", str(profile)]
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "cache")}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=scratch, env=env)
    return json.loads(proc.stdout)


def _score(report: dict, applied: dict[str, str], kinds: dict[str, str], state_kinds: dict[str, str]) -> dict:
    by_id = {}
    for e in report["series"]:
        if "counts" not in e:
            continue  # a row for an earlier revision or a settled posting set aside: not reviewed
        by_id.setdefault(e["msgid"], e)
        for s in e.get("superseded") or ():
            by_id.setdefault(s["msgid"], e)
    found = errors = warnings = agree = judged = 0
    for msgid, tree in applied.items():
        e = by_id.get(msgid)
        if e is None:
            continue
        found += 1
        errors += e["counts"]["errors"] > 0
        warnings += e["counts"]["warnings"]
        want = state_kinds.get(tree)
        if want is None:
            continue
        routes = [p.get("tree") for p in (e.get("verdict") or {}).get("patches") or ()]
        judged += 1
        agree += bool(routes) and all(kinds.get(t or "") == want for t in routes)
    return {"listed": len(applied), "found": found, "errors": errors, "warnings": warnings,
            "judged": judged, "agree": agree}


def _line(name: str, s: dict) -> str:
    n = max(s["found"], 1)
    kind = f"{s['agree']} of {s['judged']} ({100 * s['agree'] / max(s['judged'], 1):.1f}%)" if s["judged"] else "-"
    return (f"  {name:9} {s['found']} of {s['listed']} applied series found; with an error {s['errors']} "
            f"({100 * s['errors'] / n:.1f}%); tree kind agrees {kind}; warnings {s['warnings'] / n:.2f} a series")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stretch", action="append", help="a stretch's name (default: every one)")
    ap.add_argument("--until-half", action="store_true",
                    help="learn from the mail before the stretch's middle day; score the series applied after it")
    ap.add_argument("--keep", type=Path, help="keep the learned profiles here")
    args = ap.parse_args()
    shipped = sorted((ROOT / "reviewtool" / "profiles").glob("*.toml"))
    state_kinds = _kinds(shipped)
    names = args.stretch or sorted(p.name.removesuffix(".mbox.gz") for p in LISTS.glob("*.mbox.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        keep = args.keep or scratch
        keep.mkdir(parents=True, exist_ok=True)
        for name in names:
            mbox, tsv = LISTS / f"{name}.mbox.gz", LISTS / f"{name}.states.tsv"
            source, after = mbox, None
            if args.until_half:  # learn from the first half only (bench_learn.py's cut)
                from bench_learn import cut

                first, last = _span(name)
                after = first + (last - first) / 2
                source = cut(mbox, after.strftime("%Y-%m-%d"), scratch / f"{name}-first-half.mbox")
            cmd = [sys.executable, "-m", "reviewtool", "profile", "learn", str(source), "-o", str(keep / f"{name}.toml")]
            start = time.monotonic()
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=scratch,
                                  env={**os.environ, "XDG_CACHE_HOME": str(scratch / "cache")})
            took = time.monotonic() - start
            if proc.returncode != 0:
                print(f"{name}: profile learn failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
                continue
            applied = _applied(tsv, after)
            learned = keep / f"{name}.toml"
            print(f"{name}: learned in {took:.1f} s" + (f" from the mail before {after:%Y-%m-%d}" if after else ""))
            print(_line("learned", _score(_triage(mbox, learned, scratch), applied, {**state_kinds, **_kinds([learned])},
                                          state_kinds)))
            print(_line("shipped", _score(_triage(mbox, None, scratch), applied, state_kinds, state_kinds)))
    return 0


def _span(name: str) -> tuple[datetime, datetime]:
    """The stretch's first and last day, from its name (`...-2023-07_2023-12`, `...-2024-03`)."""
    m = re.search(r"(\d{4})-(\d{2})(?:_(\d{4})-(\d{2}))?$", name)
    y1, m1 = int(m.group(1)), int(m.group(2))
    y2, m2 = (int(m.group(3)), int(m.group(4))) if m.group(3) else (y1, m1)
    return datetime(y1, m1, 1), datetime(y2 + (m2 == 12), m2 % 12 + 1, 1) - timedelta(days=1)


if __name__ == "__main__":
    sys.exit(main())
