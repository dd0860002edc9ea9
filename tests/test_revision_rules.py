"""Revision rules on real revision chains (netfilter-devel, patchwork, patchew, b4) and on threads
built with mailfactory: changelog-missing, changelog-above-cut, trailers-not-carried,
version-not-bumped; plus the adapter and thread selection they rely on (earlier revisions,
older postings of one revision, prefixes b4 misreads)."""

from datetime import datetime, timezone

from conftest import CORPUS
from mailfactory import DEFAULT_DIFF, Mail, cover_body, patch_body, series_mails, thread, write

NF = CORPUS / "netfilter-devel"
DAY1 = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
DAY2 = datetime(2026, 11, 3, 10, 0, tzinfo=timezone.utc)
DAY3 = datetime(2026, 11, 4, 10, 0, tzinfo=timezone.utc)
REVIEW = "Reviewed-by: Simon Reviewer <simon@example.org>"


def hits(res, rule, patch="any"):
    return [f for f in res.json["findings"] if f["rule"] == rule and (patch == "any" or f["patch"] == patch)]


def concat(tmp_path, *names, out="chain.mbox"):
    path = tmp_path / out
    path.write_bytes(b"".join((NF / n).read_bytes() for n in names))
    return path


def reply(subject, parent_msgid, text, sender="Simon Reviewer <simon@example.org>", date=None):
    return Mail(f"Re: {subject}", text, sender=sender, in_reply_to=parent_msgid, date=date)


# adapter and thread selection -------------------------------------------------------------------

def test_comma_forms_b4_misreads_are_reviewed(tmp_path, check_json):
    # b4 does not split `0/6,v3` or `nft,v2` at the comma; the adapter hands it canonical prefixes.
    res = check_json(NF / "net-next-updates-0-6-comma-v3.mbox")
    assert res.json["series"]["revision"] == 3 and res.json["series"]["received"] == [1, 2, 3, 4, 5, 6]
    chain = check_json(concat(tmp_path, "nft-parser-json-netdev-v1.mbox", "nft-parser-json-netdev-v2.mbox",
                              "nft-parser-json-netdev-v3.mbox"))
    assert chain.json["series"]["revision"] == 3 and chain.json["series"]["earlier_revisions"] == [1, 2]
    assert chain.json["series"]["full_subject"] == "[PATCH nft,v3] parser_json: fix device parsing in netdev family"


def test_single_patch_that_grew_into_a_series_is_one_chain(tmp_path, check_json):
    # nat-port-remap: [PATCH nf] -> [PATCH nf-next v2 0/2] -> [PATCH nf v3] -> [PATCH nf-next v4 0/2].
    res = check_json(concat(tmp_path, *(f"nat-port-remap-{n}" for n in
                                        ("1-nf-v1.mbox", "2-nf-next-v2.mbox", "3-nf-v3.mbox", "4-nf-next-v4.mbox"))))
    assert res.json["series"]["revision"] == 4 and res.json["series"]["earlier_revisions"] == [1, 2, 3]


def test_older_posting_of_the_same_revision_comes_along_but_not_a_newer_one(tmp_path, check_json):
    first = series_mails(2)
    second = series_mails(2, bodies={1: patch_body(diff=DEFAULT_DIFF.replace("bar(dev, 0)", "bar(dev, 1)"))})
    text = (thread(*first, start=DAY1, domain="one.example.org") + "\n"
            + thread(*second, start=DAY2, domain="two.example.org"))
    path = write(tmp_path, text)
    assert hits(check_json(path), "version-not-bumped", 1)
    older_root = "20261102100000.1000-0-jane@one.example.org"
    assert hits(check_json(path, "--msgid", older_root), "version-not-bumped") == []


# changelog-missing ------------------------------------------------------------------------------

def test_changelog_present_real(check_json):
    for path in (NF / "nf-next-ipvs-cleanups-v3.mbox",  # "Changes in v3:" in the cover letter
                 NF / "patchv2-nf-sctp-timeout.mbox",  # "v1->v2:" below ---
                 NF / "net-next-updates-0-6-comma-v3.mbox",  # a pull request: its cover describes a branch
                 CORPUS / "netdev/iproute2-v2-0-3-dcb-fixes.mbox"):
        assert hits(check_json(path), "changelog-missing") == [], path


