"""model/b4mailbox.py reads mail into b4 faster than b4 alone, and b4 must not notice: every
LoreMessage, every follow-up, cover and series is what plain add_message gives, and the
patch-ids given to b4 are those b4 would compute itself."""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reviewtool.model.b4mailbox import mailbox, mailboxes
from reviewtool.model.patchid import patch_ids
from reviewtool.sources.b4fetch import init_b4
from reviewtool.sources.files import load_messages

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
THREADS = sorted([*(FIXTURES / "cases").rglob("*.mbox"), *(FIXTURES / "examples").glob("*.mbox"),
                  *(FIXTURES / "replies").rglob("*.mbox")])


def _plain(msgs):
    import b4

    lmbx = b4.LoreMailbox()
    for m in msgs:
        try:
            lmbx.add_message(m)
        except Exception:
            pass
    return lmbx


def _view(lmbx) -> dict:
    """What get_series and the adapter read of a mailbox, as plain values."""
    def msg(m):
        return (m.reply, m.has_diff, m.has_diffstat, m.revision, m.counter, m.expected,
                sorted(t.as_string() for t in m.trailers))

    return {"messages": {k: msg(m) for k, m in sorted(lmbx.msgid_map.items())},
            "followups": [f.msgid for f in lmbx.followups],
            "covers": {r: c.msgid for r, c in lmbx.covers.items()},
            "series": sorted(lmbx.series)}


@pytest.fixture(scope="module", autouse=True)
def _b4():
    init_b4()


def test_there_are_threads_to_compare():
    assert len(THREADS) >= 40


@pytest.mark.parametrize("path", THREADS, ids=lambda p: p.name)
def test_the_mailbox_is_the_one_b4_builds(path):
    msgs = load_messages(path)
    ours, _ = mailbox(copy.deepcopy(msgs))
    assert _view(ours) == _view(_plain(copy.deepcopy(msgs)))


def test_a_reply_keeps_its_trailers_and_a_patch_its_own():
    """Near miss and hit: the scan is skipped for a patch mail (its trailers are not follow-ups),
    never for a reply that quotes a diff and gives a Reviewed-by."""
    import b4

    path = FIXTURES / "examples" / "net-foo-3-patches.mbox"
    lmbx, _ = mailbox(load_messages(path))
    replies = [m for m in lmbx.msgid_map.values() if m.reply and m.trailers]
    assert replies, "the example has a reply with a trailer"
    assert all(not m.trailers for m in lmbx.msgid_map.values() if m.has_diff and not m.reply)
    assert isinstance(b4.LoreMessage.__dict__["find_trailers"], staticmethod)
    quoted = "> diff --git a/f b/f\n> --- a/f\n> +++ b/f\n\nReviewed-by: A <a@b.c>\n"
    assert b4.LoreMessage.find_trailers(quoted, followup=True)[0]  # outside a patch's reading: b4's own


def test_another_thread_reading_a_reply_keeps_its_trailers():
    """The skip is this thread's, while it reads a patch mail: a reply that quotes a diff, read by
    b4 in another thread at that moment, keeps its Reviewed-by."""
    import threading

    import b4

    from reviewtool.model import b4mailbox

    quoted = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\nReviewed-by: A <a@b.c>\n"
    seen = []
    b4mailbox._install_skip(b4)
    b4mailbox._SKIPPING.on = True  # as while this thread reads a patch mail
    try:
        assert b4.LoreMessage.find_trailers(quoted, followup=True) == ([], [])
        t = threading.Thread(target=lambda: seen.append(b4.LoreMessage.find_trailers(quoted, followup=True)))
        t.start()
        t.join()
    finally:
        b4mailbox._SKIPPING.on = False
    assert seen[0][0] and seen[0][0][0].name == "Reviewed-by"


def test_each_revision_reads_a_mailbox_of_its_own():
    path = FIXTURES / "examples" / "net-foo-3-patches.mbox"
    boxes, _ = mailboxes(load_messages(path), 3)
    assert len({id(b) for b in boxes}) == 3
    assert len({id(b.msgid_map) for b in boxes}) == 3
    first = next(iter(boxes[0].msgid_map.values()))
    second = boxes[1].msgid_map[first.msgid]
    assert first is not second and first.msg is second.msg  # the mails are shared, b4's objects are not


def test_patch_ids_are_the_ones_b4_computes():
    import b4

    bodies = []
    for path in THREADS[:30]:
        lmbx = _plain(load_messages(path))
        bodies += [m.body for m in lmbx.msgid_map.values() if m.has_diff and m.body]
    assert len(bodies) >= 30
    ours = patch_ids(bodies)
    assert ours == [b4.LoreMessage.get_patch_id(b) for b in bodies]


@pytest.mark.parametrize("subject", [
    "Re: [PATCH] x", "RE: x", "aw: [PATCH 1/2] y", "Fwd: z", "Fw: [PATCH] w", "AW:[PATCH] v", "Re:x",
    "[PATCH] Re: x", " Re: x", "Ree: [x]", "Sv: [PATCH] nordic", "Re [PATCH]", "=?utf-8?q?Re=3A_x?=",
    "[PATCH v2 0/3] plain", "", "Re:\t\n [PATCH] folded",
])
def test_reply_is_read_as_b4_reads_it(subject):
    import b4

    from reviewtool.model.b4mailbox import _b4_reads_a_reply

    assert _b4_reads_a_reply(b4, subject) == b4.LoreSubject(subject).reply


