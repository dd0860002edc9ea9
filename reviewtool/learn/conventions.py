"""A project's conventions, learned from the postings its maintainers applied.

Each learner adds to a LearnedProfile the settings it can back, with the counts behind them, and
says what it left out. The first pass (`from_headers`) needs only the archive's headers, the
replies and the files each patch touches: trees, paths, tree tags, required prefixes, the merge
window and the appliers. The second (`from_reviews`) reads the reviews of facts.py: lists,
sign-offs, series sizes, Fixes on fixes and what sends an untagged patch to the fixes tree.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import datetime, timezone

from ..context.profiles import UNTAGGED_SIGNALS, shipped_profiles
from .archive import Archive, Posting
from .evidence import month, share, span, table, top
from .facts import Facts
from .model import LearnedProfile
from .trees import Project, SeenTree, TreePlan, tree_evidence

MIN_POSTINGS = 20  # a share of fewer applied postings backs no convention
MIN_PATCHES = 10
MONTH_MIN = 5  # a month with fewer applied patches says nothing of a prefix's hold
PATH_MIN = 2  # applied postings that make a directory the project's
PATH_SHARE = 0.01
FOCUSED_KEYS = 3  # a posting touching more directories than this (a tree-wide change) is no one's
POSTED_MIN, POSTED_SHARE = 5, 0.005  # focused postings that make a directory the project's
PREFIX_HELD = 0.8  # the commits' share of a prefix from the month it took hold on (four in five)
PREFIX_POSTED = 0.5  # ... and the postings' share (most posters write it)
PREFIX_NOTED = 0.5  # the commits' share from the month the maintainers began to add it
ALIAS_MIN = 2
ALIAS_SHARE = 0.8
UNTAGGED_SHARE = 0.5
SIGNED_USED, SIGNED_UNUSED = 0.9, 0.1
_RELEASE_RE = re.compile(r"^(v?\d|for-v?\d|-?stable$|rfc)", re.I)


def _path_key(path: str) -> str | None:
    """The directory a file counts under: three levels down at most (drivers/net/wireless/), the
    file itself in a directory many projects share (include/net/mac80211.h); None for files
    that are everyone's (MAINTAINERS, Documentation/)."""
    paths = table()["paths"]
    if any(path == x or path.startswith(x) for x in paths["ignore"] if x.endswith("/") or path == x):
        return None
    parts = path.split("/")
    if len(parts) == 1:
        return None
    key = "/".join(parts[:min(3, len(parts) - 1)]) + "/"
    return path if key in paths["shared"] else key


def project_paths(postings: list[Posting], posted: list[Posting] = ()) -> tuple[list[str], int, list[str]]:
    """The directories (and shared-directory files) the project's applied patches touch, and those
    that postings to the list touch without touching much else (maintainers who apply without a
    reply leave only these: mac80211's)."""
    per: dict[str, set[int]] = defaultdict(set)
    for p in postings:
        for counter in p.applied:
            for f in p.files.get(counter, ()):
                k = _path_key(f)
                if k:
                    per[k].add(p.key)
    keep = {k for k, ps in per.items() if len(ps) >= PATH_MIN and len(ps) >= PATH_SHARE * len(postings)}
    focused: Counter = Counter()
    for p in posted:
        keys = {k for fs in p.files.values() for f in fs if (k := _path_key(f))}
        if 0 < len(keys) <= FOCUSED_KEYS:
            focused.update(keys)
    silent = {k for k, n in focused.items() if n >= POSTED_MIN and n >= POSTED_SHARE * len(posted)} - keep
    keep |= silent
    keep |= _parents(keep)
    keep = {k for k in keep if not any(o != k and o.endswith("/") and k.startswith(o) for o in keep)}
    silent &= keep
    covered = sum(1 for p in postings if any(_path_key(f) and any(_path_key(f).startswith(k) for k in keep)
                                             for c in p.applied for f in p.files.get(c, ())))
    order = sorted(keep, key=lambda k: (-len(per.get(k, ())), -focused[k], k))
    return order, covered, sorted(silent, key=lambda k: -focused[k])