def test_changelog_missing_real(check_json):
    # patchew's quorum patch: [PATCH v2] with nothing below --- and no cover letter.
    found = hits(check_json(CORPUS / "patchew/0009-obsolete-by.mbox.gz"), "changelog-missing")
    assert len(found) == 1 and found[0]["patch"] == 1 and "v2 carries no change log" in found[0]["message"]


def test_changelog_missing_built_and_silent_when_patches_are_missing(tmp_path, check_json):
    res = check_json(write(tmp_path, thread(*series_mails(2, version=2))))
    assert [f["patch"] for f in hits(res, "changelog-missing")] == [0]
    noted = series_mails(2, version=2)
    noted[0].body = cover_body(notes="Changes in v2:\n- check the length first")
    assert hits(check_json(write(tmp_path, thread(*noted), "noted.mbox")), "changelog-missing") == []
    # Patch 1 of 8 alone (no cover letter): the log may be in the mails that did not arrive.
    assert hits(check_json(CORPUS / "nipa/good.mbox"), "changelog-missing") == []


def test_changelog_missing_is_a_warning_when_v1_got_review_comments(tmp_path, check_json):
    """The reviewers of v1 need the log to see what became of their comments; a v1 nobody
    answered (the near miss) leaves it a note."""
    from datetime import timedelta

    start = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
    v1 = Mail("[PATCH net] foo: fix the bar flags", patch_body(), msgid="v1@example.org")
    review = reply("[PATCH net] foo: fix the bar flags", "v1@example.org",
                   "> +\tbar = 1;\n\nThis leaks the old flags on the error path.\n", date=start + timedelta(hours=2))
    v2 = Mail("[PATCH net v2] foo: fix the bar flags", patch_body(), msgid="v2@example.org",
              date=start + timedelta(days=2))
    text = thread(v1, review, start=start) + "\n" + thread(v2, start=start + timedelta(days=2), domain="b.example.org")
    (found,) = hits(check_json(write(tmp_path, text)), "changelog-missing")
    assert found["severity"] == "warning" and "Simon Reviewer" in found["message"] and "leaks" in found["message"]
    quiet = thread(v1, start=start) + "\n" + thread(v2, start=start + timedelta(days=2), domain="b.example.org")
    (found,) = hits(check_json(write(tmp_path, quiet, "quiet.mbox")), "changelog-missing")
    assert found["severity"] == "info"


def test_changelog_in_the_forms_people_write(tmp_path, check_json):
    # Each of these is a log of what changed, in a cover letter as netdev authors write them.
    for i, notes in enumerate(("v2 changes:\n1. add patch 1", "Version 2 changes:\n- drop patch 4",
                               "Change since v1:\n- use the helper", "v1\u2026v2: https://lore.kernel.org/all/x@y",
                               "v1 link: https://lore.kernel.org/netdev/x@y/", "- Link to v1: https://lore.kernel.org/r/x@y")):
        mails = series_mails(2, version=2)
        mails[0].body = cover_body(text="This series fixes two things in foo.\n\n" + notes)
        assert hits(check_json(write(tmp_path, thread(*mails), f"f{i}.mbox")), "changelog-missing") == [], notes
    # "Problem description:" and "Changes the default" are prose, not a log.
    mails = series_mails(2, version=2)
    mails[0].body = cover_body(text="Problem description:\nChanges the default of foo.")
    assert hits(check_json(write(tmp_path, thread(*mails), "prose.mbox")), "changelog-missing")


def test_changelog_silent_when_the_cover_letter_is_not_in_the_input(tmp_path, check_json):
    # v2 1/2 and 2/2 both answer a cover letter the input lacks: the log is likely there.
    mails = series_mails(2, version=2)[1:]
    for m in mails:
        m.in_reply_to = "cover-letter-not-here@example.org"
    assert hits(check_json(write(tmp_path, thread(*mails))), "changelog-missing") == []
    # Threaded to each other instead (2/2 answers 1/2): no cover letter was sent, the log is missing.
    chained = series_mails(2, version=2, cover=False)
    assert hits(check_json(write(tmp_path, thread(*chained), "chained.mbox")), "changelog-missing")


# changelog-above-cut ----------------------------------------------------------------------------

