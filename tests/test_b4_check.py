"""`reviewtool b4-check`: the formats b4 0.16 reads, and round trips through the real b4 (am --check,
prep --check, and b4 review's check runner) in a hermetic environment: XDG_* and the global git
config in tmp, --offline-mode, midmask on 127.0.0.1."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from gitrepo import snapshot
from lintrepo import add_driver_history, kernel_repo, work_branch

needs_b4 = pytest.mark.skipif(shutil.which("b4") is None, reason="the b4 command is not installed")


@pytest.fixture
def repo_and_patches(tmp_path):
    repo = kernel_repo(tmp_path / "linux")
    target = add_driver_history(repo)
    work_branch(repo, fixes_target=target)
    out = tmp_path / "patches"
    repo.git("format-patch", "-q", "--thread", "--cover-letter", "-o", str(out), "main..work")
    cover = out / "0000-cover-letter.patch"
    cover.write_text(cover.read_text().replace("*** SUBJECT HERE ***", "foo: fixes")
                     .replace("*** BLURB HERE ***", "Fixes for foo."))
    return repo, sorted(out.iterdir())


@pytest.fixture
def b4check(cli, monkeypatch):
    def run(data: bytes, *args: str):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        return cli("b4-check", *args)
    return run


def test_json_for_b4_review(b4check, repo_and_patches):
    repo, patches = repo_and_patches
    res = b4check(patches[1].read_bytes(), "--repo", str(repo.path))  # 1/3 alone, as review-perpatch-check-cmd
    assert res.code == 1
    results = json.loads(res.out)
    assert [r["tool"] for r in results] == ["reviewtool"]
    r = results[0]
    assert set(r) == {"tool", "status", "summary", "url", "details"}
    assert r["status"] == "fail" and "error" in r["summary"]
    details = json.loads(r["details"])
    cc = next(d for d in details if d["context"] == "cc-missing")
    assert cc["status"] == "fail" and "Fred Original <fred@example.net>" in cc["description"]
    assert {d["status"] for d in details} <= {"pass", "warn", "fail"}
    # One patch of three: nothing about the series as a whole, which b4 did not pass.
    assert not any(d["context"].startswith(("series-", "cover-letter")) for d in details)


def test_series_command_gets_the_cover_letter_only(b4check, repo_and_patches):
    repo, patches = repo_and_patches
    res = b4check(patches[0].read_bytes(), "--repo", str(repo.path))  # review-series-check-cmd's input
    r = json.loads(res.out)[0]
    assert res.code == 0 and r["status"] in ("pass", "warn")
    assert "only the cover letter" not in r["details"]


def test_checkpatch_lines_for_am_and_prep(b4check, repo_and_patches):
    repo, patches = repo_and_patches
    res = b4check(patches[2].read_bytes(), "--format", "checkpatch", "--repo", str(repo.path))
    lines = res.out.splitlines()
    assert lines and all(l.startswith(("ERROR: ", "WARNING: ")) for l in lines)
    assert any(l.startswith("ERROR: signed-off-by-missing: ") for l in lines)
    # --prep: your own commits; recipients come at send time and HEAD holds the patches.
    prep = b4check(patches[2].read_bytes(), "--format", "checkpatch", "--prep", "--repo", str(repo.path))
    assert "cc-missing" not in prep.out and "already-applied" not in prep.out
    clean = b4check(patches[3].read_bytes(), "--format", "checkpatch", "--prep", "--select", "signoff",
                    "--repo", str(repo.path))
    assert clean.code == 0 and clean.out == ""  # b4 prints "passed all checks"


def test_checkpatch_is_its_own_tool(b4check, repo_and_patches):
    repo, patches = repo_and_patches
    script = repo.path / "scripts" / "checkpatch.pl"
    script.write_text('#!/usr/bin/perl\nprint "-:4: WARNING:EMAIL_SUBJECT: subject too vague\\n"; exit 1;\n')
    results = json.loads(b4check(patches[1].read_bytes(), "--checkpatch", "--repo", str(repo.path)).out)
    cp = next(r for r in results if r["tool"] == "checkpatch")
    assert cp["status"] == "warn" and json.loads(cp["details"])[0]["context"] == "checkpatch:EMAIL_SUBJECT"


def test_unusable_stdin_is_one_line_and_exit_2(b4check):
    res = b4check(b"")
    assert res.code == 2 and "stdin is empty" in res.err and res.out == ""
    res = b4check(b"Subject: hello\n\njust a note\n")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1


# --- round trips through the real b4 --------------------------------------------------------------

def hermetic_b4(tmp_path: Path, config: str) -> dict[str, str]:
    """b4's environment: its own HOME, XDG dirs and global git config; the archive on loopback."""
    home = tmp_path / "b4home"
    for d in ("cache", "data", "config", "bin"):
        (home / d).mkdir(parents=True, exist_ok=True)
    wrapper = home / "bin" / "reviewtool"  # what `pip install` puts on PATH, pointing at this checkout
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m reviewtool \"$@\"\n")
    wrapper.chmod(0o755)
    gitconfig = home / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Jane Dev\n\temail = jane@example.org\n"
                         "[b4]\n\tmidmask = http://127.0.0.1:9/all/%s\n" + config)
    return {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
            "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
            "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}


def b4(env, cwd, *args) -> str:
    res = subprocess.run([shutil.which("b4"), "--offline-mode", *args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout + res.stderr


@needs_b4
def test_b4_am_check_shows_reviewtool_findings(tmp_path, repo_and_patches):
    repo, patches = repo_and_patches
    mbox = tmp_path / "thread.mbox"
    mbox.write_bytes(b"".join(p.read_bytes() + b"\n" for p in patches))
    env = hermetic_b4(tmp_path, "\tam-perpatch-check-cmd = reviewtool b4-check --format checkpatch\n")
    before = snapshot(repo.path)
    out = b4(env, repo.path, "am", "--check", "-m", str(mbox), "-o", str(tmp_path / "out"))
    assert snapshot(repo.path) == before
    assert "reviewtool: ERROR: signed-off-by-missing:" in out  # patch 2, marked as a failure by b4
    assert "reviewtool: ERROR: cc-missing:" in out and "Fred Original" in out
    assert "reviewtool: WARNING: fixes-subject-mismatch:" not in out  # the Fixes line is right here
    assert list((tmp_path / "out").glob("*.mbx"))


@needs_b4
@pytest.mark.parametrize("revision", [1, 2])
def test_b4_prep_check_runs_reviewtool_per_commit(tmp_path, revision):
    """b4 prep --check hands each commit to the check command as its own mail; on v2 each one is
    [PATCH v2 n/m] alone, reviewed as patch n of that revision (read without b4: model/own.py)."""
    repo = kernel_repo(tmp_path / "linux")
    repo.git("config", "user.name", "Jane Dev")
    repo.git("config", "user.email", "jane@example.org")
    env = hermetic_b4(tmp_path, "\tprep-perpatch-check-cmd = reviewtool b4-check --format checkpatch --prep\n")
    b4(env, repo.path, "prep", "-n", "checked", "-f", "main")
    foo = repo.path / "drivers/net/ethernet/foo/foo_main.c"
    for text, message in (("int x;\n", "foo: no sign-off here\n\nA change.\n"),
                          ("int y;\n", "foo: signed\n\nAnother.\n\nSigned-off-by: Jane Dev <jane@example.org>\n")):
        foo.write_text(text)  # committed now: b4 looks for its cover commit within the last year only
        repo.git("commit", "-q", "-a", "-F", "-", input=message)
    if revision > 1:
        b4(env, repo.path, "prep", "--force-revision", str(revision))
    out = b4(env, repo.path, "prep", "--check")
    assert "no usable patch series" not in out and "stdin" not in out
    first, second = out.split("foo: no sign-off here", 1)[1].split("foo: signed", 1)
    assert "reviewtool: ERROR: signed-off-by-missing:" in first and "signed-off-by" not in second
    assert "cc-missing" not in out and "already-applied" not in out


@needs_b4
def test_b4_review_check_runner_reads_the_json(tmp_path, repo_and_patches):
    repo, patches = repo_and_patches
    env = hermetic_b4(tmp_path, "\treview-perpatch-check-cmd = reviewtool b4-check\n"
                                "\treview-series-check-cmd = reviewtool b4-check\n")
    # b4's own runner (b4/review/checks.py), as the review TUI calls it, with b4's config loading.
    script = f"""
import argparse, email, email.policy, json, sys
import b4, b4.review.checks as checks
b4.setup_config(argparse.Namespace(config=None))
perpatch, series = checks.load_check_cmds()
msgs = [email.message_from_bytes(open(p, 'rb').read(), policy=b4.emlpolicy) for p in sys.argv[1:]]
pairs = [(m['Message-Id'].strip('<>'), m) for m in msgs]
out = {{"cmds": [perpatch, series], "perpatch": checks.run_perpatch_checks(pairs[1:], perpatch, {str(repo.path)!r}),
       "series": checks.run_series_checks(pairs[0], series, {str(repo.path)!r})}}
print(json.dumps(out))
"""
    res = subprocess.run([sys.executable, "-c", script, *map(str, patches)], cwd=repo.path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["cmds"] == [["reviewtool b4-check"], ["reviewtool b4-check"]]
    per = list(data["perpatch"].values())
    assert len(per) == 3 and all(r[0]["tool"] == "reviewtool" for r in per)
    assert [r[0]["status"] for r in per] == ["fail", "fail", "fail"]  # each misses its maintainers
    assert any(d["context"] == "signed-off-by-missing" for d in json.loads(per[1][0]["details"]))
    assert data["series"][0]["tool"] == "reviewtool" and data["series"][0]["status"] in ("pass", "warn")


def test_stdin_over_the_limit_is_refused_without_being_read_whole(b4check, monkeypatch):
    from reviewtool.commands import b4_check

    reads = []

    class Counting(io.BytesIO):
        def read(self, n=-1):
            reads.append(n)
            return super().read(n)

    monkeypatch.setattr(b4_check, "MAX_STDIN", 1000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(Counting(b"Subject: [PATCH] x\n\n" + b"x" * 5000)))
    from reviewtool.cli import main

    assert main(["b4-check"]) == 2
    assert reads and all(0 <= n <= 1001 for n in reads)  # never "all of it"


def test_a_patch_the_tree_has_is_already_applied_not_failing_to_apply(b4check, repo_and_patches):
    """HEAD (the work branch) holds the fix and a later change of its line: `git format-patch -1
    --stdout` of the fix no longer applies, because the tree has it. One finding, already-applied,
    with the commit. The near miss: the same patch on context the tree never had fails to apply
    and is in no commit."""
    repo, _ = repo_and_patches
    patch = repo.git("format-patch", "-1", "--stdout", "work~2", raw=True)
    repo.commit("foo: rename the label\n\nSigned-off-by: Jane Dev <jane@example.org>\n",
                repo.edit("drivers/net/ethernet/foo/foo_main.c", "goto free_queue;", "goto out_free;"))
    res = b4check(patch.encode(), "--format", "checkpatch", "--repo", str(repo.path))
    assert "already-applied" in res.out and "does-not-apply" not in res.out
    broken = patch.replace("foo_hw_init", "foo_hw_never_written").replace("of foo_open", "of foo_stop")
    broken = re.sub(r"(?m)^index \S+", "index 1111111..2222222", broken)  # no blob to merge with
    res = b4check(broken.encode(), "--format", "checkpatch", "--repo", str(repo.path))
    assert "does-not-apply" in res.out and "already-applied" not in res.out
