"""Projects a list carries that no maintainer's reply names: one tree each, known by the subject
tag of its postings.

netfilter-devel carries the kernel's netfilter trees and the netfilter.org projects (nftables,
iptables, libnftnl, libmnl, ...). Their maintainers answer a user-space posting with a plain
"Applied, thanks": no reply names the tree, but the posting's tag does (`[nft PATCH]`, `[PATCH
iptables]`). A tag carried by postings the list's appliers applied, whose replies name no tree,
and whose files are not in the kernel's layout, is such a project: a single development tree (no
fixes/development pair; the kernel's merge window is not its release cycle), chosen by its tag
alone. Its name is the one a shipped profile gives that tag (`nft` is netfilter-userspace's
nftables), else the tag as posters write it. A tag whose applied postings lie in the kernel's
layout is a kernel tree whose kind nothing tells: left out, and said.

A project with fewer applied postings than a habit needs (MIN_POSTINGS) shares one profile with
the other such projects, a tree each; its habits (sign-offs, severities) are then learned from
every tag-chosen project of the list together (run.py), which its header says.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..context.profiles.load import shipped_profiles
from ..mail.subject import parse_subject
from .archive import Posting
from .counts import share, span, top
from .learned_profile import LearnedProfile
from .paths import _path_key, kernel_layout
from .projects import Project, SeenTree, tree_names, tree_tags
from .trees import TreePlan, applied_files, home_of

MIN_POSTINGS = 20  # as conventions.py: fewer applied postings back no habit of their own
POOL = "other-projects"  # the stem of the profile the small tag-chosen projects share
# What a single tree cannot have: another tree to send a patch to, or the kernel's merge window.
PAIR_RULES = ("tree-mismatch", "fix-for-next-only-code", "split-series", "net-next-closed")
TAG_FIRST_SHARE, TAG_FIRST_MIN = 0.5, 5
_TAG_RE = re.compile(r"[a-z0-9][a-z0-9._+-]{0,39}")  # a tag that may name a tree (`libnetfilter_queue`)  # postings writing [TAG PATCH] that make it the project's form


def _shipped(tag: str) -> tuple[str, str | None, str] | None:
    """(tree, its git, the profile) of a shipped profile's tree that the tag names (`nft`: nftables)."""
    for prof in shipped_profiles().values():
        for t in prof.trees:
            if t.name.lower() == tag or tag in (x.lower() for x in t.tags):
                return t.name, t.git, prof.name
    return None


def _known(plan: TreePlan) -> set[str]:
    return {n for pr in plan.projects for n in tree_names(pr)}


def tagged_projects(plan: TreePlan) -> tuple[list[Project], list[str]]:
    """The projects known by the tags of applied postings whose replies name no tree, and what
    was left out, said. The small ones (fewer than MIN_POSTINGS applied postings) are one project."""
    known = _known(plan)
    by_tag: dict[str, list[Posting]] = defaultdict(list)
    for p in plan.untreed:
        tags = [t.lower() for t in tree_tags(p)]
        if tags and not set(tags) & known:
            by_tag[tags[0]].append(p)
    found: list[Project] = []
    notes: list[str] = []
    for tag in sorted(by_tag, key=lambda t: (-len(by_tag[t]), t)):
        ps = by_tag[tag]
        if not _TAG_RE.fullmatch(tag):
            notes.append(f"the tag [{tag[:40]}]: {len(ps)} applied postings, but it has no tree's shape "
                         "(letters, digits, . _ + -)")
            continue
        keys = [k for p in ps for c in p.applied for f in p.files.get(c, ()) if (k := _path_key(f))]
        if not keys:
            notes.append(f"the tag [{tag}]: {len(ps)} applied postings that no reply names a tree for, "
                         "touching no file a project owns")
            continue
        if kernel_layout(keys):
            notes.append(f"the tag [{tag}]: {len(ps)} applied postings that no reply names a tree for, in the "
                         "kernel's layout: a kernel tree whose kind nothing in the archive tells")
            continue
        found.append(_project(tag, ps))
    small = [pr for pr in found if len(pr.postings) < MIN_POSTINGS]
    if len(small) > 1:
        found = [pr for pr in found if pr not in small]
        found.append(Project(POOL, [t for pr in small for t in pr.trees],
                             home=home_of(applied_files([p for pr in small for p in pr.postings])), by_tag=True))
    return found, notes


def _project(tag: str, ps: list[Posting]) -> Project:
    written = Counter(t for p in ps for t in tree_tags(p) if t.lower() == tag).most_common(1)[0][0]
    shipped = _shipped(tag)
    name, git = (shipped[0], shipped[1] or "") if shipped else (written, "")
    tree = SeenTree(name, name.lower(), git, name.lower(), False)
    tree.tags = [tag] if tag != name.lower() else []
    tree.postings = list(ps)
    tree.appliers = Counter(a.action.by.email for p in ps for a in p.applied.values())
    tree.kind = "development"
    tree.kind_why = "its project's only tree (no fixes/development pair)"
    if shipped:
        tree.kind_why += f"; [{written}] is {name} in the shipped {shipped[2]} profile"
    return Project(name.lower(), [tree], home=home_of(applied_files(ps)), by_tag=True)


def tagged_evidence(t: SeenTree) -> str:
    tags = ", ".join(f"[{x}]" for x in (t.tags or [t.name]))
    return (f"{len(t.postings)} applied posting{'s' if len(t.postings) != 1 else ''} ({span(p.date for p in t.postings)}) "
            f"tagged {tags} whose replies name no tree, by {top(dict(t.appliers), 2)}; their files are not the "
            f"kernel's layout: a project of its own; {t.kind}: {t.kind_why}")


def single_tree_rules(lp: LearnedProfile, project: Project) -> None:
    """A project of its own beside the kernel's (known by its tag, or its files not in the
    kernel's layout, with no fixes/development pair) has one tree: the rules that route between a
    pair, or close a tree for the kernel's merge window, have nothing to say."""
    if project.by_tag:
        lp.select_by_files = False
        tags = ", ".join(f"[{n}]" for n in sorted(tree_names(project)))
        lp.note("select_by_files", f"chosen by its subject tag ({tags}) alone: no reply names its tree")
    for rule in PAIR_RULES:
        if rule not in lp.disable:
            lp.disable.append(rule)
            why = ("the kernel's merge window is not its release cycle: its files are not the kernel's layout"
                   if rule == "net-next-closed" else
                   "one tree for each project, no fixes/development pair" if project.by_tag else
                   "its one tree has no fixes/development pair")
            lp.note(f"rules.disable.{rule}", why)


def learn_tag_order(lp: LearnedProfile, project: Project, posted: list[Posting]) -> None:
    """`[nft PATCH]` as well as `[PATCH nft]`: the project's own form, when half of its postings
    write the tag before PATCH (subject-format then says nothing of the order)."""
    names = tree_names(project)
    tagged = [p for p in posted if any(t.lower() in names for t in tree_tags(p))]
    first = sum(1 for p in tagged if any("placed before PATCH" in x for x in parse_subject(p.subject).problems))
    if first >= TAG_FIRST_MIN and first >= TAG_FIRST_SHARE * len(tagged):
        lp.settings["tag_before_patch"] = True
        lp.note("settings.tag_before_patch", f"{share(first, len(tagged))} of its tagged postings write the tag "
                                             "before PATCH ([TAG PATCH]): a form of its own")
