"""Finding the commits of a long range whose message matches a pattern, on every core.

`git log --grep` has to inflate every commit object of the range; over a whole kernel history
that is the slowest step of fixes-audit. The range's commit list comes from the walk the audit
needs anyway (ranges.walked_commits); it is cut into one slice per core and each slice is
grepped by its own `git log --no-walk --stdin` at the same time.
"""

from __future__ import annotations

import os
import re
import threading
from typing import TYPE_CHECKING, Sequence

from .ranges import _LOG_FORMAT, RangeQueries, commits, parse_log, walked_commits

if TYPE_CHECKING:
    from .values import Commit

MIN_SLICE = 20_000  # below this many commits per process, one git log is as fast


def grep_commits(hist: "RangeQueries", revrange: str | Sequence[str], grep: str,
                 perl_grep: str | None = None) -> list["Commit"]:
    """Commits of `revrange` with a message line matching `grep` (ERE, case-insensitive; or
    `perl_grep` when git has PCRE), in topological order, newest first."""
    shas = walked_commits(hist, revrange)
    cores = max(1, min(os.cpu_count() or 1, 8))
    if shas is None or len(shas) < 2 * MIN_SLICE or cores < 2:
        return commits(hist, revrange, grep=grep, perl_grep=perl_grep)
    n = min(cores, len(shas) // MIN_SLICE)
    size = -(-len(shas) // n)
    slices = [shas[i:i + size] for i in range(0, len(shas), size)]
    for pattern in ([["-P", f"--grep={perl_grep}"]] if perl_grep else []) + [["-E", f"--grep={grep}"]]:
        results: list = [None] * len(slices)

        def run(i: int, part: list[str]) -> None:
            results[i] = hist.runner.run(["log", "--no-walk=unsorted", "--stdin", f"--format={_LOG_FORMAT}",
                                          "--no-color", "--encoding=UTF-8", "-i", *pattern],
                                         input="".join(s + "\n" for s in part), check=False)

        threads = [threading.Thread(target=run, args=(i, part)) for i, part in enumerate(slices)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if all(r.code == 0 for r in results):
            return [c for r in results for c in parse_log(r.out)]
        if not any(re.search(r"perl|pcre", r.err, re.I) for r in results):
            break  # a real failure, not a git without PCRE: let the single log report it
    return commits(hist, revrange, grep=grep, perl_grep=perl_grep)
