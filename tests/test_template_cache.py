"""Compiled templates are cached under $XDG_CACHE_HOME/reviewtool/templates/ (render/env.py):
the cache changes how fast a report renders, never what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtool.render.env import environment, render_template

DATA = {"rules": [{"name": "cc-missing", "family": "recipients", "severity": "warning", "needs": ["maintainers"],
                   "summary": "Maintainers <b>missing</b>"}],
        "profiles": [{"name": "netdev", "description": "net and net-next", "lists": ["netdev@vger.kernel.org"],
                      "trees": [{"name": "net", "kind": "fixes", "ref": "net/main", "closed_in_merge_window": False}],
                      "subtrees": [], "enabled": ["cc-missing"], "disabled": [], "severity": {}, "provenance": []}]}


def _render(name: str = "rules.text.j2") -> str:
    environment.cache_clear()  # a new process: a new environment, and only the disk cache to help
    try:
        return render_template(name, **DATA)
    finally:
        environment.cache_clear()


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "reviewtool" / "templates").rglob("*.cache"))


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_second_run_loads_what_the_first_compiled(cache):
    first = _render()
    entries = _entries(cache)
    assert entries, "the first render stores the compiled template"
    stamps = [p.stat().st_mtime_ns for p in entries]
    assert _render() == first
    assert [p.stat().st_mtime_ns for p in _entries(cache)] == stamps  # loaded, not compiled again


def test_html_and_text_environments_keep_apart(cache, tmp_path, monkeypatch):
    """Autoescaping changes the compiled code of a template both environments load (a shared
    macro file): each environment has its own entries."""
    import reviewtool.render.env as env_module

    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "_m.j2").write_text("{% macro show(v) %}[{{ v }}]{% endmacro %}")
    for name in ("a.text.j2", "a.html.j2"):
        (templates / name).write_text('{% import "_m.j2" as m %}{{ m.show(value) }}\n')
    monkeypatch.setattr(env_module, "_template_dir", lambda: templates)

    def render(name: str) -> str:
        environment.cache_clear()
        return render_template(name, value="<b>")

    assert render("a.text.j2") == "[<b>]\n"
    assert render("a.html.j2") == "[&lt;b&gt;]\n"
    assert render("a.text.j2") == "[<b>]\n"
    assert len({p.parent for p in _entries(cache)}) == 2
    environment.cache_clear()


def test_a_damaged_entry_is_compiled_again(cache):
    from jinja2.bccache import bc_magic

    first = _render()
    for garbage in (b"not a pickle \x00\xff", bc_magic + b"\x80\x05not a pickle \x00\xff"):
        for p in _entries(cache):
            p.write_bytes(garbage)
        assert _render() == first
    assert all(b"not a pickle" not in p.read_bytes() for p in _entries(cache))  # written anew


def test_an_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    expected = _render()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    assert _render() == expected


def test_an_edited_template_is_compiled_again(cache, tmp_path, monkeypatch):
    """The entry is keyed by a checksum of the template source: a changed template (an upgrade, a
    source checkout being edited) never runs stale code."""
    import reviewtool.render.env as env_module

    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "rules.text.j2").write_text("one {{ rules | length }}\n")
    monkeypatch.setattr(env_module, "_template_dir", lambda: templates)
    assert _render() == "one 1\n"
    (templates / "rules.text.j2").write_text("two {{ rules | length }}\n")
    assert _render() == "two 1\n"
