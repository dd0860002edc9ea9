"""The archive's header index, kept in the result store, so that a run reads only what is new.

- An mbox whose first bytes are the ones indexed (store_mbox.py checks a digest) is read from its
  last mail on; one changed anywhere else is read whole. Checking the old part costs a fraction
  of a second for 250 MB; parsing its headers again would cost seconds.
- A single-mail file (a maildir's, a directory's) whose size, mtime, ctime and inode are those
  stored is not read again: any write sets ctime. In a plain directory, a file written in the last
  seconds is not stored, as a second write within the same clock tick would keep its timestamps;
  a maildir's files are complete when they appear (delivered into tmp/, then renamed).
- A gzip file whose signature is the one stored is not read: its mails point into the copy it
  unpacks to, made only when a series must be reviewed or a reply read (Indexed.unpack).
- Fetched threads (scratch copies) are indexed whole on every run.
The result is what sources/index.index_inputs gives, in the same order, plus a digest of every
mail's bytes (store_keys.mail_digest), which the series' keys are made of.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from ..collector import paused
from ..errors import InputError
from ..limits import limits
from ..sources.archives import index_inputs
from ..sources.inbox import epochs, is_inbox
from ..sources.index import MailHead, index_file
from ..sources.input_files import gzip_cut, gzip_note, is_gzip, mail_files, unpack_gzip, unpacked_path
from ..sources.newest import Newest
from ..sources.segments import SegmentScan
from .index_rows import append_rows, decode_rows, encode_rows
from .indexed import Indexed, add, newest, note_source, single_sig, single_tail
from .store import Guard
from .store_files import ReadAhead, one_mail, real_paths, signature
from .store_inbox import epoch_mails
from .store_keys import code_digest
from .store_maildir import MaildirRow, name_in
from .store_mbox import PrefixDigest, scan_grown, scan_whole, with_digests


class _StoredError(InputError):
    """A file that is not mail, as the store remembers it."""


@paused()  # the heads and rows it makes hold no cycles: collections during it only walked them
def index_archive(paths: list[Path], scratch: Path, guard: Guard, skipped: list[str],
                  labels: dict[Path, str], segmented: SegmentScan | None = None, defer: bool = False) -> Indexed:
    """Every mail of every input, as index_inputs, through the store's index when there is one;
    `segmented` as for index_file (a large mbox scanned in segments, with the worker pool).
    `defer`: the rows read are written when the caller calls save_rows, else before returning."""
    out = Indexed(guard=guard, single_tail=single_tail())
    for p in paths:
        if not guard.usable and (is_inbox(p) or not p.is_dir()):  # without a store, as index_inputs reads it
            kept: Newest = Newest()
            kept.extend(index_inputs([p], scratch, skipped, labels, segmented, out.limited))
            out.heads.extend(kept.done())
            out.left_out += kept.left_out
            out.keep_newest()
            continue
        if is_inbox(p):
            _index_inbox(p, labels.get(p, str(p)), guard, out)
            continue
        files = mail_files(p)
        maildir = p.is_dir() and all((p / d).is_dir() for d in ("cur", "new", "tmp"))
        # Rows are keyed by the real path: the same archive named from another directory is the same
        stored = guard.call(lambda s: s.files(os.path.realpath(p)), default=None)
        if maildir and stored is not None and guard.usable and not (labels and any(f in labels for f in files)):
            _index_maildir(p, files, stored, out, scratch, guard, segmented, skipped)
            continue
        rows: list[tuple[str, str, bytes]] = []
        keys = real_paths(files) if stored is not None else [(f, "") for f in files]  # keys name rows
        ahead = ReadAhead([f for f, key in keys if stored is None or key not in stored], labels, segmented,
                           maildir)
        for f, key in keys:  # the files in order
            named = bool(labels) and f in labels  # scratch files only: most runs have none (a Path's hash costs)
            label = labels[f] if named else str(f)
            keep = stored is not None and guard.usable and not named
            stat = signature(f, maildir) if keep else None
            _index_file(p, f, key, label, stored if keep else None, stat, out, rows, scratch, guard, segmented,
                        skipped, maildir, ahead.take(f, stat, keep))
        if stored is not None:
            gone = set(stored) - {key for _, key in keys}
            if rows or gone:
                out.pending.append((os.path.realpath(p), rows, gone))
    if not guard.usable:
        out.sources = None  # a directory without a store is read as with one (one open a file, read
        # ahead by the workers), only nothing is kept
    if not defer:
        out.save_rows()
    return out


def _index_file(p: Path, f: Path, key: str, label: str, stored: dict | None, stat: tuple[list[int], bool] | None,
                out: Indexed, rows: list, scratch: Path, guard: Guard, segmented: SegmentScan | None,
                skipped: list[str], maildir: bool, read: tuple[list[MailHead], list[bytes]] | None = None) -> None:
    """Index one file of input `p` into `out` through its own row (`stored`: the input's rows,
    None when the store keeps none for the file); the row to write, if any, goes to `rows`."""
    before = len(out.heads)
    try:
        row, effective = _index_one(f, label, scratch, stored.get(key) if stored is not None else None, out, stat,
                                    guard, segmented, read)
    except InputError as exc:
        if f == p:
            raise
        skipped.append(exc.one_line())
        stale = stored is not None and not isinstance(exc, _StoredError)
        row = _error_row(f, label, exc.one_line(), maildir) if stale else None
        effective = stored[key] if isinstance(exc, _StoredError) else row
    if row is not None:
        rows.append((key, *row))
    note_source(out, f, label, effective, before)
    out.keep_newest()
    if stored is not None:
        out.used_files.append(key)


def _index_maildir(p: Path, files: list[Path], stored: dict, out: Indexed, scratch: Path, guard: Guard,
                   segmented: SegmentScan | None, skipped: list[str]) -> None:
    """A maildir through its one row (store_maildir.py): each file whose signature is the one
    stored is taken from it; any other is read, and a file that is not one mail has a row of its own."""
    root = os.path.realpath(p)
    whole = MaildirRow(stored.get(root))
    rows: list[tuple[str, str, bytes]] = []
    used = {root}
    noted: list[int] = []  # the places in out.sources of the files whose mails are the maildir row's
    names = [name_in(f) for f in files]
    ahead = ReadAhead([f for f, name in zip(files, names) if name not in whole.old], {}, segmented, True)
    for f, name in zip(files, names):
        label = str(f)
        stat = signature(f, True)
        sig = stat[0] if stat is not None else None
        before = len(out.heads)
        kept = whole.kept(f, name, sig, label)
        if kept is not None:
            out.files_kept += 1
            if kept[1] is not None:
                skipped.append(kept[1])
            add(out, kept[0])
        else:
            error = None
            try:
                read = (ahead.take(f, stat, True) or one_mail(f, label)) if stat is not None else None
            except InputError as exc:  # not mail: said now, and on every run while the file stays as it is
                error, read = exc.one_line(), None
            if error is not None:
                skipped.append(error)
                whole.read(name, sig, label, [], error)
            elif read is None:  # not one mail (or gone meanwhile): a row of its own, as any file's
                key = os.path.realpath(f)
                used.add(key)
                _index_file(p, f, key, label, stored, stat, out, rows, scratch, guard, segmented, skipped, True)
                continue
            else:
                _index_whole(f, label, scratch, out, None, segmented, read)
                whole.read(name, sig, label, [(h, out.digests[h.ref]) for h in out.heads[before:]])
        if out.sources is not None:
            noted.append(len(out.sources))
            out.sources.append((label, label, None))
        out.keep_newest()
    made = whole.result()
    row = whole.stored if made is None else made
    if made is not None:
        rows.append((root, *made))
    if out.sources is not None:
        for i in noted:
            path, label, _ = out.sources[i]
            out.sources[i] = (path, label, row)
    out.used_files.extend(used)
    gone = set(stored) - used
    if rows or gone:
        out.pending.append((root, rows, gone))


def _index_inbox(p: Path, label: str, guard: Guard, out: Indexed) -> None:
    """A public-inbox's epochs through their stored rows (store_inbox.py): each one read from the
    commit its row was read up to, not at all when its tip stands."""
    stored = guard.call(lambda s: s.files(os.path.realpath(p)), default=None)
    rows: list[tuple[str, str, bytes]] = []
    keys = set()
    for repo in epochs(p):
        key = os.path.realpath(repo)
        keys.add(key)
        row = stored.get(key) if stored is not None and guard.usable else None
        state, old = _stored_epoch(row, repo, label)
        before = len(out.heads)
        got = epoch_mails(repo, label, state, old)
        out.files_kept += got.how == "kept"
        out.files_resumed += got.how == "resumed"
        out.files_read += got.how == "read"
        out.mails_read += got.read
        out.mails_new += got.read
        fresh = add(out, got.pairs, got.state)
        if fresh is not None:
            rows.append((key, *fresh))
        note_source(out, repo, label, fresh or (row if got.how == "kept" else None), before)
        out.keep_newest()
        if stored is not None:
            out.used_files.append(key)
    gone = set(stored) - keys if stored is not None else set()
    if stored is not None and (rows or gone):
        out.pending.append((os.path.realpath(p), rows, gone))


def _stored_epoch(row: tuple[str, bytes] | None, repo: Path, label: str) -> tuple[dict | None, list | None]:
    """The stored state and mails of an epoch, when its row was written by this code under this
    limit and decodes; (None, None) otherwise (it is read whole, the row replaced)."""
    if row is None:
        return None, None
    try:
        state = json.loads(row[0])
        if state.get("code") != code_digest() or state.get("cap") != limits().archive_mails:
            return None, None
        return state, decode_rows(row[1], repo, label)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, zlib.error, RecursionError):
        return None, None


def _index_one(f: Path, label: str, scratch: Path, stored: tuple[str, bytes] | None, out: Indexed,
               stat: tuple[list[int], bool] | None, guard: Guard, segmented: SegmentScan | None = None,
               read: tuple[list[MailHead], list[bytes]] | None = None):
    """Index one file into `out`: (the row to store for it, the row its mails are now those of);
    None for the first when there is none to store or the stored one stands, for the second when
    no row holds them. `stat` is signature()'s answer for a file the store keeps, None for one it does not;
    `read`, one_mail's answer for it when ReadAhead read it already."""
    if stored is not None and stat is not None:
        try:
            done = _from_store(f, label, stored, stat, out, scratch)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, zlib.error, RecursionError):
            done = False  # a row that does not decode is a miss: the file is read whole, the row replaced
        if done is not False:
            return done, done or stored
    row = _index_whole(f, label, scratch, out, stat, segmented, read)
    return row, row


