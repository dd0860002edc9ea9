"""A mailman list's subject prefix is the list's, not the patch's: `[Intel-wired-lan] [PATCH iwl-net]`
reads as `[PATCH iwl-net]`, and the list's word is no tree tag. Near misses keep their tags."""

from mailfactory import Mail, patch_body, thread, write

from reviewtool.mail.subject import list_name_of, parse_subject


def test_the_lists_prefix_is_set_apart():
    s = parse_subject("[Intel-wired-lan] [PATCH iwl-net v2 1/3] igc: fix the typo in the PTM mask")
    assert (s.list_prefix, s.tags, s.revision, s.counter, s.expected) == ("Intel-wired-lan", ("iwl-net",), 2, 1, 3)
    r = parse_subject("Re: [Intel-wired-lan] [PATCH iwl-next] ice: add a thing")
    assert (r.reply, r.list_prefix, r.tags) == (True, "Intel-wired-lan", ("iwl-next",))
    assert parse_subject("[lvc-project] [PATCH] foo: bar").list_prefix == "lvc-project"


def test_near_misses_keep_their_tags():
    # a lower-case tree tag in its own bracket is the author's route, not a list's prefix
    assert parse_subject("[net-next][PATCH v2] net: foo").tags == ("net-next",)
    # no PATCH bracket after it: an ordinary bracket (a list's own announcement, say)
    plain = parse_subject("[Intel-wired-lan] meeting notes")
    assert (plain.list_prefix, plain.tags) == (None, ("Intel-wired-lan",))
    assert parse_subject("[iptables PATCH] nft: fix").list_prefix is None


def test_a_required_prefix_is_asked_for_once_the_maintainers_add_it_to_every_patch(tmp_path, check_json):
    """The wireless profile's `wifi:` (data: `since`, when posters were asked; `noted_since`, when
    the maintainers began adding it to every patch they applied): from `noted_since` on, a summary
    without it is edited when applied, so the author hears it at warning strength; before either
    date, nothing is said (near miss)."""
    from datetime import datetime, timezone

    from mailfactory import Mail, hunk_diff, patch_body, thread, write

    diff = hunk_diff("drivers/net/wireless/realtek/rtw88/pci.c", ["	return 0;"], ["	return ret;"])
    mail = Mail("[PATCH] rtw88: fix the return value", patch_body(diff=diff), to="linux-wireless@vger.kernel.org")

    def required(when):
        res = check_json(write(tmp_path, thread(mail, start=when), f"{when:%Y%m%d}.mbox"))
        return [f for f in res.json["findings"] if f["rule"] == "subject-format" and "'wifi:'" in f["message"]]

    (added,) = required(datetime(2022, 7, 1, tzinfo=timezone.utc))
    assert added["severity"] == "warning" and "added by the maintainers to every patch they apply" in added["message"]
    (asked,) = required(datetime(2022, 9, 1, tzinfo=timezone.utc))
    assert asked["severity"] == "warning" and "required since 2022-07-27" in asked["message"]
    assert required(datetime(2022, 5, 1, tzinfo=timezone.utc)) == []


def test_the_bus_drivers_the_wireless_list_carries_keep_their_own_prefix(tmp_path, check_json):
    """`wifi:` is the 802.11 code's (the entry's paths); bcma and ssb, on the same list, keep
    `bcma:`/`ssb:`. A driver under drivers/net/wireless/ is asked for it (near miss)."""
    from datetime import datetime, timezone

    from mailfactory import Mail, hunk_diff, patch_body, thread, write

    def required(path: str, subject: str):
        diff = hunk_diff(path, ["	return 0;"], ["	return ret;"])
        mail = Mail(f"[PATCH] {subject}", patch_body(diff=diff), to="linux-wireless@vger.kernel.org")
        res = check_json(write(tmp_path, thread(mail, start=datetime(2024, 3, 8, tzinfo=timezone.utc)), "p.mbox"))
        return [f for f in res.json["findings"] if f["rule"] == "subject-format" and "'wifi:'" in f["message"]]

    assert required("drivers/bcma/host_soc.c", "bcma: convert to the remove callback returning void") == []
    assert required("drivers/ssb/main.c", "ssb: make ssb_bustype const") == []
    assert len(required("drivers/net/wireless/broadcom/b43/main.c", "b43: make b43_bustype const")) == 1


def test_a_prefix_named_after_the_list_that_delivered_it():
    # `[LTP]` has no list's shape; the List-Id says it is the list's own
    lid = list_name_of("Linux Test Project <ltp.lists.example.org>")
    assert lid == "ltp" and list_name_of("ovs-dev.openvswitch.example") == "ovs-dev"
    s = parse_subject("[LTP] [PATCH v2 1/2] syscalls: fix a thing", lid)
    assert (s.list_prefix, s.tags, s.revision) == ("LTP", (), 2)
    assert parse_subject("[ovs-dev] [PATCH] netdev: fix", "ovs-dev").tags == ()
    # near misses: another list's name, no List-Id, or no PATCH bracket after it keep the tag
    assert parse_subject("[LTP] [PATCH] syscalls: fix", "linux-wireless").tags == ("LTP",)
    assert parse_subject("[LTP] [PATCH] syscalls: fix").tags == ("LTP",)
    assert parse_subject("[LTP] release notes", "ltp").list_prefix is None
    assert list_name_of(None) is None and list_name_of("no id here") is None


def test_the_review_reads_the_list_id_of_the_mail(tmp_path, check_json):
    # `[Lab] [PATCH net]` delivered by lab.lists.example.org: the tree is net, the tag [Lab] is the list's
    mail = Mail("[Lab] [PATCH net] foo: fix the flags", patch_body(trailers="Fixes: 0123456789ab (\"foo: x\")\n"
                "Signed-off-by: Jane Developer <jane@example.org>"),
                extra_headers={"List-Id": "The lab list <lab.lists.example.org>"})
    res = check_json(write(tmp_path, thread(mail)))
    assert res.json["series"]["tags"] == ["net"] and res.json["series"]["tree"] == "net"
    # near miss: the same subject from a list of another name keeps [Lab] as its first tag
    other = Mail("[Lab] [PATCH net] foo: fix the flags", mail.body,
                 extra_headers={"List-Id": "Another <other.lists.example.org>"})
    assert check_json(write(tmp_path, thread(other), "other.mbox")).json["series"]["tags"] == ["Lab", "net"]
