"""What the reviews of the applied postings show of a project's habits (the second pass, over
facts.py's Facts): the list address, sign-off use, series sizes, Fixes tags on fixes, and the
signals that send an untagged patch to the fixes tree."""

from __future__ import annotations

from collections import Counter

from ..context.profiles.parts import UNTAGGED_SIGNALS
from .archive import Posting
from .counts import share
from .facts import Facts
from .learned_profile import LearnedProfile
from .projects import Project

MIN_POSTINGS = 20  # a share of fewer applied postings backs no convention
MIN_PATCHES = 10
SIGNED_USED, SIGNED_UNUSED = 0.9, 0.1
COVER_SHARE = 0.8
FIXES_REQUIRED = 0.9


def learn_lists(lp: LearnedProfile, facts: list[Facts], senders: frozenset[str],
                posters: dict[int, str] | None = None, own: str | None = None) -> None:
    """The addresses on half of the applied postings that never send mail, the list's own first:
    the one the most different people post to (a maintainer's address is in the To: of the few who
    send them pull requests, the list's on everyone's; one who applies is never a list), then the
    most postings, then by address
    (the reviews finish in any order; the profile, and its name, must not change); the archive's
    own list (`own`: the List-Id its mails carry, learn/archive.own_list) before all. `posters`:
    each posting's sender, by its key."""
    n = len(facts)
    counts = Counter(a for f in facts for a in set(f.recipients))
    people: dict[str, set[str]] = {}
    for f in facts:
        for a in set(f.recipients):
            people.setdefault(a, set()).add((posters or {}).get(f.key, ""))
    # a maintainer is no list, though the list never hears from him (davem@ on netfilter-devel)
    from ..context.replies.settled import shipped_appliers

    people_known = set(lp.appliers) | shipped_appliers()
    lists = [a for a, c in sorted(counts.items(), key=lambda x: (x[0] != own, -len(people[x[0]]), -x[1], x[0]))
             if c * 2 > n and a not in senders and a not in people_known]
    if n < 1 or not lists:
        lp.left_out.append(f"the list address: none in half of {n} applied postings that never sends mail")
        return
    lp.lists = lists
    lp.note("lists", "; ".join(f"{a}: in {share(counts[a], n)} applied postings" for a in lists))


def learn_signoffs(lp: LearnedProfile, facts: list[Facts]) -> None:
    patches = [pf for f in facts for pf in f.patches]
    signed = sum(pf.signed for pf in patches)
    if len(patches) < MIN_PATCHES:
        lp.left_out.append(f"sign-off use: {len(patches)} applied patches, fewer than {MIN_PATCHES}")
        return
    rate = signed / len(patches)
    why = f"{share(signed, len(patches))} applied patches carry a Signed-off-by"
    if rate >= SIGNED_USED:
        lp.note("signoffs", why + ": sign-offs are used (the sign-off rules apply)")
    elif rate <= SIGNED_UNUSED:
        from ..rules.registry import all_rules

        for r in all_rules():
            if r.family == "signoff" and r.name not in lp.disable:
                lp.disable.append(r.name)
                lp.note(f"rules.disable.{r.name}", why + ": the project does not use sign-offs")
        lp.note("signoffs", why + ": sign-offs are not used")
    else:
        lp.left_out.append(f"sign-off use: {why}, neither the rule nor the exception")


def learn_sizes(lp: LearnedProfile, facts: list[Facts], postings: dict[int, Posting]) -> None:
    sizes = sorted(postings[f.key].expected for f in facts)
    if len(sizes) < MIN_POSTINGS:
        lp.left_out.append(f"series sizes: {len(sizes)} applied postings, fewer than {MIN_POSTINGS}")
        return
    p99 = sizes[min(len(sizes) - 1, int(0.99 * len(sizes)))]
    default = int(lp.settings.get("max_patches") or 15)
    longest = sizes[-1]
    why = (f"99% of {len(sizes):,} applied postings have at most {p99} patch{'es' if p99 != 1 else ''}; "
           f"the longest had {longest}")
    if p99 > default:
        lp.settings["max_patches"] = p99
        lp.note("settings.max_patches", why)
    else:
        lp.note("settings.max_patches", why + f": the generic limit of {default} stands")
    with_cover = Counter(postings[f.key].expected for f in facts if f.has_cover)
    total = Counter(postings[f.key].expected for f in facts)
    for n in range(2, max(total) + 1 if total else 2):
        bigger = [k for k in total if k >= n]
        t = sum(total[k] for k in bigger)
        c = sum(with_cover[k] for k in bigger)
        if t >= MIN_PATCHES and c >= COVER_SHARE * t:
            lp.settings["cover_letter_min"] = n
            lp.note("settings.cover_letter_min", f"{share(c, t)} applied series of {n} or more patches had a "
                                                 "cover letter")
            break


def learn_fixes_on_fixes(lp: LearnedProfile, facts: list[Facts], project: Project, postings: dict[int, Posting]) -> None:
    if not any(t.kind == "fixes" for t in project.trees):
        return  # no fixes tree (nftables, BlueZ): nothing to learn, nothing to say
    patches = [pf for f in facts if (t := project.main_tree(postings[f.key])) is not None and t.kind == "fixes"
               for pf in f.patches if pf.kind not in ("test", "docs")]
    if len(patches) < MIN_PATCHES:
        lp.left_out.append(f"Fixes use on fixes: {len(patches)} code patches applied to a fixes tree, "
                           f"fewer than {MIN_PATCHES}")
        return
    with_tag = sum(pf.fixes for pf in patches)
    why = f"{share(with_tag, len(patches))} code patches applied to a fixes tree carry a Fixes tag"
    lp.settings["fix_tree_requires_fixes"] = with_tag >= FIXES_REQUIRED * len(patches)
    lp.note("settings.fix_tree_requires_fixes", why)


def learn_fixes_when(lp: LearnedProfile, facts: dict[int, Facts], project: Project) -> None:
    """Which signals send an untagged patch to the fixes tree: those that, where they show, went
    there more often than not (the untagged postings applied to a fixes tree outnumber the rest)."""
    if lp.untagged is None:
        return
    if not any(t["kind"] == "fixes" for t in lp.trees):
        lp.untagged["fixes_when"] = []
        return
    to_fixes, to_dev = Counter(), Counter()
    n_fix = 0
    for p in lp.untagged_postings:
        f = facts.get(p.key)
        t = project.main_tree(p)
        if f is None or t is None:
            continue
        signals = {s for pf in f.patches for s in pf.urgent}
        if t.kind == "fixes":
            n_fix += 1
            to_fixes.update(signals)
        else:
            to_dev.update(signals)
    keep = [s for s in UNTAGGED_SIGNALS if to_fixes[s] > to_dev[s]]
    lp.untagged["fixes_when"] = keep
    parts = [f"{s}: {to_fixes[s]} of {n_fix} untagged postings applied to a fixes tree, {to_dev[s]} of the rest"
             for s in UNTAGGED_SIGNALS]
    lp.note("untagged.fixes_when", "; ".join(parts))
