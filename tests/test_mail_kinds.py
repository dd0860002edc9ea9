"""Mail that is no patch series for the queue is known by its kind and kept out of triage's
series: each kind on mail of our own, with a near miss that stays a series."""

from __future__ import annotations

from datetime import datetime

from mailfactory import Mail, patch_body, thread, write
from reviewtool.mail.kinds import mail_kind

GREG = "Greg Kroah-Hartman <gregkh@linuxfoundation.org>"
ROBOT = "kernel test robot <lkp@intel.com>"


def _at(day: str) -> float:
    return datetime.fromisoformat(day + "T12:00:00+00:00").timestamp()


def test_each_kind_and_its_near_miss():
    assert mail_kind("[PATCH AUTOSEL 6.8 01/68] wifi: foo: fix bar", "Sasha Levin <sashal@kernel.org>") == "stable-review"
    assert mail_kind("[PATCH 6.6 012/150] wifi: foo: fix bar", GREG) == "stable-review"
    # a backport sent by anyone else is for the stable team to take, not the list's queue: a tag
    # naming a stable tree, or a version released before the posting (5.4 in 2023)...
    pablo = "Pablo <pablo@netfilter.example>"
    assert mail_kind("[PATCH -stable,5.10 v3 00/11] netfilter stable fixes", pablo) == "stable-backport"
    assert mail_kind("[PATCH 6.6.y 0/2] netfilter: fix bar", pablo) == "stable-backport"
    assert mail_kind("[PATCH 5.4] netfilter: foo: fix bar", pablo, _at("2023-11-21")) == "stable-backport"
    assert mail_kind("[PATCH v2 4.14 1/5] Revert \"foo: bar\"", pablo, _at("2022-07-14")) == "stable-backport"
    # ...but a fix for the release being prepared ([PATCH 6.0] during 6.0-rc) is the list's own,
    # and without a date a bare version says nothing
    assert mail_kind("[PATCH 6.0] wifi: mt76: fix bar", pablo, _at("2022-09-07")) is None
    assert mail_kind("[PATCH 5.4] netfilter: foo: fix bar", pablo) is None
    assert mail_kind("[PATCH 1.2] tool: fix bar", pablo, _at("2023-11-21")) is None
    assert mail_kind("[PATCH net-next 1/2] foo: stable ids", pablo, _at("2023-11-21")) is None
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


def test_a_mailman_list_tag_before_the_subject_hides_no_kind():
    """A Mailman list puts its tag first ("[Foo-devel] ..."): each kind is read past it; a tree
    tag is no list's tag, and a tagged patch is still a patch."""
    assert mail_kind('[Foo-devel] FAILED: patch "[PATCH] wifi: foo: fix bar" failed to apply to 6.6-stable tree',
                     GREG) == "stable-notice"
    assert mail_kind("[Foo-devel] linux-next: manual merge of the wireless-next tree with the net tree",
                     "Stephen <sfr@example.org>") == "merge-notice"
    assert mail_kind("[Intel-wired-lan] [tnguy-net-queue:dev-queue] BUILD SUCCESS 0123abc", ROBOT) == "robot-report"
    assert mail_kind("[netfilter-devel] [ANNOUNCE] nftables 1.0.9 release", "Pablo <pablo@netfilter.example>") \
        == "announcement"
    assert mail_kind("[net-next] linux-next: manual merge of the a tree", "Stephen <sfr@example.org>") is None
    assert mail_kind("[Foo-devel] [PATCH net] net: foo: fix the next linux-next: build", "Jane <j@example.org>") is None


def test_triage_lists_them_apart_by_kind(tmp_path, cli):
    mails = [
        Mail("[PATCH 6.6 001/150] wifi: foo: fix bar", patch_body(), sender=GREG, msgid="s1@example.org"),
        Mail("[netdev:main] BUILD SUCCESS 0123456789abcdef", "tree/branch: ...\n", sender=ROBOT,
             msgid="b1@example.org"),
        Mail("[PATCH net] net: foo: fix bar", patch_body(), msgid="p1@example.org"),
        Mail("[PATCH -stable,5.10] net: foo: fix bar", patch_body(), msgid="k1@example.org"),
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
    assert res.json["totals"]["not_series"] == {"robot-report": 1, "stable-backport": 1, "stable-review": 1}
