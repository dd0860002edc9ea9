"""does-not-apply applies a series in a scratch index that holds only the entries the diffs can
meet (context/history/apply.py). Every case here is applied both ways, onto the same base, and must give
the same result as an index of the whole tree, as `git am` has it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitrepo import GitRepo
from reviewtool.context.history import apply as apply_module
from reviewtool.context.history.apply import apply_in_scratch
from reviewtool.context.history.repository import History


def new_file(path: str, text: str = "x\n") -> str:
    lines = text.splitlines(keepends=True)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join("+" + line for line in lines))


def edit_file(path: str, old: str, new: str) -> str:
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1 +1 @@\n-{old}\n+{new}\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A base commit with files, nested directories, a file where a directory could be, a
    directory holding only directories, odd names, a symlink and a binary file; and commits on
    top of it whose diffs are real git output."""
    repo = GitRepo(tmp_path_factory.mktemp("apply") / "repo")
    files = {"a.txt": "".join(f"line {i}\n" for i in range(30)), "dir/b.txt": "b\n", "dir/sub/c.txt": "c\n",
             "blocker": "a file\n", "onlysubs/x/y.txt": "y\n", "sp ace.txt": "space\n", "ünï.txt": "uni\n",
             "star*.txt": "star\n", "other/star1.txt": "one\n"}
    base = repo.commit("base\n", files)
    (repo.path / "link").symlink_to("a.txt")
    (repo.path / "bin.dat").write_bytes(bytes(range(256)) * 8)
    repo.git("add", "link", "bin.dat")
    base = repo.commit("symlink and binary\n")

    def diff_of(change) -> str:
        repo.git("checkout", "-q", "--detach", base)
        change(repo.path)
        repo.git("add", "-A")
        sha = repo.commit("change\n")
        return repo.git("diff", "--binary", "--full-index", "-M", "-C", base, sha, raw=True)

    def edit_a(p: Path, at: int = 3, text: str = "changed") -> None:
        lines = (p / "a.txt").read_text().splitlines(keepends=True)
        lines[at] = text + "\n"
        (p / "a.txt").write_text("".join(lines))

    real = {
        "modify": diff_of(lambda p: edit_a(p)),
        "modify odd names": diff_of(lambda p: [(p / n).write_text("new\n") for n in ("sp ace.txt", "ünï.txt", "star*.txt")]),
        "add": diff_of(lambda p: (p / "dir" / "new.txt").write_text("new\n")),
        "add deep": diff_of(lambda p: ((p / "n1" / "n2").mkdir(parents=True), (p / "n1" / "n2" / "f").write_text("f\n"))),
        "delete": diff_of(lambda p: (p / "dir" / "b.txt").unlink()),
        "rename": diff_of(lambda p: (p / "dir" / "sub" / "c.txt").rename(p / "moved.txt")),
        "copy": diff_of(lambda p: ((p / "a-copy.txt").write_text((p / "a.txt").read_text()), edit_a(p, 5))),
        "mode": diff_of(lambda p: os.chmod(p / "dir" / "b.txt", 0o755)),
        "symlink": diff_of(lambda p: ((p / "link").unlink(), (p / "link").symlink_to("dir/b.txt"))),
        "binary": diff_of(lambda p: (p / "bin.dat").write_bytes(bytes(range(255, -1, -1)) * 8)),
        "file replaces dir": diff_of(lambda p: (__import__("shutil").rmtree(p / "dir"), (p / "dir").write_text("f\n"))),
        "dir replaces file": diff_of(lambda p: ((p / "blocker").unlink(), (p / "blocker").mkdir(),
                                                (p / "blocker" / "in.txt").write_text("in\n"))),
    }
    # A diff made against another version of a.txt: does not apply as is, applies three-way.
    repo.git("checkout", "-q", "--detach", base)
    edit_a(repo.path, 6, "elsewhere")  # within the hunk's context: only a three-way merge applies it
    repo.git("add", "-A")
    other = repo.commit("other\n")
    edit_a(repo.path, 3, "three-way")
    repo.git("add", "-A")
    three = repo.git("diff", "--full-index", other, repo.commit("three\n"), raw=True)
    def series_of(*changes) -> list[tuple[int, str]]:
        """Consecutive commits on base, one per change: their diffs, in order."""
        repo.git("checkout", "-q", "--detach", base)
        out, prev = [], base
        for i, change in enumerate(changes, 1):
            change(repo.path)
            repo.git("add", "-A")
            sha = repo.commit(f"step {i}\n")
            out.append((i, repo.git("diff", "--binary", "--full-index", "-M", prev, sha, raw=True)))
            prev = sha
        return out

    def rm(p: Path, name: str) -> None:
        (p / name).unlink()

    def write(p: Path, name: str, text: str) -> None:
        (p / name).parent.mkdir(parents=True, exist_ok=True)
        (p / name).write_text(text)

    real["series: delete then create again"] = series_of(lambda p: rm(p, "dir/b.txt"),
                                                        lambda p: write(p, "dir/b.txt", "back\n"))
    real["series: rename then edit"] = series_of(lambda p: (p / "dir/sub/c.txt").rename(p / "moved.txt"),
                                                lambda p: write(p, "moved.txt", "c\nmore\n"))
    real["series: edit then revert"] = series_of(lambda p: edit_a(p, 4, "four"), lambda p: edit_a(p, 4, "line 4"))
    real["series: create then delete"] = series_of(lambda p: write(p, "tmp.txt", "t\n"), lambda p: rm(p, "tmp.txt"))
    real["series: three edits, one file"] = series_of(lambda p: edit_a(p, 10, "a"), lambda p: edit_a(p, 11, "b"),
                                                     lambda p: edit_a(p, 10, "c"))
    real["series: file becomes directory"] = series_of(lambda p: rm(p, "blocker"),
                                                      lambda p: write(p, "blocker/in.txt", "in\n"))
    hist = History.open(repo.path)
    yield hist, base, real, three
    hist.close()


