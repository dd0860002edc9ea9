"""An RFC that asks whether to make a change ("[RFC] foo: can we just remove this array?"),
answered on the list, then the change itself posted by its author as a patch (under a new
subject, maybe from another address of theirs) on the RFC's files: the patch carries the RFC on,
and the RFC is superseded by it. Near misses: someone else's patch on the same files, the author's
patch on other files, one whose summary shares no word of substance with the RFC's (another
change to the same files), and a patch long after the RFC stay postings of their own."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import Mail, hunk_diff, patch_body, write

START = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
GUSTAVO = '"Gustavo A. R. Silva" <gustavo@old.example.org>'
HEADER = "drivers/net/wireless/ti/wlcore/cmd.h"


def _mbox(mails: list[Mail]) -> str:
    return "".join("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render(m.msgid, m.date) + "\n" for m in mails)


def _rfc() -> Mail:
    body = ("`struct wl1271_cmd_header` is embedded in other structs. Can we just remove its flexible array?\n\n"
            + hunk_diff(HEADER, ["\t__le16 status;"], []))
    return Mail("[RFC] wireless: ti: Can we just remove this flexible array?", body, sender=GUSTAVO,
                to="linux-wireless@vger.kernel.org", msgid="rfc@example.org", date=START)


def _answer() -> Mail:
    return Mail("Re: [RFC] wireless: ti: Can we just remove this flexible array?", "I'd think you should just remove it.\n",
                sender="Jeff Johnson <jeff@example.org>", to="linux-wireless@vger.kernel.org",
                in_reply_to="rfc@example.org", msgid="a@example.org",
                date=START + timedelta(hours=1))


def _patch(sender: str, files: tuple[str, ...], days: float,
           summary: str = "wifi: ti: Avoid a hundred -Wflex-array-member-not-at-end warnings") -> Mail:
    diff = "".join(hunk_diff(f, ["\t__le16 status;"], ["\t__le16 status2;"]) for f in files)
    return Mail(f"[PATCH wireless-next] {summary}",
                patch_body(diff=diff, trailers=f"Signed-off-by: {sender}"), sender=sender,
                to="linux-wireless@vger.kernel.org", msgid="p@example.org",
                date=START + timedelta(days=days))


def _statuses(tmp_path, cli, patch: Mail) -> dict[str, str]:
    res = cli("triage", str(write(tmp_path, _mbox([_rfc(), _answer(), patch]))), "--no-store", "--now", "2026-12-20",
              "--format", "json")
    assert res.code in (0, 1), res.err
    out = {s["msgid"]: s["status"] for s in res.json["series"]}
    return out


def test_the_patch_an_rfc_asked_about_supersedes_it(tmp_path, cli):
    got = _statuses(tmp_path, cli, _patch('"Gustavo A. R. Silva" <gustavoars@new.example.org>',
                                          (HEADER, "drivers/net/wireless/ti/wl1251/cmd.h"), 5))
    assert got.get("rfc@example.org") == "superseded", got


def test_near_misses_stay_postings_of_their_own(tmp_path, cli):
    for patch in (_patch("Other Person <other@example.org>", (HEADER,), 5),
                  _patch(GUSTAVO, ("drivers/net/wireless/ti/wl1251/main.c",), 5),
                  _patch(GUSTAVO, (HEADER,), 60),
                  _patch(GUSTAVO, (HEADER,), 5, summary="wifi: wlcore: rename the command status field")):
        got = _statuses(tmp_path, cli, patch)
        assert got.get("rfc@example.org") != "superseded", (patch.sender, got)
