"""Tree rules and the series verdict: tree-tag-missing, tree-mismatch, fixes-missing,
fix-for-next-only-code, split-series, on real threads, hand-built netdev threads and real git
repositories (a fixes tree and a development tree that diverged)."""

from conftest import CORPUS, FIXTURES
from gitrepo import kernel_like
from mailfactory import MODPARAM_DIFF, Mail, cover_body, patch_body, thread, write

from reviewtool.context.classify.series import classify_series
from reviewtool.context.profiles.load import shipped_profiles
from reviewtool.review import ReviewOptions, load_series
from reviewtool.rules.registry import Finding, Severity
from reviewtool.verdict import series_verdict

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"
TREE = ("--select", "tree")


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def test_bundled_example_patch_3_is_not_net_material(check_json):
    res = check_json(EXAMPLE)
    (mismatch,) = hits(res, "tree-mismatch")
    assert mismatch["patch"] == 3
    assert mismatch["message"] == ("patch 3/3 is not net material: adds a new driver file and a module parameter, "
                                   "8 lines, no Fixes tag -> net-next")
    assert "new file drivers/net/ethernet/foo/foo_ring.c" in mismatch["evidence"]
    assert "[PATCH net-next]" in mismatch["advice"]
    (split,) = hits(res, "split-series")
    assert split["patch"] is None and "fixes for net (patches 1, 2) with net-next work (patch 3)" in split["message"]
    assert split["advice"].startswith("Send patches 1, 2 to net as their own series")
    assert "once net has been merged into net-next" in split["advice"]
    assert "send patch 3 to net-next as a single patch, [PATCH net-next]" in split["advice"]
    v = res.json["verdict"]
    assert v["status"] == "wrong-tree" and v["next_step"] == split["advice"] and v["decided_by"] == "split-series"
    assert [(p["counter"], p["kind"], p["tree"]) for p in v["patches"]] == [
        (1, "fix", "net"), (2, "fix", "net"), (3, "development", "net-next")]


def test_text_report_shows_the_verdict(cli):
    out = cli("check", str(EXAMPLE), "--select", "tree").out
    assert "wrong-tree  Send patches 1, 2 to net" in out
    assert "1: fix → net · 2: fix → net · 3: development → net-next" in out
    md = cli("check", str(EXAMPLE), "--select", "tree", "--format", "markdown").out
    assert "**Verdict: wrong-tree.** Send patches 1, 2 to net" in md
    assert "- patch 3: **development** → net-next (adds a new driver file and a module parameter; 8 lines" in md
    mail = cli("check", str(EXAMPLE), "--select", "tree", "--format", "email").out
    body = mail.split("\n\n", 1)[1]
    # The reply opens with the one thing to do first, and does not repeat it under the finding.
    assert body.index("Send patches 1, 2 to net") < body.index("About the series as a whole")
    assert mail.count("Send patches 1, 2 to net") == 1




def _fix_body(sha="1a2b3c4d5e6f", subject="net: foo: add queue teardown"):
    return patch_body("foo_queue_teardown() frees the queue too early.",
                      trailers=f'Fixes: {sha} ("{subject}")\nSigned-off-by: Jane Developer <jane@example.org>')


def test_a_lone_fix_is_sent_alone_without_a_cover_letter(tmp_path, check_json):
    mails = [Mail("[PATCH net 0/2] foo: fix teardown, add a knob", cover_body()),
             Mail("[PATCH net 1/2] net: foo: fix use-after-free in teardown", _fix_body()),
             Mail("[PATCH net 2/2] net: foo: add an xdp module parameter", patch_body("Make XDP optional.",
                                                                                     diff=MODPARAM_DIFF))]
    res = check_json(write(tmp_path, thread(*mails)), *TREE)
    (split,) = hits(res, "split-series")
    assert split["advice"].startswith("Send patch 1 alone to net as a single patch, [PATCH net], with no cover letter")
    (mismatch,) = hits(res, "tree-mismatch")
    assert mismatch["patch"] == 2 and "a module parameter" in mismatch["message"]


