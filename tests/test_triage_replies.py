"""What the maintainers' replies settled, in triage and in check: a hand-made wireless-style
stretch (fixtures/replies/, made by its make.py) with one series per reply form, checked with
the same comparison the acceptance benchmark runs on the real stretches
(benchmarks/bench_reply_states.py)."""

from __future__ import annotations

import sys

import pytest

from conftest import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_reply_states import agreement  # noqa: E402

STRETCH = FIXTURES / "replies" / "wireless-replies.mbox"
TSV = FIXTURES / "replies" / "wireless-replies.states.tsv"
NOW = "2026-03-20T12:00:00Z"


_REPORT: dict = {}


@pytest.fixture
def report(cli):
    """The stretch's triage report, made once (inside the first test's hermetic environment)."""
    if not _REPORT:
        res = cli("triage", STRETCH, "--no-store", "-f", "json", "--now", NOW)
        assert res.code in (0, 1), res.err
        _REPORT.update(res.json)
    return _REPORT


def entry(report, word):
    (item,) = [i for i in report["series"] if word in i["full_subject"] and "superseded_by" not in i]
    return item


def test_every_listed_series_gets_its_state(report):
    ok, bad = agreement(report, TSV)
    assert bad == [] and ok == 11


def test_pwcli_applied_names_tree_maintainer_date_and_commits(report):
    item = entry(report, "foo: alpha")
    assert item["status"] == "applied" and item["verdict"]["status"] == "applied"
    s = item["state"]
    assert (s["tree"], s["tree_words"], s["by"], s["date"][:10]) == (
        "wireless-next", "wireless-next.git", "Kalle Maintainer <kvalo@kernel.org>", "2026-03-03")
    assert s["patches"] is None and s["applied"] == [1, 2] and s["commits"] == ["0ac4827f78c7", "d7fc76039b74"]
    assert item["verdict"]["next_step"].startswith("Nothing to do: applied to wireless-next by Kalle")


def test_a_sub_trees_branch_maps_to_the_development_tree(report):
    s = entry(report, "charlie one")["state"]
    assert (s["tree"], s["tree_words"], s["branch"], s["form"]) == ("wireless-next", "ath/ath.git", "ath-next",
                                                                     "korg-patchwork-bot")
    assert s["by"] == "Jeff Maintainer <jeff@kernel.example>"  # the bot's "by" line, not the bot


def test_changes_requested_gives_the_first_line_of_the_reason(report):
    item = entry(report, "foo: golf")
    assert item["status"] == "changes-requested" and item["state"]["reason"] == "This takes the lock twice."
    quiet = entry(report, "foo: bravo")  # no mail for two weeks: still what the maintainer settled, never stale
    assert (quiet["status"], quiet["was"], quiet["state"]["reason"]) == ("changes-requested", None, "Fails to build:")
    assert not [r for r in quiet["reasons"] if r["code"] == "asked-for-changes"]  # told once


def test_partial_apply_applies_the_named_patches_only(report):
    item = entry(report, "foo: kilo")
    s = item["state"]
    assert item["status"] == "applied" and s["patches"] == [1] and s["not_applied"] == [2]
    assert "Patch 2 was not applied" in item["verdict"]["next_step"]


@pytest.mark.parametrize("word, status", [("foo: hotel", "deferred"), ("foo: india", "rejected"),
                                          ("fix delta", "applied")])
def test_deferred_rejected_and_b4_ty(report, word, status):
    assert entry(report, word)["status"] == status


def test_each_posting_keeps_its_own_state(report):
    v2 = entry(report, "foo: echo")
    assert v2["revision"] == 2 and v2["status"] == "applied"
    (v1,) = [i for i in report["series"] if "foo: echo" in i["full_subject"] and "superseded_by" in i]
    assert v1["state"]["state"] == "changes-requested" and v1["state"]["reason"] == "Please split this."
    (earlier,) = [r for r in v2["reasons"] if r["code"] == "earlier-state"]
    assert earlier["revision"] == 1 and earlier["state"] == v1["state"]


