"""check links the postings of one series as triage does (conversation/revisions.py): a reworded
v2, the author under another display name and a repost without a version bump are one series;
two different patches by one author under near-identical subjects are two."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mailfactory import Mail, cover_body, hunk_diff, patch_body, series_mails, thread, write

START = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
LINES = [f"\tfoo_reg_write(priv, FOO_REG_{i}, val & 0x{i:02x});" for i in range(8)]


def _posting(subject: str, added: list[str], *, hours: float, sender: str = "Jane Developer <jane@example.org>",
             path: str = "drivers/net/ethernet/foo/foo_main.c", tag: str = "a", notes: str = "") -> str:
    body = patch_body(diff=hunk_diff(path, ["\treturn 0;"], added), notes=notes)
    return thread(Mail(subject, body, sender=sender), start=START + timedelta(hours=hours), domain=f"{tag}.example.org")


def _other_series(res) -> list[str]:
    return [n for n in res.json["summary"].get("notes", []) if "other series" in n]


def test_reworded_v2_from_another_display_name_is_a_revision(tmp_path, check_json):
    v1 = _posting("[PATCH net] foo: fix the register writes", LINES, hours=0)
    v2 = _posting("[PATCH net v2] foo: write every register before enabling the port",
                  LINES[:-1] + ["\tfoo_reg_write(priv, FOO_REG_7, val & 0xff);"], hours=30,
                  sender='"Developer, Jane" <jane@example.org>', tag="b", notes="v2: mask the last write")
    res = check_json(write(tmp_path, v1 + "\n" + v2))
    assert res.json["series"]["revision"] == 2 and res.json["series"]["earlier_revisions"] == [1]
    assert not _other_series(res)


def test_repost_without_bump_under_another_display_name_is_not_bumped(tmp_path, check_json):
    first = _posting("[PATCH net] foo: fix the register writes", LINES, hours=0)
    again = _posting("[PATCH net] foo: fix the register writes", LINES[:-1] + ["\tfoo_reg_write(priv, 7, 0);"],
                     hours=2, sender="jane@example.org", tag="b")
    res = check_json(write(tmp_path, first + "\n" + again))
    assert "version-not-bumped" in res.rules() and not _other_series(res)


def test_two_patches_naming_two_functions_stay_two_series(tmp_path, check_json):
    """The near miss: one author, one file, subjects one word apart, other hunks: two changes."""
    reg = _posting("[PATCH net] foo: fix incorrect error codes in foo_debugfs_set_write_reg()",
                   [f"\treturn -EINVAL; /* reg {i} */" for i in range(6)], hours=0)
    rfreg = _posting("[PATCH net] foo: fix incorrect error codes in foo_debugfs_set_write_rfreg()",
                     [f"\tif (rf_{i} < 0)\n+\t\treturn -EFAULT;" for i in range(6)], hours=1, tag="b")
    res = check_json(write(tmp_path, reg + "\n" + rfreg))
    assert res.json["series"]["earlier_revisions"] == [] and "version-not-bumped" not in res.rules()
    assert len(_other_series(res)) == 1


def test_a_reworded_higher_revision_naming_the_same_function_is_the_series(tmp_path, check_json):
    """A lone patch reworked after review under a new summary ("fix resource leak in X()", then
    "[PATCH v2] fix return value in X()"), its lines mostly new: the same function and files make it
    v2. The near miss: a v2 naming another function on the same file is another patch."""
    v1 = _posting("[PATCH net] foo: fix resource leak in foo_pci_init()",
                  [f"\tfoo_free_irq(priv, {i});" for i in range(6)], hours=0)
    v2 = _posting("[PATCH net v2] foo: fix return value in foo_pci_init()",
                  [f"\tret = foo_probe_{i}(priv);\n+\tif (ret)\n+\t\treturn ret;" for i in range(6)], hours=30, tag="b")
    res = check_json(write(tmp_path, v1 + "\n" + v2))
    assert res.json["series"]["revision"] == 2 and res.json["series"]["earlier_revisions"] == [1]
    other = _posting("[PATCH net v2] foo: fix return value in foo_pci_exit()",
                     [f"\tret = foo_remove_{i}(priv);\n+\tif (ret)\n+\t\treturn ret;" for i in range(6)], hours=30, tag="b")
    res = check_json(write(tmp_path, v1 + "\n" + other))
    assert res.json["series"]["earlier_revisions"] == [] and len(_other_series(res)) == 1


def _triage(cli, path):
    res = cli("triage", str(path), "--no-store", "--now", "2026-12-01", "--format", "json")
    assert res.code in (0, 1), res.err
    return res.json


def _series(version: int, day: int, tag: str, subjects: dict[int, str], n: int) -> str:
    from mailfactory import series_mails

    mails = series_mails(n, tree="iwl-next", version=version, subjects=subjects,
                         bodies={i: patch_body(diff=hunk_diff(f"drivers/net/ethernet/intel/ice/f{i}.c", ["\treturn 0;"],
                                                              [f"\treturn ice_{i}({version});"])) for i in range(1, n + 1)})
    return thread(*mails, start=START + timedelta(days=day), domain=f"{tag}.example.org")


SUBJECTS = {1: "ice: fix the reset path", 2: "ice: restore the timestamp config"}


def test_numbering_that_starts_again_makes_the_newest_posting_current(tmp_path, cli):
    """An internal v4, then "resend it as v1" and a v2: the v2 is triaged, the v4 is superseded."""
    text = "\n".join([_series(4, 0, "a", SUBJECTS, 2), _series(1, 10, "b", SUBJECTS, 2), _series(2, 20, "c", SUBJECTS, 2)])
    report = _triage(cli, write(tmp_path, text))
    (current,) = [s for s in report["series"] if s["status"] != "superseded"]
    assert current["revision"] == 2 and sorted(x["revision"] for x in current["superseded"]) == [1, 4]


def test_a_patch_split_out_later_is_no_restart(tmp_path, cli):
    """The near miss: v3 of two patches, then one of them alone as [PATCH]: v3 stays current."""
    text = "\n".join([_series(3, 0, "a", SUBJECTS, 2), _series(1, 10, "b", {1: SUBJECTS[1]}, 1)])
    report = _triage(cli, write(tmp_path, text))
    revisions = sorted(s["revision"] for s in report["series"] if s["status"] != "superseded")
    assert 3 in revisions


def _reply(subject: str, body: str, to: str, msgid: str, hours: float, sender: str = "Rita Reviewer <rita@example.org>"):
    return Mail(subject, body, sender=sender, in_reply_to=to, msgid=msgid, date=START + timedelta(hours=hours))


def test_a_patch_posted_in_reply_to_a_review_is_a_series_of_its_own(tmp_path, cli):
    """"I'll post a patch to convert that": a new patch inside the thread of a numbered series is
    its own series, with the replies under it; the series keeps its own replies."""
    mails = series_mails(2, tree="net-next")
    mails[0].msgid, mails[1].msgid, mails[2].msgid = "c@example.org", "p1@example.org", "p2@example.org"
    review = _reply("Re: [PATCH net-next 1/2] foo: fix thing number 1", "This reverts half of an older fix.\n",
                    "p1@example.org", "r1@example.org", 1)
    answer = _reply("Re: [PATCH net-next 1/2] foo: fix thing number 1", "I'll post a patch to convert the rest.\n",
                    "r1@example.org", "r2@example.org", 2, sender="Jane Developer <jane@example.org>")
    other = Mail("[PATCH net-next] foo: convert the last users of the old flags",
                 patch_body(diff=hunk_diff("drivers/net/foo/flags.c", ["\treturn 0;"], ["\treturn FOO_F;"])),
                 in_reply_to="r2@example.org", msgid="x@example.org", date=START + timedelta(hours=3))
    applied = _reply("Re: [PATCH net-next] foo: convert the last users of the old flags", "Patch applied, thanks!\n",
                     "x@example.org", "a@example.org", 4, sender="Jakub Kicinski <kuba@kernel.org>")
    report = _triage(cli, write(tmp_path, thread(*mails, review, answer, other, applied, start=START)))
    by_id = {s["msgid"]: s for s in report["series"]}
    assert by_id["x@example.org"]["status"] == "applied"
    assert by_id["c@example.org"]["status"] != "applied" and by_id["c@example.org"]["received"] == [1, 2]


def test_a_v2_sent_in_reply_to_the_review_stays_the_series(tmp_path, cli):
    """The near miss: a higher revision posted into the thread is that series' next posting."""
    v1 = Mail("[PATCH net] foo: fix the register writes", patch_body(), msgid="v1@example.org")
    review = _reply("Re: [PATCH net] foo: fix the register writes", "Please split it.\n", "v1@example.org",
                    "r@example.org", 1)
    v2 = Mail("[PATCH net v2] foo: write the registers in order", patch_body(), in_reply_to="r@example.org",
              msgid="v2@example.org", date=START + timedelta(hours=30))
    report = _triage(cli, write(tmp_path, thread(v1, review, v2, start=START)))
    (current,) = [s for s in report["series"] if s["status"] != "superseded"]
    assert current["msgid"] == "v2@example.org" and [x["revision"] for x in current["superseded"]] == [1]


