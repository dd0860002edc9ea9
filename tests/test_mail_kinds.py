"""Mail that is no patch series for the queue is known by its kind and kept out of triage's
series: each kind on mail of our own, with a near miss that stays a series."""

from __future__ import annotations

from mailfactory import Mail, patch_body, thread, write
from reviewtool.mail.kinds import mail_kind

GREG = "Greg Kroah-Hartman <gregkh@linuxfoundation.org>"
ROBOT = "kernel test robot <lkp@intel.com>"


def test_each_kind_and_its_near_miss():
    assert mail_kind("[PATCH AUTOSEL 6.8 01/68] wifi: foo: fix bar", "Sasha Levin <sashal@kernel.org>") == "stable-review"
    assert mail_kind("[PATCH 6.6 012/150] wifi: foo: fix bar", GREG) == "stable-review"
    # a maintainer's own backport, [PATCH 5.4], is a patch for the stable team, not its review cycle
    assert mail_kind("[PATCH 5.4] netfilter: foo: fix bar", "Pablo <pablo@netfilter.example>") is None
    assert mail_kind('FAILED: patch "[PATCH] wifi: foo: fix bar" failed to apply to 6.6-stable tree',
                     GREG) == "stable-notice"
    assert mail_kind("linux-next: manual merge of the wireless-next tree with the net tree",
                     "Stephen <sfr@example.org>") == "merge-notice"
    assert mail_kind("[tnguy-net-queue:dev-queue] BUILD SUCCESS 0123456789abcdef", ROBOT) == "robot-report"
    assert mail_kind("drivers/net/foo.c:12: warning: unused variable 'x'", ROBOT) == "robot-report"
    # the robot's own patch (a coccinelle fix) is a patch; a reply is never a thread's kind
    assert mail_kind("[PATCH] foo: fix semicolon.cocci warnings", ROBOT) is None
    assert mail_kind("Re: [PATCH 6.6 012/150] wifi: foo", GREG) is None
    assert mail_kind("[ANNOUNCE] nftables 1.0.9 release", "Pablo <pablo@netfilter.example>") == "announcement"
    assert mail_kind("[PATCH net] net: foo: fix the next linux-next: build", "Jane <jane@example.org>") is None


def test_triage_lists_them_apart_by_kind(tmp_path, cli):
    mails = [
        Mail("[PATCH 6.6 001/150] wifi: foo: fix bar", patch_body(), sender=GREG, msgid="s1@example.org"),
        Mail("[netdev:main] BUILD SUCCESS 0123456789abcdef", "tree/branch: ...\n", sender=ROBOT,
             msgid="b1@example.org"),
        Mail("[PATCH net] net: foo: fix bar", patch_body(), msgid="p1@example.org"),
        # a fix posted in reply to syzbot's report: the thread is a series all the same
        Mail("[syzbot] KASAN: use-after-free in foo_bar", "HEAD commit: 0123456789ab\n",
             sender="syzbot <syzbot+0123abcd@syzkaller.appspotmail.com>", msgid="z1@example.org"),
        Mail("[PATCH net] net: foo: fix the use-after-free", patch_body(), msgid="z2@example.org",
             in_reply_to="z1@example.org"),
    ]
    path = write(tmp_path, thread(*mails, thread_to_first=False), "list.mbox")
    res = cli("triage", path, "--no-store", "-f", "json")
    assert res.code in (0, 1), res.err
    assert sorted(s["msgid"] for s in res.json["series"]) == ["p1@example.org", "z2@example.org"]
    assert res.json["totals"]["not_series"] == {"robot-report": 1, "stable-review": 1}
