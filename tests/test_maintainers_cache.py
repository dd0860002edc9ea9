"""The parsed MAINTAINERS kept between commands (context/maintainers/cache.py): used only for the
same files and the same directories, never trusted to run code."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from reviewtool.context.maintainers import lookup as maintainers_module
from reviewtool.context.maintainers import cache
from reviewtool.context.maintainers.lookup import load_maintainers

MAINTAINERS = """List of maintainers

FOO DRIVER
M:\tFoo Owner <foo@example.org>
L:\tnetdev@vger.kernel.org
S:\tMaintained
F:\tdrivers/foo

LIB
M:\tLib Owner <lib@example.org>
S:\tMaintained
F:\tlib/
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "linux"
    (root / "lib").mkdir(parents=True)
    (root / "MAINTAINERS").write_text(MAINTAINERS)
    (root / ".mailmap").write_text("Foo Owner <foo@example.org> <old@example.org>\n")
    return root


def fresh(root: Path):
    """load_maintainers as a new command sees it: nothing kept in the process."""
    maintainers_module._load_cached.cache_clear()
    return load_maintainers(root)


def owners(m, path: str) -> list[str]:
    return [r.address for r in m.recipients([path])]


def test_the_second_command_reads_the_kept_entry(tree, monkeypatch):
    first = fresh(tree)
    assert cache._entry_path(tree).is_file()
    monkeypatch.setattr(maintainers_module, "parse_maintainers", lambda *a: pytest.fail("parsed again"))
    second = fresh(tree)
    assert second.sections == first.sections and second._index == first._index
    assert owners(second, "lib/x.c") == owners(first, "lib/x.c") == ["lib@example.org"]


def test_an_edited_file_is_read_again(tree):
    fresh(tree)
    (tree / "MAINTAINERS").write_text(MAINTAINERS.replace("lib@example.org", "new@example.org"))
    assert owners(fresh(tree), "lib/x.c") == ["new@example.org"]
    (tree / ".mailmap").write_text("")
    assert fresh(tree).mailmap.by_email == {}


def test_a_new_directory_is_read_again(tree):
    """`F: drivers/foo` names a file until drivers/foo/ exists; then it covers the directory."""
    assert owners(fresh(tree), "drivers/foo/main.c") == []
    (tree / "drivers" / "foo").mkdir(parents=True)
    assert owners(fresh(tree), "drivers/foo/main.c") == ["foo@example.org", "netdev@vger.kernel.org"]
    (tree / "drivers" / "foo").rmdir()
    assert owners(fresh(tree), "drivers/foo/main.c") == []


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps(("other", "shape"))])
def test_a_damaged_entry_is_rebuilt(tree, content):
    fresh(tree)
    cache._entry_path(tree).write_bytes(content)
    assert owners(fresh(tree), "lib/x.c") == ["lib@example.org"]
    assert cache.load(tree, MAINTAINERS, (tree / ".mailmap").read_text()) is not None  # rewritten


class _Planted:
    def __reduce__(self):
        return (os.system, ("touch planted-ran",))


def test_a_planted_entry_cannot_run_code(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fresh(tree)
    cache._entry_path(tree).write_bytes(pickle.dumps(_Planted()))
    assert owners(fresh(tree), "lib/x.c") == ["lib@example.org"]
    assert not (tmp_path / "planted-ran").exists()


def test_an_unwritable_cache_is_skipped(tree, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert owners(fresh(tree), "lib/x.c") == ["lib@example.org"]
    assert owners(fresh(tree), "lib/x.c") == ["lib@example.org"]


def test_only_the_most_recently_used_repositories_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "KEEP", 3)
    trees = []
    for i in range(4):
        root = tmp_path / f"linux{i}"
        root.mkdir()
        (root / "MAINTAINERS").write_text(MAINTAINERS)
        trees.append(root)
    for i, root in enumerate(trees[:3]):
        fresh(root)
        os.utime(cache._entry_path(root), (1_000_000 + i, 1_000_000 + i))
    fresh(trees[0])  # read back: the most recently used now
    assert cache._entry_path(trees[0]).stat().st_mtime > 1_000_002
    fresh(trees[3])
    kept = {p.name for p in cache._entry_path(trees[3]).parent.glob("*.pickle")}
    assert kept == {cache._entry_path(t).name for t in (trees[0], trees[2], trees[3])}