def both(hist, base, diffs):
    used = []
    real_read = apply_module._read_entries_for
    apply_module._read_entries_for = lambda *a: used.append(real_read(*a)) or used[-1]
    try:
        sparse = apply_in_scratch(hist.apply_scratch, base, diffs, source=hist)
    finally:
        apply_module._read_entries_for = real_read
    full = apply_in_scratch(hist.apply_scratch, base, diffs, sparse=False, at_once=False, source=hist)  # the index of git am, a patch at a time
    return sparse, full, used


@pytest.mark.parametrize("name", ["modify", "modify odd names", "add", "add deep", "delete", "rename", "copy", "mode",
                                  "symlink", "binary", "file replaces dir", "dir replaces file"])
def test_real_diffs_apply_alike(world, name):
    hist, base, real, _ = world
    sparse, full, used = both(hist, base, [(1, real[name])])
    assert used == [True], "the sparse index was used"
    assert sparse == full and sparse.applied


@pytest.mark.parametrize("diffs", [
    [edit_file("nosuch.txt", "a", "b")],  # a file the base lacks
    [new_file("dir/b.txt")],  # a file the base has
    [new_file("blocker/new.txt")],  # under a file
    [new_file("onlysubs")],  # where a directory of directories is
    [new_file("dir")],  # where a directory of files is
    [new_file("dir/sub")],
    [new_file("fresh.txt"), edit_file("fresh.txt", "x", "y")],  # the second patch needs the first
    # (Creating one file twice is left out: git apply --3way then answers by the index file's
    # timestamps, "racily", whatever the index holds.)
    [edit_file("a.txt", "not there", "x")],
    [new_file("star*.txt")],  # a name with a glob character the base has
    [new_file("star?.txt")],
], ids=lambda d: " + ".join(x.split("\n", 1)[0][11:] for x in d))
def test_crafted_diffs_fail_or_apply_alike(world, diffs):
    hist, base, _, _ = world
    sparse, full, used = both(hist, base, list(enumerate(diffs, 1)))
    assert used == [True]
    assert sparse == full


def test_three_way_and_series_alike(world):
    hist, base, real, three = world
    for diffs in ([(1, three)], [(1, real["add"]), (2, three), (3, real["delete"])],
                  [(1, real["rename"]), (2, real["rename"])]):
        sparse, full, used = both(hist, base, diffs)
        assert used == [True]
        assert sparse == full
    assert both(hist, base, [(1, three)])[0].three_way == (1,)


def test_an_unreadable_diff_reads_the_whole_tree(world):
    hist, base, _, _ = world
    sparse, full, used = both(hist, base, [(1, "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\ngarbage\n")])
    assert used == [False] and sparse == full and not sparse.applied


@pytest.mark.parametrize("name", ["series: delete then create again", "series: rename then edit",
                                  "series: edit then revert", "series: create then delete",
                                  "series: three edits, one file", "series: file becomes directory"])
