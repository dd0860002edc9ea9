"""Tree policy: is each patch aimed at the right tree, and does each fix say what it fixes?

The per-patch verdicts come from context/classify/series.py (ctx.classification); which trees exist and
which kind each is comes from the profile. No tree name is written in this module.
"""

from __future__ import annotations

from ..context.classify.series import Classification, PatchClass, classify_series
from ..context.classify.diff_evidence import reverted_commit
from .labels import patch_label
from .registry import Hit, Severity, rule


def classification(series, ctx) -> Classification:
    """The context's classification, or one made now (a Context built without the stage)."""
    return ctx.classification if ctx.classification is not None else classify_series(series, ctx.profile)


def _evidence(series, pc: PatchClass, limit: int = 4) -> tuple[str, ...]:
    p = series.patch(pc.counter)
    lines = [p.subject.raw] if p else []
    return tuple(lines + [e for e in pc.evidence if e not in lines][:limit])


@rule("tree-tag-missing", family="tree", severity="warning",
      summary="Patches touch the project's paths but the subject names none of its trees")
def tree_tag_missing(series, ctx):
    """Why: The maintainers (and their CI) pick the tree from the subject tag; without it a fix may
    be queued for the next release, or new work tested against the wrong base. NIPA reports
    "Target tree name not specified in the subject" for such series. A profile whose untagged
    patches have a tree (setting `untagged_tree`; wireless: wireless-next) only notes a fix.
    Source: maintainer-netdev ("Indicating target tree"); NIPA series_format/subject_prefix.
    Bad:
      [PATCH 1/2] net: foo: fix bar     (touches drivers/net/, no tree named)
    Good:
      [PATCH net 1/2] net: foo: fix bar
    """
    profile = ctx.profile
    first = series.first
    if not profile.trees or first is None or profile.declared_tree(first.subject.tags):
        return
    subj = first.subject
    cls = classification(series, ctx)
    if subj.pull or cls.stable_backport or subj.summary.startswith(profile.untagged_prefixes):
        return
    owned = [f.path for p in series.patches for f in p.diff.files if profile.owns(f.path)]
    if not owned:
        return
    names = ", ".join(t.name for t in profile.trees)
    tag = subj.tags[0] if subj.tags else ""
    shown = tag if len(tag) <= 40 else tag[:37] + "..."  # a tag is a word or two; say so of a longer one
    other = f"; the tag [{shown}] is not one of them" if subj.tags else ""
    default = profile.tree(profile.untagged.tree) if profile.untagged else None
    if default is not None:  # untagged means this tree: only a patch that goes elsewhere needs a tag
        urgent = [pc for pc in cls.patches if pc.tree and pc.tree != default.name]
        if urgent:
            pc = urgent[0]
            yield Hit(f"the subject names no {profile.name} tree, which means {default.name}, but "
                      f"{patch_label(series, pc.counter)} reads as {pc.tree} material ({pc.reasons[-1]})",
                      evidence=(subj.raw,), severity=Severity.INFO,
                      advice=f"Mark it [PATCH {pc.tree}] so it is not queued for the next release; otherwise "
                             f"{default.name} (no tag) is right.")
        return
    routed = {pc.tree for pc in cls.patches if pc.kind in ("fix", "development") and pc.tree}
    if len(routed) == 1:
        tree = routed.pop()
        kinds = {pc.kind for pc in cls.patches if pc.tree == tree}
        why = "it carries fixes" if "fix" in kinds else "it is new work"
        advice = (f"Resend with the tree in the subject, [PATCH {tree}] ({why}): "
                  f"`git format-patch --subject-prefix='PATCH {tree}'`.")
    elif routed:
        advice = (f"Name the tree in the subject: [PATCH {cls.fixes_tree}] for fixes, [PATCH {cls.development_tree}] "
                  "for new work; this series mixes both and should be split (see split-series).")
    else:
        advice = (f"Name the tree in the subject: [PATCH {cls.fixes_tree}] if it fixes a bug in released code "
                  f"(with a Fixes: tag), else [PATCH {cls.development_tree}].")
    yield Hit(f"the subject names no {profile.name} tree ({names}){other}, but the series touches "
              f"{len(set(owned))} file(s) under {profile.name}'s paths",
              evidence=(subj.raw,) + tuple(sorted(set(owned)))[:3], advice=advice)


