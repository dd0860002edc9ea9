"""Apply a series' diffs onto a commit in a scratch index, the way `git am -3` would.

All writes (the index, blobs of the result) go to the scratch repository created by
context.gitbatch.ScratchRepo, which reads the user's objects through alternates: the user's
index, work tree, refs and object store are never written.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Sequence

from .gitbatch import ScratchRepo

_FAILED_RE = re.compile(r"^error: (?:patch failed: (?P<a>.+?):\d+|(?P<b>.+?): (?:patch does not apply|does not exist "
                        r"in index|already exists in index|does not match index|No such file or directory))\s*$")
_counter = itertools.count(1)


@dataclass(frozen=True)
class ApplyResult:
    base: str  # full sha the series was applied onto
    applied: bool  # every patch applied
    failed_patch: int | None = None  # counter of the first patch that did not apply
    failed_file: str | None = None  # the file git named
    error: str = ""  # git's first error line
    three_way: tuple[int, ...] = ()  # patches that needed a 3-way merge (they did not apply as-is)


def apply_in_scratch(scratch: ScratchRepo, base: str, diffs: Sequence[tuple[int, str]]) -> ApplyResult:
    """Apply `diffs` ((counter, diff text), in order) onto `base`; stop at the first failure."""
    index = scratch.dir / f"index-{next(_counter)}"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        res = scratch.run(["read-tree", base], env=env, check=False)
        if res.code != 0:
            return ApplyResult(base, False, error=_first_error(res.err) or f"cannot read the tree of {base}")
        merged: list[int] = []
        for counter, diff in diffs:
            if not diff.strip():
                continue
            text = diff if diff.endswith("\n") else diff + "\n"
            res = scratch.run(["apply", "--cached", "--whitespace=nowarn"], input=text, env=env, check=False)
            if res.code == 0:
                continue
            three = scratch.run(["apply", "--cached", "--3way", "--whitespace=nowarn"], input=text, env=env,
                                check=False)
            if three.code == 0:
                merged.append(counter)
                continue
            return ApplyResult(base, False, failed_patch=counter, failed_file=_failed_file(res.err),
                               error=_first_error(res.err), three_way=tuple(merged))
        return ApplyResult(base, True, three_way=tuple(merged))
    finally:
        index.unlink(missing_ok=True)


def _first_error(err: str) -> str:
    return next((line.strip() for line in err.splitlines() if line.startswith(("error:", "fatal:"))), "")


def _failed_file(err: str) -> str | None:
    for line in err.splitlines():
        m = _FAILED_RE.match(line.strip())
        if m:
            return m.group("a") or m.group("b")
    return None
