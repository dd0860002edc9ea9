"""Sign-off chain rules (family "signoff") on real threads and on edited copies of them."""

from conftest import CORPUS, FIXTURES
from mailfactory import Mail, patch_body, thread, write
from trailer_helpers import edited_corpus, hits

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"
NET_FIXES_4 = "netfilter-devel/net-fixes-0-4-reply-missing-fixes-tag.mbox"


def test_signoff_missing_on_example_patch_3(check_json):
    res = check_json(EXAMPLE)
    [hit] = hits(res, "signed-off-by-missing")
    assert hit["patch"] == 3 and hit["severity"] == "error"
    assert "Signed-off-by: Jane Developer <jane@example.org>" in hit["advice"]
    assert res.code == 1


def test_signoff_present_in_real_series(check_json):
    res = check_json(CORPUS / "netfilter-devel/nf-next-ipvs-cleanups-v3.mbox", "--select", "signoff")
    assert res.json["findings"] == []


def test_signoff_missing_on_rfc_is_a_warning(check_json):
    # Florian Westphal's real RFC: patch 2/2 was posted for discussion without a sign-off.
    res = check_json(CORPUS / "netfilter-devel/nf-rfc-0-of-1.5-source-port-shadowing.mbox", "--select", "signoff")
    [hit] = hits(res, "signed-off-by-missing")
    assert hit["patch"] == 2 and hit["severity"] == "warning"


def test_pull_request_needs_no_signoff(check_json):
    res = check_json(CORPUS / "patchwork/mail/0003-git-pull-request-with-diff.mbox", "--select", "signoff")
    assert res.json["findings"] == []


def test_signoff_stranded_above_prose_is_not_missing(tmp_path, check_json):
    body = patch_body(message="Fix the foo path.\n\nSigned-off-by: Jane Developer <jane@example.org>\n\n"
                              "Thanks, Jane", trailers="")
    res = check_json(write(tmp_path, thread(Mail("[PATCH net] foo: fix it", body))), "--select", "signoff")
    assert res.json["patches"][0]["trailers"] == []  # the parser does not see it as a trailer ...
    assert hits(res, "signed-off-by-missing") == []  # ... but it is there: trailer-block-broken's case


def test_author_signoff_missing(tmp_path, check_json):
    # Pablo relays Jinghao Jia's patch, but Jinghao's own sign-off was lost on the way.
    mbox = edited_corpus(tmp_path, NET_FIXES_4, ("Signed-off-by: Jinghao Jia <jinghao7@illinois.edu>\n", ""))
    res = check_json(mbox, "--select", "signed-off-by-author")
    [hit] = hits(res, "signed-off-by-author")
    assert hit["patch"] == 1 and hit["severity"] == "error"
    assert "Jinghao Jia <jinghao7@illinois.edu> (in-body From:)" in hit["message"]
    assert "Signed-off-by: Pablo Neira Ayuso <pablo@netfilter.org>" in hit["evidence"]


def test_author_signoff_matched_by_address_or_name(check_json):
    # In-body From "Gavrilov Ilia", sign-off "Ilia.Gavrilov" with the same address: the same person.
    res = check_json(CORPUS / "netfilter-devel/net-fixes-0-3-fixes-reported-tested.mbox", "--select", "signoff")
    assert hits(res, "signed-off-by-author") == []
    autosel = check_json(CORPUS / "netfilter-devel/autosel-4.19-01-of-42-partial.mbox", "--select", "signoff")
    assert hits(autosel, "signed-off-by-author") == []


def test_sender_not_last_signoff_real_libvirt_patch(check_json):
    # Real libvirt mail: sent by Yi Wang, whose sign-off is followed by Xi Xu's.
    res = check_json(CORPUS / "patchew/0020-libvirt.mbox.gz", "--select", "signoff")
    [hit] = hits(res, "signed-off-by-sender-last")
    # The sender did certify the patch; a colleague's sign-off came after: a note (maintainers
    # apply such chains), where a sender with no sign-off at all is a warning.
    assert hit["severity"] == "info"
    assert "Yi Wang" in hit["message"] and "not last" in hit["message"]
    assert hit["evidence"][-1] == "Signed-off-by: Xi Xu <xu.xi8@zte.com.cn>"


