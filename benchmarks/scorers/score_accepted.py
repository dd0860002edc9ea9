#!/usr/bin/env python3
"""Score reviewtool on postings that the maintainers applied as they were posted.

reviewtool's copy of ../shared/eval/score_accepted.py, unchanged (tests/test_scores.py and
benchmarks/calibrate.py read it from here, so the suite runs from a plain clone).

Each item is NN-slug.mbox (the posting: cover letter and patches, no replies) and NN-slug.json
with `applied_to` (the tree the maintainers applied it to, e.g. "net" or "net-next"),
`declared_tree` (the tree its subject named, or null), `applied_all` and `complete_in_mbox`.

    python3 score_accepted.py DIR [DIR...] [--reviewtool EXE] [--jobs N] [--sample N] [--json OUT] [--verbose]

--jobs runs that many reviews at once; --sample scores a fixed random sample of N postings (the
same N postings on every run, so two runs compare).

What it counts, per posting:
- error: an error-level finding. The maintainers took the posting as it was, so every error is a
  false alarm (series-incomplete is not counted where the mbox lacks patches of the posting).
- wrong tree: a tree finding (tree-mismatch, split-series, fix-for-next-only-code) while the
  verdict routes some patch to a tree other than the one it was applied to.
- tree agrees: every patch of the verdict is routed to the tree it was applied to.
- warnings: counted by rule, to show which rules talk most on accepted work.

--by-kind judges a route by the kind of tree (fixes or development) instead of its name, for lists
whose trees have other names than the review's routes (iwl-net feeds net, nf-next feeds net-next):
KINDS below lists the names it knows.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from collections import Counter
from pathlib import Path

TREE_RULES = {"tree-mismatch", "split-series", "fix-for-next-only-code"}
KINDS = {**dict.fromkeys(("net", "nf", "iwl-net", "wireless", "bluetooth", "bpf", "ipsec", "mptcp-net"), "fixes"),
         **dict.fromkeys(("net-next", "nf-next", "iwl-next", "wireless-next", "bluetooth-next", "bpf-next",
                          "ipsec-next", "mptcp-next"), "development")}


def same_tree(route, applied, by_kind: bool) -> bool:
    if not by_kind:
        return route == applied
    return KINDS.get((route or "").lower(), route) == KINDS.get((applied or "").lower(), applied)


def review(exe: str, mbox: Path, extra: tuple = ()) -> tuple[int, dict | None, str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    try:
        r = subprocess.run([exe, "check", str(mbox), "--format", "json", *extra], capture_output=True, text=True,
                           timeout=120, env=env, cwd="/")
    except subprocess.TimeoutExpired:
        return 124, None, "timeout"
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except json.JSONDecodeError:
        return r.returncode, None, r.stderr


def postings(dirs, sample: int | None = None) -> list[Path]:
    """Every posting under the directories, or a fixed sample of them (the same one on every run)."""
    found = [m for d in dirs for m in sorted(Path(d).resolve().glob("*.mbox"))]
    if sample and sample < len(found):
        found = sorted(random.Random(20261201).sample(found, sample))
    return found


def score(dirs: list[Path], exe: str, jobs: int = 1, sample: int | None = None, extra: tuple = (),
          by_kind: bool = False) -> dict:
    items = []
    mboxes = postings(dirs, sample)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        reviews = list(pool.map(lambda m: review(exe, m, extra), mboxes))
    for mbox, (rc, data, err) in zip(mboxes, reviews):
        meta = json.loads(mbox.with_suffix(".json").read_text())
        applied = meta.get("applied_to")
        fs = (data or {}).get("findings") or []
        errors = [f"{f['rule']}@{f.get('patch')}" for f in fs if f.get("severity") == "error"
                  and not (f.get("rule") == "series-incomplete" and meta.get("complete_in_mbox") is False)]
        routes = [p.get("tree") for p in ((data or {}).get("verdict") or {}).get("patches") or []]
        tree_findings = [f["rule"] for f in fs if f.get("rule") in TREE_RULES]
        wrong = bool(tree_findings) and any(t and not same_tree(t, applied, by_kind) for t in routes)
        items.append({"item": f"{mbox.parent.name}/{mbox.stem}", "applied_to": applied,
                      "declared": meta.get("declared_tree"), "rc": rc,
                      "error": None if data else err.strip()[-200:], "errors": errors,
                      "wrong_tree": wrong, "tree_findings": tree_findings,
                      "tree_agrees": bool(routes) and all(same_tree(t, applied, by_kind) for t in routes),
                      "routes": routes,
                      "warnings": [f["rule"] for f in fs if f.get("severity") == "warning"],
                      "status": ((data or {}).get("verdict") or {}).get("status")})
    n = len(items)
    return {"items": items, "postings": n,
            "with_error": sum(1 for i in items if i["errors"]),
            "wrong_tree": sum(1 for i in items if i["wrong_tree"]),
            "tree_agrees": sum(1 for i in items if i["tree_agrees"]),
            "unreviewed": sum(1 for i in items if i["error"] is not None),
            "errors_by_rule": Counter(e.split("@")[0] for i in items for e in i["errors"]).most_common(),
            "warnings": sum(len(i["warnings"]) for i in items),
            "warnings_by_rule": Counter(w for i in items for w in i["warnings"]).most_common()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", type=Path, nargs="+")
    ap.add_argument("--reviewtool", default=shutil.which("reviewtool") or "reviewtool")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="reviews run at once (default 2)")
    ap.add_argument("--sample", type=int, help="score a fixed random sample of this many postings")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--by-kind", action="store_true", help="a route agrees when its tree is of the applied tree's kind")
    ap.add_argument("--profile", help="passed to check as --profile")
    a = ap.parse_args()
    res = score(a.dirs, a.reviewtool, a.jobs, a.sample, ("--profile", a.profile) if a.profile else (), a.by_kind)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))
    if a.verbose:
        for i in res["items"]:
            print(f"{i['item'][:52]:52} {i['declared'] or '-':9}-> {i['applied_to'] or '-':9} {i['status'] or '-':14}"
                  f" routes {','.join(t or '-' for t in i['routes']) or '-'}"
                  f"{'  WRONG-TREE ' + ' '.join(i['tree_findings']) if i['wrong_tree'] else ''}"
                  f"{'  errors ' + ' '.join(i['errors']) if i['errors'] else ''}"
                  + (f"  NOT REVIEWED: {i['error']}" if i["error"] else ""))
    print("errors:", " ".join(f"{k}x{v}" for k, v in res["errors_by_rule"]) or "-")
    print("warnings:", " ".join(f"{k}x{v}" for k, v in res["warnings_by_rule"][:12]) or "-")
    n = res["postings"] or 1
    print(f"{res['postings']} accepted postings: with an error {res['with_error']} ({res['with_error'] / n:.0%}); "
          f"sent to a wrong tree {res['wrong_tree']} ({res['wrong_tree'] / n:.0%}); "
          f"tree agrees {res['tree_agrees']} ({res['tree_agrees'] / n:.0%}); warnings {res['warnings'] / n:.2f} a posting; "
          f"not reviewed {res['unreviewed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
