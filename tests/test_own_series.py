"""lint reads its own mails without b4 (model/own.py); the b4 adapter reads the same mails to the
same Series. Every case builds real commits and the real format-patch output of them."""

from __future__ import annotations

import pytest

from lintrepo import add_driver_history, kernel_repo, work_branch
from reviewtool.model.b4adapter import build_series
from reviewtool.model.own import own_series
from reviewtool.sources.gitrange import RangeRequest, range_mails

ME = ("Jane Dev", "jane@example.org")


def both(repo, request=RangeRequest()):
    mails = range_mails(repo.path, request)
    ours = own_series(list(mails.messages), source=mails.label)
    theirs = build_series(list(mails.messages), source=mails.label)
    return ours, theirs


@pytest.fixture
def repo(tmp_path):
    r = kernel_repo(tmp_path / "linux")
    target = add_driver_history(r)
    work_branch(r, fixes_target=target)
    return r


def test_three_patches_without_cover(repo):
    ours, theirs = both(repo)
    assert len(ours.patches) == 3 and ours.cover is None
    assert all(p.patch_id for p in ours.patches)  # one git patch-id run gave every patch its id
    assert ours == theirs


def test_cover_from_branch_description_with_prefix_and_revision(repo):
    repo.git("config", "branch.work.description", "foo: fixes\n\nThree fixes for foo.\n")
    ours, theirs = both(repo, RangeRequest(prefixes=("net",), revision=3, rfc=True))
    assert ours.cover is not None and ours.revision == 3 and ours.cover.subject.rfc
    assert ours.base_commit == repo.rev("main")
    assert ours == theirs


def test_single_patch_non_ascii_author_and_subject(repo):
    repo.git("checkout", "-q", "-b", "one", "main")
    repo.git("branch", "--set-upstream-to=main")
    repo.commit("foo: réparer l'ouverture — naïve\n\nCorrige le chemin d'erreur: “quoted” text.\n\n"
                "Signed-off-by: Zoë Ångström <zoe@example.org>\n",
                repo.edit("drivers/net/ethernet/foo/foo_main.c", "return 0;", "return 1;"),
                author=("Zoë Ångström", "zoe@example.org"))
    ours, theirs = both(repo)
    assert ours.patches[0].author.name == "Zoë Ångström"
    assert "réparer" in ours.patches[0].subject.summary
    assert ours.patches[0].patch_id
    assert ours == theirs


def test_binary_rename_delete_and_long_subject(repo):
    repo.git("checkout", "-q", "-b", "misc", "main")
    repo.git("branch", "--set-upstream-to=main")
    (repo.path / "fw.bin").write_bytes(bytes(range(256)) * 4)
    repo.git("add", "fw.bin")
    repo.commit("foo: add the firmware blob\n\nSigned-off-by: Jane Dev <jane@example.org>\n", author=ME)
    repo.git("mv", "lib/bar_lib.c", "lib/bar_core.c")
    repo.commit("lib: bar: rename the library file to something that makes this subject line far longer than "
                "seventy-five characters\n\nSigned-off-by: Jane Dev <jane@example.org>\n", author=ME)
    repo.git("rm", "-q", "net/core/dev.c")
    repo.commit("net: core: remove dev.c\n\nIt is unused.\n\n---\nA note under the dashes.\n", author=ME)
    ours, theirs = both(repo)
    statuses = [f.status for p in ours.patches for f in p.diff.files]
    assert "renamed" in statuses and "deleted" in statuses and "added" in statuses
    assert ours == theirs


@pytest.mark.parametrize("with_cover", [False, True])
def test_streamed_mails_are_the_mails_parse_mails_reads(repo, with_cover):
    """range_mails parses while git writes; the result is what the whole output parses to."""
    from reviewtool.mail.headers import header
    from reviewtool.sources.files import RawMail, parse_mails
    from reviewtool.sources.gitrange import _fill_cover, _split_format_patch
    import subprocess

    if with_cover:
        repo.git("config", "branch.work.description", "foo: fixes\n\nThree fixes for foo.\n")
    mails = range_mails(repo.path, RangeRequest())
    base = repo.rev("main")
    data = subprocess.run(["git", "-C", str(repo.path), "format-patch", "--stdout", f"--base={base}",
                           "--cover-letter" if with_cover else "--no-cover-letter", f"{base}..{repo.rev('work')}", "--"],
                          capture_output=True, check=True).stdout
    chunks = _split_format_patch(data)
    if with_cover:
        chunks[0] = (chunks[0][0], _fill_cover(chunks[0][1], mails.cover))
    whole = parse_mails([RawMail(c, f"x:{i + 1}", True) for i, (_, c) in enumerate(chunks)])
    def shape(msgs):
        # Message-IDs hash the mail, and a cover letter is dated when written: compare the threading
        # by position, everything else as text.
        ids = {header(m, "Message-ID"): f"mail-{i}" for i, m in enumerate(msgs)}
        return [[ids.get(header(m, f), header(m, f)) for f in ("Message-ID", "In-Reply-To", "References")]
                + [header(m, "Subject"), header(m, "From"), m.get_payload()] for m in msgs]

    assert shape(mails.messages) == shape(whole)
    assert len(mails.messages) == 4 if with_cover else 3


