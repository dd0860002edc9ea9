"""Trailer syntax rules (family "trailers"): the bundled example, real threads, edited copies."""

import glob

from conftest import CORPUS, FIXTURES
from mailfactory import Mail, patch_body, thread, write
from trailer_helpers import MY_FAMILIES, edited_corpus, hits

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"
NET_FIXES_4 = "netfilter-devel/net-fixes-0-4-reply-missing-fixes-tag.mbox"


def _one_patch(tmp_path, trailers: str, name="p.mbox", **kw):
    return write(tmp_path, thread(Mail("[PATCH net] net: foo: fix the bar path", patch_body(trailers=trailers), **kw)),
                 name)


def test_example_shows_the_documented_trailer_findings(check_json):
    res = check_json(EXAMPLE)
    [fixes] = hits(res, "fixes-format")
    assert fixes["patch"] == 2
    assert fixes["evidence"] == ['Fixes: commit 9f8e7d6c5b4a ("net: foo: query firmware on open")']
    assert '`Fixes: 9f8e7d6c5b4a ("net: foo: query firmware on open")`' in fixes["advice"]
    [reported] = hits(res, "reported-by-without-closes")
    assert reported["patch"] == 2 and "Sam Tester" in reported["message"]
    [address] = hits(res, "malformed-address")
    assert address["patch"] == 1 and address["severity"] == "warning"
    assert "Reviewed-by: Rob Reviewer <rob@rob@example.net>" in address["evidence"]
    assert "`Reviewed-by: Rob Reviewer <rob@example.net>`" in address["advice"]  # from Rob's own From:
    assert [f["patch"] for f in hits(res, "signed-off-by-missing")] == [3]
    assert hits(res, "review-coverage")


# --- reported-by-without-closes

def test_syzbot_report_without_closes_gets_the_exact_line(check_json):
    res = check_json(CORPUS / NET_FIXES_4, "--select", "reported-by-without-closes")
    found = {f["patch"]: f for f in res.json["findings"]}
    assert sorted(found) == [3, 4]  # patch 2 has its Closes:, patch 1 a Closes: after the robot's report
    assert found[3]["severity"] == "warning"
    assert "`Closes: https://syzkaller.appspot.com/bug?extid=57bac0866ddd99fe47c0`" in found[3]["advice"]


def _reported(tmp_path, check_json, trailers: str, name: str, year: int = 2026):
    from datetime import datetime, timezone

    from mailfactory import Mail, patch_body, thread, write

    mail = Mail("[PATCH net] net: foo: fix bar", patch_body(trailers=trailers + "\nSigned-off-by: Jane Developer "
                                                                          "<jane@example.org>"))
    start = datetime(year, 5, 4, 10, 0, tzinfo=timezone.utc)
    return check_json(write(tmp_path, thread(mail, start=start), name), "--select", "reported-by-without-closes")


def test_human_report_without_closes_is_an_info(tmp_path, check_json):
    res = _reported(tmp_path, check_json, "Reported-by: Sam Tester <sam@example.com>", "human.mbox")
    assert [f["severity"] for f in res.json["findings"]] == ["info"]
    res = _reported(tmp_path, check_json, "Reported-by: syzbot+0123456789abcdef@syzkaller.appspotmail.com",
                    "robot.mbox")
    assert [f["severity"] for f in res.json["findings"]] == ["warning"]
    # Real postings of January 2023, before checkpatch asked for Closes: (v6.3-rc1): nothing to ask.
    res = check_json(CORPUS / "netfilter-devel/net-fixes-0-3-fixes-reported-tested.mbox",
                     "--select", "reported-by-without-closes")
    assert res.json["findings"] == []
    res = _reported(tmp_path, check_json, "Reported-by: syzbot+0123456789abcdef@syzkaller.appspotmail.com",
                    "old.mbox", year=2022)
    assert res.json["findings"] == []


def test_link_after_reported_by_is_an_info(tmp_path, check_json):
    res = _reported(tmp_path, check_json, "Reported-by: kernel test robot <lkp@intel.com>\n"
                    "Link: https://lore.kernel.org/r/202605041000.abcdef@intel.com/", "link.mbox")
    [hit] = res.json["findings"]
    assert hit["severity"] == "info" and "Link:" in hit["message"]


def test_reported_by_runs_and_closes_before_are_accepted(check_json):
    # Two Reported-by sharing one Closes:, and a Closes: placed above the Reported-by lines.
    for name in ("netfilter-devel/nf-1-2-nat-reverse-tuple-nocover.mbox",
                 "netfilter-devel/net-fixes-0-5-tested-closes-link.mbox"):
        assert check_json(CORPUS / name, "--select", "reported-by-without-closes").json["findings"] == []


