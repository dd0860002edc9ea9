#!/usr/bin/env python3
"""Time `reviewtool fixes-audit` against a NIPA-style per-tag baseline on a generated repository.

    python3 benchmarks/bench_fixes_audit.py [--commits 100000] [--every 40] [--keep DIR]

The repository is made with `git fast-import` in chunks: a mainline of --commits commits with a
merged side branch every 997 commits, an unmerged branch, and a Fixes tag every --every commits
pointing at an earlier commit (some with a wrong subject, some at an unknown sha, some at the
unmerged branch, some with `...` truncations). A commit-graph is written, as on a maintained
mirror (--no-commit-graph to skip).

The baseline does what NIPA's verify_fixes and review-prompts do per tag, one process each:
`git rev-parse --verify <sha>^{commit}`, `git log -1 --format=%s <sha>`,
`git merge-base --is-ancestor <sha> <commit>`; it finds the tags with the same single `git log`
as fixes-audit. Both verdict sets (unknown / subject mismatch / not an ancestor, per commit and
tag) must be identical; the script prints both times (fixes-audit: the median of --repeat runs;
the baseline: one run) and the ratio (target >= 20x). The ratio grows with the share of commits
carrying a Fixes tag (the baseline pays per tag, fixes-audit mostly per commit scanned).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewtool.model.fixes import GREP_ERE as FIXES_GREP  # noqa: E402
from reviewtool.model.fixes import parse_fixes_value  # noqa: E402
from reviewtool.rules.fixes import subject_matches  # noqa: E402

TARGET_RATIO = 20
CHUNK = 10_000
RULES = ("fixes-target-unknown", "fixes-subject-mismatch", "fixes-target-not-ancestor")
SUBSYSTEMS = ("net: core", "foo", "bpf", "netfilter: nf_tables", "net: sched", "ice", "mlx5e", "tcp")


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, check=True,
                          env=_env()).stdout.decode()


def _env() -> dict[str, str]:
    return {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}


def _data(text: str) -> str:
    raw = text.encode()
    return f"data {len(raw)}\n{text}\n"


def generate(repo: Path, commits: int, every: int, seed: int = 1) -> dict[str, int]:
    """Build the repository; returns counts of what was planted."""
    rng = random.Random(seed)
    git(repo, "init", "-q", "-b", "main")
    subjects: dict[str, str] = {}  # sha -> subject, of commits on main
    side_shas: list[str] = []
    planted = {"tags": 0, "wrong_subject": 0, "unknown": 0, "unmerged": 0, "truncated": 0}
    stamp = 1_500_000_000
    n = 0
    first = True
    while n < commits:
        lines = []
        mark_subject: dict[int, str] = {}
        size = min(CHUNK, max(commits // 10, 100), commits - n)
        known = list(subjects.items())
        if first:
            lines.append("reset refs/heads/main\n")
        for i in range(size):
            n += 1
            stamp += 60
            subject = f"{rng.choice(SUBSYSTEMS)}: change number {n}"
            body = f"Explain change {n}.\n"
            trailers = []
            if n % every == 0 and known:
                planted["tags"] += 1
                kind = rng.random()
                if kind < 0.05:
                    trailers.append(f'Fixes: {rng.getrandbits(48):012x} ("lost commit {n}")')
                    planted["unknown"] += 1
                elif kind < 0.08 and side_shas:
                    trailers.append(f'Fixes: {side_shas[n % len(side_shas)][:12]} ("side: experiment")')
                    planted["unmerged"] += 1
                else:
                    sha, real = known[rng.randrange(len(known))]
                    quoted = real
                    if kind < 0.13:
                        quoted = real.replace("change", "chnage")
                        planted["wrong_subject"] += 1
                    elif kind < 0.2:
                        quoted = real[:15] + "..."
                        planted["truncated"] += 1
                    trailers.append(f'Fixes: {sha[:12]} ("{quoted}")')
            trailers.append("Signed-off-by: Dev Eloper <dev@example.org>")
            message = f"{subject}\n\n{body}\n" + "\n".join(trailers) + "\n"
            merge = ""
            if n % 997 == 0 and i >= 5:  # a merge of a topic commit forked 5 commits back, like a pull
                topic = 1_000_000 + i
                mark_subject[topic] = f"topic: work merged at {n}"
                lines.append(f"commit refs/heads/topic\nmark :{topic}\n"
                             f"author T <t@example.org> {stamp} +0000\ncommitter T <t@example.org> {stamp} +0000\n"
                             f"{_data(mark_subject[topic])}from :{i - 4}\n")
                merge = f"merge :{topic}\n"
            lines.append(f"commit refs/heads/main\nmark :{i + 1}\n"
                         f"author Dev Eloper <dev@example.org> {stamp} +0000\n"
                         f"committer Dev Eloper <dev@example.org> {stamp} +0000\n{_data(message)}{merge}")
            if first and i == 0:
                lines.append(f"M 644 inline README\n{_data('generated history')}")
            elif i == 0:  # a new fast-import process: continue the branch where the last one stopped
                lines[-1] = lines[-1].replace(f"{_data(message)}", f"{_data(message)}from refs/heads/main^0\n", 1)
            mark_subject[i + 1] = subject
        first = False
        marks = repo / ".git" / "bench-marks"
        subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet", f"--export-marks={marks}"],
                       input="".join(lines).encode(), check=True, env=_env())
        for line in marks.read_text().splitlines():
            mark, sha = line.split()
            subjects[sha] = mark_subject[int(mark[1:])]
        if not side_shas:  # an unmerged branch off the first chunk
            base = git(repo, "rev-parse", "main").strip()
            side = "".join(f"commit refs/heads/side\nmark :{j + 1}\n"
                           f"author S <s@example.org> {stamp + j} +0000\ncommitter S <s@example.org> {stamp + j} +0000\n"
                           f"{_data(f'side: experiment {j}')}" + (f"from {base}\n" if j == 0 else "")
                           for j in range(20))
            subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet", f"--export-marks={marks}"],
                           input=side.encode(), check=True, env=_env())
            side_shas = [line.split()[1] for line in marks.read_text().splitlines()]
    return planted


def baseline(repo: Path, revrange: str = "HEAD") -> set[tuple[str, str, str]]:
    """What NIPA does, per tag: three git processes. Tags found with one git log, like fixes-audit."""
    log = git(repo, "log", "-i", "-E", f"--grep={FIXES_GREP}", "--format=%x1e%H%x1f%B", revrange)
    verdicts = set()
    for rec in log.split("\x1e")[1:]:
        commit, _, message = rec.partition("\x1f")
        for line in message.splitlines():
            if not line.lower().startswith("fixes:"):
                continue
            sha, quoted = parse_fixes_value(line.split(":", 1)[1])
            if not sha:
                continue
            ok = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{sha}^{{commit}}"],
                                capture_output=True, env=_env())
            if ok.returncode != 0:
                verdicts.add((commit, sha, "fixes-target-unknown"))
                continue
            subject = git(repo, "log", "-1", "--format=%s", sha).strip()
            if quoted and not subject_matches(quoted, subject):
                verdicts.add((commit, sha, "fixes-subject-mismatch"))
            anc = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", sha, commit], env=_env())
            if anc.returncode != 0:
                verdicts.add((commit, sha, "fixes-target-not-ancestor"))
    return verdicts


def ours(repo: Path, revrange: str = "HEAD") -> tuple[set[tuple[str, str, str]], dict]:
    exe = shutil.which("reviewtool") or sys.executable
    cmd = [exe] if exe.endswith("reviewtool") else [exe, "-c", "from reviewtool.cli import run; run()"]
    res = subprocess.run(cmd + ["fixes-audit", "--repo", str(repo), "--format", "json",
                                revrange], capture_output=True, env=_env())
    if res.returncode not in (0, 1):
        raise SystemExit(f"fixes-audit failed: {res.stderr.decode()}")
    data = json.loads(res.stdout)
    verdicts = {(f["commit"], f["evidence"][0].split()[1].lower(), f["rule"]) for f in data["findings"]
                if f["rule"] in RULES}
    return verdicts, data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commits", type=int, default=100_000)
    ap.add_argument("--every", type=int, default=40, help="a Fixes tag every N commits (2.5%% of commits)")
    ap.add_argument("--keep", type=Path, help="build (or reuse) the repository here")
    ap.add_argument("--no-commit-graph", action="store_true")
    ap.add_argument("--repeat", type=int, default=5, help="runs of fixes-audit (the median is reported)")
    args = ap.parse_args()
    tmp = None
    repo = args.keep
    if repo is None:
        tmp = tempfile.mkdtemp(prefix="bench-fixes-audit-")
        repo = Path(tmp) / "repo"
    try:
        if not (repo / ".git").is_dir():
            repo.mkdir(parents=True, exist_ok=True)
            t = time.perf_counter()
            planted = generate(repo, args.commits, args.every)
            if not args.no_commit_graph:
                git(repo, "commit-graph", "write", "--reachable")
            print(f"generated {args.commits} commits in {time.perf_counter() - t:.1f}s: {planted}")
        total = int(git(repo, "rev-list", "--count", "HEAD").strip())
        runs = []
        for _ in range(args.repeat):  # short runs suffer most from machine noise: take the median
            t = time.perf_counter()
            mine, data = ours(repo)
            runs.append(time.perf_counter() - t)
        t_ours = statistics.median(runs)
        t = time.perf_counter()
        theirs = baseline(repo)
        t_base = time.perf_counter() - t
        tags = data["audit"]["fixes_tags"]
        print(f"repository: {total} commits, {tags} Fixes tags in {data['audit']['commits_with_fixes']} commits")
        print(f"fixes-audit: {t_ours:.2f}s median of {len(runs)} ({len(mine)} problems: "
              + ", ".join(f"{r} {sum(1 for v in mine if v[2] == r)}" for r in RULES) + ")")
        print(f"baseline (rev-parse + log -1 + merge-base per tag): {t_base:.2f}s")
        same = mine == theirs
        print(f"identical answers: {'yes' if same else 'NO'}")
        if not same:
            print("only fixes-audit:", sorted(mine - theirs)[:5])
            print("only baseline:", sorted(theirs - mine)[:5])
        ratio = t_base / t_ours
        print(f"ratio: {ratio:.1f}x (target >= {TARGET_RATIO}x: {'met' if ratio >= TARGET_RATIO else 'NOT met'})")
        return 0 if same and tags >= 1000 and total >= 100_000 else 1
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