def test_sender_last_when_relaying(check_json):
    # Florian sends Phil's patch and signs off last (real nft series).
    res = check_json(CORPUS / "netfilter-devel/nft-parser-scope-0-3.mbox", "--select", "signoff")
    assert res.json["findings"] == []


def test_sender_rewritten_by_list_for_dmarc_is_skipped(tmp_path, check_json):
    mails = [Mail("[PATCH net] foo: fix it", patch_body(),
                  sender="Jane Developer via foo-devel <foo-devel@lists.example.org>",
                  to="foo-devel@lists.example.org")]
    res = check_json(write(tmp_path, thread(*mails)), "--select", "signoff")
    assert hits(res, "signed-off-by-sender-last") == []
    mails[0].sender = "Sam Sender <sam@example.com>"
    res = check_json(write(tmp_path, thread(*mails), "other.mbox"), "--select", "signoff")
    [hit] = hits(res, "signed-off-by-sender-last")
    assert "the sender has no sign-off at all" in hit["message"]
    assert "Signed-off-by: Sam Sender <sam@example.com>" in hit["advice"]


def test_codeveloper_paired_in_real_patch(check_json):
    res = check_json(CORPUS / NET_FIXES_4, "--select", "co-developed-by-without-signoff")
    assert res.json["findings"] == []


def test_codeveloper_without_signoff_is_an_error(tmp_path, check_json):
    mbox = edited_corpus(tmp_path, NET_FIXES_4, ("Signed-off-by: Ruowen Qin <ruqin@redhat.com>\n", ""))
    [hit] = hits(check_json(mbox, "--select", "signoff"), "co-developed-by-without-signoff")
    assert hit["patch"] == 1 and hit["severity"] == "error"
    assert hit["evidence"][0] == "Co-developed-by: Ruowen Qin <ruqin@redhat.com>"
    assert "Signed-off-by: Ruowen Qin <ruqin@redhat.com>" in hit["advice"]


def test_codeveloper_signoff_not_adjacent_is_a_warning(tmp_path, check_json):
    mbox = edited_corpus(tmp_path, NET_FIXES_4, (
        "Signed-off-by: Ruowen Qin <ruqin@redhat.com>\nSigned-off-by: Jinghao Jia <jinghao7@illinois.edu>\n",
        "Signed-off-by: Jinghao Jia <jinghao7@illinois.edu>\nSigned-off-by: Ruowen Qin <ruqin@redhat.com>\n"))
    [hit] = hits(check_json(mbox, "--select", "signoff"), "co-developed-by-without-signoff")
    assert hit["severity"] == "warning" and "not immediately after" in hit["message"]


def test_codeveloper_naming_the_author(tmp_path, check_json):
    mbox = edited_corpus(tmp_path, NET_FIXES_4, (
        "Co-developed-by: Ruowen Qin <ruqin@redhat.com>\nSigned-off-by: Ruowen Qin <ruqin@redhat.com>\n",
        "Co-developed-by: Jinghao Jia <jinghao7@illinois.edu>\n"))
    [hit] = hits(check_json(mbox, "--select", "signoff"), "co-developed-by-without-signoff")
    assert hit["severity"] == "warning" and "names the author" in hit["message"]


def _signed(tmp_path, trailers: str, sender="Nick Chan <nick@example.org>", inbody="", name="p.mbox"):
    message = (f"From: {inbody}\n\n" if inbody else "") + "Only touch the fast IPI registers where they exist."
    body = patch_body(message=message, trailers=trailers)
    return write(tmp_path, thread(Mail("[PATCH] irqchip/foo: guard the IPI registers", body, sender=sender)), name)


