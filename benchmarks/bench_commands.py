"""Benchmark: reviewtool commands against a repository, as a maintainer or b4 starts them.

Uses the repository bench_lint.py generates (or keeps: --keep DIR; --kernel-source for the kernel
tree) and times, interleaved in one run, each as a command with its bytecode written as pip
leaves an installed package:

- `reviewtool b4-check --format checkpatch --prep` of the last commit of its `work` branch on
  stdin (b4 prep --check starts it once per patch);
- `reviewtool check DIR --repo REPO --format json` of the 50 commits of `work` as format-patch
  files (a maintainer reviewing a posted series against the tree: base-commit, Fixes targets,
  does-not-apply, MAINTAINERS);
- with --compare CHECKOUT, both commands from another reviewtool checkout (before/after);
- the floors they cannot go under: the interpreter alone (`python3 -c pass`) and b4's own start
  (`b4 --version`), when b4 is installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_lint import build, git  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--keep", type=Path, metavar="DIR", help="reuse (or create) bench_lint's repository in DIR")
    ap.add_argument("--kernel-source", type=Path, metavar="TARBALL_OR_DIR")
    ap.add_argument("--compare", type=Path, metavar="CHECKOUT", help="another reviewtool checkout to time too")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-commands-"))
    try:
        if args.keep and (args.keep / "linux").is_dir():
            repo = args.keep / "linux"
        else:
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
            repo = build(args.keep or tmp, 50, source_tree=args.kernel_source)
            git(repo, "gc", "-q")
        patch = subprocess.run(["git", "-C", str(repo), "format-patch", "--stdout", "-1", "work"],
                               capture_output=True, check=True).stdout
        series = tmp / "series"
        git(repo, "format-patch", "-q", "--cover-letter", "--base=auto", "-o", str(series), "main..work")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", XDG_CACHE_HOME=str(tmp / "cache"))
        b4check = ["-m", "reviewtool", "b4-check", "--format", "checkpatch", "--prep"]
        check = ["-m", "reviewtool", "check", str(series), "--repo", str(repo), "--format", "json"]
        commands = {}
        for label, tree in [("this checkout", ROOT)] + ([(str(args.compare), args.compare)] if args.compare else []):
            commands[f"b4-check, one patch ({label})"] = ([sys.executable, *b4check], {"PYTHONPATH": str(tree)})
            commands[f"check, 50 patches ({label})"] = ([sys.executable, *check], {"PYTHONPATH": str(tree)})
        commands["python3 -c pass"] = ([sys.executable, "-c", "pass"], {})
        if shutil.which("b4"):
            commands["b4 --version"] = ([shutil.which("b4"), "--version"], {})

        def run(cmd, extra) -> float:
            start = time.perf_counter()
            res = subprocess.run(cmd, input=patch, capture_output=True, cwd=repo, env={**env, **extra})
            assert res.returncode in (0, 1), res.stderr.decode()[-500:]
            return time.perf_counter() - start

        for cmd, extra in commands.values():  # warm-up: bytecode, template cache, page cache
            run(cmd, extra)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for i in range(args.repeat):
            for name in (list(commands) if i % 2 == 0 else list(commands)[::-1]):
                times[name].append(run(*commands[name]))
        print(f"{repo}: medians of {args.repeat}")
        for name, values in times.items():
            print(f"{name:60} {statistics.median(values) * 1000:8.1f} ms")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
