"""b4's set-up key reads the git environment from os.environ's encoded store: the same as
reading os.environ itself, including variables set and removed while the process runs."""

import os

from reviewtool.sources import b4fetch


def _by_os_environ():
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME")))


def test_git_environment_reads_as_os_environ(monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "b4.ñame")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/tmp/x dir")
    monkeypatch.setenv("NOT_GIT_THING", "ignored")
    assert b4fetch._git_environment(os) == _by_os_environ()
    assert ("GIT_CONFIG_KEY_0", "b4.ñame") in b4fetch._git_environment(os)
    monkeypatch.delenv("GIT_CONFIG_KEY_0")
    assert b4fetch._git_environment(os) == _by_os_environ()
    assert all(k != "GIT_CONFIG_KEY_0" for k, _ in b4fetch._git_environment(os))


def test_setup_key_changes_with_git_environment(monkeypatch):
    cfg = {"attestation-policy": "off"}
    before = b4fetch._setup_key(cfg)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'b4.x=y'")
    assert b4fetch._setup_key(cfg) != before