@rule("tree-mismatch", family="tree", severity="warning",
      summary="A patch's content does not match the tree its subject names (fix vs new work)")
def tree_mismatch(series, ctx):
    """Why: A fixes tree (net, bpf, nf, wireless) only takes fixes for code users already run; new
    features, new uAPI, drivers and clean-ups wait for the development tree. The other way round, a
    fix for released code sent to the development tree reaches users a release late and misses
    stable. What the diff adds (or the repository's history) decides the tree; a doubt the mail
    alone cannot settle (a Fixes tag on a net-next patch, a fix that says no caller can hit the bug,
    a documentation typo for net) keeps the author's tree and says what would settle it.
    Source: maintainer-netdev ("git trees and patch flow"); kernel-rules NET-ROUTE.
    Bad:
      [PATCH net 3/3] net: foo: add ring_size module parameter    (new module parameter, no Fixes)
      [PATCH net-next] net: foo: fix a use-after-free in teardown   (Fixes: a commit in v6.1)
    Good:
      [PATCH net-next] net: foo: add ring_size module parameter   (after the fixes are merged)
      [PATCH net] net: foo: fix a use-after-free in teardown
    """
    cls = classification(series, ctx)
    for pc in cls.patches:
        declared = ctx.profile.tree(pc.declared)
        if declared is None or pc.tree is None:
            continue
        label = patch_label(series, pc.counter)
        if pc.doubtful:
            yield Hit(f"{label} is for {declared.name}, but {pc.doubt}: it may be {pc.doubt_tree} material",
                      patch=pc.counter, evidence=(series.patch(pc.counter).subject.raw,) + pc.doubt_evidence,
                      advice=pc.settle or "")
            continue
        if not pc.certain or pc.tree == declared.name:
            continue
        if declared.kind == "fixes" and pc.kind == "development":
            yield Hit(f"{label} is not {declared.name} material: {pc.summary} -> {pc.tree}", patch=pc.counter,
                      evidence=_evidence(series, pc),
                      advice=f"Take it out of the {declared.name} series and send it as [PATCH {pc.tree}] once "
                             f"{pc.tree} is open; {declared.name} only takes fixes for code already released.")
        elif declared.kind == "development" and pc.kind == "fix":
            yield Hit(f"{label} fixes code that is already in {pc.tree}: it is {pc.tree} material, "
                      f"not {declared.name} ({'; '.join(pc.reasons[:2])})", patch=pc.counter,
                      evidence=_evidence(series, pc),
                      advice=f"Send it to {pc.tree} as [PATCH {pc.tree}] so the fix reaches the current release "
                             f"and stable; new work that depends on it can follow in {declared.name} once "
                             f"{pc.tree} has been merged into {declared.name}.")


@rule("fixes-missing", family="tree", severity="warning",
      summary="A fix, or a code patch for a fixes tree, has no Fixes: tag")
