from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = FIXTURES / "corpus" / "mbox"
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch, tmp_path_factory):
    """No test reads the user's git config or writes the user's cache."""
    home = tmp_path_factory.getbasetemp() / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # `check` reads the current directory's repository by default (--repo); tests start outside any.
    monkeypatch.chdir(home)
    # b4/liblore must never reach the internet from a test: b4's server is a dead loopback port
    # unless a test names its own (--lore-url, or its own GIT_CONFIG_* entries).
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "b4.midmask")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "http://127.0.0.1:9/all/%s")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("no_proxy", raising=False)


class Result:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def json(self):
        return json.loads(self.out)

    def rules(self, patch="any"):
        return [f["rule"] for f in self.json["findings"] if patch == "any" or f["patch"] == patch]


def _repository_read_by(args: list[str]) -> Path | None:
    """The repository a command will read: --repo, else the current directory's (the default)."""
    import subprocess

    if "--repo" in args and args.index("--repo") + 1 < len(args):
        return Path(args[args.index("--repo") + 1])
    for a in args:
        if a.startswith("--repo="):
            return Path(a.split("=", 1)[1])
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and top.stdout.strip():
        return Path(top.stdout.strip())
    bare = subprocess.run(["git", "rev-parse", "--is-bare-repository"], capture_output=True, text=True)
    return Path.cwd() if bare.stdout.strip() == "true" else None


@pytest.fixture
def cli(capsys):
    """Run `reviewtool ARGS` in-process; returns exit code, stdout, stderr.

    Repository-safety harness (issue 7): whenever the command can read a git repository (--repo,
    or the current directory's), HEAD, every ref, the index, the config and the work tree are
    hashed before and after; any change fails the test."""
    from gitrepo import snapshot

    import hardening
    from reviewtool.cli import main

    def run(*args: str) -> Result:
        argv = [str(a) for a in args]
        repo = _repository_read_by(argv)
        before = snapshot(repo) if repo is not None and repo.exists() else None
        code = main(argv)
        cap = capsys.readouterr()
        if before is not None:
            assert snapshot(repo) == before, f"`reviewtool {' '.join(argv)}` changed {repo}"
            hardening.bump("repository-safety commands")
        return Result(code, cap.out, cap.err)

    return run


@pytest.fixture
def check_json(cli):
    """Review a file as JSON: returns the Result (use .json / .rules())."""

    def run(path, *args: str) -> Result:
        res = cli("check", str(path), "--format", "json", *args)
        assert res.code in (0, 1), res.err
        return res

    return run


def pytest_sessionfinish(session):
    """Under pytest-xdist (tests/run.sh runs the suite on every core), each worker hands its
    hardening counts to the controller, which adds them up (pytest_testnodedown)."""
    import hardening

    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["hardening"] = dict(hardening.COUNTS)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which may not be installed
def pytest_testnodedown(node, error):
    import hardening

    for key, n in getattr(node, "workeroutput", {}).get("hardening", {}).items():
        hardening.bump(key, n)


def pytest_terminal_summary(terminalreporter):
    """Print what the hardening tests exercised (issue 7 asks for the counts in CI output)."""
    import hardening

    counts = {k: v for k, v in hardening.COUNTS.items() if v}
    if counts:
        terminalreporter.write_line("hardening: " + ", ".join(f"{k}: {v}" for k, v in counts.items()))
