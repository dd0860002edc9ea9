"""Revisions of a series, linked across threads, from mail headers alone.

The layer `check`, `triage` and `profile learn` all read to know which postings are one series:
1. threads and their postings (threads.py): In-Reply-To/References; a patch posted into
   another's thread (in reply to a review, under a new summary) is a posting of its own;
2. unthreaded series: patches sent without threading are joined the way patchwork does it
   (sources/unthreaded.py: same sender, revision and total, no counter twice, within 12 hours);
3. revisions: threads carrying the same series form one family: the same change-id; or the same
   summary and sender address of the cover letter or first patch, when the later thread is a
   higher revision or a resend of the same patches on some of the same files with the same
   subject tags and nearly the same changed lines; or the same sender address and files with
   nearly the same changed lines under a reworded subject (a lone patch's higher revision that
   names the same function needs no more: it was reworked after review), or under the same subject with a
   subsystem prefix added or dropped (_prefix_home); always within REVISION_WINDOW_S (see
   _belongs). A lone RFC ("Can we just remove this array?") is carried on by its sender's lone
   patch on all of its files within weeks (_rfc_answered_home). Two different patches by one
   author under near-identical subjects (another
   function, another file, another hunk) share neither summary nor changed lines: two families.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from ..mail.headers import address_of, mailbox
from ..mail.kinds import mail_kind
from ..mail.subject import summary_prefixes
from ..sources.diffsig import similarity
from ..sources.index import MailHead
from ..sources.unthreaded import join_unthreaded, unthreaded_marker
from .threads import PatchThread, _Subj, _summary_key, threads_of  # noqa: F401 (threads_of: read from here)

REVISION_WINDOW_S = 120 * 86400  # vN+1 of a series follows vN within weeks, not seasons
# Estimated share of changed lines two postings have in common (sources/diffsig.py): a posting
# with the same subject and version that shares none is another patch (two typo fixes in one
# file); one that shares some is the same patch changed (version-not-bumped). Under another
# subject, only a posting that keeps most of the lines is the same patch.
RESENT_DIFF = 0.2
SAME_DIFF = 0.6
_KIND_ORDER = {"change-id": 0, "summary": 1, "files": 2}


def joined(threads: list[PatchThread]) -> list[PatchThread]:
    groups = join_unthreaded(threads, lambda t: unthreaded_marker((h.sender, s) for h, s in t.patches) if t.patches else None,
                             lambda t: {s.counter for _, s in t.patches}, lambda t: t.newest_patch_date())
    return [g[0] if len(g) == 1 else PatchThread([h for t in g for h in t.heads], [p for t in g for p in t.patches])
            for g in groups]


def _tags(t: PatchThread) -> set[tuple[str, ...]]:
    return {s.tags for _, s in t.patches}


def _same_patches(a: PatchThread, b: PatchThread) -> bool:
    def summaries(t: PatchThread) -> set[str]:
        return {s.summary for _, s in t.patches if s.counter != 0}
    return summaries(a) == summaries(b)


def _similar(a: PatchThread, b: PatchThread, least: float) -> bool | None:
    """Whether the two threads' changed lines are alike (None: a diff was not read)."""
    sim = similarity(a.sketch, b.sketch)
    return None if sim is None else sim >= least


@dataclass
class _Family:
    """A family being formed: its threads, the one a new posting is compared with (the highest
    revision, newest of those) and when it was last posted to; kept as threads join, so a long
    family costs no more per posting than a short one."""

    threads: list[PatchThread] = field(default_factory=list)
    last: PatchThread | None = None
    newest: float = 0.0
    summaries: set[str] = field(default_factory=set)  # _summary_key of every posting's mails
    patch_summaries: set[str] = field(default_factory=set)  # those of its patches (no cover letter)

    def add(self, t: PatchThread) -> None:
        self.threads.append(t)
        for h, s in t.patches:
            self.summaries.add(_summary_key(h, s))
            if s.counter != 0:
                self.patch_summaries.add(_summary_key(h, s))
        if self.last is None or (t.top, t.newest_patch_date()) > (self.last.top, self.last.newest_patch_date()):
            self.last = t
        self.newest = max(self.newest, t.newest_patch_date())


# A name in code a summary carries: `ath10k_pci_init()`, `brcmf_notify_sched_scan_results`.
_CODE_NAME_RE = re.compile(r"\b\w+\(\)|\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b")