@pytest.mark.parametrize("size", [1, 7, 69, 70, 71, 4096])
def test_stream_split_equals_whole_split_at_any_block_size(repo, monkeypatch, size):
    """Separator lines cut between blocks, mails smaller and larger than a block: same mails."""
    import subprocess

    from reviewtool.sources.gitbatch import GitRunner
    from reviewtool.sources import gitrange

    data = subprocess.run(["git", "-C", str(repo.path), "format-patch", "--stdout", "main..work"],
                          capture_output=True, check=True).stdout
    monkeypatch.setattr(GitRunner, "stream", lambda self, args: (data[i:i + size] for i in range(0, len(data), size)))
    streamed = list(gitrange._stream_format_patch(repo.path, ["format-patch"]))
    assert streamed == gitrange._split_format_patch(data) and len(streamed) == 3


def test_a_failing_stream_says_what_git_said(repo):
    """format-patch's complaint (read from its stderr file after the stream) is the error."""
    from reviewtool.sources.gitbatch import GitRunner
    from reviewtool.errors import RepositoryError

    with pytest.raises(RepositoryError, match="git format-patch failed: fatal: ambiguous argument 'nosuch..HEAD'"):
        list(GitRunner(repo.path).stream(["format-patch", "--stdout", "nosuch..HEAD"]))


# --- plain mails of any origin: b4-check's stdin, local files --------------------------------------

def _plain_inputs():
    """Every corpus thread, each of its mails alone (what b4 hands a per-patch check) and the
    thread without its first mail, where plain_series reads them."""
    from conftest import CORPUS
    from reviewtool.model.own import plain_series
    from reviewtool.sources.files import load_messages

    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            msgs = load_messages(path)
        except Exception:  # not mail at all: other tests' business
            continue
        for sub in [msgs] + [[m] for m in msgs] + ([msgs[1:]] if len(msgs) > 1 else []):
            ours = plain_series(sub, source=path.name)
            if ours is not None:
                yield path.name, sub, ours


def test_plain_series_reads_plain_mails_as_the_b4_adapter_does():
    from reviewtool.errors import InputError

    compared = refused = 0
    for name, msgs, ours in _plain_inputs():
        try:
            theirs = build_series(msgs, source=name)
        except InputError:
            # b4 finds no series in a lone later-revision patch answering a mail it was not given;
            # read plainly it is that patch of that revision, the others missing.
            assert len(msgs) == 1 and ours.revision > 1 and ours.missing, name
            refused += 1
            continue
        assert ours == theirs, name
        compared += 1
    assert compared > 300 and refused < 10


@pytest.mark.parametrize("mutate, why", [
    (lambda m: m.replace_header("Subject", "Re: " + str(m["Subject"])), "a reply"),
    (lambda m: m.add_header("References", "<other@example.org>"), "a second References header"),
    (lambda m: m.replace_header("Subject", "[PATCH 3/2] x"), "a counter past the count"),
    (lambda m: m.set_payload(m.get_payload().replace("diff --git a/", "Index: a/")), "not a git diff"),
])
def test_plain_series_leaves_anything_else_to_b4(repo, mutate, why):
    from reviewtool.model.own import plain_series

    mails = range_mails(repo.path, RangeRequest())
    msgs = list(mails.messages)
    assert plain_series(msgs, source="x") is not None
    mutate(msgs[1])
    assert plain_series(msgs, source="x") is None, why


def test_b4_check_of_a_plain_patch_does_not_import_b4(repo, tmp_path):
    """The point of plain_series: b4 (and requests with it) costs a per-patch check ~200 ms."""
    import subprocess
    import sys

    from conftest import ROOT

    patch = subprocess.run(["git", "-C", str(repo.path), "format-patch", "--stdout", "-1", "work"],
                           capture_output=True, check=True).stdout
    probe = ("import atexit, sys, runpy\n"
             "atexit.register(lambda: sys.stderr.write('b4 imported: %s\\n' % ('b4' in sys.modules)))\n"
             "sys.argv = ['reviewtool', 'b4-check', '--repo', sys.argv[1]]\n"
             "runpy.run_module('reviewtool', run_name='__main__')\n")
    res = subprocess.run([sys.executable, "-c", probe, str(repo.path)], input=patch, capture_output=True,
                         cwd=tmp_path, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode in (0, 1), res.stderr.decode()
    assert b"b4 imported: False" in res.stderr
