"""Size limits: documented, configurable, and each stops with one line and exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from gen_limits import big_thread, deep_reply_chain, huge_patch  # noqa: E402

from reviewtool.limits import Limits


def test_defaults_and_environment(monkeypatch):
    d = Limits.from_env()
    assert (d.mail_bytes, d.thread_messages, d.archive_mails, d.gzip_ratio) == (32 << 20, 20000, 1_000_000, 100)
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


def test_every_limit_has_a_default_and_a_variable(monkeypatch):
    d = Limits.from_env()
    assert (d.line_bytes, d.header_fields, d.mime_depth, d.series_patches, d.archive_series) == (
        1 << 20, 1000, 32, 1000, 50_000)
    for name in ("REVIEWTOOL_MAX_LINE_KB", "REVIEWTOOL_MAX_HEADERS", "REVIEWTOOL_MAX_MIME_DEPTH",
                 "REVIEWTOOL_MAX_PATCHES", "REVIEWTOOL_MAX_SERIES"):
        monkeypatch.setenv(name, "7")
    monkeypatch.setenv("REVIEWTOOL_MAX_ARCHIVE_MAILS", "9" * 5000)  # an absurd value keeps the default
    d = Limits.from_env()
    assert (d.line_bytes, d.header_fields, d.mime_depth, d.series_patches, d.archive_series) == (7 << 10, 7, 7, 7, 7)
    assert d.archive_mails == 1_000_000


def _one_patch(tmp_path, body=None, headers=None, name="m.mbox"):
    from mailfactory import Mail, patch_body, thread, write

    return write(tmp_path, thread(Mail("[PATCH net] foo: fix bar", body or patch_body(),
                                       extra_headers=headers or {})), name)


def test_a_line_over_the_line_limit_stops_in_one_line(tmp_path, cli, monkeypatch):
    from mailfactory import patch_body

    box = _one_patch(tmp_path, patch_body(message="Fix bar.\n\n" + "x" * 3000))
    assert cli("check", box, "--format", "json").code in (0, 1)
    monkeypatch.setenv("REVIEWTOOL_MAX_LINE_KB", "2")
    res = cli("check", box)
    assert res.code == 2 and "REVIEWTOOL_MAX_LINE_KB" in res.err and res.err.count("\n") == 1


def test_header_fields_over_the_limit_stop_in_one_line(tmp_path, cli, monkeypatch):
    box = _one_patch(tmp_path, headers={f"X-Hop-{i}": "relay" for i in range(60)})
    assert cli("check", box, "--format", "json").code in (0, 1)
    monkeypatch.setenv("REVIEWTOOL_MAX_HEADERS", "50")
    res = cli("check", box)
    assert res.code == 2 and "REVIEWTOOL_MAX_HEADERS" in res.err and res.err.count("\n") == 1


def test_patches_over_the_limit_set_the_series_aside_and_triage_the_rest(tmp_path, cli, monkeypatch):
    from mailfactory import hunk_diff, patch_body, series_mails, thread, write

    other = patch_body(diff=hunk_diff("drivers/net/bar.c", ["int a;"], ["int b;"]))  # another patch
    box = write(tmp_path, thread(*series_mails(12), domain="big.example") + "\n"
                + thread(*series_mails(2, subjects={1: "bar: one", 2: "bar: two"}, bodies={1: other, 2: other}),
                         domain="small.example"))
    monkeypatch.setenv("REVIEWTOOL_MAX_PATCHES", "10")
    res = cli("check", box, "--msgid", "20261102100000.1000-0-jane@big.example")
    assert res.code == 2 and "REVIEWTOOL_MAX_PATCHES" in res.err and res.err.count("\n") == 1
    res = cli("triage", box, "--format", "json", "--no-store")
    assert res.code in (0, 1) and res.json["totals"]["series"] == 1
    assert "REVIEWTOOL_MAX_PATCHES" in res.json["skipped"][0]["reason"]


def test_series_over_the_limit_triage_the_newest(tmp_path, cli, monkeypatch):
    from datetime import datetime, timedelta, timezone

    from mailfactory import hunk_diff, patch_body, series_mails, thread, write

    start = datetime(2026, 11, 2, tzinfo=timezone.utc)
    def own(k):  # each series a patch of its own: other files, other lines
        body = patch_body(diff=hunk_diff(f"drivers/net/s{k}.c", ["int a;"], [f"int a{k};"]))
        return series_mails(2, subjects={1: f"s{k}: a", 2: f"s{k}: b"}, bodies={1: body, 2: body})

    box = write(tmp_path, "\n".join(thread(*own(k), domain=f"s{k}.example", start=start + timedelta(days=k))
                                     for k in range(5)))
    monkeypatch.setenv("REVIEWTOOL_MAX_SERIES", "3")
    res = cli("triage", box, "--format", "json", "--no-store")
    assert res.code in (0, 1) and res.json["totals"]["series"] == 3
    assert sorted(s["id"] for s in res.json["series"]) == ["0", "1", "2"]
    assert {s["msgid"].split("@")[1] for s in res.json["series"]} == {"s2.example", "s3.example", "s4.example"}
    assert any("REVIEWTOOL_MAX_SERIES" in n for n in res.json["notes"])
    assert "REVIEWTOOL_MAX_SERIES" in res.err and res.err.count("\n") == 1


def test_limits_follow_the_environment_as_it_changes(monkeypatch):
    """limits() reads each set of values once, and a changed value is read anew."""
    import re

    import reviewtool.limits as lim

    names = set(re.findall(r'"(REVIEWTOOL_MAX_\w+)"', (lim.__file__ and open(lim.__file__).read())))
    assert names == set(lim._NAMES)  # every variable from_env reads is part of the cache key
    monkeypatch.setenv("REVIEWTOOL_MAX_PATCHES", "7")
    assert lim.limits().series_patches == 7 and lim.limits() is lim.limits()
    monkeypatch.setenv("REVIEWTOOL_MAX_PATCHES", "9")
    assert lim.limits().series_patches == 9
    monkeypatch.delenv("REVIEWTOOL_MAX_PATCHES")
    assert lim.limits().series_patches == 1000


def test_a_mail_with_many_multipart_words_but_few_parts_is_within_the_depth_limit(monkeypatch):
    """The cheap count of `multipart/` only decides that the exact count is not needed."""
    from reviewtool.sources.files import RawMail, _over_limits

    monkeypatch.setenv("REVIEWTOOL_MAX_MIME_DEPTH", "2")
    text = b"From: a@b.c\nSubject: x\n\n" + b"we talk about multipart/mixed here\n" * 5
    assert _over_limits(RawMail(text, "t")) is None
    nested = b"".join(b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(4))
    err = _over_limits(RawMail(b"From: a@b.c\n" + nested, "t"))
    assert err is not None and "nest 4 deep" in str(err.what if hasattr(err, "what") else err)
