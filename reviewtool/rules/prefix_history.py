"""subject-prefix-history: the `subsystem:` prefix against what git log shows for the same files."""

from __future__ import annotations

import re
from collections import Counter

from ..model.subject import parse_subject
from .registry import Hit, rule

MIN_HISTORY = 5  # fewer commits on the files than this: no opinion
RECENT = 50  # commits per patch looked at (newest first)


def prefix_words(prefix: str) -> tuple[str, ...]:
    """`net/sched`, `net: sched` and `Net: Sched` compare equal."""
    return tuple(w for w in re.split(r"[\s:/]+", prefix.lower()) if w)


def compatible(ours: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """One prefix is the other or extends it (`netfilter` vs `netfilter: nf_tables`)."""
    n = min(len(ours), len(theirs))
    return n > 0 and ours[:n] == theirs[:n]


def _query(series, ctx):
    """(patches with files, paths, ref, limit) of the one `git log` this rule reads, or None."""
    patches = [p for p in series.patches if p.diff.files]
    paths = sorted({f.path for p in patches for f in p.diff.files if f.status != "added" and not f.unsafe_path})
    if not paths:
        return None
    tree = ctx.declared_ref(series)
    # lint: HEAD holds the linted commits, so the history read is the upstream's. A commit id,
    # not a name, is what the kept log is keyed by (context/history/subjects_cache.py).
    ref = (tree.sha if tree else None) or ctx.setting("upstream_head") or ctx.history.head
    return patches, paths, ref, RECENT * len(patches) + 100


def _prefetch(series, ctx) -> None:
    q = _query(series, ctx)
    if q is not None:
        ctx.history.prefetch_subjects_touching(q[2])


@rule("subject-prefix-history", family="subject", severity="warning", needs=("repo",), prefetch=_prefetch,
      summary="The subject's `subsystem:` prefix is not one git log shows for the touched files")
def subject_prefix_history(series, ctx):
    """Why: Each area of the kernel has its own subject prefix (`net: sched:`, `ice:`, `bpf:`), and
    maintainers ask for the one `git log --oneline -- <files>` shows; a wrong or missing prefix
    hides the patch from the people who filter on it.
    Source: kernel submitting-patches ("The canonical patch format": subsystem prefix);
    kernel-rules SUBJ-SUBSYS.
    Bad:
      [PATCH net] dev: fix the flags      (git log -- net/core/dev.c shows "net: core: ...")
    Good:
      [PATCH net] net: core: fix the flags
    """
    q = _query(series, ctx)
    if q is None:
        return
    patches, paths, ref, limit = q
    log = ctx.history.subjects_touching(paths, ref, limit=limit)
    prefixes: dict[int, str | None] = {}  # log index -> its subject's prefix, parsed once for all patches
    by_path: dict[str, list[int]] = {}  # path -> log indices touching it, newest first
    for i, (_, _, files) in enumerate(log):
        for f in files:
            by_path.setdefault(f, []).append(i)
    for p in patches:
        mine = {f.path for f in p.diff.files}
        seen: Counter = Counter()
        counted = 0
        for i in sorted({i for f in mine for i in by_path.get(f, ())}):  # the log's order: newest first
            if i not in prefixes:
                subject = log[i][1]
                prefixes[i] = None if subject.lower().startswith(("merge ", "revert ")) \
                    else parse_subject(subject).subsystem
            if prefixes[i]:
                seen[prefixes[i]] += 1
                counted += 1
                if counted >= RECENT:
                    break
        if counted < MIN_HISTORY:
            continue
        ours = p.subject.subsystem
        if ours and any(compatible(prefix_words(ours), prefix_words(h)) for h in seen):
            continue
        top = seen.most_common(2)
        best, count = top[0]
        total = sum(seen.values())
        if count * 3 < total or (len(top) > 1 and top[1][1] == count):
            continue  # no prefix dominates (or two share the lead): silence beats a guess
        history = ", ".join(f"'{h}:' x{n}" for h, n in seen.most_common(4))
        what = f"prefix '{ours}:'" if ours else "no `subsystem:` prefix"
        yield Hit(f"the subject has {what}; the history of its files uses '{best}:'", patch=p.counter,
                  evidence=(p.subject.raw, f"git log -- {' '.join(sorted(mine)[:3])}: {history}"),
                  advice=f"Start the summary with '{best}: ' (the prefix {count} of the last {total} commits "
                         "touching these files use).")
