"""The documentation the code knows: docs/rules.md is `reviewtool rules --format markdown`."""

from __future__ import annotations

from conftest import ROOT

REGENERATE = "reviewtool rules --format markdown > docs/rules.md"


def test_committed_rules_page_is_what_the_registry_generates(cli):
    res = cli("rules", "--format", "markdown")
    assert res.code == 0, res.err
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == res.out, f"docs/rules.md is out of date: run `{REGENERATE}` in the repository's top directory"


def test_rules_page_documents_every_rule(cli):
    from reviewtool.rules.registry import all_rules

    md = cli("rules", "--format", "markdown").out
    for r in all_rules():
        section = md.split(f"\n### `{r.name}`\n", 1)[1].split("\n### ", 1)[0]
        assert f"[`{r.name}`](#{r.name})" in md  # the table links to the section
        assert f"family: `{r.family}`; default severity: {r.severity.value}" in section
        assert "- profiles: " in section and "netdev " in section
        for part in ("**Why.**", "**Source.**", "Bad:\n\n```\n", "Good:\n\n```\n"):
            assert part in section, (r.name, part)
        assert r.bad.splitlines()[0] in section and r.good.splitlines()[0] in section


def test_rule_prose_keeps_code_spans_and_escapes_the_rest():
    from reviewtool.render.env import md_prose

    assert md_prose("set `ai_identities` for *you*") == "set `ai_identities` for \\*you\\*"
    assert md_prose("a <b> tag and [a](link)") == "a &lt;b&gt; tag and \\[a\\](link)"
    assert md_prose("`a` and `b_c`") == "`a` and `b_c`"