def test_a_series_applies_at_once_as_patch_by_patch(world, name):
    hist, base, real, three = world
    series = real[name]
    sparse, full, used = both(hist, base, series)
    assert used == [True] and sparse == full and sparse.applied
    # The same series with a patch that cannot apply at its end, and with one needing a merge.
    broken = series + [(len(series) + 1, edit_file("a.txt", "not there", "x"))]
    assert both(hist, base, broken)[:2:1][0] == both(hist, base, broken)[1]
    assert not both(hist, base, broken)[0].applied and both(hist, base, broken)[0].failed_patch == len(series) + 1
    merging = [(1, three)] + [(i + 1, d) for i, d in series]
    sparse, full, _ = both(hist, base, merging)
    assert sparse == full


def test_a_modifying_series_takes_one_git_apply(world, monkeypatch):
    """Patches that only modify files (several of them the same file) go to git in one run;
    one that creates a file a later patch names is applied patch by patch."""
    hist, base, real, _ = world
    calls = []
    run = hist.apply_scratch.run
    monkeypatch.setattr(hist.apply_scratch, "run", lambda args, **kw: (calls.append(args[:2]), run(args, **kw))[1])
    assert apply_in_scratch(hist.apply_scratch, base, real["series: three edits, one file"], source=hist).applied
    assert calls.count(["apply", "--cached"]) == 1
    calls.clear()
    assert apply_in_scratch(hist.apply_scratch, base, real["series: create then delete"], source=hist).applied
    assert calls.count(["apply", "--cached"]) == 2


def test_random_series_apply_at_once_as_patch_by_patch(tmp_path):
    """Random series of creates, modifications, deletions, renames and copies (real git diffs),
    as posted, with a patch dropped and with a modifying patch sent twice: one `git apply` for
    the series, where the structure allows it, answers as applying them one by one does."""
    import random

    rng = random.Random(11)
    repo = GitRepo(tmp_path / "repo")
    names = [f"d{i % 2}/f{i}.c" for i in range(5)]
    base = repo.commit("base\n", {n: "".join(f"{n} line {k}\n" for k in range(12)) for n in names})
    hist = History.open(repo.path)
    fresh = iter(f"d{i % 3}/new{i}.c" for i in range(1000))
    compared = at_once_used = 0
    try:
        for _ in range(25):
            repo.git("checkout", "-q", "--detach", base)
            files = list(names)
            series, kinds, prev = [], [], base
            for step in range(rng.randint(2, 6)):
                op = rng.choice(["modify", "modify", "modify", "create", "delete", "rename", "copy"])
                if op != "create" and not files:
                    op = "create"
                if op == "modify":
                    f = rng.choice(files)
                    lines = (repo.path / f).read_text().splitlines(keepends=True)
                    lines[rng.randrange(len(lines))] = f"step {step}\n"
                    (repo.path / f).write_text("".join(lines))
                elif op == "create":
                    f = next(fresh)
                    (repo.path / f).parent.mkdir(parents=True, exist_ok=True)
                    (repo.path / f).write_text("".join(f"{f} {k}\n" for k in range(10)))
                    files.append(f)
                elif op == "delete":
                    f = files.pop(rng.randrange(len(files)))
                    (repo.path / f).unlink()
                else:  # rename or copy to a fresh name
                    src, dst = rng.choice(files), next(fresh)
                    (repo.path / dst).parent.mkdir(parents=True, exist_ok=True)
                    (repo.path / dst).write_text((repo.path / src).read_text())
                    if op == "rename":
                        (repo.path / src).unlink()
                        files.remove(src)
                    files.append(dst)
                repo.git("add", "-A")
                sha = repo.commit(f"{op}\n")
                series.append(repo.git("diff", "--full-index", "-M", "-C", "-C", prev, sha, raw=True))
                kinds.append(op)
                prev = sha
            variants = [series]
            if len(series) > 2:
                drop = rng.randrange(len(series))
                variants.append(series[:drop] + series[drop + 1:])
            twice = [i for i, k in enumerate(kinds) if k == "modify"]
            if twice:
                i = rng.choice(twice)
                variants.append(series[:i + 1] + [series[i]] + series[i + 1:])
            for diffs in variants:
                numbered = list(enumerate(diffs, 1))
                reference = apply_in_scratch(hist.apply_scratch, base, numbered, sparse=False, at_once=False, source=hist)
                texts = [d if d.endswith("\n") else d + "\n" for d in diffs]
                at_once_used += apply_module._independent_structure(texts)
                for sparse in (False, True):
                    assert apply_in_scratch(hist.apply_scratch, base, numbered, sparse=sparse, source=hist) == reference, (kinds, sparse)
                compared += 1
    finally:
        hist.close()
    assert compared > 50 and at_once_used > 15
