"""AI-assistant rules (family "ai") on netdev-style threads built like real postings."""

import glob

from conftest import CORPUS
from mailfactory import Mail, cover_body, patch_body, series_mails, thread, write
from trailer_helpers import hits

MESSAGE = """\
foo_open() returns with foo->lock held when the firmware query fails.
Release the lock before returning.
"""
JANE = "Signed-off-by: Jane Developer <jane@example.org>"


def _patch(tmp_path, message=MESSAGE, trailers=JANE, name="ai.mbox", notes=""):
    mail = Mail("[PATCH net] net: foo: unlock on foo_open() error path",
                patch_body(message=message, trailers=trailers, notes=notes))
    return write(tmp_path, thread(mail), name)


def _review(path, **settings):
    from reviewtool.review import ReviewOptions, load_series, review_series

    opts = ReviewOptions(select=("ai",), settings=settings)
    return review_series(load_series(str(path), opts), opts)


# --- ai-signed-off

def test_agent_as_codeveloper_and_signer(tmp_path, check_json):
    mbox = _patch(tmp_path, trailers="Co-developed-by: Claude <noreply@anthropic.com>\n"
                                     "Signed-off-by: Claude <noreply@anthropic.com>\n" + JANE)
    res = check_json(mbox)
    [hit] = hits(res, "ai-signed-off")
    assert hit["severity"] == "error" and res.code == 1
    assert hit["evidence"] == ["Co-developed-by: Claude <noreply@anthropic.com>",
                               "Signed-off-by: Claude <noreply@anthropic.com>"]
    assert "`Assisted-by: Claude:<model-version>" in hit["advice"]
    assert hits(res, "co-developed-by-without-signoff") == []  # the pair itself is well formed


def test_humans_with_agent_like_names_are_not_agents(tmp_path, check_json):
    mbox = _patch(tmp_path, trailers="Co-developed-by: Claude Dupont <claude.dupont@example.fr>\n"
                                     "Signed-off-by: Claude Dupont <claude.dupont@example.fr>\n"
                                     "Reviewed-by: Devin Smith <devin@example.com>\n" + JANE)
    assert hits(check_json(mbox), "ai-signed-off") == []


def test_identity_list_is_a_profile_setting(tmp_path):
    mbox = _patch(tmp_path, trailers="Signed-off-by: Build Agent <agent@bots.example.org>\n" + JANE)
    assert [f.rule for f in _review(mbox).findings] == []
    flagged = _review(mbox, ai_identities=["*@bots.example.org"]).findings
    assert [(f.rule, f.patch) for f in flagged] == [("ai-signed-off", 1)]


# --- assisted-by-missing

def test_disclosure_in_commit_message_without_assisted_by(tmp_path, check_json):
    mbox = _patch(tmp_path, message=MESSAGE + "\nThe fix was written with the help of Claude Code and then\n"
                                              "tested on a ConnectX-6 board.\n")
    [hit] = hits(check_json(mbox), "assisted-by-missing")
    assert hit["patch"] == 1 and hit["severity"] == "warning"
    assert hit["evidence"] == ["The fix was written with the help of Claude Code and then"]
    assert "`Assisted-by: Claude:<model-version>" in hit["advice"]


def test_disclosure_with_assisted_by_is_fine(tmp_path, check_json):
    mbox = _patch(tmp_path, message=MESSAGE + "\nFound with the help of an AI coding assistant.\n",
                  trailers="Assisted-by: Claude:claude-opus-4-5 coccinelle\n" + JANE)
    assert hits(check_json(mbox), "assisted-by-missing") == []


def test_disclosure_below_the_cut_counts(tmp_path, check_json):
    mbox = _patch(tmp_path, notes="This patch was generated with GitHub Copilot; I reviewed every line.")
    assert len(hits(check_json(mbox), "assisted-by-missing")) == 1
    # The footer Claude Code appends to the messages it writes.
    footer = _patch(tmp_path, message=MESSAGE + "\n\U0001f916 Generated with [Claude Code](https://claude.com/claude-code)\n",
                    name="footer.mbox")
    assert len(hits(check_json(footer), "assisted-by-missing")) == 1