def _index_whole(f: Path, label: str, scratch: Path, out: Indexed, stat: tuple[list[int], bool] | None,
                 segmented: SegmentScan | None, read: tuple[list[MailHead], list[bytes]] | None = None
                 ) -> tuple[str, bytes] | None:
    """Read the file whole into `out` (`read`: as one_mail read it already); the row to store for
    it (None: none)."""
    if (one := read or one_mail(f, label)) is not None:
        heads = newest(one[0], out)
        out.files_read += 1
        out.mails_read += len(heads)
        out.mails_new += len(heads)
        pairs = list(zip(heads, one[1]))
        return add(out, pairs, None if stat is None else {"kind": "single", "sig": stat[0]} if stat[1] else None)
    path = unpack_gzip(f, scratch) if is_gzip(f) else f
    cut = gzip_cut(f, path) if path != f else None
    if cut is not None:
        out.limited.append(gzip_note(label, cut))
    scanned = scan_whole(path, label, segmented) if stat is not None and path == f else None
    heads = scanned.heads if scanned is not None else newest(index_file(path, label, segmented, cut), out)
    out.files_read += 1
    out.mails_read += len(heads)
    out.mails_new += len(heads)
    pairs = list(zip(heads, scanned.digests)) if scanned is not None and scanned.digests is not None \
        else with_digests(path, heads) if out.keeping else [(h, b"") for h in heads]
    if stat is None:
        return add(out, pairs, scanned.state if scanned is not None else None)
    sig, settled = stat
    if scanned is not None:
        out.left_out += scanned.left_out
        return add(out, pairs, _signed(scanned.state, sig, settled))
    if path != f:  # a gzip: kept while its signature stays (any write changes its ctime), and
        # only when read whole (one cut at its bound is read again, and said, every run)
        return add(out, pairs, {"kind": "gzip", "sig": sig} if settled and cut is None else None)
    return add(out, pairs, {"kind": "single", "sig": sig} if settled else None)


