"""Per-patch classification (fix / development / test / docs, reasons, tree) on real threads and on
hand-built patches modelled on real netdev postings."""

from conftest import CORPUS, FIXTURES
from mailfactory import Mail, patch_body, thread, write

from reviewtool.context.classify.series import classify_series
from reviewtool.context.profiles.load import shipped_profiles
from reviewtool.review import ReviewOptions, load_series

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"


def classify(path, profile="netdev"):
    series = load_series(str(path), ReviewOptions())
    return classify_series(series, shipped_profiles()[profile])


def new_file(path: str, lines: list[str]) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}")


def modify(path: str, added: list[str], removed: list[str] = (), context: str = "static int x;") -> str:
    minus = "".join(f"-{line}\n" for line in removed)
    plus = "".join(f"+{line}\n" for line in added)
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,{1 + len(removed)} +1,{1 + len(added)} @@\n {context}\n{minus}{plus}")


def one_patch(tmp_path, subject: str, diff: str, message: str = "Explain the change.", trailers: str = "",
              tree: str = "net", name: str = "p.mbox"):
    trailer_block = (trailers + "\n" if trailers else "") + "Signed-off-by: Jane Developer <jane@example.org>"
    mail = Mail(f"[PATCH {tree}] {subject}", patch_body(message, trailers=trailer_block, diff=diff))
    return classify(write(tmp_path, thread(mail), name))


def test_bundled_example():
    c = classify(EXAMPLE)
    kinds = [(p.counter, p.kind, p.tree, p.certain) for p in c.patches]
    assert kinds == [(1, "fix", "net", True), (2, "fix", "net", True), (3, "development", "net-next", True)]
    p3 = c.of(3)
    assert p3.summary == "adds a new driver file and a module parameter, 8 lines, no Fixes tag"
    assert "new file drivers/net/ethernet/foo/foo_ring.c" in p3.evidence
    assert "module_param(ring_size, uint, 0444);" in p3.evidence
    assert c.fixes_tree == "net" and c.development_tree == "net-next"


def test_selftests_travel_with_the_fixes_they_test():
    # Real net pull: 2/5, 3/5 and 5/5 only touch selftests and carry no Fixes tag.
    c = classify(CORPUS / "netfilter-devel/net-fixes-0-5-tested-closes-link.mbox")
    tests = [p for p in c.patches if p.kind == "test"]
    assert [p.counter for p in tests] == [2, 3, 5]
    assert all(p.tree == "net" for p in tests)
    assert "may travel with it to net" in tests[0].reasons[-1]
    # A test that fixes a test carries its own Fixes tag and stays a test.
    c = classify(CORPUS / "netfilter-devel/net-fixes-0-3-fixes-reported-tested.mbox")
    assert c.of(1).kind == "test" and c.of(1).fixes and c.of(1).tree == "net"


def test_new_uapi_and_netlink_attributes_are_development():
    rfc = classify(CORPUS / "netfilter-devel/rfc-nf-next-ct-helper-0-2.mbox", "netfilter")
    assert [p.kind for p in rfc.patches] == ["development", "development"]
    assert any("NFT_CT_HELPER_OBJNAME" in r for r in rfc.of(2).reasons)
    nn = classify(CORPUS / "netfilter-devel/net-next-updates-00-10-large.mbox")
    assert nn.of(8).summary.startswith("adds 2 new netlink attributes")


def test_cleanups_are_development_with_certainty():
    c = classify(CORPUS / "netfilter-devel/nf-next-ipvs-cleanups-v3.mbox", "netfilter")
    assert all(p.kind == "development" and p.certain and p.tree == "nf-next" for p in c.patches)
    assert "spelling" in c.of(4).summary
    assert c.of(1).reasons[0] == "the cover letter calls the series clean-ups"


def test_user_space_and_stable_series_get_no_kernel_tree():
    nft = classify(CORPUS / "netfilter-devel/nft-parser-scope-0-3.mbox", "netfilter")
    assert [p.tree for p in nft.patches] == [None, None, None] and nft.fixes_tree is None
    stable = classify(CORPUS / "netfilter-devel/stable-5.10-nf-fixes-0-2.mbox", "netfilter")
    assert all(p.tree is None and p.kind == "fix" for p in stable.patches)


