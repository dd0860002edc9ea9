"""A project's conventions, learned from the postings its maintainers applied: the first pass.

Each learner adds to a LearnedProfile the settings it can back, with the counts behind them, and
says what it left out. This pass (`from_headers`) needs only the archive's headers, the replies
and the files each patch touches: the trees, paths (paths.py), tree tags and aliases, where
untagged patches go, required prefixes (prefixes.py), the merge window and the appliers. The
second (habits.py, severities.py) reads the reviews of facts.py.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone

from ..context.profiles.parts import UNTAGGED_SIGNALS
from ..context.profiles.load import shipped_profiles
from .archive import Archive, Posting
from .counts import share, span, top
from .learned_profile import LearnedProfile
from .paths import learn_paths
from .prefixes import learn_prefixes
from .queues import learn_queues
from .tagged import learn_tag_order, single_tree_rules, tagged_evidence
from .projects import Project, SeenTree, tree_names, tree_tags
from .trees import TreePlan, tree_evidence

MIN_POSTINGS = 20  # a share of fewer applied postings backs no convention
ALIAS_MIN = 2
ALIAS_SHARE = 0.8
UNTAGGED_SHARE = 0.5
WINDOW_MIN = 3  # applied postings sent in a merge window that show the tree takes them

def learn_tags(lp: LearnedProfile, project: Project) -> None:
    """Tree names as posters write them, the aliases they use, and where untagged postings go."""
    postings = [p for p in project.postings if p.applied]
    names = tree_names(project)
    written: dict[str, Counter] = defaultdict(Counter)
    alias_votes: dict[str, Counter] = defaultdict(Counter)
    untagged: list[Posting] = []
    for p in postings:
        main = project.main_tree(p)
        tags = tree_tags(p)
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
    untagged = [p for p in postings if not any(t.lower() in names or t.lower() in aliases for t in tree_tags(p))]
    lp.untagged_postings = untagged
    if project.by_tag:
        return  # every posting it holds carries its tag
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
        entry = {"name": t.name, "kind": t.kind, "git": t.git or None, "_seen": t.name,
                 "source": tagged_evidence(t) if project.by_tag else tree_evidence(t)}
        if t.tags:
            entry["tags"] = list(t.tags)
        if pair:
            entry["pair"] = pair
        lp.trees.append(entry)
    for s, home in project.subtrees:
        fed = project.fed(s)
        entry = {"name": s.name, "feeds": fed.name, "git": s.git, "paths": [home],
                 "source": tree_evidence(s) + f"; its patches' files lie under {home}"}
        _subtree_habits(lp, entry, s)
        lp.subtrees.append(entry)
    if project is plan.projects[0]:  # what the list's trees left out is said once, in its own profile
        lp.left_out += plan.notes


def _subtree_habits(lp: LearnedProfile, entry: dict, s: SeenTree) -> None:
    """What a sub-tree's postings show of it: the tags they carry, and whether it took postings
    sent in a merge window (a queue keeps taking them while the tree it feeds is closed)."""
    from ..context.calendar import load_calendar

    tags = Counter(next(iter(tree_tags(p)), "").lower() for p in s.postings)
    if tags:
        entry["source"] += "; its postings are tagged " + ", ".join(
            f"[{t}] {n}" if t else f"with no tree {n}" for t, n in tags.most_common(4))
    calendar, _ = load_calendar(None)
    dated = [p for p in s.postings if p.date is not None]
    windows = [p for p in dated if calendar.state_at(datetime.fromtimestamp(p.date, timezone.utc)).status == "closed"]
    if len(windows) >= WINDOW_MIN:
        entry["closed_in_merge_window"] = False
        lp.note(f"subtrees.{s.name}.closed_in_merge_window", f"{len(windows)} of {len(dated)} applied postings were "
                                                               "posted in a merge window and applied: it queues them")


def learn_merge_window(lp: LearnedProfile, project: Project) -> None:
    """Whether a development tree takes patches posted in the merge window (queued for after -rc1)."""
    from ..context.calendar import load_calendar

    calendar, _ = load_calendar(None)
    for tree in lp.trees:
        if tree["kind"] != "development":
            continue
        seen = next(t for t in project.trees if t.name == tree["_seen"])
        # a queue the build robot shows (Intel's) keeps its own policy: its postings are not the tree's
        feeders = [s for s, _ in project.subtrees if project.fed(s) is seen and not s.robot]
        postings = [p for t in [seen, *feeders] for p in t.postings if p.date is not None]
        states = [(p, calendar.state_at(datetime.fromtimestamp(p.date, timezone.utc))) for p in postings]
        windows = [(p, s) for p, s in states if s.status == "closed"]
        versions = sorted({s.window_version for _, s in windows if s.window_version})
        key = f"trees.{tree['name']}.closed_in_merge_window"
        if len(windows) >= WINDOW_MIN:
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


def learn_appliers(lp: LearnedProfile, project: Project, posted: list[Posting] = ()) -> None:
    """Who applied the project's postings; and who sent them back whom MAINTAINERS names (the
    shipped profiles' data): a queue's maintainer who takes patches without a word on the list
    (Intel's) but answers "This doesn't apply." A stranger's words make nobody an applier."""
    from ..context.replies.settled import shipped_appliers

    by: Counter = Counter(a.action.by.email for p in project.postings for a in p.applied.values()
                          if a.action.by.email)  # a build robot's report names nobody
    known = shipped_appliers()
    back: Counter = Counter(a.by.email for p in (posted or project.postings) for a in p.sent_back
                            if a.by.email in known and a.by.email not in by)
    if not by and not back:
        return
    lp.appliers = sorted(by, key=lambda a: (-by[a], a)) + sorted(back, key=lambda a: (-back[a], a))
    why = f"who applied the {sum(by.values()):,} applied patches: {top(dict(by), 5)}" if by else ""
    if back:
        why += ("; " if why else "") + (f"who sent {sum(back.values()):,} postings back, named by MAINTAINERS "
                                        f"(the shipped profiles): {top(dict(back), 5)}")
    lp.note("replies.appliers", why)


def from_headers(project: Project, plan: TreePlan, archive: Archive, name: str,
                 posted: list[Posting] = ()) -> LearnedProfile:
    """`posted`: the archive's postings that belong to this project (by tag or layout), applied or not."""
    lp = LearnedProfile(name=name)
    learn_trees_into(lp, project, plan)
    learn_paths(lp, project, list(posted), archive.own_list)
    learn_tags(lp, project)
    if project is plan.projects[0]:
        # the list's own queues feed its main project; another project's trees are no queue
        learn_queues(lp, archive, {n for pr in plan.projects for n in tree_names(pr)})
    learn_prefixes(lp, project)
    # a project of its own beside the kernel's (nftables, BlueZ): one tree, its own release cycle
    alone = project.by_tag or (not lp.select_by_files and not any(t.get("pair") for t in lp.trees))
    if not alone:
        learn_merge_window(lp, project)
    learn_appliers(lp, project, list(posted))
    applied = [p for p in project.postings if p.applied]
    lp.postings = len(applied)
    trees = ", ".join(t["name"] for t in lp.trees)
    lp.description = (f"learned from {len(applied):,} applied postings ({span(p.date for p in applied)}): "
                      f"{trees}" + (f"; sub-trees {', '.join(s['name'] for s in lp.subtrees)}" if lp.subtrees else ""))
    lp.settings = dict(shipped_profiles()["generic"].settings)
    if alone:
        single_tree_rules(lp, project)
    learn_tag_order(lp, project, list(posted))
    return lp