def test_a_cover_letter_subject_reused_for_another_patch_is_another_series(tmp_path, cli):
    """One author sends two different patches under one cover letter subject, the first reaching
    v3 in its own thread: the second is no revision of it (and, the near miss, an internal v4
    resent as v1 with the same patches is: test_numbering_that_starts_again_...)."""
    def posting(patch_subject: str, path: str, tag: str) -> list[Mail]:
        diff = hunk_diff(path, ["\treturn 0;"], [f"\treturn {tag}_1();"])
        return [Mail("[PATCH libfoo 0/1] libbar dependency elimination", cover_body()),
                Mail(f"[PATCH libfoo 1/1] {patch_subject}", patch_body(diff=diff))]
    first = posting("src: add foo_put2()", "src/nlmsg.c", "a")
    v2 = Mail("[PATCH libfoo v2 1/1] src: add foo_put2() with flags",
              patch_body(diff=hunk_diff("src/nlmsg.c", ["\treturn 0;"], ["\treturn a_2();"])),
              in_reply_to="20261102100000.1001-1-jane@a.example.org", msgid="a2@example.org",
              date=START + timedelta(days=3))
    second = posting("convert foo_open() to libmnl", "src/libfoo.c", "b")
    text = (thread(*first, v2, start=START, domain="a.example.org") + "\n"
            + thread(*second, start=START + timedelta(days=5), domain="b.example.org"))
    report = _triage(cli, write(tmp_path, text))
    current = sorted(s["subject"] for s in report["series"] if s["status"] != "superseded")
    assert len(current) == 2, current


