"""Every triage status, from one archive of hand-built netdev-style series (and real threads)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from conftest import CORPUS
from mailfactory import DEFAULT_DIFF, Mail, patch_body, series_mails, thread, write

NOW = "2026-11-05T12:00:00Z"
T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
RULES = ("--select", "series", "--select", "signoff")  # keep the statuses independent of other families


def series(name: str, n: int = 2, *, tree: str = "net-next", version: int = 1, cover: bool = True, **kw):
    # Each series changes its own line: one author's series with the same diff are reposts of one
    # patch to triage (grouping links them by sender address, files and changed lines).
    own = patch_body(diff=DEFAULT_DIFF.replace("bar(dev, 0);", f"bar(dev, 0); /* {name} */"))
    kw.setdefault("bodies", {i: own for i in range(1, n + 1)})
    mails = series_mails(n, tree=tree, version=version, cover=cover,
                         subjects={i: f"{name}: change {i}" for i in range(1, n + 1)}, **kw)
    if cover:
        mails[0].subject = mails[0].subject.replace("foo: fix two things", f"{name}: rework")
    return mails


def reply(subject: str, body: str, to: str, *, who: str = "Rita Reviewer <rita@example.org>",
          msgid: str, when: datetime | None = None) -> Mail:
    return Mail(subject, body, sender=who, in_reply_to=to, msgid=msgid, date=when)


def cover_id(domain: str) -> str:
    return f"20261102100000.1000-0-jane@{domain}"


def patch_id(domain: str, i: int) -> str:
    return f"20261102100000.{1000 + i}-{i}-jane@{domain}"


def build_archive(tmp_path):
    parts = []
    # ready: complete, a Reviewed-by on the cover letter from someone else, no errors
    ready = series("ready")
    parts.append(thread(*ready, domain="ready.example", start=T0)
                 + "\n" + thread(reply("Re: " + ready[0].subject, "Nice.\n\nReviewed-by: Rita Reviewer <rita@example.org>\n",
                                       cover_id("ready.example"), msgid="r1@rita.example",
                                       when=T0 + timedelta(hours=3)), domain="x"))
    # needs-review: nobody answered
    parts.append(thread(*series("quiet"), domain="quiet.example", start=T0))
    # needs-revision by an error finding: no Signed-off-by
    parts.append(thread(*series("nosob", 1, cover=False, bodies={1: patch_body(trailers="")}),
                        domain="nosob.example", start=T0))
    # changes-requested by a maintainer's `pw-bot: cr` (one the series was sent to: such commands
    # count from the author, appliers and the people in To/Cc), although patch 1 got a Reviewed-by
    cr = series("asked")
    for m in cr:
        m.cc = "Mae Maintainer <mae@kernel.org>"
    parts.append(thread(*cr, domain="asked.example", start=T0)
                 + "\n" + thread(reply("Re: " + cr[1].subject, "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                                       patch_id("asked.example", 1), msgid="r2@rita.example"),
                                 reply("Re: " + cr[2].subject, "> x\n\nThis takes the lock twice.\n\npw-bot: cr\n",
                                       patch_id("asked.example", 2), who="Mae Maintainer <mae@kernel.org>",
                                       msgid="cr@mae.example"), domain="y", thread_to_first=False))
    # incomplete: patch 2 of 3 never arrived
    part = series("partial", 3)
    parts.append(_without(thread(*part, domain="partial.example", start=T0), part[2].subject))
    # stale: unreviewed, and no mail since September
    parts.append(thread(*series("old"), domain="old.example", start=datetime(2026, 9, 1, tzinfo=timezone.utc)))
    # superseded: v1 and v2 of one series; v2 is triaged
    parts.append(thread(*series("twice"), domain="v1.example", start=T0 - timedelta(days=2)))
    parts.append(thread(*series("twice", version=2), domain="v2.example", start=T0))
    return write(tmp_path, "\n".join(parts))


def _without(mbox: str, subject: str) -> str:
    mails = mbox.split("From mboxrd@z Thu Jan  1 00:00:00 1970\n")
    return "From mboxrd@z Thu Jan  1 00:00:00 1970\n".join(m for m in mails if f"Subject: {subject}\n" not in m)


@pytest.fixture
def report(tmp_path, cli):
    res = cli("triage", build_archive(tmp_path), "--format", "json", "--now", NOW, *RULES)
    assert res.code == 1, res.err  # the unsigned patch is an error finding
    return res.json


def status_of(report, name: str) -> dict:
    (item,) = [i for i in report["series"] if f"{name}: " in i["full_subject"] and i["status"] != "superseded"]
    return item


def test_ready(report):
    item = status_of(report, "ready")
    assert item["status"] == "ready"
    assert item["reviewers"] == ["Rita Reviewer <rita@example.org>"] and item["reviewed"] == [1, 2]
    assert {"code": "apply-not-checked"} in item["reasons"]  # no --repo: said, not guessed


def test_needs_review(report):
    item = status_of(report, "quiet")
    assert item["status"] == "needs-review"
    assert any(r["code"] == "unreviewed" and r["missing"] == [1, 2] for r in item["reasons"])


def test_needs_revision_for_error_findings(report):
    item = status_of(report, "nosob")
    assert item["status"] == "needs-revision"
    assert any(r["code"] == "errors" and "signed-off-by-missing" in r["rules"] for r in item["reasons"])


def test_changes_requested_when_a_reviewer_says_pw_bot_cr(report):
    item = status_of(report, "asked")
    assert item["status"] == "changes-requested" and item["counts"]["errors"] == 0
    state = item["state"]
    assert state["by"] == "Mae Maintainer <mae@kernel.org>" and state["evidence"] == "pw-bot: cr"
    assert state["msgid"] == "cr@mae.example" and state["patches"] == [2] and state["form"] == "pw-bot"
    assert state["reason"] == "This takes the lock twice."  # the first line of the reviewer's words
    assert {"code": "state", **state} == item["reasons"][0]
    assert item["verdict"]["status"] == "changes-requested" and "Wait for a new revision" in item["verdict"]["next_step"]


def test_incomplete(report):
    item = status_of(report, "partial")
    assert item["status"] == "incomplete" and item["missing"] == [2]
    assert {"code": "missing", "missing": [2], "expected": 3} in item["reasons"]


def test_stale_keeps_what_it_was(report):
    item = status_of(report, "old")
    assert item["status"] == "stale" and item["was"] == "needs-review"
    assert item["reasons"][0]["code"] == "stale" and item["reasons"][0]["days"] == 65


def test_superseded(report):
    (old,) = [i for i in report["series"] if i["status"] == "superseded"]
    assert old["revision"] == 1 and old["superseded_by"]["revision"] == 2
    assert status_of(report, "twice")["revision"] == 2


def test_counts_cover_every_status(report):
    assert report["counts"] == {"ready": 1, "needs-review": 2, "needs-revision": 1, "wrong-tree": 0,
                                "incomplete": 1, "changes-requested": 1, "stale": 1, "deferred": 0,
                                "applied": 0, "rejected": 0, "superseded": 1}


def test_stale_days_is_configurable(tmp_path, cli):
    archive = build_archive(tmp_path)
    res = cli("triage", archive, "--format", "json", "--now", NOW, "--stale-days", "100", *RULES)
    assert status_of(res.json, "old")["status"] == "needs-review"
    res = cli("triage", archive, "--format", "json", "--now", "2026-12-31", "--stale-days", "30", *RULES)
    assert status_of(res.json, "ready")["status"] == "ready"  # ready stays ready: it can be applied
    assert status_of(res.json, "quiet")["status"] == "stale"


def test_author_answering_changes_requested_is_not_a_request(tmp_path, cli):
    mails = series("self", 1, cover=False)
    text = thread(*mails, domain="self.example", start=T0) + "\n" + thread(
        reply("Re: " + mails[0].subject, "changes requested: none, this is the final form\n",
              cover_id("self.example"), who="Jane Developer <jane@example.org>",
              msgid="self@jane.example"), domain="z")
    res = cli("triage", write(tmp_path, text), "--format", "json", "--now", NOW, *RULES)
    assert res.json["series"][0]["status"] == "needs-review"


def test_real_thread_with_reviews_is_ready(cli):
    res = cli("triage", CORPUS / "netfilter-devel" / "nf-socket-icmp6-use-after-scope.mbox", "--format", "json",
              "--now", "2021-09-05", *RULES)
    (item,) = res.json["series"]
    # Pablo's "Applied, thanks." in the thread settles it: applied to nf, the tree its tag names
    assert item["status"] == "applied" and "Florian Westphal <fw@strlen.de>" in item["reviewers"]
    assert (item["state"]["tree"], item["state"]["by"]) == ("nf", "Pablo Neira Ayuso <pablo@netfilter.org>")


def test_wrong_tree_from_the_tree_verdict(cli):
    """The bundled example: a [PATCH net] series whose patch 3 is net-next material."""
    res = cli("triage", CORPUS.parents[1] / "examples" / "net-foo-3-patches.mbox", "--format", "json", "--now", NOW)
    (item,) = res.json["series"]
    assert item["status"] == "wrong-tree"
    reason = next(r for r in item["reasons"] if r["code"] == "wrong-tree")
    assert reason["next_step"] == item["verdict"]["next_step"] and "net-next" in reason["next_step"]
    text = cli("triage", CORPUS.parents[1] / "examples" / "net-foo-3-patches.mbox", "--now", NOW).out
    assert "→ Send patches 1, 2 to net" in text


def _repo_and_series(tmp_path, file_text: str):
    from gitrepo import GitRepo, snapshot

    repo = GitRepo(tmp_path / "repo")
    repo.commit("net: add dev.c", {"net/core/dev.c": file_text})
    mails = series("applies", 1, cover=False)
    review = reply("Re: " + mails[0].subject, "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                   cover_id("applies.example"), msgid="rv@rita.example")
    box = write(tmp_path, thread(*mails, domain="applies.example", start=T0) + "\n" + thread(review, domain="r"),
                "applies.mbox")
    return repo, box, snapshot(repo.path)


DEV_C = "".join(f"/* line {i} */\n" for i in range(1, 10)) + \
    "{\n\tint err;\n\n\terr = bar(dev);\n\tif (err)\n\t\treturn err;\n\treturn 0;\n}\n"


def test_ready_with_a_repository_checked_that_it_applies(tmp_path, cli):
    from gitrepo import snapshot

    repo, box, before = _repo_and_series(tmp_path, DEV_C)
    args = ("triage", box, "--repo", repo.path, "--tree", "net-next=main", "--format", "json", "--now", NOW,
            "--select", "series", "--select", "signoff", "--select", "base", "--jobs", "2")
    (item,) = cli(*args).json["series"]
    assert item["status"] == "ready" and {"code": "apply-not-checked"} not in item["reasons"]
    assert snapshot(repo.path) == before  # the user's repository is left alone

    repo2, box2, _ = _repo_and_series(tmp_path / "other", DEV_C.replace("bar(dev)", "baz(dev)"))
    args2 = ("triage", box2, "--repo", repo2.path, "--tree", "net-next=main", "--format", "json", "--now", NOW,
             "--select", "series", "--select", "signoff", "--select", "base")
    (item,) = cli(*args2).json["series"]
    assert item["status"] == "needs-revision"
    assert any(r["code"] == "errors" and r["rules"] == ["does-not-apply"] for r in item["reasons"])


def test_a_ready_series_with_a_tree_doubt_gets_the_verdicts_next_step(tmp_path, cli):
    """triage and check give one next step: a reviewed net-next patch that reads as a fix is
    ready, and the next step is check's "Settle the tree", not "apply it"."""
    mails = series_mails(1, tree="net-next", cover=False, subjects={1: "foo: fix a use-after-free in foo_open"})
    review = reply("Re: " + mails[0].subject, "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                   "20261102100000.1000-0-jane@doubt.example", msgid="rv@rita.example")
    box = write(tmp_path, thread(*mails, domain="doubt.example", start=T0) + "\n" + thread(review, domain="r"))
    data = cli("triage", box, "--format", "json", "--now", NOW).json
    (item,) = data["series"]
    assert item["status"] == "ready" and item["verdict"]["status"] == "ready"
    assert item["verdict"]["next_step"].startswith("Settle the tree before applying")
    text = " ".join(cli("triage", box, "--now", NOW).out.split())
    assert "→ Settle the tree before applying" in text and "→ apply it" not in text
