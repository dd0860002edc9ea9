"""MAINTAINERS and .mailmap matching (context/maintainers/lookup.py) on a get_maintainer-compatible fixture,
and agreement with the real scripts/get_maintainer.pl when a kernel source tree is on the machine
(Debian's linux-source package ships one; the script is never a runtime dependency)."""

from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from lintrepo import KERNEL_DIRS, MAILMAP, MAINTAINERS, add_driver_history, kernel_repo, work_branch
from reviewtool.context.maintainers.lookup import Maintainers, context_stage, load_maintainers
from reviewtool.context.maintainers.mailmap import parse_mailmap
from reviewtool.context.maintainers.file_format import parse_maintainers


@pytest.fixture(scope="module")
def maint() -> Maintainers:
    return Maintainers.build(parse_maintainers(MAINTAINERS), parse_mailmap(MAILMAP))


def names(recipients) -> list[str]:
    return [str(r) for r in recipients]


def test_sections_parsed_from_file_order(maint):
    titles = [s.title for s in maint.sections]
    assert titles == ["NETWORKING DRIVERS", "NETWORKING [GENERAL]", "FOO ETHERNET DRIVER", "WIRELESS DRIVERS",
                      "BAR LIBRARY", "THE REST"]
    assert maint.sections[-1].catch_all and not maint.sections[0].catch_all
    assert maint.sections[2].role == "supporter" and maint.sections[4].role == "orphan minder"


def test_most_specific_section_first_and_mailmap(maint):
    got = maint.recipients(["drivers/net/ethernet/foo/foo_main.c"])
    # FOO (drivers/net/ethernet/foo/, depth 4) before NETWORKING DRIVERS (drivers/net/, depth 2);
    # the reviewer's old address is rewritten by .mailmap; subscribers-only list and THE REST left out.
    assert names(got) == ["Foo Owner <foo.owner@example.com>", "Old Name <new.address@example.com>",
                          "Dave Net <davem@example.org>", "Jakub Net <kuba@example.org>",
                          "Rita Reviewer <rita@example.org>", "foo-dev@lists.example.com", "netdev@vger.kernel.org"]
    roles = {r.address: (r.kind, r.role, r.section) for r in got}
    assert roles["foo.owner@example.com"] == ("maintainer", "supporter", "FOO ETHERNET DRIVER")
    assert roles["foo-dev@lists.example.com"] == ("list", "moderated list", "FOO ETHERNET DRIVER")
    assert roles["rita@example.org"][0] == "reviewer"


def test_exclusion_pattern_drops_the_section(maint):
    got = maint.recipients(["drivers/net/wireless/w.c"])
    assert names(got) == ["Wendy Wireless <wendy@example.org>", "linux-wireless@vger.kernel.org"]


def test_glob_without_slash_keeps_the_directory_depth(maint):
    assert "foo.owner@example.com" in {r.address for r in maint.recipients(["include/linux/foobar.h"])}
    assert maint.recipients(["include/linux/foo/deep.h"]) == []  # same slash count required


def test_regex_and_keyword_sections(maint):
    assert names(maint.recipients(["lib/bar_lib.c"])) == ["bar@lists.example.org"]  # N: on the path
    by_keyword = maint.recipients(["lib/other.c"], ["+	x = foo_magic;"])
    assert [r.address for r in by_keyword][:2] == ["foo.owner@example.com", "new.address@example.com"]
    assert all(r.reason == "keyword" for r in by_keyword)
    assert maint.recipients(["lib/other.c"], ["+	x = foo_magical;"]) == []  # \b bounded