def _parents(keys: set[str]) -> set[str]:
    """A directory (not a shared one) three or more of whose subdirectories are the project's."""
    shared = set(table()["paths"]["shared"])
    by_parent: dict[str, int] = Counter()
    for k in keys:
        if k.endswith("/") and k.count("/") >= 3:
            by_parent[k.rsplit("/", 2)[0] + "/"] += 1
    return {d for d, n in by_parent.items() if n >= 3 and d not in shared}


def kernel_layout(paths: list[str]) -> bool:
    tops = table()["paths"]["kernel"]
    return bool(paths) and sum(1 for x in paths if any(x.startswith(t) for t in tops)) >= 0.8 * len(paths)


def _tags(p: Posting) -> list[str]:
    return [t for t in p.tags if not _RELEASE_RE.match(t)]


def _tree_names(project: Project) -> dict[str, SeenTree]:
    names = {t.name.lower(): t for t in project.trees}
    names.update({s.name.lower(): project.fed(s) for s, _ in project.subtrees})
    return names


def learn_tags(lp: LearnedProfile, project: Project) -> None:
    """Tree names as posters write them, the aliases they use, and where untagged postings go."""
    postings = [p for p in project.postings if p.applied]
    names = _tree_names(project)
    written: dict[str, Counter] = defaultdict(Counter)
    alias_votes: dict[str, Counter] = defaultdict(Counter)
    untagged: list[Posting] = []
    for p in postings:
        main = project.main_tree(p)
        tags = _tags(p)
        hit = [t for t in tags if t.lower() in names]
        for t in hit:
            written[t.lower()][t] += 1
        for t in tags:
            if t.lower() not in names and main is not None:
                alias_votes[t.lower()][main.name] += 1
        if not hit and not any(t.lower() in alias_votes for t in tags if alias_votes[t.lower()]):
            untagged.append(p)
    for tree in lp.trees:
        forms = written.get(tree["name"].lower())
        if forms:
            form, n = forms.most_common(1)[0]
            if form != tree["name"] and n * 2 > sum(forms.values()):
                old = tree["name"]
                for other in lp.trees + lp.subtrees:
                    for key in ("pair", "feeds"):
                        if other.get(key) == old:
                            other[key] = form
                tree["name"] = form
                tree["source"] += f"; posters write [{form}] ({n} postings)"
    aliases = {}
    for tag, votes in sorted(alias_votes.items()):
        tree, n = votes.most_common(1)[0]
        total = sum(votes.values())
        if n >= ALIAS_MIN and n >= ALIAS_SHARE * total:
            aliases[tag] = _written_name(lp, tree)
            lp.note(f"tree_aliases.{tag}", f"{n} of {total} applied postings tagged [{tag}] went to {aliases[tag]}")
    lp.tree_aliases = aliases
    untagged = [p for p in postings if not any(t.lower() in names or t.lower() in aliases for t in _tags(p))]
    lp.untagged_postings = untagged
    if len(postings) < MIN_POSTINGS:
        lp.left_out.append(f"where untagged patches go: {len(postings)} applied postings, fewer than {MIN_POSTINGS}")
        return
    if len(untagged) < UNTAGGED_SHARE * len(postings):
        lp.note("untagged", f"{share(len(postings) - len(untagged), len(postings))} applied postings name a tree "
                            "in the subject: posters pick the tree")
        return
    dest = Counter(t.name for p in untagged if (t := project.main_tree(p)) is not None)
    if not dest:
        return
    tree, n = dest.most_common(1)[0]
    lp.untagged = {"tree": _written_name(lp, tree), "fixes_when": list(UNTAGGED_SIGNALS),
                   "source": (f"{share(len(untagged), len(postings))} applied postings name no tree; {n} of the "
                              f"{len(untagged)} untagged went to {tree} (or a sub-tree feeding it): the "
                              "maintainers pick the tree")}


def _written_name(lp: LearnedProfile, tree: str) -> str:
    for t in lp.trees:
        if t["name"].lower() == tree.lower() or t.get("_seen") == tree:
            return t["name"]
    return tree


