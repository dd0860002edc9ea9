"""Posting rules: new-version-in-reply, repost-too-soon, cover-letter-merge-text."""

from datetime import datetime, timedelta, timezone

from conftest import CORPUS
from mailfactory import Mail, cover_body, patch_body, series_mails, thread, write

POSTING = ("--select", "posting")
NETFILTER = CORPUS / "netfilter-devel"


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def test_new_version_in_reply_to_the_old_cover(check_json):
    pw = CORPUS / "patchwork/series"
    res = check_json(pw / "revision-threaded-to-cover.mbox", "--profile", "netdev", *POSTING)
    (hit,) = hits(res, "new-version-in-reply")
    assert hit["patch"] == 0 and hit["message"] == "v2 was posted in reply to an earlier thread, not as a new thread"
    assert "which is v1: [PATCH 0/2] A sample series" in hit["evidence"]
    assert "as a new thread, without --in-reply-to" in hit["advice"]
    single = check_json(pw / "revision-threaded-to-single-patch.mbox", "--profile", "netdev", *POSTING)
    assert hits(single, "new-version-in-reply")[0]["patch"] == 1
    # v2 in its own thread is fine; the generic profile does not ask for new threads.
    assert not hits(check_json(pw / "revision-basic.mbox", "--profile", "netdev", *POSTING), "new-version-in-reply")
    assert not hits(check_json(pw / "revision-threaded-to-cover.mbox", *POSTING), "new-version-in-reply")


def test_new_version_in_reply_hand_built(tmp_path, check_json):
    v1 = series_mails(2, tree="net-next", cover=True)
    v1[0].msgid = "v1-cover@example.org"
    v2 = series_mails(2, tree="net-next", version=2, cover=True)
    v2[0].in_reply_to = "v1-cover@example.org"
    start = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    text = thread(*v1, start=start) + "\n" + thread(*v2, start=start + timedelta(days=3), domain="example.com")
    res = check_json(write(tmp_path, text), *POSTING)
    assert res.json["series"]["revision"] == 2
    (hit,) = hits(res, "new-version-in-reply")
    assert "In-Reply-To: <v1-cover@example.org>" in hit["evidence"]
    assert not hits(res, "repost-too-soon")  # three days apart


def test_repost_within_a_day_real_threads(tmp_path, check_json):
    # nf-next ipvs clean-ups: v1 Mon 11:42, v2 Tue 09:10 (+02:00): 21.5 h apart.
    both = write(tmp_path, (NETFILTER / "nf-next-ipvs-cleanups-v1.mbox").read_text()
                 + (NETFILTER / "nf-next-ipvs-cleanups-v2.mbox").read_text(), "v1v2.mbox")
    res = check_json(both, *POSTING)
    assert res.json["series"]["revision"] == 2 and res.json["series"]["earlier_revisions"] == [1]
    (hit,) = hits(res, "repost-too-soon")
    assert hit["message"] == "v2 came 21.5 h after v1; netfilter asks for at least 24 h between versions"
    assert hit["evidence"][0].startswith("v1: 2023-04-10T11:42:34+02:00")
    # v3 came six days after v2.
    later = write(tmp_path, (NETFILTER / "nf-next-ipvs-cleanups-v2.mbox").read_text()
                  + (NETFILTER / "nf-next-ipvs-cleanups-v3.mbox").read_text(), "v2v3.mbox")
    assert not hits(check_json(later, *POSTING), "repost-too-soon")
    # Alone, a revision has nothing to be compared with.
    assert not hits(check_json(NETFILTER / "nf-next-ipvs-cleanups-v2.mbox", *POSTING), "repost-too-soon")


def test_repost_delay_is_profile_data(tmp_path, check_json):
    start = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

    def posting(tree, hours):
        v1 = thread(*series_mails(2, tree=tree), start=start)
        v2 = thread(*series_mails(2, tree=tree, version=2), start=start + timedelta(hours=hours), domain="example.com")
        return write(tmp_path, v1 + "\n" + v2, f"{tree}-{hours}.mbox")

    assert hits(check_json(posting("net-next", 5), *POSTING), "repost-too-soon")
    assert not hits(check_json(posting("net-next", 30), *POSTING), "repost-too-soon")
    assert not hits(check_json(posting("wireless-next", 5), *POSTING), "repost-too-soon")  # off for wireless


