"""tests/run.sh for a user who is not root and has no Chromium: it runs the rest of the suite,
and says which tests were skipped and why (as root it installs what is missing with apt)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_without_chromium_and_not_root_the_rest_runs(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text("#!/bin/sh\necho 1000\n")  # not root
    (bin_dir / "id").chmod(0o755)
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # this interpreter, its venv
    (bin_dir / "python3").chmod(0o755)
    for tool in ("sh", "git", "dirname", "ls", "cat", "env", "uname"):
        if found := shutil.which(tool):
            (bin_dir / tool).symlink_to(found)
    env = {**os.environ, "PATH": str(bin_dir), "REVIEWTOOL_NO_INSTALL": "1"}
    res = subprocess.run(["sh", str(ROOT / "tests" / "run.sh"), "-q", "-n0",
                          str(ROOT / "tests" / "test_triage_html.py")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "not installed:" in res.stderr and "chromium chromium-driver" in res.stderr
    assert "skipped" in res.stderr
    assert "SKIPPED" in res.stdout and "chromium and chromium-driver are not installed" in res.stdout
