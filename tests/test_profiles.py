"""Profiles as data: shipped TOML, selection (tag, list, repository default, --profile), and the
repository's `.reviewtool.toml` / git config extending them."""

from datetime import datetime, timezone

import pytest
from conftest import CORPUS
from gitrepo import GitRepo
from mailfactory import Mail, hunk_diff, patch_body, series_mails, thread, write

from reviewtool.context.profiles.select import select_profile
from reviewtool.context.profiles.load import load_profiles, shipped_profiles
from reviewtool.errors import ConfigError


def test_shipped_profiles_and_their_trees():
    profiles = shipped_profiles()
    assert {"netdev", "bpf", "wireless", "iproute2", "netfilter", "generic"} <= set(profiles)
    expected = {"netdev": ("net", "net-next"), "bpf": ("bpf", "bpf-next"), "wireless": ("wireless", "wireless-next"),
                "iproute2": ("iproute2", "iproute2-next"), "netfilter": ("nf", "nf-next")}
    for name, (fixes, dev) in expected.items():
        p = profiles[name]
        assert p.tree(fixes).kind == "fixes" and p.tree(dev).kind == "development"
        assert p.tree_for("development", p.tree(fixes)).name == dev
        assert p.tree_for("fixes", p.tree(dev)).name == fixes
    assert not profiles["generic"].trees
    assert profiles["netdev"].tree("net-next").closed_in_merge_window
    assert not profiles["iproute2"].tree("iproute2-next").closed_in_merge_window
    assert profiles["netdev"].settings["max_patches"] == 15


def test_every_tree_rule_is_off_in_generic():
    generic = shipped_profiles()["generic"]
    for rule in ("tree-tag-missing", "tree-mismatch", "net-next-closed", "fix-for-next-only-code"):
        assert rule in generic.disabled
    assert generic.severity["fixes-missing"] == "info"


def _single(tmp_path, subject: str, to: str = "netdev@vger.kernel.org", cc: str = "", name="one.mbox",
            diff: str | None = None):
    body = patch_body(diff=diff) if diff else patch_body()
    return write(tmp_path, thread(Mail(subject, body, to=to, cc=cc)), name)


NF_DIFF = hunk_diff("net/netfilter/nf_tables_api.c", ["	return 0;"], ["	return err;"])
ATH_DIFF = hunk_diff("drivers/net/wireless/ath/ath11k/mac.c", ["	return 0;"], ["	return ret;"])
DOC_DIFF = hunk_diff("Documentation/networking/foo.rst", ["teh"], ["the"])


def test_tree_tags_are_exact_tokens(tmp_path, check_json):
    # NIPA read [bpf-next/net] as "net" (PR #44); here it selects bpf's bpf-next/net tree.
    res = check_json(_single(tmp_path, "[PATCH bpf-next/net] bpf: foo: add a helper"))
    assert res.json["series"]["profile"] == "bpf"
    assert res.json["series"]["profile_reason"] == "subject tag [bpf-next/net]"
    assert check_json(_single(tmp_path, "[PATCH net-next] net: foo: bar", name="nn.mbox")).json["series"][
        "profile_reason"] == "subject tag [net-next]"
    # A tag that is no tree of any profile falls back to the files it touches (net/core/dev.c).
    res = check_json(_single(tmp_path, "[PATCH -next] net: foo: bar", name="minus.mbox"))
    assert res.json["series"]["profile"] == "netdev"
    assert res.json["series"]["profile_reason"] == "the files it touches are netdev's (net/core/dev.c)"


def test_real_threads_pick_their_profile(check_json):
    nf = check_json(CORPUS / "netfilter-devel/nf-socket-icmp6-use-after-scope.mbox").json["series"]
    assert (nf["profile"], nf["profile_reason"]) == ("netfilter", "subject tag [nf]")
    ip2 = check_json(CORPUS / "netdev/iproute2-v2-0-3-dcb-fixes.mbox").json["series"]
    assert ip2["profile"] == "iproute2"
    bpf = check_json(CORPUS / "netfilter-devel/bpf-nf-hook-migration-v2.mbox").json["series"]
    assert bpf["profile"] == "bpf"
    # Netfilter's own pull requests are [PATCH net]: netdev's tree, whatever list they went to.
    assert check_json(CORPUS / "netfilter-devel/net-fixes-0-5-tested-closes-link.mbox").json["series"][
        "profile"] == "netdev"
    # A user-space patch tagged with its project: that project's tree in the user-space profile.
    nft = check_json(CORPUS / "netfilter-devel/nft-parser-scope-0-3.mbox").json["series"]
    assert (nft["profile"], nft["profile_reason"]) == ("netfilter-userspace", "subject tag [nftables]")


