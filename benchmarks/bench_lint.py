"""Benchmark: `reviewtool lint` of a 50-commit range against `git format-patch` of the same range.

Generates, in a temporary directory, a kernel-shaped repository (MAINTAINERS with 300 sections,
400 source files, a history of 300 commits on `main`, a `work` branch tracking it with 50 commits
of one to three files each, Fixes tags blaming earlier commits, sign-offs), then times in one run:

- `git format-patch --stdout --cover-letter --base=auto @{u}..HEAD` (the baseline),
- lint in process (`lint_review`, as a pre-push hook or editor integration calls it once warm),
  and the same with subject-prefix-history's log walked again (the first lint after the upstream
  moved; otherwise it is read back from the cache of that log),
- `reviewtool lint --format json` as a command (interpreter start and imports included, with
  bytecode compiled as pip leaves it: the warm-up run writes it).

Runs are interleaved so machine load hits all alike; medians are compared. Exit 1 with --check
when the in-process ratio is over 2.

The repository is packed (`git gc`) before timing, as a clone is; `--loose` keeps the loose
objects of the generation instead. `--kernel-source TARBALL_OR_DIR` builds the same history on a
real kernel tree (Debian's /usr/src/linux-source-*.tar.xz: 78,000 files, its real MAINTAINERS),
touching real files of the same subsystems, so both tools work at the scale of a kernel checkout.
`--deep N` adds N commits of history (git fast-import) under the work branch: a real clone's
history is deep, and subject-prefix-history reads its newest 10,000 commits.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SUBSYSTEMS = ["net/core", "net/ipv4", "net/sched", "drivers/net/ethernet/foo", "drivers/net/ethernet/bar",
              "drivers/net/phy", "kernel/bpf", "lib", "fs/ext4", "include/net"]


def git(repo: Path, *args: str, input: str | None = None, env: dict | None = None) -> str:
    res = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, check=True)
    return res.stdout.strip()


def maintainers_text(rng: random.Random) -> str:
    out = ["List of maintainers", ""]
    for i in range(300):
        sub = SUBSYSTEMS[i % len(SUBSYSTEMS)]
        out += [f"SECTION {i:03d} {sub.upper()}", f"M:\tMaint {i} <maint{i}@example.org>",
                f"R:\tRev {i} <rev{i}@example.org>", f"L:\tlist{i % 20}@vger.example.org", "S:\tMaintained",
                f"F:\t{sub}/file{i % 40:02d}.c" if i >= len(SUBSYSTEMS) else f"F:\t{sub}/",
                f"K:\\bkey{i}_word\\b" if i % 7 == 0 else "N:\tnomatch" + str(i), ""]
    out += ["THE REST", "M:\tLinus <torvalds@example.org>", "L:\tlinux-kernel@vger.kernel.org", "S:\tBuried alive in reporters",
            "F:\t*", "F:\t*/", ""]
    return "\n".join(out)


def source(rng: random.Random, lines: int) -> str:
    return "".join(f"static int fn_{rng.randrange(10**6)}(int a) {{ return a + {i}; }}\n" for i in range(lines))


def _kernel_tree(repo: Path, source_tree: Path) -> list[str]:
    """The kernel source as the first commit; returns real C files of SUBSYSTEMS to edit."""
    if source_tree.is_dir():
        shutil.copytree(source_tree, repo, symlinks=True, dirs_exist_ok=True)
    else:
        subprocess.run(["tar", "-xJf", str(source_tree), "-C", str(repo), "--strip-components=1"], check=True)
    (repo / ".gitignore").unlink(missing_ok=True)  # Debian's ignores every top-level entry
    git(repo, "add", "-f", "-A", ".")
    git(repo, "commit", "-q", "-m", "Linux 6.1")
    listed = git(repo, "ls-files", "--", *(f"{sub}/*.c" for sub in ("net/core", "net/ipv4", "net/sched",
                                                                        "drivers/net/phy", "kernel/bpf", "lib")))
    return sorted(listed.splitlines())[::7][:400]


def build(path: Path, commits: int, seed: int = 1, source_tree: Path | None = None) -> Path:
    rng = random.Random(seed)
    repo = path / "linux"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Jane Dev")
    git(repo, "config", "user.email", "jane@example.org")
    git(repo, "config", "gc.auto", "0")
    if source_tree is not None:
        files = _kernel_tree(repo, source_tree)
    else:
        files = [f"{sub}/file{n:02d}.c" for sub in SUBSYSTEMS for n in range(40)]
        (repo / "MAINTAINERS").write_text(maintainers_text(rng))
        for f in files:
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            (repo / f).write_text(source(rng, 120))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "Initial tree")
    history = []
    stamp = 1_700_000_000

    def commit(message: str, author: str) -> str:
        nonlocal stamp
        stamp += 60
        picked = rng.sample(files, rng.choice((1, 1, 2, 3)))
        for f in picked:
            text = (repo / f).read_text().splitlines(keepends=True)
            at = rng.randrange(len(text))
            text[at:at + 4] = [source(rng, 1) for _ in range(rng.choice((3, 6, 12)))]
            (repo / f).write_text("".join(text))
        git(repo, "add", "--", *picked)
        git(repo, "commit", "-q", "-m", message,
            env={"GIT_AUTHOR_DATE": f"@{stamp} +0000", "GIT_COMMITTER_DATE": f"@{stamp} +0000",
                 "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": author.lower().replace(" ", ".") + "@example.net"})
        return git(repo, "rev-parse", "HEAD")

    for i in range(300):
        history.append((commit(f"sub{i % 10}: change {i}\n\nBody {i}.\n\nSigned-off-by: Old {i % 9} "
                               f"<old.{i % 9}@example.net>", f"Old {i % 9}"), f"sub{i % 10}: change {i}"))
    git(repo, "checkout", "-q", "-b", "work")
    git(repo, "branch", "-q", "--set-upstream-to=main")
    for i in range(commits):
        target, subject = rng.choice(history)
        fixes = f'Fixes: {target[:12]} ("{subject}")\n' if i % 3 == 0 else ""
        commit(f"foo: fix number {i}\n\nThe foo path leaks when bar fails (case {i}).\n\n{fixes}"
               "Signed-off-by: Jane Dev <jane@example.org>", "Jane Dev")
    return repo


def cpu_costs(run_fp, run_inproc, rounds: int = 5) -> list[tuple[str, float]]:
    """Median CPU milliseconds per run: format-patch's; lint's Python; lint's git processes."""
    def cpu(fn) -> tuple[float, float]:
        own, kids = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        fn()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (time.process_time() - own) * 1000, (after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime) * 1000

    fp = [cpu(run_fp)[1] for _ in range(rounds)]
    lint = [cpu(run_inproc) for _ in range(rounds)]
    return [("format-patch", statistics.median(fp)), ("lint: Python", statistics.median(x[0] for x in lint)),
            ("lint: git", statistics.median(x[1] for x in lint))]