def test_a_revision_that_adds_or_drops_the_subsystem_prefix_is_the_series(tmp_path, cli):
    """v1 "foo: fix the register writes", v2 "net: foo: fix the register writes" (the prefix the
    maintainer asked for): one series. The near miss: the same fix to two drivers,
    "foo: fix x" and "bar: fix x", both prefixed, stays two."""
    v1 = _posting("[PATCH net] foo: fix the register writes", LINES, hours=0)
    # v2 also touches the header: another set of files, so only the subject can link it
    diff = (hunk_diff("drivers/net/ethernet/foo/foo_main.c", ["\treturn 0;"], LINES)
            + hunk_diff("drivers/net/ethernet/foo/foo.h", ["#define FOO 1"], ["#define FOO 2"]))
    v2 = thread(Mail("[PATCH net v2] net: foo: fix the register writes", patch_body(diff=diff)),
                start=START + timedelta(hours=30), domain="b.example.org")
    report = _triage(cli, write(tmp_path, v1 + "\n" + v2))
    (current,) = [s for s in report["series"] if s["status"] != "superseded"]
    assert current["revision"] == 2 and [x["revision"] for x in current["superseded"]] == [1]
    foo = _posting("[PATCH net] foo: fix the register writes", LINES, hours=0)
    bar = _posting("[PATCH net v2] bar: fix the register writes", LINES, hours=30, tag="b",
                   path="drivers/net/ethernet/bar/bar_main.c")
    report = _triage(cli, write(tmp_path, foo + "\n" + bar, "two.mbox"))
    assert len([s for s in report["series"] if s["status"] != "superseded"]) == 2


def _replacement_case(tmp_path, cli, *, sender: str, files: tuple[str, ...], name: str) -> dict:
    """A lone patch, a maintainer's request for another way, and a patch posted under that request
    (by `sender`, changing `files`; two files: a 2-patch series)."""
    old = Mail("[PATCH iwl-net] igb: deallocate the workqueues unconditionally",
               patch_body(diff=hunk_diff("drivers/net/ethernet/intel/igb/igb_main.c", ["\treturn 0;"],
                                         ["\tdestroy_workqueue(wq);"])), msgid="old@example.org")
    ask = _reply("Re: [PATCH iwl-net] igb: deallocate the workqueues unconditionally",
                 "A better fix would be not to have the workqueues at all.\n", "old@example.org", "ask@example.org", 1,
                 sender="Tony Nguyen <anthony.l.nguyen@intel.com>")
    n = len(files)
    new = [Mail(f"[PATCH iwl-net{f' {i}/{n}' if n > 1 else ''}] igb: avoid starting the workqueues, part {i}",
                patch_body(diff=hunk_diff(path, ["\treturn 0;"], ["\tif (!wq_needed)\n\t\treturn 0;"])),
                sender=sender, in_reply_to="ask@example.org" if i == 1 else "new1@example.org",
                msgid=f"new{i}@example.org", date=START + timedelta(hours=30 + i))
           for i, path in enumerate(files, 1)]
    report = _triage(cli, write(tmp_path, thread(old, ask, *new, start=START), name))
    ids = [s["msgid"] for s in report["series"]]
    assert len(ids) == len(set(ids)), ids  # the review is of the posting the linker chose
    return {s["msgid"]: s for s in report["series"]}


