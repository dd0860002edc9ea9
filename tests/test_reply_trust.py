"""Who may settle a series: a bot's form counts from the bot's own address, a script's and plain
words from someone the data names an applier; everyone else's "applied" is a claim. Each form
the netfilter, Intel and netdev maintainers use has a near miss. Every mail is our own."""

from __future__ import annotations

import pytest

from reviewtool.context.profiles.read import read_profile
from reviewtool.context.replies.settled import known_appliers
from reviewtool.learn.archive import read_archive
from reviewtool.mail.replies import read_reply, read_reply_text

QUOTE = "On Mon, 2 Mar 2026 10:00:00 +0000, Jane Developer wrote:\n> +\tfoo();\n\n"
BOT_BODY = ("Hello:\n\nThis patch was applied to wireless/wireless-next.git (main)\n"
            "by Evil Two <evil2@evil.example>:\n\n" + QUOTE + "Here is the summary with links:\n"
            "  - wifi: foo: fix bar\n    https://git.kernel.example/wireless/c/0123456789ab\n\n"
            "You are awesome, thank you!\n-- \nDeet-doot-dot, I am a bot.\n")


def read(body: str, sender: str):
    return read_reply_text(sender=sender, date="Tue, 3 Mar 2026 10:00:00 +0000", body=body,
                           msgid="r@example.org", in_reply_to="p@example.org")


def test_a_bots_form_proves_itself_only_from_the_bots_address():
    real = read(BOT_BODY, "patchwork-bot+wireless@kernel.org")
    assert (real.trust, real.by.email) == ("form", "evil2@evil.example")  # the bot names who applied
    forged = read(BOT_BODY, "Mallory <mallory@evil.example>")
    # the same words from anyone else are the sender's own, and need an applier: "by Evil Two" is not read
    assert (forged.state, forged.trust, forged.by.email) == ("applied", "applier", "mallory@evil.example")


def test_a_script_reply_counts_only_from_an_applier():
    body = QUOTE + "Patch applied to wireless-next.git, thanks.\n\n0123456789ab wifi: foo: fix bar\n"
    a = read(body, "Mallory <mallory@evil.example>")
    assert (a.form, a.trust) == ("pwcli-applied", "applier")
    bare = read_profile("x", {}, "test")  # a profile that names no applier: the shipped ones' still count
    assert "mallory@evil.example" not in known_appliers(bare)
    assert "kvalo@kernel.org" in known_appliers(bare)


def test_a_nacked_by_line_is_the_senders_word_not_the_named_persons():
    a = read("Nacked-by: Kalle Valo <kvalo@kernel.org>\n", "Mallory <mallory@evil.example>")
    assert (a.state, a.trust, a.by.email) == ("nak", "applier", "mallory@evil.example")
    own = read(QUOTE + "Nacked-by: Kalle Valo <kvalo@kernel.org>\n", "Kalle Valo <kvalo@kernel.org>")
    assert (own.state, own.by.email) == ("nak", "kvalo@kernel.org")


def test_pw_bot_below_the_signature_is_read_and_other_forms_are_not():
    a = read(QUOTE + "No need for the allocation here.\n-- \npw-bot: cr\n", "Jakub <kuba@kernel.org>")
    assert (a.form, a.state, a.reason_line) == ("pw-bot", "changes-requested", "No need for the allocation here.")
    # near miss: a signature that happens to say "Applied" is not a reply form
    assert read(QUOTE + "Looks fine to me.\n-- \nApplied.\n", "Pablo <pablo@netfilter.org>") is None


def test_plain_words_of_the_netfilter_and_intel_maintainers():
    cases = {
        "Patch applied.": ("plain-applied", "applied"),
        "Series applied, thanks!": ("plain-applied", "applied"),
        "Applied, thanks Thomas": ("plain-applied", "applied"),
        "Patch applied after fixing up the above typo.": ("plain-applied", "applied"),
        "Patch applied, thanks for your review.": ("plain-applied", "applied"),
        "I have just pushed it out, thanks.": ("plain-pushed", "applied"),
        "Pulled and pushed back out, thanks Jan": ("plain-pulled", "applied"),
        "Pulled, thanks.": ("plain-pulled", "applied"),
        "This doesn't apply.": ("plain-changes", "changes-requested"),
        "Please rebase and resend.": ("plain-changes", "changes-requested"),
    }
    for words, want in cases.items():
        a = read(QUOTE + words + "\n\nThanks,\nPablo\n", "Pablo <pablo@netfilter.org>")
        assert a is not None and (a.form, a.state) == want, words
        assert a.trust == "applier", words
    # near misses: a question, a sentence about something else, a partial application
    for words in ("Is this applied after the merge?", "I think this doesn't apply to the case you describe.",
                  "I pulled the latest tree and it still fails.",
                  "Applied the last two patches of this series. Patch 1 needs work."):
        assert read(QUOTE + words + "\n", "Pablo <pablo@netfilter.org>") is None, words


