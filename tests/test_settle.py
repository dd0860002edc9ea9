"""Which patches a maintainer's replies settle, and the posting's state (mail/settle.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from reviewtool.mail.replies import read_reply_text
from reviewtool.mail.settle import Answer, PostingPatch, settle

T0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
PATCHES = [PostingPatch("c@x", 0, "foo: rework"), PostingPatch("p1@x", 1, "foo: one"),
           PostingPatch("p2@x", 2, "foo: two"), PostingPatch("p3@x", 3, "foo: three")]


def answer(body: str, counter: int | None, hours: int = 0) -> Answer:
    a = read_reply_text(sender="Kalle Maintainer <kvalo@kernel.org>", date=T0 + timedelta(hours=hours), body=body)
    assert a is not None
    return Answer(a, counter)


def test_a_reply_to_the_cover_letter_settles_every_patch():
    ps = settle(PATCHES, [answer("Patch applied to wireless-next.git, thanks.\n", 0)])
    assert (ps.state, ps.counters, ps.whole, ps.open) == ("applied", (1, 2, 3), True, ())


def test_commit_lines_name_patches_by_subject_even_with_a_prefix_added():
    ps = settle(PATCHES, [answer("2 patches applied to wireless-next.git, thanks.\n\n"
                                 "0ac4827f78c7 wifi: foo: one\nd7fc76039b74 wifi: foo: three\n", 1)])
    assert (ps.applied, ps.open, ps.whole) == ((1, 3), (2,), False)


def test_counters_are_taken_when_the_total_matches():
    ps = settle(PATCHES, [answer("2 patches set to Changes Requested.\n\n1 [v2,1/3] x\n2 [v2,2/3] y\n", 1)])
    assert (ps.state, ps.counters, ps.open) == ("changes-requested", (1, 2), (3,))


def test_a_patch_sent_back_outweighs_the_applied_ones_and_the_latest_reply_decides():
    applied = answer("Patch applied to wireless-next.git, thanks.\n", 1)
    back = answer("Fails to build.\n\nPatch set to Changes Requested.\n", 3, hours=1)
    ps = settle(PATCHES, [back, applied])
    assert (ps.state, ps.counters, ps.applied) == ("changes-requested", (3,), (1,))
    again = answer("Patch applied to wireless-next.git, thanks.\n", 3, hours=2)
    assert settle(PATCHES, [applied, back, again]).applied == (1, 3)


def test_no_matching_commit_is_not_applied():
    ps = settle(PATCHES, [answer("This series was applied to netdev/net-next.git (main)\n\n"
                                 "Here is the summary with links:\n  - [1/3] foo: one\n    https://g.example/c/1a2b3c4d5e6f\n"
                                 "  - [2/3] foo: two\n    (no matching commit)\n", 0)])
    assert (ps.applied, ps.not_applied, ps.open) == ((1,), (2,), (3,))


def test_a_posting_the_input_lacks_takes_the_latest_reply():
    ps = settle((), [answer("Patch applied to wireless.git, thanks.\n", None)])
    assert (ps.state, ps.total, ps.counters) == ("applied", 0, ())
    assert settle(PATCHES, []) is None
