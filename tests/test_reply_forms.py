"""Each reply form of reviewtool/data/reply-forms.toml, read from a mail of our own, with the
near misses that must stay silent (reviewtool/mail/replies.py)."""

from __future__ import annotations

import base64
from datetime import datetime, timezone

import pytest

from reviewtool.errors import ConfigError
from reviewtool.mail.replies import read_reply, read_reply_text, tree_parts
from reviewtool.mail.reply_forms import load_forms

KALLE = "Kalle Maintainer <kvalo@kernel.org>"
QUOTE = "Jane Developer <jane@example.org> wrote:\n\n> Fix the thing.\n>\n> Signed-off-by: Jane Developer <jane@example.org>\n\n"
PW_FOOTER = "\n-- \nhttps://patchwork.example/project/linux-wireless/patch/x/\n"


def read(body: str, sender: str = KALLE, **kw):
    return read_reply_text(sender=sender, date="Tue, 05 Mar 2024 18:55:52 +0000", subject="Re: [PATCH] x",
                           body=body, msgid="reply@x", in_reply_to="patch@x", **kw)


def test_korg_bot_series_names_each_patch_and_what_it_did_not_apply():
    body = ("Hello:\n\nThis series was applied to bluetooth/bluetooth-next.git (master)\n"
            "by Luiz Maintainer <luiz@kernel.example>:\n\nOn Wed, 27 Jul 2022 18:41:29 +0200 you wrote:\n"
            "> Instead of listing ...\n>\n> [...]\n\nHere is the summary with links:\n"
            "  - [1/2] Bluetooth: fix one\n    https://git.kernel.example/bluetooth/bluetooth-next/c/ba323f6bee1d\n"
            "  - [2/2] Bluetooth: fix two\n    (no matching commit)\n\nYou are awesome, thank you!\n"
            "-- \nDeet-doot-dot, I am a bot.\n")
    a = read(body, sender="patchwork-bot+bluetooth@kernel.org")
    assert (a.state, a.form, a.trust) == ("applied", "korg-patchwork-bot", "form")
    assert (a.tree_words, a.repo, a.branch) == ("bluetooth/bluetooth-next.git", "bluetooth-next", "master")
    assert str(a.by) == "Luiz Maintainer <luiz@kernel.example>" and a.sender.email.startswith("patchwork-bot")
    assert [(p.counter, p.subject, p.commit, p.applied) for p in a.patches] == [
        (1, "Bluetooth: fix one", "ba323f6bee1d", True), (2, "Bluetooth: fix two", None, False)]
    assert a.commits == ("ba323f6bee1d",) and a.date == datetime(2024, 3, 5, 18, 55, 52, tzinfo=timezone.utc)


def test_korg_bot_single_patch_without_counter():
    body = ("Hello:\n\nThis patch was applied to netdev/net-next.git (main)\nby Jakub Maintainer <kuba@kernel.example>:\n\n"
            "Here is the summary with links:\n  - [net-next] net: drop the weight argument\n"
            "    https://git.kernel.example/netdev/net-next/c/b48b89f9c189\n")
    a = read(body, sender="patchwork-bot+netdevbpf@kernel.org")
    assert a.repo == "net-next" and a.branch == "main"
    assert [(p.counter, p.subject) for p in a.patches] == [(None, "net: drop the weight argument")]


def test_pwcli_patch_applied_with_its_commit():
    a = read(QUOTE + "Patch applied to wireless-next.git, thanks.\n\n"
             "b8a62478f3b1 wifi: rtw88: Add missing VID/PIDs\n" + PW_FOOTER)
    assert (a.state, a.form, a.tree_words, a.repo, a.branch) == (
        "applied", "pwcli-applied", "wireless-next.git", "wireless-next", None)
    assert [(p.commit, p.subject) for p in a.patches] == [("b8a62478f3b1", "wifi: rtw88: Add missing VID/PIDs")]
    assert str(a.by) == KALLE and a.reason is None


