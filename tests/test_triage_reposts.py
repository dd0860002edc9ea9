"""Revisions and reposts are linked by sender address, changed files and changed lines, not by
subject alone (triage/group.py, sources/diffsig.py), and the revision rules then see them."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import Mail, hunk_diff, patch_body, thread, write
from reviewtool.sources.diffsig import decoded, scan_text, similarity

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
NOW = "2026-11-06T12:00:00Z"
LINES = [f"\tfoo_{i}(dev);" for i in range(8)]


def patch(subject: str, lines=LINES, *, sender="Jane Developer <jane@example.org>", path="net/core/dev.c",
          when=T0, msgid=None) -> Mail:
    diff = hunk_diff(path, [line.replace("foo", "old") for line in lines], lines)
    return Mail(subject, patch_body(diff=diff), sender=sender, date=when, msgid=msgid)


def triage(cli, tmp_path, *mails: Mail):
    text = "\n".join(thread(m, domain=f"p{i}.example") for i, m in enumerate(mails))
    res = cli("triage", write(tmp_path, text), "--format", "json", "--now", NOW, "--no-store")
    assert res.code in (0, 1), res.err
    return res.json


def triaged(report):
    return [i for i in report["series"] if i["status"] != "superseded"]


def test_a_reworded_repost_by_the_same_address_is_one_series_and_not_bumped(tmp_path, cli):
    first = patch("[PATCH net-next] foo: fix the bar path")
    again = patch("[PATCH net-next] foo: repair the bar path", lines=LINES[:7] + ["\tfoo_7(dev, 1);"],
                  sender="J. Developer <JANE@example.org>", when=T0 + timedelta(hours=30))
    report = triage(cli, tmp_path, first, again)
    (item,) = triaged(report)
    assert item["full_subject"].endswith("repair the bar path") and len(item["superseded"]) == 1
    assert "version-not-bumped" in {f["rule"] for f in item["findings"]}


def test_a_reworded_v2_within_a_day_is_a_revision_posted_too_soon(tmp_path, cli):
    first = patch("[PATCH net-next] foo: fix the bar path")
    v2 = patch("[PATCH net-next v2] foo: repair the bar path", lines=LINES[:7] + ["\tfoo_7(dev, 1);"],
               when=T0 + timedelta(hours=5))
    (item,) = triaged(triage(cli, tmp_path, first, v2))
    assert item["revision"] == 2 and item["superseded"][0]["revision"] == 1
    assert "repost-too-soon" in {f["rule"] for f in item["findings"]}


def test_the_same_subject_on_other_lines_is_another_patch(tmp_path, cli):
    """Two "fix repeated words in comments" patches to one file, both applied: not a resend."""
    one = patch("[PATCH] wifi: foo: fix repeated words in comments", path="drivers/net/wireless/foo/hal.h")
    two = patch("[PATCH] wifi: foo: fix repeated words in comments", path="drivers/net/wireless/foo/hal.h",
                lines=[f"\tbar_{i}(dev);" for i in range(8)], when=T0 + timedelta(days=60))
    assert len(triaged(triage(cli, tmp_path, one, two))) == 2


def test_the_same_patch_for_two_stable_trees_is_two_series(tmp_path, cli):
    """Backports of one patch to 5.10 and to 5.4: the same lines, another target. AUTOSEL's are
    stable review, no series of the list's queue (mail/kinds.py): two threads of that kind."""
    a = patch("[PATCH AUTOSEL 5.10 1/1] wifi: foo: fix the bar path")
    b = patch("[PATCH AUTOSEL 5.4 1/1] wifi: foo: fix the bar path", when=T0 + timedelta(minutes=5))
    report = triage(cli, tmp_path, a, b)
    assert triaged(report) == [] and report["totals"]["not_series"] == {"stable-review": 2}
    # from anyone else, backports to released trees: kept apart too, one thread each
    a = patch("[PATCH 5.10] wifi: foo: fix the bar path")
    b = patch("[PATCH 5.4] wifi: foo: fix the bar path", when=T0 + timedelta(minutes=5))
    report = triage(cli, tmp_path, a, b)
    assert triaged(report) == [] and report["totals"]["not_series"] == {"stable-backport": 2}
    # the same patch for two trees of the list is two series
    a = patch("[PATCH net] wifi: foo: fix the bar path")
    b = patch("[PATCH net-next] wifi: foo: fix the bar path", when=T0 + timedelta(minutes=5))
    assert len(triaged(triage(cli, tmp_path, a, b))) == 2