def test_fix_without_fixes_tag_and_fixes_from_a_reply():
    c = classify(CORPUS / "netfilter-devel/net-fixes-0-4-reply-missing-fixes-tag.mbox")
    p4 = c.of(4)
    assert p4.kind == "fix" and not p4.fixes and "the subject says 'incorrect'" in p4.reasons
    assert "the message quotes a crash report" in p4.reasons
    asked = classify(CORPUS / "netfilter-devel/nf-flowtable-locking-asked-for-fixes.mbox", "netfilter")
    assert asked.of(1).kind == "fix" and asked.of(1).fixes[0].from_reply


def test_fixes_in_a_development_series_stay_there_without_a_repository():
    c = classify(CORPUS / "netfilter-devel/net-next-ipvs-updates-0-6.mbox")
    assert c.of(2).kind == "fix" and c.of(2).tree == "net-next" and not c.of(2).certain
    assert any("was not checked" in r for r in c.of(2).reasons)


def test_kconfig_symbol_and_new_driver(tmp_path):
    diff = (new_file("drivers/net/ethernet/acme/acme_main.c", ["// SPDX-License-Identifier: GPL-2.0",
                                                                "#include <linux/module.h>"])
            + modify("drivers/net/ethernet/acme/Kconfig", ["config ACME_ETH", '\ttristate "Acme Ethernet"']))
    c = one_patch(tmp_path, "net: acme: add a driver for Acme NICs", diff)
    p = c.of(1)
    assert p.kind == "development" and p.certain
    assert "a new Kconfig symbol CONFIG_ACME_ETH" in p.reasons and "a new driver file" in p.summary


def test_sysctl_and_device_id(tmp_path):
    sysctl = modify("net/ipv4/sysctl_net_ipv4.c", ['\t\t.procname\t= "tcp_foo_limit",', "\t\t.maxlen = 4,"])
    assert one_patch(tmp_path, "tcp: make the foo limit tunable", sysctl).of(1).reasons[0] == "adds a new sysctl"
    ids = modify("drivers/net/ethernet/intel/e1000e/netdev.c", ["\t{ PCI_VDEVICE(INTEL, 0x57a0), board_pch },"])
    p = one_patch(tmp_path, "e1000e: support the new MTP device", ids, name="ids.mbox").of(1)
    assert p.kind == "development" and p.reasons[0] == "adds a new device ID"


def test_moved_lines_are_not_new(tmp_path):
    moved = modify("drivers/net/foo.c", ["module_param(debug, int, 0);"], ["module_param(debug, int, 0);"])
    p = one_patch(tmp_path, "net: foo: move the debug parameter", moved).of(1)
    assert not any("module parameter" in r for r in p.reasons)


def test_new_test_suite_is_development_but_a_new_test_script_is_a_test(tmp_path):
    suite = (new_file("tools/testing/selftests/drivers/net/acme/config", ["CONFIG_ACME_ETH=m"])
             + new_file("tools/testing/selftests/drivers/net/acme/Makefile", ["TEST_PROGS := basic.sh"]))
    p = one_patch(tmp_path, "selftests: acme: add a test suite", suite).of(1)
    assert p.kind == "development" and p.certain and p.summary.startswith("adds a new test suite,")
    assert "a new test suite tools/testing/selftests/drivers/net/acme/" in p.reasons
    script = new_file("tools/testing/selftests/net/foo_teardown.sh", ["#!/bin/sh", "ip link add foo0 type foo"])
    p = one_patch(tmp_path, "selftests: net: reproduce the foo teardown race", script, name="t.mbox").of(1)
    assert p.kind == "test"


def test_feature_verb_needs_size_to_be_certain(tmp_path):
    small = modify("net/core/dev.c", ["\tflags |= FOO;"])
    p = one_patch(tmp_path, "net: core: add FOO to the default flags", small).of(1)
    assert p.kind == "development" and not p.certain
    big = modify("net/core/dev.c", [f"\tfoo_step({i});" for i in range(150)])
    p = one_patch(tmp_path, "net: core: add a foo offload path", big, name="big.mbox").of(1)
    assert p.kind == "development" and p.certain and "150 lines (over 100)" in p.reasons


def test_reported_by_alone_is_not_a_fix(tmp_path):
    p = one_patch(tmp_path, "net: foo: use the new helper", modify("net/foo.c", ["\tfoo_helper();"]),
                  trailers="Reported-by: Sam Tester <sam@example.com>").of(1)
    assert p.kind == "development" and not p.certain


def test_docs_only(tmp_path):
    p = one_patch(tmp_path, "docs: net: describe foo", modify("Documentation/networking/foo.rst", ["More text."]),
                  tree="net-next").of(1)
    assert p.kind == "docs" and p.tree == "net-next"


