"""A top-posted reply (Outlook's way) carries the mail it answers below it, unquoted: below
"-----Original Message-----" or a rule of underscores over its "From:" line. That copy is not the
replier's words: an earlier reviewer's request or "Applied" in it settles nothing. (Its trailers
are read as b4 reads them, which `b4 am` would apply.) Near miss: the replier's own word above it
still counts."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from mailfactory import Mail, hunk_diff, patch_body, thread, write
from test_triage_pulls import KALLE

from reviewtool.mail.quoting import original_offset

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
SEPARATORS = ["-----Original Message-----", "-----Ursprüngliche Nachricht-----",
              "________________________________\nFrom: Jane Developer <jane@example.org>"]


def _triage(tmp_path, cli, reply_body: str) -> dict:
    patch = Mail("[PATCH wireless-next] wifi: foo: fix the bar flags",
                 patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                 msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    reply = Mail("RE: [PATCH wireless-next] wifi: foo: fix the bar flags", reply_body, sender=KALLE,
                 msgid="r@example.org", to="linux-wireless@vger.kernel.org")
    res = cli("triage", str(write(tmp_path, thread(patch, reply, start=T0))), "--no-store", "--now", "2026-11-03",
              "--format", "json", "--no-progress")
    assert res.code in (0, 1), res.err
    (item,) = json.loads(res.out)["series"]
    return item


@pytest.mark.parametrize("separator", SEPARATORS)
def test_the_answered_mail_below_a_top_posted_reply_settles_nothing(tmp_path, cli, separator):
    below = (f"{separator}\nSent: Monday, November 2, 2026 11:00\nSubject: [PATCH] wifi: foo\n\n"
             "Patch applied to wireless-next.git, thanks.\n\nPlease send a v2 with the fix.\n"
             "Reviewed-by: Kalle Valo <kvalo@kernel.org>\n")
    item = _triage(tmp_path, cli, "I will look at this next week.\n\n" + below)
    assert item["status"] not in ("applied", "changes-requested"), item["reasons"]
    # the replier's own word, above the copy, still counts
    item = _triage(tmp_path, cli, "Patch applied to wireless-next.git, thanks.\n\n" + below)
    assert item["status"] == "applied", item["reasons"]


def test_where_the_copy_starts():
    def line_of(lines):  # the line the copy starts on, or None
        text = "\n".join(lines)
        at = original_offset(text)
        return None if at is None else text.count("\n", 0, at)

    assert line_of(["Thanks.", "", "-----Original Message-----", "From: x"]) == 2
    assert line_of(["Thanks.", "_" * 32, "From: x"]) == 1
    assert line_of(["Thanks.", "_" * 32, "a rule under a table"]) is None
    assert line_of(["> -----Original Message-----", "Applied."]) is None  # quoted: the reader's own test
