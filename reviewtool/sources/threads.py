"""Group parsed mail into threads and pick the one to review.

A file may hold several threads (a list archive, several revisions each in its own thread).
`--msgid` picks one; otherwise the thread with the newest patch is reviewed. Threads that carry
earlier revisions of the same series (same summary and author, or same change-id) come along so
the revision rules can compare them, and so do older postings of the same revision (a RESEND, or
a repost without a version bump). `split_reposts` then sets those older copies apart, so b4 does
not mistake a second copy of patch 2/3 for an extra patch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from email.message import EmailMessage
from datetime import datetime, timezone

from ..errors import InputError
from ..limits import limits
from ..mail.headers import header, ids_in, message_id_of, msg_date
from ..mail.message import DIFF_RE, body_text, is_patch_mail
from ..mail.subject import normalized_summary, parse_subject
from .unionfind import DisjointSets
from .unthreaded import join_unthreaded, unthreaded_marker

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class Thread:
    messages: list[EmailMessage]

    @cached_property
    def patch_mails(self) -> list[EmailMessage]:
        return [m for m in self.messages if is_patch_mail(m)]

    def newest_patch_date(self) -> datetime:
        dates = [msg_date(m) or _EPOCH for m in self.patch_mails]
        return max(dates, default=_EPOCH)

    def identity(self) -> set[tuple[str, str]]:
        """Keys that identify the series across revisions: (summary, author) of any of its mails
        (a single patch may grow into a series, or lose its cover letter), and change-id."""
        keys: set[tuple[str, str]] = set()
        for m in self.patch_mails:
            s = parse_subject(header(m, "Subject"))
            keys.add(("summary", normalized_summary(s) + "|" + header(m, "From").lower()))
            cid = re.search(r"^change-id:\s*(\S+)", body_text(m), re.M)
            if cid:
                keys.add(("change-id", cid.group(1)))
        return keys

    def revisions(self) -> set[int]:
        return {parse_subject(header(m, "Subject")).revision for m in self.patch_mails}


def group_threads(msgs: list[EmailMessage]) -> list[Thread]:
    sets = DisjointSets()
    own_ids = []
    for msg in msgs:
        mid = message_id_of(msg) or ""
        own_ids.append(mid)
        sets.find(mid)
        for ref in ids_in(header(msg, "In-Reply-To")) + ids_in(header(msg, "References")):
            sets.union(mid, ref)
    groups: dict[str, list[EmailMessage]] = {}
    for mid, msg in zip(own_ids, msgs):
        groups.setdefault(sets.find(mid), []).append(msg)
    return [Thread(g) for g in groups.values()]


def joined_threads(msgs: list[EmailMessage]) -> list[Thread]:
    """group_threads, with patches sent without threading joined into their series as patchwork
    joins them (sources/unthreaded.py)."""
    threads = group_threads(msgs)
    with_patches = [t for t in threads if t.patch_mails]

    def marker(t: Thread):
        return unthreaded_marker((header(m, "From").lower(), parse_subject(header(m, "Subject")))
                                 for m in t.patch_mails)

    groups = join_unthreaded(with_patches, marker,
                             lambda t: {parse_subject(header(m, "Subject")).counter for m in t.patch_mails},
                             lambda t: t.newest_patch_date().timestamp())
    joined = [g[0] if len(g) == 1 else Thread([m for t in g for m in t.messages]) for g in groups]
    return joined + [t for t in threads if not t.patch_mails]


def select_thread(msgs: list[EmailMessage], msgid: str | None, origin: str) -> list[EmailMessage]:
    """The messages to review: the chosen thread plus threads holding its earlier revisions."""
    if not msgs:
        raise InputError(f"{origin}: no mail messages found")
    threads = joined_threads(msgs)
    if msgid:
        chosen = next((t for t in threads if any(message_id_of(m) == msgid for m in t.messages)), None)
        if chosen is None:
            raise InputError(f"{origin}: message-id <{msgid}> is not in the input")
        if not chosen.patch_mails:
            raise InputError(f"{origin}: the thread of <{msgid}> holds no patch")
    else:
        with_patches = [t for t in threads if t.patch_mails]
        if not with_patches:
            subj = header(msgs[0], "Subject") or "(no subject)"
            raise InputError(f"{origin}: no patch in the input (first subject: {subj[:80]!r})")
        # Equal dates are common: format-patch -v2 of rebased commits keeps their author dates.
        chosen = max(with_patches, key=lambda t: (t.newest_patch_date(), max(t.revisions(), default=1)))
    ident = chosen.identity()
    newest = max(chosen.revisions(), default=1)
    newest_date = chosen.newest_patch_date()
    selected = list(chosen.messages)
    summaries = {normalized_summary(parse_subject(header(m, "Subject"))) for m in chosen.patch_mails}
    for t in threads:
        if t is not chosen and not t.patch_mails and _answers_earlier_posting(t, summaries):
            selected = t.messages + selected  # a review of a posting the input lacks (its tags count)
            continue
        if t is chosen or not t.patch_mails or not t.identity() & ident:
            continue
        top = max(t.revisions(), default=1)
        # Earlier revisions, and older postings of the reviewed one; never a newer posting.
        if top < newest or (top == newest and t.newest_patch_date() < newest_date):
            selected = t.messages + selected
    cap = limits().thread_messages
    if len(selected) > cap:
        raise InputError(f"{origin}: the thread under review has {len(selected)} messages, over the limit of "
                         f"{cap} (REVIEWTOOL_MAX_MESSAGES)")
    return selected


def heads_of(msgs: list[EmailMessage]) -> list[tuple[str, tuple[str, ...], str, float]]:
    """(message-id, parents, subject, date) of each mail, as the header index has them."""
    out = []
    for m in msgs:
        mid = message_id_of(m)
        if mid:
            d = msg_date(m)
            out.append((mid, tuple(ids_in(header(m, "In-Reply-To")) + ids_in(header(m, "References"))),
                        header(m, "Subject"), d.timestamp() if d else 0.0))
    return out


def series_outside(heads: list[tuple[str, tuple[str, ...], str, float]], selected: set[str]) -> list[tuple[str, str]]:
    """(message-id, subject) of the first patch of each thread (by In-Reply-To/References) that
    holds a patch and no selected mail: the other series of an input holding several. From
    headers alone, so a narrowed archive (sources/narrow.py) finds the same as the whole file."""
    sets = DisjointSets()
    for mid, parents, _, _ in heads:
        sets.find(mid)
        for p in parents:
            sets.union(mid, p)
    threads: dict[str, list[tuple[str, tuple[str, ...], str, float]]] = {}
    for h in heads:
        threads.setdefault(sets.find(h[0]), []).append(h)
    out = []
    for t in threads.values():
        patches = [(s.counter or 0, h[3], h[0], h[2]) for h in t
                   if (s := parse_subject(h[2])).is_patch and not s.reply]
        if patches and not any(h[0] in selected for h in t):
            first = min(patches)
            out.append((first[1], first[2], first[3]))
    return [(mid, subject) for _, mid, subject in sorted(out, reverse=True)]


def skipped_note(others: list[tuple[str, str]], shown: int = 5) -> str | None:
    """What a review of one series of several says about the rest, and how to pick one."""
    if not others:
        return None
    listed = "; ".join(f"<{m}> {subject[:70]}" for m, subject in others[:shown])
    more = f"; and {len(others) - shown} more" if len(others) > shown else ""
    return (f"the input holds {len(others)} other series, not reviewed here (the newest was chosen): {listed}{more}; "
            "review one of them with --msgid MESSAGE-ID")


def _answers_earlier_posting(t: Thread, summaries: set[str]) -> bool:
    """A thread of replies only, whose root is missing and whose subject is `Re:` one of the
    series' patches: a review of an earlier posting of them that the input does not hold."""
    for m in t.messages:
        s = parse_subject(header(m, "Subject"))
        if s.reply and s.brackets and normalized_summary(s) in summaries:
            return True
    return False