def fixes_missing(series, ctx):
    """Why: The Fixes tag says which commit introduced the bug: it routes the fix to every stable
    release carrying that commit and tells reviewers what to compare against. netdev requires it
    on every fix, whatever the tree. A warning, not an error: maintainers add the tag themselves or
    take a fix without one, and ask in review. Test-only and documentation-only patches in a fix
    series are exempt (a selftest may travel with its fix without one); a preparation that travels
    with a fix of its series is a note.
    Source: maintainer-netdev tl;dr ("for fixes the Fixes: tag is required, regardless of the tree");
    submitting-patches ("Describe your changes"); NIPA fixes_present.
    Bad:
      [PATCH net] net: foo: fix use-after-free in teardown
      Signed-off-by: ...
    Good:
      [PATCH net] net: foo: fix use-after-free in teardown
      Fixes: 1a2b3c4d5e6f ("net: foo: add queue teardown")
      Signed-off-by: ...
    """
    cls = classification(series, ctx)
    require = bool(ctx.setting("fix_tree_requires_fixes", False))
    for pc in cls.patches:
        p = series.patch(pc.counter)
        if p is None or pc.fixes or pc.kind in ("test", "docs") or reverted_commit(p) is not None:
            continue
        declared = ctx.profile.tree(pc.declared)
        label = patch_label(series, pc.counter)
        how = ("Add `Fixes: <12+ hex> (\"<subject>\")` naming the commit that introduced the bug "
               "(`git log -S` or `git blame` on the lines it changes finds it)")
        if pc.kind == "fix":
            why = "; ".join(r for r in pc.kind_reasons or pc.reasons if not r.startswith(("no Fixes", "without a Fixes")))
            yield Hit(f"{label} reads as a fix ({why}) "
                      "but has no Fixes tag", patch=pc.counter, evidence=_evidence(series, pc), advice=how + ".",
                      severity=_outside_trees(ctx, cls, series))
        elif pc.travels_with and declared is not None and declared.kind == "fixes":
            fixes = ", ".join(map(str, pc.travels_with))
            yield Hit(f"{label} has no Fixes tag; it travels with the fix in patch {fixes}", patch=pc.counter,
                      evidence=(p.subject.raw,), severity=Severity.INFO,
                      advice=f"Fine for a preparation or follow-up of patch {fixes}: say so in its message "
                             f"(\"needed by the next patch\"); if it fixes a bug of its own, add its Fixes tag.")
        elif require and declared is not None and declared.kind == "fixes" and not pc.certain:
            dev = cls.development_tree
            # The evidence: the tree tag as written, and the trailers that lack a Fixes line.
            prefix = " ".join(f"[{b}]" for b in p.subject.brackets)
            yield Hit(f"{label} is for {declared.name}, a fixes tree, but has no Fixes tag", patch=pc.counter,
                      evidence=(prefix,) + (tuple(t.line for t in p.trailers) or ("(no trailers)",)),
                      advice=how + (f"; if it fixes no bug in released code, it belongs in {dev}." if dev else "."))


def _outside_trees(ctx, cls: Classification, series) -> Severity | None:
    """Below the configured severity for a patch the profile's trees do not cover: a warning for
    user space on the same list (the Fixes policy is then a request), a note for a stable
    backport (its upstream commit carries the tags it has)."""
    if cls.fixes_tree is not None or not ctx.profile.trees:
        return None
    if cls.stable_backport:
        return Severity.INFO
    configured = Severity(ctx.profile.severity.get("fixes-missing", "warning"))
    return configured if configured.rank > Severity.WARNING.rank else Severity.WARNING


@rule("fix-for-next-only-code", family="tree", severity="warning", needs=("repo", "tree-refs"),
      summary="A fix sent to the fixes tree repairs code that exists only in the development tree")
def fix_for_next_only_code(series, ctx):
    """Why: When every commit a patch fixes is only in the development tree, the fixes tree does not
    have the bug: the patch will not apply there, and it belongs in the development tree.
    Source: kernel-rules NET-ROUTE ("If any target is only in net-next, it goes to net-next").
    Bad:
      [PATCH net] net: foo: fix new_feature() leak
      Fixes: 0123456789ab ("net: foo: add new_feature()")   (only in net-next)
    Good:
      [PATCH net-next] net: foo: fix new_feature() leak
    """
    cls = classification(series, ctx)
    for pc in cls.patches:
        declared = ctx.profile.tree(pc.declared)
        if declared is None or declared.kind != "fixes" or pc.kind != "fix" or not pc.certain or pc.tree == declared.name:
            continue
        targets = ", ".join(t.sha for t in pc.fixes if t.sha)
        yield Hit(f"{patch_label(series, pc.counter)} fixes code that is only in {pc.tree}: every Fixes target "
                  f"({targets}) is in {pc.tree} but not in {declared.name}", patch=pc.counter,
                  evidence=tuple(t.line for t in pc.fixes),
                  advice=f"Send it to {pc.tree} as [PATCH {pc.tree}]: {declared.name} does not have the bug, and "
                         "the patch will not apply there.")
