#!/usr/bin/env python3
"""Score reviewtool against real maintainer verdicts.

reviewtool's copy of ../shared/eval/score_cases.py, unchanged (tests/test_scores.py and
benchmarks/calibrate.py read it from here, so the suite runs from a plain clone).

Each case is NN-slug.mbox (the posting as it reached the list, without the verdict reply) and
NN-slug.json, whose `expected_findings` lists what the maintainer actually raised, as keywords
(`tree:net-next-material`, `fixes:missing`, ...), and whose `also_acceptable` lists problems that
are real but were not raised. See README.md beside this file for the vocabulary.

    python3 score_cases.py CASES_DIR [--reviewtool EXE] [--json OUT] [--verbose]

Recall counts expected keywords that some warning or error of the review maps to: the maintainer
objected, so a review that only notes the point (severity info) has not raised it; such keywords
are counted apart as "noted only" (`--count-notes` counts them as hits, the scoring before
2026-12-02). Keywords that need the target project's repository (NEEDS_REPO) are counted apart,
since the review runs without one. A warning or error whose keywords are in neither list is a
false alarm; info findings never are. The mapping from rule
names to keywords is RULE_TO_KEYS below: a rule that is not in it maps to no keyword, so each of
its warnings and errors counts as a false alarm until it is mapped here.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

RULE_TO_KEYS = {
    "tree-mismatch": ["tree:net-next-material", "tree:net-material"],
    "tree-tag-missing": ["tree:missing-tag"],
    "split-series": ["split:move-patch-to-other-tree", "split:send-alone"],
    "cover-letter-unneeded": ["cover:unneeded", "split:send-alone"],
    "fixes-missing": ["fixes:missing"],
    "fixes-format": ["fixes:format", "fixes:sha-short"],
    "fixes-subject-mismatch": ["fixes:subject-mismatch"],
    "fixes-target-unknown": ["fixes:wrong-target", "fixes:sha-mismatch-between-versions"],
    "fixes-target-not-ancestor": ["fixes:wrong-target"],
    "fix-for-next-only-code": ["fixes:wrong-target", "tree:net-next-material"],
    "net-next-closed": ["netnext:closed"],
    "series-too-long": ["series:too-long"],
    "new-version-in-reply": ["thread:reply-to-old-version"],
    "signed-off-by-missing": ["sob:missing-author"],
    "signed-off-by-author": ["sob:missing-author", "sob:from-mismatch", "sob:chain-author-mismatch"],
    "signed-off-by-sender-last": ["sob:missing-submitter", "sob:order"],
    "reported-by-without-closes": ["tags:reported-by-closes"],
    "co-developed-by-without-signoff": ["tags:codev-sob"],
    "commit-reference-format": ["commitref:format"],
    "trailer-block-broken": ["trailers:blank-lines", "body:blank-line-before-separator"],
    "version-not-bumped": ["version:not-bumped"],
    "repost-too-soon": ["repost:within-24h"],
    "trailers-not-carried": ["tags:not-carried-forward"],
    "subject-format": ["cover:bad-subject", "subject:malformed-prefix", "subject:missing-subsystem-prefix",
                       "subject:missing-patch-prefix", "subject:prefix", "subject:bare-v1",
                       "subject:subsystem-prefix", "subject:too-long"],
    "subject-prefix-history": ["subject:wrong-subsystem-prefix", "subject:subsystem-prefix", "subject:prefix"],
    "patch-corrupt": ["patch:corrupt", "patch:whitespace-damaged"],
    "malformed-address": ["tags:malformed-address", "header:malformed-address"],
    "review-trailer-dropped": ["tags:malformed-address"],
    "changelog-missing": ["changelog:missing"],
    "changelog-above-cut": ["changelog:above-cut"],
    "assisted-by-missing": ["ai:assisted-by"],
    "assisted-by-format": ["ai:assisted-by"],
    "ai-signed-off": ["ai:assisted-by"],
    "series-incomplete": ["series:incomplete-in-input"],
    "base-commit-missing": ["base:missing"],
    "cover-letter-missing": ["cover:missing"],
    "cover-letter-merge-text": ["cover:merge-text"],
    "nonstandard-trailer": ["tags:nonstandard", "tags:malformed-trailer"],
    "fixes-not-needed": ["fixes:not-needed"],
    "commit-message-missing": ["body:missing-description"],
    "patch-spans-trees": ["split:mixed-tree-patch"],
    "duplicate-trailer": ["tags:duplicate"],
    "cc-missing": ["recipients:missing"],
    "discussion-in-log": ["body:email-discussion-in-log"],
    "generic-address": ["sob:generic-address"],
    "trailer-required": ["tags:missing-tested-on"],
}
# What no review can see without the target project's repository (its history, its MAINTAINERS):
# the scorers run `check` without one, so these are counted apart from recall.
NEEDS_REPO = {"fixes:subject-mismatch", "fixes:wrong-target", "subject:wrong-subsystem-prefix",
              "recipients:missing"}
KEYWORD = re.compile(r"\b[a-z][a-z0-9]*:[a-z0-9][a-z0-9-]*\b")


def keywords_in(texts) -> set[str]:
    """Keywords named anywhere in free-text entries (`also_acceptable` items explain themselves)."""
    found = set()
    for t in texts or ():
        found.update(KEYWORD.findall(str(t)))
    return found


def review(exe: str, mbox: Path) -> tuple[int, dict | None, str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    try:
        r = subprocess.run([exe, "check", str(mbox), "--format", "json"], capture_output=True, text=True,
                           timeout=120, env=env, cwd="/")
    except subprocess.TimeoutExpired:
        return 124, None, "timeout"
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except json.JSONDecodeError:
        return r.returncode, None, r.stderr


def score(cases_dir: Path, exe: str, jobs: int = 1, count_notes: bool = False) -> dict:
    cases = []
    mboxes = sorted(Path(cases_dir).resolve().glob("*.mbox"))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        reviews = list(pool.map(lambda m: review(exe, m), mboxes))
    for mbox, (rc, data, err) in zip(mboxes, reviews):
        meta = json.loads(mbox.with_suffix(".json").read_text())
        expected = set(meta.get("expected_findings") or [])
        also = keywords_in(meta.get("also_acceptable"))
        if str(meta.get("diff_recovered", "")).startswith("not"):
            also.add("series:incomplete-in-input")  # the case holds only what could be recovered
        raised, noted, alarms = set(), set(), []
        for f in (data or {}).get("findings") or []:
            keys = set(RULE_TO_KEYS.get(f.get("rule"), []))
            strong = f.get("severity") in ("error", "warning")
            (raised if strong or count_notes else noted).update(keys)
            alarm = f"{f.get('rule')}@{f.get('patch')}"  # one per rule and patch, however many lines
            if strong and not keys & (expected | also) and alarm not in alarms:
                alarms.append(alarm)
        repo_only = expected & NEEDS_REPO
        expected -= repo_only
        cases.append({"case": mbox.stem, "rc": rc, "error": None if data else err.strip()[-200:],
                      "expected": sorted(expected), "hit": sorted(expected & raised),
                      "missed": sorted(expected - raised), "noted_only": sorted((expected & noted) - raised),
                      "false_alarms": alarms,
                      "needs_repo": sorted(repo_only), "needs_repo_hit": sorted(repo_only & raised),
                      "status": ((data or {}).get("verdict") or {}).get("status")})
    total = sum(len(c["expected"]) for c in cases)
    hit = sum(len(c["hit"]) for c in cases)
    return {"cases": cases, "expected": total, "hit": hit, "recall": hit / total if total else 1.0,
            "needs_repo": sum(len(c["needs_repo"]) for c in cases),
            "needs_repo_hit": sum(len(c["needs_repo_hit"]) for c in cases),
            "noted_only": sum(len(c["noted_only"]) for c in cases),
            "false_alarms": sum(len(c["false_alarms"]) for c in cases),
            "unreviewed": sum(1 for c in cases if c["error"] is not None),
            "missed_by_keyword": Counter(k for c in cases for k in c["missed"]).most_common(),
            "alarms_by_rule": Counter(a.split("@")[0] for c in cases for a in c["false_alarms"]).most_common()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", type=Path)
    ap.add_argument("--reviewtool", default=shutil.which("reviewtool") or "reviewtool")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="reviews run at once (default 2)")
    ap.add_argument("--json", type=Path, help="write the whole result here")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    ap.add_argument("--count-notes", action="store_true", help="count info findings as hits too")
    a = ap.parse_args()
    res = score(a.cases, a.reviewtool, a.jobs, a.count_notes)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))
    if a.verbose:
        for c in res["cases"]:
            print(f"{c['case'][:48]:48} {c['status'] or '-':14} hit {len(c['hit'])}/{len(c['expected'])}"
                  f"  missed {' '.join(c['missed']) or '-'}"
                  + (f" (noted {' '.join(c['noted_only'])})" if c["noted_only"] else "")
                  + f"  alarms {' '.join(c['false_alarms']) or '-'}"
                  + (f"  NOT REVIEWED: {c['error']}" if c["error"] else ""))
    print("missed:", " ".join(f"{k}x{n}" for k, n in res["missed_by_keyword"]) or "-")
    print("false alarms:", " ".join(f"{k}x{n}" for k, n in res["alarms_by_rule"]) or "-")
    n = len(res["cases"])
    print(f"{n} cases: recall {res['hit']}/{res['expected']} = {res['recall']:.2f} "
          f"(noted as info only: {res['noted_only']}); "
          f"false alarms {res['false_alarms']} ({res['false_alarms'] / n if n else 0:.2f} per case); "
          f"not reviewed {res['unreviewed']}; needing a repository (apart): "
          f"{res['needs_repo_hit']}/{res['needs_repo']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
