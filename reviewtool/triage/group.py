"""Group an indexed archive into series and revisions, from headers alone.

The threads and their revisions come from the conversation layer (conversation/revisions.py),
the same linking `check` and `profile learn` use. The newest revision of each family is
triaged, with every other posting of the family read with it (the revision rules compare them,
and the replies to each say what became of it); earlier revisions and same-revision resends are
listed as superseded. Threads that are no series for the queue (stable review, robot reports,
merge notices: mail/kinds.py) are counted by kind.

Threads without any patch are counted, and replies whose patch is not in the archive are listed:
they cannot be triaged, and saying so beats guessing which series they belong to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..collector import paused
from ..conversation.revisions import (PatchThread, by_kind, current_posting, families, joined, patch_families,
                                      restarted, threads_of)
from ..mail.subject import parse_subject
from ..sources.index import MailHead, MailRef

__all__ = ["Grouping", "OrphanThread", "SeriesGroup", "Superseded", "group_archive", "patch_families"]


@dataclass(frozen=True)
class Superseded:
    revision: int
    msgid: str
    subject: str
    date: float | None
    why: str  # "older-revision" | "resent"
    patches: tuple[tuple[int | None, str], ...] = ()  # (counter, message-id) of its mails, cover letter first


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

def _superseded_entry(t: PatchThread, revision: int, why: str) -> Superseded:
    h = t.first_patch(revision)
    mails = sorted((s.counter if s.counter is not None else 1, p.msgid) for p, s in t.patches if s.revision == revision)
    return Superseded(revision=revision, msgid=h.msgid, subject=h.subject, date=h.date, why=why,
                      patches=tuple(mails))


def _family_group(key: int, fam: list[PatchThread]) -> SeriesGroup:
    chosen = current_posting(fam)
    newest = chosen.top
    selected = [chosen]
    superseded: list[Superseded] = []
    fresh = restarted(fam)
    for t in fam:
        if t is chosen:
            continue
        if fresh and t not in fresh:  # the old numbering: listed, not read (its v3 is not this v3)
            superseded += [_superseded_entry(t, r, "older-revision") for r in sorted(t.revisions)]
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


@paused()  # threads, families and groups: many objects, no cycles
def group_archive(heads: Iterable[MailHead]) -> Grouping:
    heads = list(heads)
    threads, kinds = by_kind(threads_of(heads))
    patch_threads = joined([t for t in threads if t.patches])
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
    fams = families(patch_threads)
    groups = [_family_group(i, fam) for i, fam in enumerate(fams)]
    groups.sort(key=lambda g: (g.date or 0.0, g.msgid))
    groups = [SeriesGroup(**{**g.__dict__, "key": i}) for i, g in enumerate(groups)]
    orphans.sort(key=lambda o: (o.date or 0.0, o.msgid))
    return Grouping(series=groups, orphans=orphans, other_threads=other, messages=len(heads), kinds=kinds)

