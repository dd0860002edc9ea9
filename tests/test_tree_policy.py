"""Tree policy as maintainers apply it, each class on minimal mails of its own (issue 14): doubts
the mail cannot settle keep the author's tree and say what settles them; what the diff adds decides;
a fix series takes its preparations along; a closed tree follows the tree a patch belongs in."""

from datetime import datetime, timezone

from mailfactory import DEFAULT_DIFF, MODPARAM_DIFF, Mail, cover_body, hunk_diff, patch_body, thread, write

FIX_TRAILERS = 'Fixes: 1234567890ab ("net: foo: add the bar path")\nSigned-off-by: Jane Developer <jane@example.org>'
DOCS_DIFF = hunk_diff("Documentation/networking/foo.rst", ["The foo objcets are counted."],
                      ["The foo objects are counted."], "Foo", "Bar")
MAINTAINERS_DIFF = hunk_diff("MAINTAINERS", ["M:	Old Maintainer <old@example.org>"],
                             ["M:	New Maintainer <new@example.org>"], "FOO DRIVER", "S:	Maintained")
MERGE_WINDOW = datetime(2023, 11, 8, 6, 0, tzinfo=timezone.utc)  # v6.6 released 2023-10-30, v6.7-rc1 on 11-12
OPEN = datetime(2023, 11, 20, 6, 0, tzinfo=timezone.utc)


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def routes(res):
    return [(p["counter"], p["tree"]) for p in res.json["verdict"]["patches"]]


def one(tmp_path, check_json, subject, message="Explain the change.", trailers=None, diff=DEFAULT_DIFF,
        name="p.mbox", start=OPEN):
    body = patch_body(message, trailers=trailers or "Signed-off-by: Jane Developer <jane@example.org>", diff=diff)
    return check_json(write(tmp_path, thread(Mail(subject, body), start=start), name))


def test_a_fixes_tagged_patch_for_net_next_keeps_its_tree_and_notes_what_was_not_checked(tmp_path, check_json):
    # Applied net-next postings carry Fixes tags for bugs that are only in net-next as often as not:
    # without the repository nothing says which, so the mail alone raises no doubt, only a note.
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: fix the bar length",
              "The bar length is read before it is set.", FIX_TRAILERS)
    assert not hits(res, "tree-mismatch") and routes(res) == [(1, "net-next")]
    (p,) = res.json["verdict"]["patches"]
    assert "whether the Fixes target is already in net was not checked" in p["reasons"]
    assert any("was not checked (needs --repo" in n for n in res.json["summary"]["notes"])


def test_a_fixes_tagged_fix_of_a_failure_users_meet_is_asked_about_on_the_mail_alone(tmp_path, check_json):
    """maintainer-netdev: net is for fixes to code already in Linus's tree. A net-next patch whose
    summary names a failure users meet (a use-after-free, a deadlock, a regression) and carries a
    Fixes tag is what a maintainer asks about on the mail alone: a warning that says what settles
    it, the tree kept. A bare "fix" (near miss above) and the author's own word (below) are not."""
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: fix use-after-free in foo_remove()",
              "foo_remove() frees the ring while napi still polls it.", FIX_TRAILERS, name="uaf.mbox")
    (hit,) = hits(res, "tree-mismatch")
    assert hit["severity"] == "warning" and "it may be net material" in hit["message"]
    assert "'use-after-free'" in hit["message"] and "say so below `---`" in hit["advice"]
    assert routes(res) == [(1, "net-next")]
    assert res.json["verdict"]["status"] == "ready" and res.json["verdict"]["next_step"].startswith("Settle the tree")
    said = one(tmp_path, check_json, "[PATCH net-next] net: foo: fix use-after-free in foo_remove()",
               "foo_remove() frees the ring while napi still polls it. The bug is only in net-next.",
               FIX_TRAILERS, name="said.mbox")
    assert not hits(said, "tree-mismatch")