def learn_trees_into(lp: LearnedProfile, project: Project, plan: TreePlan) -> None:
    fixes = [t for t in project.trees if t.kind == "fixes"]
    dev = [t for t in project.trees if t.kind == "development"]
    for t in project.trees:
        pair = None
        others = dev if t.kind == "fixes" else fixes
        same = [o for o in others if o.family == t.family]
        if len(same) == 1 or len(others) == 1:
            pair = (same or others)[0].name
        entry = {"name": t.name, "kind": t.kind, "git": t.git, "_seen": t.name, "source": tree_evidence(t)}
        if pair:
            entry["pair"] = pair
        lp.trees.append(entry)
    for s, home in project.subtrees:
        fed = project.fed(s)
        lp.subtrees.append({"name": s.name, "feeds": fed.name, "git": s.git, "paths": [home],
                            "source": tree_evidence(s) + f"; its patches' files lie under {home}"})
    for note in plan.notes:
        lp.left_out.append(note)


def learn_paths(lp: LearnedProfile, project: Project, posted: list[Posting]) -> None:
    postings = [p for p in project.postings if p.applied]
    paths, covered, silent = project_paths(postings, posted)
    if not paths:
        lp.left_out.append("paths: no directory is touched by two applied postings")
        return
    lp.paths = paths
    lp.select_by_files = kernel_layout(paths)
    why = (f"the directories (and shared-directory files) that at least {PATH_MIN} applied postings touch "
           f"({share(covered, len(postings))} applied postings touch one)")
    if silent:
        why += (f"; and those that at least {POSTED_MIN} of the {len(posted):,} postings touch without much else, "
                f"applied without a reply: {', '.join(silent)}")
    lp.note("paths", why)
    if not lp.select_by_files:
        lp.note("select_by_files", "its paths are not the kernel's layout: chosen by its tree tag or list only")


def _first_prefix(summary: str) -> str | None:
    from ..rules.subject import _leading_prefixes  # the rule's own reading of `subsys:` prefixes

    found = _leading_prefixes(summary)
    return found[0] if found else None


def _summary(subject: str) -> str:
    from ..model.subject import parse_subject

    return parse_subject(subject).summary


