"""Series-shape rules on real threads (fixtures/corpus) and on hand-built netdev-style threads."""

from datetime import datetime, timezone

from conftest import CORPUS
from mailfactory import Mail, cover_body, patch_body, series_mails, thread, write


def test_incomplete_real_autosel_thread(check_json):
    # Only 4 of 42 AUTOSEL patches reached netfilter-devel.
    res = check_json(CORPUS / "netfilter-devel/autosel-4.19-01-of-42-partial.mbox")
    hits = [f for f in res.json["findings"] if f["rule"] == "series-incomplete"]
    assert len(hits) == 1 and "of 42 patches" in hits[0]["message"]
    assert res.json["series"]["missing"][:3] == [2, 3, 4] or len(res.json["series"]["missing"]) == 38
    assert res.code == 1


def test_complete_real_series_is_not_incomplete(check_json):
    res = check_json(CORPUS / "netfilter-devel/nf-next-ipvs-cleanups-v3.mbox")
    assert "series-incomplete" not in res.rules()
    assert res.json["series"]["received"] == [1, 2, 3, 4]


def test_cover_letter_only(tmp_path, check_json):
    mbox = write(tmp_path, thread(Mail("[PATCH net-next v4 0/3] foo: bar", cover_body())))
    res = check_json(mbox)
    assert "series-incomplete" in res.rules()
    assert "only the cover letter" in next(f["message"] for f in res.json["findings"]
                                          if f["rule"] == "series-incomplete")


def test_numbering_mixed_totals_and_garbled_counter(tmp_path, check_json):
    mails = series_mails(3, cover=False)
    mails[2].subject = "[PATCH net 3/4] foo: fix thing number 3"
    res = check_json(write(tmp_path, thread(*mails)))
    msgs = [f["message"] for f in res.json["findings"] if f["rule"] == "series-numbering"]
    assert any("disagree on the series length" in m for m in msgs)
    real = check_json(CORPUS / "netfilter-devel/nf-rfc-0-of-1.5-source-port-shadowing.mbox")
    assert any("1.5" in f["message"] for f in real.json["findings"] if f["rule"] == "series-numbering")


def test_numbering_clean(check_json):
    res = check_json(CORPUS / "netfilter-devel/net-next-updates-00-10-large.mbox")
    assert "series-numbering" not in res.rules()


def test_too_long_uses_profile_limit_and_option(tmp_path, check_json):
    mbox = write(tmp_path, thread(*series_mails(16, tree="net-next")))
    assert "series-too-long" in check_json(mbox).rules()
    assert "series-too-long" not in check_json(mbox, "--max-patches", "20").rules()
    assert "series-too-long" not in check_json(write(tmp_path, thread(*series_mails(15)), "ok.mbox")).rules()


def test_cover_letter_missing_real_and_built(tmp_path, check_json):
    res = check_json(write(tmp_path, thread(*series_mails(3, cover=False))))
    assert "cover-letter-missing" in res.rules()
    # Two patches without a cover letter are fine (real thread).
    assert "cover-letter-missing" not in check_json(
        CORPUS / "netfilter-devel/nf-1-2-nat-reverse-tuple-nocover.mbox").rules()


def test_cover_letter_unneeded_says_send_alone(tmp_path, check_json):
    res = check_json(write(tmp_path, thread(*series_mails(1, cover=True))))
    hit = next(f for f in res.json["findings"] if f["rule"] == "cover-letter-unneeded")
    assert hit["patch"] == 0 and "Send this patch alone" in hit["advice"]
    single = check_json(write(tmp_path, thread(*series_mails(1, cover=False)), "single.mbox"))
    assert "cover-letter-unneeded" not in single.rules()


def _hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def test_a_partial_resend_is_asked_to_say_why(tmp_path, check_json):
    """maintainer-netdev, "Partial resends": resend the whole series, never only some patches. A
    RESEND of some patches of a series (the others may have been applied) is a warning that asks
    the author to say so; the same holes without RESEND are an incomplete series (near miss)."""
    mails = series_mails(3, cover=False, tree="net-next")
    resent = [Mail(m.subject.replace("net-next", "RESEND net-next"), m.body) for m in mails[2:]]
    (hit,) = _hits(check_json(write(tmp_path, thread(*resent), "resend.mbox")), "series-incomplete")
    assert hit["severity"] == "warning" and "was resent" in hit["message"] and "say so below" in hit["advice"]
    (hit,) = _hits(check_json(write(tmp_path, thread(*mails[2:]), "holes.mbox")), "series-incomplete")
    assert hit["severity"] == "error"