def test_a_net_next_series_carrying_such_a_fix_is_asked_to_send_it_alone_first(tmp_path, check_json):
    fix = patch_body("foo_remove() frees the ring while napi still polls it.\n\nDisable napi first.",
                     trailers=FIX_TRAILERS)
    mails = [Mail("[PATCH net-next 0/3] foo: ring size knob", cover_body("Make the ring size tunable.")),
             Mail("[PATCH net-next 1/3] net: foo: fix use-after-free in foo_remove()", fix),
             Mail("[PATCH net-next 2/3] net: foo: add a ring size knob", patch_body("Add the knob.")),
             Mail("[PATCH net-next 3/3] net: foo: add ring statistics", patch_body("Count ring refills."))]
    res = check_json(write(tmp_path, thread(*mails, start=OPEN), "mixed.mbox"))
    (hit,) = hits(res, "split-series")
    assert hit["severity"] == "warning" and "net material if the commit it fixes is in net" in hit["message"]
    assert "send patch 1 alone to net" in hit["advice"] and "patches 2, 3 to net-next" in hit["advice"]
    assert res.json["verdict"]["status"] == "ready"  # a doubt: the maintainer settles it, nothing moves
    # The same series whose fix names no failure (a bare "fix") raises nothing (near miss).
    mails[1] = Mail("[PATCH net-next 1/3] net: foo: fix the bar length", patch_body("Read it after setting it.",
                                                                                    trailers=FIX_TRAILERS))
    assert not hits(check_json(write(tmp_path, thread(*mails, start=OPEN), "bare.mbox")), "split-series")


def test_the_author_saying_the_bug_is_only_in_net_next_settles_it(tmp_path, check_json):
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: fix the bar length",
              "The bar length is read before it is set.\n\nThe issue does not exist in the net tree, so the "
              "target tree is net-next.", FIX_TRAILERS)
    assert not hits(res, "tree-mismatch")
    (reasons,) = [p["reasons"] for p in res.json["verdict"]["patches"]]
    assert any("the author says the bug is only in net-next" in r for r in reasons)


def test_a_cosmetic_fix_is_a_clean_up_and_a_clean_up_for_net_is_net_next_material(tmp_path, check_json):
    res = one(tmp_path, check_json, "[PATCH net] net: foo: fix typo in a comment")
    (hit,) = hits(res, "tree-mismatch")
    assert "is not net material: a cosmetic change (the subject says 'typo')" in hit["message"]
    assert routes(res) == [(1, "net-next")] and res.json["verdict"]["status"] == "wrong-tree"
    assert not [f for f in res.json["findings"] if f["severity"] == "error"]
    res = one(tmp_path, check_json, "[PATCH net] net: foo: remove unused variable", name="unused.mbox")
    assert routes(res) == [(1, "net-next")] and hits(res, "tree-mismatch")


def test_docs_for_net(tmp_path, check_json):
    # A wording fix in the docs is a doubt (maintainers take some into net): the tag is kept.
    res = one(tmp_path, check_json, "[PATCH net] docs: net: foo: fix a typo", "Fix a typo.", diff=DOCS_DIFF)
    (hit,) = hits(res, "tree-mismatch")
    assert "it only changes wording" in hit["message"] and "may be net-next material" in hit["message"]
    assert routes(res) == [(1, "net")] and res.json["verdict"]["status"] == "ready"
    # Documentation of behaviour and MAINTAINERS updates go to net as they are.
    res = one(tmp_path, check_json, "[PATCH net] docs: net: foo: document the bar sysctl", "Document it.",
              diff=DOCS_DIFF, name="doc.mbox")
    assert not hits(res, "tree-mismatch") and not hits(res, "fixes-missing")
    res = one(tmp_path, check_json, "[PATCH net] MAINTAINERS: update the foo maintainer", "Update it.",
              diff=MAINTAINERS_DIFF, name="maint.mbox")
    assert not hits(res, "tree-mismatch") and not hits(res, "fixes-missing") and routes(res) == [(1, "net")]


def test_a_fix_series_takes_its_preparations_along(tmp_path, check_json):
    mails = [Mail("[PATCH net 0/2] foo: fix the reboot crash", cover_body("Fix the reboot crash.")),
             Mail("[PATCH net 1/2] mdio: export the read helper",
                  patch_body("Export mdio_read() so drivers can call it from their wrappers.")),
             Mail("[PATCH net 2/2] foo: fix the reboot crash", patch_body("Rebooting crashes.", FIX_TRAILERS))]
    res = check_json(write(tmp_path, thread(*mails)))
    assert routes(res) == [(1, "net"), (2, "net")]
    assert not hits(res, "split-series") and not hits(res, "tree-mismatch")
    (prep,) = [f for f in hits(res, "fixes-missing") if f["patch"] == 1]
    assert prep["severity"] == "info" and "travels with the fix in patch 2" in prep["message"]
    # New work in the same series is still split off: what the diff adds decides.
    mails[1] = Mail("[PATCH net 1/2] foo: add an xdp module parameter", patch_body("Make XDP optional.",
                                                                                   diff=MODPARAM_DIFF))
    res = check_json(write(tmp_path, thread(*mails), "mixed.mbox"))
    assert routes(res) == [(1, "net-next"), (2, "net")] and hits(res, "split-series")
    assert res.json["verdict"]["status"] == "wrong-tree"


