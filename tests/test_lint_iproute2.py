"""`reviewtool lint` in a clone of iproute2 (its MAINTAINERS as the project writes it: the list
and the tree maintainers in sections with no F: lines): the iproute2 profile, netdev@ among the
recipients with each tree's maintainer, the tree refs from the clone's remote, and steps that are
the author's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitrepo import GitRepo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
IPROUTE2_GIT = "git://git.kernel.org/pub/scm/network/iproute2/iproute2.git"
JANE = ("Jane Dev", "jane@example.org")


@pytest.fixture
def iproute2(tmp_path):
    """A clone of an iproute2-like upstream, its origin set to the project's URL, two commits ahead."""
    up = GitRepo(tmp_path / "upstream")
    up.commit("init\n", {"MAINTAINERS": (FIXTURES / "maintainers" / "iproute2.MAINTAINERS").read_text(),
                         "ip/ipaddress.c": "int a;\n", "tc/tc.c": "int t;\n", "bridge/bridge.c": "int b;\n"})
    subprocess.run(["git", "clone", "-q", str(up.path), str(tmp_path / "iproute2")], check=True)
    repo = GitRepo(tmp_path / "iproute2", init=False)
    repo.git("config", "user.name", JANE[0])
    repo.git("config", "user.email", JANE[1])
    repo.git("remote", "set-url", "origin", IPROUTE2_GIT)
    repo.commit("tc: fix the parse of rate\n\nThe rate was read as bytes.\n\nSigned-off-by: Jane Dev "
                "<jane@example.org>\n", {"tc/tc.c": "long t;\n"}, author=JANE)
    repo.commit("bridge: show the vlan\n\nShow it.\n\nSigned-off-by: Jane Dev <jane@example.org>\n",
                {"bridge/bridge.c": "long b;\n"}, author=JANE)
    return repo


def lint(cli, repo, *args):
    res = cli("lint", "HEAD~2..HEAD", "--repo", str(repo.path), "--format", "json", *args)
    assert res.code in (0, 1), res.err
    return res.json


def test_the_clone_of_iproute2_is_reviewed_with_the_iproute2_profile(cli, iproute2):
    data = lint(cli, iproute2)
    assert data["series"]["profile"] == "iproute2"
    assert data["series"]["profile_reason"] == f"the repository is iproute2's (remote origin: {IPROUTE2_GIT})"


def test_cc_missing_names_netdev_and_the_maintainer_of_each_patchs_tree(cli, iproute2):
    hit = next(f for f in lint(cli, iproute2)["findings"] if f["rule"] == "cc-missing")
    evidence = "\n".join(hit["evidence"])
    assert "netdev@vger.kernel.org — open list: Main Branch" in evidence
    assert "unknown:" not in evidence  # no S: line: an M: entry is a maintainer
    assert "Jamal Hadi Salim <jhs@mojatatu.com> — maintainer: Traffic Control - tc" in evidence
    # the fix goes to iproute2 (Stephen's), the new work to iproute2-next (David's)
    assert "Stephen Hemminger <stephen@networkplumber.org> — maintainer: Main Branch (tc/tc.c) (patches 1)" in evidence
    assert "David Ahern <dsahern@kernel.org> — maintainer: Next Tree (bridge/bridge.c) (patches 2)" in evidence
    assert "--cc=netdev@vger.kernel.org" in hit["advice"]


def test_every_step_is_the_authors(cli, iproute2):
    data = lint(cli, iproute2)
    steps = [data["verdict"]["next_step"]] + [f["advice"] or "" for f in data["findings"]]
    assert data["verdict"]["next_step"].startswith("Nothing blocks sending it")
    for step in steps:
        assert "apply it" not in step and "applying" not in step and "yourself" not in step, step


def test_tree_refs_come_from_the_remotes_that_hold_the_trees(cli, iproute2):
    not_checked = lint(cli, iproute2)["summary"]["not_checked"]
    # origin is iproute2.git: only iproute2-next, which no remote holds, is missing, and named
    assert not any("no ref for iproute2 " in n for n in not_checked), not_checked
    assert any("no ref for iproute2-next" in n and "--tree iproute2-next=REF" in n for n in not_checked)
    iproute2.git("remote", "add", "next", "https://git.kernel.org/pub/scm/network/iproute2/iproute2-next.git/")
    iproute2.update_ref("refs/remotes/next/main", iproute2.rev("origin/main"))
    assert not any("no ref for" in n for n in lint(cli, iproute2)["summary"]["not_checked"])


def test_a_maintainers_with_a_catch_all_keeps_sections_without_files_to_themselves():
    """The kernel's MAINTAINERS has THE REST (F: *): there a section with no F: line matches no file."""
    from reviewtool.context.maintainers.lookup import Maintainers
    from reviewtool.context.maintainers.file_format import parse_maintainers

    text = ("ODD ONE\nM:\tOdd <odd@example.org>\nL:\todd@vger.kernel.org\nS:\tMaintained\n\n"
            "THE REST\nM:\tLinus <torvalds@example.org>\nL:\tlkml@vger.kernel.org\nS:\tBuried alive in reporters\n"
            "F:\t*\nF:\t*/\n")
    kernel = Maintainers.build(parse_maintainers(text))
    assert [r.address for r in kernel.recipients(["drivers/x.c"])] == []
    own = Maintainers.build(parse_maintainers(text.split("THE REST")[0]))
    assert [r.address for r in own.recipients(["drivers/x.c"])] == ["odd@example.org", "odd@vger.kernel.org"]
