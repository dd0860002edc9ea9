"""The trees a list's maintainers apply to, learned from their replies: names, kinds, pairs, the
sub-trees that feed them, and the projects a list carries.

- A tree is what an "applied" reply names ("wireless-next.git", "ath-next branch of ath.git",
  "bluetooth/bluez.git (master)"); a posting goes to the tree most of its replies name.
- A tree that takes the pull requests of another is upstream (netdev/net.git pulls
  wireless.git): it is another list's, and what it applied teaches nothing about this one.
- Trees form families: the branches of one repository (ath.git's ath-next and ath-current), or one
  name with and without a kind word (wireless, wireless-next). A family's home is the deepest
  directory holding nine tenths of the files its applied patches touch.
- Families with the shallowest homes are projects; a family whose home lies where a project's
  patches go (drivers/net/wireless/ath/ under drivers/net/wireless/) is a set of sub-trees
  feeding it; any other family is a project of its own (BlueZ beside the kernel's Bluetooth trees).
- A tree's kind comes from the words of its name (next, fixes, current), else its pair (the
  plain name beside a -next one takes fixes), else its Fixes tags (the tree whose patches carry
  more of them), else it is its project's only tree (development: it takes everything).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .archive import Archive, Posting, PullRequest
from .counts import share, span, table, top
from .paths import home_of, kernel_layout, project_paths
from .projects import Project, SeenTree, tree_names, tree_tags

UNDER_SHARE = 0.05  # a project's files under a family's parent directory that make it a sub-tree family
_SPLIT_RE = re.compile(r"[-_/]")


def kind_words(name: str) -> str | None:
    tokens = set(_SPLIT_RE.split(name.lower()))
    words = table()["kinds"]
    if tokens & set(words["development"]) or name.lower().endswith("next"):
        return "development"
    if tokens & set(words["fixes"]):
        return "fixes"
    return None


def stem(name: str) -> str:
    """A repository's name without its kind words: wireless-next -> wireless, iwlwifi-fixes -> iwlwifi."""
    words = table()["kinds"]
    kind = set(words["development"]) | set(words["fixes"])
    parts = [p for p in _SPLIT_RE.split(name.lower()) if p and p not in kind]
    return "-".join(parts) or name.lower()


@dataclass
class TreePlan:
    projects: list[Project]
    upstream: dict[str, SeenTree]  # trees left out: they pull this list's trees
    untreed: list[Posting]  # applied, but no reply named the tree
    notes: list[str]
    robot: dict[str, list[Posting]] = field(default_factory=dict)  # queue -> postings its robot shows applied

    def project_of(self, p: Posting) -> Project | None:
        return next((pr for pr in self.projects if p in pr.postings), None)


def _tree_id(action) -> tuple[str, str, str, bool] | None:
    """(name, repo, git, branch_of) of the tree a reply names, or None when it names none."""
    repo, branch = (action.repo or "").lower(), (action.branch or "").lower()
    if not repo or repo in ("the", "my", "this"):
        return None
    branch_of = bool(action.tree_words and " branch of " in action.tree_words)
    if branch and branch not in ("master", "main") and (branch_of or repo in branch):
        name = branch
    elif branch and branch not in ("master", "main"):
        name = f"{repo}/{branch}"
    else:
        name = repo
    return name, repo, f"{repo}.git", branch_of


def _seen(archive: Archive) -> tuple[dict[str, SeenTree], list[Posting], dict[str, list[Posting]]]:
    trees: dict[str, SeenTree] = {}
    untreed = []
    robot: dict[str, list[Posting]] = {}  # queue repository -> postings only the build robot shows applied
    for p in archive.postings:
        if not p.applied:
            continue
        ids = Counter(i for a in p.applied.values() if a.action.form != "build-robot"
                      and (i := _tree_id(a.action)) is not None)
        if not ids and all(a.action.form == "build-robot" for a in p.applied.values()):
            robot.setdefault(next(iter(p.applied.values())).action.repo or "", []).append(p)
            continue
        if not ids:
            untreed.append(p)
            continue
        (name, repo, git, branch_of), _ = ids.most_common(1)[0]
        t = trees.get(name) or trees.setdefault(name, SeenTree(name, repo, git, repo if branch_of else stem(repo),
                                                               branch_of))
        t.postings.append(p)
        for a in p.applied.values():
            if a.action.tree_words and _tree_id(a.action) == (name, repo, git, branch_of):
                t.words[a.action.tree_words] += 1
            t.appliers[a.action.by.email] += 1
    return trees, untreed, robot


def _pull_base(pr: PullRequest) -> str:
    base = pr.url.rstrip("/").rsplit("/", 1)[-1].lower()
    return base if base.endswith(".git") else base + ".git"


def _pull_source(pr: PullRequest, trees: dict[str, SeenTree]) -> SeenTree | None:
    base = _pull_base(pr)
    return next((t for t in trees.values() if t.git == base and not t.branch_of), None)


