"""What the history stage tells the reader it could not do: missing tree refs, shallow clones.

Also resolves every commit the series names (Fixes targets, base-commit) up front, in one batch,
so the rules that follow read answers from the History cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.fixes import fixes_of

if TYPE_CHECKING:
    from ...model.series import Series
    from .repository import History


def claimed_shas(series: "Series") -> list[str]:
    """Every commit id the series claims exists: Fixes targets and base-commit."""
    shas = [f.sha for p in series.all_mails for f in fixes_of(p) if f.sha]
    if series.base_commit:
        shas.append(series.base_commit)
    return list(dict.fromkeys(shas))


def history_notes(hist: "History", series: "Series") -> list[str]:
    notes = []
    resolved = hist.resolve(claimed_shas(series))
    for name, t in sorted(hist.tree_refs.items()):
        if t.sha is None:
            origin = {"profile": "the profile's default", "config": f"git config reviewtool.tree.{name}",
                      "option": f"--tree {name}=..."}[t.source]
            notes.append(f"tree {name}: ref {t.ref!r} ({origin}) is not in {hist.path}; fetch it, or point "
                         f"reviewtool at the ref that tracks it with --tree {name}=REF or "
                         f"`git config reviewtool.tree.{name} REF`")
    if hist.is_shallow:
        missing = [q for q, r in resolved.items() if r.status == "unknown"]
        if missing:
            notes.append("the repository is a shallow clone and does not hold " + ", ".join(missing)
                         + ": whether they exist, their subjects and their ancestry could not be checked "
                           "(run `git fetch --unshallow` for a full history)")
        else:
            notes.append("the repository is a shallow clone: fixes-target-not-ancestor reports nothing (history "
                         "below the shallow boundary is missing) and release tags older than it are unknown")
    return notes


def unrelated_reason(hist: "History", series: "Series", *, from_cwd: bool) -> str | None:
    """Why the repository should not be used for this series, or None to use it."""
    trees = any(t.sha for t in hist.tree_refs.values())
    if hist.head is None and not trees:
        return f"the repository {hist.path} has no commits (use --repo PATH)"
    if not from_cwd or trees:
        return None
    claims = claimed_shas(series)
    if claims:
        if any(r.found for r in hist.resolve(claims).values()):
            return None
    else:
        paths = sorted({f.path for p in series.patches for f in p.diff.files
                        if f.status != "added" and not f.unsafe_path and " " not in f.path})
        if not paths:
            return None
        entries = hist.catfile.query([f"HEAD:{p}" for p in paths])
        if any(e.status == "found" for e in entries):
            return None
    return (f"the current directory's repository ({hist.path}) holds none of the commits or files this "
            "series names and none of the profile's trees: run inside the target project's repository or "
            "use --repo PATH")