def test_whole_series_in_the_wrong_tree_is_not_a_split(tmp_path, check_json):
    mails = [Mail("[PATCH net] net: foo: add an xdp module parameter", patch_body("Make XDP optional.",
                                                                                 diff=MODPARAM_DIFF))]
    res = check_json(write(tmp_path, thread(*mails)), *TREE)
    assert not hits(res, "split-series") and len(hits(res, "tree-mismatch")) == 1
    v = res.json["verdict"]
    assert v["status"] == "wrong-tree" and v["next_step"].startswith("Resend the whole series as [PATCH net-next]")


def test_real_fix_series_are_left_alone(check_json):
    for name in ("net-fixes-0-5-tested-closes-link.mbox", "nf-1-2-nat-reverse-tuple-nocover.mbox",
                 "net-fixes-0-3-fixes-reported-tested.mbox", "unthreaded-nf-ipset-1-4.mbox"):
        res = check_json(CORPUS / "netfilter-devel" / name, *TREE)
        assert res.rules() == [], (name, res.rules())
    dev = check_json(CORPUS / "netfilter-devel/net-next-updates-00-10-large.mbox", *TREE)
    assert dev.rules() == []


def test_fixes_missing_on_the_patch_the_maintainer_flagged(check_json):
    # The sender replied "This patch #4 is missing Fixes: tag" on this real pull request.
    res = check_json(CORPUS / "netfilter-devel/net-fixes-0-4-reply-missing-fixes-tag.mbox", *TREE)
    (hit,) = hits(res, "fixes-missing")
    # A warning: maintainers add the tag or ask for it, and take fixes without one (cases/accepted).
    assert hit["patch"] == 4 and hit["severity"] == "warning"
    assert "reads as a fix (the subject says 'incorrect'" in hit["message"]
    assert "Fixes: <12+ hex>" in hit["advice"]
    assert res.json["verdict"]["status"] == "ready"


def test_fixes_missing_for_a_fix_tree_then_retargeted(check_json):
    # v1 went to nf without a Fixes tag; v2 was re-targeted to nf-next (real threads).
    v1 = check_json(CORPUS / "netfilter-devel/nat-port-remap-1-nf-v1.mbox", *TREE)
    (hit,) = hits(v1, "fixes-missing")
    assert hit["message"] == "patch 1/1 is for nf, a fixes tree, but has no Fixes tag"
    assert "it belongs in nf-next" in hit["advice"]
    v2 = check_json(CORPUS / "netfilter-devel/nat-port-remap-2-nf-next-v2.mbox", *TREE)
    assert not hits(v2, "fixes-missing")
    # A revert names what it reverts; a Fixes tag given in a reply is picked up by b4.
    assert not hits(check_json(CORPUS / "netfilter-devel/nat-port-remap-5-revert.mbox", *TREE), "fixes-missing")
    assert not hits(check_json(CORPUS / "netfilter-devel/nf-flowtable-locking-asked-for-fixes.mbox", *TREE),
                    "fixes-missing")


def test_fixes_missing_severity_comes_from_the_profile(check_json):
    autosel = check_json(CORPUS / "netfilter-devel/autosel-4.19-01-of-42-partial.mbox", *TREE)
    assert {f["severity"] for f in hits(autosel, "fixes-missing")} == {"info"}  # generic profile
    # User space on netfilter-devel: the projects apply fixes without Fixes tags (7 of 32 fixes of
    # half A of cases/netfilter/userspace), so the netfilter-userspace profile makes it a note.
    ipt = check_json(CORPUS / "netfilter-devel/iptables-covscan-fixes-0-6.mbox", *TREE)
    (hit,) = hits(ipt, "fixes-missing")
    assert hit["patch"] == 4 and hit["severity"] == "info"



