"""A reviewer's request for a change or another posting, in their own words, is an act triage reads:
the series needs a revision, never "apply it". Near misses: the author's own words, a maintainer
who fixes it up while applying, a request the reviewer then acks, a quoted request."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mailfactory import Mail, hunk_diff, patch_body, thread, write

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)


def _status(tmp_path, cli, *replies: tuple[str, str], author: str = "Jane Developer <jane@example.org>",
            tag: str = "PATCH net-next") -> dict:
    patch = Mail(f"[{tag}] foo: add the bar counter",
                 patch_body(trailers=f"Signed-off-by: {author}"), sender=author, msgid="p@example.org")
    mails = [patch] + [Mail(f"Re: [{tag}] foo: add the bar counter", body, sender=who, in_reply_to="p@example.org",
                            msgid=f"r{i}@example.org", date=T0 + timedelta(hours=i + 1))
                       for i, (who, body) in enumerate(replies)]
    res = cli("triage", str(write(tmp_path, thread(*mails, start=T0))), "--no-store", "--now", "2026-11-03",
              "--format", "json", "--select", "series", "--select", "signoff")
    (item,) = res.json["series"]
    return item


REVIEWER = "Rita Reviewer <rita@example.org>"


def _series_status(tmp_path, cli, *replies: tuple[str, int, str]) -> dict:
    """Triage's entry for a two-patch series with a cover letter; each reply (who, counter, body)."""
    author = "Jane Developer <jane@example.org>"
    mails = [Mail("[PATCH net-next 0/2] foo: counters", "Two counters.\n", sender=author, msgid="c@example.org")]
    mails += [Mail(f"[PATCH net-next {n}/2] foo: add counter {n}", patch_body(trailers=f"Signed-off-by: {author}"),
                   sender=author, msgid=f"p{n}@example.org", in_reply_to="c@example.org") for n in (1, 2)]
    mails += [Mail(f"Re: [PATCH net-next {n}/2] foo: add counter {n}", body, sender=who, in_reply_to=f"p{n}@example.org",
                   msgid=f"r{i}@example.org", date=T0 + timedelta(hours=i + 1)) for i, (who, n, body) in enumerate(replies)]
    res = cli("triage", str(write(tmp_path, thread(*mails, start=T0))), "--no-store", "--now", "2026-11-03",
              "--format", "json", "--select", "series", "--select", "signoff")
    (item,) = res.json["series"]
    return item


def test_a_reviewers_request_for_another_posting_needs_a_revision(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nThis races with the reset path; please send a v2 "
                                             "that takes the lock.\n"))
    asked = [r for r in item["reasons"] if r["code"] == "asked-for-changes"]
    assert item["status"] == "needs-revision" and asked[0]["by"] == REVIEWER
    assert "please send a v2" in asked[0]["evidence"]


def test_what_the_patch_should_do_is_a_request(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nThis doesn't belong into this patch - you should "
                                             "reorder so the core change comes first.\n"))
    asked = [r for r in item["reasons"] if r["code"] == "asked-for-changes"]
    assert item["status"] == "needs-revision" and "you should reorder" in asked[0]["evidence"]
    plan = _status(tmp_path, cli, (REVIEWER, "Anyway, the other function calls return -EIO so let's do the same here.\n"))
    assert plan["status"] == "needs-revision"
    wrong = _status(tmp_path, cli, (REVIEWER, "That, however, doesn't seem right. It means that you can only "
                                              "ever reduce the count.\n"))
    assert wrong["status"] == "needs-revision"
    # near misses: advice for next time, and where to send it (the tree rules say that), the
    # reviewer agreeing that the old code is wrong
    for words in ("You should use --base next time.", "You should send these to net next time, too.",
                  "I think you should not worry about that.",
                  "That doesn't seem right to me either, good catch on the old code.",
                  "So there is a race where you need to update the register after the reset.",
                  "Let's see what others say.", "Let's keep it as it is.", "So let's fix that later in a follow-up."):
        item = _status(tmp_path, cli, (REVIEWER, words + "\n"))
        assert not [r for r in item["reasons"] if r["code"] == "asked-for-changes"], words


