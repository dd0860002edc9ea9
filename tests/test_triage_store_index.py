"""The archive's header index kept in the result store: a grown mbox is read from where the last
run stopped, a maildir only for its new files, and the result is always the full index's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS
from reviewtool.sources.archives import index_inputs
from reviewtool.triage.store import Guard, Store
from reviewtool.triage.store_index import index_archive

NF = CORPUS / "netfilter-devel"


def guard(tmp_path: Path) -> Guard:
    errors: list[str] = []
    g = Guard(Store.open(tmp_path / "store.sqlite"), errors.append)
    g.errors = errors
    return g


def index(g: Guard, *paths: Path, scratch: Path):
    skipped: list[str] = []
    out = index_archive(list(paths), scratch, g, skipped, {})
    assert not g.errors, g.errors
    return out, skipped


def full(*paths: Path, scratch: Path):
    return list(index_inputs(list(paths), scratch))


def archive_bytes() -> bytes:
    """Real threads of several shapes (mboxrd and mboxo separators, quoting, many replies)."""
    files = sorted(NF.glob("*.mbox"))[:10] + sorted((CORPUS / "b4").glob("*.mbox"))[:4]
    return b"".join(f.read_bytes().rstrip(b"\n") + b"\n\n" for f in files)


def cut_points(data: bytes) -> list[int]:
    """Ends of mails, middles of mails, the middle of a `From ` line, right after one."""
    seps = [i for i in range(len(data)) if data.startswith(b"\nFrom ", i)]
    picks = seps[1:: max(1, len(seps) // 6)]
    return sorted({p for s in picks for p in (s + 1, s + 8, data.index(b"\n", s + 1) + 1, s - 500)})


def test_a_grown_mbox_is_read_from_where_the_last_run_stopped_and_equals_the_full_index(tmp_path):
    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    for cut in cut_points(data):
        g = guard(tmp_path / f"s{cut}")
        box.write_bytes(data[:cut])
        first, _ = index(g, box, scratch=tmp_path)
        assert first.heads == full(box, scratch=tmp_path) and first.files_read == 1
        box.write_bytes(data)  # the same file, grown
        grown, _ = index(g, box, scratch=tmp_path)
        assert grown.heads == full(box, scratch=tmp_path), cut
        assert (grown.files_resumed, grown.files_read) == (1, 0), cut
        assert grown.mails_read < len(grown.heads) - len(first.heads) + 3  # not the old mails again
        again, _ = index(g, box, scratch=tmp_path)
        assert again.heads == grown.heads and again.digests == grown.digests and again.mails_read == 1
        assert again.mails_new == 0 and grown.mails_new == len(grown.heads) - len(first.heads) + (grown.heads[len(first.heads) - 1] != first.heads[-1])
        g.close()


def test_the_digests_are_those_of_a_first_reading(tmp_path):
    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data[: len(data) // 2])
    g = guard(tmp_path)
    index(g, box, scratch=tmp_path)
    box.write_bytes(data)
    grown, _ = index(g, box, scratch=tmp_path)
    first_reading, _ = index(guard(tmp_path / "other"), box, scratch=tmp_path)
    assert grown.digests == first_reading.digests and len(grown.digests) == len(grown.heads)


def test_an_mbox_changed_before_its_end_is_indexed_again_from_the_start(tmp_path):
    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data)
    g = guard(tmp_path)
    index(g, box, scratch=tmp_path)
    at = data.index(b"Subject:", len(data) // 3)
    box.write_bytes(data[:at] + b"Subject: [PATCH] edited\n" + data[data.index(b"\n", at) + 1:] + data[:2000])
    changed, _ = index(g, box, scratch=tmp_path)
    assert (changed.files_resumed, changed.files_read) == (0, 1)
    assert changed.heads == full(box, scratch=tmp_path)
    box.write_bytes(data[: len(data) // 2])  # shorter than what was indexed
    shrunk, _ = index(g, box, scratch=tmp_path)
    assert shrunk.files_read == 1 and shrunk.heads == full(box, scratch=tmp_path)


def _maildir(root: Path, mails: list[bytes]) -> Path:
    for d in ("cur", "new", "tmp"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for i, m in enumerate(mails):
        (root / "cur" / f"{1700000000 + i}.M{i}P1.host:2,S").write_bytes(m)
    return root


def _mails() -> list[bytes]:
    from reviewtool.sources.files import read_raw_mails

    return [r.data for r in read_raw_mails(NF / "nf-next-ipvs-cleanups-v3.mbox")]


def test_a_maildir_is_read_only_for_its_new_files(tmp_path):
    mails = _mails()
    md = _maildir(tmp_path / "md", mails[:-1])
    g = guard(tmp_path)
    first, _ = index(g, md, scratch=tmp_path)
    assert first.files_read == len(mails) - 1
    again, _ = index(g, md, scratch=tmp_path)
    assert (again.files_read, again.files_kept) == (0, len(mails) - 1) and again.heads == first.heads
    (md / "new" / "1800000000.M9P1.host").write_bytes(mails[-1])  # delivered
    grown, _ = index(g, md, scratch=tmp_path)
    assert (grown.files_read, grown.files_kept) == (1, len(mails) - 1)
    assert grown.heads == full(md, scratch=tmp_path)
    flagged = sorted((md / "cur").iterdir())[0]
    flagged.rename(flagged.with_name(flagged.name.replace(":2,S", ":2,RS")))  # a mail client's flag change
    renamed, _ = index(g, md, scratch=tmp_path)
    assert (renamed.files_read, renamed.files_kept) == (1, len(mails) - 1)
    assert renamed.heads == full(md, scratch=tmp_path)
    # one row holds the maildir, naming each file it has now (the old name's mail is gone from it)
    from reviewtool.triage.store_maildir import MaildirRow

    rows = g.store.files(os.path.realpath(md))
    assert list(rows) == [os.path.realpath(md)]
    assert sorted(MaildirRow(rows[os.path.realpath(md)]).old) == sorted(
        f"{d}/{f.name}" for d in ("cur", "new") for f in (md / d).iterdir())


def test_a_rewritten_mail_file_is_read_again(tmp_path):
    mails = _mails()
    md = _maildir(tmp_path / "md", mails)
    g = guard(tmp_path)
    index(g, md, scratch=tmp_path)
    victim = sorted((md / "cur").iterdir())[2]
    victim.write_bytes(victim.read_bytes().replace(b"Subject: ", b"Subject: Re: ", 1))
    after, _ = index(g, md, scratch=tmp_path)
    assert after.files_read == 1 and after.heads == full(md, scratch=tmp_path)


def test_a_file_that_is_not_mail_is_remembered_and_still_named(tmp_path):
    md = _maildir(tmp_path / "md", _mails()[:2])
    (md / "cur" / "1600000000.junk:2,").write_bytes(b"\x00\x01 binary \x00" * 50)
    g = guard(tmp_path)
    _, skipped = index(g, md, scratch=tmp_path)
    again, skipped_again = index(g, md, scratch=tmp_path)
    assert skipped == skipped_again and len(skipped) == 1 and "binary" in skipped[0]
    assert again.files_read == 0


def test_gzip_and_files_indexed_by_other_code_are_read_whole(tmp_path, monkeypatch):
    import gzip
    import json

    from reviewtool.triage import store_files

    data = archive_bytes()
    gz = tmp_path / "archive.mbox.gz"
    gz.write_bytes(gzip.compress(data))
    g = guard(tmp_path)
    for _ in range(2):  # written a moment ago: it may still change without its times changing
        out, _ = index(g, gz, scratch=tmp_path)
        assert out.files_read == 1 and len(out.heads) == len(full(gz, scratch=tmp_path))
    monkeypatch.setattr(store_files, "RACY_S", 0.0)
    index(g, gz, scratch=tmp_path)
    for target in tmp_path.glob("*-archive.mbox"):
        target.unlink()  # a new run's scratch directory holds no unpacked copy
    out, _ = index(g, gz, scratch=tmp_path)  # settled and unchanged: not read, and not unpacked
    assert (out.files_read, out.files_kept, out.mails_read) == (0, 1, 0)
    assert out.heads == full(gz, scratch=tmp_path) and [str(p) for p in out.packed] == [out.heads[0].ref.path]
    for target in tmp_path.glob("*-archive.mbox"):
        target.unlink()
    out.unpack()  # for what reads mails: the same bytes where the index says
    with open(out.heads[-1].ref.path, "rb") as fh:
        fh.seek(out.heads[-1].ref.offset)
        assert fh.read(out.heads[-1].ref.length) in data
    gz.write_bytes(gzip.compress(data + b"\n"))  # rewritten: its signature changed
    out, _ = index(g, gz, scratch=tmp_path)
    assert out.files_read == 1
    box = tmp_path / "a.mbox"
    box.write_bytes(data)
    index(g, box, scratch=tmp_path)
    ((path, (state, heads)),) = g.store.files(os.path.realpath(box)).items()
    g.store.save_files(os.path.realpath(box), [(path, json.dumps({**json.loads(state), "code": "another build"}),
                                               heads)])
    out, _ = index(g, box, scratch=tmp_path)  # another build's reading may differ: not trusted
    assert out.files_read == 1 and out.heads == full(box, scratch=tmp_path)


def test_the_code_digest_covers_rules_and_profiles_but_not_bytecode(tmp_path):
    import reviewtool
    from reviewtool.triage.store_keys import package_digest

    copy = tmp_path / "reviewtool"
    shutil.copytree(Path(reviewtool.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = package_digest(copy)
    (copy / "rules" / "__pycache__").mkdir(exist_ok=True)
    (copy / "rules" / "__pycache__" / "signoff.cpython-311.pyc").write_bytes(b"compiled")
    assert package_digest(copy) == base
    for changed in (copy / "rules" / "signoff.py", copy / "profiles" / "netdev.toml"):
        original = changed.read_bytes()
        changed.write_bytes(original + b"\n# changed on another branch\n")
        assert package_digest(copy) != base, changed
        changed.write_bytes(original)
    assert package_digest(copy) == base


@pytest.mark.parametrize("name", ["nf-next-ipvs-cleanups-v1.mbox", "nf-vrf-conntrack-dflt-qdisc.mbox"])
def test_the_cli_reads_a_maildir_once(tmp_path, cli, name):
    from reviewtool.sources.files import read_raw_mails

    md = _maildir(tmp_path / "md", [r.data for r in read_raw_mails(NF / name)])
    store = tmp_path / "store.sqlite"
    args = ("triage", md, "--format", "json", "--now", "2024-01-01", "--store-info")
    first = cli(*args, "--store", store)
    second = cli(*args, "--store", store)
    triaged = first.json["totals"]["series"] + first.json["totals"]["skipped"]
    assert f"{triaged} series reused, 0 reviewed" in second.err and "0 read whole" in second.err
    assert first.out == second.out == cli("triage", md, "--format", "json", "--now", "2024-01-01", "--no-store").out


def test_the_digest_is_of_the_bytes_the_index_was_read_from(tmp_path):
    import hashlib

    from reviewtool.triage.store_mbox import scan_grown, scan_whole

    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data[: len(data) // 3])
    first = scan_whole(box, str(box))
    assert first.state["end"] == len(data) // 3
    assert first.state["digest"] == hashlib.sha256(data[: len(data) // 3]).hexdigest()
    box.write_bytes(data)
    grown = scan_grown(box, str(box), first.state, first.heads)
    assert grown.state == {"kind": "mbox", "end": len(data), "digest": hashlib.sha256(data).hexdigest()}
    assert grown.heads[0].ref.offset == first.heads[-1].ref.offset  # the last mail is read again, whole
    box.write_bytes(data[:100] + b"X" + data[101:])  # one byte of the old part changed
    assert scan_grown(box, str(box), grown.state, grown.heads) is None


def test_an_archive_named_from_another_directory_is_the_same_archive(tmp_path, monkeypatch):
    data = archive_bytes()
    (tmp_path / "mail").mkdir()
    box = tmp_path / "mail" / "archive.mbox"
    box.write_bytes(data)
    g = guard(tmp_path)
    first, _ = index(g, box, scratch=tmp_path)
    monkeypatch.chdir(tmp_path / "mail")
    again, _ = index(g, Path("archive.mbox"), scratch=tmp_path)
    assert (again.files_resumed, again.files_read) == (1, 0)
    assert again.heads == full(Path("archive.mbox"), scratch=tmp_path) and again.heads != first.heads  # their paths


def test_an_unchanged_mbox_leaves_its_row_alone(tmp_path):
    """A warm run writes nothing for it (rewriting a 10,000-series index costs half a second)."""
    import sqlite3
    from contextlib import closing

    box = tmp_path / "archive.mbox"
    box.write_bytes(archive_bytes())
    g = guard(tmp_path)
    index(g, box, scratch=tmp_path)

    def rowid():
        with closing(sqlite3.connect(tmp_path / "store.sqlite")) as db:
            return db.execute("SELECT rowid FROM files").fetchall()

    before = rowid()
    again, _ = index(g, box, scratch=tmp_path)
    assert again.files_resumed == 1 and rowid() == before
    with open(box, "ab") as fh:
        fh.write(b"\n" + archive_bytes()[:3000])
    index(g, box, scratch=tmp_path)
    assert rowid() != before  # grown: written again


def _serial(fn, args):
    return [fn(*a) for a in args]


def test_a_stored_mbox_scanned_in_segments_is_the_whole_scan(tmp_path, monkeypatch):
    import reviewtool.sources.segments as segmenting
    from reviewtool.sources.segments import SegmentScan
    from reviewtool.triage.store_mbox import scan_whole, with_digests

    monkeypatch.setattr(segmenting, "PARALLEL_BYTES", 0)
    box = tmp_path / "archive.mbox"
    box.write_bytes(archive_bytes())
    whole = scan_whole(box, str(box))
    parts = scan_whole(box, str(box), SegmentScan(parts=3, map=_serial))
    assert parts.digests is not None and whole.digests is None  # the segments were taken
    assert len(whole.heads) > 30 and parts.heads == whole.heads and parts.state == whole.state
    assert list(zip(parts.heads, parts.digests)) == with_digests(box, whole.heads)


def test_a_file_written_while_its_segments_are_scanned_is_not_stored(tmp_path, monkeypatch):
    import reviewtool.sources.segments as segmenting
    from reviewtool.sources.segments import SegmentScan
    from reviewtool.triage.store_mbox import scan_whole

    monkeypatch.setattr(segmenting, "PARALLEL_BYTES", 0)
    box = tmp_path / "archive.mbox"
    data = archive_bytes()
    box.write_bytes(data)

    def writing(fn, args):  # another program appends while the workers scan
        with open(box, "ab") as fh:
            fh.write(data[: data.index(b"\nFrom ", 10) + 1])
        return _serial(fn, args)

    scanned = scan_whole(box, str(box), SegmentScan(parts=2, map=writing))
    assert scanned.state is None and scanned.heads


def test_a_settled_mbox_with_its_signature_unchanged_is_not_read(tmp_path, monkeypatch):
    from reviewtool.triage import store_files

    monkeypatch.setattr(store_files, "RACY_S", 0.0)
    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data)
    g = guard(tmp_path)
    first, _ = index(g, box, scratch=tmp_path)
    again, _ = index(g, box, scratch=tmp_path)
    assert (again.files_kept, again.files_resumed, again.mails_read) == (1, 0, 0)
    assert again.heads == first.heads and again.digests == first.digests
    st = os.stat(box)
    at = data.index(b"Subject: ", len(data) // 2) + 9
    box.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:])  # same size, one letter's case
    os.utime(box, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back: ctime still tells
    edited, _ = index(g, box, scratch=tmp_path)
    assert edited.files_kept == 0 and edited.files_read == 1
    assert edited.heads == full(box, scratch=tmp_path) and edited.heads != first.heads
    with open(box, "ab") as fh:
        fh.write(b"\n" + data[:3000])
    grown, _ = index(g, box, scratch=tmp_path)
    assert grown.files_resumed == 1 and grown.heads == full(box, scratch=tmp_path)


def test_a_mbox_grown_day_by_day_keeps_its_row_as_parts_and_equals_the_full_index(tmp_path, monkeypatch):
    """Each growth adds a part to the file's row (the old row's bytes kept as they were) until the
    row has MAX_PARTS, when it is written as one again; every run's mails are the full index's."""
    from reviewtool.triage import index_rows

    monkeypatch.setattr(index_rows, "MAX_PARTS", 3)
    data = archive_bytes()
    ends = [i + 1 for i in range(len(data)) if data.startswith(b"\nFrom ", i)][::4][1:8] + [len(data)]
    box = tmp_path / "archive.mbox"
    g = guard(tmp_path / "s")

    def row() -> bytes:
        return g.store.files(os.path.realpath(box))[os.path.realpath(box)][1]

    blobs = []
    for end in ends:
        box.write_bytes(data[:end])
        got, _ = index(g, box, scratch=tmp_path)
        assert got.heads == full(box, scratch=tmp_path), end
        blobs.append(row())
        assert index_rows.decode_rows(blobs[-1], box, str(box)) == list(zip(got.heads, map(got.digests.get, (h.ref for h in got.heads))))
    parts = [index_rows._parts(b) for b in blobs]
    assert parts == [1, 2, 3, 1, 2, 3, 1, 2][:len(blobs)]
    assert blobs[1].startswith(blobs[0]) and blobs[2].startswith(blobs[1])  # the old part kept, not re-encoded


def test_a_row_cut_short_is_read_whole_again(tmp_path):
    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data[: len(data) // 2])
    g = guard(tmp_path)
    index(g, box, scratch=tmp_path)
    key = os.path.realpath(box)
    state, blob = g.store.files(key)[key]
    g.store.save_files(key, [(key, state, blob[:-7])], set())
    box.write_bytes(data)
    again, _ = index(g, box, scratch=tmp_path)
    assert again.heads == full(box, scratch=tmp_path) and (again.files_read, again.files_resumed) == (1, 0)


def test_deferred_rows_are_written_by_save_rows_and_are_the_rows_written_at_once(tmp_path):
    """A triage run indexes with defer=True: nothing is written (nor encoded) until save_rows,
    which writes what an index without defer writes; a second save_rows writes nothing again."""
    from reviewtool.triage.index_rows import Blob

    data = archive_bytes()
    box = tmp_path / "archive.mbox"
    box.write_bytes(data)
    key = os.path.realpath(box)
    at_once = guard(tmp_path / "a")
    index(at_once, box, scratch=tmp_path)
    later = guard(tmp_path / "b")
    out = index_archive([box], tmp_path, later, [], {}, defer=True)
    assert later.store.files(key) == {} and out.pending
    assert all(isinstance(blob, Blob) and not blob.made for _, _, (_, blob) in out.sources)
    out.save_rows()
    assert later.store.files(key) == at_once.store.files(key) and not out.pending
    out.save_rows()
    assert later.store.files(key) == at_once.store.files(key)


def test_a_read_error_while_the_rest_of_the_file_is_hashed_gives_no_digest(tmp_path):
    import hashlib

    from reviewtool.triage import store_mbox

    box = tmp_path / "a.mbox"
    box.write_bytes(b"x" * 5000)
    raw = store_mbox._HashingRaw(box, hashlib.sha256())

    def failing(_buf):
        raise OSError(5, "Input/output error")

    raw._raw.readinto = failing
    store_mbox._hash_rest(raw)  # in a thread in use: it must not raise
    assert raw.digest_upto() is None  # no digest: the file is read whole next time
    raw.close()


def test_a_large_maildir_read_ahead_by_workers_is_the_index_read_here(tmp_path, monkeypatch):
    """A maildir of READ_AHEAD_FILES mails or more is read in parts, the first here and the others in
    the workers: the same mails, digests and rows as one process reading it; a file written after
    a worker read it (its signature changed) is read again here."""
    from concurrent.futures import ProcessPoolExecutor

    from reviewtool.sources.segments import SegmentScan
    from reviewtool.triage import store_files, store_index

    monkeypatch.setattr(store_files, "READ_AHEAD_FILES", 8)
    mails = (_mails() * 3)[:24]
    mails = [m.replace(b"Message-ID: <", b"Message-ID: <%d." % i, 1).replace(b"Message-Id: <", b"Message-Id: <%d." % i, 1)
             for i, m in enumerate(mails)]
    md = _maildir(tmp_path / "md", mails)
    ga = guard(tmp_path / "a")
    serial, _ = index(ga, md, scratch=tmp_path)
    read_in_workers: list = []
    with ProcessPoolExecutor(2) as pool:
        def parts(fn, args):
            read_in_workers.append(len(args))
            return pool.map(fn, *zip(*args))

        g = guard(tmp_path / "b")
        ahead = store_index.index_archive([md], tmp_path, g, [], {}, SegmentScan(parts=3, map=parts))
    assert read_in_workers == [2] and not g.errors
    assert ahead.heads == serial.heads == full(md, scratch=tmp_path) and ahead.digests == serial.digests
    from reviewtool.triage.store_maildir import MaildirRow

    def row(g):
        (key, stored), = g.store.files(os.path.realpath(md)).items()
        return key, MaildirRow(stored).old

    assert row(g) == row(ga) and len(row(g)[1]) == 24

    victim = max((md / "cur").iterdir())  # in a worker's part
    real_read_ones = store_files.read_ones

    def read_then_written(paths, labels, maildir):
        out = real_read_ones(paths, labels, maildir)
        if str(victim) in paths:
            victim.write_bytes(mails[0].replace(b"Message-", b"X-Was-Message-", 1) + b"\n")
        return out

    monkeypatch.setattr(store_files, "read_ones", read_then_written)
    g = guard(tmp_path / "c")
    later = store_index.index_archive([md], tmp_path, g, [], {}, SegmentScan(parts=2, map=lambda fn, args: map(fn, *zip(*args))))
    assert later.heads == full(md, scratch=tmp_path) != serial.heads


def test_a_maildir_is_one_row_and_an_mbox_put_in_it_keeps_its_own(tmp_path):
    """A maildir's single-mail files are one row of the store (store_maildir.py); a file there that is
    not one mail keeps a row of its own; a warm run reads none of them and keys the same grouping,
    and a rewritten file gives another key."""
    from reviewtool.triage.group_memo import memo_key

    mails = _mails()
    md = _maildir(tmp_path / "md", mails[:3])
    box = md / "cur" / "1650000000.box:2,"
    box.write_bytes(b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.rstrip(b"\n") + b"\n\n"
                             for m in mails[3:5]))
    g = guard(tmp_path)
    first, _ = index(g, md, scratch=tmp_path)
    assert first.heads == full(md, scratch=tmp_path) and first.files_read == 4
    assert set(g.store.files(os.path.realpath(md))) == {os.path.realpath(md), os.path.realpath(box)}
    again, _ = index(g, md, scratch=tmp_path)
    assert (again.files_read, again.files_kept) == (0, 4) and again.heads == first.heads
    assert again.digests == first.digests
    key = memo_key(again)
    assert key is not None and memo_key(index(g, md, scratch=tmp_path)[0]) == key
    victim = sorted((md / "cur").iterdir())[0]
    victim.write_bytes(victim.read_bytes().replace(b"Subject: ", b"Subject: Re: ", 1))
    changed, _ = index(g, md, scratch=tmp_path)
    assert changed.files_read == 1 and changed.heads == full(md, scratch=tmp_path)
    assert memo_key(changed) not in (None, key)


def test_a_directory_without_a_store_is_read_as_with_one_and_keeps_nothing(tmp_path, monkeypatch):
    """--no-store: a maildir is read one open a file and ahead by the workers, as with a store; an
    mbox beside it as index_inputs reads it; the same mails and skipped files, and no digest."""
    from concurrent.futures import ProcessPoolExecutor

    from reviewtool.sources.segments import SegmentScan
    from reviewtool.triage import store_files

    monkeypatch.setattr(store_files, "READ_AHEAD_FILES", 8)
    mails = [m.replace(b"Message-ID: <", b"Message-ID: <%d." % i, 1).replace(b"Message-Id: <", b"Message-Id: <%d." % i, 1)
             for i, m in enumerate((_mails() * 3)[:12])]
    md = _maildir(tmp_path / "md", mails)
    (md / "cur" / "1600000000.junk:2,").write_bytes(b"\x00\x01 binary \x00" * 50)
    box = tmp_path / "box.mbox"
    box.write_bytes(archive_bytes())
    expected_skipped: list[str] = []
    expected = list(index_inputs([md, box], tmp_path, expected_skipped))
    read_in_workers: list = []
    skipped: list[str] = []
    with ProcessPoolExecutor(2) as pool:
        def parts(fn, args):
            read_in_workers.append(len(args))
            return pool.map(fn, *zip(*args))

        out = index_archive([md, box], tmp_path, Guard(None, skipped.append), skipped, {}, SegmentScan(parts=2, map=parts))
    assert read_in_workers == [1]
    assert out.heads == expected and skipped == expected_skipped and len(skipped) == 1
    assert out.digests == {} and out.sources is None and not out.pending


def test_a_maildir_row_stands_when_nothing_changed_and_one_that_does_not_decode_is_replaced(tmp_path):
    from reviewtool.triage.store_maildir import MaildirRow, state_text

    empty = _maildir(tmp_path / "empty", [])
    md = _maildir(tmp_path / "md", _mails()[:3])
    g = guard(tmp_path)
    for p in (empty, md):
        assert index(g, p, scratch=tmp_path)[0].files_read == len(list((p / "cur").iterdir()))
        again = index_archive([p], tmp_path, g, [], {}, defer=True)
        assert not again.pending  # the row stands: nothing is written again
    root = os.path.realpath(md)
    g.store.save_files(root, [(root, state_text(), b"\x00 not a row")])
    read, _ = index(g, md, scratch=tmp_path)
    assert (read.files_read, read.files_kept) == (3, 0) and read.heads == full(md, scratch=tmp_path)
    assert len(MaildirRow(g.store.files(root)[root]).old) == 3