@pytest.mark.parametrize("line, count, words, repo, branch", [
    ("2 patches applied to ath-next branch of ath.git, thanks.", 2, "ath-next branch of ath.git", "ath", "ath-next"),
    ("1 patch(es) applied to rtw-next branch of rtw.git, thanks.", 1, "rtw-next branch of rtw.git", "rtw", "rtw-next"),
    ("3 patches applied to wireless.git, thanks.", 3, "wireless.git", "wireless", None),
])
def test_pwcli_n_patches_applied(line, count, words, repo, branch):
    a = read(QUOTE + line + "\n\n0ac4827f78c7 ath9k: fix one\nd7fc76039b74 ath9k: fix two\n" + PW_FOOTER)
    assert (a.form, a.count, a.tree_words, a.repo, a.branch) == ("pwcli-applied-n", count, words, repo, branch)
    assert a.commits == ("0ac4827f78c7", "d7fc76039b74")


@pytest.mark.parametrize("word, state", [("Changes Requested", "changes-requested"), ("Superseded", "superseded"),
                                         ("Rejected", "rejected"), ("Deferred", "deferred"),
                                         ("Not Applicable", "not-applicable")])
def test_pwcli_state_change_keeps_the_maintainers_words_as_reason(word, state):
    a = read(QUOTE + "Fails to build:\n\nmac.c:12: error: x undeclared\n\n"
             f"Patch set to {word}.\n" + PW_FOOTER)
    assert (a.state, a.form, a.patches) == (state, "pwcli-state", None)
    assert a.reason == "Fails to build:\n\nmac.c:12: error: x undeclared" and a.reason_line == "Fails to build:"


def test_pwcli_n_patches_set_lists_them_by_counter():
    a = read(QUOTE + "Failed to apply, please rebase.\n\n3 patches set to Changes Requested.\n\n"
             "12924009 [v2,1/3] ath11k: one\n12924011 [v2,2/3] ath11k: two\n12924010 [v2,3/3] ath11k: three\n" + PW_FOOTER)
    assert a.count == 3 and [(p.counter, p.total, p.subject) for p in a.patches] == [
        (1, 3, "ath11k: one"), (2, 3, "ath11k: two"), (3, 3, "ath11k: three")]


def test_patchwork_states_nobody_acts_on_are_no_action():
    assert read(QUOTE + "There is a bug report about this.\n\nPatch set to RFC.\n" + PW_FOOTER) is None


def test_b4_ty_names_the_commits_and_what_had_no_commit():
    body = ("On Fri, 29 Mar 2024, Jane Developer wrote:\n> Fix two things.\n>\n> [...]\n\nApplied, thanks!\n\n"
            "[1/2] regdb: fix one\n      commit: 73529a882f83afa26402b18680025334b0215d92\n"
            "[2/2] regdb: fix two\n      (no commit info)\n\nBest regards,\n-- \nChen Maintainer\n")
    a = read(body, sender="Chen Maintainer <wens@kernel.example>")
    assert (a.state, a.form, a.trust, a.tree_words) == ("applied", "b4-ty", "applier", None)
    assert [(p.counter, p.applied) for p in a.patches] == [(1, True), (2, False)]
    assert a.commits == ("73529a882f83afa26402b18680025334b0215d92",)


def test_b4_ty_shaped_reply_with_a_tree_and_commit_links():
    a = read("> [...]\n\nApplied to powerpc/next.\n\n[1/1] powerpc: macio: make remove void\n"
             "      https://git.kernel.example/powerpc/c/9db2235326c4b868b6e065dfa3a69011ee570848\n\ncheers\n")
    assert (a.form, a.tree_words, a.commits) == ("b4-ty", "powerpc/next", ("9db2235326c4b868b6e065dfa3a69011ee570848",))


def test_b4_ty_template_naming_the_tree_on_the_line_below():
    """A b4 ty template of its users: "Applied to", the repository and branch on a line of their
    own, "Thanks!", then the summary."""
    body = ("On Mon, 04 Mar 2024, Jane Developer wrote:\n> Release the clock.\n\nApplied to\n\n"
            "   https://git.kernel.example/pub/scm/linux/kernel/git/mark/spi.git for-next\n\nThanks!\n\n"
            "[1/1] spi: foo: release the clock on the error path\n"
            "      commit: 0bb80ecc33a8fb5a682236443c1e740d5c917d1d\n\n"
            "All being well this means that it will be integrated into the linux-next\ntree.\n\nThanks,\nMark\n")
    a = read(body, sender="Mark Maintainer <mark@kernel.example>")
    assert (a.state, a.form, a.repo, a.branch) == ("applied", "b4-ty", "spi", "for-next")
    assert a.commits == ("0bb80ecc33a8fb5a682236443c1e740d5c917d1d",)
    # near misses: "Applied to" with no summary is no reply form, nor a summary too far below it
    assert read("> x\n\nApplied to\n\n   https://git.kernel.example/spi.git for-next\n\nThanks!\n") is None
    far = body.replace("Thanks!\n\n", "Thanks!\n\n" + "More words.\n" * 8)
    assert read(far, sender="Mark Maintainer <mark@kernel.example>") is None


