#!/usr/bin/env python3
"""How often each rule and each phrase of the classifier fires on applied work, against how often
it finds what a maintainer objected to.

For every posting of the labelled sets in ../shared/cases (one half of them: benchmarks/calibrate.py
splits them), it runs the review and reads every patch with the phrase table
(reviewtool/data/phrases.toml), then prints two tables:

- rules: postings applied as posted where the rule warned (or erred), against verdict cases
  where it found a point the maintainer raised (its keywords: the shared scorer's RULE_TO_KEYS)
  and verdict cases where it warned on something nobody raised;
- phrases: postings applied as posted where the phrase fires at all, where it fires and the
  patch's kind rests on it while a tree or Fixes rule warns on that patch ("warns"), against
  verdict cases where it fires and the maintainer raised a point its meaning supports (its
  `supports` keywords).

A rule or phrase that fires on accepted work more often than it finds objections does not warn:
the table marks it "note" once it warned on at least two applied postings of a list (below that
the evidence is too thin to overrule the documented policy); the committed output is
benchmarks/rule_table.txt, and benchmarks/README.md says how each mark was acted on.

    python3 benchmarks/rule_table.py                  # half A, both tables
    python3 benchmarks/rule_table.py --half all -o benchmarks/rule_table.txt
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import CASES, SETS, _init_worker, half_of, review_one, scorer  # noqa: E402

ACCEPTED = ("netdev-accepted", "wireless-accepted", "iwl-accepted", "netfilter-accepted", "netfilter-userspace")
VERDICTS = ("netdev-verdicts", "wireless-verdicts", "wireless-prefix")
# Rules whose findings rest on the classification (the phrases decide them).
CLASS_RULES = {"tree-mismatch", "fixes-missing", "fixes-not-needed", "split-series", "tree-tag-missing",
               "net-next-closed", "fix-for-next-only-code"}


def _read(mbox: str) -> tuple[tuple, dict[int, list[str]]]:
    """The review's JSON, and per patch every phrase of the table that counts in it."""
    from reviewtool.context.calendar import _shipped_calendar
    from reviewtool.context.profiles.load import shipped_profiles
    from reviewtool.context.classify.reading import every_hit, read_patch
    from reviewtool.review import ReviewOptions, load_series

    res = review_one(mbox)
    data = res[1] or {}
    phrases: dict[int, list[str]] = {}
    try:
        series = load_series(mbox, ReviewOptions())
        profiles = shipped_profiles()
        profile = profiles.get((data.get("series") or {}).get("profile") or "generic", profiles["generic"])
        for p in series.all_mails:
            r = read_patch(p, profile, _shipped_calendar())
            phrases[p.counter] = sorted({h.key for h in every_hit(p, r)})
    except Exception:  # an unreadable case is the review's to report
        pass
    return res, phrases


def gather(half: str, jobs: int) -> dict[str, list[tuple[dict, tuple, dict]]]:
    out = {}
    for name in ACCEPTED + VERDICTS:
        folder = CASES / SETS[name][0]
        mboxes = [m for m in sorted(folder.glob("*.mbox")) if half == "all" or half_of(m) == half]
        with ProcessPoolExecutor(jobs, initializer=_init_worker) as pool:
            results = list(pool.map(_read, [str(m) for m in mboxes], chunksize=4))
        out[name] = [(json.loads(m.with_suffix(".json").read_text()), r, ph) for m, (r, ph) in zip(mboxes, results)]
    return out


def _meanings() -> dict[str, list[str]]:
    from reviewtool.context.phrases import _data

    return {name: list(d.get("supports", ())) for name, d in _data().items()}


LISTS = {"netdev": (("netdev-accepted",), ("netdev-verdicts",)),
         "wireless": (("wireless-accepted",), ("wireless-verdicts", "wireless-prefix")),
         "iwl": (("iwl-accepted",), ()),
         "netfilter": (("netfilter-accepted", "netfilter-userspace"), ())}


def _warned(review: dict | None) -> set[str]:
    return {f["rule"] for f in (review or {}).get("findings", []) if f.get("severity") in ("warning", "error")}


def rule_rows(data, accepted, verdicts) -> dict[str, tuple[int, int, int, int]]:
    """rule -> (postings applied as posted it warned on, verdict cases where it raised a point the
    maintainer raised (at warning or error), verdict cases where it only noted such a point (info:
    counted as missed by the scorer), verdict cases where it warned on a point nobody raised)."""
    keys = scorer("cases", "project").RULE_TO_KEYS
    fires, finds, noted, alarms = Counter(), Counter(), Counter(), Counter()
    for name in accepted:
        for _meta, (_rc, review, _err), _ph in data[name]:
            fires.update(_warned(review))
    for name in verdicts:
        for meta, (_rc, review, _err), _ph in data[name]:
            expected = set(meta.get("expected_findings") or [])
            raised = {r for r in _warned(review) if set(keys.get(r, ())) & expected}
            finds.update(raised)
            noted.update(r for r in {f["rule"] for f in (review or {}).get("findings", [])}
                         if set(keys.get(r, ())) & expected and r not in raised)
            alarms.update(r for r in _warned(review) if not set(keys.get(r, ())) & expected)
    return {r: (fires[r], finds[r], noted[r], alarms[r]) for r in set(fires) | set(finds) | set(noted) | set(alarms)}


