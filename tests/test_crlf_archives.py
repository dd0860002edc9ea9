"""An archive stored with CRLF line endings (a Windows mail client's mbox, saved .eml files) is
read as its LF copy is, as git mailsplit reads it: the same report, byte for byte but for the
input's name. Before, a long mail's body was counted as header lines (the blank line after the
header was looked for as LF LF) and a maintainer's pull request did not read, so a series it
applied stayed open. A mail stored with LF keeps the CRs inside it (a diff of a CRLF file)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from mailfactory import Mail, hunk_diff, patch_body, thread
from test_triage_pulls import KALLE, _pull

from reviewtool.sources.files import lf_lines

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)


def _archive() -> str:
    small = Mail("[PATCH wireless-next] foo: fix the bar flags",
                 patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                 msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    long_diff = hunk_diff("drivers/net/wireless/foo/table.c", [], [f"\t{{ {i}, {i * 3} }}," for i in range(1500)])
    long = Mail("[PATCH wireless-next] foo: add the rate table", patch_body(diff=long_diff),
                msgid="long@example.org", to="linux-wireless@vger.kernel.org")
    pull = Mail("pull-request: wireless-next-2026-11-20", _pull("Jane Developer", "wifi: foo: fix the bar flags"),
                sender=KALLE, msgid="pr@example.org", to="netdev@vger.kernel.org", date=T0 + timedelta(days=18))
    return (thread(small, start=T0) + "\n" + thread(long, start=T0 + timedelta(hours=1), domain="l.example.org")
            + "\n" + thread(pull, start=T0 + timedelta(days=18), domain="b.example.org"))


def _triage(cli, path) -> dict:
    res = cli("triage", str(path), "--no-store", "--now", "2026-12-01", "--format", "json", "--no-progress")
    assert res.code in (0, 1), res.err
    report = json.loads(res.out)
    report.pop("inputs")
    return report


def test_a_crlf_archive_reads_as_its_lf_copy(tmp_path, cli):
    text = _archive()
    lf, crlf = tmp_path / "lf.mbox", tmp_path / "crlf.mbox"
    lf.write_bytes(text.encode())
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    want, got = _triage(cli, lf), _triage(cli, crlf)
    assert not want["skipped"] and [s["status"] for s in want["series"] if s["msgid"] == "p@example.org"] == ["applied"]
    assert got == want


def test_a_saved_crlf_mail_is_checked_as_its_lf_copy(tmp_path, cli):
    text = thread(Mail("[PATCH net] foo: fix the bar flags", patch_body()), start=T0)
    lf, crlf = tmp_path / "lf.eml", tmp_path / "crlf.eml"
    lf.write_bytes(text.encode())
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    runs = [cli("check", str(p), "--format", "json") for p in (lf, crlf)]
    assert [r.code for r in runs] == [runs[0].code] * 2 and runs[0].code in (0, 1)
    findings = [sorted((f["rule"], f["message"]) for f in r.json["findings"]) for r in runs]
    assert findings[0] == findings[1] and findings[0]


def test_only_a_mail_stored_with_crlf_loses_its_crs():
    stored_crlf = b"From: a@example.org\r\nSubject: x\r\n\r\nbody\r\n"
    assert lf_lines(stored_crlf) == b"From: a@example.org\nSubject: x\n\nbody\n"
    diff_of_a_crlf_file = b"From: a@example.org\nSubject: x\n\n--- a/w.bat\n+++ b/w.bat\n@@ -1 +1 @@\n-a\r\n+b\r\n"
    assert lf_lines(diff_of_a_crlf_file) is diff_of_a_crlf_file
