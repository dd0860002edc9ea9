"""The subject log kept between commands (context/history/subjects_cache.py): read back only for the same
commit, arguments and shallow boundary, and always the same answer as walking again."""

from __future__ import annotations


import pytest

from gitrepo import GitRepo
from reviewtool.context.history import subjects_cache
from reviewtool.context.history.repository import History
from reviewtool.context.history.ranges import _subjects_args


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    r = GitRepo(tmp_path / "repo")
    for i in range(12):
        r.commit(f"net: sched: change {i}\n", {f"net/sched/f{i % 3}.c": f"v{i}\n", "lib/x.c": f"x{i}\n"})
    return r


def subjects(repo: GitRepo, ref: str | None) -> tuple[list, int]:
    """subjects_touching as a new command sees it, and how many git processes it started."""
    hist = History.open(repo.path)
    try:
        before = hist.runner.calls
        log = hist.subjects_touching(["net/sched/f1.c", "lib/x.c"], ref, limit=100)
        return log, hist.runner.calls - before
    finally:
        hist.close()


def test_a_second_command_reads_the_kept_log(repo):
    head = repo.rev("HEAD")
    first, walked = subjects(repo, head)
    assert walked > 0 and len(first) == 11  # every commit but the root (its listing is the whole tree)
    second, walked_again = subjects(repo, head)
    assert second == first and walked_again == 0


def test_a_branch_name_is_walked_every_time(repo):
    """A name can point elsewhere tomorrow: only a commit id is a key."""
    subjects(repo, "HEAD")
    assert subjects(repo, "HEAD")[1] > 0
    assert subjects_cache.entry_path(repo.path / ".git", "HEAD", _subjects_args("HEAD")) is None


def test_another_commit_or_a_deeper_clone_is_another_entry(repo, tmp_path):
    head, older = repo.rev("HEAD"), repo.rev("HEAD~3")
    assert subjects(repo, older)[0] != subjects(repo, head)[0]
    git_dir = repo.path / ".git"
    plain = subjects_cache.entry_path(git_dir, head, _subjects_args(head))
    (git_dir / "shallow").write_text(older + "\n")
    try:
        assert subjects_cache.entry_path(git_dir, head, _subjects_args(head)) != plain
    finally:
        (git_dir / "shallow").unlink()


@pytest.mark.parametrize("content", [b"", b"not zlib", __import__("zlib").compress(b"other format\n")])
def test_a_damaged_entry_is_walked_again(repo, content):
    head = repo.rev("HEAD")
    first, _ = subjects(repo, head)
    path = subjects_cache.entry_path(repo.path / ".git", head, _subjects_args(head))
    path.write_bytes(content)
    again, walked = subjects(repo, head)
    assert again == first and walked > 0
    assert subjects(repo, head)[1] == 0  # written anew


def test_an_unwritable_cache_is_skipped(repo, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    head = repo.rev("HEAD")
    assert subjects(repo, head)[1] > 0 and subjects(repo, head)[1] > 0
    assert subjects(repo, head)[0][0][1] == "net: sched: change 11"


def test_the_split_walk_lists_what_git_log_lists(tmp_path):
    """rev-list + two diff-tree --stdin (history_ops.SplitWalk) give every commit's files as
    `git log --name-only` does, on a history with a root commit, merges, renames, deletions,
    binary files and names with spaces and non-ASCII letters."""
    from reviewtool.context.history.ranges import _RS, SplitWalk

    r = GitRepo(tmp_path / "repo")
    r.commit("root\n", {"a.c": "a\n", "dir/b.c": "b\n"})
    for i in range(9):
        r.commit(f"sub{i % 3}: change {i}\n", {f"dir/f {i % 4}.c": f"{i}\n", "ünï/x.c": f"{i}\n"})
    r.git("checkout", "-q", "-b", "side", "HEAD~4")
    r.commit("side: one\n", {"side.c": "s\n"})
    r.git("mv", "dir/b.c", "dir/moved.c")
    r.commit("side: rename\n")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "Merge side", "side")
    (r.path / "bin.dat").write_bytes(bytes(range(256)))
    r.git("add", "bin.dat")
    r.git("rm", "-q", "a.c")
    r.commit("last: binary in, a.c out\n")
    hist = History.open(r.path)
    try:
        def records(text: str) -> list[str]:
            return [rec for rec in text.split(_RS)[1:] if rec.strip().count("\n")]  # those listing files

        logged = hist.runner.run(_subjects_args("HEAD")).out
        split = SplitWalk(hist.runner, "HEAD").result()
        assert split.code == 0
        assert records(split.out) == records(logged) and len(records(logged)) == 12
    finally:
        hist.close()


def test_only_the_most_recently_used_entries_are_kept(tmp_path, monkeypatch):
    """A fetch a day would add an entry a day: the KEEP most recently used stay."""
    import os

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(subjects_cache, "KEEP", 3)
    git_dir = tmp_path / "repo.git"
    git_dir.mkdir()
    paths = [subjects_cache.entry_path(git_dir, f"{i:040x}", ["log"]) for i in range(5)]
    for i, path in enumerate(paths[:3]):
        subjects_cache.store(path, f"log {i}")
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    assert subjects_cache.load(paths[0]) == "log 0"  # used again: now the newest
    subjects_cache.store(paths[3], "log 3")
    assert sorted(p.name for p in paths[0].parent.glob("*.z")) == sorted(p.name for p in (paths[0], paths[2], paths[3]))
    subjects_cache.store(paths[4], "log 4")
    assert subjects_cache.load(paths[2]) is None and subjects_cache.load(paths[4]) == "log 4"
