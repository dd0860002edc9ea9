#!/usr/bin/env python3
"""The classifier's kind of each patch against the tree the maintainers applied it to.

For every posting applied as posted in the labelled sets of ../shared/cases (one half, as
benchmarks/calibrate.py splits them), `reviewtool check --format json` gives each patch a kind
(fix, development, test, docs), the basis it rests on (a Fixes tag, what the diff adds, the
summary's words, the description, a clean-up, a verb, the size, nothing) and the tree it routes
the patch to. The posting's label gives the tree it went to; its kind (fixes or development) is
the scorer's (score_accepted.KINDS). Two tables per set:

- kind by basis against the kind of tree applied to: where the classifier's reading and the
  maintainers' choice part (a "fix" by its words that went to the development tree is not an
  error by itself: most lists take small fixes there; the route decides);
- route: the patches whose route is of the applied tree's kind, and of the others, which basis
  the route rested on.

    python3 benchmarks/tree_confusion.py                # half A, every accepted set
    python3 benchmarks/tree_confusion.py --half B
    python3 benchmarks/tree_confusion.py --half all --sets iwl-accepted netfilter-accepted
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import CASES, SETS, _Subset, review_all, scorer  # noqa: E402

ACCEPTED = ("netdev-accepted", "wireless-accepted", "iwl-accepted", "netfilter-accepted", "netfilter-userspace")
KINDS_ORDER = ("fix", "development", "test", "docs")


def tree_kind(name: str | None, kinds: dict[str, str]) -> str:
    """fixes | development | other (a user-space project's tree has no kind)."""
    return kinds.get((name or "").lower(), "other")


def rows_of(set_name: str, half: str, jobs: int) -> list[dict]:
    folder = CASES / SETS[set_name][0]
    mboxes = _Subset(folder, half).mboxes()
    reviews = review_all(mboxes, jobs)
    kinds = scorer("accepted").KINDS
    out = []
    for mbox in mboxes:
        meta = json.loads(mbox.with_suffix(".json").read_text())
        applied = tree_kind(meta.get("applied_to"), kinds)
        data = reviews[mbox][1] or {}
        for p in (data.get("verdict") or {}).get("patches") or []:
            out.append({"case": mbox.stem, "counter": p.get("counter"), "kind": p.get("kind"), "basis": p.get("basis"),
                        "route": tree_kind(p.get("tree"), kinds), "applied": applied})
    return out


def table(rows: list[dict]) -> list[str]:
    cells = Counter((r["kind"], r["basis"], r["applied"]) for r in rows)
    lines = [f"  {'kind / basis':28} {'to fixes':>9} {'to development':>15} {'other':>6}"]
    for kind in KINDS_ORDER:
        for basis in sorted({b for k, b, _ in cells if k == kind}):
            n = [cells[(kind, basis, a)] for a in ("fixes", "development", "other")]
            lines.append(f"  {kind + ' / ' + basis:28} {n[0]:9d} {n[1]:15d} {n[2]:6d}")
    judged = [r for r in rows if r["applied"] != "other" and r["route"] != "other"]
    agree = sum(1 for r in judged if r["route"] == r["applied"])
    off = Counter((r["route"], r["applied"], r["basis"]) for r in judged if r["route"] != r["applied"])
    lines.append(f"  route of the applied tree's kind: {agree} of {len(judged)} patches"
                 + (f" ({agree / len(judged):.1%})" if judged else ""))
    for (route, applied, basis), n in sorted(off.items(), key=lambda kv: -kv[1]):
        lines.append(f"    routed to {route}, applied to {applied}, resting on {basis}: {n}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("A", "B", "all"), default="A")
    ap.add_argument("--sets", nargs="*", default=list(ACCEPTED), choices=list(ACCEPTED))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    a = ap.parse_args()
    for name in a.sets:
        rows = rows_of(name, a.half, a.jobs)
        print(f"{name} [{a.half}]: {len(rows)} patches of {len({r['case'] for r in rows})} postings")
        print("\n".join(table(rows)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
