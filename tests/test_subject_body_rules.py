"""Subject and body rules on real list traffic (fixtures/corpus) and on netdev-style threads built
with mailfactory: subject-format, commit-message-missing, commit-reference-format,
trailer-block-broken, patch-corrupt, base-commit-missing."""

from conftest import CORPUS
from mailfactory import DEFAULT_DIFF, Mail, cover_body, hunk_diff, patch_body, series_mails, thread, write

NF = CORPUS / "netfilter-devel"


def hits(res, rule, patch="any"):
    return [f for f in res.json["findings"] if f["rule"] == rule and (patch == "any" or f["patch"] == patch)]


def single(tmp_path, subject, body=None, name="p.mbox", **kw):
    return write(tmp_path, thread(Mail(subject, body if body is not None else patch_body(**kw))), name)


# subject-format ---------------------------------------------------------------------------------

def test_subject_clean_real_series(check_json):
    res = check_json(NF / "nf-next-ipvs-cleanups-v3.mbox")
    assert hits(res, "subject-format") == []


def test_subject_missing_subsystem_reported_once_for_the_series(check_json):
    # b4's test series: "[PATCH 1/4] Remove line 2 from file2" ... none has a `subsystem:` prefix.
    res = check_json(CORPUS / "b4/shazam-git1-just-series.mbox")
    found = hits(res, "subject-format")
    assert len(found) == 1 and found[0]["patch"] is None
    assert "subsystem:" in found[0]["message"] and "all 4 patches" in found[0]["message"]
    assert "[PATCH 3/4] Add some paragraphs to lipsum" in found[0]["evidence"]


def test_subject_too_long_uses_the_profile_limit(check_json):
    res = check_json(NF / "net-fixes-0-5-tested-closes-link.mbox")
    long = hits(res, "subject-format", 2)
    assert long and "82 characters" in long[0]["message"] and "limit is 75" in long[0]["message"]
    assert long[0]["evidence"] == ["selftests: netfilter: nft_concat_range.sh: prefer per element counters for testing"]
    assert hits(res, "subject-format", 1) == []  # "netfilter: nf_set_pipapo_avx2: fix initial map fill"


def test_subject_length_of_a_revert_is_not_the_authors_choice(check_json):
    res = check_json(NF / "nat-port-remap-5-revert.mbox")
    assert not any("characters long" in f["message"] for f in hits(res, "subject-format"))


def test_subject_prefix_garbled_or_missing(tmp_path, check_json):
    colon = check_json(single(tmp_path, "[PATCH net]: net: foo: fix the bar path"))
    assert "a colon follows the prefix bracket" in hits(colon, "subject-format", 1)[0]["message"]
    unclosed = check_json(single(tmp_path, "[PATCH net net: foo: fix the bar path", name="u.mbox"))
    assert "never closed" in hits(unclosed, "subject-format", 1)[0]["message"]
    # A real mail with a diff but no [PATCH] prefix at all.
    real = check_json(CORPUS / "patchwork/mail/0013-with-utf8-body.mbox")
    found = hits(real, "subject-format", 1)
    assert found and "no [PATCH] prefix" in found[0]["message"]
    assert found[0]["evidence"] == ["MAINTAINERS: Update entry for BCM5301X ARM"]


def test_subject_patchwork_rendering_is_not_blamed_on_the_author(check_json):
    # patchwork writes prefixes back comma-joined without PATCH: `[net,v2,2/2]`.
    res = check_json(CORPUS / "patchwork/series/base-no-references.mbox")
    assert res.json["series"]["revision"] == 2
    assert not any("prefix" in f["message"] for f in hits(res, "subject-format"))


def test_subject_project_tag_before_patch(tmp_path, check_json):
    # `[iptables PATCH]` is netfilter userspace's accepted form: silent.
    assert not any("before PATCH" in f["message"]
                   for f in hits(check_json(NF / "iptables-covscan-fixes-0-6.mbox"), "subject-format"))
    # A netdev tree tag before PATCH is out of place for the tools that route by tree.
    res = check_json(single(tmp_path, "[net-next PATCH] net: foo: add the bar knob"))
    found = hits(res, "subject-format", 1)
    assert res.json["series"]["profile"] == "netdev"
    assert found and "'net-next' is placed before PATCH" in found[0]["message"]
    assert "[PATCH net-next" in found[0]["advice"]
    # Unambiguous and read right by patchwork and NIPA: a note on the form, not a warning.
    assert found[0]["severity"] == "info"
    assert res.json["verdict"]["patches"][0]["declared"] == "net-next"