def test_a_request_then_an_ack_from_the_reviewer_is_met(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nCould you rename it to bar_count?\n"),
                   (REVIEWER, "> Could you rename it?\n\nFine as is, after all.\n\nReviewed-by: Rita Reviewer <rita@example.org>\n"))
    assert item["status"] == "ready"


def test_near_misses_ask_nothing_of_the_author(tmp_path, cli):
    own = _status(tmp_path, cli, ("Jane Developer <jane@example.org>", "Thanks for looking, it is fine as it is.\n"))
    assert not [r for r in own["reasons"] if r["code"] in ("asked-for-changes", "withdrawn", "will-revise")]
    quoted = _status(tmp_path, cli, (REVIEWER, "> please send a v2\n\nNo need, this is fine.\n\n"
                                               "Reviewed-by: Rita Reviewer <rita@example.org>\n"))
    assert quoted["status"] == "ready"
    fixed_up = _status(tmp_path, cli, (REVIEWER, "Please fix the typo in the subject while applying.\n"))
    assert not [r for r in fixed_up["reasons"] if r["code"] == "asked-for-changes"]


def test_the_authors_withdrawal_is_no_patch_to_apply(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "Looks good.\n\nReviewed-by: Rita Reviewer <rita@example.org>\n"),
                   ("Jane Developer <jane@example.org>", "Please drop this patch; I will send a v2 with another approach.\n"))
    (taken,) = [r for r in item["reasons"] if r["code"] == "withdrawn"]
    assert item["status"] == "needs-revision" and taken["by"] == "Jane Developer <jane@example.org>"


def test_the_author_agreeing_to_change_it_is_a_revision_to_come(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nThis should be an atomic counter.\n"),
                   ("Jane Developer <jane@example.org>", "> This should be an atomic counter.\n\nMakes sense, I'll change that.\n"))
    assert item["status"] == "needs-revision"
    item = _status(tmp_path, cli, ("Jane Developer <jane@example.org>", "Thanks for the review, we will split up the patches.\n"))
    assert item["status"] == "needs-revision"
    # the thing to change named ("I will remove the class"); the fix already in the tree another way
    item = _status(tmp_path, cli, ("Jane Developer <jane@example.org>", "Ah, if so, we don't need it again.\n"))
    assert [r["code"] for r in item["reasons"] if r["code"] in ("withdrawn", "will-revise")] == ["withdrawn"]
    assert "took this one back" in item["verdict"]["next_step"]
    for words in ("Makes sense, I will remove the class.",
                  "Thanks, I will expand the TLAs.",
                  "On Tue, Aug 01, 2023 at 06:55:10PM +0200, Jane Developer wrote:\n\nThis one sucks: 'make "
                  "tags' won't cover the headers.",
                  "Yeah, the 0-day bot reported that too, sorry about that. It needs two more lines.",
                  "So I suppose I will respin this series to use its own firmware.",
                  "Good point, will fix.", "Sure, will update in v2.", "Ack, will respin.",
                  "As suggested will change it to select."):
        item = _status(tmp_path, cli, ("Jane Developer <jane@example.org>", words + "\n"))
        assert item["status"] == "needs-revision", words
        # a promise to revise, not a withdrawal: the step says so
        assert [r["code"] for r in item["reasons"] if r["code"] in ("withdrawn", "will-revise")] == ["will-revise"], words
        assert "will revise it" in item["verdict"]["next_step"], words
    # near misses: a follow-up patch later, the maintainer-author fixing it up as it is applied,
    # what the code will do, another patch's work
    for words in ("I will fix that in a follow-up patch.", "I'll fix this up when applying it.",
                  "This will change the MAC address.", "I will fix the other driver too.",
                  "We do not need it for the other boards.",
                  "Sorry about that, I'll make sure to avoid it in the future.", "Sorry for the late reply.",
                  "Will fix it in a follow-up.", "That will fix the crash.", "The next patch will change this.",
                  "That will fix it."):
        item = _status(tmp_path, cli, ("Jane Developer <jane@example.org>", words + "\n"))
        assert not [r for r in item["reasons"] if r["code"] in ("withdrawn", "will-revise")], words


