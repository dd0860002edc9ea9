"""Which commits a lint covers: base, tip and cover letter of the series (see gitrange.py).

The common cases (the current branch over its upstream, `A..B`, one revision `X`) are read with
three git processes run at once: one `rev-parse` for every revision (and the repository's
layout), the whole configuration, and the range's log (commits, parents, messages and its
boundary, which is the merge base when there is exactly one). Anything less plain (b4 prep branches, a b4 cover commit in
the range, several merge bases, a revision git does not know) takes the careful path, one
question per process, which also words the errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .b4prep import B4_MARKER, Cover, b4_cover_text, cover_from_text, json_object, tracking_prefixes
from .gitconfig import LAYOUT_ARGS, LAYOUT_LINES, GitConfig, RepoFacts


def git(repo: Path, *args: str, check: bool = True, binary: bool = False):
    """One read-only git command in `repo` (sources.gitbatch sets the safe environment)."""
    from .gitbatch import GitRunner

    return GitRunner(repo).run(list(args), check=check, binary=binary)


def concurrently(*calls):
    """Run independent read-only git queries at once: each is a process, and on two cores two
    short processes take the time of one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]


def out_text(res) -> str:
    out = res.out
    return (out.decode("utf-8", "replace") if isinstance(out, bytes) else out).strip()