def _script_replies(tmp_path, mae_pull: str | None, mallory_pull: bool = False):
    """A list's archive: mallory's three forged pwcli replies each answer a posting nobody else
    settled; the maintainer's own three answer three more. `mae_pull`: the maintainer's pull
    request upstream took, sent after the replies and carrying the three ("after"), sent before
    them ("before"), or carrying other patches ("other"); None: no pull request."""
    from datetime import timedelta
    from email.utils import format_datetime

    from listarchive import LIST, MAE, START, Archive, Posting

    archive = Archive()
    quote = "Jane Developer <jane@example.org> wrote:\n\n> Return the error instead.\n\n"
    forged = [f"lab: drv1: tidy the path {i}" for i in range(3)]
    for i, summary in enumerate(forged):
        (posted,) = archive.post(Posting(summary, tree=None, when=START + timedelta(days=i)))
        archive._mail({"From": "Mallory <mallory@evil.example>", "Date": format_datetime(START + timedelta(days=i, hours=5)),
                       "To": "jane@example.org", "Cc": LIST, "Subject": f"Re: [PATCH] {summary}",
                       "In-Reply-To": f"<{posted}>", "References": f"<{posted}>"},
                      f"{quote}Patch applied to lab-next.git, thanks.\n\n0123456789ab {summary}\n")
    real = [f"lab: drv2: fix the queue {i}" for i in range(3)]
    for i, summary in enumerate(real):
        archive.post(Posting(summary, when=START + timedelta(days=3 + i)))
    url = "git://git.kernel.example/pub/scm/linux/kernel/git/lab/"
    when = {"after": START + timedelta(days=20), "before": START - timedelta(days=1),
            "other": START + timedelta(days=20)}
    if mae_pull is not None:
        carried = [f"lab: drv3: other work {i}" for i in range(3)] if mae_pull == "other" else real
        archive.pull("lab-next-pull", url + "lab-next.git", "top/top.git", when[mae_pull],
                     carries=[("Jane Developer", s) for s in carried])
    if mallory_pull:  # a pull request anyone can send, taken by nobody upstream
        archive.pull("evil-pull", "git://evil.example/lab-next.git", None, START + timedelta(days=21),
                     sender="Mallory <mallory@evil.example>", carries=[("Jane Developer", s) for s in forged])
    tmp_path.mkdir(exist_ok=True)
    return read_archive([archive.write(tmp_path / f"{mae_pull}.mbox")], tmp_path), MAE.split("<")[1][:-1]


def test_three_forged_script_replies_make_nobody_an_applier_but_a_pull_request_upstream_took_does(tmp_path):
    """Issue 32: how many pwcli replies someone sent proves nothing (anyone can send three); their
    own pull request that upstream took, carrying a patch they said they applied, does."""
    ar, mae = _script_replies(tmp_path, "after", mallory_pull=True)
    applied = {p.patches[0].summary: p.applied for p in ar.postings}
    assert all(not applied[f"lab: drv1: tidy the path {i}"] for i in range(3))
    assert {a.sender.email for a in ar.untrusted} == {"mallory@evil.example"}
    assert len(ar.untrusted) == 3
    # near miss: the maintainer's replies, followed by the patches in the maintainer's own pull request
    assert all(applied[f"lab: drv2: fix the queue {i}"] for i in range(3))
    assert {a.sender.email for a in ar.actions if a.form == "pwcli-applied"} == {mae}
    # the same replies without that pull request, with one sent before them, or one carrying other
    # patches, are the maintainer's words only
    for kind in (None, "before", "other"):
        ar, _ = _script_replies(tmp_path / str(kind), kind)
        assert not any(p.applied for p in ar.postings), kind
        assert {a.sender.email for a in ar.untrusted} == {"mallory@evil.example", mae}, kind


