"""One patch, several trees: files that reach mainline through different trees go in different patches."""

from __future__ import annotations

from .helpers import patch_label
from .registry import Hit, rule

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


@rule("patch-spans-trees", family="split", severity="warning",
      summary="One patch touches files merged through different trees (devicetree and a driver): split it")
def patch_spans_trees(series, ctx):
    """Why: Devicetree sources reach mainline through the SoC trees of their platforms, bindings are
    reviewed by the DT maintainers as patches of their own, and a driver goes through its
    subsystem's tree. A patch mixing them cannot be applied by any one maintainer; it is sent back
    to be split. The groups are profile data (`separate_paths`; the kernel's by default).
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
            continue
        parts = [f"{name} ({', '.join(paths[:2])}{', ...' if len(paths) > 2 else ''})" for name, paths in groups.items()]
        where = "; ".join(f"{name} go to {trees[name]}" for name in groups if name in trees)
        yield Hit(f"{patch_label(series, p.counter)} touches {' and '.join(parts)}: they are merged through "
                  "different trees", patch=p.counter,
                  evidence=(p.subject.raw,) + tuple(paths[0] for paths in groups.values()),
                  advice=f"Split it into one patch per tree, sent as one series ({where}); the driver part goes "
                         "through the subsystem's tree.")