def phrase_rows(data, accepted, verdicts) -> dict[str, tuple[int, int, int]]:
    """phrase -> (postings applied as posted it fires in, of them where a patch's kind rests on it
    while a tree or Fixes rule warns on that patch, verdict cases where it fires and a point its
    meaning supports was raised)."""
    supports = _meanings()
    fires, warns, finds = Counter(), Counter(), Counter()
    for name in accepted:
        for _meta, (_rc, review, _err), ph in data[name]:
            review = review or {}
            warned_patches = defaultdict(set)
            for f in review.get("findings", []):
                if f.get("rule") in CLASS_RULES and f.get("severity") in ("warning", "error"):
                    warned_patches[f.get("patch")].add(f["rule"])
            decided = {p["counter"]: set(p.get("phrases") or ()) for p in (review.get("verdict") or {}).get("patches", [])}
            seen, warned = set(), set()
            for counter, keys in ph.items():
                seen.update(keys)
                if warned_patches.get(counter) or warned_patches.get(None):
                    warned.update(k for k in keys if k in decided.get(counter, ()))
            fires.update(seen)
            warns.update(warned)
    for name in verdicts:
        for meta, _res, ph in data[name]:
            expected = set(meta.get("expected_findings") or [])
            finds.update(k for k in {k for keys in ph.values() for k in keys}
                         if set(supports.get(k.split("/")[0], ())) & expected)
    return {k: (fires[k], warns[k], finds[k]) for k in set(fires) | set(finds)}


NOTE_FROM = 2  # applied postings a rule must warn on (and more often than it finds) to become a note


def _verdict(fired: int, found: int) -> str:
    """"note" where the evidence says the list's maintainers apply what the rule warns about: it
    warned on at least NOTE_FROM applied postings and more often than it found an objection."""
    return "note" if fired >= NOTE_FROM and fired > found else ""


def render(data, half: str) -> str:
    sizes = ", ".join(f"{n} {len(data[n])}" for n in ACCEPTED + VERDICTS)
    lines = [f"half {half} of ../shared/cases: {sizes}", "",
             "A rule: postings applied as posted that it warned on (acc), verdict cases where it raised a point",
             "the maintainer raised, at warning or error (finds), verdict cases where it only noted such a point",
             "(noted: the scorer counts it missed), verdict cases where it warned on a point nobody raised",
             "(alarms). iwl and netfilter have applied postings only: no rule is marked there.", "",
             f"{'rule':34}" + "".join(f"{l + ': acc finds noted alarms':>36}" for l in LISTS),
             "-" * (34 + 36 * len(LISTS))]
    per = {l: rule_rows(data, *sets) for l, sets in LISTS.items()}
    rules = sorted({r for rows in per.values() for r in rows},
                   key=lambda r: (-sum(per[l].get(r, (0, 0, 0, 0))[0] for l in LISTS), r))
    for r in rules:
        cells = []
        for l in LISTS:
            f, h, n, a = per[l].get(r, (0, 0, 0, 0))
            mark = _verdict(f, h) if LISTS[l][1] else ""  # no verdicts: nothing to weigh the alarms against
            cells.append(f"{f:>12d} {h:>5d} {n:>5d} {a:>6d} {mark:>5}")
        lines.append(f"{r:34}" + "".join(cells))
    lines += ["", "A phrase: postings applied as posted it fires in (acc), of them those where a patch's kind rests",
              "on it while a tree or Fixes rule warns on that patch (warns), verdict cases where it fires and a",
              "point its meaning supports was raised (finds).", "",
              f"{'phrase (meaning/id)':40}" + "".join(f"{l + ': acc warns finds':>29}" for l in LISTS),
              "-" * (40 + 29 * len(LISTS))]
    perp = {l: phrase_rows(data, *sets) for l, sets in LISTS.items()}
    for k in sorted({k for rows in perp.values() for k in rows}):
        cells = []
        for l in LISTS:
            f, w, h = perp[l].get(k, (0, 0, 0))
            cells.append(f"{f:>11d} {w:>5d} {h:>5d} {_verdict(w, h):>5}")
        lines.append(f"{k:40}" + "".join(cells))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("A", "B", "all"), default="A")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--output", "-o", type=Path)
    a = ap.parse_args()
    text = render(gather(a.half, a.jobs), a.half)
    if a.output:
        a.output.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
