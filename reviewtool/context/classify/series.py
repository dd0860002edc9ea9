"""Per-patch classification: fix, development, test or docs, with the reasons and the tree.

`classify_series(series, profile, targets, calendar)` is pure: each patch is read once
(context/classify/reading.py), its kind weighed in a fixed order (context/classify/kind.py), and its tree
chosen from the profile's data (its fixes and development trees, what untagged patches mean,
never a tree name written here). `targets` holds what the repository says about Fixes targets,
when one was given; `calendar` places a release named in the subject (`[PATCH 6.3]`).

`certain` marks a tree verdict strong enough to contradict the author: new uAPI, a new driver or a
stand-alone clean-up is never fixes-tree material; a Fixes target found only in the development
tree means the fix goes there. A doubt the mail alone cannot settle (a Fixes-tagged patch sent to
the development tree, a fix that says no caller can hit the bug) keeps the author's tree and
carries a `doubt`: what it rests on, and what would settle it. Inside a series for the fixes tree
that carries a fix, the other patches travel with it (preparations, clean-ups the fix builds on)
unless their diff adds new work.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from ...model.series import Patch, Series, is_pull_request
from .kind import Kind, failure_named, kind_of, not_needed
from .diff_evidence import FixesTag, Signal
from .targets import TargetFacts, missing_tree_refs, target_facts
from .cover import cover_cleanups, is_preparation
from ..phrases import meaning
from ..profiles.profile import Profile
from ..profiles.parts import TreeSpec
from .reading import PatchReading, read_patch, says_development_only

STAGE_ORDER = 60  # after the history stage: Fixes targets are looked up there

KINDS = ("fix", "development", "test", "docs")


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
    phrases: tuple[str, ...] = ()  # the phrase-table entries its kind rests on ("bug-prose/leak")
    cosmetic: Signal | None = None  # a documentation change that only corrects wording
    kind_reasons: tuple[str, ...] = ()  # the reasons of its kind alone (not of its route)

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
    stable_backport: bool = False  # a posting for a stable tree: no tree policy applies

    def of(self, counter: int) -> PatchClass | None:
        return next((p for p in self.patches if p.counter == counter), None)

    def with_tree(self, tree: str | None) -> list[PatchClass]:
        return [p for p in self.patches if p.tree == tree]


@dataclass(frozen=True)
class _Trees:
    """The trees a series can go to, and what the profile says of untagged patches."""

    fixes: TreeSpec | None
    dev: TreeSpec | None
    untagged: TreeSpec | None  # where untagged patches go (None: by their kind)
    fixes_when: tuple[str, ...]  # what sends an untagged patch to the fixes tree instead


@dataclass(frozen=True)
class _Route:
    tree: str | None = None
    certain: bool = False
    reasons: tuple[str, ...] = ()  # added to the kind's reasons
    basis: str | None = None  # replaces the kind's basis (the history decided)
    doubt: str | None = None
    doubt_tree: str | None = None
    settle: str | None = None
    doubt_evidence: tuple[str, ...] = ()
    travels_with: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Draft:
    """One patch between its reading and its class."""

    patch: Patch
    reading: PatchReading
    kind: Kind
    own: TreeSpec | None
    not_needed: Signal | None
    route: _Route = field(default_factory=_Route)

    @property
    def counter(self) -> int:
        return self.patch.counter


def _route_by_history(d: _Draft, facts: list[TargetFacts | None], t: _Trees) -> _Route | None:
    """Route a fix by what the repository says of its Fixes targets; None when it cannot."""
    known = [f for f in facts if f is not None and f.found and f.in_fixes_tree is not None]
    if not (known and len(known) == len(facts) and t.fixes and t.dev):
        return None
    if all(not f.in_fixes_tree and f.in_development_tree for f in known):
        return _Route(t.dev.name, True, (f"every Fixes target is only in {t.dev.name}",), "history")
    inside = [f for f in known if f.in_fixes_tree]
    if inside:
        tag = next((f.first_tag for f in inside if f.first_tag), None)
        return _Route(t.fixes.name, True, (f"the Fixes target is in {t.fixes.name}" + (f" (first in {tag})" if tag else ""),),
                      "history")
    return None


def _fix_for_development(d: _Draft, series: Series, t: _Trees, quiet: bool) -> _Route:
    """A fix sent to the development tree: keep it there. Without a Fixes tag, whether the bug is in
    released code is a doubt worth raising, unless the author said the bug is only in the
    development tree, or `quiet` (a pull request chose the tree, or the maintainers pick the tree
    themselves). With a Fixes tag the repository decides; without one given, the context notes
    what was not checked (applied net-next fixes carry Fixes tags as often as net ones do)."""
    fixes, dev, p = t.fixes, t.dev, d.patch
    keep = _Route(dev.name)
    texts = [p.message, p.notes] + ([series.cover.message, series.cover.notes] if series.cover else [])
    said = says_development_only(texts, fixes.name, dev.name)
    if said is not None:
        return replace(keep, reasons=(f"the author says the bug is only in {dev.name}: '{said.text}'",))
    if d.reading.fixes:
        unchecked = f"whether the Fixes target is already in {fixes.name} was not checked"
        named = None if quiet else failure_named(d.reading, p.subject.raw)
        if named is None:
            return replace(keep, reasons=(unchecked,))
        # A maintainer asks this of the mail alone: a fix for released code goes to the fixes tree.
        tag = d.reading.fixes[0]
        return replace(keep, reasons=(unchecked,), doubt=f"it fixes a failure users meet ({named.reason}) and carries '{tag.line}'",
                       doubt_tree=fixes.name,
                       settle=f"If the commit it fixes is in {fixes.name} (in a release), send it as "
                              f"[PATCH {fixes.name}], on its own; if that commit is only in {dev.name}, say so below "
                              f"`---` (with --repo and the trees' refs, the review checks it).",
                       doubt_evidence=(tag.line, named.evidence))
    why = f"without a Fixes tag, whether the bug is already in {fixes.name} is unknown"
    if quiet:
        return replace(keep, reasons=(why,))
    return replace(keep, reasons=(why,), doubt=f"it reads as a fix ({d.kind.reasons[0]}) and has no Fixes tag",
                   doubt_tree=fixes.name,
                   settle=f"If the bug is in released code, add its Fixes tag and send it as [PATCH {fixes.name}]; "
                          f"if the bug came with work that is only in {dev.name}, {dev.name} is right (say so below "
                          "`---`).", doubt_evidence=tuple(d.kind.evidence[:2]) or (p.subject.raw,))


def _untagged_route(d: _Draft, t: _Trees) -> _Route | None:
    """An untagged patch: a release the subject names, else what the profile says untagged means."""
    tag = d.reading.release_tag
    if tag is not None and tag.phase in ("current", "next") and t.fixes and t.dev:
        tree = t.fixes if tag.phase == "current" else t.dev
        when = "in its merge window or release candidates" if tag.phase == "current" else "not yet in its merge window"
        return _Route(tree.name, reasons=(f"the subject names {tag.version} ([{tag.tag}]), {when} when it was sent",))
    if t.untagged is None or d.kind.kind not in ("fix", "development", "docs"):
        return None
    urgent = _urgent(d.reading, t.fixes_when)
    if urgent and t.fixes is not None:
        return _Route(t.fixes.name, reasons=(f"{urgent}: untagged, it goes to {t.fixes.name}",))
    return _Route(t.untagged.name, reasons=(f"untagged patches go to {t.untagged.name}",))


# What sends an untagged patch to the fixes tree (the profile's `untagged.fixes_when`).
_URGENT = {
    "maintainers": lambda r: "it only updates MAINTAINERS" if r.maintainers_only else None,
    "build-break": lambda r: (f"the subject says '{r.hit('build-break-summary').words}'"
                              if r.hit("build-break-summary") else None),
    "regression": lambda r: (f"it reports a regression: '{r.hit('regression').text}'" if r.hit("regression") else None),
}


def urgent_signals(r: PatchReading, signals: tuple[str, ...]) -> tuple[str, ...]:
    """Which of `signals` (the untagged policy's `fixes_when` names) the patch shows."""
    return tuple(name for name in signals if name in _URGENT and _URGENT[name](r))


def _urgent(r: PatchReading, signals: tuple[str, ...]) -> str | None:
    for name in signals:
        why = _URGENT[name](r) if name in _URGENT else None
        if why:
            return why
    return None


def _first_route(d: _Draft, series: Series, t: _Trees, targets: Mapping[str, TargetFacts] | None,
                 pull: bool) -> _Route:
    own, kind = d.own, d.kind.kind
    if own is None:
        untagged = _untagged_route(d, t)
        if untagged is not None:
            return untagged
    if kind == "fix":
        if d.reading.fixes:
            facts = [targets.get(tag.sha) if targets is not None and tag.sha else None for tag in d.reading.fixes]
            by_history = _route_by_history(d, facts, t)
            if by_history is not None:
                return by_history
        if own is not None and own.kind == "development":
            if t.fixes and t.dev and d.not_needed is None:  # a Fixes tag naming no bug is fixes-not-needed's
                return _fix_for_development(d, series, t, pull or t.untagged is not None)
            return _Route(own.name)
        if own is None and d.not_needed is not None:  # untagged, and its Fixes tag names no bug
            return _Route(t.dev.name if t.dev else None)
        return _Route(t.fixes.name if t.fixes else None, own is not None and own.kind == "fixes")
    if kind == "development":
        if own is not None and not d.kind.decisive:  # nothing the mail shows contradicts the author
            return _Route(own.name)
        return _Route(t.dev.name if t.dev else None, d.kind.decisive and t.dev is not None)
    return _Route()


def _travel(drafts: list[_Draft], t: _Trees) -> list[_Draft]:
    """In a series for the fixes tree that carries a fix, the patches whose diff adds no new work
    travel with the fixes (preparations, a helper the fix uses, the clean-up it builds on), and so
    do tests without a Fixes tag of their own. Without a fixes tree (a project with one tree),
    tests and documentation go where the rest of the project's work goes."""
    if t.fixes is None:
        return [replace(d, route=replace(d.route, tree=_test_or_docs_tree(d, t, ())))
                if d.kind.kind in ("test", "docs") else d for d in drafts]
    name = t.fixes.name
    bound = tuple(d.counter for d in drafts if d.kind.kind == "fix" and d.route.tree == name
                  and d.own is not None and d.own.kind == "fixes")
    fix_bound = tuple(d.counter for d in drafts if d.kind.kind == "fix" and d.route.tree == name)
    out = []
    for d in drafts:
        r = d.route
        if bound and d.kind.kind == "development" and d.kind.basis != "diff" and d.own is not None \
                and d.own.kind == "fixes":
            r = replace(r, tree=name, certain=False, travels_with=bound,
                        reasons=r.reasons + ("travels with the fix in patch " + ", ".join(map(str, bound))
                                             + f" (a preparation or follow-up of it may go to {name} with it)",))
        elif d.kind.kind in ("test", "docs"):
            r = replace(r, tree=_test_or_docs_tree(d, t, fix_bound),
                        reasons=r.reasons + ((f"a test for the fix in patch {', '.join(map(str, fix_bound))} may "
                                              f"travel with it to {name}",)
                                             if d.kind.kind == "test" and fix_bound and not d.reading.fixes else ()))
        out.append(replace(d, route=r))
    return out


def _test_or_docs_tree(d: _Draft, t: _Trees, fix_bound: tuple[int, ...]) -> str | None:
    if d.kind.kind == "test" and fix_bound and t.fixes and not d.reading.fixes:
        return t.fixes.name
    if d.reading.fixes and t.fixes:
        return t.fixes.name
    if d.route.tree is not None:  # an untagged patch the profile or a release tag placed
        return d.route.tree
    return d.own.name if d.own else t.dev.name if t.dev else None


def _doubt_in_fixes_tree(d: _Draft, drafts: list[_Draft], t: _Trees) -> _Draft:
    """A patch for the fixes tree that may be development material, on evidence the mail gives but
    cannot prove: it says no user can hit the bug, or it only rewords documentation."""
    own, r = d.own, d.route
    if own is None or own.kind != "fixes" or t.fixes is None or t.dev is None or r.tree != t.fixes.name:
        return d
    if any(o is not d and o.kind.kind == "fix" and o.not_needed is None for o in drafts):
        return d  # it travels with the fixes of its series
    if d.kind.kind == "fix" and d.not_needed is not None:
        sig = d.not_needed
        return replace(d, route=replace(r, doubt=sig.reason, doubt_tree=t.dev.name, doubt_evidence=(sig.evidence,),
                                        settle=f"If no user can hit the bug, send it to {t.dev.name} without the Fixes "
                                               f"tag; if users can, say how in the message and keep it for "
                                               f"{t.fixes.name}."))
    if d.kind.kind == "docs" and d.kind.cosmetic is not None:
        sig = d.kind.cosmetic
        return replace(d, route=replace(r, doubt=f"it only changes wording {sig.detail}".rstrip(), doubt_tree=t.dev.name,
                                        doubt_evidence=(sig.evidence,),
                                        settle=f"A correction of how the documentation reads goes to {t.dev.name}; keep "
                                               f"{t.fixes.name} if the text is wrong about what released kernels do "
                                               "(say so in the message)."))
    return d


def _trees(profile: Profile, series: Series, declared: TreeSpec | None, stable: bool) -> _Trees:
    # The profile's trees apply to a series tagged for one, or touching the paths the project owns
    # (not to a user-space patch on the same list, nor to a stable backport).
    files = [f.path for p in series.patches for f in p.diff.files]
    applies = not stable and (declared is not None or any(profile.owns(x) for x in files) or (
        bool(files) and all(profile.is_docs_path(x) for x in files)))  # MAINTAINERS, Documentation/
    if not applies:
        return _Trees(None, None, None, ())
    policy = profile.untagged
    return _Trees(profile.tree_for("fixes", declared), profile.tree_for("development", declared),
                  profile.tree(policy.tree) if policy else None, policy.fixes_when if policy else ())


def _kind(p: Patch, reading: PatchReading, limit: int, cover_cleanup: Any) -> Kind:
    k = kind_of(reading, p.subject.raw, limit)
    if k.kind == "development" and not k.decisive and cover_cleanup is not None:
        return replace(k, basis="cleanup", reasons=["the cover letter calls the series clean-ups"] + k.reasons[:1])
    return k


def classify_series(series: Series, profile: Profile, targets: Mapping[str, TargetFacts] | None = None,
                    calendar: Any = None) -> Classification:
    """Classify every received patch of `series` for `profile` (see the module docstring)."""
    declared = profile.series_tree(series)
    readings = {p.counter: read_patch(p, profile, calendar) for p in series.all_mails}
    first = readings.get(series.first.counter) if series.first else None
    stable = first is not None and (first.stable_tag is not None or (
        first.release_tag is not None and first.release_tag.phase == "released"))
    t = _trees(profile, series, declared, stable)
    limit = int(profile.settings.get("fix_size_limit", 100))
    cover_says = cover_cleanups(series.cover, series.expected)
    cover_cleanup = (meaning("cleanup-summary").first((readings[series.cover.counter].summary,))
                     if series.cover else None)
    unneeded = {p.counter: not_needed(readings[p.counter], p.subject.raw, cover_says.get(p.counter))
                for p in series.patches}
    real_fixes = {p.counter for p in series.patches if readings[p.counter].fixes and unneeded[p.counter] is None}
    drafts = []
    for p in series.patches:
        r = readings[p.counter]
        why_not = unneeded[p.counter]
        if why_not is not None and real_fixes - {p.counter} and is_preparation(r):
            why_not = None  # a preparation of the fix beside it carries the Fixes tag so stable takes both
        drafts.append(_Draft(p, r, _kind(p, r, limit, cover_cleanup), profile.declared_tree(p.subject.tags) or declared,
                             why_not))
    pull = is_pull_request(series)  # a maintainer's pull request: its sender chose the tree, no doubts
    drafts = [replace(d, route=_first_route(d, series, t, targets, pull)) for d in drafts]
    drafts = _travel(drafts, t)
    if not pull:
        drafts = [_doubt_in_fixes_tree(d, drafts, t) for d in drafts]
    out = tuple(_patch_class(d) for d in drafts)
    return Classification(patches=out, declared=declared, fixes_tree=t.fixes.name if t.fixes else None,
                          development_tree=t.dev.name if t.dev else None, history_checked=targets is not None,
                          stable_backport=stable)


def _patch_class(d: _Draft) -> PatchClass:
    r, k = d.route, d.kind
    reasons = tuple(k.reasons) + r.reasons
    return PatchClass(counter=d.counter, kind=k.kind, reasons=reasons, tree=r.tree, certain=r.certain,
                      declared=d.own.name if d.own else None, summary=", ".join(reasons[:3]),
                      evidence=tuple(k.evidence), fixes=d.reading.fixes, lines=d.reading.lines,
                      basis=r.basis or k.basis, doubt=r.doubt, doubt_tree=r.doubt_tree, settle=r.settle,
                      doubt_evidence=r.doubt_evidence, not_needed=d.not_needed, travels_with=r.travels_with,
                      phrases=k.phrases, cosmetic=k.cosmetic, kind_reasons=tuple(k.reasons))


def context_stage(series, options, fields: dict[str, Any]) -> None:
    profile = fields["profile"]
    targets = target_facts(fields.get("history"), profile, series)
    classification = classify_series(series, profile, targets, fields.get("calendar"))
    fields["classification"] = classification
    declared = classification.declared
    history = fields.get("history")
    pair = [t for t in (profile.tree(classification.fixes_tree), profile.tree(classification.development_tree)) if t]
    missing = missing_tree_refs(history, pair) if history is not None and len(pair) == 2 else []
    if missing:
        absent = missing[0].split(" (", 1)[0]
        fields["unavailable"]["tree-refs"] = (f"the repository has no ref for {', '.join(missing)}: fetch the tree, "
                                              f"or name its ref with --tree {absent}=REF")
    if (targets is None and declared is not None and declared.kind == "development"
            and any(p.kind == "fix" and p.fixes for p in classification.patches)):
        fields["notes"].append(f"tree-mismatch: whether the fixes in this {declared.name} series fix code already "
                               f"in {classification.fixes_tree} was not checked (needs --repo with the trees' refs)")