def _from_store(f: Path, label: str, stored: tuple[str, bytes], stat: tuple[list[int], bool], out: Indexed,
                scratch: Path):
    """The file's mails from its stored row: None (the row stands), a new row (an mbox that
    grew), or False (read the file whole). A gzip's mails point into the copy it unpacks to,
    which is made only if something reads them (Indexed.unpack). An mbox whose signature is the
    one stored (it had settled then) is not read at all, as a single mail's file is not."""
    sig, settled = stat
    single = single_sig(stored[0], out.single_tail)
    if single is not None:  # one mail's file of a directory, as the run that indexed it left it or not
        if single != sig:
            return False
        out.files_kept += 1
        add(out, decode_rows(stored[1], f, label))
        return None
    state = json.loads(stored[0])
    if state.get("code") != code_digest() or state.get("cap") != limits().archive_mails:
        return False  # indexed by other code, or keeping another number of mails: its reading may differ
    if state["kind"] == "error" and state["label"] != label:
        return False  # its message names the file as it was named then
    if state["kind"] in ("single", "error") and state["sig"] == sig:
        out.files_kept += 1
        if state["kind"] == "error":
            raise _StoredError(state["message"])
        add(out, decode_rows(stored[1], f, label))
        return None
    if state["kind"] == "gzip" and state["sig"] == sig:
        target = unpacked_path(f, scratch)
        add(out, decode_rows(stored[1], target, label))
        out.packed[target] = f
        out.files_kept += 1
        return None
    if state["kind"] != "mbox":
        return False
    if state.get("sig") == sig:
        out.files_kept += 1
        add(out, decode_rows(stored[1], f, label))
        return None
    prefix = PrefixDigest(f, state["end"]) if isinstance(state.get("end"), int) else None
    try:
        old = decode_rows(stored[1], f, label)
    except BaseException:
        if prefix is not None:
            prefix.cancel()
        raise
    grown = scan_grown(f, label, state, [h for h, _ in old], prefix)
    if grown is None:
        return False
    out.files_resumed += 1
    out.mails_read += len(grown.heads)
    new = _signed(grown.state, sig, settled)
    unchanged = new is not None and all(new.get(k) == state.get(k) for k in ("end", "digest", "sig"))
    read = with_digests(f, grown.heads)
    out.mails_new += len(read) - (read[:1] == old[-1:])
    whole = old[:-1] + read
    return add(out, whole, None if unchanged else new, lambda: append_rows(stored[1], 1, read, whole))


def _signed(state: dict | None, sig: list[int], settled: bool) -> dict | None:
    """An mbox's state with the file's signature when it has settled: the next run that finds the
    same signature keeps the row without reading the file (any write changes its ctime)."""
    return {**state, "sig": sig} if state is not None and settled else state


def _error_row(f: Path, label: str, message: str, maildir: bool) -> tuple[str, bytes] | None:
    """A file that is not mail, remembered so that it is not read again while it stays as it is."""
    stat = signature(f, maildir)
    if stat is None or not stat[1]:
        return None
    state = {"kind": "error", "sig": stat[0], "label": label, "message": message, "code": code_digest(),
             "cap": limits().archive_mails}
    return json.dumps(state), encode_rows([])