def test_an_applier_learned_from_a_pull_request_vouches_for_the_pull_requests_they_take(tmp_path):
    """A driver maintainer (Sam) applies to drv.git with pwcli and sends a pull request to the
    list's maintainer, who answers "Pulled, thanks.": Sam applies, once the maintainer is known to
    (their own pull request upstream took). Near miss: the maintainer's pull request untaken."""
    from datetime import timedelta
    from email.utils import format_datetime

    from listarchive import LIST, MAE, START, Archive, Posting

    sam = "Sam Sub <sam@drv.example>"
    quote = "Jane Developer <jane@example.org> wrote:\n\n> Return the error instead.\n\n"
    for taken in (True, False):
        archive = Archive()
        for i in range(3):
            archive.post(Posting(f"lab: drv2: fix the queue {i}", when=START + timedelta(days=i)))
        mae_pull = archive.applied.pop("lab-next.git")
        archive.pull("lab-next-pull", "git://git.kernel.example/lab/lab-next.git", "top/top.git" if taken else None,
                     START + timedelta(days=10), carries=[(a, s) for _, a, s in mae_pull])
        drv = [f"drv: core: add the thing {i}" for i in range(2)]
        for i, summary in enumerate(drv):
            (posted,) = archive.post(Posting(summary, tree=None, when=START + timedelta(days=4 + i)))
            archive._mail({"From": sam, "Date": format_datetime(START + timedelta(days=5 + i)), "To": "jane@example.org",
                           "Cc": LIST, "Subject": f"Re: [PATCH] {summary}", "In-Reply-To": f"<{posted}>",
                           "References": f"<{posted}>"}, f"{quote}Patch applied to drv-next.git, thanks.\n\n"
                                                          f"0123456789ab {summary}\n")
        sam_pull = archive.pull("drv-next-pull", "git://git.kernel.example/drv/drv-next.git", None,
                                START + timedelta(days=12), sender=sam, carries=[("Jane Developer", s) for s in drv])
        archive._mail({"From": MAE, "Date": format_datetime(START + timedelta(days=13)), "To": sam, "Cc": LIST,
                       "Subject": "Re: pull-request: drv-next-pull", "In-Reply-To": f"<{sam_pull}>",
                       "References": f"<{sam_pull}>"}, "Sam Sub writes:\n\n> Hi,\n\nPulled, thanks.\n")
        (tmp_path / str(taken)).mkdir()
        ar = read_archive([archive.write(tmp_path / str(taken) / "a.mbox")], tmp_path / str(taken))
        applied = {p.patches[0].summary: bool(p.applied) for p in ar.postings}
        assert all(applied[s] == taken for s in drv), taken
        assert ("sam@drv.example" in {a.sender.email for a in ar.untrusted}) != taken


def _review_with_reply(tmp_path, cli, reply_from: str, reply_date: str, body: str = "This leaks.\n\npw-bot: cr\n"):
    from mailfactory import Mail, patch_body, write

    patch = Mail("[PATCH net] foo: fix bar", patch_body(), msgid="p@example.org",
                 cc="Rita Reviewer <rita@example.org>")
    answer = Mail("Re: [PATCH net] foo: fix bar", QUOTE + body, sender=reply_from, msgid="r@example.org",
                  in_reply_to="p@example.org")
    from datetime import datetime, timezone
    from email.utils import parsedate_to_datetime
    text = ("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + patch.render("p@example.org", datetime(2026, 3, 2, 10, tzinfo=timezone.utc))
            + "\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\n" + answer.render("r@example.org", parsedate_to_datetime(reply_date)))
    res = cli("check", str(write(tmp_path, text)), "--format", "json")
    notes = res.json["summary"].get("notes", [])
    return (res.json.get("state") or {}).get("state"), [n for n in notes if "not taken" in n]


def test_pw_bot_counts_from_someone_in_the_conversation_not_from_a_strangers_bare_command(tmp_path, cli):
    state, ignored = _review_with_reply(tmp_path, cli, "Rita Reviewer <rita@example.org>", "Tue, 3 Mar 2026 10:00:00 +0000")
    assert state == "changes-requested" and not ignored
    # a stranger's bare command is mail only to drive the bot; with review words, a reviewer's
    state, ignored = _review_with_reply(tmp_path, cli, "Mallory <mallory@evil.example>", "Tue, 3 Mar 2026 10:00:00 +0000",
                                        body="pw-bot: cr\n")
    assert state != "changes-requested" and "sent the command alone" in ignored[0]
    state, ignored = _review_with_reply(tmp_path, cli, "Vera Reviewer <vera@example.net>", "Tue, 3 Mar 2026 10:00:00 +0000")
    assert state == "changes-requested" and not ignored