def test_the_authors_other_way_posted_under_the_request_replaces_the_patch(tmp_path, cli):
    igb = "drivers/net/ethernet/intel/igb/igb_main.c"
    by_id = _replacement_case(tmp_path, cli, sender="Jane Developer <jane@example.org>", files=(igb,), name="a.mbox")
    assert by_id["old@example.org"]["status"] == "superseded"
    assert by_id["old@example.org"]["superseded_by"]["msgid"] == "new1@example.org"
    # near misses: someone else's patch there, the author's patch on other files, the author's
    # series that builds on it: each a posting of its own, the old patch still waiting
    for i, (sender, files) in enumerate((("Sam Other <sam@example.org>", (igb,)),
                                         ("Jane Developer <jane@example.org>", ("drivers/net/ethernet/intel/igb/igb_ptp.c",)),
                                         ("Jane Developer <jane@example.org>", (igb, "drivers/net/ethernet/intel/igb/igb.h")))):
        by_id = _replacement_case(tmp_path, cli, sender=sender, files=files, name=f"miss{i}.mbox")
        assert by_id["old@example.org"]["status"] != "superseded", (sender, files)
        assert "new1@example.org" in by_id


def test_an_applied_revision_shows_applied_when_a_later_one_carries_the_rest(tmp_path, cli):
    """Patch 1 of v1 applied, v2 resends patch 2: v1 is listed as applied (then v2), not hidden
    as superseded; a v1 nobody applied stays superseded."""
    mails = series_mails(2, tree="net-next")
    mails[0].msgid, mails[1].msgid, mails[2].msgid = "c@example.org", "p1@example.org", "p2@example.org"
    took = _reply("Re: [PATCH net-next 1/2] foo: fix thing number 1", "Patch applied, thanks!\n", "p1@example.org",
                  "a@example.org", 2, sender="Jakub Kicinski <kuba@kernel.org>")
    v2 = Mail("[PATCH net-next v2] foo: fix thing number 2", patch_body(), msgid="v2@example.org",
              date=START + timedelta(hours=30))
    report = _triage(cli, write(tmp_path, thread(*mails, took, start=START) + "\n" + thread(v2, start=START), "p.mbox"))
    (v1,) = [s for s in report["series"] if "superseded_by" in s]
    assert (v1["status"], v1["state"]["state"], v1["superseded_by"]["msgid"]) == ("applied", "applied", "v2@example.org")
    assert report["counts"]["applied"] == 1
    quiet = _triage(cli, write(tmp_path, thread(*mails, start=START) + "\n" + thread(v2, start=START), "q.mbox"))
    assert [s["status"] for s in quiet["series"] if "superseded_by" in s] == ["superseded"]


def test_a_newer_revision_the_archive_lacks_settles_the_series(tmp_path, cli):
    """v3 never reached the archive, but the applier's "Applied, thanks." to "Re: [PATCH net v3]"
    of the same summary sits in the thread: the series was applied as v3. Under another summary
    the absent mail is some other patch, and settles nothing here."""
    def case(summary: str, name: str) -> dict:
        v2 = Mail("[PATCH net v2] foo: fix the register writes", patch_body(), msgid="v2@example.org")
        review = _reply("Re: [PATCH net v2] foo: fix the register writes", "Please keep the old order.\n",
                        "v2@example.org", "r@example.org", 1)
        # v3 was posted in reply to the review; the answer to it names both
        took = Mail(f"Re: [PATCH net v3] {summary}", "Applied, thanks.\n", sender="Jakub Kicinski <kuba@kernel.org>",
                    msgid="a@example.org", date=START + timedelta(hours=3),
                    extra_headers={"In-Reply-To": "<v3@example.org>", "References": "<r@example.org> <v3@example.org>"})
        report = _triage(cli, write(tmp_path, thread(v2, review, took, start=START, thread_to_first=False), name))
        (item,) = [s for s in report["series"] if s["msgid"] == "v2@example.org"]
        return item

    item = case("foo: fix the register writes", "absent.mbox")
    assert item["status"] == "applied", item["reasons"]
    state = item["reasons"][0]
    assert state["code"] == "state" and state["absent"] and state["revision"] == 3
    assert case("bar: another patch", "other.mbox")["status"] != "applied"
    text = cli("triage", str(tmp_path / "absent.mbox"), "--no-store", "--now", "2026-12-01", "-f", "markdown")
    assert "(v3, which the archive lacks)" in " ".join(text.out.split())