def test_n_regex_prefilter_names_the_sections_every_regex_names():
    """N: sections are only tried on paths holding a text their regex needs (regexlit); on paths
    of every shape the sections found equal those of trying every N: regex."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    patterns = [r"owl", r"sun[x456789]i", r"(?i)rockchip", r"mt[678]", r"\b(pstore|ramoops)", r"[^a-z]tegra",
                r"x?", r"meson|amlogic", "(?i:ASPEED)_"]
    text = "List\n\n" + "".join(f"S{i}\nM:\tM {i} <m{i}@example.org>\nN:\t{p}\n\n" for i, p in enumerate(patterns))
    m = Maintainers.build(parse_maintainers(text))
    words = ["owl", "sun8i", "ROCKCHIP", "RockChip", "mt7", "pstore", "ramoops", "/tegra", "tegra", "meson",
             "amlogic", "aspeed_", "ASPEED_", "drivers/", "a", ".c", "é", "ſ"]

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(st.sampled_from(words), min_size=1, max_size=5).map("".join))
    def check(path):
        naive = [s.title for s in m.sections if any(re.search(p, path, re.VERBOSE) for k, _, rx, _ in s.matchers
                                                    if k == "N" for p in [rx.pattern])]
        assert sorted(s.title for s, _ in m.sections_for_file(path)) == sorted(naive)

    check()


def test_mailmap_forms():
    mm = parse_mailmap("A Proper <proper@x.org> <commit@x.org>\n<only@x.org> <old@x.org>\n"
                       "Name Only <n@x.org>\nB Real <b@x.org> B Wrong <bw@x.org>\n# comment\n")
    assert mm.canonical("whatever", "Commit@X.org") == ("A Proper", "proper@x.org")
    assert mm.canonical("Someone", "old@x.org") == ("Someone", "only@x.org")
    assert mm.canonical("n", "n@x.org") == ("Name Only", "n@x.org")
    assert mm.canonical("B Wrong", "bw@x.org") == ("B Real", "b@x.org")
    assert mm.canonical("Other", "bw@x.org") == ("Other", "bw@x.org")  # name+address entry only


def test_context_stage_reads_the_repository_or_says_why_not(tmp_path):
    class Opts:
        repo = None

    fields = {"unavailable": {}, "notes": [], "closers": []}
    context_stage(None, Opts(), fields)
    assert "no repository" in fields["unavailable"]["maintainers"]
    repo = kernel_repo(tmp_path / "k")
    Opts.repo = repo.path
    fields = {"unavailable": {}, "notes": [], "closers": []}
    context_stage(None, Opts(), fields)
    assert isinstance(fields["maintainers"], Maintainers) and not fields["unavailable"]
    (repo.path / "MAINTAINERS").unlink()  # bare-like: the work tree lacks it, HEAD still has it
    assert load_maintainers(repo.path) is not None
    empty = tmp_path / "empty"
    empty.mkdir()
    subprocess.run(["git", "init", "-q", str(empty)], check=True)
    Opts.repo = empty
    fields = {"unavailable": {}, "notes": [], "closers": []}
    context_stage(None, Opts(), fields)
    assert "has no MAINTAINERS" in fields["unavailable"]["maintainers"]


# --- agreement with the real scripts/get_maintainer.pl ---------------------------------------------

def _kernel_tarball() -> str | None:
    found = sorted(glob.glob("/usr/src/linux-source-*.tar.xz") + glob.glob("/usr/src/linux-source-*.tar.bz2"))
    return found[-1] if found else None


@pytest.fixture(scope="module")
def kernel_scripts(tmp_path_factory):
    """scripts/get_maintainer.pl (+ the kernel's MAINTAINERS and .mailmap when from a tarball)."""
    given = os.environ.get("REVIEWTOOL_GET_MAINTAINER")
    if given and Path(given).is_file():
        return {"get_maintainer.pl": Path(given)}
    tarball = _kernel_tarball()
    if tarball is None or shutil.which("perl") is None:
        pytest.skip("no scripts/get_maintainer.pl on this machine (install Debian's linux-source or set "
                    "REVIEWTOOL_GET_MAINTAINER); agreement is not tested")
    return _extracted(tarball)


WANTED = ("scripts/get_maintainer.pl", "MAINTAINERS", ".mailmap")


def _extracted(tarball: str) -> dict:
    """The kernel's get_maintainer.pl, MAINTAINERS, .mailmap and file list, read from the tarball
    once per tarball version and kept in the temporary directory: decompressing 200 MB of xz
    took half a minute per run, and again in each pytest-xdist worker."""
    import hashlib
    import tempfile

    st = os.stat(tarball)
    key = hashlib.sha256(f"{os.path.realpath(tarball)}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:16]
    out = Path(tempfile.gettempdir()) / f"reviewtool-tests-kernel-{key}"
    if not (out / "files.txt").is_file():
        work = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
        files: list[str] = []
        with tarfile.open(tarball) as tar:
            for member in tar:
                rel = member.name.split("/", 1)[1] if "/" in member.name else ""
                if member.isfile():
                    files.append(rel)
                if rel in WANTED:
                    (work / Path(rel).name).write_bytes(tar.extractfile(member).read())
        (work / "files.txt").write_text("\n".join(files))
        try:
            work.rename(out)  # whole or not at all; another worker may have been first
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
    found: dict = {p.name: p for p in out.iterdir() if p.name != "files.txt"}
    found["files"] = (out / "files.txt").read_text().split("\n")
    return found


def _as_kernel_tree(root: Path, scripts: dict) -> None:
    for name in ("COPYING", "CREDITS", "Kbuild", "Makefile", "README"):
        (root / name).touch()
    for d in KERNEL_DIRS:
        (root / d).mkdir(parents=True, exist_ok=True)
    shutil.copy(scripts["get_maintainer.pl"], root / "scripts" / "get_maintainer.pl")


def _get_maintainer(root: Path, patch: str) -> list[str]:
    res = subprocess.run(["perl", "scripts/get_maintainer.pl", "--nogit", "--nogit-fallback", "--nofixes",
                          "--norolestats"], input=patch.encode(), capture_output=True, cwd=root, check=True)
    return [line.strip() for line in res.stdout.decode().splitlines()
            if line.strip() and "linux-kernel@vger.kernel.org" not in line]


def _same(theirs: list[str], mine: list[str]) -> bool:
    norm = lambda xs: [x.replace('"', "").lower() for x in xs]  # noqa: E731 (get_maintainer quotes some names)
    return norm(theirs) == norm(mine)


def test_agrees_with_get_maintainer_on_the_fixture(tmp_path, kernel_scripts):
    repo = kernel_repo(tmp_path / "k")
    target = add_driver_history(repo)
    work_branch(repo, fixes_target=target)
    _as_kernel_tree(repo.path, kernel_scripts)
    maint = load_maintainers(repo.path)
    from reviewtool.model.b4adapter import build_series
    from reviewtool.rules.recipients import _keyword_text, _paths
    from reviewtool.sources.files import load_messages

    out = tmp_path / "patches"
    repo.git("format-patch", "-q", "-o", str(out), "main..work")
    series = build_series(load_messages(out), source=str(out))
    for patch_file, patch in zip(sorted(out.iterdir()), series.patches):
        theirs = _get_maintainer(repo.path, patch_file.read_text())
        mine = [str(r) for r in maint.recipients(_paths(patch), _keyword_text(patch))
                if r.address != "linux-kernel@vger.kernel.org"]
        assert _same(theirs, mine), (patch_file.name, theirs, mine)


def test_agrees_with_get_maintainer_on_the_kernel_maintainers_file(tmp_path, kernel_scripts):
    if "MAINTAINERS" not in kernel_scripts:
        pytest.skip("only get_maintainer.pl was given, not a kernel tree")
    root = tmp_path / "linux"
    root.mkdir()
    shutil.copy(kernel_scripts["MAINTAINERS"], root / "MAINTAINERS")
    shutil.copy(kernel_scripts[".mailmap"], root / ".mailmap")
    files = [f for f in kernel_scripts["files"] if f and not f.startswith("debian/")]
    for d in {str(Path(f).parent) for f in files}:  # get_maintainer adds `/` to F: patterns naming directories
        (root / d).mkdir(parents=True, exist_ok=True)
    _as_kernel_tree(root, kernel_scripts)
    maint = load_maintainers(root)
    rng = random.Random(8)
    samples = [rng.sample(files, rng.choice((1, 2, 3))) for _ in range(60)]

    def theirs_for(sample):
        patch = "".join(f"diff --git a/{f} b/{f}\n--- a/{f}\n+++ b/{f}\n@@ -1 +1 @@\n-a\n+b\n" for f in sample)
        return _get_maintainer(root, "Subject: [PATCH] x\n\nx\n---\n" + patch)

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # one perl per core
        answers = list(pool.map(theirs_for, samples))
    for sample, theirs in zip(samples, answers):
        mine = [str(r) for r in maint.recipients(sample, ["-a", "+b", "[PATCH] x", "x"])
                if r.address != "linux-kernel@vger.kernel.org"]
        # Equal depth ties are ordered by Perl's hash order; compare addresses as sets there.
        assert _same(theirs, mine) or {x.split("<")[-1].rstrip(">").lower() for x in theirs} == \
            {x.split("<")[-1].rstrip(">").lower() for x in mine}, (sample, theirs, mine)


# --- the directory index against trying every section ----------------------------------------------

def _tried_everywhere(m: Maintainers) -> Maintainers:
    """The same sections with every F: pattern tried for every path (no index)."""
    everything = {"*": tuple(range(len(m.sections)))}
    if "N" in m._index:
        everything["N"] = m._index["N"]
    return Maintainers(m.sections, m.mailmap, m.origin, m.whole_tree, everything)


TRICKY = """List of maintainers

NET
M:\tA <a@example.org>
F:\tdrivers/net/
F:\tinclude/net/foo.h
X:\tdrivers/net/wireless/

NET FOO STAR
M:\tB <b@example.org>
F:\tdrivers/net/foo*
F:\tdrivers/*/bar/
F:\tlib/c++/

PREFIX QUIRK
M:\tC <c@example.org>
F:\tarch/x86/kernel/cpu.c
F:\tarch/x86/net

TOP
M:\tD <d@example.org>
F:\tMakefile
F:\t*/Kconfig
F:\t.mailmap

DOTS
M:\tE <e@example.org>
F:\tDocumentation/v4l.rst
F:\ttools/a.b/
N:\tbpf
"""


def test_the_index_finds_what_trying_every_section_finds(kernel_maintainers):
    """On patterns chosen for their edges (a last component that matches longer names, wildcards,
    regex characters, top-level files, N: regexes) and, with a kernel source at hand, on 1,500 of
    its files against its MAINTAINERS (trying every section for each file is the slow reference:
    4,000 files took half a minute of the suite's two-core run)."""
    paths = ["drivers/net/x.c", "drivers/net/wireless/w.c", "drivers/net/foo_main.c", "drivers/net/foobar/x.c",
             "drivers/gpu/bar/x.c", "drivers/bar/x.c", "lib/c++/x.c", "lib/cxx/x.c", "arch/x86/kernel/cpu.cpp",
             "arch/x86/kernel/cpu.c", "arch/x86/netfoo", "arch/x86/net", "Makefile", "Makefile.x", "net/Kconfig",
             "a/b/Kconfig", "Documentation/v4l.rst", "Documentation/v4lXrst", "tools/a.b/x", "tools/aXb/x",
             "include/net/foo.h", "include/net/foo.hh", "kernel/bpf/core.c", "x"]
    cases = [(Maintainers.build(parse_maintainers(TRICKY)), paths)]
    if kernel_maintainers is not None:
        m, files = kernel_maintainers
        cases.append((m, paths + random.Random(3).sample(files, 1500)))
    for m, sample in cases:
        brute = _tried_everywhere(m)
        for path in sample:
            assert m.sections_for_file(path) == brute.sections_for_file(path), path


@pytest.fixture(scope="module")
def kernel_maintainers(request):
    """(Maintainers, file list) of the kernel source at hand, or None."""
    try:
        scripts = request.getfixturevalue("kernel_scripts")
    except pytest.skip.Exception:
        return None
    if "MAINTAINERS" not in scripts:
        return None
    return (Maintainers.build(parse_maintainers(scripts["MAINTAINERS"].read_text(errors="replace"))),
            [f for f in scripts["files"] if f])


def test_a_regex_that_can_take_exponential_time_is_an_unusable_entry():
    """A repository's MAINTAINERS is written by others: an N:/K: line that nests repeats
    (`(a+)+b`) is never compiled (its section matches nothing by it); a plain keyword still works."""
    text = ("EVIL\nM:\tEve <eve@example.org>\nK:\t(a+)+b\n\n"
            "GOOD\nM:\tGood Owner <good@example.org>\nK:\t\\bgood_magic\\b\n\n")
    maint = Maintainers.build(parse_maintainers(text), parse_mailmap(""))
    line = "+\tx = " + "a" * 5000 + "; good_magic();"
    assert [r.address for r in maint.recipients(["lib/other.c"], [line])] == ["good@example.org"]