def test_a_reply_dated_before_the_patch_settles_nothing(tmp_path, cli):
    # the author's own pw-bot command counts (the author may set the state of their own patch) ...
    state, _ = _review_with_reply(tmp_path, cli, "Jane Developer <jane@example.org>", "Mon, 2 Mar 2026 10:30:00 +0000")
    assert state == "changes-requested"
    # ... but not one dated a day before the patch was posted; minutes of clock skew are no matter
    state, ignored = _review_with_reply(tmp_path, cli, "Jane Developer <jane@example.org>", "Sun, 1 Mar 2026 10:00:00 +0000")
    assert state != "changes-requested" and "before the mail it answers" in ignored[0]
    state, _ = _review_with_reply(tmp_path, cli, "Jane Developer <jane@example.org>", "Mon, 2 Mar 2026 09:50:00 +0000")
    assert state == "changes-requested"


FORWARDED = ("From: Paolo Abeni <pabeni@redhat.com>\nSubject: Re: [PATCH net] foo: fix bar\n"
             "Content-Type: text/plain\n\n{text}\n")
# Where the forwarded mail can stand: after the sender's own text, before it, alone in a
# multipart, or as the whole mail (Content-Type: message/rfc822).
LAYOUTS = {
    "after": "multipart/mixed; boundary=XX\n\n--XX\nContent-Type: text/plain\n\n{own}\n"
             "--XX\nContent-Type: message/rfc822\n\n{fwd}\n--XX--\n",
    "before": "multipart/mixed; boundary=XX\n\n--XX\nContent-Type: message/rfc822\n\n{fwd}\n"
              "--XX\nContent-Type: text/plain\n\n{own}\n--XX--\n",
    "alone": "multipart/mixed; boundary=XX\n\n--XX\nContent-Type: message/rfc822\n\n{fwd}\n--XX--\n",
    "whole": "message/rfc822\n\n{fwd}",
}


def _forwarding(own: str, forwarded: str, layout: str) -> str:
    from datetime import datetime, timezone

    from mailfactory import Mail, patch_body

    patch = Mail("[PATCH net] foo: fix bar", patch_body(), msgid="p@example.org").render(
        "p@example.org", datetime(2026, 3, 2, 10, tzinfo=timezone.utc))
    reply = ("From: Jakub Kicinski <kuba@kernel.org>\nDate: Tue, 3 Mar 2026 10:00:00 +0000\n"
             "Subject: Re: [PATCH net] foo: fix bar\nMessage-ID: <r@example.org>\nIn-Reply-To: <p@example.org>\n"
             "References: <p@example.org>\nMIME-Version: 1.0\nContent-Type: "
             + LAYOUTS[layout].format(own=own, fwd=FORWARDED.format(text=forwarded)))
    return f"From mboxrd@z Thu Jan  1 00:00:00 1970\n{patch}\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\n{reply}"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_state_line_in_a_forwarded_message_is_not_the_senders(tmp_path, cli, layout):
    """A reply that forwards another mail (message/rfc822) says only what its own text says, in
    check and triage (b4 reads every text part; the reply reader its first), in the reply reader
    earlier postings use and in profile learn's reading of the archive."""
    import email

    from mailfactory import write

    def state(own: str, forwarded: str):
        path = write(tmp_path, _forwarding(own, forwarded, layout))
        checked = cli("check", str(path), "--format", "json").json
        (triaged,) = cli("triage", str(path), "--no-store", "--now", "2026-03-04", "--format", "json").json["series"]
        reply = email.message_from_string(_forwarding(own, forwarded, layout).split("From mboxrd@z", 2)[2].split("\n", 1)[1])
        action = read_reply(reply)
        archive = read_archive([path], tmp_path / "scratch")  # profile learn's own reader of the archive
        learned = {a.state for a in archive.actions + archive.untrusted} or {None}
        return (checked.get("state") or {}).get("state"), triaged["status"], action and action.state, *learned

    assert state("See the mail below.", "Applied, thanks.") == (None, "needs-review", None, None)
    if layout in ("after", "before"):  # the near miss: the sender's own words
        assert state("Applied, thanks.", "See the mail below.") == ("applied", "applied", "applied", "applied")