def test_changelog_above_cut_real(check_json):
    res = check_json(NF / "nat-port-remap-3-nf-v3.mbox")
    found = hits(res, "changelog-above-cut", 1)
    assert found and found[0]["evidence"] == ["v3: no need to call tuple_force_port_remap if already in random mode"]


def test_changelog_below_cut_real(check_json):
    for name in ("nf-next-ipvs-cleanups-v3.mbox", "patchv2-nf-sctp-timeout.mbox", "bpf-nf-hook-migration-v2.mbox"):
        assert hits(check_json(NF / name), "changelog-above-cut") == [], name


def test_changelog_above_cut_built(tmp_path, check_json):
    message = """\
        The foo path returns early without bar's flags. Pass the flags.

        Changes since v1:
        - pass the flags in the error path too"""
    res = check_json(write(tmp_path, thread(Mail("[PATCH net v2] net: foo: pass the flags",
                                                 patch_body(message=message)))))
    assert hits(res, "changelog-above-cut", 1)[0]["evidence"] == ["Changes since v1:"]
    # IPv4 and versions named in prose are not version notes.
    prose = ("The IPv4 path returns early since v6.1, and the changes in v5.19 broke it.\n"
             "Since v6.2 the flags are lost as well.")
    res = check_json(write(tmp_path, thread(Mail("[PATCH net] net: foo: pass the flags", patch_body(message=prose))),
                           "prose.mbox"))
    assert hits(res, "changelog-above-cut") == []


# trailers-not-carried ---------------------------------------------------------------------------

def test_trailers_carried_real_v2_to_v3(tmp_path, check_json):
    # Horatiu's Reviewed-by on all four v2 patches is in every v3 patch.
    res = check_json(concat(tmp_path, "nf-next-ipvs-cleanups-v1.mbox", "nf-next-ipvs-cleanups-v2.mbox",
                            "nf-next-ipvs-cleanups-v3.mbox"))
    assert res.json["series"]["earlier_revisions"] == [1, 2]
    assert hits(res, "trailers-not-carried") == []


def test_trailers_not_carried_real_v2_to_v3(tmp_path, check_json):
    # Eric Garver acked v2 2/2 an hour before v3 was posted; v3 does not carry it or say why.
    path = concat(tmp_path, "nat-port-remap-1-nf-v1.mbox", "nat-port-remap-2-nf-next-v2.mbox",
                  "nat-port-remap-3-nf-v3.mbox", "nat-port-remap-4-nf-next-v4.mbox")
    found = hits(check_json(path, "--revision", "3"), "trailers-not-carried")
    assert len(found) == 1 and found[0]["patch"] == 1
    assert found[0]["message"] == ("Acked-by from Eric Garver <eric@garver.life> given on v2 is missing from v3 "
                                   "(the patch changed since)")
    assert found[0]["evidence"] == ["Acked-by: Eric Garver <eric@garver.life>",
                                    "in a reply on v2 <YbtJoQ0yee1J+xPA@egarver.remote.csb>"]
    # v4 carries Phil's Acked-by from v3: nothing to say.
    assert hits(check_json(path), "trailers-not-carried") == []


def _two_revisions(tmp_path, v2_notes="", review_date=DAY2, name="revs.mbox", twice=False):
    v1 = series_mails(2, tree="net-next")
    patch2 = "20261102100000.1002-2-jane@v1.example.org"
    review = reply(v1[2].subject, patch2, "> quoted\n\nLooks good.\n\n" + REVIEW, date=review_date)
    v2 = series_mails(2, tree="net-next", version=2, bodies={2: patch_body(notes=v2_notes or "v2: no change")})
    v2[0].body = cover_body(notes="Changes in v2:\n- reword patch 1")
    again = [reply(v1[2].subject, patch2, "Still good.\n\n" + REVIEW, date=review_date)] if twice else []
    text = thread(*v1, review, *again, start=DAY1, domain="v1.example.org")
    return write(tmp_path, text + "\n" + thread(*v2, start=DAY3, domain="v2.example.org"), name)


def test_trailers_not_carried_built(tmp_path, check_json):
    res = check_json(_two_revisions(tmp_path, twice=True))  # given twice, reported once
    found = hits(res, "trailers-not-carried")
    assert [f["patch"] for f in found] == [2]
    assert found[0]["evidence"][0] == REVIEW and "Add `Reviewed-by: Simon Reviewer" in found[0]["advice"]


