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
        subs = [s for s in profile.subtrees if f.path.startswith(tuple(s.paths))]
        best = max(subs, key=lambda s: max(len(x) for x in s.paths), default=None)
        name = (best.git or best.name).removesuffix(".git") if best else _own_trees(profile)
        out.setdefault(name, []).append(f.path)
    return out


def _split_by_driver_tree(series, profile) -> list[int]:
    """The patches that keep to one driver tree, when they go to at least two: the author split the
    series by driver tree, so a patch of it that spans two left one split undone (a tree-wide
    change sent as one patch, or a series all for one tree, made no such choice)."""
    single = {p.counter: next(iter(g)) for p in series.patches if len(g := _subtree_groups(p, profile)) == 1}
    return sorted(single) if len(set(single.values())) >= 2 else []


def _own_trees(profile) -> str:
    return f"the {profile.name} trees"


def _tree_wide(drivers: dict[str, list[str]], profile) -> bool:
    """A change made across drivers (an interface and all its users): three driver trees or more,
    or more than three driver directories among the files no sub-tree takes."""
    own = {f.rsplit("/", 1)[0] for f in drivers.get(_own_trees(profile), ())}
    return len(drivers) >= 3 or len(own) > 3


@rule("patch-spans-trees", family="split", severity="warning",
      summary="One patch touches files merged through different trees (devicetree and a driver): split it")
def patch_spans_trees(series, ctx):
    """Why: Devicetree sources reach mainline through the SoC trees of their platforms, bindings are
    reviewed by the DT maintainers as patches of their own, and a driver goes through its
    subsystem's tree. A patch mixing them cannot be applied by any one maintainer; it is sent back
    to be split. The groups are profile data (`separate_paths`; the kernel's by default). A patch
    touching drivers that different driver trees take (the profile's `subtrees`: mt76 and a driver
    merged through wireless-next) is a note: maintainers ask to split it, though a tree-wide
    mechanical change is applied whole; in a series the author split by driver tree (patches of it
    keep to one driver tree each, two trees or more among them), it is a warning: one split was
    left undone.
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
    split_by_driver = _split_by_driver_tree(series, ctx.profile)
    for p in series.patches:
        groups = _groups(p, ctx.profile)
        if len(groups) < 2:
            drivers = _subtree_groups(p, ctx.profile)
            if len(drivers) > 1:
                parts = [f"{name} ({', '.join(paths[:2])}{', ...' if len(paths) > 2 else ''})"
                         for name, paths in drivers.items()]
                others = [] if _tree_wide(drivers, ctx.profile) else [c for c in split_by_driver if c != p.counter]
                why = (f"; the series is split by driver tree (patches {', '.join(map(str, others[:4]))}"
                       f"{', ...' if len(others) > 4 else ''} each keep to one)" if others else "")
                yield Hit(f"{patch_label(series, p.counter)} touches drivers of different driver trees: "
                          f"{' and '.join(parts)}{why}", patch=p.counter,
                          severity=Severity.WARNING if others else Severity.INFO,
                          evidence=(p.subject.raw,) + tuple(paths[0] for paths in drivers.values()),
                          advice=f"Split {patch_label(series, p.counter)} into one patch per driver tree "
                                 f"({', '.join(drivers)}; in one series is fine), so each tree's maintainer can "
                                 "apply their part; a tree-wide mechanical change may stay whole.")
            continue
        parts = [f"{name} ({', '.join(paths[:2])}{', ...' if len(paths) > 2 else ''})" for name, paths in groups.items()]
        where = "; ".join(f"{name} go to {trees[name]}" for name in groups if name in trees)
        yield Hit(f"{patch_label(series, p.counter)} touches {' and '.join(parts)}: they are merged through "
                  "different trees", patch=p.counter,
                  evidence=(p.subject.raw,) + tuple(paths[0] for paths in groups.values()),
                  advice=f"Split it into one patch per tree, sent as one series ({where}); the driver part goes "
                         "through the subsystem's tree.")
