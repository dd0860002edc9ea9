"""Group an indexed archive into series and revisions, from headers alone.

Three steps, each the rule a maintainer's tools already use:
1. threads: In-Reply-To/References (sources/threads.py's union-find, on ids instead of parsed
   mail); mails without a Message-ID (git format-patch files) form one thread, as in `check`;
2. unthreaded series: patches sent without threading are joined the way patchwork does it (same
   sender, revision and total, no counter twice, within 12 hours of each other);
3. revisions: threads carrying the same series (same change-id; or the same summary and sender
   address of the cover letter or first patch, when the later thread is a higher revision, or a
   resend of the same patches on some of the same files with the same subject tags
   and nearly the same changed lines; or the same sender address and files with nearly the
   same changed lines under a reworded subject; within REVISION_WINDOW_S; see _belongs) form
   one family. The newest revision is triaged, with every other
   posting of the family read with it (the revision rules compare them, and the replies to each
   say what became of it); earlier revisions and same-revision resends are listed as superseded.

Threads without any patch are counted, and replies whose patch is not in the archive are listed:
they cannot be triaged, and saying so beats guessing which series they belong to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from typing import NamedTuple

from ..mail.headers import address_of
from ..mail.kinds import mail_kind
from ..mail.subject import is_reply_subject, normalized_summary, parse_subject
from ..sources.diffsig import merge, similarity
from ..sources.unionfind import DisjointSets
from ..sources.unthreaded import join_unthreaded, unthreaded_marker
from ..sources.index import MailHead, MailRef

REVISION_WINDOW_S = 120 * 86400  # vN+1 of a series follows vN within weeks, not seasons
# Estimated share of changed lines two postings have in common (sources/diffsig.py): a posting
# with the same subject and version that shares none is another patch (two typo fixes in one
# file); one that shares some is the same patch changed (version-not-bumped). Under another
# subject, only a posting that keeps most of the lines is the same patch.
RESENT_DIFF = 0.2
SAME_DIFF = 0.6
_KIND_ORDER = {"change-id": 0, "summary": 1, "files": 2}


@dataclass(frozen=True)
class Superseded:
    revision: int
    msgid: str
    subject: str
    date: float | None
    why: str  # "older-revision" | "resent"


@dataclass(frozen=True)
class SeriesGroup:
    """One series family: the mails to review (newest revision + earlier ones) and its history."""

    key: int
    refs: tuple[MailRef, ...]  # every mail of the triaged thread and of its earlier revisions
    revision: int  # the revision that is triaged
    msgid: str  # the triaged revision's cover letter, else its first patch
    subject: str
    date: float | None  # when the triaged revision was posted
    last_activity: float | None  # the newest mail of the whole family, replies included
    superseded: tuple[Superseded, ...] = ()


@dataclass(frozen=True)
class OrphanThread:
    """Replies to a patch whose own mail is not in the archive."""

    msgid: str
    subject: str
    date: float | None
    messages: int
    missing: tuple[str, ...] = ()  # the ids its mails answer that the archive lacks (the patch)
    refs: tuple[MailRef, ...] = ()  # its mails, to read what they settled


@dataclass
class Grouping:
    series: list[SeriesGroup]
    orphans: list[OrphanThread]
    other_threads: int  # threads without patches or replies to patches (announcements, ...)
    messages: int
    # threads that are no series for the queue, by kind (mail/kinds.py: stable review, robots, ...)
    kinds: dict[str, int] = field(default_factory=dict)


class _Subj(NamedTuple):
    """The parts of a patch subject grouping needs (a full Subject per mail of a 10,000-series
    archive would be most of the index's memory)."""

    counter: int | None
    expected: int | None
    revision: int
    resend: bool
    tags: tuple[str, ...]
    summary: str  # normalized


@dataclass
class _Thread:
    heads: list[MailHead]
    patches: list[tuple[MailHead, _Subj]] = field(default_factory=list)

    @property
    def revisions(self) -> set[int]:
        return {s.revision for _, s in self.patches}

    @property
    def top(self) -> int:
        return max(self.revisions, default=1)

    def first_patch(self, revision: int | None = None) -> MailHead:
        cands = [(s.counter if s.counter is not None else 1, h.date or 0.0, i, h)
                 for i, (h, s) in enumerate(self.patches) if revision is None or s.revision == revision]
        return min(cands)[3]

    def newest_patch_date(self) -> float:
        return max((h.date or 0.0 for h, _ in self.patches), default=0.0)

    @cached_property
    def files(self) -> frozenset[str]:
        """Every file the thread's patches change (sources/diffsig.py); read once the thread
        has its patches (families are formed after every thread is complete)."""
        return frozenset(p for h, _ in self.patches for p in h.paths)

    @cached_property
    def sketch(self) -> bytes:
        return merge(h.sketch for h, _ in self.patches if h.sketch)

    def identity(self) -> set[tuple[str, str]]:
        keys: set[tuple[str, str]] = set()
        for h, s in self.patches:
            if s.counter in (None, 0, 1):
                keys.add(("summary", s.summary + "|" + address_of(h.sender)))
                if self.files:
                    keys.add(("files", address_of(h.sender) + "|" + "\n".join(sorted(self.files))))
            if h.change_id:
                keys.add(("change-id", h.change_id))
        return keys


def _threads(heads: list[MailHead]) -> list[_Thread]:
    uf = DisjointSets()
    synthesized_root = None
    seen: set[str] = set()
    kept: list[MailHead] = []
    for h in heads:
        if h.msgid in seen:
            continue  # the same mail twice (cross-posted archives): b4 dedupes too
        seen.add(h.msgid)
        kept.append(h)
        uf.find(h.msgid)
        for p in h.parents:
            uf.union(h.msgid, p)
        if h.synthesized and (h.ref.format_patch or "[PATCH" in h.subject.upper()):
            synthesized_root = synthesized_root or h.msgid
            uf.union(synthesized_root, h.msgid)
    groups: dict[str, _Thread] = {}
    for h in kept:
        groups.setdefault(uf.find(h.msgid), _Thread([])).heads.append(h)
    for t in groups.values():
        for h in t.heads:
            if is_reply_subject(h.subject):
                continue  # no patch, whatever else its subject says
            s = parse_subject(h.subject)
            if s.is_patch or h.has_diff:  # what `check` takes for a patch (is_patch_mail)
                t.patches.append((h, _Subj(s.counter, s.expected, s.revision, s.resend, s.tags,
                                           normalized_summary(s))))
    return list(groups.values())


def _join_unthreaded(threads: list[_Thread]) -> list[_Thread]:
    groups = join_unthreaded(threads, lambda t: unthreaded_marker((h.sender, s) for h, s in t.patches) if t.patches else None,
                             lambda t: {s.counter for _, s in t.patches}, lambda t: t.newest_patch_date())
    return [g[0] if len(g) == 1 else _Thread([h for t in g for h in t.heads], [p for t in g for p in t.patches])
            for g in groups]


def _tags(t: _Thread) -> set[tuple[str, ...]]:
    return {s.tags for _, s in t.patches}


def _same_patches(a: _Thread, b: _Thread) -> bool:
    def summaries(t: _Thread) -> set[str]:
        return {s.summary for _, s in t.patches if s.counter != 0}
    return summaries(a) == summaries(b)


def _similar(a: _Thread, b: _Thread, least: float) -> bool | None:
    """Whether the two threads' changed lines are alike (None: a diff was not read)."""
    sim = similarity(a.sketch, b.sketch)
    return None if sim is None else sim >= least


def _belongs(t: _Thread, fam: list[_Thread], kind: str) -> bool:
    """Whether thread `t` (posted after the family's threads) is another posting of that series.
    A change-id is proof. A shared summary and sender address is not (maintainers post
    "Netfilter fixes for net" every week), so it also needs a higher revision within
    REVISION_WINDOW_S, or a resend of the same patches: the same subject tags, some of the same
    files and some of the same changed lines (or the word RESEND). The same
    sender and files under another subject is a repost when the changed lines are nearly the
    same (a reworded v2, or a v1 sent again)."""
    if kind == "change-id":
        return True
    last = max(fam, key=lambda f: (f.top, f.newest_patch_date()))
    gap = t.newest_patch_date() - last.newest_patch_date()
    if gap > REVISION_WINDOW_S:
        return False
    if kind == "files":
        return bool(_similar(t, last, SAME_DIFF)) and (t.top > last.top or t.top == last.top and _tags(t) == _tags(last))
    if t.top != last.top:
        return True  # a new version may change other files than the last one did
    if t.files and last.files and not t.files & last.files:
        return False  # the same subject and version on other files: another patch
    # The same revision again is a resend only for the same target: AUTOSEL backports of one
    # patch to 5.10 and to 5.4, or a fix reposted as [PATCH v6.1], are series of their own.
    if _tags(t) != _tags(last):
        return False
    if any(s.resend for _, s in t.patches):
        return True
    return _same_patches(t, last) and _similar(t, last, RESENT_DIFF) is not False


def _home(t: _Thread, keys: set[tuple[str, str]], owner: dict[tuple[str, str], int],
          fams: list[list[_Thread]]) -> int | None:
    """The family thread `t` continues: change-ids first (they are proof), then summaries, then
    files (_KIND_ORDER). When several families of one kind take it (a v3 that kept v1's cover
    letter and v2's first patch), the one posted to last: a new revision follows the latest
    posting. The choice depends on the families alone, never on the order a set of keys is
    walked in (which changes with each process's string hashing) or on how the keys sort."""
    for kind in sorted(_KIND_ORDER, key=_KIND_ORDER.get):
        cands = {owner[k] for k in keys if k in owner and k[0] == kind}
        taken = [f for f in cands if _belongs(t, fams[f], kind)]
        if taken:
            return max(taken, key=lambda f: (max(x.newest_patch_date() for x in fams[f]), f))
    return None


def _families(threads: list[_Thread]) -> list[list[_Thread]]:
    fams: list[list[_Thread]] = []
    owner: dict[tuple[str, str], int] = {}  # identity key -> the family that used it last
    for t in sorted(threads, key=lambda t: (t.newest_patch_date(), t.first_patch().msgid)):
        keys = t.identity()
        home = _home(t, keys, owner, fams)
        if home is None:
            home = len(fams)
            fams.append([])
        fams[home].append(t)
        for k in keys:
            owner[k] = home
    return fams


def _superseded_entry(t: _Thread, revision: int, why: str) -> Superseded:
    h = t.first_patch(revision)
    return Superseded(revision=revision, msgid=h.msgid, subject=h.subject, date=h.date, why=why)


def _family_group(key: int, fam: list[_Thread]) -> SeriesGroup:
    chosen = max(fam, key=lambda t: (t.top, t.newest_patch_date()))
    newest = chosen.top
    selected = [chosen]
    superseded: list[Superseded] = []
    for t in fam:
        if t is chosen:
            continue
        # Every posting of the family is read with it: the revision rules compare them (a resend
        # that changed is version-not-bumped), and what the replies settled for each is reported.
        selected.append(t)
        if t.top < newest:
            superseded += [_superseded_entry(t, r, "older-revision") for r in sorted(t.revisions)]
        else:
            superseded += [_superseded_entry(t, r, "resent" if r == newest else "older-revision")
                           for r in sorted(t.revisions)]
    superseded += [_superseded_entry(chosen, r, "older-revision") for r in sorted(chosen.revisions) if r < newest]
    # Mail order as in the archive keeps b4's view identical to `reviewtool check` on the thread.
    refs = sorted((h.ref for t in selected for h in t.heads), key=lambda r: (r.path, r.offset))
    first = chosen.first_patch(newest)
    dates = [h.date for t in fam for h in t.heads if h.date is not None]
    return SeriesGroup(key=key, refs=tuple(refs), revision=newest, msgid=first.msgid, subject=first.subject,
                       date=first.date, last_activity=max(dates, default=None),
                       superseded=tuple(sorted(superseded, key=lambda s: (s.revision, s.date or 0.0))))


def _answers_a_patch(s) -> bool:
    """A reply to a patch: `Re: [PATCH ...]`, or patchwork's rewrite of it (`Re: [v2,1/3] x`)."""
    return s.reply and (s.is_patch or s.counter is not None or s.revision_explicit)


def _root(t: _Thread) -> MailHead:
    """The thread's first mail: the one answering no mail of the thread (the oldest of those)."""
    ids = {h.msgid for h in t.heads}
    roots = [h for h in t.heads if not any(p in ids for p in h.parents)] or t.heads
    return min(roots, key=lambda h: h.date or 0.0)


def _by_kind(threads: list[_Thread]) -> tuple[list[_Thread], dict[str, int]]:
    """(the threads for the queue, a count by kind of those that are not: mail/kinds.py)."""
    kept, kinds = [], {}
    for t in threads:
        root = _root(t)
        kind = mail_kind(root.subject, root.sender)
        # a fix posted in reply to a robot's report (syzbot's, say) is a series all the same
        if kind is None or any(h.sender != root.sender for h, _ in t.patches):
            kept.append(t)
        else:
            kinds[kind] = kinds.get(kind, 0) + 1
    return kept, dict(sorted(kinds.items()))


def group_archive(heads: Iterable[MailHead]) -> Grouping:
    heads = list(heads)
    threads, kinds = _by_kind(_threads(heads))
    patch_threads = _join_unthreaded([t for t in threads if t.patches])
    orphans, other = [], 0
    for t in threads:
        if t.patches:
            continue
        replies = [h for h in t.heads if _answers_a_patch(parse_subject(h.subject))]
        if replies:
            first = min(replies, key=lambda h: h.date or 0.0)
            ids = {h.msgid for h in t.heads}
            missing = tuple(sorted({p for h in t.heads for p in h.parents[:1] if p not in ids}))
            orphans.append(OrphanThread(msgid=first.msgid, subject=first.subject, date=first.date,
                                        messages=len(t.heads), missing=missing, refs=tuple(h.ref for h in t.heads)))
        else:
            other += 1
    fams = _families(patch_threads)
    groups = [_family_group(i, fam) for i, fam in enumerate(fams)]
    groups.sort(key=lambda g: (g.date or 0.0, g.msgid))
    groups = [SeriesGroup(**{**g.__dict__, "key": i}) for i, g in enumerate(groups)]
    orphans.sort(key=lambda o: (o.date or 0.0, o.msgid))
    return Grouping(series=groups, orphans=orphans, other_threads=other, messages=len(heads), kinds=kinds)


def patch_families(heads: Iterable[MailHead]) -> list[list[_Thread]]:
    """The archive's patch threads by series family (each family's threads oldest first), by the
    same three steps as group_archive: for readers that want every revision, not the newest
    (`reviewtool profile learn` learns from the revision the maintainers applied)."""
    threads, _ = _by_kind(_threads(list(heads)))
    fams = _families(_join_unthreaded([t for t in threads if t.patches]))
    return [sorted(f, key=lambda t: (t.top, t.newest_patch_date())) for f in fams]
