"""The grouping of an archive whose index rows are those of an earlier run, kept in the store.

Grouping is a function of the archive's mails as indexed (group.group_archive of Indexed.heads),
and every file's mails are those of one stored row (Indexed.sources). So a run whose files all
come from the same rows, read by the same code, groups them as that run did: the store keeps
the grouping under a key made of those rows, and a warm run on an unchanged archive reads it
back instead of grouping again (a sixth of such a run). A file's mails are named by its place in
the run (a gzip's point into this run's unpacked copy), so the grouping is kept with files by
number and read back onto this run's paths. A row that does not read back as a grouping is a
miss: the archive is grouped again and the row replaced.
"""

from __future__ import annotations

import hashlib
import marshal
import zlib
from itertools import repeat

from ..collector import paused
from ..sources.index import MailRef
from .group import Grouping, OrphanThread, SeriesGroup, Superseded, group_archive
from .index_rows import Blob, blob_bytes
from .store import GROUPING, Guard
from .indexed import Indexed
from .store_keys import code_digest

def memo_key(indexed: Indexed) -> str | None:
    """The store's key for the grouping of these rows (None: some file's mails are in no row)."""
    if indexed.sources is None:
        return None
    h = hashlib.sha256(f"grouping\0{code_digest()}\0{len(indexed.sources)}".encode())
    row_digests: dict[int, bytes] = {}  # a maildir's files share its one row: hashed once
    for _, label, row in indexed.sources:
        state, blob = row
        h.update(b"\0" + label.encode("utf-8", "surrogatepass") + b"\0" + state.encode("utf-8", "surrogatepass"))
        if (digest := row_digests.get(id(row))) is None:
            digest = row_digests[id(row)] = hashlib.sha256(blob_bytes(blob)).digest()
        h.update(digest)
    return GROUPING + h.hexdigest()


def _fresh(indexed: Indexed) -> bool:
    """Some row was read this run and not encoded yet: no kept grouping can be of it."""
    return any(isinstance(blob, Blob) and not blob.made for _, _, (_, blob) in indexed.sources or ())


def grouped(indexed: Indexed, guard: Guard, defer: bool = False) -> tuple[Grouping, str | None]:
    """(The archive's grouping, the store key it is kept under, to mark used; None: not kept).
    `defer`: a grouping made here is not kept (the caller keeps it later, with keep), and rows
    read this run are not encoded to look one up."""
    key = memo_key(indexed) if guard.usable and not (defer and _fresh(indexed)) else None
    if key is None:
        return group_archive(indexed.heads), None
    row = guard.call(lambda s: s.reviews([key]), default={}).get(key)
    found = decode(row[2], indexed) if row is not None and row[0] == "" else None
    if found is not None and found.messages == len(indexed.heads):
        return found, key
    grouping = group_archive(indexed.heads)
    return (grouping, None) if defer else (grouping, keep(grouping, indexed, guard))


def keep(grouping: Grouping, indexed: Indexed, guard: Guard) -> str | None:
    """Keep the archive's grouping in the store; the key it is kept under (None: not kept)."""
    key = memo_key(indexed) if guard.usable else None
    blob = encode(grouping, indexed) if key is not None else None
    if blob is None:
        return None
    guard.call(lambda s: s.save_reviews([(key, "", None, "", blob)]))
    return key


def _ref(r: MailRef, files: dict[tuple[str, str], int]) -> list:
    return [files[(r.path, r.label)], r.offset, r.length, r.in_mbox, r.mboxrd, r.format_patch, r.blob]


@paused()
def encode(g: Grouping, indexed: Indexed) -> bytes | None:
    """The grouping with each mail's file as its number in the run (None: a file is named twice)."""
    files = {(path, label): i for i, (path, label, _) in enumerate(indexed.sources or ())}
    if len(files) != len(indexed.sources or ()):
        return None
    try:
        data = {"series": [[s.key, [_ref(r, files) for r in s.refs], s.revision, s.msgid, s.subject, s.date,
                            s.last_activity, [[x.revision, x.msgid, x.subject, x.date, x.why, [list(m) for m in x.patches]]
                                                 for x in s.superseded]]
                           for s in g.series],
                "orphans": [[o.msgid, o.subject, o.date, o.messages, list(o.missing), [_ref(r, files) for r in o.refs]]
                            for o in g.orphans],
                "other": g.other_threads, "messages": g.messages, "kinds": g.kinds}
    except KeyError:  # a mail of no recorded file
        return None
    return zlib.compress(marshal.dumps(data, 4), 1)  # as index_rows codes its rows


def _is_date(x) -> bool:
    return x is None or type(x) is float or type(x) is int


def _strs(xs) -> bool:
    return type(xs) is list and all(map(isinstance, xs, repeat(str)))


@paused()
def decode(blob: bytes, indexed: Indexed) -> Grouping | None:
    """The grouping kept in `blob`, its mails on this run's paths; None when it does not read as one."""
    sources = indexed.sources or ()
    try:
        data = marshal.loads(zlib.decompress(blob))
        if type(data) is not dict:
            raise ValueError("not a grouping")

        def refs(rows) -> tuple[MailRef, ...]:
            out = []
            for fi, off, length, in_mbox, rd, fp, obj in rows:
                if not (type(fi) is int and 0 <= fi < len(sources) and type(off) is int and type(length) is int
                        and off >= 0 and length >= 0 and type(in_mbox) is bool and type(rd) is bool
                        and type(fp) is bool and type(obj) is str):
                    raise ValueError("not a mail of the index")
                out.append(MailRef(sources[fi][0], off, length, in_mbox, rd, fp, sources[fi][1], obj))
            return tuple(out)

        series = []
        for key, rows, revision, msgid, subject, date, last, sup in data["series"]:
            if not (type(key) is int and type(revision) is int and type(msgid) is str and type(subject) is str
                    and _is_date(date) and _is_date(last)):
                raise ValueError("not a series group")
            superseded = []
            for rev, smsgid, ssubject, sdate, why, mails in sup:
                if not (type(rev) is int and type(smsgid) is str and type(ssubject) is str and _is_date(sdate)
                        and type(why) is str and type(mails) is list
                        and all(type(m) is list and len(m) == 2 and type(m[0]) in (int, type(None))
                                and type(m[1]) is str for m in mails)):
                    raise ValueError("not a superseded revision")
                superseded.append(Superseded(rev, smsgid, ssubject, sdate, why, tuple((c, m) for c, m in mails)))
            series.append(SeriesGroup(key, refs(rows), revision, msgid, subject, date, last, tuple(superseded)))
        orphans = []
        for msgid, subject, date, messages, missing, rows in data["orphans"]:
            if not (type(msgid) is str and type(subject) is str and _is_date(date) and type(messages) is int
                    and _strs(missing)):
                raise ValueError("not an orphan thread")
            orphans.append(OrphanThread(msgid, subject, date, messages, tuple(missing), refs(rows)))
        other, messages, kinds = data["other"], data["messages"], data["kinds"]
        if not (type(other) is int and type(messages) is int and type(kinds) is dict
                and all(type(k) is str and type(v) is int for k, v in kinds.items())):
            raise ValueError("not a grouping")
    except (ValueError, TypeError, KeyError, IndexError, EOFError, zlib.error, RecursionError, UnicodeError):
        return None
    return Grouping(series=series, orphans=orphans, other_threads=other, messages=messages, kinds=kinds)