def test_trailers_dropped_with_a_note_or_given_too_late(tmp_path, check_json):
    noted = _two_revisions(tmp_path, v2_notes="v2: dropped Simon's Reviewed-by, the locking changed", name="n.mbox")
    assert hits(check_json(noted), "trailers-not-carried") == []
    # The review arrived after v2 was posted: the author could not carry it.
    late = _two_revisions(tmp_path, review_date=datetime(2026, 11, 5, tzinfo=timezone.utc), name="late.mbox")
    assert hits(check_json(late), "trailers-not-carried") == []


def test_trailers_partial_reroll_reuses_mails(check_json):
    # b4's partial reroll: v3 re-sends only 2/2; the v2 cover and 1/2 are reused, so only 2/2 counts.
    found = hits(check_json(CORPUS / "b4/trailers-followup-partial-reroll.mbox"), "trailers-not-carried")
    assert [f["patch"] for f in found] == [2] and "(the patch changed since)" in found[0]["message"]


# version-not-bumped -----------------------------------------------------------------------------

def test_version_not_bumped_real(check_json):
    # patchwork's "v2 posted with no version label": a new thread, same [PATCH 0/2], changed diffs.
    res = check_json(CORPUS / "patchwork/series/revision-unlabeled.mbox")
    found = hits(res, "version-not-bumped")
    assert [f["patch"] for f in found] == [1, 2]
    assert "was posted again as v1 with the diff" in found[0]["message"]
    assert found[0]["evidence"][0] == ("earlier: [PATCH 1/2] test: Add some lorem ipsum "
                                       "<1473632524-8585-2-git-send-email-stephenfinucane@gmail.com>")
    assert found[0]["evidence"][2].startswith("new in the later posting, test.txt: +")
    assert "v2" in found[0]["advice"]
    # The same, resent in reply to the first posting (one thread): reviewed as one series, not 4 patches.
    threaded = check_json(CORPUS / "patchwork/series/bugs-nocover-noversion.mbox")
    assert threaded.json["series"]["received"] == [1, 2]
    assert [f["patch"] for f in hits(threaded, "version-not-bumped")] == [1, 2]


def test_identical_reposts_are_not_version_bumps(check_json):
    # The same [PATCH v2 1/4] sent three times, unchanged.
    assert hits(check_json(CORPUS / "patchwork/series/bugs-spamming.mbox"), "version-not-bumped") == []


def test_resend_with_a_changed_diff(tmp_path, check_json):
    first = Mail("[PATCH net] net: foo: pass the flags", patch_body(), date=DAY1)
    changed = Mail("[PATCH RESEND net] net: foo: pass the flags",
                   patch_body(diff=DEFAULT_DIFF.replace("bar(dev, 0)", "bar(dev, 2)")), date=DAY2)
    res = check_json(write(tmp_path, thread(first, domain="a.example.org") + "\n"
                           + thread(changed, start=DAY2, domain="b.example.org")))
    found = hits(res, "version-not-bumped", 1)
    assert found and found[0]["message"] == "the RESEND of patch 1/1 changes the diff"
    assert found[0]["evidence"][2] == "new in the later posting, net/core/dev.c: +err = bar(dev, 2);"
    same = Mail("[PATCH RESEND net] net: foo: pass the flags", patch_body(), date=DAY2)
    res = check_json(write(tmp_path, thread(first, domain="a.example.org") + "\n"
                           + thread(same, start=DAY2, domain="b.example.org"), "same.mbox"))
    assert hits(res, "version-not-bumped") == []


# reviews of postings the input does not hold ----------------------------------------------------

def _review_of_absent(subject: str, parent: str, date, tag="Acked-by: Greg Reviewer <greg@example.org>") -> Mail:
    return Mail(f"Re: {subject}", f"On Mon, Jane wrote:\n> the patch\n\n{tag}\n", sender="Greg Reviewer <greg@example.org>",
                in_reply_to=parent, date=date)


