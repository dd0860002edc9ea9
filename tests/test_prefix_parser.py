"""One reading of a summary's `subsystem:` prefixes (mail/subject.py: summary_prefixes) for the
subject rules, the classifier, the revision linker and `profile learn`. Before, three patterns read
them: the subject's took summary words for prefixes ("mwifiex: Remove unneeded variable: "ret""
left '"ret"' as what the patch does), the rules' and learn's refused a first prefix of two words,
and the linker's a prefix with a comma or parentheses."""

from __future__ import annotations

import pytest

from mailfactory import Mail, patch_body, thread, write
from reviewtool.mail.subject import leading_prefixes, parse_subject, summary_prefixes


@pytest.mark.parametrize("summary,prefixes,description", [
    ("net: sched: fix the leak", ("net", "sched"), "fix the leak"),
    ("net/mlx5e: kTLS, fix the leak", ("net/mlx5e",), "kTLS, fix the leak"),
    ("driver core: make it const", ("driver core",), "make it const"),
    ("gprint, oprint: use inet_ntop", ("gprint, oprint",), "use inet_ntop"),
    ("ath11k (gcc13): synchronize the type", ("ath11k (gcc13)",), "synchronize the type"),
    ("wifi:ath11k: fix monitor mode", ("wifi:ath11k",), "fix monitor mode"),  # a blank missing, a prefix still
    ("mac80211 : allow bw change", ("mac80211",), "allow bw change"),
    ("wifi: ath9k: ath9k_set_moredata(): fix sparse warnings", ("wifi", "ath9k", "ath9k_set_moredata()"),
     "fix sparse warnings"),
])
def test_the_shapes_of_subsystem_prefixes(summary, prefixes, description):
    assert tuple(w for w, _ in summary_prefixes(summary)) == prefixes
    s = parse_subject(f"[PATCH] {summary}")
    assert s.subsystem == ": ".join(prefixes) and s.description == description


@pytest.mark.parametrize("summary,prefixes", [
    ('mwifiex: Remove unneeded variable: "ret"', ("mwifiex",)),  # later parts are one word: the rest is summary
    ("mac80211: Fix deadlock: Don't start TX", ("mac80211",)),
    ('Revert "net: foo: add bar"', ()),  # a quote is never part of a prefix
    ("Netfilter queue is unable to mangle fragmented UDP6: bug?", ()),  # a sentence, not a prefix
    ("fix the leak in foo_open()", ()),
    ("net: ", ("net",)),
])
def test_near_misses_are_not_prefixes(summary, prefixes):
    assert tuple(w for w, _ in summary_prefixes(summary)) == prefixes


def test_the_rules_and_learn_read_the_same_prefixes_as_the_subject():
    for summary in ["wifi: rtw88: fix x", "driver core: make it const", 'mwifiex: Remove unneeded variable: "ret"',
                    "MAINTAINERS: wifi: ath: remove x", "mac80211 : allow bw change"]:
        sub = parse_subject(f"[PATCH] {summary}").subsystem
        assert leading_prefixes(summary) == [w.lower() + ":" for w in sub.split(": ")]
    assert leading_prefixes('Revert "net: foo: add bar"') == ["net:", "foo:"]


def _review(tmp_path, check_json, subject: str, *args):
    mbox = write(tmp_path, thread(Mail(f"[PATCH net] {subject}", patch_body())))
    return check_json(mbox, *args).json


def test_a_prefix_without_its_blank_is_still_a_prefix(tmp_path, check_json):
    """`wifi:ath11k: fix ...` (linux-wireless, 2022) was told "the summary has no `subsystem:`
    prefix"; the near miss, a summary without one, still is."""
    found = _review(tmp_path, check_json, "wifi:ath11k: fix monitor mode bringup", "--select", "subject-format")
    assert not any("no `subsystem:` prefix" in f["message"] for f in found["findings"])
    found = _review(tmp_path, check_json, "fix monitor mode bringup", "--select", "subject-format")
    assert any("no `subsystem:` prefix" in f["message"] for f in found["findings"])


def test_the_classifier_reads_what_the_patch_does_after_the_prefixes(tmp_path, check_json):
    """`mac80211: Fix deadlock: Don't start TX ...`: the subject's words were taken for a prefix,
    so the classifier read only "Don't start TX ..." and missed the 'Fix'."""
    data = _review(tmp_path, check_json, "mac80211: Fix deadlock: Don't start TX while holding the lock")
    assert "the subject says 'Fix'" in data["verdict"]["patches"][0]["reasons"]