def _upstream(trees: dict[str, SeenTree], pulls: list[PullRequest]) -> dict[str, SeenTree]:
    """The trees that took pull requests of another of the archive's trees (netdev/net.git takes
    nf.git's). A repository whose pull requests an upstream tree took, of a family a reply names
    (nf-next.git beside nf), is a tree even when no reply names it (netfilter's maintainers apply
    to nf-next without a word some months): it has no posting of its own, only what it sent."""
    from ..mail.replies import tree_parts

    out = {}
    for pr in pulls:
        if pr.applied_to is None:
            continue
        repo, branch = tree_parts(pr.applied_to)
        target = next((t for t in trees.values() if t.repo == (repo or "").lower()), None)
        src = _pull_source(pr, trees)
        base = _pull_base(pr).removesuffix(".git")
        if src is None and target is not None and base not in trees and base != target.repo and any(
                t.family == stem(base) and t.words for t in trees.values()):
            src = trees[base] = SeenTree(base, base, base + ".git", stem(base), False)
        if src is not None and target is not None and target is not src:
            target.pulled[src.name] += 1
            src.sent[target.name] += 1
            out[target.name] = target
    return out


def _upstream_kinds(upstream: dict[str, SeenTree]) -> None:
    families: dict[str, list[SeenTree]] = {}
    for t in upstream.values():
        families.setdefault(t.family, []).append(t)
    for fam in families.values():
        _kinds(fam, alone=False)


def _fed_kind(t: SeenTree, upstream: dict[str, SeenTree]) -> tuple[str, str] | None:
    """The kind of the upstream trees a tree's pull requests went to, when they agree (nf.git's
    went to net: fixes)."""
    kinds = {upstream[u].kind for u in t.sent if u in upstream}
    if len(kinds) != 1 or None in kinds:
        return None
    kind = kinds.pop()
    where = ", ".join(f"{u} ({n})" for u, n in t.sent.most_common())
    return kind, f"its pull requests went to {where}, a {kind} tree"


def applied_files(postings: list[Posting]) -> Counter:
    c: Counter = Counter()
    for p in postings:
        for counter in p.applied or p.files:
            for f in p.files.get(counter, ()):
                c[f] += 1
    return c


def _under(files: Counter, prefix: str) -> float:
    total = sum(files.values())
    return sum(n for f, n in files.items() if f.startswith(prefix)) / total if total else 0.0


def _parent(home: str) -> str:
    parts = home.rstrip("/").split("/")
    return "/".join(parts[:-1]) + "/" if len(parts) > 1 else ""


def release_phases(t: SeenTree) -> Counter:
    """How many of the tree's postings named a release ([PATCH 6.0], [PATCH v6.1]) that was, when
    they were sent, in progress ("current": the fixes tree's) or not yet begun ("next")."""
    from datetime import datetime, timezone

    from ..context.calendar import load_calendar
    from ..context.classify.reading import _RELEASE_TAG_RE  # the classifier's reading of a release tag

    calendar, _ = load_calendar(None)
    out: Counter = Counter()
    for p in t.postings:
        m = next((m for tag in p.tags if (m := _RELEASE_TAG_RE.match(tag))), None)
        if m is not None and p.date is not None:
            phase = calendar.release_phase(f"{int(m.group(1))}.{int(m.group(2))}",
                                           datetime.fromtimestamp(p.date, timezone.utc))
            if phase in ("current", "next"):
                out[phase] += 1
    return out


def _by_release(t: SeenTree) -> str | None:
    phases = release_phases(t)
    cur, nxt = phases["current"], phases["next"]
    if max(cur, nxt) >= 2 and cur != nxt:
        return "fixes" if cur > nxt else "development"
    return None


def _release_words(t: SeenTree) -> str:
    phases = release_phases(t)
    parts = [f"{phases['current']} named the release in progress" if phases["current"] else "",
             f"{phases['next']} a release not yet begun" if phases["next"] else ""]
    return "; of its postings " + " and ".join(x for x in parts if x) if any(parts) else ""


def _kinds(fam: list[SeenTree], alone: bool, upstream: dict[str, SeenTree] | None = None) -> None:
    for t in fam:
        k = kind_words(t.name)
        if k:
            t.kind, t.kind_why = k, f"'{t.name}' says {'new work' if k == 'development' else 'fixes'}"
        elif upstream and (fed := _fed_kind(t, upstream)) is not None:
            t.kind, t.kind_why = fed
    for t in fam:
        if t.kind:
            continue
        nexts = [o for o in fam if o is not t and o.kind == "development" and stem(o.name) == stem(t.name)]
        if nexts:
            t.kind, t.kind_why = "fixes", f"the pair of {nexts[0].name}"
        elif (k := _by_release(t)) is not None:
            t.kind, t.kind_why = k, "the releases its postings named, by the release calendar"
    for t in fam:
        t.kind_why += _release_words(t)
    unknown = [t for t in fam if not t.kind]
    known = [t for t in fam if t.kind]
    for t in unknown:
        rate = t.with_fixes / t.patches if t.patches else 0.0
        others = [(o.with_fixes / o.patches, o) for o in known if o.patches]
        if others and t.patches >= 5:
            r, o = others[0]
            t.kind = "fixes" if rate > r else "development"
            t.kind_why = (f"{share(t.with_fixes, t.patches)} of its patches carry a Fixes tag, "
                          f"{share(o.with_fixes, o.patches)} of {o.name}'s")
        elif alone and len(fam) == 1:
            t.kind, t.kind_why = "development", "its project's only tree: it takes everything"