def test_list_order_decides_between_lists(tmp_path, check_json):
    # Documentation that no profile claims more than another: the lists decide.
    to_nf = _single(tmp_path, "[PATCH] netfilter: foo", to="netfilter-devel@vger.kernel.org",
                    cc="netdev@vger.kernel.org, linux-kernel@vger.kernel.org", diff=DOC_DIFF.replace(
                        "networking/foo.rst", "process/foo.rst"))
    assert check_json(to_nf).json["series"]["profile"] == "netfilter"
    to_lkml = _single(tmp_path, "[PATCH] netfilter: foo", to="Some One <x@example.org>, linux-kernel@vger.kernel.org",
                      cc="netfilter-devel@vger.kernel.org", name="lkml.mbox",
                      diff=DOC_DIFF.replace("networking/foo.rst", "process/foo.rst"))
    # LKML is Cc'd on nearly everything: the subsystem list behind it decides.
    assert check_json(to_lkml).json["series"]["profile"] == "netfilter"


def test_the_profile_follows_the_files(tmp_path, check_json):
    # net/netfilter/ is netdev's too, but netfilter's claim is the more specific one (as in MAINTAINERS).
    res = check_json(_single(tmp_path, "[PATCH] netfilter: nf_tables: x", to="netdev@vger.kernel.org", diff=NF_DIFF))
    assert res.json["series"]["profile"] == "netfilter"
    # A wireless driver patch tagged [PATCH net-next], sent to its driver list only: netdev excludes
    # the files, wireless claims them and reads the tag as wireless-next.
    res = check_json(_single(tmp_path, "[PATCH net-next] wifi: ath11k: fix x", to="ath11k@lists.infradead.org",
                             cc="Kalle Valo <kvalo@kernel.org>", diff=ATH_DIFF, name="ath.mbox"))
    assert res.json["series"]["profile"] == "wireless"
    assert res.json["series"]["profile_reason"] == ("the files it touches are wireless's "
                                                    "(drivers/net/wireless/ath/ath11k/mac.c); its subject tag "
                                                    "[net-next] reads there as wireless-next")
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["wireless-next"]
    # The near miss: a netdev file with the same tag stays netdev's.
    res = check_json(_single(tmp_path, "[PATCH net-next] net: foo: x", to="ath11k@lists.infradead.org", name="n.mbox"))
    assert (res.json["series"]["profile"], res.json["series"]["profile_reason"]) == ("netdev", "subject tag [net-next]")


def test_former_tree_names_and_sub_trees_are_read(tmp_path, check_json):
    wireless = shipped_profiles()["wireless"]
    assert wireless.read_tree(["wireless-drivers"]).spec.name == "wireless"
    assert wireless.read_tree(["ath-next"]).spec.name == "wireless-next"
    assert wireless.tree_named("ath-next branch of ath.git")[0].name == "wireless-next"
    assert wireless.tree_named("ath-current branch of ath.git")[0].name == "wireless"
    assert wireless.tree_named("wireless-drivers-next.git")[0].name == "wireless-next"
    assert wireless.tree_named("iwlwifi-next.git")[1].name == "iwlwifi-next"
    assert wireless.tree_named("the mm tree") is None
    # `[PATCH wireless-drivers]` in 2021 was the tree's name: no finding. In 2024 it is a note.
    for year, expect in ((2021, []), (2024, ["info"])):
        mail = Mail("[PATCH wireless-drivers] wifi: ath11k: fix x", patch_body(diff=ATH_DIFF),
                    to="linux-wireless@vger.kernel.org")
        res = check_json(write(tmp_path, thread(mail, start=datetime(year, 6, 1, tzinfo=timezone.utc)), f"{year}.mbox"))
        assert [f["severity"] for f in res.json["findings"] if f["rule"] == "subject-format"] == expect
        assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["wireless"]


