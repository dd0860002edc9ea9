"""`check` on an mbox holding several series reviews the newest and says which it left out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import hunk_diff, patch_body, series_mails, thread, write

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)


def _box(tmp_path):
    def body(name):
        return patch_body(diff=hunk_diff(f"net/{name}.c", [f"int {name};"], [f"long {name};"]))
    older = series_mails(1, tree="net-next", cover=False, subjects={1: "foo: older"}, bodies={1: body("a")})
    newer = series_mails(1, tree="net-next", cover=False, subjects={1: "foo: newer"}, bodies={1: body("b")})
    return write(tmp_path, thread(*older, start=T0, domain="old.example") + "\n"
                 + thread(*newer, start=T0 + timedelta(days=1), domain="new.example"))


def test_the_skipped_series_and_how_to_choose_one(tmp_path, check_json):
    box = _box(tmp_path)
    data = check_json(box)
    assert data.json["series"]["subject"] == "foo: newer"
    (note,) = [n for n in data.json["summary"]["notes"] if "other series" in n]
    assert "1 other series" in note and "<20261102100000.1000-0-jane@old.example>" in note and "--msgid" in note
    chosen = check_json(box, "--msgid", "20261102100000.1000-0-jane@old.example")
    assert chosen.json["series"]["subject"] == "foo: older"
    assert not [n for n in chosen.json["summary"]["notes"] if "other series" in n]


def test_one_series_says_nothing_about_others(tmp_path, check_json):
    one = series_mails(2, tree="net-next")
    data = check_json(write(tmp_path, thread(*one)))
    assert not [n for n in data.json["summary"]["notes"] if "other series" in n]