def _code_names(t: PatchThread) -> set[str]:
    return {n.removesuffix("()") for _, s in t.patches if s.counter != 0 for n in _CODE_NAME_RE.findall(s.summary)}


def _lone(t: PatchThread) -> bool:
    return sum(1 for _, s in t.patches if s.counter != 0) == 1


def _belongs_in_time(t: PatchThread, fam: _Family) -> bool:
    """Posted within REVISION_WINDOW_S of the family's last posting."""
    return t.newest_patch_date() - fam.last.newest_patch_date() <= REVISION_WINDOW_S


def _belongs(t: PatchThread, fam: _Family, kind: str) -> bool:
    """Whether thread `t` (posted after the family's threads) is another posting of that series.
    A change-id is proof. A shared summary and sender address is not (maintainers post
    "Netfilter fixes for net" every week), so it also needs a higher revision within
    REVISION_WINDOW_S (the revision of the mails that carry the family's summaries: a cover letter
    subject reused for another patch is no new version of it; a lower one, numbered afresh, must
    repeat one of its patches), or a resend of the same patches: the same subject tags, some of the same
    files and some of the same changed lines (or the word RESEND). The same
    sender and files under another subject is a repost when the changed lines are nearly the
    same (a reworded v2, or a v1 sent again)."""
    if kind == "change-id":
        return True
    last = fam.last
    if not _belongs_in_time(t, fam):
        return False
    # One patch of a series posted again alone, at no higher revision ("please post these
    # separately"): a posting of its own, not the series resent.
    if t.top <= last.top and _lone(t) and not _lone(last):
        return False
    if kind == "files":
        # a lone patch's higher revision, reworded after review ("Fix resource leak in
        # ath10k_pci_init()", then "[PATCH v2] Fix return value in ath10k_pci_init()"), names the
        # same function on the same files however much its lines changed
        if t.top > last.top and _lone(t) and _lone(last) and _code_names(t) & _code_names(last):
            return True
        return bool(_similar(t, last, SAME_DIFF)) and (t.top > last.top or t.top == last.top and _tags(t) == _tags(last))
    # The revision of the patches that carry the family's summaries: a thread whose v3 is another
    # patch than the one its v1 cover letter shares a subject with is no v3 of that family.
    revision = max((s.revision for h, s in t.patches if _summary_key(h, s) in fam.summaries), default=t.top)
    if revision > last.top:
        return True  # a new version may change other files than the last one did
    if revision < last.top:  # numbered afresh ("resend it as v1"): some of the same patches again
        return any(s.counter != 0 and _summary_key(h, s) in fam.patch_summaries for h, s in t.patches)
    if t.files and last.files and not t.files & last.files:
        return False  # the same subject and version on other files: another patch
    # The same revision again is a resend only for the same target: AUTOSEL backports of one
    # patch to 5.10 and to 5.4, or a fix reposted as [PATCH v6.1], are series of their own.
    if _tags(t) != _tags(last):
        return False
    if any(s.resend for _, s in t.patches):
        return True
    return _same_patches(t, last) and _similar(t, last, RESENT_DIFF) is not False


def _home(t: PatchThread, keys: set[tuple[str, str]], owner: dict[tuple[str, str], int],
          fams: list[_Family]) -> int | None:
    """The family thread `t` continues: change-ids first (they are proof), then summaries, then
    files (_KIND_ORDER). When several families of one kind take it (a v3 that kept v1's cover
    letter and v2's first patch), the one posted to last: a new revision follows the latest
    posting. The choice depends on the families alone, never on the order a set of keys is
    walked in (which changes with each process's string hashing) or on how the keys sort."""
    for kind in sorted(_KIND_ORDER, key=_KIND_ORDER.get):
        cands = {owner[k] for k in keys if k in owner and k[0] == kind}
        taken = [f for f in cands if _belongs(t, fams[f], kind)]
        if taken:
            return max(taken, key=lambda f: (fams[f].newest, f))
    return None


def _without_prefix(h: MailHead, s: _Subj) -> str | None:
    """The summary key with its first `subsystem:` prefix taken off, when it has one."""
    found = summary_prefixes(s.summary)
    rest = s.summary[found[0][1]:] if found else ""
    return rest + "|" + address_of(h.sender) if rest else None