MERGE_NOTE = """\
This series makes foo's ring size tunable and reworks the refill path.

Not for the merge commit: I am unsure about the locking in patch 2,
comments welcome.
"""

BENCHMARK = """\
This series speeds up the foo XDP path.

Benchmark (pktgen, 64 byte frames, one queue):
  before:  9.1 Mpps
  after:  11.8 Mpps
  after, with busy polling: 12.4 Mpps
"""

REPRODUCER = """\
This series fixes two crashes in foo's teardown.

Reproducer:
  # ip link add foo0 type foo
  # ip link set foo0 up
  # ip link del foo0
"""


def _covered(tmp_path, text: str, tree: str = "net-next", name: str = "c.mbox"):
    mails = series_mails(2, tree=tree)
    mails[0] = Mail(f"[PATCH {tree} 0/2] foo: ring size", cover_body(text))
    return write(tmp_path, thread(*mails), name)


def test_cover_letter_marked_not_for_merge(tmp_path, check_json):
    res = check_json(_covered(tmp_path, MERGE_NOTE), *POSTING)
    (hit,) = hits(res, "cover-letter-merge-text")
    assert hit["severity"] == "warning" and hit["patch"] == 0
    assert hit["evidence"] == ["Not for the merge commit: I am unsure about the locking in patch 2,"]


def test_cover_letter_benchmark_and_reproducer_blocks(tmp_path, check_json):
    bench = hits(check_json(_covered(tmp_path, BENCHMARK), *POSTING), "cover-letter-merge-text")
    assert [h["severity"] for h in bench] == ["info"] and "benchmark output (3 lines" in bench[0]["message"]
    repro = hits(check_json(_covered(tmp_path, REPRODUCER, name="r.mbox"), *POSTING), "cover-letter-merge-text")
    assert [h["severity"] for h in repro] == ["info"] and "# ip link add foo0 type foo" in repro[0]["evidence"]


def test_cover_letter_rules_follow_the_profile(tmp_path, check_json):
    # netfilter applies nf patches one by one: its cover letters are not merge messages.
    assert not hits(check_json(_covered(tmp_path, MERGE_NOTE, tree="nf-next", name="nf.mbox"), *POSTING),
                    "cover-letter-merge-text")
    # An ordinary cover letter, and the real ones in the corpus, say nothing.
    assert not hits(check_json(_covered(tmp_path, "This series fixes two things in foo.", name="ok.mbox"),
                               *POSTING), "cover-letter-merge-text")
    for name in ("net-next-updates-00-10-large.mbox", "net-fixes-0-5-tested-closes-link.mbox"):
        assert not hits(check_json(NETFILTER / name, *POSTING), "cover-letter-merge-text")


def test_new_version_in_reply_to_a_review_mail(tmp_path, check_json):
    # v2 answers the maintainer's review of v1, not v1 itself (a single patch, as in real postings).
    start = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    v1 = Mail("[PATCH net] net: foo: fix the length check", patch_body(), msgid="v1@example.org")
    review = Mail("Re: [PATCH net] net: foo: fix the length check", "> the patch\n\nPlease name the tree.\n",
                  sender="Jakub Maintainer <kuba@example.org>", msgid="review@kernel.org", in_reply_to="v1@example.org")
    v2 = Mail("[PATCH net v2] net: foo: fix the length check", patch_body(), msgid="v2@example.org",
              in_reply_to="review@kernel.org", date=start + timedelta(days=4))
    res = check_json(write(tmp_path, thread(v1, review, v2, start=start, thread_to_first=False)), *POSTING)
    assert res.json["series"]["revision"] == 2
    (hit,) = hits(res, "new-version-in-reply")
    assert "In-Reply-To: <review@kernel.org>" in hit["evidence"] and hit["patch"] == 1
