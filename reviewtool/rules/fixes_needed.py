"""A Fixes: tag on a change that fixes no bug: maintainers ask for it to be dropped."""

from __future__ import annotations

from .labels import patch_label
from .registry import Hit, rule
from .tree import classification


@rule("fixes-not-needed", family="tree", severity="warning",
      summary="A Fixes: tag on a change that fixes no bug (comments, dead code, a clean-up, an unreachable case)")
def fixes_not_needed(series, ctx):
    """Why: A Fixes tag tells the stable team and AUTOSEL to backport the patch to every release
    carrying the named commit. On a comment fix, the removal of an unused definition, a clean-up or
    a case the message itself says no caller can reach, it sends churn to stable trees and misleads
    readers about a bug that never was; maintainers drop the tag (and route the patch to the
    development tree). The finding quotes what the judgement rests on: the diff (comments only,
    deletions of unused code), the message's own words, or the cover letter naming the patch a
    clean-up.
    Source: kernel submitting-patches ("Fixes:" is for bugs); stable-kernel-rules (no trivial
    clean-ups); maintainer reviews on netdev and bpf asking to drop such tags.
    Bad:
      bpf: Remove unused MT_ENTRY define
      Fixes: b795379757eb ("bpf: Introduce range_tree data structure and use it in bpf arena")
    Good:
      bpf: Remove unused MT_ENTRY define
      (no Fixes tag; the commit that left it unused can be named in the message)
    """
    cls = classification(series, ctx)
    for pc in cls.patches:
        sig = pc.not_needed
        if sig is None or not pc.fixes:
            continue
        p = series.patch(pc.counter)
        what = sig.reason
        dev = cls.development_tree
        yield Hit(f"{patch_label(series, pc.counter)} carries a Fixes tag but fixes no bug: {what}",
                  patch=pc.counter, evidence=(p.subject.raw if p else "", sig.evidence) + tuple(t.line for t in pc.fixes),
                  advice="Drop the Fixes tag (the commit it named can be mentioned in the message as "
                         "`commit <12+ hex> (\"subject\")`)"
                         + (f", and send it to {dev} unless it travels with a fix" if dev else "")
                         + "; if users can hit a bug, say how in the message and keep the tag.")