def test_stable_backport_keeps_upstream_trailers(check_json):
    # `commit <sha> upstream.`: the syzbot Reported-by is the upstream commit's, not the backporter's.
    res = check_json(CORPUS / "netfilter-devel/stable-5.10-nf-fixes-0-2.mbox", "--select", "trailers")
    assert res.json["findings"] == []


def test_closes_elsewhere_in_the_block(tmp_path, check_json):
    mbox = _one_patch(tmp_path, "Reported-by: Sam Tester <sam@example.com>\n"
                                "Signed-off-by: Jane Developer <jane@example.org>\n"
                                "Closes: https://lore.kernel.org/netdev/20261101.1234-sam@example.com/")
    [hit] = hits(check_json(mbox), "reported-by-without-closes")
    assert hit["severity"] == "info" and "Move `Closes:" in hit["advice"]


# --- malformed-address

def test_html_mail_residue_in_own_signoff(check_json):
    res = check_json(CORPUS / "patchew/0035-rfc2047-from.mbox.gz", "--select", "malformed-address")
    [hit] = res.json["findings"]
    assert hit["severity"] == "error" and "mailto" in hit["message"]
    assert "`Signed-off-by: arafatms <aierpatijiang1@kingsoft.com>`" in hit["advice"]


def test_reply_trailer_cleaned_by_b4_is_not_malformed(check_json):
    # b4 strips `<mailto:...>` from reply trailers, so what it applies is a clean address.
    res = check_json(CORPUS / "b4/trailers-followup-htmljunk.mbox", "--select", "malformed-address")
    assert res.json["findings"] == []


def test_malformed_own_address(tmp_path, check_json):
    mbox = _one_patch(tmp_path, "Suggested-by: Sam Tester <sam@example>\n"
                                "Signed-off-by: Jane Developer <jane@example.org>")
    [hit] = hits(check_json(mbox), "malformed-address")
    # A credit with a broken address is corrected when applying: a warning. A sign-off must name a
    # person who can be reached (the DCO): an error.
    assert hit["severity"] == "warning" and "the domain has no dot" in hit["message"]
    assert hit["evidence"] == ["Suggested-by: Sam Tester <sam@example>"]
    mbox = _one_patch(tmp_path, "Signed-off-by: Jane Developer <jane@example>", name="sob.mbox")
    [hit] = hits(check_json(mbox), "malformed-address")
    assert hit["severity"] == "error"
    # A made-up tag's value is no address to check (nonstandard-trailer reports the tag).
    mbox = _one_patch(tmp_path, "Tweeted-by: @grsecurity\nSigned-off-by: Jane Developer <jane@example.org>",
                      name="tweet.mbox")
    assert hits(check_json(mbox), "malformed-address") == []


def test_obfuscated_reply_reported_by_is_kept(tmp_path, check_json):
    # The kernel test robot's real report, as an archive that obfuscates addresses would store it.
    mbox = edited_corpus(tmp_path, "netfilter-devel/nat-port-remap-3-nf-v3.mbox",
                         ("Reported-by: kernel test robot <lkp@intel.com>",
                          "Reported-by: kernel test robot <lkp@lkp@xxxxxxxxxx>"))
    [hit] = hits(check_json(mbox, "--select", "trailers"), "malformed-address")
    assert hit["severity"] == "warning" and "archive-obfuscated" in hit["message"]
    assert "in reply <202112170757.knetsZWh-lkp@intel.com>" in hit["evidence"][1]
    assert "`Reported-by: kernel test robot <lkp@intel.com>`" in hit["advice"]


def test_real_threads_have_no_malformed_addresses(check_json):
    for path in sorted(glob.glob(str(CORPUS / "netfilter-devel/*-v3.mbox"))):
        assert hits(check_json(path, "--select", "malformed-address"), "malformed-address") == []


# --- duplicate-trailer

def test_duplicate_reviewed_by(tmp_path, check_json):
    mbox = edited_corpus(tmp_path, "netfilter-devel/net-fixes-0-5-tested-closes-link.mbox", (
        'initial map fill")\nSigned-off-by: Florian Westphal <fw@strlen.de>\n'
        "Reviewed-by: Stefano Brivio <sbrivio@redhat.com>\n",
        'initial map fill")\nSigned-off-by: Florian Westphal <fw@strlen.de>\n'
        "Reviewed-by: Stefano Brivio <sbrivio@redhat.com>\nReviewed-by: Stefano Brivio <sbrivio@redhat.com>\n"))
    [hit] = hits(check_json(mbox, "--select", "duplicate-trailer"), "duplicate-trailer")
    assert hit["patch"] == 1 and "Reviewed-by repeated" in hit["message"]