APPLIER = "Jakub Kicinski <kuba@kernel.org>"  # in the netdev profile's [replies] appliers


def test_an_appliers_request_settles_changes_requested(tmp_path, cli):
    """Someone who applies for the tree asking for a v2 is what patchwork's Changes Requested says."""
    item = _status(tmp_path, cli, (APPLIER, "> +\tbar++;\n\nWould you send a v2 that takes the lock here?\n"))
    assert item["status"] == "changes-requested", item["reasons"]
    assert item["state"]["by"] == APPLIER and "send a v2" in item["state"]["reason"]
    assert item["verdict"]["status"] == "changes-requested"
    # near miss: the same words from a reviewer who does not apply: an objection, not a state
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nWould you send a v2 that takes the lock here?\n"))
    assert item["status"] == "needs-revision" and item["state"] is None
    assert item["verdict"]["next_step"].startswith("Wait for a new revision: " + REVIEWER)


def test_an_appliers_request_is_never_hidden_as_stale(tmp_path, cli):
    patch = Mail("[PATCH net-next] foo: add the bar counter",
                 patch_body(trailers="Signed-off-by: Jane Developer <jane@example.org>"), msgid="p@example.org")
    ask = Mail("Re: [PATCH net-next] foo: add the bar counter", "Please respin this on top of net-next.\n",
               sender=APPLIER, in_reply_to="p@example.org", msgid="r@example.org", date=T0 + timedelta(hours=1))
    quiet = Mail("[PATCH net-next] baz: add the baz counter",
                 patch_body(diff=hunk_diff("drivers/net/baz/baz.c", ["\treturn 0;"], ["\treturn baz();"])),
                 msgid="q@example.org", sender="Bob Other <bob@example.org>")
    path = write(tmp_path, thread(patch, ask, start=T0) + "\n" + thread(quiet, start=T0, domain="b.example.org"))
    res = cli("triage", str(path), "--no-store", "--now", "2027-03-01", "--format", "json")
    by_id = {s["msgid"]: s for s in res.json["series"]}
    assert by_id["p@example.org"]["status"] == "changes-requested"
    assert by_id["q@example.org"]["status"] == "stale"  # the near miss: nobody settled it


def test_please_with_a_comma_is_a_request_and_applied_with_one_is_applied(tmp_path, cli):
    """"Please, send v5" asks as "please send v5" does; "this is now applied. And please, add ..."
    is applied, with a request for what comes after it."""
    item = _status(tmp_path, cli, (APPLIER, "> +\tbar++;\n\nPlease, send v5, this is looking better and better.\n"))
    assert item["status"] == "changes-requested" and "Please, send v5" in item["state"]["reason"]
    item = _status(tmp_path, cli, (APPLIER, "> +\tbar++;\n\nThanks for explaining, this is now applied. And please,\n"
                                            "add a line about it to the README.\n"))
    assert item["status"] == "applied" and item["state"]["form"] == "plain-applied", item["reasons"]


def test_a_nak_from_an_applier_waits_for_the_author(tmp_path, cli):
    item = _status(tmp_path, cli, (APPLIER, "> +\tbar++;\n\nNACK.\n\nThis only hides the race.\n"))
    assert item["status"] == "changes-requested" and item["state"]["state"] == "nak"
    assert "NAKed" in item["verdict"]["next_step"]


ROBOT = "kernel test robot <lkp@intel.com>"


def test_a_robots_build_error_on_the_posting_needs_a_revision(tmp_path, cli):
    item = _status(tmp_path, cli, (ROBOT, "Hi Jane,\n\nkernel test robot noticed the following build errors:\n\n"
                                          "[auto build test ERROR on net-next/main]\n\n"
                                          "drivers/net/foo/foo.c:12:5: error: use of undeclared identifier 'bar'\n"))
    (asked,) = [r for r in item["reasons"] if r["code"] == "asked-for-changes"]
    assert item["status"] == "needs-revision" and asked["by"] == ROBOT
    warned = _status(tmp_path, cli, (ROBOT, "Hi Jane,\n\nkernel test robot noticed the following build warnings:\n\n"
                                           "If you fix the issue in a separate patch/commit (i.e. not just a new "
                                           "version of\nthe same patch/commit), kindly add following tags\n"
                                           "| Reported-by: kernel test robot <lkp@intel.com>\n\n"
                                           "drivers/net/foo/foo.c:12:5: warning: unused variable 'bar'\n"))
    assert not [r for r in warned["reasons"] if r["code"] == "asked-for-changes"]  # the near miss