def test_an_untagged_series_mixing_fixes_and_new_work_gets_split_advice(tmp_path, check_json):
    mails = [Mail("[PATCH 0/2] foo: fix and extend", cover_body("A fix and a knob.")),
             Mail("[PATCH 1/2] foo: fix the reboot crash", patch_body("Rebooting crashes.", FIX_TRAILERS)),
             Mail("[PATCH 2/2] foo: add an xdp module parameter", patch_body("Make XDP optional.",
                                                                             diff=MODPARAM_DIFF))]
    res = check_json(write(tmp_path, thread(*mails)))
    (split,) = hits(res, "split-series")
    assert "Send patch 1 alone to net as a single patch, [PATCH net]" in split["advice"]
    assert hits(res, "tree-tag-missing")


def test_merge_window_follows_the_tree_a_patch_belongs_in(tmp_path, check_json):
    # Named for net-next: refused on sight.
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: use a read-write lock", start=MERGE_WINDOW)
    (hit,) = hits(res, "net-next-closed")
    assert hit["severity"] == "error" and "v6.7" in hit["message"]
    # A clean-up sent to net, and an untagged patch that reads as new work: net-next material while
    # net-next is closed, a warning that quotes why.
    res = one(tmp_path, check_json, "[PATCH net] net: foo: remove unused variable", name="net.mbox",
              start=MERGE_WINDOW)
    (hit,) = hits(res, "net-next-closed")
    assert hit["severity"] == "warning" and "is net-next material" in hit["message"] and "net-next was closed" in hit["message"]
    res = one(tmp_path, check_json, "[PATCH] net: foo: use a read-write lock", name="untagged.mbox",
              start=MERGE_WINDOW)
    (hit,) = hits(res, "net-next-closed")
    assert hit["severity"] == "warning" and res.json["verdict"]["next_step"].startswith("Check the tree")
    # An untagged fix, and the same clean-up once the window is over, are not.
    res = one(tmp_path, check_json, "[PATCH] net: foo: fix the bar length", trailers=FIX_TRAILERS,
              name="fix.mbox", start=MERGE_WINDOW)
    assert not hits(res, "net-next-closed")
    res = one(tmp_path, check_json, "[PATCH] net: foo: use a read-write lock", name="open.mbox")
    assert not hits(res, "net-next-closed")


def test_announced_closures_are_profile_data(tmp_path, check_json):
    # netdev's end-of-year break of 2025: the v6.19 window ended on 12-14, net-next reopened after 01-02.
    winter = datetime(2025, 12, 18, 18, 0, tzinfo=timezone.utc)
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: add the bar knob", start=winter)
    (hit,) = hits(res, "net-next-closed")
    assert "2025-12-14 to 2026-01-02 (announced)" in hit["message"] and "after 2026-01-02" in hit["advice"]
    after = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    assert not hits(one(tmp_path, check_json, "[PATCH net-next] net: foo: add the bar knob", start=after,
                        name="after.mbox"), "net-next-closed")


def test_a_repository_profile_declares_its_closures(tmp_path):
    from reviewtool.context.profiles.load import load_profiles

    (tmp_path / ".reviewtool.toml").write_text(
        '[profiles.mine]\nextends = "netdev"\n[[profiles.mine.closures]]\ntree = "net-next"\n'
        'first_day = "2027-12-20"\nlast_day = "2028-01-03"\nwhy = "holidays"\n')
    mine = load_profiles(tmp_path)["mine"]
    assert [(c.tree, str(c.first_day), str(c.last_day), c.why) for c in mine.closures] == [
        ("net-next", "2027-12-20", "2028-01-03", "holidays")]
    assert mine.closure_at("net-next", datetime(2028, 1, 3, 23, 0, tzinfo=timezone.utc))
    assert not mine.closure_at("net", datetime(2028, 1, 3, 23, 0, tzinfo=timezone.utc))


def _diff(*paths: str) -> str:
    return "".join(f"diff --git a/{p} b/{p}\nindex 1111111..2222222 100644\n--- a/{p}\n+++ b/{p}\n"
                   "@@ -1,2 +1,2 @@\n context\n-old\n+new\n" for p in paths)


