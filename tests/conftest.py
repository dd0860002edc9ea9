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


@pytest.fixture
def cli(capsys):
    """Run `reviewtool ARGS` in-process; returns exit code, stdout, stderr."""
    from reviewtool.cli import main

    def run(*args: str) -> Result:
        code = main([str(a) for a in args])
        cap = capsys.readouterr()
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


def pytest_terminal_summary(terminalreporter):
    """Print what the hardening tests exercised (issue 7 asks for the counts in CI output)."""
    import hardening

    counts = {k: v for k, v in hardening.COUNTS.items() if v}
    if counts:
        terminalreporter.write_line("hardening: " + ", ".join(f"{k}: {v}" for k, v in counts.items()))
