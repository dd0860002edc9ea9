"""Review-state rules (family "review"): review trailers in replies, kept or dropped by b4."""

from conftest import CORPUS, FIXTURES
from mailfactory import Mail, series_mails, thread, write
from trailer_helpers import edited_corpus, hits

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"
COUNTER_ZEROING = "netfilter-devel/iptables-restore-counter-zeroing-0-2.mbox"


def test_trailer_sent_for_someone_else_is_dropped(check_json):
    res = check_json(CORPUS / "b4/trailers-followup-single.mbox", "--select", "review")
    [hit] = hits(res, "review-trailer-dropped")
    assert hit["severity"] == "warning" and hit["patch"] == 1
    assert "sent by Mismatched Reviewer <mismatched-reviewer1@example.com>" in hit["message"]
    assert hit["evidence"][0] == "Reviewed-by: Mismatched Reviewer1 <mismatched-reviewer1@example.net>"
    assert hit["evidence"][1].startswith("in reply <")


def test_restated_patch_trailers_are_not_dropped(check_json):
    # Real rust/pwm thread: a reply repeats the patch's own trailers (already applied), and another
    # reply carries a Tested-by in someone else's name.
    res = check_json(CORPUS / "b4/trailers-followup-already-present.mbox", "--select", "review-trailer-dropped")
    assert [f["evidence"][0] for f in res.json["findings"]] == ["Tested-by: Someone Else <someone-else@example.com>"]


def test_obfuscated_reviewer_address_is_dropped_with_the_fix(tmp_path, check_json):
    # Florian Westphal's real Reviewed-by replies, as an obfuscating archive would have stored them.
    mbox = edited_corpus(tmp_path, COUNTER_ZEROING, ("Reviewed-by: Florian Westphal <fw@strlen.de>",
                                                     "Reviewed-by: Florian Westphal <fw@fw@xxxxxxxxxx>"))
    res = check_json(mbox, "--select", "review", "--select", "malformed-address")
    dropped = hits(res, "review-trailer-dropped")
    assert [f["patch"] for f in dropped] == [1, 2]
    assert "archive-obfuscated" in dropped[0]["message"]
    assert "`Reviewed-by: Florian Westphal <fw@strlen.de>`" in dropped[0]["advice"]
    assert hits(res, "malformed-address") == []  # reported once, as the dropped review it is
    [coverage] = hits(res, "review-coverage")
    assert "Reviewed-by" not in " ".join(coverage["evidence"])  # b4 will not apply it: not counted


def test_no_space_after_colon_is_dropped(tmp_path, check_json):
    mails = series_mails(2)
    mails.append(Mail("Re: [PATCH net 2/2] foo: fix thing number 2", "> Pass the flags.\n\n"
                      "Acked-by:Maria Maintainer <maria@example.com>\n", sender="Maria Maintainer <maria@example.com>",
                      in_reply_to="20261102100000.1002-2-jane@example.org"))
    [hit] = hits(check_json(write(tmp_path, thread(*mails))), "review-trailer-dropped")
    assert hit["patch"] == 2 and "no space after the colon" in hit["message"]


def test_a_review_trailer_wrapped_by_the_mail_client_is_collected_as_b4_collects_it(tmp_path, check_json):
    """A long Reviewed-by wrapped onto the next line (a client's line length, format=flowed's
    soft break): b4 joins "Name" and "<address>" and applies it, so it is counted, not dropped.
    Near miss: a Reviewed-by with no address anywhere is dropped, as b4 drops it."""
    import b4

    wrapped = "> Pass the flags.\n\nReviewed-by: Maria Maintainer \n<maria@example.com>\n"
    collected, _ = b4.LoreMessage.find_trailers(wrapped, followup=True)
    assert [t.value for t in collected] == ["Maria Maintainer <maria@example.com>"]
    for body, dropped in ((wrapped, 0), ("> Pass the flags.\n\nReviewed-by: Maria Maintainer\n\nThanks\n", 1)):
        mails = series_mails(2)
        mails.append(Mail("Re: [PATCH net 2/2] foo: fix thing number 2", body,
                          sender="Maria Maintainer <maria@example.com>",
                          in_reply_to="20261102100000.1002-2-jane@example.org"))
        res = check_json(write(tmp_path, thread(*mails), name=f"w{dropped}.mbox"), "--select", "review")
        assert len(hits(res, "review-trailer-dropped")) == dropped, res.json["findings"]
        [coverage] = hits(res, "review-coverage")
        assert ("Reviewed-by Maria Maintainer" in " ".join(coverage["evidence"])) == (not dropped), coverage


def test_collected_reviews_are_not_dropped(check_json):
    for name in (COUNTER_ZEROING, "netfilter-devel/nf-next-ipvs-cleanups-v2.mbox",
                 "b4/trailers-followup-htmljunk.mbox", "netfilter-devel/nf-vrf-conntrack-dflt-qdisc.mbox"):
        assert hits(check_json(CORPUS / name, "--select", "review"), "review-trailer-dropped") == [], name


def test_coverage_on_the_example(check_json):
    [hit] = hits(check_json(EXAMPLE), "review-coverage")
    assert hit["patch"] is None and hit["severity"] == "info"
    assert hit["message"] == "2 of 3 patches carry a review trailer; none on 3/3"
    assert hit["evidence"] == ["1/3: Reviewed-by Rob Reviewer (reply, address malformed)",
                               "2/3: Acked-by Maria Maintainer (reply)", "3/3: none"]


def test_coverage_counts_cover_letter_trailers_for_every_patch(check_json):
    [hit] = hits(check_json(CORPUS / "netfilter-devel/iptables-covscan-fixes-0-6.mbox"), "review-coverage")
    assert hit["message"] == "all 6 patches carry a review trailer"
    assert all("Acked-by Pablo Neira Ayuso (reply to the cover letter)" in e for e in hit["evidence"])


def test_coverage_in_the_patch_and_in_replies(check_json):
    [hit] = hits(check_json(CORPUS / "netfilter-devel/nf-next-ipvs-cleanups-v3.mbox"), "review-coverage")
    assert hit["evidence"][0] == ("1/4: Reviewed-by Horatiu Vultur (in the patch); "
                                  "Acked-by Julian Anastasov (reply to the cover letter)")


def test_coverage_without_reviews(check_json):
    [hit] = hits(check_json(CORPUS / "netfilter-devel/nf-next-ipvs-cleanups-v1.mbox"), "review-coverage")
    assert hit["message"] == "no patch carries Reviewed-by, Acked-by or Tested-by yet"
    relayed = hits(check_json(CORPUS / "netfilter-devel/net-fixes-0-4-reply-missing-fixes-tag.mbox"),
                   "review-coverage")[0]
    assert "2/4: none (relayed by Pablo Neira Ayuso, who signed off)" in relayed["evidence"]