def test_another_author_with_the_same_lines_is_another_series(tmp_path, cli):
    a = patch("[PATCH net-next] foo: fix the bar path")
    b = patch("[PATCH net-next] foo: repair the bar path", sender="Rita Other <rita@example.net>",
              when=T0 + timedelta(hours=30))
    assert len(triaged(triage(cli, tmp_path, a, b))) == 2


def test_a_v2_may_change_other_files_than_v1(tmp_path, cli):
    v1 = patch("[PATCH net] foo: fix the crash", path="net/mac80211/iface.c")
    v2 = patch("[PATCH net v2] foo: fix the crash", path="net/mac80211/tx.c", when=T0 + timedelta(days=2))
    (item,) = triaged(triage(cli, tmp_path, v1, v2))
    assert item["revision"] == 2


def test_sketches_read_plain_and_quoted_printable_diffs_alike():
    body = patch_body(diff=hunk_diff("net/core/dev.c", ["int a = 1;"], ["int a = 2; /* é */"])).encode()
    plain_paths, plain = scan_text(body)
    qp = body.replace("é".encode(), b"=C3=A9").replace(b"/* ", b"/*=\n ")
    head = b"Content-Transfer-Encoding: quoted-printable\n"
    assert scan_text(decoded(head, qp)) == (plain_paths, plain) and plain_paths == ("net/core/dev.c",)
    other = scan_text(patch_body(diff=hunk_diff("net/core/dev.c", ["int b;"], ["long b;"])).encode())[1]
    assert similarity(plain, plain) == 1.0 and similarity(plain, other) == 0.0
    assert scan_text(b"no diff here\n> diff --git a/x b/x\n") == ((), b"") and similarity(b"", plain) is None


def test_a_v2_after_two_unnumbered_patches_in_one_thread_is_reviewed_as_itself(tmp_path, cli):
    """b4 numbers a second unnumbered patch from the same author in one thread as v2 ("Assuming
    new revision"), so the real v2 became its v3 and b4's v2 answered for it: the triaged v2 showed
    the subject and the review of the earlier patch (linux-wireless, 2022-09: a test patch and a
    fix sent to a syzbot report, then the fix's v2)."""
    report = Mail("[syzbot] KASAN: slab-out-of-bounds in bar_path", "syzbot found the following issue",
                  sender="syzbot <syzbot+1234@syzkaller.appspotmail.com>", date=T0)
    test = patch("[PATCH] Add test files for 20221102", path="Next/SHA1s", when=T0 + timedelta(hours=1))
    fix = patch("[PATCH] foo: fix the bar path", when=T0 + timedelta(hours=20))
    v2 = patch("[PATCH v2] foo: fix the bar path", lines=LINES[:7] + ["\tfoo_7(dev, 1);"], when=T0 + timedelta(hours=30))
    items = {i["revision"]: i for i in triaged(triage_thread(cli, tmp_path, report, test, fix, v2))}
    assert items[2]["full_subject"] == "[PATCH v2] foo: fix the bar path"
    assert items[2]["patches"][0]["subject"] == "[PATCH v2] foo: fix the bar path"


def test_check_of_a_v2_after_two_unnumbered_patches_reviews_the_v2(tmp_path, cli):
    """The same thread given to `check`, which has no linker to name the posting: the v2 is the
    one patch mail whose subject says v2, and b4's v3 holds it."""
    report = Mail("[syzbot] KASAN: slab-out-of-bounds in bar_path", "syzbot found the following issue",
                  sender="syzbot <syzbot+1234@syzkaller.appspotmail.com>", date=T0)
    test = patch("[PATCH] Add test files for 20221102", path="Next/SHA1s", when=T0 + timedelta(hours=1))
    fix = patch("[PATCH] foo: fix the bar path", when=T0 + timedelta(hours=20))
    v2 = patch("[PATCH v2] foo: fix the bar path", lines=LINES[:7] + ["\tfoo_7(dev, 1);"], when=T0 + timedelta(hours=30))
    res = cli("check", write(tmp_path, thread(report, test, fix, v2)), "--format", "json")
    assert res.code in (0, 1), res.err
    series = res.json["series"]
    assert series["revision"] == 2 and series["full_subject"] == "[PATCH v2] foo: fix the bar path"


def triage_thread(cli, tmp_path, *mails: Mail):
    res = cli("triage", write(tmp_path, thread(*mails)), "--format", "json", "--now", NOW, "--no-store")
    assert res.code in (0, 1), res.err
    return res.json
