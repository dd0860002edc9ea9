"""Size limits: documented, configurable, and each stops with one line and exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from gen_limits import big_thread, deep_reply_chain, huge_patch  # noqa: E402

from reviewtool.limits import Limits


def test_defaults_and_environment(monkeypatch):
    d = Limits.from_env()
    assert (d.input_bytes, d.mail_bytes, d.thread_messages) == (256 << 20, 32 << 20, 20000)
    monkeypatch.setenv("REVIEWTOOL_MAX_MAIL_MB", "2")
    monkeypatch.setenv("REVIEWTOOL_MAX_MESSAGES", "junk")  # unusable values keep the default
    d = Limits.from_env()
    assert d.mail_bytes == 2 << 20 and d.thread_messages == 20000


def test_mail_over_the_limit_stops_in_one_line(tmp_path, cli, monkeypatch):
    path = tmp_path / "huge.mbox"
    huge_patch(path, 3)
    assert cli("check", path, "--format", "json").code in (0, 1)
    monkeypatch.setenv("REVIEWTOOL_MAX_MAIL_MB", "1")
    res = cli("check", path)
    assert res.code == 2 and "REVIEWTOOL_MAX_MAIL_MB" in res.err and res.err.count("\n") == 1


def test_thread_over_the_limit_stops_in_one_line(tmp_path, cli, monkeypatch):
    path = tmp_path / "thread.mbox"
    big_thread(path, 60)
    ok = cli("check", path, "--format", "json")
    assert ok.code in (0, 1) and ok.json["series"]["expected"] == 10
    monkeypatch.setenv("REVIEWTOOL_MAX_MESSAGES", "50")
    res = cli("check", path)
    assert res.code == 2 and "60 messages" in res.err and "REVIEWTOOL_MAX_MESSAGES" in res.err


def test_deep_reply_chain_is_walked_without_recursion(tmp_path, check_json):
    path = tmp_path / "deep.mbox"
    deep_reply_chain(path, 1500)  # deeper than Python's default recursion limit
    res = check_json(path)
    assert res.json["series"]["received"] == [1]