def test_disclosure_with_the_tool_as_subject(tmp_path, check_json):
    # "X assisted with analysis and wording": the tool names itself as the helper.
    for i, said in enumerate(("Claude assisted with analysis and wording.",
                              "Gemini helped with the analysis of the splat.",
                              "ChatGPT (GPT-4o) was used to draft this commit message.")):
        mbox = _patch(tmp_path, message=MESSAGE + "\n" + said + "\n", name=f"s{i}.mbox")
        [hit] = hits(check_json(mbox), "assisted-by-missing")
        assert hit["evidence"] == [said]
    # A person named Claude helping is not a tool.
    person = _patch(tmp_path, message=MESSAGE + "\nClaude Dupont helped to test it on his board.\n", name="p.mbox")
    assert hits(check_json(person), "assisted-by-missing") == []


def test_negated_or_unrelated_mentions_are_not_disclosures(tmp_path, check_json):
    message = MESSAGE + ("\nNo AI tools were used to write this patch.\n"
                         "The bug was found with syzkaller, then found using Gemini Lake hardware too.\n"
                         "It is implemented using a cursor to walk the ring.\n"
                         "Tested with the Copilot key on a 2024 laptop; the SNMP agent still works.\n")
    assert hits(check_json(_patch(tmp_path, message=message)), "assisted-by-missing") == []


def test_disclosure_in_cover_letter(tmp_path, check_json):
    mails = series_mails(2)
    mails[0].body = cover_body("This series was developed using an LLM-based coding agent,\n"
                               "then reviewed and tested by me on real hardware.")
    res = check_json(write(tmp_path, thread(*mails)))
    [hit] = hits(res, "assisted-by-missing")
    assert hit["patch"] == 0 and "no patch has an Assisted-by" in hit["message"]
    mails[1].body = patch_body(trailers="Assisted-by: Codex:gpt-5-codex\n" + JANE)
    res = check_json(write(tmp_path, thread(*mails), "with.mbox"))
    assert hits(res, "assisted-by-missing") == []


# --- assisted-by-format

def test_assisted_by_naming_a_mailbox(tmp_path, check_json):
    mbox = _patch(tmp_path, trailers="Assisted-by: Claude <noreply@anthropic.com>\n" + JANE)
    res = check_json(mbox)
    [hit] = hits(res, "assisted-by-format")
    assert "names a person or mailbox" in hit["message"]
    assert hits(res, "malformed-address") == [] and hits(res, "nonstandard-trailer") == []


def test_assisted_by_listing_basic_tools(tmp_path, check_json):
    mbox = _patch(tmp_path, trailers="Assisted-by: Claude:claude-3-opus git gcc sparse\n" + JANE)
    [hit] = hits(check_json(mbox), "assisted-by-format")
    assert "basic tools" in hit["message"] and "git, gcc" in hit["message"] and "sparse" not in hit["message"]


def test_assisted_by_good_and_llm_format(tmp_path, check_json):
    good = _patch(tmp_path, trailers="Assisted-by: Claude:claude-3-opus coccinelle sparse\n" + JANE)
    assert hits(check_json(good), "assisted-by-format") == []
    llm = _patch(tmp_path, trailers="Assisted-by: claude-opus-4-5 coccinelle\n" + JANE, name="llm.mbox")
    assert [f.rule for f in _review(llm).findings] == ["assisted-by-format"]  # agent-model by default
    assert _review(llm, assisted_by_format="llm").findings == ()


def test_no_ai_findings_on_real_threads(cli):
    paths = sorted(glob.glob(str(CORPUS / "netfilter-devel/*.mbox")) + glob.glob(str(CORPUS / "patchew/*.gz")))
    reviewed = 0
    for path in paths:
        res = cli("check", path, "--format", "json", "--select", "ai")
        if res.code != 2:
            reviewed += 1
            assert res.json["findings"] == [], path
    assert reviewed > 40
