"""Every command's --help teaches: a one-line summary, then two or three examples (unwrapped at 80
columns, with options the command has)."""

from __future__ import annotations

import shlex

import pytest

COMMANDS = ["check", "lint", "triage", "fixes-audit", "b4-check", "rules", "profile"]


def command(name: str):
    import typer

    from reviewtool.cli import app

    return typer.main.get_command(app).commands[name]


def _options_of(cmd, words: list[str], name: str) -> set[str]:
    """The options an example may use: the command's, or for a group (`profile learn`) its subcommand's."""
    sub = getattr(cmd, "commands", None)
    if sub and name in words and words.index(name) + 1 < len(words):
        cmd = sub.get(words[words.index(name) + 1], cmd)
    return {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)}


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_a_summary_and_examples(name, cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a common terminal: no example line may wrap there
    res = cli(name, "--help")
    assert res.code == 0, res.err
    lines = [line.strip() for line in res.out.splitlines()]
    summary = command(name).help.split("\n\n")[0]
    assert "\n" not in summary.strip() and len(summary) <= 100, "the summary is one line"
    assert " ".join(summary.split()) in " ".join(res.out.split())
    examples = [line.strip() for line in command(name).epilog.split("Examples:\n", 1)[1].split("\n\n")[0].splitlines()]
    assert len(examples) >= 2
    for example in examples:
        assert example in lines, f"`reviewtool {name} --help`: example wrapped or missing: {example!r}"
        words = shlex.split(example.split(" #")[0].replace("|", " | "))
        assert f"reviewtool {name}" in " ".join(words) or ("b4-check" in example and name == "b4-check")


def test_every_command_is_covered():
    import typer

    from reviewtool.cli import app

    assert sorted(typer.main.get_command(app).commands) == sorted(COMMANDS)


def test_help_examples_use_real_options():
    """An example's options are the command's own: a renamed option cannot leave a stale example."""
    for name in COMMANDS:
        cmd = command(name)
        for example in cmd.epilog.split("Examples:\n", 1)[1].split("\n\n")[0].splitlines():
            words = shlex.split(example.split(" #")[0])
            known = _options_of(cmd, words, name)
            tail = words[words.index(name) + 1:] if name in words else []
            for word in tail:
                if word.startswith("-"):
                    assert word in known, f"{name}: example uses unknown option {word}"


def test_version(cli):
    from reviewtool import __version__

    res = cli("--version")
    assert res.code == 0 and res.out.strip() == f"reviewtool {__version__}"


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_flags_show_no_type_and_no_uninstalled_file_is_a_reference(name, cli, monkeypatch):
    """A flag takes no value: `--latest <bool>` would read as if it did. docs/ is not installed
    by pip, so the help names the pages as parts of the source, never as a bare reference."""
    monkeypatch.setenv("COLUMNS", "200")
    res = cli(*([name] if name else []), "--help")
    assert res.code == 0 and "<bool>" not in res.out
    assert "Reference: docs/" not in res.out


@pytest.mark.parametrize("name", COMMANDS)
def test_help_paragraphs_wrap_evenly(name, cli, monkeypatch):
    """A docstring wrapped at 100 columns must not be wrapped again at 80 into long-short pairs:
    every line of a description paragraph but its last fills most of the terminal."""
    monkeypatch.setenv("COLUMNS", "80")
    out = cli(name, "--help").out
    head = out.split("\u256d", 1)[0].split("Usage:", 1)[1].split("\n", 1)[1]
    paras, lines = [], []
    for line in head.splitlines() + [""]:
        if line.strip():
            lines.append(line.strip())
        elif lines:
            paras.append(lines)
            lines = []
    for lines in paras:
        if any(line.startswith(("-", "*", "\u2022")) for line in lines):
            continue  # a list keeps its items' lines
        for line in lines[:-1]:
            assert len(line) >= 50, f"`reviewtool {name} --help` wraps raggedly: {line!r}"


PAGES = [[name] for name in COMMANDS] + [["profile", "learn"]]


@pytest.mark.parametrize("words", PAGES, ids=" ".join)
def test_option_help_gets_most_of_an_80_column_terminal(words, cli, monkeypatch):
    """typer printed each option's type in a column of its own (`<text|markdown|json|email>`,
    `<int range> [x>=1]`, an empty `--no-progress` column on every row): at 80 columns the help
    text was left a strip of 25 characters, a few words a line. Continuation lines show where
    the help column starts: it leaves the help at least half the terminal."""
    monkeypatch.setenv("COLUMNS", "80")
    out = cli(*words, "--help").out
    starts = [len(line) - len(line[1:].lstrip()) - 1 for line in out.splitlines()
              if line.startswith("\u2502 ") and len(line) - len(line[1:].lstrip()) > 10]
    assert max(starts, default=0) <= 40, f"`reviewtool {' '.join(words)} --help`: help column at {max(starts)}"
    assert "<bool>" not in out and "<list[" not in out and "<int range>" not in out


@pytest.mark.parametrize("words", PAGES, ids=" ".join)
def test_the_epilog_wraps_evenly(words, cli, monkeypatch):
    """The epilog's prose ("More: ... describes every option.") was broken where the source broke
    it and again at 80 columns: `... in reviewtool's source describes` then `every option.`."""
    monkeypatch.setenv("COLUMNS", "80")
    out = cli(*words, "--help").out
    tail = out.rsplit("\u2570", 1)[1].split("\n", 1)[1]
    paras, lines = [], []
    for line in tail.splitlines() + [""]:
        if line.strip() and not line.startswith("   "):  # examples keep their own lines
            lines.append(line.strip())
        elif lines:
            paras.append(lines)
            lines = []
    for lines in paras:
        for line in lines[:-1]:
            assert len(line) >= 50, f"`reviewtool {' '.join(words)} --help` wraps raggedly: {line!r}"


def test_a_negation_said_in_the_help_is_still_parsed(cli, tmp_path, monkeypatch):
    """`--no-progress` moved from its own column into the help text: it is still an option."""
    from conftest import FIXTURES

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    mbox = str(FIXTURES / "examples" / "net-foo-3-patches.mbox")
    res = cli("triage", "--no-progress", "--no-store", mbox)
    assert res.code in (0, 1), res.err
    res = cli("triage", "--progress", "--no-store", mbox)
    assert res.code in (0, 1), res.err
    assert "--no-progress" in cli("triage", "--help").out