def learn_trees(archive: Archive) -> TreePlan:
    trees, untreed, robot = _seen(archive)
    upstream = _upstream(trees, archive.pulls)
    notes = [f"left out {u.name}: it pulls {', '.join(sorted(u.pulled))} (another list's tree; "
             f"{len(u.postings)} applied posting{'s' if len(u.postings) != 1 else ''} there not learned from)"
             for u in upstream.values()]
    _upstream_kinds(upstream)
    own = {k: t for k, t in trees.items() if k not in upstream}
    families: dict[str, list[SeenTree]] = {}
    for t in own.values():
        families.setdefault(t.family, []).append(t)
    homes = {f: home_of(applied_files([p for t in fam for p in t.postings])) for f, fam in families.items()}
    order = sorted(families, key=lambda f: (homes[f].count("/"), -sum(len(t.postings) for t in families[f]), f))
    projects: list[Project] = []
    for f in order:
        fam = sorted(families[f], key=lambda t: (-len(t.postings), t.name))
        home = homes[f]
        host = next((pr for pr in projects if home.count("/") >= 2 and home.count("/") > pr.home.count("/")
                     and _under(applied_files(pr.postings), _parent(home)) >= UNDER_SHARE), None)
        _kinds(fam, alone=host is None, upstream=upstream)
        if host is not None:
            host.subtrees += [(t, home) for t in fam]
            continue
        projects.append(Project(f, fam, home=home))
    for pr in projects:
        for s, home in list(pr.subtrees):
            if s.kind and not any(t.kind == s.kind for t in pr.trees):
                # no tree of its kind to feed: it is one of the project's own (its fixes tree)
                pr.subtrees.remove((s, home))
                pr.trees.append(s)
        for t in [t for t in pr.trees if not t.kind]:
            pr.trees.remove(t)
            notes.append(f"left out {t.name}: its kind cannot be told ({len(t.postings)} applied postings, "
                         "no kind word in its name, no pair)")
        for s, home in list(pr.subtrees):
            if not s.kind and len(s.postings) < 3:
                pr.subtrees.remove((s, home))
                notes.append(f"left out sub-tree {s.name}: its kind cannot be told from {len(s.postings)} postings")
    projects = [pr for pr in projects if pr.trees]
    untreed = _by_tag(projects, untreed)
    # The list's own project first (the file's default, named after the list): the one most
    # postings were applied in, the kernel's layout before another's.
    projects.sort(key=lambda pr: (-len([p for p in pr.postings if p.applied]),
                                  not kernel_layout(project_paths([p for p in pr.postings if p.applied])[0])))
    return TreePlan(projects, upstream, untreed, notes, robot)


def _by_tag(projects: list[Project], untreed: list[Posting]) -> list[Posting]:
    """An applied posting whose replies name no tree ("Applied, thanks") goes to the tree its
    subject tag names (`[PATCH nf-next]`), when one does; the rest stay untreed."""
    names = {n: t for pr in projects for n, t in tree_names(pr).items()}
    rest = []
    for p in untreed:
        tree = next((names[t.lower()] for t in tree_tags(p) if t.lower() in names), None)
        if tree is None:
            rest.append(p)
        else:
            tree.postings.append(p)
            tree.tagged += 1
            tree.appliers.update(a.action.by.email for a in p.applied.values())
    return rest


def tree_evidence(t: SeenTree) -> str:
    words = ", ".join(f"'{w}'" for w, _ in t.words.most_common(2))
    fixes = (f"; {t.with_fixes} of its {t.patches:,} patches ({round(100 * t.with_fixes / t.patches)}%) carry a "
             "Fixes tag") if t.patches else ""
    named = len(t.postings) - t.tagged - sum(t.robot.values())
    seen = []
    if t.robot:
        seen.append(f"{sum(t.robot.values())} applied posting{'s' if sum(t.robot.values()) != 1 else ''} "
                    f"({span(p.date for p in t.postings)}) the build robot's reports show at the head of "
                    f"{t.git} ({', '.join(b for b, _ in t.robot.most_common(4))})")
    if named:
        seen.append(f"{named} applied posting{'s' if named != 1 else ''} "
                    f"({span(p.date for p in t.postings)}) whose replies name {words}")
    if t.tagged:
        seen.append(f"{t.tagged} applied without a tree named, tagged [{t.name}]")
    if t.sent:
        seen.append(f"{sum(t.sent.values())} of its pull requests applied to "
                    + ", ".join(f"{u} ({n})" for u, n in t.sent.most_common()))
    named_by = {a: n for a, n in t.appliers.items() if a}
    who = f", by {top(named_by, 2)}" if named_by else ""
    return f"{'; '.join(seen)}{who}; {t.kind}: {t.kind_why}{fixes}"
