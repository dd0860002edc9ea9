"""History methods over ranges and patches: `RangeQueries`, which repository.History inherits.

Each function takes the History as `hist` and answers a whole batch with one or two git processes;
it needs of the History only what RangeQueries declares.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from ...errors import RepositoryError
from ...model.series import Person
from ...sources.gitbatch import DIFF_NO_PROGRAMS, GitResult, GitRunner, ScratchRepo

if TYPE_CHECKING:
    from .apply import ApplyResult
    from .values import Commit

_RS, _US = "\x1e", "\x1f"
_LOG_FORMAT = _RS + _US.join(("%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"))
_FULL_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # SHA-1 or SHA-256


def revision_args(revrange: str | Sequence[str]) -> list[str]:
    """A REVRANGE as `git log` takes it, checked so that it cannot smuggle in options."""
    words = revrange.split() if isinstance(revrange, str) else list(revrange)
    if not words:
        raise RepositoryError("empty revision range")
    for w in words:
        if w.startswith("-") and w not in ("--all", "--branches", "--tags", "--remotes", "--first-parent"):
            raise RepositoryError(f"{w!r} is not a revision (REVRANGE takes revisions and ranges only)")
    return words


def _date(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


class PendingCommits:
    """commits() started in the background: `.result()` waits and parses."""

    def __init__(self, hist: "RangeQueries", revrange: str | Sequence[str], started):
        self._hist, self._revrange, self._started = hist, revrange, started

    def result(self) -> list["Commit"]:
        res = self._started.result()
        if res.code != 0:
            first = next((l for l in res.err.splitlines() if l.strip()), "bad revision")
            raise RepositoryError(f"{self._hist.path}: git log {' '.join(revision_args(self._revrange))}: "
                                  f"{first.strip()}")
        return parse_log(res.out)


def start_commits(hist: "RangeQueries", revrange: str | Sequence[str], *, paths: Sequence[str] = (),
                  limit: int | None = None, no_merges: bool = False) -> PendingCommits:
    """commits() without grep, started now: the walk runs while the caller does other git work
    (already-applied: while the same range is read for patch-ids)."""
    args = _log_args(limit, no_merges) + revision_args(revrange) + ["--"] + list(paths)
    return PendingCommits(hist, revrange, hist.runner.start(args))


def _log_args(limit: int | None, no_merges: bool) -> list[str]:
    args = ["log", f"--format={_LOG_FORMAT}", "--no-color", "--encoding=UTF-8"]
    if limit:
        args.append(f"--max-count={int(limit)}")
    if no_merges:
        args.append("--no-merges")
    return args


def commits(hist: "RangeQueries", revrange: str | Sequence[str], *, grep: str | None = None,
            paths: Sequence[str] = (), limit: int | None = None, no_merges: bool = False,
            perl_grep: str | None = None) -> list["Commit"]:
    """Commits of a range as `git log` lists them (newest first), with full messages, one process.

    `grep` is an extended regex matched case-insensitively against message lines (e.g.
    `^fixes:` to read only commits carrying a Fixes tag); `perl_grep`, the same as a Perl regex,
    is used instead when git has PCRE (faster on long histories). `paths` limits to commits
    touching them.
    """
    args = _log_args(limit, no_merges)
    tail = revision_args(revrange) + ["--"] + list(paths)
    res = None
    if grep and perl_grep:
        res = hist.runner.run(args + ["-i", "-P", f"--grep={perl_grep}"] + tail, check=False)
        if res.code != 0 and re.search(r"perl|pcre", res.err, re.I):
            res = None  # git built without PCRE
    if res is None:
        res = hist.runner.run(args + (["-i", "-E", f"--grep={grep}"] if grep else []) + tail, check=False)
    if res.code != 0:
        first = next((l for l in res.err.splitlines() if l.strip()), "bad revision")
        raise RepositoryError(f"{hist.path}: git log {' '.join(revision_args(revrange))}: {first.strip()}")
    return parse_log(res.out)


def parse_log(out: str) -> list["Commit"]:
    """Commits from `git log --format=<_LOG_FORMAT>` output."""
    from .values import Commit, subject_of

    commits = []
    for rec in out.split(_RS)[1:]:
        f = rec.split(_US, 8)
        if len(f) < 9:
            continue
        message = f[8].rstrip("\n") + "\n"
        commits.append(Commit(sha=f[0], subject=subject_of(message), author=Person(f[2], f[3]), date=_date(f[4]),
                              committer=Person(f[5], f[6]), commit_date=_date(f[7]),
                              parents=tuple(f[1].split()), message=message))
    return commits


def reachable_pairs(hist: "RangeQueries", pairs: Iterable[tuple[str, str]], *,
                    within: str | Sequence[str] | None = None) -> dict[tuple[str, str], bool]:
    """{(target, commit): target is an ancestor of commit (not equal)}, for many pairs in one walk.

    `within` is a range holding every `commit` (fixes-audit passes its REVRANGE); the range is
    walked once (`rev-list --parents --boundary`) and reachability of all targets is propagated
    as bit sets from parents to children. Commits outside the range, and targets below its
    boundary, are answered through the scratch repository, one walk per boundary commit.
    """
    asked = list(dict.fromkeys(pairs))
    pairs = [p for p in asked if p not in hist._pairs]
    if pairs:
        hist._pairs.update(_reachable_pairs(hist, pairs, within))
    return {p: hist._pairs[p] for p in asked}


def _walk_args(within: str | Sequence[str]) -> tuple[list[str], str]:
    words = revision_args(within)
    flags = [w for w in words if w.startswith("-")]  # --all etc.: git < 2.42 reads them only as arguments
    return (["rev-list", "--parents", "--topo-order", "--boundary", *flags, "--stdin"],
            "".join(w + "\n" for w in words if not w.startswith("-")))


def background(hist: "RangeQueries", args: Sequence[str], input: str | None = None):
    """Start `git <args>` (once per distinct command) and return its pending result; `.result()`
    waits. The git process runs while Python goes on with other checks: on two cores both make
    progress (gitbatch.GitRunner.start: no reader thread competes with the checks)."""
    key = (tuple(args), input)
    if key not in hist._walks:
        hist._walks[key] = hist.runner.start(list(args), input=input)
    return hist._walks[key]


def prefetch_walk(hist: "RangeQueries", within: str | Sequence[str]) -> None:
    """Start the walk reachable_pairs(within=...) will need, so that it runs while the caller does
    other git work (fixes-audit: while `git log` lists the tags)."""
    args, stdin = _walk_args(within)
    background(hist, args, stdin)


def _walk(hist: "RangeQueries", within: str | Sequence[str]):
    args, stdin = _walk_args(within)
    return background(hist, args, stdin).result()


def walked_commits(hist: "RangeQueries", within: str | Sequence[str]) -> list[str] | None:
    """The commits of a range in topological order (newest first), from the shared walk; None
    when git could not walk it."""
    res = _walk(hist, within)
    if res.code != 0:
        return None
    return [line.split(" ", 1)[0] for line in res.out.splitlines() if line and not line.startswith("-")]


def _reachable_pairs(hist: "RangeQueries", pairs: list[tuple[str, str]],
                     within: str | Sequence[str] | None) -> dict[tuple[str, str], bool]:
    if within is None:
        within = sorted({c for _, c in pairs})
    res = _walk(hist, within)
    if res.code != 0:
        raise RepositoryError(f"{hist.path}: cannot walk {' '.join(revision_args(within))[:200]}")
    lines = res.out.splitlines()
    boundary = [line[1:].split()[0] for line in lines if line.startswith("-")]
    targets = sorted({t for t, _ in pairs})
    bit = {t: 1 << i for i, t in enumerate(targets)}
    reach: dict[str, int] = {}
    for b in boundary:  # targets at or below the range's lower edge
        below = hist.scratch.merged_into(b, targets)
        reach[b] = sum(bit[t] for t in below)
    wanted = {c for _, c in pairs}
    answers_for: dict[str, int] = {}
    get = reach.get
    # Parents before children (rev-list --topo-order, reversed). Bit sets are shared along
    # linear stretches, so memory grows with merges and targets, not with commits.
    for line in reversed(lines):
        if line.startswith("-") or not line:
            continue
        sha, *parents = line.split()
        if len(parents) == 1:
            acc = get(parents[0], 0)
        else:
            acc = 0
            for p in parents:
                acc |= get(p, 0)
        if sha in wanted:
            answers_for[sha] = acc  # strict ancestors only
        reach[sha] = acc | bit[sha] if sha in bit else acc
    out: dict[tuple[str, str], bool] = {}
    outside: dict[str, list[str]] = {}
    for t, c in pairs:
        if c in answers_for:
            out[(t, c)] = bool(answers_for[c] & bit[t])
        else:
            outside.setdefault(c, []).append(t)
    for c, ts in outside.items():  # commits the range did not list: ask per commit's parents
        commit = hist.commit(c)
        inside: set[str] = set()
        for p in commit.parents if commit else ():
            inside |= hist.scratch.merged_into(p, ts)
        for t in ts:
            out[(t, c)] = t in inside
    return out


SUBJECTS_WALK = 10000  # newest commits of the ref that subjects_touching() reads


def _subjects_args(ref: str | None) -> list[str]:
    # No pathspec: git matches every tree entry of every commit against every path given (a
    # 60-file series cost 228 ms on a kernel-sized tree); listing the changed files of a bounded
    # walk and filtering here costs 18 ms, and the walk's cost no longer depends on how rarely
    # the files change. The root commit's listing (the whole tree) is not needed.
    return ["-c", "log.showRoot=false", "log", "--no-merges", f"--max-count={SUBJECTS_WALK}",
            f"--format={_RS}%H{_US}%s", "--name-only", "--no-renames", ref or "HEAD", "--"]


def _subjects_log(hist: "RangeQueries", ref: str | None):
    """The pending subject log of `ref`: kept from an earlier command for the same commit
    (context/history/subjects_cache.py), else started now (SplitWalk) and kept when it ends."""
    from . import subjects_cache

    args = _subjects_args(ref)
    key = (tuple(args), None)
    if key not in hist._walks:
        path = subjects_cache.entry_path(hist.git_dir, ref, args, hist.shallow_file)
        text = subjects_cache.load(path)
        hist._walks[key] = (subjects_cache.Kept(text) if text is not None
                            else subjects_cache.Keeping(SplitWalk(hist.runner, ref), path))
    return hist._walks[key]


class SplitWalk:
    """The subject log (_subjects_args) made on two cores: `rev-list` lists the commits the log
    would show, in its order (milliseconds, with a commit graph), and two `diff-tree --stdin`
    list the files of each half. Diffing the trees is the cost: about a second for 10,000 kernel
    commits in one process, two thirds of that in two. A commit's record is what `log` prints
    for it (a root commit, whose listing log.showRoot=false leaves empty, prints none)."""

    def __init__(self, runner, ref: str | None):
        self._runner, self._ref = runner, ref or "HEAD"
        self._listed = runner.start(["rev-list", "--no-merges", f"--max-count={SUBJECTS_WALK}", self._ref, "--"])
        self._result: GitResult | None = None

    def result(self) -> GitResult:
        if self._result is None:
            self._result = self._walk()
        return self._result

    def _walk(self) -> GitResult:
        listed = self._listed.result()
        if listed.code != 0:
            return self._runner.run(_subjects_args(self._ref), check=False)  # git says why, as log would
        ids = listed.out.split()
        halves = [h for h in (ids[:len(ids) // 2], ids[len(ids) // 2:]) if h]
        started = [self._runner.start(["diff-tree", "--stdin", "-r", "--name-only", "--no-renames",
                                       f"--format={_RS}%H{_US}%s"], input="\n".join(h) + "\n") for h in halves]
        parts = [p.result() for p in started]
        if any(p.code != 0 for p in parts):
            return self._runner.run(_subjects_args(self._ref), check=False)
        return GitResult(0, "".join(p.out for p in parts), "")

    def wait(self) -> None:
        self._listed.wait()


def prefetch_subjects_touching(hist: "RangeQueries", ref: str | None = None) -> None:
    """Start the log subjects_touching() will read for `ref` (it does not depend on the paths)."""
    _subjects_log(hist, ref)


def subjects_touching(hist: "RangeQueries", paths: Sequence[str], ref: str | None = None,
                      limit: int = 300) -> list[tuple[str, str, tuple[str, ...]]]:
    """[(sha, subject, files touched among `paths`)] of the newest `limit` non-merge commits of
    `ref` (default HEAD) that touch `paths`, among its newest SUBJECTS_WALK commits: one
    `git log --name-only`."""
    if not paths:
        return []
    wanted = set(paths)
    res = _subjects_log(hist, ref).result()
    out = []
    for rec in res.out.split(_RS)[1:]:
        head, _, files = rec.partition("\n")
        touched = tuple(f for f in files.splitlines() if f in wanted)
        if touched:
            sha, _, subject = head.partition(_US)
            out.append((sha, subject, touched))
            if len(out) >= limit:
                break
    return out


def patch_ids(hist: "RangeQueries", revrange: str | Sequence[str], paths: Sequence[str] = (),
              limit: int | None = 2000) -> dict[str, str]:
    """{patch-id: sha} of the non-merge commits in a range touching `paths` (two processes)."""
    args = ["log", "-p", "--no-merges", "--no-color", "--format=commit %H", *DIFF_NO_PROGRAMS]
    if limit:
        args.append(f"--max-count={int(limit)}")
    log = hist.runner.run(args + revision_args(revrange) + ["--"] + list(paths), check=False, binary=True)
    if log.code != 0 or not log.out:
        return {}
    res = hist.runner.run(["patch-id", "--stable"], input=log.out, check=False)
    out: dict[str, str] = {}
    for line in res.out.splitlines():
        pid, _, sha = line.partition(" ")
        out.setdefault(pid, sha)
    return out


def patch_ids_of(hist: "RangeQueries", diffs: Sequence[str]) -> list[str | None]:
    """`git patch-id --stable` of each diff text (None for an empty diff), one process for all."""
    parts = []
    for i, d in enumerate(diffs):
        if d.strip():
            parts.append(f"commit {i + 1:040x}{'0' * 24}\n\n{d.rstrip()}\n")  # see model/patchid.py
    if not parts:
        return [None] * len(diffs)
    res = hist.runner.run(["patch-id", "--stable"], input="".join(parts), check=False)
    by_index: dict[int, str] = {}
    for line in res.out.splitlines():
        pid, _, fake = line.partition(" ")
        if _FULL_RE.match(fake):
            by_index[int(fake[:40], 16) - 1] = pid
    return [by_index.get(i) for i in range(len(diffs))]


def apply_series(hist: "RangeQueries", base: str, diffs: Sequence[tuple[int, str]]) -> "ApplyResult":
    """Apply the diffs in order onto `base` in a scratch index (context.history.apply); never touches
    the user's index, work tree or object store."""
    from .apply import apply_in_scratch

    return apply_in_scratch(hist.apply_scratch, base, diffs, source=hist)


class RangeQueries:
    """The History's questions over ranges and patches (the functions above, as methods), and what
    they need of it: its git runner and paths, its scratch repositories, its background walks,
    its resolved commits."""

    runner: GitRunner
    path: Path
    git_dir: Path
    shallow_file: Path
    scratch: ScratchRepo
    apply_scratch: ScratchRepo
    _walks: dict
    _pairs: dict[tuple[str, str], bool]
    commit: "Callable[[str], Commit | None]"

    start_commits = start_commits
    commits = commits
    reachable_pairs = reachable_pairs
    prefetch_walk = prefetch_walk
    prefetch_subjects_touching = prefetch_subjects_touching
    subjects_touching = subjects_touching
    patch_ids = patch_ids
    patch_ids_of = patch_ids_of
    apply_series = apply_series