def test_netdevs_queues_are_routes_to_their_pair(tmp_path, check_json):
    """[PATCH mptcp-net], [PATCH iwl-next], [PATCH ipsec]: a queue feeding net or net-next is a
    tree tag netdev reads as the tree it feeds, with no tree-tag-missing. Near miss: a queue name
    netdev does not know ([PATCH foo-net]) is still no tree."""
    netdev = shipped_profiles()["netdev"]
    for tag, tree in (("mptcp-net", "net"), ("mptcp-next", "net-next"), ("iwl-net", "net"), ("ipsec-next", "net-next")):
        assert netdev.read_tree([tag]).spec.name == tree, tag
        assert netdev.subtree(tag).source.startswith("MAINTAINERS")
    diff = hunk_diff("net/mptcp/subflow.c", ["a"], ["b"])
    for tag, expect in (("mptcp-net", ["net"]), ("foo-net", None)):
        mail = Mail(f"[PATCH {tag}] mptcp: fix a leak in subflow close", patch_body(
            trailers='Fixes: 0123456789ab ("mptcp: x")\nSigned-off-by: Jane Developer <jane@example.org>', diff=diff),
            to="netdev@vger.kernel.org")
        res = check_json(write(tmp_path, thread(mail), f"{tag}.mbox"))
        assert ("tree-tag-missing" in res.rules()) == (expect is None)
        if expect:
            assert [p["tree"] for p in res.json["verdict"]["patches"]] == expect


def test_profile_option_and_unknown_profile(tmp_path, check_json, cli):
    mbox = _single(tmp_path, "[PATCH net] net: foo: fix bar")
    res = check_json(mbox, "--profile", "generic")
    assert res.json["series"]["profile"] == "generic" and res.json["series"]["profile_reason"] == "chosen with --profile"
    bad = cli("check", str(mbox), "--profile", "nosuch")
    assert bad.code == 2 and "unknown profile 'nosuch'" in bad.err and "Traceback" not in bad.err


REPO_TOML = """\
profile = "mlx"

[profiles.mlx]
extends = "netdev"
description = "netdev, as the mlx driver team runs it"
lists = ["mlx-dev@example.org"]

[profiles.mlx.rules]
disable = ["cover-letter-merge-text"]
severity = {tree-mismatch = "error"}

[profiles.mlx.settings]
repost_min_hours = 48

[profiles.can]
description = "CAN: its own trees"
lists = ["linux-can@vger.kernel.org"]
paths = ["net/can/", "drivers/net/can/"]
[[profiles.can.trees]]
name = "can"
kind = "fixes"
pair = "can-next"
[[profiles.can.trees]]
name = "can-next"
kind = "development"
pair = "can"
closed_in_merge_window = true
"""


def test_repository_toml_extends_and_adds_profiles(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".reviewtool.toml").write_text(REPO_TOML)
    profiles = load_profiles(repo.path)
    mlx = profiles["mlx"]
    assert [t.name for t in mlx.trees] == ["net", "net-next"]  # inherited
    assert mlx.disabled == ("cover-letter-merge-text",) and mlx.severity["tree-mismatch"] == "error"
    assert mlx.settings["repost_min_hours"] == 48 and mlx.settings["max_patches"] == 15
    assert profiles["can"].tree("can-next").closed_in_merge_window
    assert profiles["can"].is_test_path("tools/testing/selftests/net/can/x.sh")  # kernel layout by default
    # The repository's default applies when no tag names a tree; a tag still wins.
    p, why = select_profile(profiles, name=None, tags=(), recipients=("netdev@vger.kernel.org",), repo=repo.path)
    assert p.name == "mlx" and why == "repository default (.reviewtool.toml profile)"
    p, why = select_profile(profiles, name=None, tags=("can-next",), recipients=(), repo=repo.path)
    assert p.name == "can" and why == "subject tag [can-next]"


def test_git_config_names_the_default_profile(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.git("config", "reviewtool.profile", "wireless")
    mbox = _single(tmp_path, "[PATCH] wifi: foo: fix bar", to="someone@example.org")
    res = cli("check", str(mbox), "--format", "json", "--repo", str(repo.path))
    assert res.json["series"]["profile"] == "wireless"
    assert res.json["series"]["profile_reason"] == "repository default (git config reviewtool.profile)"
    repo.git("config", "reviewtool.profile", "nosuch")
    bad = cli("check", str(mbox), "--repo", str(repo.path))
    assert bad.code == 2 and "nosuch" in bad.err


@pytest.mark.parametrize("text, message", [
    ("[profiles.x\n", "Expected"),
    ('[profiles.x]\nextends = "nosuch"\n', "extends unknown profile"),
    ('[[profiles.x.trees]]\nname = "t"\nkind = "stable"\n', "fixes or development"),
    ('[[profiles.x.trees]]\nname = "t"\nkind = "fixes"\npair = "u"\n', "pairs with unknown tree"),
    ('[profiles.x]\nlists = "one@example.org"\n', "must be a list"),
])
def test_malformed_repository_config_is_one_line_error(tmp_path, text, message):
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".reviewtool.toml").write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_profiles(repo.path)
    assert message in str(exc.value)