def test_a_reply_whose_patch_is_not_in_the_archive_still_says_what_it_settled(report):
    (orphan,) = report["orphans"]
    assert orphan["answers"] == ["foxtrot-v1-1@example.org"]
    assert (orphan["state"]["state"], orphan["state"]["tree"]) == ("applied", "wireless")


def test_plain_words_from_someone_who_does_not_apply_settle_nothing(report):
    item = entry(report, "foo: juliet")
    assert item["status"] == "needs-review" and item["state"] is None
    assert any("Tess Tester" in n and "not known to apply patches" in n for n in item["notes"])


def _juliet_repo(tmp_path, maintainers: str = "", toml: str = ""):
    from gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    files = {"README": "x\n"}
    if maintainers:
        files["MAINTAINERS"] = maintainers
    if toml:
        files[".reviewtool.toml"] = toml
    repo.commit("init", files)
    return repo


def _juliet(cli, repo, extra: str = ""):
    import re

    text = STRETCH.read_text()
    mails = [m for m in re.split(r"(?m)^(?=From mboxrd@z)", text) if "juliet" in m]
    box = repo.path.parent / "juliet.mbox"  # the test's tmp_path
    box.write_text("".join(mails).replace("Applied, thanks!", extra or "Applied, thanks!"))
    res = cli("triage", box, "--repo", repo.path, "--no-store", "-f", "json", "--now", NOW, "--select", "series")
    (item,) = res.json["series"]
    return item


def test_plain_applied_counts_from_a_maintainers_entry(tmp_path, cli):
    repo = _juliet_repo(tmp_path, "FOO WIRELESS DRIVER\nM:\tTess Tester <tess@example.org>\nL:\tlinux-wireless@vger.kernel.example\n"
                                  "S:\tMaintained\nF:\tdrivers/net/wireless/foo/\n")
    item = _juliet(cli, repo)
    assert item["status"] == "applied" and item["state"]["form"] == "plain-applied"
    # a NAK sends it back to the author (patchwork's Changes Requested), and says it was a NAK
    naked = _juliet(cli, repo, "NACK.\n\nThis breaks the foo firmware.")
    assert naked["status"] == "changes-requested" and naked["state"]["state"] == "nak"


def test_plain_applied_counts_from_the_profiles_appliers(tmp_path, cli):
    repo = _juliet_repo(tmp_path, toml='[profiles.wireless]\nextends = "wireless"\n[profiles.wireless.replies]\n'
                                       'appliers = ["TESS@example.org"]\n')
    assert _juliet(cli, repo)["status"] == "applied"


def test_with_a_repository_already_applied_is_the_applied_status(tmp_path, cli):
    from gitrepo import GitRepo
    from test_triage_status import DEV_C, T0, series
    from mailfactory import thread, write

    repo = GitRepo(tmp_path / "repo")
    repo.commit("net: add dev.c", {"net/core/dev.c": DEV_C})
    repo.commit("applies: change 1", {"net/core/dev.c": DEV_C.replace("bar(dev);", "bar(dev, 0); /* applies */")})
    box = write(tmp_path, thread(*series("applies", 1, cover=False), domain="applies.example", start=T0))
    res = cli("triage", box, "--repo", repo.path, "--tree", "net-next=main", "-f", "json", "--now", NOW,
              "--select", "base", "--no-store")
    (item,) = res.json["series"]
    assert item["status"] == "applied" and item["state"]["form"] == "already-applied"
    assert item["state"]["tree"] == "net-next" and len(item["state"]["commits"]) == 1


def test_check_states_the_state_as_a_note(tmp_path, cli):
    import re

    text = STRETCH.read_text()
    path = tmp_path / "alpha.mbox"
    path.write_text("".join(m for m in re.split(r"(?m)^(?=From mboxrd@z)", text) if "alpha" in m))
    res = cli("check", path)
    assert "Note: applied to wireless-next (wireless-next.git) by Kalle Maintainer <kvalo@kernel.org> on " \
           "2026-03-03" in " ".join(res.out.split())
    data = cli("check", path, "-f", "json").json
    assert data["state"]["state"] == "applied" and data["verdict"]["status"] == "applied"
