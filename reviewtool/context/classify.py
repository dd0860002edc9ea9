"""Per-patch classification: fix, development, test or docs, with the reasons and the tree.

`classify_series(series, profile, targets)` is pure: the signals of classify_signals.py weighed in
a fixed order (a Fixes tag, then what the diff adds, then the subject's words, then size), and a
tree chosen from the profile's data (its fixes and development trees, never a tree name written
here). `targets` holds what the repository says about Fixes targets, when one was given.

`certain` marks a tree verdict strong enough to contradict the author: new uAPI, a new driver or a
stand-alone clean-up is never fixes-tree material; a Fixes target found only in the development
tree means the fix goes there. A doubt the mail alone cannot settle (a Fixes-tagged patch sent to
the development tree, a fix that says no caller can hit the bug) keeps the author's tree and
carries a `doubt`: what it rests on, and what would settle it. Inside a series for the fixes tree
that carries a fix, the other patches travel with it (preparations, clean-ups the fix builds on)
unless their diff adds new work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..model.series import Patch, Series, is_pull_request
from .classify_kind import DECISIVE, kind_of, not_needed
from .classify_signals import FixesTag, Signal, cleanup_words, fixes_tags, is_stable_backport
from .classify_words import cover_cleanups, says_development_only
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
    basis: str = ""  # what the kind rests on (classify_kind.Kind.basis)
    doubt: str | None = None  # why the declared tree may be wrong, when the mail cannot settle it
    doubt_tree: str | None = None  # the tree it may belong in instead
    settle: str | None = None  # what would settle the doubt
    doubt_evidence: tuple[str, ...] = ()
    not_needed: Signal | None = None  # evidence that its Fixes tag names no bug (fixes-not-needed)
    travels_with: tuple[int, ...] = ()  # the fixes this non-fix patch accompanies in a fixes-tree series

    @property
    def doubtful(self) -> bool:
        """A doubt about the tree that keeps the author's choice (tree-mismatch warns, nothing moves)."""
        return self.doubt is not None and self.tree == self.declared


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


def _route_fix(pc: dict[str, Any], facts: list[TargetFacts | None], fixes: TreeSpec | None,
               dev: TreeSpec | None) -> bool:
    """Route a fix with Fixes tags by what the repository says of its targets; False when it cannot."""
    known = [f for f in facts if f is not None and f.found and f.in_fixes_tree is not None]
    if known and len(known) == len(facts) and fixes and dev:
        if all(not f.in_fixes_tree and f.in_development_tree for f in known):
            pc.update(tree=dev.name, certain=True, basis="history")
            pc["reasons"].append(f"every Fixes target is only in {dev.name}")
            return True
        inside = [f for f in known if f.in_fixes_tree]
        if inside:
            tag = next((f.first_tag for f in inside if f.first_tag), None)
            pc.update(tree=fixes.name, certain=True, basis="history")
            pc["reasons"].append(f"the Fixes target is in {fixes.name}" + (f" (first in {tag})" if tag else ""))
            return True
    return False


def _doubt(pc: dict[str, Any], why: str, tree: str, settle: str, evidence) -> None:
    pc.update(doubt=why, doubt_tree=tree, settle=settle, doubt_evidence=tuple(evidence))


def _fix_for_development(pc: dict[str, Any], p: Patch, series: Series, fixes: TreeSpec, dev: TreeSpec,
                         quiet: bool) -> None:
    """A fix sent to the development tree: keep it there, and say what decides whether it belongs in
    the fixes tree, unless the author already said the bug is only in the development tree.
    `quiet`: no doubt (the repository was asked, or a maintainer's pull request chose the tree)."""
    texts = [p.message, p.notes] + ([series.cover.message, series.cover.notes] if series.cover else [])
    said = says_development_only(texts, fixes.name, dev.name)
    if said:
        pc["reasons"].append(f"the author says the bug is only in {dev.name}: '{said}'")
        return
    if pc["fixes"]:
        pc["reasons"].append(f"whether the Fixes target is already in {fixes.name} was not checked")
        if quiet:
            return
        _doubt(pc, f"it carries {pc['fixes'][0].line}", fixes.name,
               f"If the commit it fixes is in {fixes.name} (released code), send it as [PATCH {fixes.name}] so the "
               f"fix reaches the current release and stable; if that commit is only in {dev.name}, {dev.name} is "
               f"right. `--repo` with both trees' refs (--tree {fixes.name}=REF --tree {dev.name}=REF) checks it.",
               [t.line for t in pc["fixes"]])
    else:
        pc["reasons"].append(f"without a Fixes tag, whether the bug is already in {fixes.name} is unknown")
        if quiet:
            return
        _doubt(pc, f"it reads as a fix ({pc['reasons'][0]}) and has no Fixes tag", fixes.name,
               f"If the bug is in released code, add its Fixes tag and send it as [PATCH {fixes.name}]; if the bug "
               f"came with work that is only in {dev.name}, {dev.name} is right (say so below `---`).",
               pc["evidence"][:2] or [p.subject.raw])


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
    cover_says = cover_cleanups(series.cover, series.expected)
    cover_cleanup = series.cover is not None and cleanup_words(series.cover) is not None
    draft: list[dict[str, Any]] = []
    for p in series.patches:
        own = profile.declared_tree(p.subject.tags) or declared
        tags = fixes_tags(p)
        k = kind_of(p, tags, profile, limit)
        pc = {"counter": p.counter, "kind": k.kind, "reasons": k.reasons, "evidence": k.evidence, "declared": own,
              "fixes": tags, "lines": p.diff.insertions + p.diff.deletions, "tree": None, "certain": False,
              "basis": k.basis, "cosmetic": k.cosmetic, "not_needed": not_needed(p, tags, cover_says.get(p.counter)),
              "doubt": None, "doubt_tree": None, "settle": None, "doubt_evidence": (), "travels_with": ()}
        if k.kind == "development" and not k.decisive and cover_cleanup:
            pc.update(basis="cleanup", reasons=["the cover letter calls the series clean-ups"] + k.reasons[:1])
        draft.append(pc)
    untagged = profile.tree(profile.settings.get("untagged_tree")) if applies else None
    pull = is_pull_request(series)  # a maintainer's pull request: its sender chose the tree, no doubts
    for pc, p in zip(draft, series.patches):
        if pc["declared"] is None and untagged is not None and pc["kind"] in ("fix", "development"):
            pc.update(tree=untagged.name, certain=False)
            pc["reasons"].append(f"untagged {profile.name} patches go to {untagged.name}")
            continue
        _route(pc, p, series, fixes, dev, targets, pull)
    _companions(draft, fixes)
    _tests_and_docs(draft, fixes, dev)
    for pc in draft if not pull else ():
        _doubts_in_fixes_tree(pc, draft, fixes, dev)
    out = tuple(PatchClass(counter=pc["counter"], kind=pc["kind"], reasons=tuple(pc["reasons"]), tree=pc["tree"],
                           certain=pc["certain"], declared=pc["declared"].name if pc["declared"] else None,
                           summary=", ".join(pc["reasons"][:3]), evidence=tuple(pc["evidence"]),
                           fixes=pc["fixes"], lines=pc["lines"], basis=pc["basis"], doubt=pc["doubt"],
                           doubt_tree=pc["doubt_tree"], settle=pc["settle"], doubt_evidence=pc["doubt_evidence"],
                           not_needed=pc["not_needed"], travels_with=pc["travels_with"]) for pc in draft)
    return Classification(patches=out, declared=declared, fixes_tree=fixes.name if fixes else None,
                          development_tree=dev.name if dev else None, history_checked=targets is not None)