def test_subject_tree_tags_as_people_write_them(tmp_path, check_json):
    # The tree each form means, whether the form is reported, and at which severity.
    forms = {"[PATCH -next]": ("net-next", "warning"), "[PATCH NET]": ("net", "warning"),
             "[PATCH net-nxt]": ("net-next", "warning"), "[PATCH netnext]": ("net-next", "warning"),
             "[PATCH net-next,v3]": ("net-next", None), "[net-next v2]": ("net-next", "info")}
    for i, (prefix, (tree, severity)) in enumerate(forms.items()):
        res = check_json(single(tmp_path, f"{prefix} net: foo: add the bar knob", name=f"f{i}.mbox"))
        assert res.json["verdict"]["patches"][0]["declared"] == tree, prefix
        assert not hits(res, "tree-tag-missing"), prefix
        found = hits(res, "subject-format")
        assert [f["severity"] for f in found] == ([severity] if severity else []), (prefix, found)
    # One edit away from a long tree name only: `nett` is not read as `net`.
    res = check_json(single(tmp_path, "[PATCH nett] net: foo: add the bar knob", name="nett.mbox"))
    assert res.json["verdict"]["patches"][0]["declared"] is None and hits(res, "tree-tag-missing")


def test_subject_without_patch_keyword_is_one_note_for_the_series(tmp_path, check_json):
    # `[net-next v4 0/2]` and its patches: the tools read it; one info for the whole series.
    mails = [Mail("[net-next v4 0/2] foo: two knobs", cover_body()),
             Mail("[net-next v4 1/2] foo: add knob one", patch_body()),
             Mail("[net-next v4 2/2] foo: add knob two", patch_body())]
    res = check_json(write(tmp_path, thread(*mails)))
    (found,) = hits(res, "subject-format")
    assert found["patch"] is None and found["severity"] == "info"
    assert "has no PATCH keyword (all 3 mails)" in found["message"]
    assert [p["declared"] for p in res.json["verdict"]["patches"]] == ["net-next", "net-next"]


def test_subject_length_is_a_note_until_it_reads_as_a_sentence(tmp_path, check_json):
    summary = "foo: " + "x" * 80
    res = check_json(single(tmp_path, f"[PATCH net-next] {summary}"))
    assert [f["severity"] for f in hits(res, "subject-format")] == ["info"]
    res = check_json(single(tmp_path, f"[PATCH net-next] foo: {'y' * 110}", name="long.mbox"))
    assert [f["severity"] for f in hits(res, "subject-format")] == ["warning"]


def test_cover_letter_subject(tmp_path, check_json):
    # b4's naked cover letter: a thread root with no [PATCH 0/1] prefix.
    naked = hits(check_json(CORPUS / "b4/naked-cover-single.mbox"), "subject-format", 0)
    assert naked and "[PATCH 0/1] summary" in naked[0]["message"]
    assert naked[0]["evidence"] == ["do a thing to the widget subsystem"]
    mails = series_mails(2)
    mails[0].subject = "[PATCH net 0/2] *** SUBJECT HERE ***"
    res = check_json(write(tmp_path, thread(*mails)))
    placeholder = hits(res, "subject-format", 0)
    assert placeholder and placeholder[0]["severity"] == "error" and res.code == 1


# commit-message-missing -------------------------------------------------------------------------

def test_commit_message_missing_real(check_json):
    # "[PATCH nft 2/3] parser: add missing synproxy scope closure": a Fixes and a SoB, nothing else.
    res = check_json(NF / "nft-parser-scope-0-3.mbox")
    assert [f["patch"] for f in hits(res, "commit-message-missing")] == [2]
    assert "only trailers" in hits(res, "commit-message-missing")[0]["message"]


def test_commit_message_missing_on_a_tiny_change_is_a_note(tmp_path, check_json):
    one_line = DEFAULT_DIFF  # one line changed
    res = check_json(single(tmp_path, "[PATCH net-next] cxgb4: add new T6 PCI device id 0x6092",
                            patch_body(message="", diff=one_line)))
    (found,) = hits(res, "commit-message-missing", 1)
    assert found["severity"] == "info" and "(a 2-line change)" in found["message"]
    bigger = DEFAULT_DIFF.replace("-\terr = bar(dev);\n+\terr = bar(dev, 0);\n",
                                  "-\terr = bar(dev);\n+\terr = bar(dev, 0);\n+\terr = baz(dev);\n+\terr = qux(dev);\n")
    bigger = bigger.replace("@@ -10,7 +10,7 @@", "@@ -10,7 +10,9 @@")
    res = check_json(single(tmp_path, "[PATCH net-next] foo: rework bar", patch_body(message="", diff=bigger),
                            name="big.mbox"))
    (found,) = hits(res, "commit-message-missing", 1)
    assert found["severity"] == "warning"