def _prefix_home(t: PatchThread, owner: dict[tuple[str, str], int], unprefixed: dict[str, int],
                 fams: list[_Family]) -> int | None:
    """The family `t` continues under the same subject with a subsystem prefix added or dropped
    ("ath11k: fix x" then "wifi: ath11k: fix x"; "doc: make x" then "make x"), the changed lines
    nearly the same, or, posted as a higher revision, some of the same files. Two prefixed
    subjects never meet here: "ath11k: fix x" and "ath12k: fix x" are the same fix in two drivers."""
    cands = set()
    for h, s in t.patches:
        bare = _without_prefix(h, s)
        found = owner.get(("summary", bare)) if bare else unprefixed.get(_summary_key(h, s))
        if found is not None:
            cands.add(found)
    # nearly the same lines; or, for a higher revision, some of the same files (a v5 reworked
    # after review that also dropped the "iw: " prefix)
    taken = [f for f in cands if _belongs(t, fams[f], "summary") and (
        _similar(t, fams[f].last, SAME_DIFF) or t.top > fams[f].last.top and bool(t.files & fams[f].last.files))]
    return max(taken, key=lambda f: (fams[f].newest, f)) if taken else None


def _replaced_home(t: PatchThread, patch_home: dict[str, tuple[int, MailHead, bool]], fams: list[_Family]) -> int | None:
    """The family whose patch `t` was posted under by that patch's own sender, changing some of
    its files: the author's answer to the review, another way to the same change ("a better fix
    would be not to have the workqueues" answered with "igb: avoid starting them"). A patch
    someone else posts under it, one on other files, one under a patch of a series (it replaces
    that patch only), or a series answering a suggestion (it builds on the patch), is a posting
    of its own."""
    if t.answers is None or t.answers not in patch_home:
        return None
    home, above, alone = patch_home[t.answers]
    mine = t.first_patch()
    if not alone or not _lone(t) or address_of(mine.sender) != address_of(above.sender) or not set(above.paths) & t.files:
        return None  # under patch 1 of 4 it replaces that patch only: a posting of its own
    return home if _belongs_in_time(t, fams[home]) else None


RFC_ANSWER_WINDOW_S = 30 * 86400  # the patch an RFC asked about follows its answers within weeks


def _person_keys(h: MailHead) -> set[str]:
    """Who sent a mail: the address, and a display name of two words or more ("Gustavo A. R.
    Silva" sends from two addresses); one word names nobody in particular."""
    name = " ".join(mailbox(h.sender)[0].split())
    return {address_of(h.sender)} | ({"name:" + name} if len(name.split()) >= 2 else set())


_WORD_RE = re.compile(r"[a-z][a-z0-9]{3,}")
_PLAIN_WORDS = frozenset("this that with from into when just some more only also them they have been were "
                         "what which about make makes".split())


def _subject_words(t: PatchThread) -> set[str]:
    """The words of substance (four letters or more) of a thread's patch summaries."""
    return {w for _, s in t.patches if s.counter != 0 for w in _WORD_RE.findall(s.summary.lower())} - _PLAIN_WORDS


def _is_rfc(t: PatchThread) -> bool:
    return all(s.rfc for _, s in t.patches)


def _rfc_answered_home(t: PatchThread, rfcs: dict[str, list[int]], fams: list[_Family]) -> int | None:
    """The family of a lone RFC that `t`, its sender's lone patch on all of the RFC's files
    (and maybe more) within RFC_ANSWER_WINDOW_S, numbered v1 or the RFC's next revision, its
    summary sharing a word of substance with the RFC's, carries on: the change the RFC asked about
    ("Can we just remove this flexible array?", then "Avoid a hundred -Wflex-array-member-not-at-end
    warnings"), posted as a patch under its own subject. Another doc patch after a doc RFC shares
    the files, not the words."""
    if not _lone(t) or _is_rfc(t):
        return None
    mine, start = t.first_patch(), t.first_patch_date()
    cands = {f for k in _person_keys(mine) for f in rfcs.get(k, ())}
    # numbered afresh (v1) or as the RFC's next revision: a v3 has two revisions before it, not this RFC
    taken = [f for f in cands if (r := fams[f].last) is not None and _is_rfc(r) and _lone(r) and t.top <= r.top + 1
             and r.files and r.files <= t.files and 0 < start - r.newest_patch_date() <= RFC_ANSWER_WINDOW_S
             and _subject_words(r) & _subject_words(t)]
    return max(taken, key=lambda f: (fams[f].newest, f)) if taken else None


