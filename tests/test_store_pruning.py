"""The store keeps what runs use and prunes what none used for KEEP_DAYS, also when a run marks
only the rows that no run marked today (Store.finish_run)."""

from reviewtool.triage import store as store_mod
from reviewtool.triage.store import KEEP_DAYS, Store


def _days(tmp_path):
    s = Store.open(tmp_path / "s.sqlite")
    try:
        return dict(s._db.execute("SELECT path, used FROM files"))
    finally:
        s.close()


def _run(tmp_path, monkeypatch, day: int, read: bool, used: list[str]) -> None:
    monkeypatch.setattr(store_mod, "_today", lambda: day)
    s = Store.open(tmp_path / "s.sqlite")
    try:
        if read:
            s.files("in")
        s.finish_run({}, [], used)
    finally:
        s.close()


def test_rows_used_are_kept_and_the_rest_pruned(tmp_path, monkeypatch):
    monkeypatch.setattr(store_mod, "_today", lambda: 1000)
    s = Store.open(tmp_path / "s.sqlite")
    s.save_files("in", [("a", "{}", b"x"), ("b", "{}", b"y")])
    s.close()
    _run(tmp_path, monkeypatch, 1000, True, ["a", "b"])  # read the day they were written: no update
    assert _days(tmp_path) == {"a": 1000, "b": 1000}
    _run(tmp_path, monkeypatch, 1020, True, ["a"])
    _run(tmp_path, monkeypatch, 1020, True, ["a"])  # a second run that day
    assert _days(tmp_path) == {"a": 1020, "b": 1000}
    _run(tmp_path, monkeypatch, 1000 + KEEP_DAYS + 1, False, [])
    assert _days(tmp_path) == {"a": 1020}
    _run(tmp_path, monkeypatch, 1021, False, ["a"])  # marked without being read: marked all the same
    assert _days(tmp_path) == {"a": 1021}