def test_a_signer_before_the_author_must_be_the_author_or_a_codeveloper(tmp_path, check_json):
    chain = "Signed-off-by: Konrad Dybcio <konrad@example.org>\nSigned-off-by: Nick Chan <nick@example.org>"
    res = check_json(_signed(tmp_path, chain), "--select", "signoff")
    [hit] = hits(res, "signed-off-by-author")
    assert hit["severity"] == "info"  # applied far more often than sent back (benchmarks/rule_table.txt)
    assert hit["message"].startswith("Konrad Dybcio <konrad@example.org> signed off before the author Nick Chan")
    assert "From: Konrad Dybcio <konrad@example.org>" in hit["advice"] and "Co-developed-by" in hit["advice"]
    # Credited as co-developer, or the author signing first and a handler after: a sound chain.
    codev = "Co-developed-by: Konrad Dybcio <konrad@example.org>\n" + chain
    assert not hits(check_json(_signed(tmp_path, codev, name="c.mbox"), "--select", "signoff"), "signed-off-by-author")
    handler = "Signed-off-by: Nick Chan <nick@example.org>\nSigned-off-by: Konrad Dybcio <konrad@example.org>"
    relayed = _signed(tmp_path, handler, sender="Konrad Dybcio <konrad@example.org>",
                      inbody="Nick Chan <nick@example.org>", name="r.mbox")
    assert check_json(relayed, "--select", "signoff").json["findings"] == []


def test_the_sender_missing_from_the_chain_when_the_author_differs(tmp_path, check_json):
    # In-body From: names the author; the sender passed it on without signing off.
    mbox = _signed(tmp_path, "Signed-off-by: Nick Chan <nick@example.org>", sender="Sam Sender <sam@example.com>",
                   inbody="Nick Chan <nick@example.org>")
    res = check_json(mbox, "--select", "signoff")
    [hit] = hits(res, "signed-off-by-sender-last")
    assert "sent by Sam Sender <sam@example.com>" in hit["message"] and "no sign-off at all" in hit["message"]
    assert not hits(res, "signed-off-by-author")


def test_another_address_of_the_signer_is_told_by_the_name_forms(tmp_path, check_json):
    """The sender signing with another address of theirs is a note; an address made from the
    signer's name counts (`jane.doe@`, `jdoe@`, the mailbox with digits), a shared first name
    does not: `jonathan.doe@` did not sign as Jonathan Smith."""
    def severity(sender: str, signer: str, name: str):
        mbox = _signed(tmp_path, f"Signed-off-by: {signer}", sender=sender, inbody=signer, name=name)
        [hit] = hits(check_json(mbox, "--select", "signoff"), "signed-off-by-sender-last")
        return hit["severity"], hit["message"]

    for i, (sender, signer) in enumerate((("Jane <jane.doe@mail.example>", "Jane Doe <jd@work.example>"),
                                          ("J <jdoe@mail.example>", "Jane Doe <jane@work.example>"),
                                          ("Z <zuoqilin1@mail.example>", "zuoqilin <zuoqilin@work.example>"),
                                          ("M <matthias.bgg@mail.example>", "Matthias Brugger <mb@work.example>"))):
        sev, message = severity(sender, signer, f"same{i}.mbox")
        assert sev == "info" and "signing with another address" in message, (sender, signer)
    for i, (sender, signer) in enumerate((("Jonathan D <jonathan.doe@mail.example>", "Jonathan Smith <js@work.example>"),
                                          ("Jonathan D <jonathan.doe@mail.example>",
                                           "Jonathan Smith <jonathan@work.example>"),
                                          ("Z <zuoqilinx@mail.example>", "zuoqilin <zuoqilin@work.example>"))):
        sev, message = severity(sender, signer, f"other{i}.mbox")
        assert sev == "warning" and "no sign-off at all" in message, (sender, signer)


def test_a_nameless_gateway_carrying_the_authors_signed_patch_is_a_note(tmp_path, check_json):
    """A bare address with no display name (a company's sending gateway) carrying the patch of the
    in-body author, whose own sign-off is last: the author certified it, the mailbox only carried
    it (a note). The same mail from a named person who did not sign off is a warning (near miss)."""
    def hit_of(sender: str, name: str):
        mbox = _signed(tmp_path, "Signed-off-by: Nick Chan <nick@corp.example>", sender=sender,
                       inbody="Nick Chan <nick@corp.example>", name=name)
        [hit] = hits(check_json(mbox, "--select", "signoff"), "signed-off-by-sender-last")
        return hit

    gateway = hit_of("gateway.corp@mail.example", "gateway.mbox")
    assert gateway["severity"] == "info" and "without a person's name" in gateway["message"]
    person = hit_of("Sam Sender <sam@mail.example>", "person.mbox")
    assert person["severity"] == "warning" and "no sign-off at all" in person["message"]