def learn_prefixes(lp: LearnedProfile, project: Project) -> None:
    """A prefix the maintainers require on every patch of the project's paths (`wifi:`): the
    first prefix of most commits, over several drivers, month by month."""
    from ..rules.subject import _leading_prefixes

    rows = []  # (month, posted prefixes, committed prefixes or None, files)
    for p in project.postings:
        for counter, applied in p.applied.items():
            pm = next((m for m in p.patches if m.counter == counter), None)
            if pm is None:
                continue
            posted = _leading_prefixes(_summary(pm.subject))
            committed = _leading_prefixes(applied.commit_subject) if applied.commit_subject else None
            rows.append((month(p.date), posted, committed, p.files.get(counter, ())))
    firsts = Counter((c or q)[0] for _, q, c, _ in rows if (c or q))
    if len(rows) < MIN_PATCHES or not firsts:
        lp.left_out.append(f"a required prefix: {len(rows)} applied patches, too few")
        return
    prefix, _ = firsts.most_common(1)[0]
    seconds = {(c or q)[1] for _, q, c, _ in rows if (c or q) and (c or q)[0] == prefix and len(c or q) > 1}
    if len(seconds) < 3:
        lp.left_out.append(f"a required prefix: '{prefix}' leads most subjects but names one area "
                           f"({', '.join(sorted(seconds)) or 'none after it'}), not the list's")
        return
    def touches(r, x):
        return any(f.startswith(x) for f in r[3])
    paths = [x for x in lp.paths if any(touches(r, x) and prefix in (r[2] or r[1]) for r in rows)]
    others = [x for x in lp.paths if x not in paths and any(touches(r, x) for r in rows)]
    unknown = [x for x in lp.paths if x not in paths and x not in others]
    in_paths = [r for r in rows if any(any(f.startswith(x) or f == x for x in paths) for f in r[3])]
    carrying = [r for r in in_paths if prefix in (r[2] or r[1])]
    lacking_firsts = Counter((r[2] or r[1] or ["(none)"])[0] for r in in_paths if prefix not in (r[2] or r[1]))
    together = {x for r in carrying for x in (r[2] or r[1])}
    exempt = sorted(x for x, n in lacking_firsts.items() if n >= 2 and x not in together and x != "(none)")
    scope = [r for r in in_paths if (r[2] or r[1] or ["(none)"])[0] not in exempt]
    months = sorted({r[0] for r in scope})
    stats = {}
    for m in months:
        got = [r for r in scope if r[0] == m]
        known = [r for r in got if r[2] is not None]
        stats[m] = (len(got), sum(prefix in r[1] for r in got), len(known), sum(prefix in r[2] for r in known))
    counted = [m for m in months if stats[m][0] >= MONTH_MIN]

    def committed(m):
        n, posted_n, k, c = stats[m]
        return c / k if k else posted_n / n

    def holds(i, test):
        return all(test(m) for m in counted[i:])
    since = next((m for i, m in enumerate(counted) if holds(i, lambda m: committed(m) >= PREFIX_HELD
                                                               and stats[m][1] / stats[m][0] >= PREFIX_POSTED)), None)
    if since is None:
        lp.left_out.append(f"a required prefix: '{prefix}' never held in {PREFIX_HELD:.0%} of the commits and "
                           f"{PREFIX_POSTED:.0%} of the postings through the end of the archive "
                           + _monthly(stats, counted))
        return
    noted = next((m for i, m in enumerate(counted) if holds(i, lambda m: committed(m) >= PREFIX_NOTED)), None)
    entry = {"prefix": _written(prefix, project), "since": _first_day(since)}
    if noted is not None and noted < since:
        entry["noted_since"] = _first_day(noted)
    after = [r for r in scope if r[0] >= since]
    first = " (the archive's first month: it may be older)" if since == months[0] else ""
    why = (f"{share(sum(prefix in r[1] for r in after), len(after))} applied patches since {since} start with "
           f"'{prefix}' as posted, {_commits(after, prefix)}; it took hold in {since}{first}")
    if "noted_since" in entry:
        why += f"; from {noted} the maintainers added it when applying"
    why += "; month by month " + _monthly(stats, counted)
    if exempt:
        entry["exempt"] = exempt
        why += f"; not on {', '.join(exempt)} patches"
    if paths != lp.paths:
        entry["paths"] = paths
    if others:
        why += f"; never on {', '.join(others)}"
    if unknown:
        why += f"; not known on {', '.join(unknown)} (no applied patch names its commit there)"
    entry["source"] = why
    lp.required_prefixes.append(entry)


def _written(prefix: str, project: Project) -> str:
    """The prefix as posters write it (`Bluetooth:`): the rule compares it in any case."""
    forms = Counter(word for p in project.postings for m in p.patches
                    for word in _summary(m.subject).split()[:1] if word.lower() == prefix)
    return forms.most_common(1)[0][0] if forms else prefix


def _commits(rows, prefix) -> str:
    known = [r for r in rows if r[2] is not None]
    return f"{share(sum(prefix in r[2] for r in known), len(known))} as committed" if known else "commits not named"


def _monthly(stats, counted) -> str:
    return "(" + ", ".join(f"{m}: {s[1]}/{s[0]} posted" + (f", {s[3]}/{s[2]} committed" if s[2] else "")
                           for m in counted for s in [stats[m]]) + ")"


def _first_day(m: str):
    from datetime import date

    y, mo = m.split("-")
    return date(int(y), int(mo), 1)