def deepen(repo: Path, commits: int, seed: int = 2) -> None:
    """Put `commits` more commits (git fast-import, one to three files each, as kernel history
    has them) between main's old head and the work branch, which is replayed on top: a history
    as deep as the newest 10,000 commits subject-prefix-history reads in a real clone."""
    rng = random.Random(seed)
    files = [f for f in git(repo, "ls-files", "--", "*.c").splitlines() if (repo / f).stat().st_size < 16000]
    files = rng.sample(files, min(3000, len(files)))
    head = git(repo, "rev-parse", "main")
    batch = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{head}:{f}\n" for f in files).encode()).stdout
    contents: dict[str, bytes] = {}
    at = 0
    for f in files:  # "<sha> blob <size>\n<data>\n" per file, in order
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        contents[f] = batch[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
    out = [f"reset refs/heads/deep\nfrom {head}\n\n".encode()]
    stamp = 1_700_500_000
    for i in range(commits):
        picked = rng.sample(files, rng.choice((1, 1, 2, 3)))
        subsystem = ": ".join(Path(picked[0]).parent.parts[:2])
        message = f"{subsystem}: change {i}\n\nSigned-off-by: Dev {i % 40} <dev{i % 40}@example.org>\n".encode()
        stamp += 60
        who = f"Dev {i % 40} <dev{i % 40}@example.org> {stamp} +0000"
        out.append(f"commit refs/heads/deep\nauthor {who}\ncommitter {who}\ndata {len(message)}\n".encode() + message)
        for f in picked:
            contents[f] += f"/* change {i} */\n".encode()
            out.append(f"M 100644 inline {f}\ndata {len(contents[f])}\n".encode() + contents[f] + b"\n")
        out.append(b"\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(out), check=True)
    old_work = git(repo, "rev-parse", "work")
    git(repo, "checkout", "-q", "--detach", "deep")
    git(repo, "cherry-pick", "-X", "theirs", f"{head}..{old_work}")
    git(repo, "branch", "-f", "main", "deep")
    git(repo, "branch", "-f", "work", "HEAD")
    git(repo, "checkout", "-q", "work")
    git(repo, "branch", "-q", "--set-upstream-to=main")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--commits", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--check", action="store_true", help="exit 1 when the in-process ratio is over 2")
    ap.add_argument("--loose", action="store_true", help="do not pack the generated repository")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="generate the repository in DIR and keep it; reuse it when DIR/linux exists")
    ap.add_argument("--deep", type=int, default=0, metavar="N",
                    help="add N commits of history under the work branch (with --keep, once)")
    ap.add_argument("--kernel-source", type=Path, metavar="TARBALL_OR_DIR",
                    help="build the history on this kernel source tree (e.g. /usr/src/linux-source-6.1.tar.xz)")
    args = ap.parse_args()

    from reviewtool.commands.lint import lint_review
    from reviewtool.review import ReviewOptions
    from reviewtool.sources.gitrange import RangeRequest

    tmp = Path(tempfile.mkdtemp(prefix="bench-lint-"))
    try:
        t0 = time.perf_counter()
        if args.keep and (args.keep / "linux").is_dir():
            repo = args.keep / "linux"
        else:
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
            repo = build(args.keep or tmp, args.commits, source_tree=args.kernel_source)
            if args.deep:
                deepen(repo, args.deep)
            if not args.loose:
                git(repo, "gc", "-q")
        shape = (f"kernel tree of {args.kernel_source.name} ({len(git(repo, 'ls-files').splitlines())} files, its "
                 "MAINTAINERS)" if args.kernel_source else "400 files, MAINTAINERS with 300 sections")
        depth = int(git(repo, "rev-list", "--count", "main"))
        print(f"generated {repo} in {time.perf_counter() - t0:.1f} s: {shape}, {depth} commits on main, "
              f"{args.commits} on work (@{{u}} = main), {'loose objects' if args.loose else 'packed'}")
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
               "XDG_CACHE_HOME": str(tmp / "cache"), "PYTHONPATH": str(ROOT)}
        # The command runs with its bytecode written, as an installed package has it (pip
        # compiles at install): with PYTHONDONTWRITEBYTECODE every run would compile every module.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ.update({k: env[k] for k in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "XDG_CACHE_HOME")})
        fp_cmd = ["git", "-C", str(repo), "format-patch", "--stdout", "--cover-letter", "--base=auto", "@{u}..HEAD"]
        cli_cmd = [sys.executable, "-m", "reviewtool", "lint", "--repo", str(repo), "--format", "json"]
        options = ReviewOptions(repo=repo)

        def run_fp():
            subprocess.run(fp_cmd, capture_output=True, check=True, env=env)

        def run_inproc():
            review, mails = lint_review(repo, RangeRequest(), options)
            assert len(mails.commits) == args.commits and review.findings is not None

        def run_cli():
            res = subprocess.run(cli_cmd, capture_output=True, env=env)
            assert res.returncode in (0, 1), res.stderr.decode()

        def run_walked():
            # The first lint after the upstream moved: subject-prefix-history's log is walked, not
            # read back from the cache (context/history/subjects_cache.py).
            shutil.rmtree(tmp / "cache" / "reviewtool" / "subjects", ignore_errors=True)
            run_inproc()

        for fn in (run_fp, run_inproc, run_cli):  # warm-up: page cache, bytecode, first imports
            fn()
        times: dict[str, list[float]] = {"format-patch": [], "lint (in process)": [], "lint (log walked)": [],
                                         "lint (command)": []}
        for _ in range(args.repeat):
            times["format-patch"].append(timed(run_fp))
            times["lint (in process)"].append(timed(run_inproc))
            times["lint (log walked)"].append(timed(run_walked))
            times["lint (command)"].append(timed(run_cli))
        base = statistics.median(times["format-patch"])
        print(f"{'':20} {'median':>9} {'min':>9} {'max':>9}  ratio to format-patch")
        for name, values in times.items():
            med = statistics.median(values)
            print(f"{name:20} {med * 1000:8.1f}ms {min(values) * 1000:8.1f}ms {max(values) * 1000:8.1f}ms  "
                  f"{med / base:5.2f}x")
        ratio = statistics.median(times["lint (in process)"]) / base
        print(f"lint in process / git format-patch: {ratio:.2f}x (target < 2x)")
        # The floor: what a run costs in CPU, the interpreter's and its git processes', against
        # the cores there are to spread it over (git's own CPU is counted once each child is reaped).
        print("CPU per run (ms):", ", ".join(f"{name} {value:.1f}" for name, value in cpu_costs(run_fp, run_inproc)),
              f"on {os.cpu_count()} cores")
        return 1 if args.check and ratio > 2 else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
