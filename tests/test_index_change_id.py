"""The index finds a body's change-id line after a cheaper search (`-id:` in any case); it must
answer as the plain lowered search does, on every body."""

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from reviewtool.sources import index

FIXTURES = Path(__file__).parent.parent / "fixtures"


def plain_change_id(body: bytes) -> bytes | None:
    if b"change-id:" not in body.lower():
        return None
    m = index._CHANGE_ID_BODY_RE.search(body)
    return m.group(1) if m else None


# Lines near the form looked for, in every case, with and without the character that must follow.
_PIECES = [b"Change-Id: I1", b"change-id: 2024-x", b"CHANGE-ID:\tabc", b"cHaNgE-iD: q", b"change-Id:x",
           b"change-iD: y", b"x-id: y", b"Message-ID: <a@b>", b"change-id:", b"  change-id: k", b"change-id",
           b"-", b"id:", b"", b"\r", b"text", b"diff --git a/y b/y"]

bodies = st.lists(st.sampled_from(_PIECES) | st.binary(max_size=12), max_size=12).map(
    lambda lines: b"\n".join(lines)) | st.binary(max_size=200)


@settings(max_examples=3000, deadline=None)
@given(bodies)
def test_change_id_answers_as_the_lowered_search(body):
    assert index._change_id(body) == plain_change_id(body)


def test_change_id_on_every_fixture_mail():
    seen = found = 0
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix not in {".mbox", ".eml", ".patch", ""}:
            continue
        for part in re.split(rb"\n\r?\n", path.read_bytes())[:400]:
            assert index._change_id(part) == plain_change_id(part)
            seen += 1
            found += plain_change_id(part) is not None
    assert seen > 1000 and found > 0


_MAIL = (b"From: A <a@example.org>\nMessage-ID: <%s@example.org>\nSubject: %s\n"
         b"Date: Mon, 1 Jan 2024 00:00:00 +0000\n\n"
         b"change-id: 20240101-x\n\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n")


def test_a_patch_head_describes_its_body_and_a_reply_head_does_not():
    """Grouping keys patches by their change-id and diff, never replies (conversation/threads.py),
    so a reply's body is not read: its head says nothing of it, even when it carries a diff."""
    patch = index.single_head("x", _MAIL % (b"p", b"[PATCH] f: b"), 0, "x")
    reply = index.single_head("x", _MAIL % (b"r", b"Re: [PATCH] f: b"), 0, "x")
    assert (patch.change_id, patch.paths, patch.has_diff, bool(patch.sketch)) == ("20240101-x", ("f.c",), True, True)
    assert (reply.change_id, reply.paths, reply.has_diff, reply.sketch) == (None, (), False, b"")
