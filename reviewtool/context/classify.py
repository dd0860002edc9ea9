"""Per-patch classification: fix, development, test or docs, with the reasons and the tree.

`classify_series(series, profile, targets)` is pure: the signals of classify_signals.py weighed in
a fixed order (a Fixes tag, then what the diff adds, then the subject's words, then size), and a
tree chosen from the profile's data (its fixes and development trees, never a tree name written
here). `targets` holds what the repository says about Fixes targets, when one was given.

`certain` marks a tree verdict strong enough to contradict the author: new uAPI, a new driver or a
clean-up is never fixes-tree material; a Fixes target found only in the development tree means
the fix goes there. Everything else follows the series and is not argued with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..model.series import Patch, Series
from .classify_signals import (FixesTag, cleanup_words, dev_verb, diff_signals, fix_words, fixes_tags,
                               is_stable_backport, reverted_commit, summarize, test_infra_signals)
from .profiles import Profile, TreeSpec

STAGE_ORDER = 60  # after the history stage: Fixes targets are looked up there

KINDS = ("fix", "development", "test", "docs")


@dataclass(frozen=True)
class TargetFacts:
    """Where a Fixes target lives, from the repository (None: not known)."""

    found: bool
    in_fixes_tree: bool | None = None
    in_development_tree: bool | None = None
    first_tag: str | None = None


@dataclass(frozen=True)
class PatchClass:
    counter: int
    kind: str  # fix | development | test | docs
    reasons: tuple[str, ...]  # why, in words a maintainer would use
    tree: str | None  # the tree this patch belongs in (None: the profile has no trees)
    certain: bool  # strong enough to tell the author they picked the wrong tree
    declared: str | None  # the tree its subject names (its own tag, else the series')
    summary: str  # "adds a new driver file and a module parameter, 8 lines, no Fixes tag"
    evidence: tuple[str, ...] = ()  # the lines that show it
    fixes: tuple[FixesTag, ...] = ()
    lines: int = 0  # insertions + deletions


@dataclass(frozen=True)
class Classification:
    patches: tuple[PatchClass, ...]
    declared: TreeSpec | None  # the series' declared tree (cover letter, else patch 1)
    fixes_tree: str | None  # the profile's fixes tree for this series
    development_tree: str | None
    history_checked: bool  # Fixes targets were looked up in a repository

    def of(self, counter: int) -> PatchClass | None:
        return next((p for p in self.patches if p.counter == counter), None)

    def with_tree(self, tree: str | None) -> list[PatchClass]:
        return [p for p in self.patches if p.tree == tree]


def _lines_text(n: int) -> str:
    return f"{n} line" + ("s" if n != 1 else "")


def _kind_of(patch: Patch, profile: Profile, limit: int) -> tuple[str, bool, list[str], list[str]]:
    """(kind, certain-as-development, reasons, evidence) from the patch alone."""
    files = patch.diff.files
    lines = patch.diff.insertions + patch.diff.deletions
    is_test, is_docs = profile.is_test_path, profile.is_docs_path
    tags = fixes_tags(patch)
    reverted = reverted_commit(patch)
    fixes_reason = [f"{t.line}" + (" (given in a reply)" if t.from_reply else "") for t in tags]
    if files and all(is_test(f.path) or is_docs(f.path) for f in files) and any(is_test(f.path) for f in files):
        infra = [] if tags else test_infra_signals(patch, is_test=is_test)
        if infra:
            return ("development", True, [f"adds {summarize(infra)}", _lines_text(lines), "no Fixes tag"]
                    + [s.reason for s in infra], [s.evidence for s in infra])
        return "test", False, ["only touches tests"] + fixes_reason, []
    if files and all(is_docs(f.path) for f in files):
        return "docs", False, ["only touches documentation"] + fixes_reason, []
    dev = diff_signals(patch, is_test=is_test, is_docs=is_docs)
    if tags or reverted is not None:
        reasons = fixes_reason or ["reverts a commit" + (f" ({reverted})" if reverted else "")]
        if dev:
            reasons.append(f"also adds {summarize(dev)}")
        return "fix", False, reasons, [t.line for t in tags]
    if dev:
        return ("development", True, [f"adds {summarize(dev)}", _lines_text(lines), "no Fixes tag"]
                + [s.reason for s in dev], [s.evidence for s in dev])
    words = fix_words(patch)
    if any(s.kind in ("subject", "crash") for s in words):  # a Reported-by alone may be a feature request
        return "fix", False, [s.reason for s in words] + ["no Fixes tag"], [s.evidence for s in words]
    cleanup = cleanup_words(patch)
    if cleanup:
        return "development", True, [cleanup.reason, _lines_text(lines), "no Fixes tag"], [cleanup.evidence]
    verb = dev_verb(patch)
    if verb:
        big = lines > limit
        return ("development", big, [verb.reason, _lines_text(lines) + (f" (over {limit})" if big else ""),
                                     "no Fixes tag"], [verb.evidence])
    return "development", False, ["no Fixes tag", "nothing in the subject or message describes a bug"], []


def _route_fix(pc: dict[str, Any], facts: list[TargetFacts | None], fixes: TreeSpec | None,
               dev: TreeSpec | None, declared: TreeSpec | None) -> None:
    """Where a fix with Fixes tags goes: the fixes tree unless every target is only in development."""
    known = [f for f in facts if f is not None and f.found and f.in_fixes_tree is not None]
    if known and len(known) == len(facts) and fixes and dev:
        if all(not f.in_fixes_tree and f.in_development_tree for f in known):
            pc.update(tree=dev.name, certain=True)
            pc["reasons"].append(f"every Fixes target is only in {dev.name}")
            return
        inside = [f for f in known if f.in_fixes_tree]
        if inside:
            tag = next((f.first_tag for f in inside if f.first_tag), None)
            pc.update(tree=fixes.name, certain=True)
            pc["reasons"].append(f"the Fixes target is in {fixes.name}" + (f" (first in {tag})" if tag else ""))
            return
    if declared is not None and declared.kind == "development" and pc["fixes"]:
        pc.update(tree=declared.name, certain=False)
        pc["reasons"].append(f"whether the Fixes target is already in {fixes.name if fixes else 'the fixes tree'} "
                             "was not checked")
        return
    pc.update(tree=fixes.name if fixes else None, certain=declared is not None and declared.kind == "fixes")


def classify_series(series: Series, profile: Profile,
                    targets: Mapping[str, TargetFacts] | None = None) -> Classification:
    """Classify every received patch of `series` for `profile` (see the module docstring)."""
    first = series.first
    tags = first.subject.tags if first else ()
    declared = profile.series_tree(series)
    # The profile's trees apply to a series tagged for one, or touching the paths the project owns
    # (not to a user-space patch on the same list, nor to a stable backport).
    applies = declared is not None or (not is_stable_backport(tags) and any(
        profile.owns(f.path) for p in series.patches for f in p.diff.files))
    fixes = profile.tree_for("fixes", declared) if applies else None
    dev = profile.tree_for("development", declared) if applies else None
    limit = int(profile.settings.get("fix_size_limit", 100))
    cover_cleanup = series.cover is not None and cleanup_words(series.cover) is not None
    draft: list[dict[str, Any]] = []
    for p in series.patches:
        own = profile.declared_tree(p.subject.tags) or declared
        kind, certain_dev, reasons, evidence = _kind_of(p, profile, limit)
        if kind == "development" and not certain_dev and cover_cleanup:
            certain_dev = True
            reasons = ["the cover letter calls the series clean-ups"] + reasons[:1]
        pc = {"counter": p.counter, "kind": kind, "reasons": reasons, "evidence": evidence, "declared": own,
              "fixes": fixes_tags(p), "lines": p.diff.insertions + p.diff.deletions, "tree": None,
              "certain": False}
        if kind == "fix" and pc["fixes"]:
            facts = [targets.get(t.sha) if targets is not None and t.sha else None for t in pc["fixes"]]
            _route_fix(pc, facts, fixes, dev, own)
        elif kind == "fix" and own is not None and own.kind == "development":
            # Without a Fixes tag nothing says the bug is in released code: keep the author's tree.
            pc.update(tree=own.name, certain=False)
            pc["reasons"].append(f"without a Fixes tag, whether the bug is already in {fixes.name if fixes else 'a release'} "
                                 "is unknown")
        elif kind == "fix":
            pc.update(tree=fixes.name if fixes else None, certain=own is not None and own.kind == "fixes")
        elif kind == "development":
            pc.update(tree=dev.name if dev else None, certain=certain_dev and dev is not None)
        draft.append(pc)
    fix_bound = [pc["counter"] for pc in draft if pc["kind"] == "fix" and fixes and pc["tree"] == fixes.name]
    for pc in draft:
        if pc["kind"] == "test":
            if fix_bound and fixes and not pc["fixes"]:
                pc["tree"] = fixes.name
                pc["reasons"].append("a test for the fix in patch " + ", ".join(map(str, fix_bound))
                                     + f" may travel with it to {fixes.name}")
            else:
                pc["tree"] = (fixes.name if pc["fixes"] and fixes else
                              pc["declared"].name if pc["declared"] else dev.name if dev else None)
        elif pc["kind"] == "docs":
            pc["tree"] = (fixes.name if pc["fixes"] and fixes else
                          pc["declared"].name if pc["declared"] else dev.name if dev else None)
    out = tuple(PatchClass(counter=pc["counter"], kind=pc["kind"], reasons=tuple(pc["reasons"]), tree=pc["tree"],
                           certain=pc["certain"], declared=pc["declared"].name if pc["declared"] else None,
                           summary=", ".join(pc["reasons"][:3]), evidence=tuple(pc["evidence"]),
                           fixes=pc["fixes"], lines=pc["lines"]) for pc in draft)
    return Classification(patches=out, declared=declared, fixes_tree=fixes.name if fixes else None,
                          development_tree=dev.name if dev else None, history_checked=targets is not None)


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


def context_stage(series, options, fields: dict[str, Any]) -> None:
    profile = fields["profile"]
    targets = target_facts(fields.get("history"), profile, series)
    classification = classify_series(series, profile, targets)
    fields["classification"] = classification
    declared = classification.declared
    history = fields.get("history")
    pair = [t for t in (profile.tree(classification.fixes_tree), profile.tree(classification.development_tree)) if t]
    missing = missing_tree_refs(history, pair) if history is not None and len(pair) == 2 else []
    if missing:
        fields["unavailable"]["tree-refs"] = (f"the repository has no ref for {', '.join(missing)}: fetch the tree, "
                                              f"or name its ref with --tree {pair[0].name}=REF")
    if (targets is None and declared is not None and declared.kind == "development"
            and any(p.kind == "fix" and p.fixes for p in classification.patches)):
        fields["notes"].append(f"tree-mismatch: whether the fixes in this {declared.name} series fix code already "
                               f"in {classification.fixes_tree} was not checked (needs --repo with the trees' refs)")