@pytest.mark.parametrize("words", ["This needs a rebase on net-next.", "I'll wait for v2.", "Care to send a v2?",
                                   "Looking forward to v3 with the lock taken.", "Please fold this into patch 1.",
                                   "Could you add a selftest for this?", "Can you use the existing helper instead?",
                                   "v2 please."])
def test_waiting_for_the_next_version_is_a_request(tmp_path, cli, words):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\n" + words + "\n"))
    assert item["status"] == "needs-revision", item["reasons"]
    assert not _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nThis doesn't need a rebase.\n\n"
                                                 "Reviewed-by: Rita Reviewer <rita@example.org>\n"))["status"] == "needs-revision"


def test_a_change_asked_for_the_next_version_and_its_near_miss(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "> +\tbar++;\n\nSo let's add a helper for that in v2.\n"))
    assert item["status"] == "needs-revision"
    item = _status(tmp_path, cli, (REVIEWER, "This was fixed in v2 already, thanks.\n\n"
                                             "Reviewed-by: Rita Reviewer <rita@example.org>\n"))
    assert item["status"] == "ready"
    item = _status(tmp_path, cli, (REVIEWER, "Please post these separately, they go to different trees.\n"))
    assert item["status"] == "needs-revision"
    item = _status(tmp_path, cli, (REVIEWER, "Uh, no. Remove that message please.\n"))
    assert item["status"] == "needs-revision"
    item = _status(tmp_path, cli, (REVIEWER, "Remove this line? No, please keep it.\n\n"
                                             "Reviewed-by: Rita Reviewer <rita@example.org>\n"))
    assert item["status"] == "ready"  # the near miss: a question, then a review


def test_a_request_the_applier_then_fixes_up_is_met(tmp_path, cli):
    item = _status(tmp_path, cli, (APPLIER, "Please fix the typo in the commit message.\n"),
                   (APPLIER, "I will fix this up locally, no need to resend.\n"))
    assert item["status"] != "changes-requested" and not [r for r in item["reasons"] if r["code"] == "asked-for-changes"]
    # the near miss: advice for the author's later patches asks nothing of this one
    item = _status(tmp_path, cli, (APPLIER, "Please use the wifi: prefix in all new patches.\n"))
    assert item["status"] != "changes-requested"


def test_an_appliers_already_in_the_tree_closes_the_posting(tmp_path, cli):
    item = _status(tmp_path, cli, (APPLIER, "Already changed in:\n\nhttps://git.kernel.example/net-next/c/bf99f11df4de\n\n"
                                            "Please use latest trees to avoid duplicate work.\n"))
    assert item["status"] == "rejected" and item["state"]["state"] == "not-applicable"
    item = _status(tmp_path, cli, (APPLIER, "Already fixed the typo myself.\n"))  # the near miss: no state
    assert item["state"] is None


