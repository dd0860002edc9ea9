"""Command-line mistakes get one plain line in reviewtool's words (no codec, click or pydantic
wording) and exit 2; every option taking a duration reads it the same way."""

from __future__ import annotations

import pytest

from conftest import FIXTURES

EXAMPLE = FIXTURES / "examples" / "net-foo-3-patches.mbox"


def _one_line(res) -> str:
    assert res.code == 2, (res.code, res.err)
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reviewtool: "), res.err
    return lines[0]


@pytest.mark.parametrize("given,seconds", [("5", 5.0), ("5s", 5.0), ("2m", 120.0), ("0.5", 0.5)])
def test_check_timeout_is_a_duration_as_for_triage(cli, monkeypatch, given, seconds):
    import reviewtool.review as review

    seen = []
    load = review.load_series

    def spy(source, options, fetch):
        seen.append(fetch.timeout_s)
        return load(source, options, fetch)

    monkeypatch.setattr(review, "load_series", spy)
    res = cli("check", "--timeout", given, str(EXAMPLE))
    assert res.code == 1, res.err  # the example has an error-level finding
    assert seen == [seconds]


@pytest.mark.parametrize("command", ["check", "triage"])
@pytest.mark.parametrize("given,words", [("5x", "'5x' is not a duration"), ("0", "'0' must be longer than 0")])
def test_a_bad_timeout_is_one_line(cli, command, given, words):
    line = _one_line(cli(command, "--timeout", given, str(EXAMPLE)))
    assert f"--timeout: {words}" in line, line


def test_check_timeout_default_is_a_duration():
    from reviewtool.commands.check import check
    from reviewtool.sources.lore import parse_duration

    import inspect

    default = inspect.signature(check).parameters["timeout"].default.default  # typer's OptionInfo
    assert parse_duration(default, "--timeout", positive=True) == 30.0


def test_a_profile_file_not_utf8_is_named(cli, tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x80\x81\xff")
    line = _one_line(cli("check", "--profile", str(garbage), str(EXAMPLE)))
    assert str(garbage) in line and "not UTF-8 text" in line, line
    assert "codec" not in line and "0x80" not in line, line


def test_an_unknown_format_lists_the_formats(cli):
    line = _one_line(cli("check", "-f", "yaml", str(EXAMPLE)))
    assert "unknown format 'yaml' (choose from: text, markdown, json, email)" in line, line
    assert "Value error" not in line and "is not one of" not in line, line


def test_an_unknown_flag_is_named_plainly(cli):
    line = _one_line(cli("check", "--formt", "json", str(EXAMPLE)))
    assert "unknown option --formt, did you mean --format?" in line, line
    assert "Possible options" not in line and "No such option" not in line, line
    line = _one_line(cli("check", "--no-such-flag", str(EXAMPLE)))
    assert "unknown option --no-such-flag" in line and "did you mean" not in line, line
