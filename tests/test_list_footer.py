"""What a mailing list adds below a body (mailman's footer) is not the sender's text: not part of a
cover letter, a commit message, a diff, nor of a reply's reason. Near misses keep their text."""

from __future__ import annotations

import email
import email.policy

from mailfactory import Mail, cover_body, patch_body, series_mails, thread

from reviewtool.mail.footer import strip_list_footer
from reviewtool.mail.replies import read_reply_text
from reviewtool.model.b4adapter import build_series

MAILMAN2 = ("_______________________________________________\nLab-devel mailing list\nLab-devel@lists.example.org\n"
            "https://lists.example.org/mailman/listinfo/lab-devel\n")
MAILMAN3 = ("_______________________________________________\nlab-devel mailing list -- lab-devel@lists.example.org\n"
            "To unsubscribe send an email to lab-devel-leave@lists.example.org\n")


def test_the_footer_is_cut_whichever_mailman_wrote_it():
    for footer in (MAILMAN2, MAILMAN3):
        assert strip_list_footer("Looks good.\n\n-- \n2.43.0\n\n" + footer + "\n") == "Looks good.\n\n-- \n2.43.0\n"


def test_near_misses_keep_their_underscores():
    # the sender's own rule with their text below it: no footer ends the body
    table = "name    value\n" + "_" * 30 + "\nfoo     1\nbar     2\n"
    assert strip_list_footer(table) == table
    # a footer-like block with the sender's text after it is not at the end
    middle = "Hi,\n\n" + MAILMAN2 + "\nAnd one more thing: please respin.\n"
    assert strip_list_footer(middle) == middle
    # a rule and a signature that name no list
    sig = "Thanks.\n" + "_" * 40 + "\nJane Developer\nExample Corp\n"
    assert strip_list_footer(sig) == sig


def _series(mails):
    msgs = [email.message_from_string(part, policy=email.policy.default)
            for part in thread(*mails).split("From mboxrd@z Thu Jan  1 00:00:00 1970\n") if part.strip()]
    return build_series(msgs, source="t")


def test_a_cover_letter_and_a_patch_without_signature_lose_the_footer():
    mails = series_mails(2, tree="net")
    mails[0].body = cover_body() + "\n" + MAILMAN2
    unsigned = patch_body().replace("-- \n2.43.0\n", "")
    mails[1].body = unsigned + "\n" + MAILMAN2
    mails.append(Mail("Re: [PATCH net 1/2] foo: fix thing number 1",
                      "> Pass the flags.\n\nReviewed-by: Rev Iewer <rev@example.org>\n\n" + MAILMAN3))
    s = _series(mails)
    assert "mailing list" not in s.cover.notes + s.cover.message
    p1 = s.patches[0]
    assert "mailing list" not in p1.diff.text and "mailing list" not in p1.notes
    assert "_____" not in p1.diff.text
    reply = [r for r in s.replies if "Reviewed-by" in r.body][0]
    assert "mailing list" not in reply.body and "unsubscribe" not in reply.text.lower()
    assert [t.value for t in reply.trailers] == ["Rev Iewer <rev@example.org>"]


def test_a_replys_reason_is_not_the_footer():
    body = "Jane wrote:\n> the patch\n\nNACK\n\n" + MAILMAN2
    a = read_reply_text(sender="Mae <mae@kernel.example>", date=None, body=body)
    assert a.state == "nak" and a.reason is None
    # near miss: the reason the maintainer wrote below the form is kept, the footer after it is not
    b = read_reply_text(sender="Mae <mae@kernel.example>", date=None,
                        body="> the patch\n\nNACK\n\nThe lock is taken twice.\n\n" + MAILMAN2)
    assert b.reason == "The lock is taken twice."