def test_commit_message_present(check_json):
    assert hits(check_json(NF / "nf-next-ipvs-cleanups-v3.mbox"), "commit-message-missing") == []


def test_cover_letter_blurb_placeholder(tmp_path, check_json):
    mails = series_mails(2)
    mails[0].body = cover_body("*** BLURB HERE ***")
    found = hits(check_json(write(tmp_path, thread(*mails))), "commit-message-missing", 0)
    assert found and "BLURB HERE" in found[0]["message"] and found[0]["evidence"] == ["*** BLURB HERE ***"]


# commit-reference-format ------------------------------------------------------------------------

def test_commit_reference_real_bare_id(check_json):
    # "e0241ae6ac59 ("netfilter: use nfnetlink_unicast() forgot to update": no `commit`, no closing `")`.
    res = check_json(NF / "net-next-updates-00-10-large.mbox")
    found = hits(res, "commit-reference-format")
    assert [f["patch"] for f in found] == [1]
    assert found[0]["evidence"][0].startswith("e0241ae6ac59 (\"netfilter: use nfnetlink_unicast()")
    assert "e0241ae6ac59" in found[0]["advice"]


def test_commit_reference_good_real_forms(check_json):
    # Wrapped over two lines (vrf), two references in a row (socket), a backport's
    # "commit <sha> upstream." line, AUTOSEL's "[ Upstream commit <sha> ]" and "This reverts commit".
    for name in ("nf-vrf-conntrack-dflt-qdisc.mbox", "nf-socket-icmp6-use-after-scope.mbox",
                 "stable-5.10-nf-fixes-0-2.mbox", "autosel-4.19-01-of-42-partial.mbox",
                 "nat-port-remap-5-revert.mbox", "net-next-updates-0-6-comma-v3.mbox"):
        assert hits(check_json(NF / name), "commit-reference-format") == [], name


def test_commit_reference_built(tmp_path, check_json):
    body = patch_body(message="""\
        The check was moved by commit 1234abcd, so the length is read too late.
        It was added in commit 1234567890ab and never worked on big endian.
        Commit 234567890abc ("net: foo: add the
        bar check") is correct and the one above commit 34567890abcd
        ("net: foo: rework") as well.

        [   12.345678] RIP: 0010:foo_rx+0x12/0x40
        [   12.345679] RAX: ffff888104c1d000 RBX: ffff888104c1d0a8
        """)
    res = check_json(single(tmp_path, "[PATCH net] net: foo: read the length first", body))
    (found,) = hits(res, "commit-reference-format", 1)  # one finding per patch, the lines listed
    assert "2 commit references are not written as commit <12+ hex>" in found["message"]
    assert "(lines 1, 2)" in found["message"] and "abbreviated to 8 characters" in found["message"]
    assert found["evidence"] == ["The check was moved by commit 1234abcd, so the length is read too late.",
                                 "It was added in commit 1234567890ab and never worked on big endian."]
    one = check_json(single(tmp_path, "[PATCH net] net: foo: read the length first",
                            patch_body(message="It was added in commit 1234567890ab and never worked."), name="one.mbox"))
    (found,) = hits(one, "commit-reference-format", 1)
    assert found["message"] == "line 1: commit 1234567890ab is not followed by its subject in (\"...\")"


def test_commit_reference_dumps_addresses_and_back_references(tmp_path, check_json):
    # A crash-utility backtrace: PID/TASK lines and `[stack] function at address` frames.
    crash = """        call stack:
        PID: 210933  TASK: ffff92424e5ec080  CPU: 13  COMMAND: "kworker/u96:2"
        [ffffa7a8e96bbac0] __schedule at ffffffffb0719898
        [ffffa7a8e96bbb48] schedule at ffffffffb0719e9e

        Thread 210933 holds the rtnl_mutex while ffff92424e5ec080 waits."""
    res = check_json(single(tmp_path, "[PATCH net-next] net: foo: take the lock later", patch_body(message=crash)))
    assert hits(res, "commit-reference-format") == []
    # An id named with its subject in the Fixes tag (or as the reverted commit) may be repeated bare.
    back = """        This reverts commit 2c87c6f9fbddc5b84d67b2fa3f432fcac6d99d93.
        The commit a3a57bf07de2 is the proper workaround for what 2c87c6f9fbdd tried to address."""
    res = check_json(single(tmp_path, "[PATCH net] Revert \"net: phy: foo: improve link-up\"",
                            patch_body(message=back), name="back.mbox"))
    (found,) = hits(res, "commit-reference-format")
    assert "a3a57bf07de2" in found["message"] and "2c87c6f9fbdd" not in found["message"]
    # A whole format-patch output pasted into the body starts with its separator line: no reference
    # (the archive is mboxrd: the line is quoted there, and read unquoted).
    pasted = (">From f1fcceb65d4a44c078cd684ea25a2f2c7f53deb2 Mon Sep 17 00:00:00 2001\n"
              "From: Jane Developer <jane@example.org>\n\nThe foo path returns early.")
    res = check_json(single(tmp_path, "[PATCH net] net: foo: return later", patch_body(message=pasted),
                            name="pasted.mbox"))
    assert hits(res, "commit-reference-format") == [] and hits(res, "discussion-in-log")
    # Commit (SHA1: <40 hex>) in prose is a commit reference to write properly.
    sha1 = "Commit (SHA1: 0123456789abcdef0123456789abcdef01234567) moved the check."
    res = check_json(single(tmp_path, "[PATCH net] net: foo: check first", patch_body(message=sha1), name="sha1.mbox"))
    assert hits(res, "commit-reference-format")


