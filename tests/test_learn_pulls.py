"""`profile learn` from the maintainers' pull requests sent as series (netfilter's way: `[PATCH net
0/6] Netfilter fixes for net`, the request-pull text in the cover letter, the applied patches below
it), on archives of our own (tests/listarchive.py)."""

from __future__ import annotations

import tomllib
from datetime import timedelta

from listarchive import START, Archive, Posting

JANE = "Jane Developer <jane@example.org>"
LAB = "git://git.kernel.example/pub/scm/linux/kernel/git/lab/"


def silent(tag: str, what: str, n: int, hours: int, fixes: bool = False) -> list[Posting]:
    """Postings the maintainers apply without a word in their thread."""
    return [Posting(f"lab: drv{i % 3}: {what} {i}", path=f"drivers/lab/drv{i % 3}/main.c", tag=tag, tree=None,
                    fixes=fixes, when=START + timedelta(days=i, hours=hours)) for i in range(n)]


def learn(cli, tmp_path, postings, pulls):
    """`pulls`: (tag, repository, the postings it carries, where upstream applied it, sender)."""
    a = Archive()
    for p in postings:
        a.post(p)
    a.send_pulls()  # what the maintainer's replies applied, pulled upstream (who applies: learn/pulled.py)
    for i, (tag, repo, carried, into, sender) in enumerate(pulls):
        a.pull_series(tag, LAB + repo, [p.summary for p in carried], into, START + timedelta(days=20, hours=i),
                      sender=sender)
    mbox = a.write(tmp_path / "list.mbox")
    res = cli("profile", "learn", str(mbox), "-o", str(tmp_path / "out.toml"), "--jobs", "1")
    assert res.code == 0, res.err
    text = (tmp_path / "out.toml").read_text()
    return tomllib.loads(text), " ".join(text.replace("\n# ", " ").split())


def test_a_pull_request_sent_as_a_series_shows_its_patches_applied(tmp_path, cli):
    named = [Posting(f"lab: drv1: fix the probe {i}", tag="lab", tree="lab.git", fixes=True,
                     when=START + timedelta(days=i, hours=1)) for i in range(3)]
    fixes, work = silent("lab", "fix a leak", 10, 2, fixes=True), silent("lab-next", "add a knob", 10, 3)
    # Near miss: a contributor's branch offered for review, taken by nobody upstream.
    offered = silent("lab-next", "tidy", 2, 4)
    data, text = learn(cli, tmp_path, named + fixes + work + offered, [
        ("up", "lab.git", fixes, "up/net.git", "Mae Maintainer <mae@kernel.example>"),
        ("up-next", "lab-next.git", work, "up/net-next.git", "Mae Maintainer <mae@kernel.example>"),
        ("lab-next", "jane.git", offered, None, JANE)])
    trees = {t["name"]: t for t in data["trees"]}
    assert set(trees) == {"lab", "lab-next"}
    assert (trees["lab"]["kind"], trees["lab-next"]["kind"]) == ("fixes", "development")
    assert "13 applied postings (2026-03) whose replies name 'lab.git'" in trees["lab"]["source"]
    assert "1 of its pull requests applied to net (1)" in trees["lab"]["source"]
    # lab-next is named by no reply: its pull request shows it, and what it took
    assert trees["lab-next"]["source"].startswith("10 applied postings (2026-03) whose replies name 'lab-next.git'")
    assert "Of the applied postings, 20 are known from the maintainers' pull requests alone" in text
    assert "left out net: it pulls lab" in text and "left out net-next: it pulls lab-next" in text
    assert "23 applied" in data["description"] or "learned from 23 applied postings" in data["description"]


def test_a_trees_kind_from_where_its_pull_requests_went(tmp_path, cli):
    """A tree whose name says nothing (lab-hot) takes the kind of the upstream tree its pull
    requests went to; the same tree sending to the development tree is development."""
    hot = [Posting(f"lab: drv1: fix a crash {i}", tag="lab-hot", tree="lab-hot.git",
                   when=START + timedelta(days=i, hours=1)) for i in range(4)]
    work = [Posting(f"lab: drv2: add a knob {i}", tag="lab-next", tree="lab-next.git",
                    when=START + timedelta(days=i, hours=2)) for i in range(4)]
    for into, kind in (("up/net.git", "fixes"), ("up/net-next.git", "development")):
        data, text = learn(cli, tmp_path, hot + work, [
            ("up", "lab-hot.git", hot[:2], into, "Mae Maintainer <mae@kernel.example>"),
            ("up-next" if kind == "fixes" else "up", "lab-next.git", work[:2],
             "up/net-next.git" if kind == "fixes" else "up/net.git", "Mae Maintainer <mae@kernel.example>")])
        trees = data.get("trees") or [t for prof in data["profiles"].values() for t in prof["trees"]]
        tree = next(t for t in trees if t["name"] == "lab-hot")
        assert tree["kind"] == kind, text
        assert f"its pull requests went to {into.split('/')[1][:-4]} (1), a {kind} tree" in tree["source"]


