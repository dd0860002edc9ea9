"""b4fast.followup_trailers is b4 0.16's follow-up trailer scan (LoreMessage.find_trailers with
followup=True) with its patterns compiled once: the same trailers, field by field, and the same
other lines, on every body of the fixtures and the corpus, on odd hand-made ones and on
generated ones."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS
from reviewtool.model import b4fast
from reviewtool.sources.b4fetch import init_b4
from reviewtool.sources.files import load_messages
from test_b4mailbox import WRAPPED, _bodies


@pytest.fixture(scope="module", autouse=True)
def _b4():
    init_b4()


def _view(found):
    trailers, others = found
    return [(t.type, t.name, t.lname, t.value, t.extinfo, t.addr, t.lmsg, t.msg) for t in trailers], others


def _unwrapped(b4):
    """b4's own scan, even with model/b4mailbox's wrapper installed (outside _add the wrapper
    calls it unchanged)."""
    return b4.LoreMessage.find_trailers


def _same(body):
    import b4

    assert _view(b4fast.followup_trailers(b4, body)) == _view(_unwrapped(b4)(body, followup=True)), repr(body[:300])


ODD = [
    "Reviewed-by: A <a@b.c>\n[for the foo bits]\n", "Acked-by: A <a@b.c>\nPhone: 1234\n[ext]\n",
    "Thanks\nFrom: A <a@b.c>\nReviewed-by: A <a@b.c>\n", "From: A <a@b.c>\nSubject: x\n",
    "Tested-by: A <a@b.c> # on x86\n", "Link: https://lore.kernel.org/r/1\nCc: https://x.y <a@b.c>\n",
    "Fixes: zzzz (\"x\")\nFixes: 1234abcd (\"net: a\nb\")\n", "Réviewed-by: A <a@b.c>\n",
    "Reviewed-by: A <mailto:a@b.c> <a@b.c>\n", "Signed-off-by: Long Name\n<long@example.org>\n",
    "Reviewed-by: A <a@b.c>\r\n\r\n-- \nReviewed-by: B <b@c.d>\n", "   \n\n", "x:y\n", "a: b:\n",
    "Reviewed-by:\tA <a@b.c>\x0c\n", "Reviewed-by: A <a@b.c>\n[]\n[x]y\n", "Reviewed-by: A <a@b.c>\n[x]\n[y]\n",
    "Base-Commit: abc\nChange-Id: I123\nObsoleted-by: <1@2>\n", "E-Mail: a@b.c\nBuglink: https://b/1\n",
    "> Reviewed-by: A <a@b.c>\nReviewed-by: B <b@c.d> # #x\n", "Reviewed-by: A <a@b.c>\u2028Acked-by: B <b@c.d>\n",
]


@pytest.mark.parametrize("body", ODD + WRAPPED)
def test_odd_bodies(body):
    _same(body)


def test_every_fixture_and_corpus_body():
    import b4

    count = found = 0
    bodies = list(_bodies())
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            msgs = load_messages(path)
        except Exception:
            continue
        for m in msgs:
            try:
                body, _ = b4.LoreMessage.get_payload(m)
            except Exception:
                continue
            bodies.append(body)
    for body in bodies:
        _same(body)
        count += 1
        found += bool(b4fast.followup_trailers(b4, body)[0])
    assert count > 500 and found > 50, (count, found)


PIECE = st.sampled_from(["Reviewed-by", "Fixes", "Link", "Cc", "From", "Subject", "Phone", "a", ":", ": ", " ",
                         "\t", "\n", "\r", "<", ">", "a@b.c", "<a@b.c>", "(", ")", "1234abcd", "https://x.y/",
                         "-- \n", "> ", "#x", " #", "[x]", "[", "]", "é", "\x0c"])


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.lists(PIECE, max_size=16))
def test_generated_bodies(parts):
    _same("".join(parts))


EXTINFO_RE = re.compile(r"(.*\S+)(\s+#[^#]+)$")  # b4's patterns, here only: they are not linear
PERSON_RE = re.compile(r"\S+@\S+\.\S+")
BLANKS = ["\t", "\xa0", "\u2028", "\x0c", "\x1c", "\r", "\x85", " "]


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(["#", "a", "é", "<", "@", *BLANKS]), max_size=14))
def test_hashtag_split_is_b4s_pattern(value):
    found = EXTINFO_RE.search(value)
    assert b4fast._hashtag_split(value) == (found.groups() if found else None)


@pytest.mark.parametrize("value", ["A <a@b.c> # v1", "A <a@b.c>#x", "A <a@b.c> #", "# x", " # x", "a # b # c",
                                   "a #b#", "a\t \u2028#  ", "a  ##x", "x" * 300 + " # y"])
def test_hashtag_split_odd_values(value):
    found = EXTINFO_RE.search(value)
    assert b4fast._hashtag_split(value) == (found.groups() if found else None)


DIFF = "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n"
MAILS = [  # (subject, with References, body): b4fast.lore_message must keep exactly b4's trailers
    ("Re: [PATCH] wifi: x", True, "Like this?\n\n" + DIFF + "\nReviewed-by: A <a@b.c>\n"),
    ("Re: [PATCH] wifi: x", True, "Reviewed-by: A <a@b.c>\n"),
    ("[PATCH] wifi: x", True, "Fix it.\n\nSigned-off-by: A <a@b.c>\n---\n" + DIFF),
    ("[PATCH] wifi: x", True, "Reviewed-by: A <a@b.c>\n"),  # no diff, a trailer: b4 takes it for a reply
    ("[PATCH] wifi: x", False, "Reviewed-by: A <a@b.c>\n"),
    ("Aw: [PATCH v2 1/2] y", True, DIFF + "Acked-by: B <b@c.d>\n"),
]


@pytest.mark.parametrize("subject,refs,body", MAILS)
def test_messages_with_and_without_diffs_keep_b4s_trailers(subject, refs, body):
    import email
    import email.policy

    import b4

    from test_b4mailbox import _message_view

    head = f"Message-ID: <2@x>\nSubject: {subject}\nFrom: A <a@b.c>\nDate: Tue, 5 Jul 2022 10:00:00 +0200\n"
    head += "In-Reply-To: <1@x>\nReferences: <1@x>\n" if refs else ""
    msg = email.message_from_string(head + "\n" + body, policy=email.policy.default)
    ours, theirs = b4fast.lore_message(b4, msg), b4.LoreMessage(msg)
    assert _message_view(ours) == _message_view(theirs)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(["@", ".", "a", "é", "<", ">", *BLANKS]), max_size=12))
def test_names_an_address_is_b4s_pattern(value):
    assert b4fast._names_an_address(value) == bool(PERSON_RE.search(value))


@pytest.mark.parametrize("value", ["A <a@b.c>", "a@b.c", "@b.c", "a@.c", "a@b.", "a@b.c.", "a @b.c", "a@ b.c",
                                   "x a@@b.c", "@@b.c", "a@b@c.d", "a@bc", "<a@b.cd>", "a@b..", "a@b.c\u2028x"])
def test_names_an_address_odd_values(value):
    assert b4fast._names_an_address(value) == bool(PERSON_RE.search(value))