def test_a_partly_applied_series_says_what_went_in(tmp_path, cli):
    """Patches 1-2 applied, 3 sent back: the state says both, and the next step names the applied ones."""
    from mailfactory import series_mails

    kalle = "Kalle Valo <kvalo@kernel.org>"
    mails = series_mails(3, tree="wireless-next")
    for i, m in enumerate(mails):
        m.msgid, m.to = f"s{i}@example.org", "linux-wireless@vger.kernel.org"
    sent_back = Mail("Re: [PATCH wireless-next 3/3] foo: fix thing number 3", "This breaks the build.\n\n"
                     "Patch set to Changes Requested.\n", sender=kalle, in_reply_to="s3@example.org",
                     msgid="k1@example.org", date=T0 + timedelta(hours=2))
    applied = Mail("Re: [PATCH wireless-next 0/3] foo: fix two things", "2 patches applied to wireless-next.git, thanks.\n\n"
                   "1111111111aa foo: fix thing number 1\n2222222222bb foo: fix thing number 2\n", sender=kalle,
                   in_reply_to="s0@example.org", msgid="k2@example.org", date=T0 + timedelta(hours=3))
    res = cli("triage", str(write(tmp_path, thread(*mails, sent_back, applied, start=T0))), "--no-store", "--now",
              "2026-11-03", "--format", "json")
    (item,) = res.json["series"]
    assert item["status"] == "changes-requested" and item["state"]["applied"] == [1, 2], item["state"]
    assert item["verdict"]["next_step"].endswith("Patches 1, 2 were applied.")
    text = cli("triage", str(tmp_path / "series.mbox"), "--no-store", "--now", "2026-11-03").out
    assert "patches 1, 2 applied" in text


def test_a_reviewers_nak_in_a_sentence_is_an_objection(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "NAK, sorry. Please go back to v1 and read the comments.\n"))
    assert item["status"] == "needs-revision"
    item = _status(tmp_path, cli, (REVIEWER, "I was not going to NAK it; it is fine.\n\n"
                                             "Acked-by: Rita Reviewer <rita@example.org>\n"))
    assert item["status"] == "ready"  # the near miss: a negated NAK, then an ack


def test_the_appliers_request_decides_over_an_earlier_reviewers(tmp_path, cli):
    item = _status(tmp_path, cli, (REVIEWER, "Could you rename it to bar_count?\n"),
                   (APPLIER, "Agreed, please send a v2 with the rename.\n"))
    assert item["status"] == "changes-requested" and item["state"]["by"] == APPLIER


def test_an_appliers_review_in_words_counts_as_a_review(tmp_path, cli):
    item = _status(tmp_path, cli, (APPLIER, "> +\tbar++;\n\nThanks, this looks good now.\n"))
    assert item["status"] == "ready" and APPLIER in item["reviewers"]
    # near misses: the same words from a reviewer who does not apply (a Reviewed-by is theirs to
    # give), and an applier's "looks good" in a reply that also asks for a change
    assert _status(tmp_path, cli, (REVIEWER, "Thanks, this looks good now.\n"))["status"] == "needs-review"
    item = _status(tmp_path, cli, (APPLIER, "It looks fine, but please fix the typo in the subject.\n"))
    assert item["status"] == "changes-requested"
    # the applier fixing it up in the branch it is queued in has taken it
    item = _status(tmp_path, cli, (APPLIER, "This added a new warning. I fixed that in the pending branch.\n"))
    assert item["status"] == "ready" and APPLIER in item["reviewers"]
    item = _series_status(tmp_path, cli, (APPLIER, 2, "This added a new warning. I fixed that in the pending branch.\n"))
    assert item["status"] == "ready", item["reasons"]  # the branch holds the series, not patch 2 alone
    item = _series_status(tmp_path, cli, (APPLIER, 2, "Thanks, this looks good now.\n"))
    assert item["status"] == "needs-review"  # a review of patch 2 only
    item = _status(tmp_path, cli, (APPLIER, "It does not apply cleanly to the pending branch.\n"))
    assert item["status"] != "ready"
    # the applier settling a reviewer's doubt for the patch; "fine" of something else is no review
    item = _status(tmp_path, cli, (APPLIER, "datatype_get() is perfectly fine for this case as you point out.\n"))
    assert item["status"] == "ready" and APPLIER in item["reviewers"]
    assert _status(tmp_path, cli, (APPLIER, "The old code was fine.\n"))["status"] == "needs-review"