def families(threads: list[PatchThread]) -> list[list[PatchThread]]:
    fams: list[_Family] = []
    owner: dict[tuple[str, str], int] = {}  # identity key -> the family that used it last
    unprefixed: dict[str, int] = {}  # a prefixed summary key, its prefix taken off -> its family
    patch_home: dict[str, tuple[int, MailHead, bool]] = {}  # patch mail id -> family, mail, a lone patch
    rfcs: dict[str, list[int]] = {}  # a sender's key -> the families of their lone RFCs
    for t in sorted(threads, key=lambda t: (t.newest_patch_date(), t.first_patch().msgid)):
        keys = t.identity()
        home = _home(t, keys, owner, fams)
        if home is None:
            home = _prefix_home(t, owner, unprefixed, fams)
        if home is None:
            home = _replaced_home(t, patch_home, fams)
        if home is None:
            home = _rfc_answered_home(t, rfcs, fams)
        if home is None:
            home = len(fams)
            fams.append(_Family())
        fams[home].add(t)
        alone = _lone(t)
        for h, _ in t.patches:
            patch_home[h.msgid] = (home, h, alone)
        if alone and _is_rfc(t):
            for k in _person_keys(t.first_patch()):
                rfcs.setdefault(k, []).append(home)
        for k in keys:
            owner[k] = home
        for h, s in t.patches:
            bare = _without_prefix(h, s)
            if bare:
                unprefixed[bare] = home
    return [f.threads for f in fams]


def restarted(fam: list[PatchThread]) -> list[PatchThread]:
    """The postings of a family numbered afresh: begun after the last patch of its highest
    revision, the first of them carrying most of that revision's patches ("resend it as v1" after
    an internal v4, as intel-wired-lan asks). Empty when the numbering never started again; a
    patch split out of the series and posted alone later is no restart."""
    top = max(fam, key=lambda t: (t.top, t.newest_patch_date()))
    later = sorted((t for t in fam if t.first_patch_date() > top.newest_patch_date()), key=lambda t: t.first_patch_date())
    wanted = {s.summary for _, s in top.patches if s.counter != 0}
    if not later or not wanted:
        return []
    kept = {s.summary for _, s in later[0].patches if s.counter != 0} & wanted
    return later if 2 * len(kept) > len(wanted) else []


def current_posting(fam: list[PatchThread]) -> PatchThread:
    """The posting of a family that is current: its highest revision (the newest posting of it),
    counted among the postings numbered afresh when the numbering started again (restarted)."""
    return max(restarted(fam) or fam, key=lambda t: (t.top, t.newest_patch_date()))


def root_of(t: PatchThread) -> MailHead:
    """The thread's first mail: the one answering no mail of the thread (the oldest of those)."""
    ids = {h.msgid for h in t.heads}
    roots = [h for h in t.heads if not any(p in ids for p in h.parents)] or t.heads
    return min(roots, key=lambda h: h.date or 0.0)


def by_kind(threads: list[PatchThread]) -> tuple[list[PatchThread], dict[str, int]]:
    """(the threads for the queue, a count by kind of those that are not: mail/kinds.py)."""
    kept, kinds = [], {}
    for t in threads:
        root = root_of(t)
        kind = mail_kind(root.subject, root.sender, root.date)
        # a fix posted in reply to a robot's report (syzbot's, say) is a series all the same
        if kind is None or any(h.sender != root.sender for h, _ in t.patches):
            kept.append(t)
        else:
            kinds[kind] = kinds.get(kind, 0) + 1
    return kept, dict(sorted(kinds.items()))


def patch_families(heads: Iterable[MailHead]) -> list[list[PatchThread]]:
    """The archive's patch threads by series family (each family's threads oldest first), by the
    same three steps as triage/group.group_archive: for readers that want every revision, not the newest
    (`reviewtool profile learn` learns from the revision the maintainers applied)."""
    threads, _ = by_kind(threads_of(list(heads)))
    fams = families(joined([t for t in threads if t.patches]))
    return [sorted(f, key=lambda t: (t.top, t.newest_patch_date())) for f in fams]