# trailer-block-broken ---------------------------------------------------------------------------

def test_trailer_block_fixes_cut_off(tmp_path, check_json):
    trailers = """\
        Fixes: 1234567890ab ("net: foo: add bar")

        Signed-off-by: Jane Developer <jane@example.org>"""
    res = check_json(single(tmp_path, "[PATCH net] net: foo: fix bar", trailers=trailers))
    found = hits(res, "trailer-block-broken", 1)
    assert found and "cut off from the trailer block" in found[0]["message"]
    assert found[0]["evidence"] == ['Fixes: 1234567890ab ("net: foo: add bar")']


def test_trailer_block_prose_and_trailing_changelog(tmp_path, check_json):
    prose = """\
        Reported-by: Joe Tester <joe@example.org>
        This was found with syzkaller.
        Signed-off-by: Jane Developer <jane@example.org>"""
    res = check_json(single(tmp_path, "[PATCH net] net: foo: fix bar", trailers=prose))
    assert any("prose inside the trailer block" in f["message"] for f in hits(res, "trailer-block-broken", 1))
    late = """\
        Signed-off-by: Jane Developer <jane@example.org>

        v2: check the length first"""
    res = check_json(single(tmp_path, "[PATCH net v2] net: foo: fix bar", trailers=late, name="late.mbox"))
    found = hits(res, "trailer-block-broken", 1)
    assert found and "text follows the Signed-off-by" in found[0]["message"]
    assert found[0]["evidence"] == ["v2: check the length first"]


def test_trailer_block_fixes_in_description(tmp_path, check_json):
    message = """\
        The foo path returns early.
        Fixes: 1234567890ab ("net: foo: add bar")
        Pass the flags."""
    res = check_json(single(tmp_path, "[PATCH net] net: foo: fix bar", message=message))
    assert any("Fixes tag sits in the description" in f["message"] for f in hits(res, "trailer-block-broken", 1))


def test_trailer_block_real_series_clean(check_json):
    for name in ("net-fixes-0-5-tested-closes-link.mbox", "nf-1-2-nat-reverse-tuple-nocover.mbox",
                 "net-next-updates-00-10-large.mbox"):
        assert hits(check_json(NF / name), "trailer-block-broken") == [], name


# patch-corrupt ----------------------------------------------------------------------------------

def test_patch_corrupt_real_mangled_context(check_json):
    # The mail client stripped the leading space of context lines.
    res = check_json(CORPUS / "patchew/0035-rfc2047-from.mbox.gz")
    found = hits(res, "patch-corrupt", 1)
    assert found and found[0]["severity"] == "error" and res.code == 1
    assert found[0]["evidence"] == ["static void discard_throttle_data(VirtIOSerialPort *port)"]


def test_patch_corrupt_built(tmp_path, check_json):
    wrapped = DEFAULT_DIFF.replace("+\terr = bar(dev, 0);", "+\terr = bar(dev,\n0);")
    res = check_json(single(tmp_path, "[PATCH net] net: foo: fix bar", diff=wrapped))
    assert "Hunk diff line expected: 0);" in hits(res, "patch-corrupt", 1)[0]["message"]
    two_files = patch_body().replace(" net/core/dev.c | 2 +-\n 1 file changed",
                                     " net/core/dev.c | 2 +-\n net/core/sock.c | 2 +-\n 2 files changed")
    res = check_json(single(tmp_path, "[PATCH net] net: foo: fix bar", two_files, name="lost.mbox"))
    assert "announces 2 changed files but the diff carries 1" in hits(res, "patch-corrupt", 1)[0]["message"]


