"""Queues the list's posters name in the subject, learned as sub-trees of the trees they feed.

intel-wired-lan's postings are tagged `[PATCH iwl-next]` and `[PATCH iwl-net]` (the Intel
maintainers' queues), and no reply on the list names those trees: the queue's maintainer posts
the patches again to netdev, where the bot answers. A tag that no learned tree, sub-tree or alias
takes, carried by many of the list's postings, is such a queue when its kind can be told: from
the tree its name ends in (`iwl-net`: net's, fixes) or its name's words (`-next`: development).
Not from its Fixes tags: the archive reads those only for postings a reply settled, and no reply
settles a queue's. It feeds the profile's tree of that kind, and takes the files its postings
touch (their home).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .archive import Archive
from .counts import share
from .learned_profile import LearnedProfile
from .projects import Project, SeenTree, tree_names, tree_tags
from .trees import TreePlan, applied_files, home_of, kind_words

_TOKENS_RE = re.compile(r"[-_/]")

QUEUE_MIN = 10  # postings a tag needs
QUEUE_SHARE = 0.1  # of the list's postings


def learn_queues(lp: LearnedProfile, archive: Archive, elsewhere: set[str] = frozenset()) -> None:
    """`elsewhere`: the trees other profiles learned from the same archive take (lower case)."""
    known = ({t["name"].lower() for t in lp.trees} | {s["name"].lower() for s in lp.subtrees}
             | {a.lower() for a in lp.tree_aliases} | set(elsewhere))
    count: Counter = Counter()
    files: dict[str, Counter] = defaultdict(Counter)
    for p in archive.postings:
        if not p.patches:
            continue
        for t in {t.lower() for t in p.tags} - known:
            count[t] += 1
            files[t].update(f for fs in p.files.values() for f in fs)
    least = max(QUEUE_MIN, QUEUE_SHARE * len(archive.postings))
    for t in [t for t, n in count.most_common() if n >= least]:
        named = [tr for tr in lp.trees if t.endswith("-" + tr["name"].lower()) and tr.get("kind")]
        if named:  # "iwl-net": the queue named after the tree it feeds
            kind, why = named[0]["kind"], f"its name ends in {named[0]['name']}'s"
        else:
            kind = kind_words(t)
            why = f"its name says {'new work' if kind == 'development' else 'fixes'}"
        fed = [tr["name"] for tr in lp.trees if tr.get("kind") == kind] if kind else []
        if len(fed) != 1:
            lp.left_out.append(f"the tag [{t}] ({count[t]} postings): "
                               + ("no tree of its kind to feed" if kind else "its kind cannot be told"))
            continue
        home = home_of(files[t])
        lp.subtrees.append({"name": t, "feeds": fed[0], "git": None, "paths": [home] if home else [],
                            "source": f"{share(count[t], len(archive.postings))} postings are tagged [{t}], a tree no "
                                      f"reply names: a queue that feeds {fed[0]} ({kind}: {why})"})


def _host(projects: list[Project], home: str) -> Project:
    """The project whose home holds `home` most narrowly, else the list's own."""
    inside = [pr for pr in projects if home.startswith(pr.home)]
    return max(inside, key=lambda pr: len(pr.home)) if inside else projects[0]


def _robot_kind(t: SeenTree, host: Project) -> str | None:
    k = kind_words(t.name) or kind_words(t.repo)
    if k:
        t.kind_why = f"'{t.name if kind_words(t.name) else t.repo}' says {'new work' if k == 'development' else 'fixes'}"
        return k
    tokens = set(_TOKENS_RE.split(t.name.lower())) | set(_TOKENS_RE.split(t.repo.lower()))
    named = [tr for tr in host.trees if tr.kind and tr.name.lower() in tokens]
    if len(named) == 1:
        t.kind_why = f"its name names {named[0].name}, a {named[0].kind} tree"
        return named[0].kind
    return None


def robot_subtrees(plan: TreePlan) -> None:
    """The queues a build robot's reports show postings applied to (learn/robot.py: Intel's
    tnguy/net-queue.git and next-queue.git), as sub-trees of the project whose files their postings
    touch, feeding its tree of their kind: named as most of their postings are tagged ([iwl-net])
    when no other tree takes that name, else as the repository; their kind from the words of
    either name, else the project tree one of them names (iwl-net: net), else which of the queues'
    patches carry more Fixes tags. A queue whose kind cannot be told is left out, said."""
    if not plan.projects or not plan.robot:
        return
    known = {n for pr in plan.projects for n in tree_names(pr)}
    gits = {t.git for pr in plan.projects for t in pr.trees + [s for s, _ in pr.subtrees]}
    made: list[tuple[SeenTree, str, Project]] = []
    for repo, ps in sorted(plan.robot.items()):
        if f"{repo}.git" in gits or repo in known:
            # a tree the replies name: its branches the robot builds are its maintainers' work in
            # progress (mld-wip), not what the tree took
            plan.notes.append(f"not counted: {len(ps)} postings the build robot shows at the head of a branch of "
                              f"{repo}.git, a tree the replies name")
            continue
        tags = Counter(t.lower() for p in ps for t in tree_tags(p)[:1])
        tag, n = tags.most_common(1)[0] if tags else ("", 0)
        name = tag if 2 * n > len(ps) and tag not in known else repo
        known.add(name)
        t = SeenTree(name, repo, f"{repo}.git", repo, False)
        t.postings = list(ps)
        for p in ps:
            t.robot[Counter(a.action.branch for a in p.applied.values()).most_common(1)[0][0] or "?"] += 1
        home = home_of(applied_files(ps))
        host = _host(plan.projects, home)
        t.kind = _robot_kind(t, host)
        made.append((t, home, host))
    for t, home, host in made:
        if t.kind is None:
            rate = t.with_fixes / t.patches if t.patches else 0.0
            others = [o for o, _, h in made if h is host and o is not t and o.kind and o.patches]
            if others and t.patches >= 5:
                o = others[0]
                t.kind = "fixes" if rate > o.with_fixes / o.patches else "development"
                t.kind_why = (f"{share(t.with_fixes, t.patches)} of its patches carry a Fixes tag, "
                              f"{share(o.with_fixes, o.patches)} of {o.name}'s")
        if t.kind is None:
            plan.notes.append(f"left out the queue {t.git}: its kind cannot be told ({len(t.postings)} postings "
                              "the build robot shows applied)")
            continue
        if not home:
            plan.notes.append(f"left out the queue {t.git}: its {len(t.postings)} postings lie in no one directory")
            continue
        host.subtrees.append((t, home))