def test_signoff_chain_back_and_forth_is_not_a_duplicate(tmp_path, check_json):
    chain = ("Signed-off-by: Jane Developer <jane@example.org>\n"
             "Signed-off-by: Maria Maintainer <maria@example.com>\n"
             "Signed-off-by: Jane Developer <jane@example.org>")
    assert hits(check_json(_one_patch(tmp_path, chain)), "duplicate-trailer") == []
    twice = "Signed-off-by: Jane Developer <jane@example.org>\nSigned-off-by: jane developer <JANE@example.org>"
    assert len(hits(check_json(_one_patch(tmp_path, twice, "twice.mbox")), "duplicate-trailer")) == 1


def test_same_fixes_target_twice(tmp_path, check_json):
    twice = ('Fixes: 1a2b3c4d5e6f ("net: foo: add queue teardown")\n'
             'Fixes: 1a2b3c4d5e6f7a8b ("net: foo: add queue teardown")\n'
             "Signed-off-by: Jane Developer <jane@example.org>")
    assert len(hits(check_json(_one_patch(tmp_path, twice)), "duplicate-trailer")) == 1
    # Two different targets (real nft patch) are not duplicates.
    real = check_json(CORPUS / "netfilter-devel/nft-doc-json-1-2-base-commit.mbox", "--select", "duplicate-trailer")
    assert real.json["findings"] == []


# --- nonstandard-trailer

def test_wrong_case_in_real_qemu_patch(check_json):
    res = check_json(CORPUS / "patchew/0002-unusual-cased-tags.mbox.gz", "--select", "nonstandard-trailer")
    assert sorted(f["evidence"][0] for f in res.json["findings"]) == [
        "Reviewed-By: Fam Zheng <famz@redhat.com>", "tESTed-bY: Fam Zheng <famz@redhat.com>"]
    assert any("`Tested-by: Fam Zheng <famz@redhat.com>`" in f["advice"] for f in res.json["findings"])


def test_nonstandard_tags_get_concrete_replacements(tmp_path, check_json):
    mbox = _one_patch(tmp_path, "Reported-and-tested-by: Sam Tester <sam@example.com>\n"
                                "Co-authored-by: Ruowen Qin <ruqin@example.com>\n"
                                "Signed-of-by: Ruowen Qin <ruqin@example.com>\n"
                                "Signed-off-by:  Jane Developer <jane@example.org>")
    found = {f["evidence"][0].split(":")[0]: f for f in hits(check_json(mbox), "nonstandard-trailer")}
    assert "`Reported-by: Sam Tester <sam@example.com>` and `Tested-by: Sam Tester <sam@example.com>`" in \
        found["Reported-and-tested-by"]["advice"]
    assert "`Co-developed-by: Ruowen Qin <ruqin@example.com>`" in found["Co-authored-by"]["advice"]
    assert "`Signed-off-by: Ruowen Qin <ruqin@example.com>`" in found["Signed-of-by"]["advice"]
    assert "exactly one space" in found["Signed-off-by"]["message"]


def test_ai_co_author_is_pointed_to_assisted_by(tmp_path, check_json):
    mbox = _one_patch(tmp_path, "Co-authored-by: Claude <noreply@anthropic.com>\n"
                                "Signed-off-by: Jane Developer <jane@example.org>")
    [hit] = hits(check_json(mbox), "nonstandard-trailer")
    assert "Assisted-by: Claude:" in hit["advice"] and "Co-developed-by" not in hit["advice"]


def test_extra_trailers_from_profile_setting(tmp_path):
    from reviewtool.review import ReviewOptions, load_series, review_series

    mbox = _one_patch(tmp_path, "Helped-by: Sam Tester <sam@example.com>\n"
                                "Signed-off-by: Jane Developer <jane@example.org>")
    for extra, expected in (((), 1), (("Helped-by",), 0)):
        opts = ReviewOptions(select=("nonstandard-trailer",), settings={"extra_by_trailers": list(extra)})
        review = review_series(load_series(str(mbox), opts), opts)
        assert len(review.findings) == expected


# --- fixes-format

def test_fixes_without_subject_in_real_qemu_patch(check_json):
    res = check_json(CORPUS / "patchew/0028-tags-need-8bit-encoding.mbox.gz", "--select", "fixes-format")
    assert len(res.json["findings"]) == 2
    hit = res.json["findings"][0]
    assert "no subject" in hit["message"]
    assert "git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' 9b4cf107b09d18ac30f46fd1c4de8585ccba030c" in hit["advice"]