def _rev(repo: Path, spec: str) -> str | None:
    res = git(repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{spec}^{{commit}}", check=False)
    return (out_text(res) or None) if res.code == 0 else None


def _branch_config(repo: Path, branch: str) -> dict[str, str]:
    res = git(repo, "config", "-z", "--get-regexp", "^branch\\." + re.escape(branch) + "\\.", check=False)
    out: dict[str, str] = {}
    for item in res.out.split("\0"):
        if "\n" in item:
            key, value = item.split("\n", 1)
            out[key[len("branch.") + len(branch) + 1:].lower()] = value
    return out


def _find_b4_cover(repo: Path, rev_range: str) -> tuple[str, str] | None:
    """(sha, message) of the b4 cover commit inside `rev_range`, if there is one."""
    res = git(repo, "log", "-z", "--format=%H%n%B", "-F", f"--grep={B4_MARKER}", "--max-count=1", rev_range,
              "--", check=False)
    item = res.out.strip("\0")
    if res.code != 0 or "\n" not in item:
        return None
    sha, message = item.split("\n", 1)
    return sha, message


@dataclass(frozen=True)
class RangePlan:
    base: str
    tip: str
    label: str
    cover: Cover | None
    prefixes: tuple[str, ...] = ()
    revision: int | None = None
    bottom: str | None = None  # exclusive start of the commits when it is not the base (b4's cover commit)
    notes: tuple[str, ...] = ()
    upstream: str | None = None  # the tree the series goes to, as far as the range says (@{u}, A of A..B)

    @property
    def rev_range(self) -> str:
        return f"{self.bottom or self.base}..{self.tip}"


def _prep_plan(repo: Path, branch: str, bcfg: dict[str, str]) -> RangePlan | None:
    """The series of a b4 prep branch, following its cover strategy."""
    strategy = bcfg.get("b4-prep-cover-strategy", "commit")
    tip = _rev(repo, f"refs/heads/{branch}")
    if tip is None:
        return None
    if strategy == "branch-description":
        tracking = json_object(bcfg.get("b4-tracking", ""))
        base_branch = tracking.get("series", {}).get("base-branch")
        base = _merge_base(repo, base_branch, tip) if base_branch else None
        if base is None:
            return None
        cover = cover_from_text(bcfg.get("description", ""), f"branch.{branch}.description", tracking)
        return RangePlan(base, tip, f"b4 prep branch {branch}", cover, *tracking_prefixes(tracking))
    found = _find_b4_cover(repo, tip)
    if found is None:
        return None
    sha, message = found
    text, tracking = b4_cover_text(message)
    cover = cover_from_text(text, f"b4 prep cover commit {sha[:12]}", tracking)
    if strategy == "tip-commit":
        base_branch = tracking.get("series", {}).get("base-branch")
        base = _merge_base(repo, base_branch, sha) if base_branch else None
        if base is None:
            return None
        return RangePlan(base, _rev(repo, f"{sha}~1") or sha, f"b4 prep branch {branch}", cover,
                         *tracking_prefixes(tracking))
    base = _rev(repo, f"{sha}~1")
    if base is None:
        return None
    # b4's "commit" strategy: the series starts after the cover commit; its parent is the base.
    return RangePlan(base, tip, f"b4 prep branch {branch}", cover, *tracking_prefixes(tracking), bottom=sha)


def _merge_base(repo: Path, a: str, b: str) -> str | None:
    res = git(repo, "merge-base", "--end-of-options", a, b, check=False)
    return (out_text(res) or None) if res.code == 0 else None


def _base_of(repo: Path, start: str, tip: str, label: str) -> str:
    """The merge base the series sits on; a history that shares none is no series of `start`."""
    base = _merge_base(repo, start, tip)
    if base is None:
        raise InputError(f"{label}: {tip[:12]} shares no history with {start[:12]}, so the series has no base to "
                         "be sent against; rebase it onto its upstream, or name commits that share one "
                         "(`reviewtool lint A..B`)")
    return base


def _current_branch(repo: Path) -> str | None:
    res = git(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return (out_text(res) or None) if res.code == 0 else None


def plan_range(repo: Path, revrange: str | None) -> RangePlan:
    """Decide base, tip and cover letter for the request (see the module docstring)."""
    if revrange and "..." in revrange:
        raise InputError(f"{revrange}: a symmetric range (A...B) is not a series; use A..B")
    if revrange and ".." in revrange:
        left, right = revrange.split("..", 1)
        tip = _rev(repo, right or "HEAD")
        start = _rev(repo, left or "HEAD")
        if tip is None or start is None:
            raise InputError(f"{revrange}: not a revision range of {repo}")
        base = _base_of(repo, start, tip, revrange)
        return _with_range_cover(repo, RangePlan(base, tip, revrange, None, upstream=start))
    if revrange:
        bcfg = _branch_config(repo, revrange) if _rev(repo, f"refs/heads/{revrange}") else {}
        if bcfg.get("b4-prep-cover-strategy") or bcfg.get("b4-tracking"):
            plan = _prep_plan(repo, revrange, bcfg)
            if plan:
                return plan
        start = _rev(repo, revrange)
        tip = _rev(repo, "HEAD")
        if start is None or tip is None:
            raise InputError(f"{revrange}: not a revision, branch or directory in {repo}")
        base = _base_of(repo, start, tip, f"{revrange}..HEAD")
        return _with_range_cover(repo, RangePlan(base, tip, f"{revrange}..HEAD", None, upstream=start))
    branch, upstream, tip = concurrently(lambda: _current_branch(repo), lambda: _rev(repo, "@{upstream}"),
                                          lambda: _rev(repo, "HEAD"))
    bcfg = _branch_config(repo, branch) if branch else {}
    if branch and (bcfg.get("b4-prep-cover-strategy") or bcfg.get("b4-tracking")):
        plan = _prep_plan(repo, branch, bcfg)
        if plan:
            return plan
    if upstream is None or tip is None:
        where = f"branch {branch}" if branch else "a detached HEAD"
        raise InputError(f"{repo}: {where} has no upstream; name the commits to lint, "
                         "e.g. `reviewtool lint origin/main..HEAD`")
    base = _base_of(repo, upstream, tip, "@{upstream}..HEAD")
    plan = RangePlan(base, tip, "@{upstream}..HEAD", None, upstream=upstream)
    return _with_range_cover(repo, plan, branch, bcfg)


def _with_range_cover(repo: Path, plan: RangePlan, branch: str | None = None,
                      bcfg: dict[str, str] | None = None) -> RangePlan:
    """A b4 cover commit inside the range, else the branch description, gives the cover letter."""
    found = _find_b4_cover(repo, plan.rev_range)
    if found:
        sha, message = found
        text, tracking = b4_cover_text(message)
        prefixes, revision = tracking_prefixes(tracking)
        cover = cover_from_text(text, f"b4 prep cover commit {sha[:12]}", tracking)
        if sha == plan.tip:  # b4's "tip-commit" strategy
            return RangePlan(plan.base, _rev(repo, f"{sha}~1") or sha, plan.label, cover, prefixes, revision,
                         upstream=plan.upstream)
        return RangePlan(_rev(repo, f"{sha}~1") or plan.base, plan.tip, plan.label, cover, prefixes, revision, bottom=sha,
                     upstream=plan.upstream)
    if branch is None:
        branch = _current_branch(repo)
        bcfg = _branch_config(repo, branch) if branch else {}
    description = (bcfg or {}).get("description", "")
    # The description belongs to the branch, so it is the cover letter only of that branch's commits.
    if description.strip() and branch and _rev(repo, f"refs/heads/{branch}") == plan.tip:
        return RangePlan(plan.base, plan.tip, plan.label, cover_from_text(description, f"branch.{branch}.description", {}),
                     upstream=plan.upstream)
    return plan




# --- the quick path ---------------------------------------------------------------------------

@dataclass(frozen=True)
class QuickRange:
    """A plan read with three processes, and what those processes also told."""

    plan: RangePlan
    commits: int  # non-merge commits in the range
    merges: int
    facts: RepoFacts


_SHA_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_MAX_LISTED = 1001  # one more than gitrange's limit, so "too many" is still seen


def _quick_specs(revrange: str | None) -> tuple[str, str, str] | None:
    """(start, tip, label) for the quick path, or None when only the careful path can tell."""
    if revrange is None:
        return "@{upstream}", "HEAD", "@{upstream}..HEAD"
    if "..." in revrange:
        return None
    left, dots, right = revrange.partition("..")
    start, tip = (left or "HEAD", right or "HEAD") if dots else (revrange, "HEAD")
    # No option-looking or spaced revision: they go to the careful path's --end-of-options.
    if any(s.startswith("-") or not s.strip() or any(c.isspace() for c in s) for s in (start, tip)):
        return None
    return start, tip, revrange if dots else f"{revrange}..HEAD"


def quick_plan(repo: Path, revrange: str | None) -> QuickRange | None:
    """The plan plan_range() would make, with three git processes run at once; None hands over
    to plan_range()."""
    specs = _quick_specs(revrange)
    if specs is None or not repo.is_dir():
        return None
    start_spec, tip_spec, label = specs
    # All three at once, started from here (threads would only queue for the interpreter to start
    # them). The log names the range as the command line does and is checked against rev-parse.
    from .gitbatch import GitRunner

    runner = GitRunner(repo)
    started = [runner.start(["rev-parse", *LAYOUT_ARGS, "HEAD^{commit}", f"{start_spec}^{{commit}}",
                             f"{tip_spec}^{{commit}}", "--symbolic-full-name", "HEAD"]),
               runner.start(["config", "-z", "--list"]),
               runner.start(["log", "-z", "--boundary", f"--max-count={_MAX_LISTED}", "--format=%m%H %P%n%B",
                             f"{start_spec}..{tip_spec}", "--"])]
    res, listing, log = (p.result() for p in started)
    lines = res.out.strip().splitlines()
    if res.code != 0 or len(lines) != LAYOUT_LINES + 4 or listing.code != 0 or log.code != 0:
        return None
    layout, (head, start, tip, symbolic) = tuple(lines[:LAYOUT_LINES]), lines[LAYOUT_LINES:]
    if not all(_SHA_RE.match(x) for x in (head, start, tip)):
        return None
    branch = symbolic[len("refs/heads/"):] if symbolic.startswith("refs/heads/") else None
    config = GitConfig.parse(listing.out)
    for name in (branch, revrange if revrange and ".." not in revrange else None):
        if name and any(_b4_key(k, name) for k, _ in config.matching("^branch\\.")):
            return None  # a b4 prep branch: its own strategies decide
    listed, boundary = [], []
    for record in log.out.split("\0"):
        head_line, _, message = record.partition("\n")
        if not head_line:
            continue
        mark, ids = head_line[0], head_line[1:].split()
        if mark == "-":
            boundary.append(ids[0])
        else:
            listed.append(ids)
            if B4_MARKER in message:
                return None  # a b4 cover commit in the range moves base or tip
    if len(listed) >= _MAX_LISTED or len(boundary) > 1 or (listed and not boundary):
        return None
    if listed and tip not in {ids[0] for ids in listed}:
        return None  # a ref moved between the reads: ask again, carefully
    merges = sum(1 for ids in listed if len(ids) > 2)
    base = boundary[0] if boundary else start
    plan = RangePlan(base, tip, label, None, upstream=start)
    description = (config.last(f"branch.{branch}.description") or "") if branch else ""
    if description.strip() and head == tip:  # the branch's description is its cover letter
        plan = RangePlan(base, tip, label, cover_from_text(description, f"branch.{branch}.description", {}),
                         upstream=start)
    return QuickRange(plan, len(listed) - merges, merges, RepoFacts(config, layout))


def _b4_key(key: str, branch: str) -> bool:
    prefix = f"branch.{branch}."
    return key.startswith(prefix) and key[len(prefix):].lower() in ("b4-prep-cover-strategy", "b4-tracking")