def _route(pc: dict[str, Any], p: Patch, series: Series, fixes: TreeSpec | None, dev: TreeSpec | None,
           targets: Mapping[str, TargetFacts] | None, pull: bool) -> None:
    own = pc["declared"]
    if pc["kind"] == "fix":
        if pc["fixes"]:
            facts = [targets.get(t.sha) if targets is not None and t.sha else None for t in pc["fixes"]]
            if _route_fix(pc, facts, fixes, dev):
                return
        if own is not None and own.kind == "development":
            pc.update(tree=own.name, certain=False)
            if fixes and dev and pc["not_needed"] is None:  # a Fixes tag naming no bug is fixes-not-needed's
                _fix_for_development(pc, p, series, fixes, dev, pull or (targets is not None and bool(pc["fixes"])))
            return
        if own is None and pc["not_needed"] is not None:  # untagged, and its Fixes tag names no bug
            pc.update(tree=dev.name if dev else None, certain=False)
            return
        pc.update(tree=fixes.name if fixes else None, certain=own is not None and own.kind == "fixes")
    elif pc["kind"] == "development":
        pc.update(tree=dev.name if dev else None, certain=pc["basis"] in DECISIVE and dev is not None)


def _companions(draft: list[dict[str, Any]], fixes: TreeSpec | None) -> None:
    """In a series for the fixes tree that carries a fix, the patches whose diff adds no new work
    travel with the fixes: preparations, a helper the fix uses, the clean-up it builds on."""
    if fixes is None:
        return
    bound = [pc["counter"] for pc in draft if pc["kind"] == "fix" and pc["tree"] == fixes.name
             and pc["declared"] is not None and pc["declared"].kind == "fixes"]
    if not bound:
        return
    for pc in draft:
        if pc["kind"] == "development" and pc["basis"] != "diff" and pc["declared"] is not None \
                and pc["declared"].kind == "fixes":
            pc.update(tree=fixes.name, certain=False, travels_with=tuple(bound))
            pc["reasons"].append("travels with the fix in patch " + ", ".join(map(str, bound))
                                 + f" (a preparation or follow-up of it may go to {fixes.name} with it)")


def _tests_and_docs(draft: list[dict[str, Any]], fixes: TreeSpec | None, dev: TreeSpec | None) -> None:
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


def _doubts_in_fixes_tree(pc: dict[str, Any], draft: list[dict[str, Any]], fixes: TreeSpec | None,
                          dev: TreeSpec | None) -> None:
    """A patch for the fixes tree that may be development material, on evidence the mail gives but
    cannot prove: it says no user can hit the bug, or it only rewords documentation."""
    own = pc["declared"]
    if own is None or own.kind != "fixes" or fixes is None or dev is None or pc["tree"] != fixes.name:
        return
    other_fixes = [d for d in draft if d is not pc and d["kind"] == "fix" and d["not_needed"] is None]
    if other_fixes:
        return  # it travels with the fixes of its series
    if pc["kind"] == "fix" and pc["not_needed"] is not None:
        sig = pc["not_needed"]
        _doubt(pc, sig.reason, dev.name,
               f"If no user can hit the bug, send it to {dev.name} without the Fixes tag; if users can, say how "
               f"in the message and keep it for {fixes.name}.", [sig.evidence])
    elif pc["kind"] == "docs" and pc["cosmetic"] is not None:
        sig = pc["cosmetic"]
        _doubt(pc, f"it only changes wording {sig.detail}".rstrip(), dev.name,
               f"A correction of how the documentation reads goes to {dev.name}; keep {fixes.name} if the text is "
               "wrong about what released kernels do (say so in the message).", [sig.evidence])


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