def test_one_patch_touching_files_of_several_trees_is_split(tmp_path, check_json):
    dts = "arch/arm64/boot/dts/vendor/board-foo.dts"
    res = one(tmp_path, check_json, "[PATCH net] net: dsa: foo: fix the reset polarity",
              diff=_diff(dts, "drivers/net/dsa/foo.c"), trailers=FIX_TRAILERS)
    (hit,) = hits(res, "patch-spans-trees")
    assert f"devicetree sources ({dts})" in hit["message"] and "code (drivers/net/dsa/foo.c)" in hit["message"]
    assert "the SoC tree of the platform" in hit["advice"]
    assert res.json["verdict"]["status"] == "wrong-tree" and res.json["verdict"]["decided_by"] == "patch-spans-trees"
    binding = "Documentation/devicetree/bindings/net/foo.yaml"
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: add the bar clock",
              diff=_diff(binding, "drivers/net/ethernet/foo/foo.c"), name="bind.mbox")
    assert "devicetree bindings" in hits(res, "patch-spans-trees")[0]["message"]
    # One tree each: a binding with its MAINTAINERS entry, a driver with its documentation, a .dts alone.
    for i, paths in enumerate(((binding, "MAINTAINERS"), ("drivers/net/ethernet/foo/foo.c",
                                                         "Documentation/networking/foo.rst"), (dts,))):
        res = one(tmp_path, check_json, "[PATCH net-next] foo: update", diff=_diff(*paths), name=f"ok{i}.mbox")
        assert not hits(res, "patch-spans-trees"), paths


def test_separate_paths_are_profile_data(tmp_path):
    from reviewtool.context.profiles.load import load_profiles, shipped_profiles

    assert [g.name for g in shipped_profiles()["generic"].separate_paths] == ["devicetree sources",
                                                                              "devicetree bindings"]
    (tmp_path / ".reviewtool.toml").write_text('[profiles.soc]\nextends = "generic"\nseparate_paths = []\n')
    assert load_profiles(tmp_path)["soc"].separate_paths == ()


COMMENT_DIFF = hunk_diff("net/core/dev.c", ["/* the lock protects teh list */"], ["/* the lock protects the list */"])
DEAD_DIFF = hunk_diff("kernel/bpf/arena.c", ["#define MT_ENTRY ((void *)&arena_map_ops) /* unused */", ""], [])


def test_a_fixes_tag_on_a_change_that_fixes_no_bug(tmp_path, check_json):
    cases = {
        "comment": ("[PATCH net-next] net: correct a comment", "Correct the comment.", COMMENT_DIFF,
                    "the diff only changes comments"),
        "dead": ("[PATCH bpf-next] bpf: remove unused MT_ENTRY define", "Remove the define.", DEAD_DIFF,
                 "removes unused code"),
        "words": ("[PATCH net] net: foo: check the ops pointer", "No in-tree users can pass a NULL ops pointer "
                  "here; check it anyway.", DEFAULT_DIFF, "'No in-tree users can'"),
        "nfc": ("[PATCH net-next] net: foo: use the helper", "No functional change intended.", DEFAULT_DIFF,
                "'No functional change'"),
    }
    for name, (subject, message, diff, says) in cases.items():
        res = one(tmp_path, check_json, subject, message, FIX_TRAILERS, diff=diff, name=f"{name}.mbox")
        (hit,) = hits(res, "fixes-not-needed")
        assert says in hit["message"], (name, hit["message"])
        assert 'Fixes: 1234567890ab ("net: foo: add the bar path")' in hit["evidence"]
        assert "Drop the Fixes tag" in hit["advice"]
    # The cover letter naming the patches clean-ups ("patches 1 and 2 are clean-ups").
    mails = [Mail("[PATCH net 0/3] net: foo: fix a leak in the reset path", cover_body(
                 "Patches 1 and 2 are clean-ups that patch 3 builds on.\nPatch 3 frees the ring on reset.")),
             Mail("[PATCH net 1/3] net: foo: return int from the reset helper", patch_body("It returns int.",
                                                                                          FIX_TRAILERS)),
             Mail("[PATCH net 2/3] net: foo: drop an assignment", patch_body("Drop it.")),
             Mail("[PATCH net 3/3] net: foo: free the ring on reset", patch_body("It leaks.", FIX_TRAILERS))]
    res = check_json(write(tmp_path, thread(*mails), "cover.mbox"))
    assert [(f["patch"], "the cover letter calls it a clean-up" in f["message"])
            for f in hits(res, "fixes-not-needed")] == [(1, True)]
    assert routes(res) == [(1, "net"), (2, "net"), (3, "net")]  # the series goes to net as one
    # A real fix keeps its tag; "silence a lockdep warning" is a fix, "silence the smatch warning" is not.
    res = one(tmp_path, check_json, "[PATCH net] net: foo: fix the bar length", "The length is read before it is "
              "set, which causes an out-of-bounds read.", FIX_TRAILERS, name="real.mbox")
    assert not hits(res, "fixes-not-needed") and not hits(res, "tree-mismatch")
    res = one(tmp_path, check_json, "[PATCH net] net: foo: take the lock", "Silence a lockdep warning.",
              FIX_TRAILERS, name="lockdep.mbox")
    assert not hits(res, "fixes-not-needed")