def test_what_such_code_tends_to_end_in_is_no_bug_told_of_this_code(tmp_path):
    """A tree-wide conversion explains the interface it retires ("this typically results in
    resource leaks"): said of a kind of code, not of this driver; the patch is the clean-up its
    summary says. The same words told of this code are a bug (near miss)."""
    diff = modify("drivers/net/ethernet/foo/foo.c", ["	.remove_new = foo_remove,"], ["	.remove = foo_remove,"])
    retiring = ("The remove callback returns an int which drivers think they can use for error handling. "
                "The value is ignored, and this typically results in resource leaks.\n\n"
                "Convert this driver to the callback returning void; it always returned zero.")
    c = one_patch(tmp_path, "net: foo: convert to the remove callback returning void", diff, retiring,
                  tree="net-next", name="tendency.mbox")
    assert (c.patches[0].kind, c.patches[0].basis) == ("development", "cleanup")
    told = ("foo_remove() returns early when the PHY is gone, and this results in resource leaks: "
            "the rings stay mapped.\n\nFree the rings first.")
    c = one_patch(tmp_path, "net: foo: free the rings in foo_remove()", diff, told, tree="net-next", name="told.mbox")
    assert (c.patches[0].kind, c.patches[0].basis) == ("fix", "description")


def test_a_problem_the_patch_creates_is_a_bug_told_a_class_of_problems_is_not(tmp_path):
    diff = modify("drivers/net/ethernet/foo/foo.c", ["	skb->pkt_type = PACKET_HOST;"])
    created = ("The bridge leaves pkt_type as it found it after the hook, and this creates issues such as "
               "ICMP errors that are never sent.\n\nReset it after the hook.")
    c = one_patch(tmp_path, "net: foo: reset pkt_type after the hook", diff, created, tree="net-next", name="c.mbox")
    assert (c.patches[0].kind, c.patches[0].basis) == ("fix", "description")
    avoided = ("Keep pkt_type in one place, to avoid problems such as the ones other drivers had.\n\n"
               "Move the assignment to the helper.")
    c = one_patch(tmp_path, "net: foo: set pkt_type in the helper", diff, avoided, tree="net-next", name="a.mbox")
    assert c.patches[0].kind == "development"


def test_an_untagged_build_fix_goes_where_the_build_broke(tmp_path):
    """stable-kernel-rules.rst counts "a build error" among the fixes a released kernel takes: an
    untagged wireless patch whose summary says the build breaks goes to the fixes tree (the
    profile's `fixes_when`); one that only tidies the build files waits for wireless-next (near miss)."""
    diff = modify("drivers/net/wireless/ath/ath5k/Kconfig", ["	depends on LEDS_CLASS=y || LEDS_CLASS=MAC80211"])

    def tree_of(summary: str, message: str, name: str) -> str | None:
        body = patch_body(message, trailers="Signed-off-by: Jane Developer <jane@example.org>", diff=diff)
        mail = Mail(f"[PATCH] {summary}", body, to="linux-wireless@vger.kernel.org")
        return classify(write(tmp_path, thread(mail), name), "wireless").patches[0].tree

    assert tree_of("wifi: ath5k: fix building with LEDS=m", "The driver fails to link when LEDS_CLASS is a "
                   "module and ath5k is built in. Depend on it accordingly.", "bb.mbox") == "wireless"
    assert tree_of("wifi: ath5k: sort the Kconfig entries", "Sort the entries by name.", "tidy.mbox") == "wireless-next"


def test_a_diff_that_only_changes_comments_fixes_no_running_code(tmp_path):
    """Whatever its summary says ("add missing Return:", "fix the wrong comment"), a comment-only
    diff changes no code users run: a clean-up. The same summary over a code change is a fix
    (near miss)."""
    comment = modify("drivers/net/ethernet/foo/foo.c", [" * Return: 0 on success, a negative errno otherwise."],
                     context="/**")
    c = one_patch(tmp_path, "net: foo: add missing Return: to foo_open() documentation", comment, "Document it.",
                  tree="net-next", name="doc.mbox")
    assert (c.patches[0].kind, c.patches[0].basis) == ("development", "cleanup")
    code = modify("drivers/net/ethernet/foo/foo.c", ["	return err;"], ["	return 0;"])
    c = one_patch(tmp_path, "net: foo: add missing return of the error in foo_open()", code, "Return it.",
                  tree="net-next", name="code.mbox")
    assert c.patches[0].kind == "fix"