def test_rules_command_shows_profiles_and_enabled_rules(tmp_path, cli, monkeypatch):
    text = cli("rules").out
    for name in ("netdev", "bpf", "wireless", "iproute2", "netfilter", "generic"):
        assert f"  {name}  " in text
    assert "tree net-next       development, ref net-next/main, closed during the merge window" in text
    data = cli("rules", "--format", "json").json
    profs = {p["name"]: p for p in data["profiles"]}
    assert "tree-mismatch" in profs["netdev"]["enabled"] and "tree-mismatch" not in profs["generic"]["enabled"]
    assert "cover-letter-merge-text" not in profs["netfilter"]["enabled"]
    rule = next(r for r in data["rules"] if r["name"] == "fixes-missing")
    assert rule["profiles"]["generic"] == "info" and rule["profiles"]["netdev"] == "warning"
    md = cli("rules", "--format", "markdown").out
    assert "## Rules per profile" in md and "| `net-next-closed` | error | off |" in md
    # A repository's profiles are listed too.
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".reviewtool.toml").write_text(REPO_TOML)
    data = cli("rules", "--format", "json", "--repo", str(repo.path)).json
    mlx = next(p for p in data["profiles"] if p["name"] == "mlx")
    assert mlx["origin"].endswith(".reviewtool.toml") and "cover-letter-merge-text" not in mlx["enabled"]
    monkeypatch.chdir(repo.path)
    assert "  can  " in cli("rules").out


def test_repository_profile_changes_the_review(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".reviewtool.toml").write_text(REPO_TOML)
    mails = series_mails(2, tree="can-next", cover=True)
    mbox = write(tmp_path, thread(*mails, start=datetime(2026, 2, 10, 9, 0, tzinfo=timezone.utc)), "can.mbox")
    res = cli("check", str(mbox), "--format", "json", "--repo", str(repo.path))
    assert res.json["series"]["profile"] == "can"
    hit = next(f for f in res.json["findings"] if f["rule"] == "net-next-closed")
    assert hit["message"].startswith("can-next was closed when this was posted")


def test_a_subsystem_list_beats_lkml_in_front_of_it():
    # Real postings put LKML first in Cc and netdev@ later; netdev's policy still applies.
    profiles = shipped_profiles()
    lkml_first = ("Rob Herring <robh@kernel.org>", "linux-kernel@vger.kernel.org, netdev@vger.kernel.org")
    p, why = select_profile(profiles, name=None, tags=(), recipients=lkml_first)
    assert p.name == "netdev" and why == "sent to netdev@vger.kernel.org"
    # Two subsystem lists: the first one written wins, as before.
    p, _ = select_profile(profiles, name=None, tags=(),
                          recipients=("bpf@vger.kernel.org", "netdev@vger.kernel.org"))
    assert p.name == "bpf"
    p, why = select_profile(profiles, name=None, tags=(), recipients=("linux-kernel@vger.kernel.org",))
    assert p.name == "generic" and why == "sent to linux-kernel@vger.kernel.org"


BT_DIFF = hunk_diff("net/bluetooth/hci_sync.c", ["	return 0;"], ["	return err;"])
BLUEZ_DIFF = hunk_diff("src/adapter.c", ["	return 0;"], ["	return err;"])


def test_linux_bluetooth_carries_two_projects(tmp_path, check_json):
    # BlueZ user space, tagged [PATCH BlueZ], applied without sign-offs: none is asked for.
    mail = Mail("[PATCH BlueZ v2 1/1] adapter: fix the discovery filter", patch_body(trailers="", diff=BLUEZ_DIFF),
                to="linux-bluetooth@vger.kernel.org")
    res = check_json(write(tmp_path, thread(mail), "bluez.mbox"))
    assert res.json["series"]["profile"] == "bluez"
    assert not [f for f in res.json["findings"] if f["rule"].startswith("signed-off-by")]
    # The kernel's Bluetooth patches: untagged, they go to bluetooth-next, and a sign-off is required.
    mail = Mail("[PATCH] Bluetooth: hci_sync: add the foo command", patch_body(trailers="", diff=BT_DIFF),
                to="linux-bluetooth@vger.kernel.org")
    res = check_json(write(tmp_path, thread(mail), "bt.mbox"))
    assert res.json["series"]["profile"] == "bluetooth"
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["bluetooth-next"]
    assert [f["severity"] for f in res.json["findings"] if f["rule"] == "signed-off-by-missing"] == ["error"]
    assert not [f for f in res.json["findings"] if f["rule"] == "tree-tag-missing" and f["severity"] != "info"]