def test_a_cover_letter_alone_carrying_another_version_is_a_note(tmp_path, check_json):
    """The patches apply as one series when only the cover letter's prefix slipped (`[PATCH v2 0/2]`
    over `[PATCH 1/2]`, `[PATCH 2/2]`): a note. The same cover letter agreeing with its patches
    says nothing (near miss)."""
    mails = series_mails(2, tree="net-next")
    slipped = [Mail(mails[0].subject.replace("net-next 0/2", "net-next v2 0/2"), mails[0].body), *mails[1:]]
    (hit,) = _hits(check_json(write(tmp_path, thread(*slipped), "cover.mbox")), "series-numbering")
    assert hit["severity"] == "info" and "different versions" in hit["message"]
    assert not _hits(check_json(write(tmp_path, thread(*mails), "same.mbox")), "series-numbering")


def test_one_patch_rerolled_in_its_own_thread_is_asked_to_say_why(tmp_path, check_json):
    """A later revision of one patch, sent in reply to where the earlier one was reviewed
    (`[PATCH v2 2/2]` answering v1's 2/2, no cover letter), replaces that patch; the others may
    stand as posted: a warning that asks the author to say so. Near misses: the same patch as a
    thread of its own, or a first revision's 2/2 in reply to something, are incomplete series."""
    body = series_mails(2, cover=False, tree="nft")[1].body
    v2 = Mail("[PATCH nft v2 2/2] foo: fix two things", body, in_reply_to="v1-2@example.org")
    (hit,) = _hits(check_json(write(tmp_path, thread(v2), "reroll.mbox")), "series-incomplete")
    assert hit["severity"] == "warning" and "came as v2, in reply to an earlier posting" in hit["message"]
    assert "In-Reply-To: <v1-2@example.org>" in hit["evidence"][0]
    alone = Mail("[PATCH nft v2 2/2] foo: fix two things", body)
    (hit,) = _hits(check_json(write(tmp_path, thread(alone), "alone.mbox")), "series-incomplete")
    assert hit["severity"] == "error"
    v1 = Mail("[PATCH nft 2/2] foo: fix two things", body, in_reply_to="v1-1@example.org")
    (hit,) = _hits(check_json(write(tmp_path, thread(v1), "v1.mbox")), "series-incomplete")
    assert hit["severity"] == "error"


def test_counters_padded_to_different_widths_are_a_note(tmp_path, check_json):
    """b4, git am and patchwork read a counter's number, not its width: a cover letter `0/2` over
    `01/2` and `02/2` applies as one series (a note). A counter beyond the total is still an error
    (near miss)."""
    mails = series_mails(2, tree="net-next")
    padded = [mails[0]] + [Mail(m.subject.replace(f" {i}/2]", f" 0{i}/2]"), m.body) for i, m in enumerate(mails[1:], 1)]
    (hit,) = [f for f in _hits(check_json(write(tmp_path, thread(*padded), "pad.mbox")), "series-numbering")
              if "zero-padded" in f["message"]]
    assert hit["severity"] == "info"
    beyond = [mails[0], mails[1], Mail(mails[2].subject.replace(" 2/2]", " 3/2]"), mails[2].body)]
    hits = _hits(check_json(write(tmp_path, thread(*beyond), "beyond.mbox")), "series-numbering")
    assert any(f["severity"] == "error" and "beyond the announced total" in f["message"] for f in hits)


def test_an_earlier_posting_of_the_same_revision_with_another_total_is_not_mixed_in(tmp_path, check_json):
    """An RFC of three patches, then the two of it that became the series, each in a thread of
    its own and both v1: the series under review is the newer posting of two, not two patches and
    an RFC's third beyond its total. The same stray third inside the newer thread is a numbering
    mistake (near miss)."""
    rfc = [Mail(m.subject.replace("[PATCH net-next ", "[PATCH net-next,RFC "), m.body)
           for m in series_mails(3, tree="net-next")]
    newer = series_mails(2, tree="net-next")
    later = datetime(2026, 11, 5, 10, 0, tzinfo=timezone.utc)
    mbox = write(tmp_path, thread(*rfc) + "\n" + thread(*newer, start=later, domain="example.net"), "two.mbox")
    res = check_json(mbox)
    assert not _hits(res, "series-numbering")
    assert [p["counter"] for p in res.json["verdict"]["patches"]] == [1, 2]
    stray = Mail(rfc[3].subject, rfc[3].body)
    res = check_json(write(tmp_path, thread(*newer, stray, start=later), "stray.mbox"))
    assert any(f["severity"] == "error" and "disagree on the series length" in f["message"]
               for f in _hits(res, "series-numbering"))