def test_a_series_split_by_driver_tree_keeps_every_patch_to_one(tmp_path, check_json):
    # submitting-patches "Separate your changes"; the wireless profile's driver trees (ath.git,
    # mt76, rtw.git) each apply their own part. A series split by driver tree whose one patch
    # still spans two leaves a split undone; alone, such a patch is only noted.
    sob = "Signed-off-by: Jane Developer <jane@example.org>"
    mt = _diff("drivers/net/wireless/mediatek/mt76/dma.c", "drivers/net/wireless/mediatek/mt7601u/dma.c")
    parts = [("wifi: ath9k: use the new helper", _diff("drivers/net/wireless/ath/ath9k/main.c")),
             ("wifi: rtw88: use the new helper", _diff("drivers/net/wireless/realtek/rtw88/pci.c")),
             ("wifi: mediatek: use the new helper", mt)]

    def spans(mails, name):
        res = check_json(write(tmp_path, thread(*mails), name))
        return [(f["severity"], f["patch"]) for f in res.json["findings"] if f["rule"] == "patch-spans-trees"]

    n = len(parts)
    mails = [Mail(f"[PATCH wireless-next 0/{n}] wifi: use the new helper", cover_body())] + [
        Mail(f"[PATCH wireless-next {i}/{n}] {s}", patch_body("Use the new helper.", trailers=sob, diff=d))
        for i, (s, d) in enumerate(parts, 1)]
    assert spans(mails, "split.mbox") == [("warning", 3)]
    # Near misses: the spanning patch alone, and an interface changed with all its users (more
    # than three directories of the fed tree's own drivers) beside per-driver patches.
    alone = Mail("[PATCH wireless-next] wifi: mediatek: use the new helper",
                 patch_body("Use the new helper.", trailers=sob, diff=mt))
    assert spans([alone], "alone.mbox") == [("info", 1)]
    wide = _diff("drivers/net/wireless/ath/ath9k/main.c", *(f"drivers/net/wireless/{d}/main.c" for d in
                                                             ("atmel", "ti/wl1251", "ti/wlcore", "marvell/mwl8k")))
    mails[1] = Mail(f"[PATCH wireless-next 1/{n}] wifi: convert every driver to the new helper",
                    patch_body("Convert them all.", trailers=sob, diff=wide))
    assert ("info", 1) in spans(mails, "wide.mbox")


def test_a_projects_tests_and_documentation_go_to_its_one_tree(tmp_path, check_json):
    """A project with one tree (nftables on netfilter-devel) takes its tests and documentation
    where its code goes: the verdict names that tree for each. Near miss: a kernel profile with a
    fixes tree routes a test patch by its own rules (net-next here, no fix beside it)."""
    sob = "Signed-off-by: Jane Developer <jane@example.org>"
    for i, (subject, path) in enumerate((("[nft PATCH] tests: shell: fix the reset test",
                                          "tests/shell/testcases/sets/reset_command_0"),
                                         ("[PATCH nft] doc: document the device parameter", "doc/nft.txt"),
                                         ("[nft PATCH] evaluate: reject the bad set", "src/evaluate.c"))):
        mail = Mail(subject, patch_body("Explain it.", trailers=sob, diff=_diff(path)),
                    to="netfilter-devel@vger.kernel.org")
        res = check_json(write(tmp_path, thread(mail), f"nft{i}.mbox"))
        assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["nftables"], subject
        assert res.json["verdict"]["next_step"].endswith("apply it to nftables."), subject
    test = Mail("[PATCH net-next] selftests: net: cover the bar path",
                patch_body("Cover it.", trailers=sob, diff=_diff("tools/testing/selftests/net/bar.sh")))
    res = check_json(write(tmp_path, thread(test), "net.mbox"))
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["net-next"]
