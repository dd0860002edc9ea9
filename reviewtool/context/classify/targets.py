"""Where a series' Fixes targets live in the repository (the classification's `targets`): a few
batched git questions for the whole series, asked of the history stage's repository."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model.series import Series
from .diff_evidence import fixes_tags
from ..profiles.profile import Profile


@dataclass(frozen=True)
class TargetFacts:
    """Where a Fixes target lives, from the repository (None: not known)."""

    found: bool
    in_fixes_tree: bool | None = None
    in_development_tree: bool | None = None
    first_tag: str | None = None



def missing_tree_refs(history: Any, trees) -> list[str]:
    """'net (net/main)' for each tree whose ref the repository lacks."""
    out = []
    for t in trees:
        ref = history.tree(t.name)
        if ref is None or ref.sha is None:
            out.append(f"{t.name} ({ref.ref if ref else t.ref or 'no ref configured'})")
    return out


def target_facts(history: Any, profile: Profile, series: Series) -> dict[str, TargetFacts] | None:
    """Ask the repository where every Fixes target lives: a few batched git calls for the series."""
    declared = profile.series_tree(series)
    fixes, dev = profile.tree_for("fixes", declared), profile.tree_for("development", declared)
    if history is None or fixes is None or dev is None:
        return None
    if missing_tree_refs(history, (fixes, dev)):
        return None
    shas = sorted({t.sha for p in series.patches for t in fixes_tags(p) if t.sha})
    if not shas:
        return {}
    resolved = history.resolve(shas)
    found = [s for s in shas if resolved[s].found]
    in_fixes = history.contains(fixes.name, found) if found else {}
    in_dev = history.contains(dev.name, found) if found else {}
    tags = history.first_tags(found) if found else {}
    return {s: TargetFacts(found=s in in_fixes, in_fixes_tree=in_fixes.get(s), in_development_tree=in_dev.get(s),
                           first_tag=tags.get(s)) for s in shas}