def test_triage_shows_a_strangers_claim_as_a_claim_and_an_appliers_as_the_state(tmp_path, cli):
    from datetime import datetime, timezone
    from mailfactory import Mail, patch_body, write

    def triage(sender: str, tree: str = "wireless-next.git") -> dict:
        patch = Mail("[PATCH wireless-next] wifi: foo: fix bar", patch_body(), to="linux-wireless@vger.kernel.org")
        claim = Mail("Re: [PATCH wireless-next] wifi: foo: fix bar",
                     QUOTE + f"Patch applied to {tree}, thanks.\n\n0123456789ab wifi: foo: fix bar\n",
                     sender=sender, in_reply_to="p@example.org")
        text = ("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + patch.render("p@example.org", datetime(2026, 3, 2, 10, tzinfo=timezone.utc))
                + "\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\n" + claim.render("r@example.org", datetime(2026, 3, 3, 10, tzinfo=timezone.utc)))
        res = cli("triage", str(write(tmp_path, text)), "--no-store", "--now", "2026-03-04", "--format", "json")
        (item,) = res.json["series"]
        return item

    forged = triage("Mallory <mallory@evil.example>")
    claims = [r for r in forged["reasons"] if r["code"] == "claim"]
    assert forged["status"] != "applied" and claims[0]["state"] == "applied"
    assert claims[0]["by"] == "Mallory <mallory@evil.example>" and "not known to apply" in claims[0]["why"]
    real = triage("Kalle Valo <kvalo@kernel.org>")
    assert real["status"] == "applied" and not [r for r in real["reasons"] if r["code"] == "claim"]
    # the applier's words naming a tree no profile knows settle nothing; ath.git, a sub-tree, does
    unknown = triage("Kalle Valo <kvalo@kernel.org>", "evil.git")
    claims = [r for r in unknown["reasons"] if r["code"] == "claim"]
    assert unknown["status"] != "applied" and "a tree no profile knows" in claims[0]["why"]
    assert triage("Kalle Valo <kvalo@kernel.org>", "ath-next branch of ath.git")["status"] == "applied"


def test_profile_learn_takes_no_applier_from_a_strangers_forged_replies(tmp_path, cli):
    """Issue 32's two forgeries in a list's archive, end to end: mallory's "Patch applied to
    lab-next.git, thanks." and mallory's copy of the kernel.org bot's mail naming "by Evil Two"
    each answer a posting nobody else settled. Neither sender nor the named person is learned as
    an applier, and neither posting counts as applied; the maintainer's own replies still teach."""
    import tomllib
    from datetime import timedelta
    from email.utils import format_datetime

    from listarchive import LIST, START, Archive, Posting, lab_list

    archive = Archive()
    for p in lab_list():
        archive.post(p)
    archive.send_pulls()  # the maintainer's pull requests upstream took: who applies (learn/pulled.py)
    quote = "Jane Developer <jane@example.org> wrote:\n\n> Return the error instead.\n\n"
    forged = {"pwcli": quote + "Patch applied to lab-next.git, thanks.\n\n0123456789ab {summary}\n",
              "bot": "Hello:\n\nThis patch was applied to lab/lab-next.git (main)\nby Evil Two <evil2@evil.example>:\n\n"
                     + quote + "Here is the summary with links:\n  - {summary}\n    https://git.kernel.example/c/0123456789ab\n\n"
                     "You are awesome, thank you!\n-- \nDeet-doot-dot, I am a bot.\n"}
    for i, (kind, body) in enumerate(forged.items()):
        summary = f"lab: drv1: tidy the {kind} path"
        (posted,) = archive.post(Posting(summary, tree=None, when=START + timedelta(days=40 + i)))
        archive._mail({"From": "Mallory <mallory@evil.example>", "Date": format_datetime(START + timedelta(days=41 + i)),
                       "To": "jane@example.org", "Cc": LIST, "Subject": f"Re: [PATCH] {summary}",
                       "In-Reply-To": f"<{posted}>", "References": f"<{posted}>"}, body.format(summary=summary))
    out = tmp_path / "lab.toml"
    res = cli("profile", "learn", str(archive.write(tmp_path / "lab.mbox")), "-o", str(out), "--jobs", "1")
    assert res.code == 0, res.err
    text = out.read_text()
    learned = tomllib.loads(text)
    assert learned["replies"]["appliers"] == ["mae@kernel.example"]
    assert "evil.example" not in text.split("Not counted")[0]
    assert "38 applied postings" in learned["description"]  # lab_list's own, not the two forged
