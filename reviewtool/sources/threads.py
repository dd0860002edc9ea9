"""Threads of parsed mail: what the input holds besides the series reviewed, and older copies of a
revision set apart (conversation/posting.py picks the posting to review).

"""

from __future__ import annotations

from email.message import EmailMessage
from datetime import datetime, timezone

from ..mail.headers import header, ids_in, message_id_of, msg_date
from ..mail.message import DIFF_RE, body_text, is_patch_mail
from ..mail.subject import normalized_summary, parse_subject
from .unionfind import DisjointSets

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def group_threads(msgs: list[EmailMessage]) -> list[list[EmailMessage]]:
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
    return list(groups.values())


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


def _patch_key(msg: EmailMessage) -> tuple[int, int]:
    s = parse_subject(header(msg, "Subject"))
    return s.revision, s.counter if s.counter is not None else 1


def split_reposts(msgs: list[EmailMessage], current: str | None = None
                  ) -> tuple[list[EmailMessage], dict[int, list[EmailMessage]]]:
    """(messages to build the series from, {revision: older copies of its mails, oldest first}).

    Two mails with the same revision and counter are postings of one patch when they carry the
    same summary or sit in different threads; the newest is kept. Same thread and different
    summaries is a numbering mistake instead, left for b4 and the numbering rule to see, unless
    one of them is `current`: the posting the linker chose (conversation/revisions.py: a patch
    its author posted under the review of the old one), kept over the others.
    """
    root = {}
    for i, t in enumerate(group_threads(msgs)):
        for m in t:
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
        chosen = [m for m in copies if current is not None and message_id_of(m) == current]
        newest = chosen[0] if chosen else copies[-1]
        summary = normalized_summary(parse_subject(header(newest, "Subject")))
        for m in copies:
            if m is newest:
                continue
            if chosen or root[id(m)] != root[id(newest)] or normalized_summary(parse_subject(header(m, "Subject"))) == summary:
                older.setdefault(revision, []).append(m)
                dropped.add(id(m))
    _other_totals(msgs, root, current, dropped, older)
    for revision in older:
        older[revision].sort(key=lambda m: msg_date(m) or _EPOCH)
    return [m for m in msgs if id(m) not in dropped], older


def _other_totals(msgs: list[EmailMessage], root: dict[int, int], current: str | None, dropped: set[int],
                  older: dict[int, list[EmailMessage]]) -> None:
    """A posting of the same revision in another thread with another total (the RFC of 8 patches
    before the 5 it became) is another posting as a whole, not patches missing from this one: its
    mails the copies left go with the older ones. Only the revision under review is so split (the
    one `current` is of, else the newest), from its newest posting: an earlier revision keeps its
    stray parts, and the reviews they got."""
    patches = [m for m in msgs if id(m) not in dropped and is_patch_mail(m)]
    anchor = next((m for m in patches if current is not None and message_id_of(m) == current), None)
    revision = _patch_key(anchor)[0] if anchor is not None else max((_patch_key(m)[0] for m in patches), default=None)
    mails = [m for m in patches if _patch_key(m)[0] == revision]
    if len({root[id(m)] for m in mails}) < 2:
        return
    anchor = anchor or max(mails, key=lambda m: msg_date(m) or _EPOCH)
    total = parse_subject(header(anchor, "Subject")).expected
    for m in mails:
        if root[id(m)] != root[id(anchor)] and parse_subject(header(m, "Subject")).expected != total:
            older.setdefault(revision, []).append(m)
            dropped.add(id(m))
