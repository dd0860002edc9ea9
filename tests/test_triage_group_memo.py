"""The store keeps an archive's grouping under its index rows (triage/group_memo.py): a run whose
files all come from the same rows reads the grouping back, and gets what grouping them again
gives, its mails on this run's paths; a row that does not read back is grouped again."""

from __future__ import annotations

import gzip
import marshal
import sqlite3
import zlib
from contextlib import closing, contextmanager
from pathlib import Path

from test_triage_status import build_archive
from test_triage_store import fresh, stored_run

from reviewtool.triage import group_memo
from reviewtool.triage.group import group_archive
from reviewtool.triage.store import Guard
from reviewtool.triage.store_index import index_archive


def _index(paths, scratch: Path, guard):
    return index_archive(paths, scratch, guard, [], {})


@contextmanager
def _guard(path: Path | None):
    guard = Guard.open(path, lambda line: None)
    guard.call(lambda st: st.begin_run())
    try:
        yield guard
    finally:
        guard.close()


def _rows(store: Path, like: str) -> list[tuple]:
    with closing(sqlite3.connect(store)) as db:
        return db.execute("SELECT key, tail FROM reviews WHERE key LIKE ?", (like,)).fetchall()


def test_a_kept_grouping_is_the_grouping_of_the_archive(tmp_path):
    archive = build_archive(tmp_path)
    store = tmp_path / "store.sqlite"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with _guard(store) as guard:
        first = _index([archive], scratch, guard)
        made, key = group_memo.grouped(first, guard)
        assert key is not None and made == group_archive(first.heads)
    with _guard(store) as guard:
        again = _index([archive], scratch, guard)
        assert again.files_read == 0 and group_memo.memo_key(again) == key  # its mails are those of its row
        read, key2 = group_memo.grouped(again, guard)
    assert key2 == key and read == made  # the same groups, refs, superseded revisions and orphans
    assert len(read.series) >= 5


def test_a_gzip_archive_s_kept_grouping_names_this_run_s_unpacked_copy(tmp_path, cli, monkeypatch):
    """A gzip's mails point into the copy the run unpacks, in a scratch directory of its own: a
    series reviewed again from the kept grouping reads its mails there."""
    from reviewtool.triage import store_files

    monkeypatch.setattr(store_files, "RACY_S", 0.0)  # the gzip just written counts as settled
    archive = build_archive(tmp_path)
    gz = tmp_path / "list.mbox.gz"
    gz.write_bytes(gzip.compress(archive.read_bytes()))
    store = tmp_path / "store.sqlite"
    expected = fresh(cli, gz)
    res, reused, reviewed = stored_run(cli, store, gz)
    assert res.out == expected and reused == 0 and len(_rows(store, "grouping:%")) == 1
    with closing(sqlite3.connect(store)) as db:  # two reviews lost: those series are reviewed again
        db.execute("DELETE FROM reviews WHERE key IN (SELECT key FROM reviews WHERE key NOT LIKE 'grouping:%' "
                   "AND key NOT LIKE 'pulled:%' "
                   "LIMIT 2)")
        db.commit()
    res, reused, reviewed = stored_run(cli, store, gz)
    assert res.out == expected and reviewed == 2


def test_a_damaged_kept_grouping_is_made_again(tmp_path, cli):
    archive = build_archive(tmp_path)
    store = tmp_path / "store.sqlite"
    expected = fresh(cli, archive)
    assert stored_run(cli, store, archive)[0].out == expected
    (key, tail), = _rows(store, "grouping:%")
    from reviewtool.triage import store as store_mod

    kept = marshal.loads(zlib.decompress(tail))
    out_of_range = {**kept, "series": [[*kept["series"][0][:1], [[99, 0, 10, True, False, False]],
                                        *kept["series"][0][2:]], *kept["series"][1:]]}
    for bad in (b"not zlib", zlib.compress(b'{"series": [[1]], "orphans": [], "other": 0, "messages": 1}'),
                zlib.compress(marshal.dumps({"series": [[1]], "orphans": [], "other": 0, "messages": 1})),
                zlib.compress(marshal.dumps([kept])), zlib.compress(marshal.dumps(kept)[:-5]),
                zlib.compress(marshal.dumps({**kept, "messages": kept["messages"] + 1})),
                zlib.compress(marshal.dumps(out_of_range))):
        with closing(sqlite3.connect(store)) as db:  # written with a good CRC: the grouping itself is bad
            db.execute("UPDATE reviews SET tail = ?, crc = ? WHERE key = ?",
                       (bad, store_mod._crc(key, "", "", bad), key))
            db.commit()
        res, reused, reviewed = stored_run(cli, store, archive)
        assert res.out == expected and reviewed == 0, bad[:40]
        assert _rows(store, "grouping:%")[0][1] == tail  # made again and replaced


def test_no_grouping_is_kept_without_a_row_for_every_file(tmp_path):
    archive = build_archive(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with _guard(None) as guard:  # --no-store
        indexed = _index([archive], scratch, guard)
        assert group_memo.memo_key(indexed) is None
        assert group_memo.grouped(indexed, guard) == (group_archive(indexed.heads), None)


def test_a_deferred_grouping_is_kept_by_keep_and_read_back_by_the_next_run(tmp_path):
    """With defer, rows read this run are not encoded to look a grouping up, and the grouping
    made is not kept until keep(): the key keep() gives is the one the next run finds."""
    archive = build_archive(tmp_path)
    store = tmp_path / "store.sqlite"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with _guard(store) as guard:
        first = index_archive([archive], scratch, guard, [], {}, defer=True)
        made, key = group_memo.grouped(first, guard, defer=True)
        assert key is None and _rows(store, "grouping:%") == []
        first.save_rows()
        key = group_memo.keep(made, first, guard)
        assert key is not None and len(_rows(store, "grouping:%")) == 1
    with _guard(store) as guard:
        again = index_archive([archive], scratch, guard, [], {}, defer=True)
        read, key2 = group_memo.grouped(again, guard, defer=True)
    assert key2 == key and read == made == group_archive(first.heads)