def test_tree_tag_missing(check_json, tmp_path):
    res = check_json(CORPUS / "netfilter-devel/nf-flowtable-locking-asked-for-fixes.mbox", *TREE)
    (hit,) = hits(res, "tree-tag-missing")
    assert "names no netfilter tree (nf, nf-next)" in hit["message"]
    assert "net/netfilter/nf_flow_table_offload.c" in hit["evidence"]
    assert "[PATCH nf] (it carries fixes)" in hit["advice"]
    # User space, stable backports and pull requests need no kernel tree tag.
    for name in ("nft-parser-scope-0-3.mbox", "stable-5.10-nf-fixes-0-2.mbox", "iptables-covscan-fixes-0-6.mbox"):
        assert not hits(check_json(CORPUS / "netfilter-devel" / name, *TREE), "tree-tag-missing"), name
    # A tag that is not one of the profile's trees is named; `can:` patches are exempt (profile data).
    other = write(tmp_path, thread(Mail("[PATCH IPV6] net: foo: add an xdp module parameter",
                                        patch_body("Make XDP optional.", diff=MODPARAM_DIFF))), "other.mbox")
    (hit,) = hits(check_json(other, *TREE), "tree-tag-missing")
    assert "the tag [IPV6] is not one of them" in hit["message"] and "[PATCH net-next] (it is new work)" in hit["advice"]
    # A tree written in a form the profile reads (`-next`) names a tree: no "no tree named", but
    # the form is reported.
    minus = write(tmp_path, thread(Mail("[PATCH -next] net: foo: add an xdp module parameter",
                                        patch_body("Make XDP optional.", diff=MODPARAM_DIFF))), "minus.mbox")
    res = check_json(minus, "--select", "tree", "--select", "subject-format")
    assert not hits(res, "tree-tag-missing")
    (form,) = hits(res, "subject-format")
    assert form["severity"] == "warning" and "'-next' reads as net-next" in form["message"]
    assert res.json["verdict"]["patches"][0]["declared"] == "net-next"
    can = write(tmp_path, thread(Mail("[PATCH] can: foo: fix the bar", patch_body())), "can.mbox")
    assert not hits(check_json(can, *TREE), "tree-tag-missing")


def test_generic_profile_runs_no_tree_rule(check_json):
    res = check_json(EXAMPLE, "--profile", "generic", *TREE)
    assert set(res.rules()) <= {"fixes-missing"}
    assert all(p["tree"] is None for p in res.json["verdict"]["patches"])


def _repo_series(tmp_path, tree: str, sha: str, subject: str, extra: list[Mail] = ()):
    mails = [Mail(f"[PATCH {tree}{' 1/' + str(1 + len(extra)) if extra else ''}] foo: fix the close path again",
                  _fix_body(sha[:12], subject))] + list(extra)
    return write(tmp_path, thread(*mails), f"{tree}-{sha[:6]}.mbox")


def test_fix_for_released_code_sent_to_net_next(tmp_path, cli):
    k = kernel_like(tmp_path / "linux")
    mbox = _repo_series(tmp_path, "net-next", k.c["foo_close"], "foo: drop the carrier on close")
    res = cli("check", str(mbox), "--format", "json", "--repo", str(k.path), *TREE)
    (hit,) = hits(res, "tree-mismatch")
    assert hit["message"].startswith("patch 1/1 fixes code that is already in net: it is net material, not net-next")
    assert "first in v6.1-rc1" in hit["message"]
    assert "[PATCH net]" in hit["advice"]
    assert res.json["verdict"]["status"] == "wrong-tree"


def test_fix_for_net_next_only_code_sent_to_net(tmp_path, cli, check_json):
    k = kernel_like(tmp_path / "linux")
    mbox = _repo_series(tmp_path, "net", k.c["next_feature"], "foo: add statistics")
    res = cli("check", str(mbox), "--format", "json", "--repo", str(k.path), *TREE)
    (hit,) = hits(res, "fix-for-next-only-code")
    assert hit["message"] == (f"patch 1/1 fixes code that is only in net-next: every Fixes target "
                              f"({k.c['next_feature'][:12]}) is in net-next but not in net")
    assert hit["advice"].startswith("Send it to net-next as [PATCH net-next]")
    assert not hits(res, "tree-mismatch")  # one finding for one problem
    assert res.json["verdict"]["decided_by"] == "fix-for-next-only-code"
    # Without a repository the rule is listed as not checked.
    res = check_json(mbox, *TREE)
    assert any(n.startswith("fix-for-next-only-code:") for n in res.json["summary"]["not_checked"])
    # The same fix sent to net-next is right.
    ok = _repo_series(tmp_path, "net-next", k.c["next_feature"], "foo: add statistics")
    res = cli("check", str(ok), "--format", "json", "--repo", str(k.path), *TREE)
    assert res.rules() == []