def test_a_review_of_an_earlier_posting_the_input_lacks_is_carried(tmp_path, check_json):
    from datetime import datetime, timezone

    # Greg acked v2 2/2 (not in the input); v3 2/2 answers nothing of it and drops the tag.
    before = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
    review = _review_of_absent("[PATCH v2 2/2] foo: fix thing number 2", "v2-2-of-2@example.org", before)
    v3 = series_mails(2, version=3)
    res = check_json(write(tmp_path, thread(review, *v3, thread_to_first=False)))
    (hit,) = hits(res, "trailers-not-carried")
    assert hit["patch"] == 2 and "given on another posting of patch 2/2 of v3 is missing from it" in hit["message"]
    assert hit["evidence"][0] == "Acked-by: Greg Reviewer <greg@example.org>" and "not in the input" in hit["evidence"][1]
    # The tag is not a review of v3: coverage and b4's trailers do not count it.
    assert not any(p["followup_trailers"] for p in res.json["patches"])
    # Given after this posting went out (a first copy of v2 reviewed after the second): the next version carries it.
    after = datetime(2026, 11, 3, 9, 0, tzinfo=timezone.utc)
    late = _review_of_absent("[PATCH v3 2/2] foo: fix thing number 2", "first-copy@example.org", after)
    res = check_json(write(tmp_path, thread(*series_mails(2, version=3), late, thread_to_first=False), "late.mbox"))
    (hit,) = hits(res, "trailers-not-carried")
    assert "(after this one was sent) is not on it" in hit["message"] and "next version" in hit["advice"]
    # Carried, or a reply about another patch: nothing to say.
    carried = series_mails(2, version=3)
    carried[2].body = patch_body(trailers="Acked-by: Greg Reviewer <greg@example.org>\n"
                                          "Signed-off-by: Jane Developer <jane@example.org>")
    res = check_json(write(tmp_path, thread(review, *carried, thread_to_first=False), "carried.mbox"))
    assert not hits(res, "trailers-not-carried")
    other = _review_of_absent("[PATCH v2] bar: something else", "elsewhere@example.org", before)
    res = check_json(write(tmp_path, thread(other, *series_mails(2, version=3), thread_to_first=False), "o.mbox"))
    assert not hits(res, "trailers-not-carried")


def test_a_resend_that_says_it_changed_needs_a_new_version(tmp_path, check_json):
    mails = series_mails(2, version=1)
    mails[0].subject = "[PATCH RESEND 0/2] foo: fix two things"
    mails[0].body = cover_body("Resend to correct dt-bindings issues pointed out by Rob.\n\nThis series fixes foo.")
    for i, m in enumerate(mails[1:], 1):
        m.subject = f"[PATCH RESEND {i}/2] foo: fix thing number {i}"
    (hit,) = hits(check_json(write(tmp_path, thread(*mails))), "version-not-bumped")
    assert "a RESEND that says it changed" in hit["message"] and "as v2" in hit["advice"]
    # A resend after a rebase, or a RESEND of v2 whose notes log v1 -> v2, is a plain resend.
    mails[0].body = cover_body("Rebased on net-next, no other change.\n\nThis series fixes foo.",
                               notes="Changes in v2:\n- fix the length check")
    assert not hits(check_json(write(tmp_path, thread(*mails), "plain.mbox")), "version-not-bumped")


def test_a_request_on_v1_the_v2_log_does_not_mention_is_noted(tmp_path, check_json):
    from datetime import timedelta

    start = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
    v1 = Mail("[PATCH net] foo: fix the bar flags", patch_body(), msgid="v1@example.org")
    ask = reply("[PATCH net] foo: fix the bar flags", "v1@example.org",
                "> +\tbar = 1;\n\nCould you rename it to bar_count?\n", date=start + timedelta(hours=2))

    def v2(notes: str) -> str:
        mail = Mail("[PATCH net v2] foo: fix the bar flags", patch_body(notes=notes), msgid="v2@example.org",
                    date=start + timedelta(days=2))
        return thread(v1, ask, start=start) + "\n" + thread(mail, start=start + timedelta(days=2), domain="b.example.org")

    (found,) = hits(check_json(write(tmp_path, v2("v2: rebased on net"))), "review-not-answered")
    assert "Simon Reviewer" in found["message"] and "rename it to bar_count" in found["message"]
    assert found["severity"] == "info"
    answered = v2("v2: renamed it to bar_count (Simon)")  # the near miss: the log names the reviewer
    assert hits(check_json(write(tmp_path, answered, "answered.mbox")), "review-not-answered") == []
