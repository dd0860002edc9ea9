"""Nothing the reviewed repository configures runs: every config key that names a program (diff
textconv and external diff, clean/smudge/process filters, fsmonitor, pager, hooks, aliases, ssh,
gpg, askpass, alternate refs) points at a marker script, and no command may leave a mark."""

from __future__ import annotations

import io
import stat
import sys
from pathlib import Path

import pytest

from lintrepo import add_driver_history, kernel_repo, work_branch
from mailfactory import Mail, hunk_diff, patch_body, thread, write

PROGRAM_KEYS = [
    "diff.evil.textconv", "diff.evil.command", "diff.external", "filter.evil.clean", "filter.evil.smudge",
    "filter.evil.process", "core.fsmonitor", "core.pager", "pager.log", "pager.show", "pager.diff",
    "core.sshCommand", "gpg.program", "gpg.ssh.program", "core.askPass", "core.alternateRefsCommand",
    "alias.history", "sequence.editor", "core.editor", "credential.helper", "merge.evil.driver",
]
HOOKS = ["post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc", "post-rewrite",
         "pre-commit", "post-merge", "fsmonitor-watchman"]


def _marker(tmp_path: Path) -> tuple[Path, Path]:
    marks = tmp_path / "marks"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marks}\ncat\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, marks


@pytest.fixture
def armed_repo(tmp_path):
    repo = kernel_repo(tmp_path / "linux")
    target = add_driver_history(repo)
    repo.commit("foo: attributes\n\nSigned-off-by: Fred Original <fred@example.net>\n",
                {".gitattributes": "* diff=evil filter=evil merge=evil\n"}, author=("Fred Original", "fred@example.net"))
    work_branch(repo, fixes_target=target)
    script, marks = _marker(tmp_path)
    for key in PROGRAM_KEYS:
        repo.git("config", key, str(script) if not key.startswith("alias.") else f"!{script}")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        (hooks / name).write_text(script.read_text())
        (hooks / name).chmod(0o755)
    repo.git("config", "core.hooksPath", str(hooks))
    (repo.path / ".git" / "info").mkdir(exist_ok=True)
    (repo.path / ".git" / "info" / "attributes").write_text("* diff=evil filter=evil\n")
    marks.unlink(missing_ok=True)  # setting up ran nothing of ours, but start clean
    return repo, target, marks


def _posting(tmp_path: Path, target: str) -> Path:
    body = patch_body(message=f"foo_open() leaks the queue.\n\nFixes: {target[:12]} (\"foo: add the driver\")",
                      diff=hunk_diff("drivers/net/ethernet/foo/foo_main.c", ["\treturn err;"], ["\tgoto out;"]))
    return write(tmp_path, thread(Mail("[PATCH net] foo: fix the error path", body)))


def test_no_command_runs_a_program_the_repository_configures(tmp_path, cli, armed_repo, monkeypatch):
    repo, target, marks = armed_repo
    posting = _posting(tmp_path, target)
    runs = [
        ("check", str(posting), "--repo", str(repo.path), "--format", "json"),
        ("triage", str(posting), "--repo", str(repo.path), "--format", "json", "--no-store"),
        ("lint", "--repo", str(repo.path), "--format", "json"),
        ("fixes-audit", "--repo", str(repo.path), "--format", "json", "main~2..work"),
        ("b4-check", "--repo", str(repo.path)),
    ]
    for argv in runs:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(posting.read_bytes())))  # b4-check reads it
        res = cli(*argv)
        assert res.code in (0, 1), (argv, res.err)
        assert not marks.exists(), f"`reviewtool {' '.join(argv)}` ran: {marks.read_text()}"


def test_the_marker_would_be_seen(tmp_path, armed_repo):
    """The near miss: plain `git log -p` in the same repository runs the textconv program."""
    repo, _, marks = armed_repo
    repo.git("log", "-p", "-1", "--", "drivers/net/ethernet/foo/foo_main.c", env={"GIT_PAGER": "cat"})
    assert marks.exists()