def _bodies():
    import b4

    for path in THREADS:
        for m in load_messages(path):
            try:
                body, _ = b4.LoreMessage.get_payload(m)
            except Exception:
                continue
            if body:
                yield body


WRAPPED = [
    "Reviewed-by: Long Name\n<long.name@example.org>\n",  # b4 joins the address to its line
    "Fixes: 1234abcd5678 (\"net: a\nsubject on two lines\")\n",
    "Acked-by:  \n<a@b.c>\n", "  Tested-by:\tA <a@b.c>\n", "\rReported-by: A <a@b.c>\r\n",
    "Link: https://example.org/x\n", "Closes: https://example.org/1\n", "Cc: <a@b.c>\n-- \nsig\n",
    "> Reviewed-by: A <a@b.c>\n\nThanks\n", "On Mon, A <a@b.c> wrote:\n> x\n", "Note:\n", "a:b c\n", "",
]


def test_a_body_without_a_trailer_start_is_one_b4_finds_no_trailer_in():
    """The follow-up scan is skipped where no line starts as a trailer: b4's own scan finds none
    there, on every body of the fixtures and on wrapped trailer lines b4 joins."""
    import b4

    from reviewtool.model.b4mailbox import _TRAILER_START_RE

    skipped = kept = 0  # outside _add, find_trailers is b4's own scan
    for body in [*_bodies(), *WRAPPED]:
        if _TRAILER_START_RE.search(body):
            kept += 1
        else:
            skipped += 1
            assert b4.LoreMessage.find_trailers(body, followup=True)[0] == [], body[:200]
    assert skipped > 10 and kept > 100, (skipped, kept)  # both kinds are tried
    for text in WRAPPED[:7]:
        assert b4.LoreMessage.find_trailers(text, followup=True)[0] and _TRAILER_START_RE.search(text), text


def test_generated_bodies_without_a_trailer_start_give_no_trailer():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import b4

    from reviewtool.model.b4mailbox import _TRAILER_START_RE

    piece = st.sampled_from(["Reviewed-by", "Fixes", "Link", "Cc", "a", ":", ": ", " ", "\t", "\n", "\r", "<",
                             ">", "a@b.c", "<a@b.c>", "(", ")", "1234abcd", "https://x.y/", "-- \n", "> ", "#x", "[x]"])

    @settings(max_examples=600, deadline=None, derandomize=True)
    @given(st.lists(piece, max_size=14))
    def check(parts):
        body = "".join(parts)
        if not _TRAILER_START_RE.search(body):
            assert b4.LoreMessage.find_trailers(body, followup=True)[0] == [], repr(body)

    check()


# -- b4fast: every field of every message, and every series read from a copied mailbox ------------

def _trailer_view(t):
    return (t.type, t.name, t.lname, t.value, t.extinfo, t.addr, getattr(t.lmsg, "msgid", None), t.msg)


def _message_view(m) -> dict:
    """Every attribute of a LoreMessage, as plain values (the mail by its bytes)."""
    out = {}
    for k, v in vars(m).items():
        if k == "msg":
            v = v.as_bytes()
        elif k == "lsubject":
            v = vars(v)
        elif k in ("trailers", "followup_trailers"):
            v = [_trailer_view(t) for t in v]
        out[k] = v
    return out


def _lore(msgs):
    import b4

    out = []
    for m in msgs:
        try:
            out.append(b4.LoreMessage(m))
        except Exception as exc:
            out.append(type(exc))
    return out


@pytest.mark.parametrize("path", THREADS, ids=lambda p: p.name)
def test_each_message_is_the_one_b4_makes(path):
    import b4

    from reviewtool.model import b4fast

    msgs = load_messages(path)
    theirs = _lore(copy.deepcopy(msgs))
    ours = []
    for m in copy.deepcopy(msgs):
        try:
            ours.append(b4fast.lore_message(b4, m))
        except Exception as exc:
            ours.append(type(exc))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, type):
            assert a is b
            continue
        va, vb = _message_view(a), _message_view(b)
        if b.date and abs((b.date - datetime.now(timezone.utc)).total_seconds()) < 600:
            va.pop("date"), vb.pop("date")  # b4 took the time it read a mail without a readable date
        assert va == vb


def _series_view(lser):
    if lser is None:
        return None
    return {"vars": {k: v for k, v in vars(lser).items() if k not in ("patches", "trailer_mismatches")},
            "patches": [None if p is None else (p.msgid, p.revision, p.reroll_from_revision,
                                                [_trailer_view(t) for t in p.followup_trailers])
                        for p in lser.patches],
            "mismatches": sorted(lser.trailer_mismatches),
            "class": {k: getattr(lser, k) for k in ("complete", "has_cover", "partial_reroll", "subject")}}


@pytest.mark.parametrize("path", THREADS, ids=lambda p: p.name)
def test_a_copied_mailbox_reads_every_revision_as_a_deep_copy_does(path):
    import b4

    from reviewtool.model import b4fast

    lmbx, _ = mailbox(load_messages(path))
    revisions = sorted(lmbx.series) + [r for r in lmbx.covers if r not in lmbx.series]
    for r in revisions:
        cloned = b4fast.clone_mailbox(b4, lmbx)
        assert cloned is not None
        deep = copy.deepcopy(lmbx)
        assert _series_view(cloned.get_series(revision=r, codereview_trailers=False)) == \
            _series_view(deep.get_series(revision=r, codereview_trailers=False))
        assert [_message_view(m) for m in cloned.msgid_map.values()] == \
            [_message_view(m) for m in deep.msgid_map.values()]
    assert _view(lmbx) == _view(_plain(load_messages(path)))  # the original is untouched
