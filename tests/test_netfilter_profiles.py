"""What the netfilter maintainers take as posted, as profile data: nf-next queues what a merge
window brings, an untagged kernel patch is routed by the maintainers, and the user-space projects
keep habits of their own (each with a near miss on mail of our own)."""

from datetime import datetime, timezone

from mailfactory import Mail, hunk_diff, patch_body, thread, write

NF = hunk_diff("net/netfilter/nf_tables_api.c", ["	return 0;"], ["	return err;"])
NET = hunk_diff("net/core/dev.c", ["	return 0;"], ["	return err;"])
# The v6.7 merge window: v6.6 on 2023-10-30, v6.7-rc1 on 2023-11-12.
IN_WINDOW = datetime(2023, 11, 5, 10, 0, tzinfo=timezone.utc)


def _findings(check_json, tmp_path, mail: Mail, name: str, when=IN_WINDOW) -> dict[str, str]:
    res = check_json(write(tmp_path, thread(mail, start=when), name))
    return {f["rule"]: f["severity"] for f in res.json["findings"]}


def test_nf_next_queues_what_a_merge_window_brings(tmp_path, check_json):
    body = patch_body(message="Pass the set to the helper as const: it never changes it.", diff=NF)
    nf_next = Mail("[PATCH nf-next] netfilter: nf_tables: pass const set to the helper", body,
                   to="netfilter-devel@vger.kernel.org")
    assert "net-next-closed" not in _findings(check_json, tmp_path, nf_next, "nf-next.mbox")
    # net-next itself is closed in the window (near miss).
    net_next = Mail("[PATCH net-next] net: core: pass const dev to the helper",
                    patch_body(message="Pass the device as const: the helper never changes it.", diff=NET),
                    to="netdev@vger.kernel.org")
    assert _findings(check_json, tmp_path, net_next, "net-next.mbox").get("net-next-closed") == "error"


def test_an_untagged_netfilter_patch_is_routed_by_its_maintainers(tmp_path, check_json):
    body = patch_body(message="Pass the set to the helper as const: it never changes it.", diff=NF)
    untagged = Mail("[PATCH] netfilter: nf_tables: pass const set to the helper", body,
                    to="netfilter-devel@vger.kernel.org")
    later = datetime(2023, 12, 4, 10, 0, tzinfo=timezone.utc)
    assert _findings(check_json, tmp_path, untagged, "nf.mbox", later).get("tree-tag-missing") == "info"
    # The same untagged patch to a netdev file is a warning: netdev asks for the tag (near miss).
    netdev = Mail("[PATCH] net: core: pass const dev to the helper",
                  patch_body(message="Pass the device as const: the helper never changes it.", diff=NET),
                  to="netdev@vger.kernel.org")
    assert _findings(check_json, tmp_path, netdev, "net.mbox", later).get("tree-tag-missing") == "warning"


def test_the_user_space_projects_keep_their_own_habits(tmp_path, check_json):
    """An iptables patch with no description, no `subsystem:` prefix and a fix without Fixes: the
    projects apply such patches; each is a note there, and the kernel's warning elsewhere."""
    diff = hunk_diff("iptables/xshared.c", ["	return 0;"], ["	return ret;"])
    bare = Mail("[iptables PATCH] Fix the return value of the option parser",
                patch_body(message="", diff=diff), to="netfilter-devel@vger.kernel.org")
    found = _findings(check_json, tmp_path, bare, "iptables.mbox", datetime(2023, 12, 4, tzinfo=timezone.utc))
    assert found.get("commit-message-missing") == "info" and found.get("fixes-missing") == "info"
    assert found.get("subject-format") == "info"
    kernel = Mail("[PATCH net] Fix the return value of the helper", patch_body(message="", diff=NET),
                  to="netdev@vger.kernel.org")
    found = _findings(check_json, tmp_path, kernel, "net.mbox", datetime(2023, 12, 4, tzinfo=timezone.utc))
    assert found.get("subject-format") == "warning" and found.get("fixes-missing") == "warning"