def test_a_build_robots_reports_show_a_queues_postings_applied(tmp_path, cli):
    """intel-wired-lan's way: the queue's maintainer applies without a word, and the build robot
    reports each branch's head. The queues become sub-trees named as their postings are tagged,
    with their repository and kind; near misses: a main branch (it follows upstream), a sender of
    three reports who is not the robot, and a branch of a tree the replies name count for nothing."""
    from listarchive import lab_list

    fixes = [Posting(f"lab: q: fix the ring {i}", path=f"drivers/lab/q/ring{i}.c", tag="q-lab", tree=None,
                     fixes=True, patches=2, when=START + timedelta(days=i, hours=2)) for i in range(6)]
    window = START + timedelta(days=43)  # 2026-04-14: the merge window of v7.1
    work = [Posting(f"lab: q: add the knob {i}", path=f"drivers/lab/q/knob{i}.c", tag="q-next", tree=None,
                    when=(START if i < 3 else window) + timedelta(days=i, hours=3)) for i in range(6)]
    stray = [Posting(f"lab: q: tidy {i}", path=f"drivers/lab/q/tidy{i}.c", tag="q-next", tree=None,
                     when=START + timedelta(days=i, hours=4)) for i in range(3)]
    a = Archive()
    for p in lab_list() + fixes + work + stray:
        a.post(p)
    a.send_pulls()
    later = START + timedelta(days=10)
    for i, p in enumerate(fixes):
        a.robot_report("mae", "lab-queue", "dev-queue", f"{p.summary} (part 2)", later + timedelta(hours=i))
    for i, p in enumerate(work):
        a.robot_report("mae", "next-queue", "dev-queue" if i % 2 else "100GbE", p.summary,
                       p.when + timedelta(days=1))
    a.robot_report("mae", "next-queue", "main", stray[0].summary, later)
    for i in range(3):  # a stranger writing the robot's words, as often as the robot would
        a.robot_report("mae", "next-queue", "dev-queue", stray[1].summary, later + timedelta(hours=i),
                       sender="kernel test robot <m@evil.example>")
    a.robot_report("lab", "lab-next", "wip", stray[2].summary, later)
    mbox = a.write(tmp_path / "list.mbox")
    res = cli("profile", "learn", str(mbox), "-o", str(tmp_path / "out.toml"), "--jobs", "1")
    assert res.code == 0, res.err
    text = (tmp_path / "out.toml").read_text()
    data, flat = tomllib.loads(text), " ".join(text.replace("\n# ", " ").split())
    subs = {s["name"]: s for s in data["subtrees"]}
    assert (subs["q-lab"]["feeds"], subs["q-lab"]["git"], subs["q-lab"]["paths"]) == ("lab", "lab-queue.git",
                                                                                       ["drivers/lab/q/"])
    assert (subs["q-next"]["feeds"], subs["q-next"]["git"]) == ("lab-next", "next-queue.git")
    assert subs["q-lab"]["source"].startswith("6 applied postings (2026-03) the build robot's reports show at the "
                                              "head of lab-queue.git (dev-queue)")
    assert "its name names lab, a fixes tree" in subs["q-lab"]["source"]
    assert "its postings are tagged [q-lab] 6" in subs["q-lab"]["source"]
    # the queue took postings sent in the merge window (the tree it feeds is closed then); q-lab none
    assert subs["q-next"]["closed_in_merge_window"] is False and "closed_in_merge_window" not in subs["q-lab"]
    assert data["evidence"]["subtrees.q-next.closed_in_merge_window"].startswith("3 of 6 applied postings were posted")
    assert "learned from 50 applied postings" in data["description"]  # 38 + 6 + 6: no stray one
    assert "not counted: 1 postings the build robot shows at the head of a branch of lab-next.git" in flat
    assert "" not in data["replies"]["appliers"]
