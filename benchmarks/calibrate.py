#!/usr/bin/env python3
"""Score reviewtool on every labelled set of ../shared/cases at once, on one half of the data.

The shared scorers (../shared/eval) run `reviewtool check` as a subprocess per posting; this runs
the same review in a pool of processes (the interpreter and the package start once a worker), then
hands the results to the shared scorers' own scoring code, so the figures are theirs.

Every posting falls in half A or half B by a hash of its file name, the same on every run. Decide
changes on A (`--half A`, the default, with `-v` for case lines); report B (`--half B`) without
looking at its cases (`-v` is refused there).

    python3 benchmarks/calibrate.py                    # half A, every set
    python3 benchmarks/calibrate.py --half B           # the held-out half: summaries only
    python3 benchmarks/calibrate.py --half all --sets wireless-accepted --json out.json
    python3 benchmarks/calibrate.py --map project      # the verdicts scored with the project's rule map
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = (HERE.parent.parent / "shared").resolve()  # the scorers resolve it: a symlinked ../shared too
CASES = SHARED / "cases"
# set name -> (folder, scorer)
SETS = {
    "netdev-verdicts": ("verdicts", "cases"),
    "netdev-accepted": ("accepted", "accepted"),
    "wireless-verdicts": ("wireless/verdicts", "cases"),
    "wireless-prefix": ("wireless/prefix-added", "cases"),
    "wireless-accepted": ("wireless/accepted", "accepted"),
    "iwl-accepted": ("iwl/accepted", "accepted"),
    "netfilter-accepted": ("netfilter/accepted", "accepted"),
    "netfilter-userspace": ("netfilter/userspace", "accepted"),
}
# Lists whose trees have other names than the review's routes (iwl-net feeds net, nf-next
# net-next): a route agrees when its tree is of the applied tree's kind (score_accepted --by-kind).
BY_KIND = {"iwl-accepted", "netfilter-accepted", "netfilter-userspace"}


def half_of(path: Path) -> str:
    return "AB"[hashlib.sha1(path.stem.encode()).digest()[0] & 1]


SCORERS = {"shared": SHARED / "eval", "project": HERE / "scorers"}


def scorer(kind: str, which: str = "shared"):
    """A scorer module (score_cases.py or score_accepted.py): the shared one (../shared/eval), or
    the project's copy (benchmarks/scorers: the shared map plus the rules added since)."""
    name = f"score_{kind}"
    spec = importlib.util.spec_from_file_location(name, SCORERS[which] / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def review_one(mbox: str, extra: tuple[str, ...] = ()) -> tuple[int, dict | None, str]:
    """`reviewtool check MBOX --format json` in this process: (exit code, JSON, stderr)."""
    from reviewtool.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = ["check", mbox, "--format", "json", *extra]
    old_err = sys.stderr
    sys.stderr = err
    try:
        with redirect_stdout(out):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stderr = old_err
    try:
        return rc, json.loads(out.getvalue()), err.getvalue()
    except json.JSONDecodeError:
        return rc, None, err.getvalue()


def _init_worker() -> None:
    os.chdir("/")
    os.environ.update(NO_COLOR="1", COLUMNS="120")


def review_all(mboxes: list[Path], jobs: int, extra: tuple[str, ...] = ()) -> dict[Path, tuple]:
    with ProcessPoolExecutor(jobs, initializer=_init_worker) as pool:
        results = list(pool.map(review_one, [str(m) for m in mboxes], [extra] * len(mboxes), chunksize=4))
    return dict(zip(mboxes, results))


class _Subset:
    """A case folder seen as only the postings of one half: the scorers glob `*.mbox` in it."""

    def __init__(self, folder: Path, half: str):
        self.folder, self.half = folder, half

    def mboxes(self) -> list[Path]:
        return [m for m in sorted(self.folder.glob("*.mbox")) if self.half == "all" or half_of(m) == self.half]


def score_set(name: str, half: str, jobs: int, extra: tuple[str, ...] = (), which: str = "shared") -> tuple[dict, str]:
    folder, kind = SETS[name]
    subset = _Subset(CASES / folder, half)
    mboxes = subset.mboxes()
    reviews = review_all(mboxes, jobs, extra)
    mod = scorer(kind, which)
    mod.review = lambda exe, mbox, extra=(): reviews[Path(mbox)]
    # the scorers glob the folder; hand them only this half
    wanted = set(mboxes)
    real_glob = Path.glob

    def glob(self, pattern):
        return [p for p in real_glob(self, pattern) if p.suffix != ".mbox" or p in wanted]

    Path.glob = glob
    try:
        res = (mod.score(CASES / folder, "reviewtool", 1) if kind == "cases"
               else mod.score([CASES / folder], "reviewtool", 1, by_kind=name in BY_KIND))
    finally:
        Path.glob = real_glob
    return res, kind


def summary(res: dict, kind: str) -> str:
    if kind == "cases":
        n = len(res["cases"]) or 1
        return (f"{len(res['cases'])} cases: recall {res['hit']}/{res['expected']} = {res['recall']:.2f}; "
                f"false alarms {res['false_alarms']} ({res['false_alarms'] / n:.2f} per case); "
                f"not reviewed {res['unreviewed']}")
    n = res["postings"] or 1
    return (f"{res['postings']} postings: with an error {res['with_error']} ({res['with_error'] / n:.1%}); "
            f"wrong tree {res['wrong_tree']} ({res['wrong_tree'] / n:.1%}); tree agrees {res['tree_agrees']} "
            f"({res['tree_agrees'] / n:.1%}); warnings {res['warnings'] / n:.2f} a posting; "
            f"not reviewed {res['unreviewed']}")


def verbose_lines(res: dict, kind: str) -> list[str]:
    out = []
    if kind == "cases":
        for c in res["cases"]:
            if c["missed"] or c["false_alarms"] or c["error"]:
                out.append(f"  {c['case'][:50]:50} missed {' '.join(c['missed']) or '-'}  "
                           f"alarms {' '.join(c['false_alarms']) or '-'}" + (f"  NOT REVIEWED {c['error']}" if c["error"] else ""))
    else:
        for i in res["items"]:
            bad = i["errors"] or i["wrong_tree"] or not i["tree_agrees"] or i["warnings"] or i["error"]
            if bad:
                out.append(f"  {i['item'].split('/')[-1][:50]:50} {i['declared'] or '-':8}-> {i['applied_to']:13} "
                           f"routes {','.join(t or '-' for t in i['routes']) or '-'}"
                           + ("  WRONG" if i["wrong_tree"] else "") + (f"  E {' '.join(i['errors'])}" if i["errors"] else "")
                           + (f"  W {' '.join(i['warnings'])}" if i["warnings"] else ""))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("A", "B", "all"), default="A")
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every result here")
    ap.add_argument("--verbose", "-v", action="store_true", help="the cases with a miss, an alarm or a warning")
    ap.add_argument("--profile", help="review with this profile or profile file (--profile of check)")
    ap.add_argument("--map", choices=tuple(SCORERS), default="shared",
                    help="whose rule-to-keyword map scores the verdict cases (default: the shared scorer's)")
    a = ap.parse_args()
    if a.verbose and a.half != "A":
        ap.error("-v shows cases of half A only: the other half is held back")
    extra = ("--profile", a.profile) if a.profile else ()
    results = {}
    for name in a.sets:
        res, kind = score_set(name, a.half, a.jobs, extra, a.map)
        results[name] = res
        print(f"{name:18} [{a.half}] {summary(res, kind)}")
        if kind == "cases":
            print(f"{'':18}      missed: " + (" ".join(f"{k}x{n}" for k, n in res["missed_by_keyword"]) or "-"))
            print(f"{'':18}      alarms: " + (" ".join(f"{k}x{n}" for k, n in res["alarms_by_rule"]) or "-"))
        else:
            print(f"{'':18}      errors: " + (" ".join(f"{k}x{v}" for k, v in res["errors_by_rule"]) or "-"))
            print(f"{'':18}      warnings: " + (" ".join(f"{k}x{v}" for k, v in res["warnings_by_rule"][:14]) or "-"))
        if a.verbose:
            print("\n".join(verbose_lines(res, kind)))
        sys.stdout.flush()
    if a.json:
        a.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
