"""fixes-audit over real repositories, and the promise that no command changes the repository
(HEAD, refs, index, config, work tree hashed before and after), on work trees with local
changes, bare repositories and shallow clones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitrepo import kernel_like, snapshot
from mailfactory import Mail, cover_body, patch_body, thread, write

SOB = "Signed-off-by: Jane Developer <jane@example.org>"


@pytest.fixture(scope="module")
def k(tmp_path_factory):
    k = kernel_like(tmp_path_factory.mktemp("audit") / "linux")
    r = k.repo
    r.checkout("main")
    k.c["good"] = r.commit(f'foo: fix open\n\nFixes: {k.c["foo_open"][:12]} ("foo: check the device in open")\n{SOB}\n')
    k.c["bad"] = r.commit("foo: fix close again\n\n"
                          f'Fixes: {k.c["foo_close"][:12]} ("foo: drop the carrier")\n'
                          f'Fixes: {k.c["side"][:12]} ("foo: experimental rework")\n'
                          'fixes: 1234567 ("no such thing")\n'
                          f"{SOB}\n")
    r.branch("fixes-work", k.c["bad"])
    k.c["merge"] = r.merge(k.c["side"], "Merge branch 'side'\n")
    k.c["after_merge"] = r.commit(f'foo: fix rework\n\nFixes: {k.c["side"][:12]} ("foo: experimental rework")\n{SOB}\n')
    return k


def audit(cli, k, *args):
    res = cli("fixes-audit", "--repo", k.path, "--format", "json", *args)
    assert res.code in (0, 1), res.err
    return res


def test_audit_whole_history(cli, k):
    res = audit(cli, k, "HEAD")
    data = res.json
    assert data["audit"]["range"] == "HEAD"
    by_rule = {}
    for f in data["findings"]:
        by_rule.setdefault(f["rule"], []).append(f)
    # every finding names the full sha of the commit carrying the tag
    assert all(len(f["commit"]) == 40 for f in data["findings"])
    assert [f["commit"] for f in by_rule["fixes-subject-mismatch"]] == [k.c["bad"]]
    assert 'Fixes: %s ("foo: drop the carrier on close")' % k.c["foo_close"][:12] in \
        by_rule["fixes-subject-mismatch"][0]["advice"]
    assert [f["commit"] for f in by_rule["fixes-target-unknown"]] == [k.c["bad"]]
    # side was merged only after "bad": not an ancestor there, but fine for the commit after the merge
    assert [(f["commit"], f["evidence"][0].split()[1]) for f in by_rule["fixes-target-not-ancestor"]] == [
        (k.c["bad"], k.c["side"][:12])]
    # fixes-format runs in the audit too
    assert [f["commit"] for f in by_rule["fixes-format"]] == [k.c["bad"]]
    assert "fixes-introduced-in" not in by_rule  # opt-in
    assert data["audit"]["fixes_tags"] == 5  # good 1, bad 3, after_merge 1 (net_fix is not in main)
    assert res.code == 1


def test_audit_range_and_select(cli, k):
    res = audit(cli, k, f"{k.c['bad']}..HEAD", "--select", "fixes-introduced-in")
    assert {f["commit"] for f in res.json["findings"]} == {k.c["after_merge"]}
    assert "no release tag contains it yet" in res.json["findings"][0]["message"]
    assert res.code == 0
    clean = audit(cli, k, f"{k.c['bad']}..HEAD")
    assert clean.json["findings"] == [] and clean.code == 0


def test_audit_text_and_markdown(cli, k):
    text = cli("fixes-audit", "--repo", k.path, f"{k.c['good']}~1..{k.c['bad']}")
    assert text.code == 1
    assert k.c["bad"][:12] in text.out and "foo: fix close again" in text.out
    md = cli("fixes-audit", "--repo", k.path, "--format", "markdown", k.c["bad"])
    assert md.code == 1 and "# Fixes audit" in md.out and "fixes\\-target\\-unknown" not in md.out


def test_audit_bad_range_and_no_repository(cli, k, tmp_path):
    res = cli("fixes-audit", "--repo", k.path, "no-such-ref..HEAD")
    assert res.code == 2 and "no-such-ref" in res.err
    res = cli("fixes-audit", "--repo", k.path, "--", "--output=/tmp/x")
    assert res.code == 2
    res = cli("fixes-audit")  # the test's current directory is no repository
    assert res.code == 2 and "--repo" in res.err


# -- the repository is never changed ----------------------------------------------------------------

def _series(k, tmp_path) -> Path:
    sha, diff = k.repo.patch_on(k.c["net_fix"], "foo: x\n",
                                {"drivers/net/foo/foo.c": ("\t\treturn -ENODEV;\n", "\t\treturn -EIO;\n")})
    body = patch_body(message="Fix.", trailers=f'Fixes: {k.c["foo_open"][:12]} ("wrong")\n{SOB}', diff=diff)
    return write(tmp_path, thread(Mail("[PATCH net 0/1] foo", cover_body(base=k.c["net_fix"])),
                                  Mail("[PATCH net 1/1] foo: x", body)))


def _dirty(path: Path) -> None:
    (path / "README").write_text("local edit, not staged\n")
    (path / "drivers/net/foo/new.c").write_text("/* staged */\n")
    subprocess.run(["git", "-C", str(path), "add", "drivers/net/foo/new.c"], check=True)
    (path / "untracked.txt").write_text("x\n")


def test_check_and_audit_leave_a_dirty_work_tree_alone(tmp_path, cli):
    k = kernel_like(tmp_path / "linux")
    box = _series(k, tmp_path)
    _dirty(k.path)
    k.repo.git("config", "reviewtool.tree.net", "refs/remotes/net/main")
    before = snapshot(k.path)
    objects = k.repo.git("count-objects", "-v")
    for args in (("check", box, "--repo", k.path, "--format", "json"),
                 ("check", box, "--repo", k.path, "--tree", "net-next=side"),
                 ("fixes-audit", "--repo", k.path, "--", "--all"),
                 ("fixes-audit", "--repo", k.path, "HEAD", "--select", "fixes-introduced-in")):
        res = cli(*args)
        assert res.code in (0, 1), (args, res.err)
        assert snapshot(k.path) == before, args
    # the apply check wrote its index and blobs in a scratch repository, not in this one
    assert k.repo.git("count-objects", "-v") == objects


def test_bare_repository(tmp_path, check_json, cli):
    k = kernel_like(tmp_path / "linux")
    bare = tmp_path / "linux.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(k.path), str(bare)], check=True)
    box = _series(k, tmp_path)
    subprocess.run(["git", "-C", str(k.path), "push", "-q", str(bare), "--all"], check=True)
    before = snapshot(bare)
    res = check_json(box, "--repo", str(bare))
    assert [f["rule"] for f in res.json["findings"] if f["rule"].startswith("fixes-subject")] == [
        "fixes-subject-mismatch"]
    assert not [f for f in res.json["findings"] if f["rule"] == "does-not-apply"]
    assert "base-commit-trees" in res.rules()
    assert cli("fixes-audit", "--repo", bare, "--", "--all").code in (0, 1)
    assert snapshot(bare) == before


def test_shallow_clone_says_what_it_could_not_check(tmp_path, check_json):
    k = kernel_like(tmp_path / "linux")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", "--no-local", "-b", "main", str(k.path), str(shallow)],
                   check=True)
    old_target = k.c["foo_open"]  # older than the depth: not in the clone
    sha, diff = k.repo.patch_on("main", "docs: x\n", {"README": ("foo driver\n", "foo driver.\n")})
    body = patch_body(message="Docs.", trailers=f'Fixes: {old_target[:12]} ("foo: check the device in open")\n{SOB}',
                      diff=diff)
    box = write(tmp_path, thread(Mail("[PATCH net] docs: x", body)))
    before = snapshot(shallow)
    res = check_json(box, "--repo", str(shallow))
    assert not [f for f in res.json["findings"] if f["rule"] in ("fixes-target-unknown", "fixes-target-not-ancestor")]
    notes = " ".join(res.json["summary"]["notes"])
    assert "shallow clone" in notes and old_target[:12] in notes
    assert snapshot(shallow) == before


def test_a_linked_worktree_of_a_shallow_clone_reads_the_common_boundary(tmp_path, check_json):
    """The shallow file is shared by all worktrees (`git rev-parse --git-path shallow`): the
    scratch repository and the kept subject log use that one, not the worktree's git dir."""
    from reviewtool.context.history.repository import History

    k = kernel_like(tmp_path / "linux")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", "--no-local", "-b", "main", str(k.path), str(shallow)],
                   check=True)
    worktree = tmp_path / "wt"
    subprocess.run(["git", "-C", str(shallow), "worktree", "add", "-q", "--detach", str(worktree)], check=True)
    hist = History.open(worktree)
    try:
        assert hist.is_shallow and hist.shallow_file.resolve() == (shallow / ".git" / "shallow").resolve()
        assert (hist.scratch.dir / "shallow").read_text() == (shallow / ".git" / "shallow").read_text()
    finally:
        hist.close()
    sha, diff = k.repo.patch_on("main", "docs: x\n", {"README": ("foo driver\n", "foo driver.\n")})
    box = write(tmp_path, thread(Mail("[PATCH net] docs: x", patch_body(message="Docs.", trailers=SOB, diff=diff))))
    before = snapshot(shallow)
    res = check_json(box, "--repo", str(worktree))
    assert res.code in (0, 1) and "shallow clone" in " ".join(res.json["summary"]["notes"])
    assert snapshot(shallow) == before