def _patch_key(msg: EmailMessage) -> tuple[int, int]:
    s = parse_subject(header(msg, "Subject"))
    return s.revision, s.counter if s.counter is not None else 1


def split_reposts(msgs: list[EmailMessage]) -> tuple[list[EmailMessage], dict[int, list[EmailMessage]]]:
    """(messages to build the series from, {revision: older copies of its mails, oldest first}).

    Two mails with the same revision and counter are postings of one patch when they carry the
    same summary or sit in different threads; the newest is kept. Same thread and different
    summaries is a numbering mistake instead, left for b4 and the numbering rule to see.
    """
    root = {}
    for i, t in enumerate(group_threads(msgs)):
        for m in t.messages:
            root[id(m)] = i
    groups: dict[tuple[int, int], list[EmailMessage]] = {}
    for m in msgs:
        if is_patch_mail(m):
            groups.setdefault(_patch_key(m), []).append(m)
    older: dict[int, list[EmailMessage]] = {}
    dropped: set[int] = set()
    for (revision, _), copies in groups.items():
        # A diff-less answer to a copy is a reply that kept the subject (no `Re:`), not a posting.
        ids = {message_id_of(m) for m in copies}
        copies = [m for m in copies if not (ids_in(header(m, "In-Reply-To"))[:1] and ids_in(header(m, "In-Reply-To"))[0] in ids
                                            and not DIFF_RE.search(body_text(m)))]
        if len(copies) < 2:
            continue
        copies = sorted(copies, key=lambda m: msg_date(m) or _EPOCH)  # stable: file order on ties
        newest = copies[-1]
        summary = normalized_summary(parse_subject(header(newest, "Subject")))
        for m in copies[:-1]:
            if root[id(m)] != root[id(newest)] or normalized_summary(parse_subject(header(m, "Subject"))) == summary:
                older.setdefault(revision, []).append(m)
                dropped.add(id(m))
    for revision in older:
        older[revision].sort(key=lambda m: msg_date(m) or _EPOCH)
    return [m for m in msgs if id(m) not in dropped], older