def test_net_next_series_carrying_a_fix_for_released_code_is_split(tmp_path, cli):
    k = kernel_like(tmp_path / "linux")
    extra = [Mail("[PATCH net-next 2/2] net: foo: add an xdp module parameter",
                  patch_body("Make XDP optional.", diff=MODPARAM_DIFF))]
    mbox = _repo_series(tmp_path, "net-next", k.c["foo_close"], "foo: drop the carrier on close", extra)
    res = cli("check", str(mbox), "--format", "json", "--repo", str(k.path), *TREE)
    (split,) = hits(res, "split-series")
    assert split["advice"].startswith("Send patch 1 alone to net as a single patch")
    assert "send patch 2 to net-next as a single patch" in split["advice"]


def test_verdict_is_a_pure_function():
    series = load_series(str(CORPUS / "netfilter-devel/autosel-4.19-01-of-42-partial.mbox"), ReviewOptions())
    cls = classify_series(series, shipped_profiles()["generic"])
    v = series_verdict(series, [], cls)
    assert v.status == "incomplete" and v.next_step.startswith("Ask for the missing patches 2, 6, 7")
    ready = load_series(str(CORPUS / "netfilter-devel/nf-socket-icmp6-use-after-scope.mbox"), ReviewOptions())
    cls = classify_series(ready, shipped_profiles()["netfilter"])
    v = series_verdict(ready, [Finding("cover-letter-missing", Severity.WARNING, None, "m")], cls)
    assert v.status == "ready" and v.next_step == ("Nothing blocks it: review the code and apply it to nf; "
                                                   "mention the 1 warning in the review.")
    rfc = load_series(str(CORPUS / "netfilter-devel/rfc-nf-next-ct-helper-0-2.mbox"), ReviewOptions())
    v = series_verdict(rfc, [], classify_series(rfc, shipped_profiles()["netfilter"]))
    assert v.status == "ready" and "as an RFC it is not applied" in v.next_step and "[PATCH nf-next]" in v.next_step
    err = Finding("signed-off-by-missing", Severity.ERROR, 1, "no SoB", advice="Add your Signed-off-by.")
    closed = Finding("net-next-closed", Severity.ERROR, None, "closed", advice="Repost after v7.0-rc1.")
    v = series_verdict(ready, [err, closed], cls)
    assert (v.status, v.next_step, v.decided_by) == ("needs-revision", "Repost after v7.0-rc1.", "net-next-closed")


def test_repository_without_the_tree_refs_is_named_in_not_checked(tmp_path, cli):
    from gitrepo import GitRepo

    repo = GitRepo(tmp_path / "plain")
    repo.commit("Initial import\n", {"README": "x\n"})
    res = cli("check", str(EXAMPLE), "--format", "json", "--repo", str(repo.path), *TREE)
    (why,) = [n for n in res.json["summary"]["not_checked"] if n.startswith("fix-for-next-only-code:")]
    assert "no ref for net (net/main), net-next (net-next/main)" in why and "--tree net=REF" in why
    # The refs named with --tree make it checkable.
    k = kernel_like(tmp_path / "linux")
    res = cli("check", str(EXAMPLE), "--format", "json", "--repo", str(k.path), "--tree", "net=refs/remotes/net/main",
              "--tree", "net-next=refs/remotes/net-next/main", *TREE)
    assert not any(n.startswith("fix-for-next-only-code:") for n in res.json["summary"]["not_checked"])