def test_fixes_format_variants(tmp_path, check_json):
    trailers = ('Fixes: 9f8e7d6 ("net: foo: query firmware on open")\n'
                "Fixes: 1A2B3C4D5E6F (net: foo: add queue teardown)\n"
                'Fixes: 0123456789ab ("net: foo: a subject that someone\n'
                'wrapped")\n'
                "Fixes: 0123456789ac (\u201cnet: foo: curly\u201d)\n"
                "Signed-off-by: Jane Developer <jane@example.org>")
    found = hits(check_json(_one_patch(tmp_path, trailers)), "fixes-format")
    by_line = {f["evidence"][0]: f for f in found}
    short = by_line['Fixes: 9f8e7d6 ("net: foo: query firmware on open")']
    assert "7 digits" in short["message"] and "git log -1 --abbrev=12" in short["advice"]
    upper = by_line["Fixes: 1A2B3C4D5E6F (net: foo: add queue teardown)"]
    assert '`Fixes: 1a2b3c4d5e6f ("net: foo: add queue teardown")`' in upper["advice"]
    wrapped = by_line['Fixes: 0123456789ab ("net: foo: a subject that someone']
    assert "wrapped" in wrapped["message"]
    assert 'one line: `Fixes: 0123456789ab ("net: foo: a subject that someone wrapped")`' in wrapped["advice"]
    assert by_line["Fixes: 0123456789ac (\u201cnet: foo: curly\u201d)"]["severity"] == "info"


def test_well_formed_fixes_in_real_series(check_json):
    for name in ("netdev/iproute2-v2-0-3-dcb-fixes.mbox", "netfilter-devel/nft-doc-json-1-2-base-commit.mbox",
                 "netfilter-devel/iptables-covscan-fixes-0-6.mbox", NET_FIXES_4):
        assert check_json(CORPUS / name, "--select", "fixes-format").json["findings"] == [], name


def test_prose_starting_with_fixes_is_not_a_tag(tmp_path, check_json):
    body = patch_body(message="net: foo: tidy up\n\nfixes deadbeef handling in the parser and\n"
                              "Fixes the case where the ring is empty.")
    res = check_json(write(tmp_path, thread(Mail("[PATCH net] net: foo: tidy up", body))), "--select", "fixes-format")
    assert res.json["findings"] == []


def test_fixes_given_in_a_reply_is_checked(tmp_path, check_json):
    # Florian's real reply gives the right Fixes tag; here shortened to 7 digits, which b4 still applies.
    mbox = edited_corpus(tmp_path, "netfilter-devel/bpf-nf-hook-migration-v1-wrong-fixes.mbox",
                         ('\nFixes: fd9c663b9ad6 ("bpf: minimal', '\nFixes: fd9c663 ("bpf: minimal'))
    [hit] = hits(check_json(mbox, "--select", "fixes-format"), "fixes-format")
    assert "given in a reply" in hit["message"] and "7 digits" in hit["message"]
    assert "in reply <aHlqiEaG43iqUsOX@strlen.de>" in hit["evidence"]


# --- the whole real netfilter corpus, read as a maintainer would

def test_netfilter_corpus_findings_are_the_known_ones(cli):
    """Every finding of the four families on the real netfilter-devel threads, pinned: a new one
    must be read and judged before it is added here."""
    expected = {
        ("net-fixes-0-4-reply-missing-fixes-tag.mbox", 3, "reported-by-without-closes", "warning"),
        ("net-fixes-0-4-reply-missing-fixes-tag.mbox", 4, "reported-by-without-closes", "warning"),
        ("patchv2-nf-sctp-timeout.mbox", 1, "reported-by-without-closes", "info"),
        ("nf-rfc-0-of-1.5-source-port-shadowing.mbox", 2, "signed-off-by-missing", "warning"),
    } | {("unthreaded-nf-ipset-1-4.mbox", n, "reported-by-without-closes", "info") for n in (1, 2, 3, 4)}
    selects = [a for fam in MY_FAMILIES for a in ("--select", fam)]
    seen, reviewed = set(), 0
    for path in sorted(glob.glob(str(CORPUS / "netfilter-devel/*.mbox"))):
        res = cli("check", path, "--format", "json", *selects)
        if res.code == 2:  # not a usable patch series (an announcement, a thread b4 cannot use)
            continue
        reviewed += 1
        for f in res.json["findings"]:
            if f["rule"] != "review-coverage":
                seen.add((path.rsplit("/", 1)[1], f["patch"], f["rule"], f["severity"]))
    assert reviewed >= 30
    assert seen == expected
