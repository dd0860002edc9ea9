"""A reply's `Re:` as mail clients write it in other languages: Outlook's `AW:`, `SV:`, `VS:`,
`Antw:`, `Odp:`, Chinese clients' `回复:` and `答复：` (a full-width colon). Each is a reply:
not a posting of its own, and a maintainer's word in it settles the series. b4 reads only `Re:`,
`Aw:`, `Fwd:` and a two- or three-letter word before `[`; the adapter hands it the others as
`Re:` (model/b4mailbox.py). Before, a maintainer's "Antw: [PATCH]" with "Patch applied" left the
series open, and an "Antw:" reply became a series of its own."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from mailfactory import Mail, hunk_diff, patch_body, thread, write
from test_triage_pulls import KALLE

from reviewtool.mail.subject import is_reply_subject, parse_subject, without_reply_prefix

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
PREFIXES = ["Re: ", "AW: ", "SV: ", "VS: ", "Antw: ", "Odp: ", "Odp: Re: ", "回复: ", "答复：", "RE[2]: "]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_each_prefix_is_a_reply(prefix):
    s = parse_subject(prefix + "[PATCH v2 1/3] wifi: foo: fix the bar flags")
    assert s.reply and (s.revision, s.counter, s.summary) == (2, 1, "wifi: foo: fix the bar flags")
    assert is_reply_subject(prefix + "[PATCH] x")
    assert without_reply_prefix(prefix + "[PATCH] x") == "[PATCH] x"


def test_subsystem_words_are_no_reply_prefix():
    for subject in ("vsock: fix the ref count", "svc: drop the lock", "wg: fix a typo", "ats: fix", "[PATCH] re: x"):
        assert not is_reply_subject(subject), subject


@pytest.mark.parametrize("prefix", ["Antw: ", "答复：", "Odp: Re: "])
def test_a_maintainers_applied_word_under_a_localized_prefix_settles_the_series(tmp_path, cli, prefix):
    patch = Mail("[PATCH wireless-next] wifi: foo: fix the bar flags",
                 patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                 msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    reply = Mail(prefix + "[PATCH wireless-next] wifi: foo: fix the bar flags",
                 "Jane Developer <jane@example.org> wrote:\n\n> The foo path returns early.\n\n"
                 "Patch applied to wireless-next.git, thanks.\n\n0123456789ab wifi: foo: fix the bar flags\n",
                 sender=KALLE, msgid="r@example.org", to="linux-wireless@vger.kernel.org")
    path = write(tmp_path, thread(patch, reply, start=T0))
    res = cli("triage", str(path), "--no-store", "--now", "2026-12-01", "--format", "json", "--no-progress")
    assert res.code in (0, 1), res.err
    report = json.loads(res.out)
    assert [s["msgid"] for s in report["series"]] == ["p@example.org"]  # the reply is no series of its own
    (item,) = report["series"]
    assert item["status"] == "applied", item["reasons"]
    assert item["state"]["by"] == KALLE
