"""A person, not a shared mailbox; the trailers a driver's maintainers ask for; a patch that is
another subsystem's inside a series (each class on mails of our own, with near misses)."""

from mailfactory import Mail, cover_body, hunk_diff, patch_body, thread, write

ATH = hunk_diff("drivers/net/wireless/ath/ath11k/mac.c", ["	return 0;"], ["	return ret;"])
RTW = hunk_diff("drivers/net/wireless/realtek/rtw88/pci.c", ["	return 0;"], ["	return ret;"])
NET = hunk_diff("drivers/net/ethernet/foo/foo.c", ["	return 0;"], ["	return ret;"])


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def test_a_team_mailbox_is_no_person(tmp_path, check_json):
    team = "Wireless Driver Team <wifi-team@example.com>"
    mail = Mail("[PATCH] wifi: rtw88: fix x", patch_body(trailers=f"Signed-off-by: {team}", diff=RTW), sender=team,
                to="linux-wireless@vger.kernel.org")
    (hit,) = hits(check_json(write(tmp_path, thread(mail), "team.mbox")), "generic-address")
    assert hit["severity"] == "info" and "shared mailbox ('team')" in hit["message"]
    # A person whose address holds a team-like word inside a name is a person ("Bo Tlist" is not 'list').
    person = "Jane Listner <jane.listner@example.com>"
    mail = Mail("[PATCH] wifi: rtw88: fix x", patch_body(trailers=f"Signed-off-by: {person}", diff=RTW),
                sender=person, to="linux-wireless@vger.kernel.org")
    assert not hits(check_json(write(tmp_path, thread(mail), "person.mbox")), "generic-address")


def test_the_ath_drivers_ask_for_tested_on(tmp_path, check_json):
    mail = Mail("[PATCH] wifi: ath11k: fix x", patch_body(diff=ATH), to="linux-wireless@vger.kernel.org")
    (hit,) = hits(check_json(write(tmp_path, thread(mail), "ath.mbox")), "trailer-required")
    assert hit["severity"] == "info" and "no Tested-on: line" in hit["message"]
    tested = Mail("[PATCH] wifi: ath11k: fix x", patch_body(
        trailers="Tested-on: QCN9074 hw1.0 PCI WLAN.HK.2.5.0.1-01100\nSigned-off-by: Jane Developer <jane@example.org>",
        diff=ATH), to="linux-wireless@vger.kernel.org")
    assert not hits(check_json(write(tmp_path, thread(tested), "tested.mbox")), "trailer-required")
    # Another wireless driver: nothing asked.
    other = Mail("[PATCH] wifi: rtw88: fix x", patch_body(diff=RTW), to="linux-wireless@vger.kernel.org")
    assert not hits(check_json(write(tmp_path, thread(other), "rtw.mbox")), "trailer-required")


def test_a_patch_of_another_subsystem_inside_a_series(tmp_path, check_json):
    mails = [Mail("[PATCH net-next 0/2] use the new irq helper", cover_body("Two drivers move to the new helper."),
                  to="netdev@vger.kernel.org", cc="linux-wireless@vger.kernel.org"),
             Mail("[PATCH net-next 1/2] net: foo: use the new irq helper", patch_body(diff=NET)),
             Mail("[PATCH net-next 2/2] wifi: rtw88: use the new irq helper", patch_body(diff=RTW))]
    res = check_json(write(tmp_path, thread(*mails), "mixed.mbox"))
    (hit,) = hits(res, "split-series")
    assert hit["patch"] == 2 and "touches only wireless's files" in hit["message"]
    assert "linux-wireless@vger.kernel.org" in hit["advice"]
    # All of one subsystem: nothing to move.
    mails[2] = Mail("[PATCH net-next 2/2] net: bar: use the new irq helper", patch_body(diff=NET))
    assert not hits(check_json(write(tmp_path, thread(*mails), "same.mbox")), "split-series")
