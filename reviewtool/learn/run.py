"""`profile learn` from end to end: read the archive, learn the trees and what the headers show,
review the applied and sent-back postings under the provisional profile, learn the rest, write."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..context.profiles.load import shipped_profiles
from ..errors import InputError
from ..mail.headers import address_of
from .archive import Archive, Posting, read_archive
from .conventions import MIN_POSTINGS, from_headers
from .counts import day, span
from .facts import Facts, Job, review_postings
from .habits import learn_fixes_on_fixes, learn_fixes_when, learn_lists, learn_signoffs, learn_sizes
from .learned_profile import LearnedProfile
from .paths import _path_key, kernel_layout, project_paths
from .severities import learn_objections, learn_severities
from .projects import Project, tree_names, tree_tags
from .queues import robot_subtrees
from .tagged import POOL, tagged_projects
from .trees import learn_trees
from .write import drop_unseen_names, render


@dataclass
class Progress:
    """What the command shows while it works: `mails()` per mail read, `reviews(total)` once
    before the reviews, `reviewed()` per posting reviewed."""

    mails: Callable[[], None] = lambda: None
    reviews: Callable[[int], None] = lambda total: None
    reviewed: Callable[[], None] = lambda: None


@dataclass
class Learned:
    profiles: list[LearnedProfile]
    archive: Archive
    reviewed: int = 0
    not_reviewed: list[str] = field(default_factory=list)
    text: str = ""
    limited: list[str] = field(default_factory=list)  # what a limit left out of the archive, one line each


def _assign(archive: Archive, projects: list[Project]) -> dict[int, Project]:
    """Every posting's project: the one a subject tag names, the one it was applied in, else the
    first whose layout (the kernel's or not) its files follow."""
    names = [(pr, set(tree_names(pr))) for pr in projects]
    applied = {p.key: pr for pr in projects for p in pr.postings}
    layout = {id(pr): kernel_layout(project_paths([p for p in pr.postings if p.applied])[0]) for pr in projects}
    out: dict[int, Project] = {}
    for p in archive.postings:
        tags = {t.lower() for t in tree_tags(p)}
        pr = next((pr for pr, n in names if tags & n), None) or applied.get(p.key)
        if pr is None:
            keys = [k for fs in p.files.values() for f in fs if (k := _path_key(f))]
            mine = kernel_layout(keys) if keys else True
            pr = next((pr for pr in projects if layout[id(pr)] == mine), None)
        if pr is not None:
            out[p.key] = pr
    return out


def _name(lp: LearnedProfile, main: bool, given: str | None, taken: set[str], pr: Project) -> str:
    if main and given:
        return given
    if main and lp.lists:
        base = lp.lists[0].split("@")[0].lower().removeprefix("linux-")
    elif pr.stem == POOL and pr.by_tag and len(pr.trees) > 1:
        base = POOL
    else:
        base = (lp.trees[0]["name"] if lp.trees else lp.name).lower()
    base = re.sub(r"[^a-z0-9_-]+", "-", base).strip("-") or "learned"  # a bare TOML key: [profiles.NAME]
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def _nothing(archive: Archive, reasons: list[str], name: str) -> LearnedProfile:
    generic = shipped_profiles()["generic"]
    lp = LearnedProfile(name=name, description="nothing learned: the generic rules", disable=list(generic.disabled),
                        severity=dict(generic.severity), settings=dict(generic.settings))
    lp.left_out += reasons
    for rule in generic.disabled:
        lp.note(f"rules.disable.{rule}", "no tree was learned: the generic profile's choice")
    return lp


def learn(paths: list[Path], scratch: Path, *, workers: int = 1, name: str | None = None,
          progress: Progress | None = None, labels: dict[Path, str] | None = None) -> Learned:
    """`labels`: what to call inputs that are scratch files (a search's results) in the header."""
    progress = progress or Progress()
    skipped: list[str] = []
    labels = dict(labels or {})
    readable = list(paths)  # files, directories and public-inbox inboxes alike (sources/archives.py)
    limited: list[str] = []
    archive = read_archive(readable, scratch, progress.mails, skipped, limited)
    archive.labels = tuple(labels.get(p, str(p)) for p in readable)
    if not archive.messages:
        raise InputError(f"{', '.join(archive.labels)}: no mail messages found")
    plan = learn_trees(archive)
    robot_subtrees(plan)
    tagged, notes = tagged_projects(plan)
    plan.projects += tagged
    plan.notes += notes
    applied_n = sum(1 for p in archive.postings if p.applied)
    if not plan.projects:
        why = (f"trees: {applied_n} postings were applied, and no maintainer's reply in a form that proves itself "
               "named a tree" if applied_n else "trees: no maintainer's reply says a posting was applied")
        lp = _nothing(archive, [why, *plan.notes], name or "learned")
        return _finish([lp], archive, [], 0, skipped, limited)
    owner = _assign(archive, plan.projects)
    lps = []
    for i, pr in enumerate(plan.projects):
        posted = [p for p in archive.postings if owner.get(p.key) is pr]
        lps.append(from_headers(pr, plan, archive, f"p{i}", posted))
    provisional = scratch / "provisional.toml"
    provisional.write_text(render(lps, []), encoding="utf-8")
    by_key = {p.key: p for p in archive.postings}
    wanted = [p for pr in plan.projects for p in pr.postings if p.applied_whole]
    wanted += [p for p in archive.postings if p.sent_back and not p.applied and p.key in owner]
    jobs = [Job(p.key, p.refs, p.revision) for p in wanted]
    progress.reviews(len(jobs))
    from ..review import ReviewOptions

    facts = {f.key: f for f in review_postings(jobs, ReviewOptions(profile=str(provisional)), workers,
                                               on_done=lambda f: progress.reviewed())}
    not_reviewed = [f"{by_key[k].subject[:70]}: {f.skipped}" for k, f in facts.items() if f.skipped]
    good = {k: f for k, f in facts.items() if not f.skipped}
    def applied_of(pr: Project) -> list:
        return [(p, good[p.key]) for p in pr.postings if p.key in good and p.applied_whole and not good[p.key].pull]

    def back_of(pr: Project) -> list:
        return [(p, good.get(p.key)) for p in archive.postings if p.sent_back and not p.applied and owner.get(p.key) is pr]

    by_tag = [pr for pr in plan.projects if pr.by_tag]
    for pr, lp in zip(plan.projects, lps):
        applied, back = applied_of(pr), back_of(pr)
        if pr.by_tag and len(applied) < MIN_POSTINGS and len(by_tag) > 1:
            # too few of its own: the habits of the list's projects known by their tags, together
            own = len(applied)
            applied = [x for o in by_tag for x in applied_of(o)]
            back = [x for o in by_tag for x in back_of(o)]
            lp.left_out.append(f"its own habits: {own} applied postings were reviewed, fewer than {MIN_POSTINGS}; "
                               f"those below are of the {len(applied)} applied postings of the list's projects "
                               f"known by their tags ({', '.join(t.name for o in by_tag for t in o.trees)}) together")
        _from_reviews(lp, pr, applied, back, archive, by_key, good)
    taken: set[str] = set()
    for i, (lp, pr) in enumerate(zip(lps, plan.projects)):
        lp.name = _name(lp, i == 0, name, taken, pr)
        taken.add(lp.name)
        for t in lp.trees:
            t.pop("_seen", None)
    return _finish(lps, archive, not_reviewed, len(good), skipped, limited)


def _from_reviews(lp: LearnedProfile, pr: Project, applied: list, back: list, archive: Archive,
                  by_key: dict[int, Posting], facts: dict[int, Facts]) -> None:
    lp.sent_back = len(back)
    fs = [f for _, f in applied]
    posters = {k: address_of(p.sender) for k, p in by_key.items()}
    if len(applied) < MIN_POSTINGS:
        lp.left_out.append(f"the list, sign-offs, sizes and severities: {len(applied)} applied postings were "
                           f"reviewed, fewer than {MIN_POSTINGS}")
        learn_lists(lp, fs, archive.senders, posters, archive.own_list)
        return
    learn_lists(lp, fs, archive.senders, posters, archive.own_list)
    learn_signoffs(lp, fs)
    learn_sizes(lp, fs, by_key)
    learn_fixes_on_fixes(lp, fs, pr, by_key)
    learn_fixes_when(lp, facts, pr)
    learn_severities(lp, applied, [(p, f) for p, f in back if f is not None])
    learn_objections(lp, back)


def _finish(lps: list[LearnedProfile], archive: Archive, not_reviewed: list[str], reviewed: int,
            skipped: list[str], limited: list[str] = ()) -> Learned:
    applied = sum(1 for p in archive.postings if p.applied)
    back = sum(1 for p in archive.postings if p.sent_back and not p.applied)
    first, last = archive.span or (None, None)
    header = [f"Learned by `reviewtool profile learn` from {', '.join(Path(x).name for x in archive.labels)}: "
              f"{archive.messages:,} messages ({day(first)} to {day(last)}), {len(archive.postings):,} postings; "
              f"{applied:,} applied and {back:,} sent back by the maintainers' replies "
              f"({span(p.date for p in archive.postings if p.applied)}); {reviewed:,} of them reviewed.",
              "Each setting carries its evidence; edit freely. `reviewtool rules --profile THIS-FILE` shows where "
              "each came from; `reviewtool check --profile THIS-FILE` uses it."]
    if archive.by_pulls:
        header.append(f"Of the applied postings, {archive.by_pulls:,} are known from the maintainers' pull requests "
                      "alone: a patch of a pull request sent as a series, matched by its summary to the latest "
                      "posting before it.")
    if archive.untrusted:
        who = sorted({a.by.email for a in archive.untrusted})
        header.append(f"Not counted: {len(archive.untrusted)} plain 'Applied' replies from "
                      f"{', '.join(who[:4])}{', ...' if len(who) > 4 else ''}, who sent no reply in a form that "
                      "proves itself (a bot's, a script's) in this archive.")
    if not_reviewed:
        header.append(f"Not reviewed: {len(not_reviewed)} postings ({not_reviewed[0]}"
                      + (", ..." if len(not_reviewed) > 1 else "") + ").")
    if skipped:
        header.append(f"Skipped {len(skipped)} files that are not mail ({skipped[0]}).")
    header += [f"Left out: {line}." for line in limited]
    for lp in lps:
        drop_unseen_names(lp)
    text = render(lps, header)
    _reads_back(text)
    return Learned(lps, archive, reviewed, not_reviewed, text, list(limited))


def _reads_back(text: str) -> None:
    """The profile is read as `--profile` will read it before anyone is given it: a learned name
    that `--profile` would refuse stops here, with its reason, and nothing is written."""
    from ..context.profiles.file import read_profile_text
    from ..errors import ConfigError

    try:
        read_profile_text(text, "the learned profile")
    except ConfigError as exc:
        raise ConfigError(f"{exc}; it was not written (a bug: please report it with the archive)") from exc
