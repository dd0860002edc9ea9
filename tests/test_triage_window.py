"""`triage --since/--until`: only the series with mail inside the window are triaged, each as the
whole archive shows it (an old series with a new reply counts, with its replies); `--jobs`
defaults to the machine's cores for a large archive."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import Mail, hunk_diff, patch_body, write

T0 = datetime(2026, 10, 1, 10, tzinfo=timezone.utc)


def _mbox(mails: list[Mail]) -> str:
    return "".join("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render(m.msgid, m.date) + "\n" for m in mails)


def _archive(tmp_path):
    def patch(n: int, day: int) -> Mail:
        diff = hunk_diff(f"drivers/net/ethernet/foo/counter{n}.c", ["\treturn 0;"], [f"\treturn count{n};"])
        return Mail(f"[PATCH net-next] foo: add counter {n}", patch_body(diff=diff), msgid=f"p{n}@example.org",
                    date=T0 + timedelta(days=day))
    reply = Mail("Re: [PATCH net-next] foo: add counter 1", "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                 sender="Rita Reviewer <rita@example.org>", in_reply_to="p1@example.org", msgid="r1@example.org",
                 date=T0 + timedelta(days=28))
    return write(tmp_path, _mbox([patch(1, 0), patch(2, 5), patch(3, 27), reply]))


def _msgids(cli, path, *args) -> list[str]:
    res = cli("triage", str(path), "--no-store", "--now", "2026-10-30", "--format", "json", *args)
    assert res.code in (0, 1), res.err
    return sorted(s["msgid"] for s in res.json["series"])


def test_since_keeps_series_with_mail_inside_the_window_with_their_replies(tmp_path, cli):
    path = _archive(tmp_path)
    assert _msgids(cli, path) == ["p1@example.org", "p2@example.org", "p3@example.org"]
    # p1 was posted a month ago, but its review came two days ago: inside; p2 is all outside
    assert _msgids(cli, path, "--since", "7d") == ["p1@example.org", "p3@example.org"]
    assert _msgids(cli, path, "--since", "2026-10-20") == ["p1@example.org", "p3@example.org"]
    assert _msgids(cli, path, "--until", "2026-10-10") == ["p1@example.org", "p2@example.org"]
    res = cli("triage", str(path), "--no-store", "--now", "2026-10-30", "--format", "json", "--since", "7d")
    (one,) = [s for s in res.json["series"] if s["msgid"] == "p1@example.org"]
    assert one["status"] == "ready"  # its review, inside the window, read with it
    assert any("window from" in n for n in res.json["notes"])


def test_a_bad_window_is_one_line(tmp_path, cli):
    path = _archive(tmp_path)
    for args, words in ((("--since", "soon"), "--since: 'soon' is neither a duration"),
                        (("--since", "2026-10-20", "--until", "2026-10-10"), "--since is after --until")):
        res = cli("triage", str(path), "--no-store", "--now", "2026-10-30", *args)
        assert res.code == 2 and words in res.err and len(res.err.strip().splitlines()) == 1, res.err


def test_jobs_default_to_the_cores_for_a_large_archive_only(tmp_path, monkeypatch):
    from reviewtool.commands import triage as command
    from reviewtool.triage import run

    monkeypatch.setattr(run, "default_jobs", lambda: 7)
    small, large = tmp_path / "small.mbox", tmp_path / "large.mbox"
    small.write_text("From x\n\n", encoding="utf-8")
    with open(large, "wb") as f:
        f.truncate(command.AUTO_JOBS_BYTES)  # sparse: its size is what counts
    assert command._auto_jobs([small]) == 1 and command._auto_jobs([large]) == 7
    assert command._auto_jobs([tmp_path]) == 7 and command._auto_jobs([tmp_path / "missing"]) == 1