@pytest.mark.parametrize("line, words", [("Queued for 6.8, thanks.", None), ("Applied for v6.9-rc3, thanks!", None),
                                         ("Applied to pci/controller for v6.8, thanks!", "pci/controller"),
                                         ("Applied for the next merge window.", None)])
def test_plain_applied_for_a_release(line, words):
    a = read(QUOTE + line + "\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form, a.tree_words) == ("applied", "plain-applied", words)
    assert read(QUOTE + "Applied for 6.8 and it boots.\n", sender="John Maintainer <john@kernel.example>") is None


def test_commit_lines_without_an_applied_line_are_not_a_reply_form():
    """The kernel test robot's reports carry `commit:` lines too."""
    body = ("tree:   https://git.kernel.example/wireless-next.git main\n"
            "commit: e27b02e23a701e5761f1d6028643e1203a1c56de [6/6] ssb: drop CONFIG_SSB_DEBUG\n")
    assert read(body, sender="kernel test robot <lkp@intel.example>") is None


def test_b4_thanks_without_its_list_is_plain_words():
    a = read("> 2.34.1\n\nApplied, thanks!\n\nBart\n")
    assert (a.form, a.trust, a.needs_applier, a.patches) == ("plain-applied", "applier", True, None)


@pytest.mark.parametrize("command, state", [("cr", "changes-requested"), ("changes-requested", "changes-requested"),
                                            ("defer", "deferred"), ("reject", "rejected"),
                                            ("superseded", "superseded")])
def test_pw_bot_commands(command, state):
    a = read(f"> +\tspin_lock(&x);\n\nThis takes the lock twice.\n\npw-bot: {command}\n",
             sender="Rita Reviewer <rita@example.org>")
    assert (a.state, a.form, a.trust, a.reason) == (state, "pw-bot", "thread", "This takes the lock twice.")


def test_pw_bot_command_that_sets_no_state_we_track():
    assert read("Looks fine so far.\n\npw-bot: under-review\n") is None


@pytest.mark.parametrize("line, words", [("Applied to net-next, thanks.", "net-next"), ("Applied.", None),
                                         ("Thanks, applied.", None), ("Now queued up, thanks,", None),
                                         ("Applied and pushed out.", None), ("applied to the wireless tree", "the wireless tree"),
                                         ("Manually applied to ath-current branch of ath.git.",
                                          "ath-current branch of ath.git")])
def test_plain_applied_needs_an_applier(line, words):
    a = read(QUOTE + line + "\n\nJohn\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form, a.needs_applier, a.tree_words) == ("applied", "plain-applied", True, words)
    assert tree_parts("the wireless tree") == ("wireless", None)


@pytest.mark.parametrize("line, form, words", [
    ("I've applied the series to my tree, thanks.", "plain-applied", "my tree"),
    ("I applied it to net-next, thanks.", "plain-applied", "net-next"),
    ("Applied patches 1, 2 and 4 to net-next, thanks.", "plain-applied", "net-next"),
    ("Patches 1-4 applied, thanks.", "plain-applied", None),
    ("This is now applied.", "plain-applied", None),
    ("Merged, thanks.", "plain-applied", None),
    ("Applied to 6.8/scsi-queue, thanks!", "plain-applied", "6.8/scsi-queue"),  # a version and a branch
    ("Applied to nf-next and pushed out, thanks.", "plain-applied", "nf-next"),
    ("All now queued up, thanks!", "plain-applied", None),
    ("Thanks, applied now.", "plain-applied", None),
    ("Both patches applied.", "plain-applied", None),
    ("Applied to for-next branch now.", "plain-applied", "for-next branch"),
    ("Applied to the togreg branch of iio.git and pushed out as testing for 0-day to poke at it.", "plain-applied",
     "the togreg branch of iio.git"),
    ("Applied this little patch, thanks", "plain-applied", None),
    ("Also pulled, thanks Jan.", "plain-pulled", None),
    ("Thanks, pushed.", "plain-pushed", None),
    ("Pushed to nftables.git", "plain-pushed", "nftables.git"),
])
def test_plain_applied_in_other_words(line, form, words):
    a = read(QUOTE + line + "\n\nJohn\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form, a.needs_applier, a.tree_words) == ("applied", form, True, words)


@pytest.mark.parametrize("line", [
    "I have applied this to net-next and it fails to build.",  # a report on the patch
    "I applied this on top of net-next and tested, works fine.",
    "Applied to v6.8-rc1 and it boots.",
    "I pushed it to nf-next and it broke.",
    "It was applied as part of another series.",
    "Merged into the tree, then reverted.",
])
def test_plain_applied_not_in_a_report(line):
    assert read(QUOTE + line + "\n", sender="John Maintainer <john@kernel.example>") is None


@pytest.mark.parametrize("paragraph, form, clause", [
    ("Thanks for explaining, this is now applied. And please, add a line about it\nto the README.",
     "plain-applied", "Thanks for explaining, this is now applied."),
    ("Good catch, applied, thanks Thomas.", "plain-applied", "Good catch, applied, thanks Thomas."),
    ("Patch applied.  Thanks.", "plain-applied", "Patch applied."),  # two blanks after the stop
    ("Sure. Applied and pushed after squashing it\nwith the test case.", "plain-applied",
     "Applied and pushed after squashing it with the test case."),
    ("I've pushed the series out.  Note that I modified two dump files.", "plain-pushed",
     "I've pushed the series out."),
    ("Sorry for the delay, now queued up.", "plain-applied", "Sorry for the delay, now queued up."),
])
def test_plain_applied_leads_a_paragraph(paragraph, form, clause):
    a = read(QUOTE + paragraph + "\n\nJohn\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form, a.needs_applier, a.evidence) == ("applied", form, True, clause)


@pytest.mark.parametrize("paragraph", [
    "Applied, and started testing.",  # two clauses of substance
    "Applied, however, shouldn't this have been a v2?",
    "This is fine, it'll be merged for -next.",
    "Thanks. I applied it locally and it builds, so the series looks fine to me.",
    "LGTM, I've applied this to nf-next:testing to have the buildbots check it out.",
    "Once this is applied, I will send the rest.",
    "Good catch. The patch was never applied because of that.",
])
def test_plain_applied_leads_nothing_else(paragraph):
    assert read(QUOTE + paragraph + "\n", sender="John Maintainer <john@kernel.example>") is None


def test_only_lead_forms_read_a_paragraphs_lead():
    # plain-changes is not a lead form: "Thanks, please rebase." inside a paragraph stays words
    body = QUOTE + "Thanks, please rebase and resend. I could not apply it to net-next.\n"
    assert read(body, sender="John Maintainer <john@kernel.example>") is None


def test_plain_applied_may_name_the_commit():
    a = read(QUOTE + "Applied as 7db31110438 in net, thanks!\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form, a.tree_words, a.commits) == ("applied", "plain-applied", "net", ("7db31110438",))
    assert read(QUOTE + "Applied as a fix in net, thanks!\n") is None  # not a commit id


@pytest.mark.parametrize("body", [
    "> Can you apply this on top?\n\nApplied, and started testing.\n",  # a tester, not a maintainer's word
    "Applied on 5.19 and worked.\n\nAP: QCA9984\n",
    "The string \"[PATCH]\" says the mail holds a patch which should be\napplied.\n",  # the end of a sentence
    "> Patch applied to wireless-next.git, thanks.\n\nThanks!\n",  # quoted: someone else's words
    "Please do not say \"Patch applied\" before it is.\n",
])
def test_plain_words_near_misses(body):
    assert read(body) is None


@pytest.mark.parametrize("line", ["This patch doesnt apply to nf.git, can you rebase it?",
                                  "It doesn't apply, could you please rebase on net-next?",
                                  "This does not apply to net-next. Please rebase and resend."])
def test_does_not_apply_with_a_request_to_rebase(line):
    a = read(QUOTE + line + "\n", sender="John Maintainer <john@kernel.example>")
    assert (a.state, a.form) == ("changes-requested", "plain-changes")


def test_nak_takes_the_words_around_it_as_reason():
    a = read("On Wed, Nov 23, 2022 at 4:46 AM Greg Developer\n<greg@example.org> wrote:\n> +\tdepends on BROKEN\n\n"
             "NACK.\n\nI'm okay with disabling the gadget side.\n", sender="Maciej Maintainer <maze@example.org>")
    assert (a.state, a.form, a.needs_applier) == ("nak", "nak", True)
    assert a.reason_line == "I'm okay with disabling the gadget side."


def test_nacked_by_is_the_senders_own_nak():
    # The sender's From decides (the hardening issue): a Nacked-by naming someone else, sent by
    # anyone, is that sender's NAK, counted only if the sender applies for the tree.
    a = read("> x\n\nNacked-by: Maciej Maintainer <maze@example.org>\n", sender="Someone <s@example.org>")
    assert (a.state, a.by.email) == ("nak", "s@example.org")


def test_a_profile_adds_its_own_form_before_the_shipped_ones():
    forms = load_forms([{"name": "gitgitgadget", "line": r"This patch series was integrated into (?P<tree>\S+) via .*",
                         "state": "applied"}])
    a = read("This patch series was integrated into seen via git@abc.\n", forms=forms)
    assert (a.form, a.tree_words) == ("gitgitgadget", "seen")
    assert read("This patch series was integrated into seen via git@abc.\n") is None


@pytest.mark.parametrize("table, words", [
    ({"name": "x", "line": "(", "state": "applied"}, "not a valid regular expression"),
    ({"name": "x", "line": "y", "state": "merged"}, "give `state`"),
    ({"name": "x", "line": "y", "states": {"A": "applied"}}, "needs a (?P<state>"),
    ({"name": "x", "line": "y", "state": "applied", "list": "csv"}, "list must be one of"),
    ({"name": "x", "line": "y", "state": "applied", "colour": "red"}, "unknown keys colour"),
    # what can take exponential time on a reply line (a repository's .reviewtool.toml is a stranger's)
    ({"name": "x", "line": "(a+)+b", "state": "applied"}, "a repeat inside a repeat can take exponential time"),
    ({"name": "x", "line": "(?:a|aa)+ applied", "state": "applied"}, "alternatives inside a repeat"),
    ({"name": "x", "line": r"(\w+) \1 applied", "state": "applied"}, "a backreference"),
    ({"name": "x", "line": "Applied", "by": r"(?P<by>(?:\s*\w+)+)", "state": "applied"}, "a repeat inside a repeat"),
])
def test_bad_profile_forms_are_named(table, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace("?", r"\?")):
        load_forms([table])


def test_read_reply_from_the_mails_bytes_decodes_its_body_and_ids():
    body = base64.b64encode((QUOTE + "Patch applied to wireless.git, thanks.\n\n"
                             "f424b1a6e1b4 dt-bindings: fix\n").encode()).decode()
    raw = ("From: Kalle Maintainer <Kalle@Kernel.Example>\nDate: Mon, 28 Nov 2022 13:58:59 +0000\n"
           "Subject: Re: [PATCH] dt-bindings: fix\nMessage-ID: <r1@kernel.example>\n"
           "References: <cover@example.org> <p1@example.org>\nMIME-Version: 1.0\n"
           "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" + body + "\n").encode()
    a = read_reply(raw)
    assert (a.state, a.repo, a.msgid, a.in_reply_to) == ("applied", "wireless", "r1@kernel.example", "p1@example.org")
    assert a.by.email == "kalle@kernel.example" and a.date.year == 2022


def test_an_mbox_from_escape_is_the_replys_own_text():
    a = read(QUOTE + ">From and s-o-b don't match\n\nPatch set to Changes Requested.\n" + PW_FOOTER)
    assert a.reason == ">From and s-o-b don't match"


def test_a_form_with_a_separated_repeat_is_no_danger_and_long_lines_are_never_forms():
    """The near miss: a repeated group bounded by a character nothing else in it takes
    (`(?:/[\\w-]+)*`) cannot split a line two ways, so it is kept; and no form is tried on a line
    longer than any form's line (mail/replies.MAX_FORM_LINE), whatever a profile's form costs."""
    from reviewtool.mail.replies import MAX_FORM_LINE

    forms = load_forms([{"name": "can-bot", "line": r"Applied to (?P<tree>[\w-]+(?:/[\w-]+)*), thanks[.!]?",
                         "state": "applied"}])
    assert read("Applied to linux-can/testing, thanks!\n", forms=forms).tree_words == "linux-can/testing"
    long = "Applied to " + "x" * MAX_FORM_LINE + ", thanks!\n"
    assert read(long, forms=forms) is None
