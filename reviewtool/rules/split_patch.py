"""One patch, several trees: files that reach mainline through different trees go in different patches."""

from __future__ import annotations

from .labels import patch_label
from .registry import Hit, Severity, rule

_CODE = "code"


def _groups(patch, profile) -> dict[str, list[str]]:
    """Group name -> the patch's files in it; documentation and MAINTAINERS travel with anything."""
    out: dict[str, list[str]] = {}
    for f in patch.diff.files:
        group = next((g.name for g in profile.separate_paths if g.matches(f.path)), None)
        if group is None and profile.is_docs_path(f.path):
            continue
        out.setdefault(group or _CODE, []).append(f.path)
    return out


def _subtree_groups(patch, profile) -> dict[str, list[str]]:
    """Driver tree -> the patch's files in it, for a profile whose sub-trees take driver families
    (wireless: ath.git, mt76, iwlwifi); the rest of the profile's files go to its own trees."""
    out: dict[str, list[str]] = {}
    if not profile.subtrees:
        return out
    for f in patch.diff.files:
        if not profile.owns(f.path) or profile.is_docs_path(f.path):
            continue  # documentation travels with the driver it documents
        subs = [s for s in profile.subtrees if any(f.path.startswith(x) for x in s.paths)]
        best = max(subs, key=lambda s: max(len(x) for x in s.paths), default=None)
        name = (best.git or best.name).removesuffix(".git") if best else "the " + profile.name + " trees"
        out.setdefault(name, []).append(f.path)
    return out


@rule("patch-spans-trees", family="split", severity="warning",
      summary="One patch touches files merged through different trees (devicetree and a driver): split it")
def patch_spans_trees(series, ctx):
    """Why: Devicetree sources reach mainline through the SoC trees of their platforms, bindings are
    reviewed by the DT maintainers as patches of their own, and a driver goes through its
    subsystem's tree. A patch mixing them cannot be applied by any one maintainer; it is sent back
    to be split. The groups are profile data (`separate_paths`; the kernel's by default). A patch
    touching drivers that different driver trees take (the profile's `subtrees`: mt76 and a driver
    merged through wireless-next) is a note: maintainers ask to split it, though a tree-wide
    mechanical change is applied whole.
    Source: kernel submitting-patches ("Separate your changes"); devicetree bindings
    submitting-patches ("DT binding patches ... separate"); checkpatch DT_SPLIT_BINDING_PATCH;
    netdev review of DTS-plus-driver patches.
    Bad:
      [PATCH] net: dsa: mt7530: fix reset polarity
        arch/arm64/boot/dts/mediatek/mt7981b.dtsi | 2 +-
        drivers/net/dsa/mt7530.c                  | 8 ++++----
    Good:
      [PATCH 1/2] net: dsa: mt7530: fix reset polarity        (drivers/net/dsa/mt7530.c)
      [PATCH 2/2] arm64: dts: mediatek: fix MT7531 reset      (the .dtsi, for the SoC tree)
    """
    trees = {g.name: g.tree for g in ctx.profile.separate_paths}
    for p in series.patches:
        groups = _groups(p, ctx.profile)
        if len(groups) < 2:
            drivers = _subtree_groups(p, ctx.profile)
            if len(drivers) > 1:
                parts = [f"{name} ({', '.join(paths[:2])}{', ...' if len(paths) > 2 else ''})"
                         for name, paths in drivers.items()]
                yield Hit(f"{patch_label(series, p.counter)} touches drivers of different driver trees: "
                          f"{' and '.join(parts)}", patch=p.counter, severity=Severity.INFO,
                          evidence=(p.subject.raw,) + tuple(paths[0] for paths in drivers.values()),
                          advice="Send one patch per driver tree (in one series is fine), so each tree's "
                                 "maintainer can apply their part; a tree-wide mechanical change may stay whole.")
            continue
        parts = [f"{name} ({', '.join(paths[:2])}{', ...' if len(paths) > 2 else ''})" for name, paths in groups.items()]
        where = "; ".join(f"{name} go to {trees[name]}" for name in groups if name in trees)
        yield Hit(f"{patch_label(series, p.counter)} touches {' and '.join(parts)}: they are merged through "
                  "different trees", patch=p.counter,
                  evidence=(p.subject.raw,) + tuple(paths[0] for paths in groups.values()),
                  advice=f"Split it into one patch per tree, sent as one series ({where}); the driver part goes "
                         "through the subsystem's tree.")