def test_a_reworked_higher_revision_that_drops_the_prefix_is_the_series(tmp_path, cli):
    """v4 "iw: add JSON output for scan", v5 "add JSON output for scan" reworked after review
    (other lines of the same file, a new file): one series. Near miss: the same v5 on other
    files only is another change."""
    other = [f"\tjson_print(out, \"bss{i}\", bss[{i}]);" for i in range(8)]
    v4 = _posting("[PATCH v4] iw: add JSON output for scan", LINES, hours=0, path="scan.c")

    def v5(path: str) -> str:
        diff = hunk_diff(path, ["\treturn 0;"], other) + hunk_diff("json.c", ["int x;"], ["int json_out;"])
        return thread(Mail("[PATCH v5] add JSON output for scan", patch_body(diff=diff)),
                      start=START + timedelta(hours=30), domain="b.example.org")

    report = _triage(cli, write(tmp_path, v4 + "\n" + v5("scan.c")))
    (current,) = [s for s in report["series"] if s["status"] != "superseded"]
    assert current["revision"] == 5 and [x["revision"] for x in current["superseded"]] == [4]
    report = _triage(cli, write(tmp_path, v4 + "\n" + v5("event.c"), "other.mbox"))
    assert len([s for s in report["series"] if s["status"] != "superseded"]) == 2


def test_a_partial_resend_and_its_first_posting_keep_their_own_ids(tmp_path, cli):
    """v1 1/2 and 2/2, then v2 of patch 2 alone: the series is reviewed with v1's patch 1, and its
    entry carries v2's id, v1's entry its own (two rows never share one)."""
    mails = series_mails(2, tree="net-next", cover=False)
    mails[0].msgid, mails[1].msgid = "p1@example.org", "p2@example.org"
    v2 = Mail("[PATCH net-next v2 2/2] foo: fix thing number 2", patch_body(), msgid="v2@example.org",
              in_reply_to="p2@example.org", date=START + timedelta(hours=30))
    report = _triage(cli, write(tmp_path, thread(*mails, v2, start=START)))
    ids = [s["msgid"] for s in report["series"]]
    assert len(ids) == len(set(ids)), ids
    assert "v2@example.org" in ids or any(s.get("superseded_by", {}).get("msgid") == "v2@example.org"
                                          for s in report["series"])


def test_one_patch_of_a_series_posted_again_alone_is_a_posting_of_its_own(tmp_path, cli):
    """"Please post these separately": patch 1 of 2 resent alone, at the same revision, is its own
    series (it answers the request); the 2-patch posting keeps its state. The near miss: that
    patch alone as v2 is the series' next revision."""
    mails = series_mails(2, tree="net-next")
    mails[0].msgid, mails[1].msgid, mails[2].msgid = "c@example.org", "p1@example.org", "p2@example.org"
    ask = _reply("Re: [PATCH net-next 0/2] foo: fix two things", "Please post these separately, they go to "
                 "different trees.\n", "c@example.org", "r@example.org", 1, sender="Jakub Kicinski <kuba@kernel.org>")

    def alone(subject: str, name: str) -> dict:
        again = Mail(subject, patch_body(), msgid="one@example.org", date=START + timedelta(hours=30))
        report = _triage(cli, write(tmp_path, thread(*mails, ask, start=START) + "\n" + thread(again, start=START),
                                    name))
        return {s["msgid"]: s for s in report["series"]}

    by_id = alone("[PATCH net-next RESEND] foo: fix thing number 1", "resend.mbox")
    assert by_id["c@example.org"]["status"] == "changes-requested"
    assert by_id["one@example.org"]["status"] != "superseded" and "superseded_by" not in by_id["one@example.org"]
    by_id = alone("[PATCH net-next v2] foo: fix thing number 1", "v2.mbox")
    assert by_id["c@example.org"]["superseded_by"]["msgid"] == "one@example.org"