def learn_merge_window(lp: LearnedProfile, project: Project) -> None:
    """Whether a development tree takes patches posted in the merge window (queued for after -rc1)."""
    from ..context.calendar import load_calendar

    calendar, _ = load_calendar(None)
    for tree in lp.trees:
        if tree["kind"] != "development":
            continue
        seen = next(t for t in project.trees if t.name == tree["_seen"])
        feeders = [s for s, _ in project.subtrees if project.fed(s) is seen]
        postings = [p for t in [seen, *feeders] for p in t.postings if p.date is not None]
        states = [(p, calendar.state_at(datetime.fromtimestamp(p.date, timezone.utc))) for p in postings]
        windows = [(p, s) for p, s in states if s.status == "closed"]
        versions = sorted({s.window_version for _, s in windows if s.window_version})
        key = f"trees.{tree['name']}.closed_in_merge_window"
        if len(windows) >= 3:
            tree["closed_in_merge_window"] = False
            lp.note(key, f"{len(windows)} of {len(postings)} applied postings were posted in the merge window "
                         f"(of {', '.join('v' + v for v in versions)}) and applied: it queues them")
        elif len(postings) >= MIN_POSTINGS and sum(1 for _, s in states if s.status != "closed") >= MIN_POSTINGS \
                and _windows_in(calendar, postings) and not windows:
            tree["closed_in_merge_window"] = True
            lp.note(key, f"none of {len(postings)} applied postings was posted in a merge window the archive spans")
        else:
            lp.left_out.append(f"whether {tree['name']} takes patches in the merge window: "
                               f"{len(windows)} applied postings posted in one")


def _windows_in(calendar, postings: list[Posting]) -> bool:
    dates = sorted(p.date for p in postings if p.date is not None)
    if not dates:
        return False
    first = datetime.fromtimestamp(dates[0], timezone.utc)
    last = datetime.fromtimestamp(dates[-1], timezone.utc)
    return any(b.kind == "release" and first <= b.earliest <= last for b in calendar.boundaries)


def learn_appliers(lp: LearnedProfile, project: Project) -> None:
    by: Counter = Counter(a.action.by.email for p in project.postings for a in p.applied.values())
    if not by:
        return
    lp.appliers = sorted(by, key=lambda a: (-by[a], a))
    lp.note("replies.appliers", f"who applied the {sum(by.values()):,} applied patches: {top(dict(by), 5)}")


def from_headers(project: Project, plan: TreePlan, archive: Archive, name: str,
                 posted: list[Posting] = ()) -> LearnedProfile:
    """`posted`: the archive's postings that belong to this project (by tag or layout), applied or not."""
    lp = LearnedProfile(name=name)
    learn_trees_into(lp, project, plan)
    learn_paths(lp, project, list(posted))
    learn_tags(lp, project)
    learn_prefixes(lp, project)
    learn_merge_window(lp, project)
    learn_appliers(lp, project)
    applied = [p for p in project.postings if p.applied]
    lp.postings = len(applied)
    trees = ", ".join(t["name"] for t in lp.trees)
    lp.description = (f"learned from {len(applied):,} applied postings ({span(p.date for p in applied)}): "
                      f"{trees}" + (f"; sub-trees {', '.join(s['name'] for s in lp.subtrees)}" if lp.subtrees else ""))
    lp.settings = dict(shipped_profiles()["generic"].settings)
    return lp


# --- the second pass: what the reviews of the applied postings show --------------------------------

def learn_lists(lp: LearnedProfile, facts: list[Facts], senders: frozenset[str]) -> None:
    n = len(facts)
    counts = Counter(a for f in facts for a in set(f.recipients))
    lists = [a for a, c in counts.most_common() if c * 2 > n and a not in senders]
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
        if t >= MIN_PATCHES and c >= 0.8 * t:
            lp.settings["cover_letter_min"] = n
            lp.note("settings.cover_letter_min", f"{share(c, t)} applied series of {n} or more patches had a "
                                                 "cover letter")
            break


def learn_fixes_on_fixes(lp: LearnedProfile, facts: list[Facts], project: Project, postings: dict[int, Posting]) -> None:
    patches = [pf for f in facts if (t := project.main_tree(postings[f.key])) is not None and t.kind == "fixes"
               for pf in f.patches if pf.kind not in ("test", "docs")]
    if len(patches) < MIN_PATCHES:
        lp.left_out.append(f"Fixes use on fixes: {len(patches)} code patches applied to a fixes tree, "
                           f"fewer than {MIN_PATCHES}")
        return
    with_tag = sum(pf.fixes for pf in patches)
    why = f"{share(with_tag, len(patches))} code patches applied to a fixes tree carry a Fixes tag"
    lp.settings["fix_tree_requires_fixes"] = with_tag >= 0.9 * len(patches)
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