def test_an_applier_who_will_not_apply_it_rejects_it(tmp_path, cli):
    item = _status(tmp_path, cli, (APPLIER, "It makes no sense to send such patches as standalone. It should be "
                                            "included in a bigger series or just don't bother.\n"))
    assert item["status"] == "rejected", item["reasons"]
    assert item["state"]["by"] == APPLIER and item["state"]["form"] == "rejection"
    assert "makes no sense to send" in item["state"]["evidence"]
    assert _status(tmp_path, cli, (APPLIER, "Sorry, I'm not taking this.\n"))["status"] == "rejected"
    assert _status(tmp_path, cli, (APPLIER, "I'm not taking this yet.\n"))["status"] != "rejected"
    # it decides over the same applier's earlier request
    item = _status(tmp_path, cli, (APPLIER, "Please send a v2 that takes the lock.\n"),
                   (APPLIER, "You sent a different patch since, so I'm dropping this one.\n"))
    assert item["status"] == "rejected"
    # the applier's own fix instead
    item = _status(tmp_path, cli, (APPLIER, "I have sent a patch to fix this, with the lock taken. So, NACK.\n"))
    assert item["status"] == "rejected"
    # someone else's patch taken instead; near miss: another patch applied first, this one after
    item = _status(tmp_path, cli, (APPLIER, "If all is OK, then please, let Jozsef submit his own patch to the list.\n"))
    assert item["status"] == "rejected"
    item = _status(tmp_path, cli, (APPLIER, "I'll take Ed's patch first, then this one on top.\n"))
    assert item["status"] != "rejected"
    # a maintainer setting their own patch aside; the same words from another author settle nothing
    flagged = "Looks like I fixed these two earlier.\n\nI've flagged as N/A in patchwork\n"
    assert _status(tmp_path, cli, (APPLIER, flagged), author=APPLIER)["status"] == "rejected"
    other = "Jane Developer <jane@example.org>"
    assert _status(tmp_path, cli, (other, flagged))["status"] != "rejected"
    # near misses: not now but later, a reviewer who applies nothing, the author's own words
    for who, words in ((APPLIER, "I'll drop this for now, please resend it after rc1."),
                       (APPLIER, "I'm not going to apply this as is."),
                       (REVIEWER, "I'm dropping this from my review queue, someone else please look."),
                       ("Jane Developer <jane@example.org>", "I'll drop this one, it is not needed.")):
        item = _status(tmp_path, cli, (who, words + "\n"))
        assert item["status"] != "rejected", words


def test_the_rfc_tag_taken_off_in_the_thread_makes_it_one_for_applying(tmp_path, cli):
    """An applier's "let's ignore the RFC label for this v2" or the author's "consider it as final":
    the step is to apply it, with the words; from anyone else the RFC stays one."""
    rfc = _status(tmp_path, cli, tag="RFC PATCH net-next")
    assert "as an RFC it is not applied" in rfc["verdict"]["next_step"]
    for who, words in ((APPLIER, "Good, so let's ignore the RFC label for this v2."),
                       ("Jane Developer <jane@example.org>", "No, I just forgot to remove it, so you can consider it as final.")):
        item = _status(tmp_path, cli, (who, words + "\n"), tag="RFC PATCH net-next")
        step = item["verdict"]["next_step"]
        assert "apply it" in step and "as an RFC it is not applied" not in step and "sent as an RFC" in step, words
    other = _status(tmp_path, cli, (REVIEWER, "Let's ignore the RFC label for this v2.\n"), tag="RFC PATCH net-next")
    assert "as an RFC it is not applied" in other["verdict"]["next_step"]


def test_the_posting_reported_broken_by_one_who_ran_it_needs_a_revision(tmp_path, cli):
    for words in ("This crashes on my test box when running rmmod, stacktrace below.",
                  "This patch doesn't apply now, sorry I let it linger.", "This series does not apply."):
        item = _status(tmp_path, cli, (REVIEWER, words + "\n"))
        assert item["status"] == "needs-revision", words
    # near misses: a question, the bug the patch fixes, the old code's crash
    for words in ("Does this crash on your box too?", "Without it, this crashes on boot.",
                  "It doesn't crash any more with this patch applied."):
        item = _status(tmp_path, cli, (REVIEWER, words + "\n"))
        assert not [r for r in item["reasons"] if r["code"] == "asked-for-changes"], words


