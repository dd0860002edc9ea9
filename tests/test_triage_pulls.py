"""A maintainer's pull request applies the patches its shortlog lists (triage/pulls.py): the
posting shows `applied` though its own thread is silent. Near misses: a stranger's pull request,
a commit of the same subject by another author, a pull request older than the posting, and the
pull request's own patches."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import Mail, hunk_diff, patch_body, thread, write

from reviewtool.mail.pull_request import parse_pull_request

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
KALLE = "Kalle Valo <kvalo@kernel.org>"  # applies for wireless (the wireless profile's appliers)


def _pull(author: str, subject: str) -> str:
    return ("Hi,\n\nhere's a pull request to wireless-next.\n\n"
            "The following changes since commit 0123456789abcdef0123456789abcdef01234567:\n\n"
            "  Merge branch 'x' (2026-11-01 10:00:00 +0100)\n\n"
            "are available in the Git repository at:\n\n"
            "  git://git.kernel.example/pub/scm/linux/kernel/git/wireless/wireless-next.git tags/wireless-next-2026-11-20\n\n"
            "for you to fetch changes up to 89abcdef0123456789abcdef0123456789abcdef:\n\n"
            "----------------------------------------------------------------\nA few changes.\n\n"
            "----------------------------------------------------------------\n"
            f"{author} (1):\n      {subject}\n\n"
            "Other Person (1):\n      wifi: bar: something else entirely\n\n"
            " drivers/net/wireless/foo/main.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")


def test_the_shortlog_is_read():
    pr = parse_pull_request(_pull("Jane Developer", "wifi: foo: fix the bar flags"))
    assert pr is not None and pr.repo_name == "wireless-next.git" and pr.ref == "tags/wireless-next-2026-11-20"
    assert pr.commits == (("Jane Developer", "wifi: foo: fix the bar flags"),
                          ("Other Person", "wifi: bar: something else entirely"))
    assert parse_pull_request("Please pull my tree, thanks.\n") is None


def _triage(tmp_path, cli, pull_sender=KALLE, author="Jane Developer", subject="wifi: foo: fix the bar flags",
            days=18):
    patch = Mail("[PATCH wireless-next] foo: fix the bar flags",
                 patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                 msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    pull = Mail("pull-request: wireless-next-2026-11-20", _pull(author, subject), sender=pull_sender,
                msgid="pr@example.org", to="netdev@vger.kernel.org", date=T0 + timedelta(days=days))
    text = thread(patch, start=T0) + "\n" + thread(pull, start=T0 + timedelta(days=days), domain="b.example.org")
    res = cli("triage", str(write(tmp_path, text)), "--no-store", "--now", "2026-12-01", "--format", "json")
    assert res.code in (0, 1), res.err
    return next(s for s in res.json["series"] if s["msgid"] == "p@example.org")


def test_a_later_pull_request_of_an_applier_applies_the_posting(tmp_path, cli):
    item = _triage(tmp_path, cli)
    assert item["status"] == "applied", item["reasons"]
    state = item["state"]
    assert (state["form"], state["tree"], state["msgid"]) == ("pull-request", "wireless-next", "pr@example.org")
    assert state["by"] == KALLE  # as the mail says it, not the index's lower case


def test_near_misses_apply_nothing(tmp_path, cli):
    assert _triage(tmp_path, cli, pull_sender="Mallory <mallory@evil.example>")["status"] != "applied"
    assert _triage(tmp_path, cli, author="Someone Else")["status"] != "applied"
    assert _triage(tmp_path, cli, days=-3)["status"] != "applied"  # older than the posting


def test_a_pull_request_made_of_patches_does_not_apply_itself(tmp_path, cli):
    pablo = "Pablo Neira Ayuso <pablo@netfilter.org>"
    cover = Mail("[PATCH net 0/1] Netfilter fixes for net", _pull("Pablo Neira Ayuso", "netfilter: foo: fix the bar flags"),
                 sender=pablo, msgid="c@example.org", to="netdev@vger.kernel.org")
    patch = Mail("[PATCH net 1/1] netfilter: foo: fix the bar flags",
                 patch_body(diff=hunk_diff("net/netfilter/foo.c", ["\treturn 0;"], ["\treturn bar;"]),
                            trailers="Signed-off-by: Pablo Neira Ayuso <pablo@netfilter.org>"),
                 sender=pablo, to="netdev@vger.kernel.org")
    res = cli("triage", str(write(tmp_path, thread(cover, patch, start=T0))), "--no-store", "--now", "2026-12-01",
              "--format", "json")
    (item,) = res.json["series"]
    assert (item.get("state") or {}).get("form") != "pull-request"


def test_the_tree_is_the_tags_before_the_repositorys():
    from reviewtool.triage.pulls import tree_of

    # a driver maintainer's own repository, its tag naming the sub-tree that feeds wireless-next
    assert tree_of("wireless", "tags/mt76-for-kvalo-2026-11-20") == "wireless-next"
    assert tree_of("wireless.git", "tags/wireless-2026-11-20") == "wireless"
    assert tree_of("wireless-next.git", "tags/wireless-next-2026-11-20") == "wireless-next"
    assert tree_of("nf-next.git", "nf-next-26-11-20") == "nf-next"
    assert tree_of("linux.git", "tags/v6.19-rc1") is None  # names no tree a profile knows


PABLO = "Pablo Neira Ayuso <pablo@netfilter.org>"  # applies for netfilter's userspace projects


def _announcement(sender: str, with_shortlog: bool, tag: str = "") -> Mail:
    """A release announcement whose changes (the shortlog) come as a second text part."""
    changes = ("Jane Developer (1):\n      tests: shell: fix the sample ruleset test\n\n"
               "Other Person (1):\n      src: something else entirely\n\n") if with_shortlog else "Many fixes.\n"
    body = ("--b1\nContent-Type: text/plain; charset=utf-8\n\nHi!\n\nThe Netfilter project proudly presents:\n\n"
            "        nftables 1.0.9\n\nSee the attached changes.\n\n"
            "--b1\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: attachment; filename=\"changes.txt\"\n\n"
            f"{changes}--b1--\n")
    return Mail(tag + "[ANNOUNCE] nftables 1.0.9 release", body, sender=sender, msgid="ann@example.org",
                to="netfilter-devel@vger.kernel.org", date=T0 + timedelta(days=20),
                extra_headers={"Content-Type": 'multipart/mixed; boundary="b1"'})


def _release_triage(tmp_path, cli, sender: str, with_shortlog: bool = True, tag: str = "") -> dict:
    patch = Mail("[PATCH nft] tests: shell: fix the sample ruleset test",
                 patch_body(diff=hunk_diff("tests/shell/testcases/sample", ["\treturn 0;"], ["\treturn 1;"])),
                 msgid="p@example.org", to="netfilter-devel@vger.kernel.org")
    ann = _announcement(sender, with_shortlog, tag)
    text = thread(patch, start=T0) + "\n" + thread(ann, start=T0 + timedelta(days=20), domain="b.example.org")
    res = cli("triage", str(write(tmp_path, text)), "--no-store", "--now", "2026-12-01", "--format", "json")
    assert res.code in (0, 1), res.err
    return next(s for s in res.json["series"] if s["msgid"] == "p@example.org")


def test_a_release_announcement_with_its_shortlog_applies_the_posting(tmp_path, cli):
    item = _release_triage(tmp_path, cli, PABLO)
    assert item["status"] == "applied", item["reasons"]
    assert (item["state"]["form"], item["state"]["tree"], item["state"]["msgid"]) == ("release", "nftables",
                                                                                       "ann@example.org")
    # near misses: the same announcement from someone who applies nothing, one without a shortlog
    assert _release_triage(tmp_path, cli, "Mallory <mallory@evil.example>")["status"] != "applied"
    assert _release_triage(tmp_path, cli, PABLO, with_shortlog=False)["status"] != "applied"
    # the copy a Mailman list delivers, its tag first, is the same announcement; a tree tag is no list's
    assert _release_triage(tmp_path, cli, PABLO, tag="[Netfilter-announce] ")["status"] == "applied"
    assert _release_triage(tmp_path, cli, PABLO, tag="[nf-next] ")["status"] != "applied"


def test_a_stored_run_reads_each_pull_request_once(tmp_path, cli, monkeypatch):
    """What a pull request holds is a function of its mail's bytes: with a store, the run after the
    first reads no pull-request mail and shows the same state; a stored reading that does not
    decode is read again (near miss)."""
    import sqlite3

    import reviewtool.triage.pulls as pulls

    patch = Mail("[PATCH wireless-next] foo: fix the bar flags",
                 patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                 msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    pull = Mail("pull-request: wireless-next-2026-11-20", _pull("Jane Developer", "wifi: foo: fix the bar flags"),
                sender=KALLE, msgid="pr@example.org", to="netdev@vger.kernel.org", date=T0 + timedelta(days=18))
    archive = write(tmp_path, thread(patch, start=T0) + "\n" + thread(pull, start=T0 + timedelta(days=18),
                                                                     domain="b.example.org"))
    store = tmp_path / "store.sqlite"
    read = []
    real = pulls._read_one
    monkeypatch.setattr(pulls, "_read_one", lambda h, raw: read.append(h.msgid) or real(h, raw))

    def status():
        res = cli("triage", str(archive), "--store", str(store), "--now", "2026-12-01", "--format", "json")
        assert res.code in (0, 1), res.err
        return next(s for s in res.json["series"] if s["msgid"] == "p@example.org")["status"]

    matched = []
    real_groups = pulls.pulled_groups
    monkeypatch.setattr(pulls, "pulled_groups", lambda *a: matched.append(1) or real_groups(*a))
    assert status() == "applied" and read == ["pr@example.org"] and len(matched) == 1
    # warm: nothing read again, nor matched (the states are kept with the archive's grouping)
    assert status() == "applied" and read == ["pr@example.org"] and len(matched) == 1
    with sqlite3.connect(store) as db:
        db.execute("UPDATE reviews SET tail = x'00' WHERE key LIKE 'pulled:%'")
    assert status() == "applied" and read == ["pr@example.org"] and len(matched) == 2  # matched again, not read
    with sqlite3.connect(store) as db:
        db.execute("UPDATE reviews SET head = 'not json' WHERE key LIKE 'pull:%'")
        db.execute("DELETE FROM reviews WHERE key LIKE 'pulled:%'")
    assert status() == "applied" and read == ["pr@example.org"] * 2


def test_a_summary_finds_the_first_commit_it_ends_a_prefixed_summary_of():
    """The lookup by the summary's tail gives what a scan of the author's commits in order gives:
    the exact summary first, else the first commit whose summary ends with it (a prefix the
    maintainer added), never one that only shares the tail."""
    from reviewtool.triage.pulls import MIN_SUMMARY, Pulled, _AuthorPulls

    def pulled(n: int) -> Pulled:
        return Pulled(f"<p{n}@x>", f"pull {n}", KALLE, float(n), "wireless-next.git", None)

    commits = [("wifi: mt76: fix the bar flags", pulled(1)), ("mt76: fix the bar flags", pulled(2)),
               ("net: mt76: fix the bar flags", pulled(3)), ("unrelated xfix the bar flags", pulled(4)),
               ("short", pulled(5))]
    author = _AuthorPulls()
    for s, p in commits:
        author.add(s, p)

    def scan(summary: str) -> Pulled | None:
        exact = dict(commits).get(summary)
        return exact or next((p for s, p in commits if s.endswith(summary)), None)

    for summary in ("mt76: fix the bar flags", "fix the bar flags", "wifi: mt76: fix the bar flags",
                    "xfix the bar flags", "the bar flags!", "nothing like this at all"):
        assert len(summary) >= MIN_SUMMARY
        assert author.lookup(summary) == scan(summary), summary
    assert author.lookup("fix the bar flags") == pulled(1)  # the first in order, not the shortest
    assert author.lookup("mt76: fix the bar flags") == pulled(2)  # the exact one before any it ends


def test_the_kept_states_are_keyed_by_which_series_not_how_many(tmp_path, cli):
    """A window numbers the series it keeps from 0: two windows of as many series, other ones, on
    the same archive (the same grouping) must not share the states kept for one of them."""
    from reviewtool.triage.pulls_memo import memo_key

    appliers = frozenset({"kvalo@kernel.org"})
    one = memo_key("grouping:x", [(0, "a@x"), (1, "b@x")], appliers)
    assert one == memo_key("grouping:x", [(0, "a@x"), (1, "b@x")], appliers)
    assert one != memo_key("grouping:x", [(0, "c@x"), (1, "d@x")], appliers)
    assert one != memo_key("grouping:y", [(0, "a@x"), (1, "b@x")], appliers)
    assert one != memo_key("grouping:x", [(0, "a@x"), (1, "b@x")], frozenset({"pablo@netfilter.org"}))
    assert memo_key(None, [(0, "a@x")], appliers) is None


def test_two_windows_of_one_series_each_keep_their_own_states(tmp_path, cli):
    """The first window holds the posting a pull request applied, the second another posting; each
    holds one series, numbered 0 in both. The second must not show the first one's state."""
    applied = Mail("[PATCH wireless-next] foo: fix the bar flags",
                   patch_body(diff=hunk_diff("drivers/net/wireless/foo/main.c", ["\treturn 0;"], ["\treturn bar;"])),
                   msgid="p@example.org", to="linux-wireless@vger.kernel.org")
    pull = Mail("pull-request: wireless-next-2026-11-20", _pull("Jane Developer", "wifi: foo: fix the bar flags"),
                sender=KALLE, msgid="pr@example.org", to="netdev@vger.kernel.org", date=T0 + timedelta(days=18))
    other = Mail("[PATCH wireless-next] baz: quiet the probe message",
                 patch_body(diff=hunk_diff("drivers/net/wireless/baz/main.c", ["\tpr_info(x);"], ["\tpr_debug(x);"])),
                 msgid="q@example.org", to="linux-wireless@vger.kernel.org")
    archive = write(tmp_path, thread(applied, start=T0) + "\n"
                    + thread(pull, start=T0 + timedelta(days=18), domain="b.example.org") + "\n"
                    + thread(other, start=T0 + timedelta(days=25), domain="c.example.org"))
    store = tmp_path / "store.sqlite"

    def window(*args):
        res = cli("triage", str(archive), "--store", str(store), "--now", "2026-12-01", "--format", "json", *args)
        assert res.code in (0, 1), res.err
        return [(s["msgid"], s["status"]) for s in res.json["series"]]

    assert window("--until", "2026-11-10") == [("p@example.org", "applied")]
    (msgid, status), = window("--since", "2026-11-25")
    assert msgid == "q@example.org" and status != "applied"