def test_patch_corrupt_not_for_unusual_but_valid_diffs(check_json):
    for path in ("patchew/0021-mode-only-patch.mbox.gz", "patchew/0034-rename-only-patch.mbox.gz",
                 "patchwork/mail/0025-git-add-binary-file.mbox", "patchwork/mail/0022-git-mode-change.mbox",
                 "netfilter-devel/net-next-updates-00-10-large.mbox"):
        assert hits(check_json(CORPUS / path), "patch-corrupt") == [], path


# base-commit-missing ----------------------------------------------------------------------------

def test_base_commit_present(check_json):
    assert hits(check_json(NF / "nft-doc-json-1-2-base-commit.mbox"), "base-commit-missing") == []
    assert hits(check_json(NF / "nf-next-ipvs-cleanups-v3.mbox"), "base-commit-missing") == []


def test_base_commit_missing_real_and_pull_request_exempt(check_json):
    found = hits(check_json(NF / "nf-socket-icmp6-use-after-scope.mbox"), "base-commit-missing")
    assert found and found[0]["patch"] == 1 and found[0]["severity"] == "info"
    # A maintainer's pull request names its base in the request-pull text.
    assert hits(check_json(NF / "net-fixes-0-3-fixes-reported-tested.mbox"), "base-commit-missing") == []


def test_base_commit_not_a_commit_id(tmp_path, check_json):
    mails = series_mails(2)
    mails[0].body = cover_body(base="net-next/main")
    found = hits(check_json(write(tmp_path, thread(*mails))), "base-commit-missing", 0)
    assert found and "'net-next/main' is not a commit id" in found[0]["message"]


def test_mail_that_is_not_a_usable_patch_still_gets_a_review(tmp_path, cli):
    # A diffstat followed by pasted code instead of a diff, under a garbled subject.
    body = ("The bar length is read before it is set.\n\nSigned-off-by: Jane Developer <jane@example.org>\n---\n"
            " net/core/dev.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
            "static int foo(struct net_device *dev)\n{\n\treturn bar(dev, 0);\n}\n")
    mbox = write(tmp_path, thread(Mail("[PATCH net] net: foo: [PATCH v2] fix the bar length", body)))
    res = cli("check", str(mbox), "--format", "json")
    assert res.code == 1, res.err  # reviewed, with an error: not exit 2
    found = {f["rule"]: f for f in res.json["findings"]}
    assert "the diffstat announces 1 changed file(s) but no diff follows" in found["patch-corrupt"]["message"]
    assert "a second [PATCH ...] prefix sits inside the summary" in found["subject-format"]["message"]
    assert any("read as they are" in n for n in res.json["summary"]["notes"])


def test_a_garbled_cover_letter_subject_keeps_its_version(tmp_path, check_json):
    mails = series_mails(2, version=2)
    mails[0].subject = "[PATCH net v2 0/2 foo: fix two things"  # the bracket is never closed
    res = check_json(write(tmp_path, thread(*mails)))
    assert res.json["series"]["revision"] == 2
    assert not hits(res, "series-numbering")  # no "mixed versions"
    (found,) = hits(res, "subject-format", 0)
    assert found["message"] == "the cover letter's subject is garbled: the prefix bracket is never closed"
    assert res.json["verdict"]["patches"][0]["declared"] == "net"


def test_a_message_of_remarks_in_parentheses_describes_nothing(tmp_path, check_json):
    """submitting-patches, "Describe your changes": there must be an underlying problem that
    motivated the work, said in the message. Remarks in parentheses alone say no more than an
    empty message: a warning, a note on a change of three lines or fewer, as for an empty one."""
    def found(message: str, diff=None, name="p.mbox"):
        body = patch_body(message=message) if diff is None else patch_body(message=message, diff=diff)
        res = check_json(single(tmp_path, "[PATCH net-next] net: foo: rework the ring setup", body, name=name))
        return [f for f in res.json["findings"] if f["rule"] == "commit-message-missing"]

    big = hunk_diff("net/core/dev.c", ["	a();", "	b();", "	c();"], ["	x();", "	y();", "	z();"])
    (hit,) = found("(Found by inspection.) (Untested.)", big, "two.mbox")
    assert hit["severity"] == "warning" and "only a remark in parentheses" in hit["message"]
    (hit,) = found("(Found by inspection.)", name="tiny.mbox")  # the default diff changes 2 lines
    assert hit["severity"] == "info"
    # A sentence with a remark in it describes the change (near miss).
    assert found("Set the ring up once (the reset path did it twice).", big, "sentence.mbox") == []