def test_the_author_answering_with_the_changed_code_in_the_thread_waits_for_review(tmp_path, cli):
    """The split patches posted as replies, "how about this?" with a diff: the request is answered
    and the new code waits for a review. Near miss: words alone, or the old diff quoted back."""
    ask = (REVIEWER, "Would you mind to split this large patch in smaller chunks? Please split it in 3 patches.\n")
    diff = ("This patch makes the plugin export the translated addresses.\n\n"
            "diff --git a/foo.c b/foo.c\n--- a/foo.c\n+++ b/foo.c\n@@ -1,2 +1,3 @@\n int a;\n+int b;\n int c;\n")
    item = _status(tmp_path, cli, ask, ("Jane Developer <jane@example.org>", diff))
    assert item["status"] == "needs-review", item["reasons"]
    assert _status(tmp_path, cli, ask, ("Jane Developer <jane@example.org>", "Sure, will do.\n"))["status"] == "needs-revision"
    quoted = "> @@ -1,2 +1,3 @@\n> +int b;\n\nWhy split it?\n"
    assert _status(tmp_path, cli, ask, ("Jane Developer <jane@example.org>", quoted))["status"] == "needs-revision"


def _v1_then_v2(tmp_path, cli, who: str, words: str) -> dict:
    """Triage's entry for a v2 posted in its own thread after `who` answered v1 with `words`."""
    author = "Jane Developer <jane@example.org>"
    v1 = [Mail("[PATCH net-next] foo: add the bar counter", patch_body(trailers=f"Signed-off-by: {author}"),
               sender=author, msgid="v1@example.org"),
          Mail("Re: [PATCH net-next] foo: add the bar counter", f"> +\tbar++;\n\n{words}\n", sender=who,
               in_reply_to="v1@example.org", msgid="r1@example.org", date=T0 + timedelta(hours=1))]
    v2 = [Mail("[PATCH net-next v2] foo: add the bar counter", patch_body(trailers=f"Signed-off-by: {author}"),
               sender=author, msgid="v2@example.org")]
    text = thread(*v1, start=T0) + "\n" + thread(*v2, start=T0 + timedelta(days=1), domain="b.example.org")
    res = cli("triage", str(write(tmp_path, text)), "--no-store", "--now", "2026-11-04", "--format", "json",
              "--select", "series", "--select", "signoff")
    (item,) = [s for s in res.json["series"] if s["msgid"] == "v2@example.org"]
    return item


def test_an_appliers_request_on_an_earlier_revision_settles_that_posting(tmp_path, cli):
    """The words that settle the triaged series settle a superseded posting too, where no reply
    form did: the v2 says what became of its v1, and by whom."""
    item = _v1_then_v2(tmp_path, cli, APPLIER, "Correct, but could you please send a v2 that takes\nthe lock here?")
    (earlier,) = [r for r in item["reasons"] if r["code"] == "earlier-state"]
    assert (earlier["msgid"], earlier["revision"]) == ("v1@example.org", 1)
    state = earlier["state"]
    assert (state["state"], state["form"], state["by"]) == ("changes-requested", "change-request", APPLIER)
    assert "send a v2" in state["evidence"]
    # an applier who will not take it at all: rejected, over the request
    item = _v1_then_v2(tmp_path, cli, APPLIER, "Please send a v2 that takes the lock.\n\n"
                                               "On second thought it makes no sense to send such patches. Just don't bother.")
    (earlier,) = [r for r in item["reasons"] if r["code"] == "earlier-state"]
    assert earlier["state"]["state"] == "rejected"


def test_a_reviewers_request_on_an_earlier_revision_settles_nothing(tmp_path, cli):
    item = _v1_then_v2(tmp_path, cli, REVIEWER, "Could you please send a v2 that takes the lock here?")
    assert not [r for r in item["reasons"] if r["code"] == "earlier-state"]
    # a reply form still decides over the words around it
    item = _v1_then_v2(tmp_path, cli, APPLIER, "Please send a v2 with the lock.\n\npw-bot: defer")
    (earlier,) = [r for r in item["reasons"] if r["code"] == "earlier-state"]
    assert (earlier["state"]["state"], earlier["state"]["form"]) == ("deferred", "pw-bot")
