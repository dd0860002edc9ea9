"""Threads of an archive and the postings in them, from mail headers alone (revisions.py links
the postings of one series across threads).

1. threads: In-Reply-To/References (a union-find on message-ids); mails without a Message-ID
   (git format-patch files) form one thread;
2. postings: a patch posted into another's thread (in reply to a review, under a new summary) is
   a posting of its own, with the replies under it (postings_of).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from ..mail.headers import address_of
from ..mail.subject import is_reply_subject, list_name_of, normalized_summary, parse_subject
from ..sources.diffsig import merge
from ..sources.index import MailHead
from ..sources.unionfind import DisjointSets


class _Subj(NamedTuple):
    """The parts of a patch subject grouping needs (a full Subject per mail of a 10,000-series
    archive would be most of the index's memory)."""

    counter: int | None
    expected: int | None
    revision: int
    resend: bool
    tags: tuple[str, ...]
    summary: str  # normalized
    rfc: bool = False


@dataclass
class PatchThread:
    heads: list[MailHead]
    patches: list[tuple[MailHead, _Subj]] = field(default_factory=list)
    # a posting cut out of another's thread (postings_of): the patch mail it was posted under
    answers: str | None = None

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
        return self._newest

    def first_patch_date(self) -> float:
        return min((h.date or 0.0 for h, _ in self.patches), default=0.0)

    @cached_property
    def _newest(self) -> float:  # read once the thread has its patches, as `files` is
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
        # the thread's files, sorted and joined once, a key for each sender: every patch without a
        # counter may key the thread by them (a thread of 10,000 such patches sorted 10,000 files
        # 10,000 times: minutes)
        files = "\n".join(sorted(self.files)) if self.files else ""
        senders: set[str] = set()
        # Any patch's summary: a single patch that grew into a series is one of its patches.
        for h, s in self.patches:
            keys.add(("summary", _summary_key(h, s)))
            if s.counter in (None, 0, 1) and files:
                senders.add(address_of(h.sender))
            if h.change_id:
                keys.add(("change-id", h.change_id))
        keys.update(("files", sender + "|" + files) for sender in senders)
        return keys


def _summary_key(h: MailHead, s: _Subj) -> str:
    return s.summary + "|" + address_of(h.sender)


def threads_of(heads: list[MailHead]) -> list[PatchThread]:
    """The heads by thread (In-Reply-To/References); mails without a Message-ID that look like
    format-patch output form one thread, as in `check`. Each thread's patches are read here."""
    uf = DisjointSets()
    synthesized_root = None
    seen: set[str] = set()
    kept: list[MailHead] = []
    for h in heads:
        if h.msgid in seen:
            continue  # the same mail twice (cross-posted archives): b4 dedupes too
        seen.add(h.msgid)
        kept.append(h)
        uf.join(h.msgid, h.parents)
        if h.synthesized and (h.ref.format_patch or "[PATCH" in h.subject.upper()):
            synthesized_root = synthesized_root or h.msgid
            uf.union(synthesized_root, h.msgid)
    groups: dict[str, PatchThread] = {}
    for h in kept:
        groups.setdefault(uf.find(h.msgid), PatchThread([])).heads.append(h)
    out: list[PatchThread] = []
    for t in groups.values():
        for h in t.heads:
            if is_reply_subject(h.subject):
                continue  # no patch, whatever else its subject says
            s = parse_subject(h.subject, list_name_of(h.list_id))
            if s.is_patch or h.has_diff:  # what `check` takes for a patch (is_patch_mail)
                t.patches.append((h, _Subj(s.counter, s.expected, s.revision, s.resend, s.tags,
                                           normalized_summary(s), s.rfc)))
        out += postings_of(t)
    return out


def _posted_into(h: MailHead, s: _Subj, parent: dict[str, MailHead | None], patch_of: dict[str, _Subj],
                 earlier: set[str]) -> bool:
    """Whether patch `h` is a posting of its own inside another's thread: sent in reply to a
    review ("I'll post a patch to convert that"), or a lone patch from someone else answering a
    numbered series, under a summary the thread has not carried before and with no higher
    revision than the patch it sits under (a v2 sent in reply to v1's review is that series)."""
    up = parent[h.msgid]
    if up is None or s.summary in earlier:
        return False
    above = patch_of.get(up.msgid)
    if above is None:
        if not is_reply_subject(up.subject):
            return False  # a patch answering a cover letter without [PATCH] in its subject
    elif not (s.counter is None and above.counter is not None and address_of(h.sender) != address_of(up.sender)):
        return False
    up = _nearest_patch(up, parent, patch_of)
    return up is None or s.revision <= patch_of[up.msgid].revision


def _nearest_patch(up: MailHead | None, parent: dict[str, MailHead | None], patch_of: dict[str, _Subj]
                   ) -> MailHead | None:
    """`up` or the nearest mail above it that is a patch (None: none, or a loop of parents)."""
    hops = 0
    while up is not None and up.msgid not in patch_of and hops < len(parent):
        up, hops = parent[up.msgid], hops + 1
    return up if up is not None and up.msgid in patch_of else None


def postings_of(t: PatchThread) -> list[PatchThread]:
    """Thread `t` cut into its postings: a patch posted into it (_posted_into) starts one of its
    own, with the replies under it; the thread keeps the rest, and the earliest posting stays
    when the rest would hold no patch."""
    if len(t.patches) < 2:
        return [t]  # a lone patch that starts a posting leaves the thread none: it is the thread
    byid = {h.msgid: h for h in t.heads}
    patch_of = {h.msgid: s for h, s in t.patches}
    # the mail answered: In-Reply-To, else the nearest of References (which run root first)
    parent = {h.msgid: next((byid[p] for p in (*h.parents[:1], *reversed(h.parents)) if p in byid and p != h.msgid),
                            None) for h in t.heads}
    starts: list[str] = []
    seen: set[str] = set()
    for h, s in sorted(t.patches, key=lambda p: p[0].date or 0.0):
        if _posted_into(h, s, parent, patch_of, seen):
            starts.append(h.msgid)
        seen.add(s.summary)
    while starts:
        owner = _owners(t.heads, parent, set(starts))
        if any(owner[h.msgid] is None for h, _ in t.patches):
            break
        starts.pop(0)  # nothing of the thread's own would be left: its first posting is the thread
    if not starts:
        return [t]
    cut: dict[str | None, PatchThread] = {}
    for h in t.heads:
        cut.setdefault(owner[h.msgid], PatchThread([], answers=_patch_above(owner[h.msgid], parent, patch_of))
                       ).heads.append(h)
    for h, s in t.patches:
        cut[owner[h.msgid]].patches.append((h, s))
    return list(cut.values())


def _patch_above(start: str | None, parent: dict[str, MailHead | None], patch_of: dict[str, _Subj]) -> str | None:
    """The patch mail a cut-out posting was sent under (None for the thread's own)."""
    above = _nearest_patch(parent.get(start), parent, patch_of) if start is not None else None
    return above.msgid if above is not None else None


def _owners(heads: list[MailHead], parent: dict[str, MailHead | None], starts: set[str]) -> dict[str, str | None]:
    """For each mail, the posting start it sits under (None: the thread's own)."""
    owner: dict[str, str | None] = {m: m for m in starts}
    for h in heads:
        chain, at = [], h
        while at is not None and at.msgid not in owner and len(chain) <= len(heads):
            chain.append(at.msgid)
            at = parent[at.msgid]
        found = None if at is None or len(chain) > len(heads) else owner[at.msgid]
        for m in chain:
            owner[m] = found
    return owner
