"""One reading of a Fixes tag (model/fixes.py) for every stage: the shapes it takes, the near misses
it refuses, and the rules and the classifier agreeing on what one line says. Before, five regular
expressions read Fixes lines with 4, 5, 6 and 8 digits, with or without the colon and the blanks."""

from __future__ import annotations

import pytest

from gitrepo import GitRepo
from mailfactory import Mail, patch_body, thread, write
from reviewtool.model.fixes import has_fixes_tag, parse_fixes_value, read_fixes_line

SHA = "1234567890ab"


@pytest.mark.parametrize("line,sha,subject", [
    (f'Fixes: {SHA} ("net: foo: add bar")', SHA, "net: foo: add bar"),
    ('Fixes: 01ac ("foo: bar")', "01ac", "foo: bar"),  # git's shortest abbreviation
    (f'fixes: commit {SHA.upper()} ("net: foo")', SHA.upper(), "net: foo"),
    (f'Fixes {SHA} ("net: foo")', SHA, "net: foo"),  # no colon, but a subject in parentheses
    (f'Fixes :  {SHA} (net: foo)', SHA, "net: foo"),
    (f'  Fixes: {SHA} ("quoted from another message")', SHA, "quoted from another message"),
    (f'Fixes: {SHA} ("ss: Add support for SCTP protocol") # sctp', SHA, "ss: Add support for SCTP protocol"),
    (f'Fixes: {SHA} (\u201cnet: foo\u201d)', SHA, "net: foo"),
    (f'Fixes: {SHA} ("Revert "foo: bar"")', SHA, 'Revert "foo: bar"'),
    ("Fixes: https://bugzilla.kernel.org/show_bug.cgi?id=12345", None, None),  # a Fixes line naming no commit
    ("Fixes: the leak in foo_open()", None, None),
])
def test_the_shapes_a_fixes_tag_takes(line, sha, subject):
    fl = read_fixes_line(line)
    assert fl is not None and fl.sha == sha and fl.subject == subject


@pytest.mark.parametrize("line", [
    "fixes the leak in foo_open()",  # prose
    f"Fixes {SHA} in the error path",  # no colon and no subject in parentheses: prose
    f"Prefixes: {SHA}",
    f"> Fixes: {SHA} (\"quoted in a reply\")",
])
def test_near_misses_are_no_fixes_tag(line):
    assert read_fixes_line(line) is None


@pytest.mark.parametrize("value", ["123 (\"foo\")", f"{SHA}g (\"foo\")", f"x{SHA}"])
def test_near_misses_name_no_commit(value):
    assert read_fixes_line("Fixes: " + value).sha is None and parse_fixes_value(value) == (None, None)


def test_a_wrapped_tag_is_read_with_its_continuation_and_a_trailer_never_is():
    fl = read_fixes_line(f'Fixes: {SHA} ("ip: Compensat', 'ion for the missing foo")')
    assert fl.wrapped and fl.break_in_word
    assert fl.subjects == ("ip: Compensat ion for the missing foo", "ip: Compensation for the missing foo")
    spaced = read_fixes_line(f'Fixes: {SHA} ("ip: Compensation for ', 'the missing foo")')
    assert spaced.subjects == ("ip: Compensation for the missing foo",) and not spaced.break_in_word
    near = read_fixes_line(f'Fixes: {SHA} ("ip: Compensat', "Signed-off-by: A U <a@example.org>")
    assert not near.wrapped and near.subject == "ip: Compensat"


def test_a_commit_message_has_a_fixes_tag():
    assert has_fixes_tag(f'Fix it.\n\nFixes: {SHA} ("foo")\nSigned-off-by: A <a@b.org>\n')
    assert has_fixes_tag(f'Fix it.\n\nfixes: commit {SHA} ("foo")\n')
    assert not has_fixes_tag(f'Fix it.\n\n    Fixes: {SHA} ("quoted from another commit")\n')
    assert not has_fixes_tag("Fix it.\n\nFixes: the leak\n")


def _review(tmp_path, check_json, message: str, trailers: str, *args):
    mbox = write(tmp_path, thread(Mail("[PATCH net] net: foo: fix the bar path",
                                       patch_body(message=message, trailers=trailers))))
    return check_json(mbox, *args).json


def test_a_colonless_tag_in_the_description_is_read_alike_by_every_rule(tmp_path, check_json):
    """`Fixes 9c97c88d2 ("...")` in the description (a linux-wireless posting of 2022): fixes-format
    read it as a tag without its colon, trailer-block-broken and the classifier did not (their
    patterns wanted the colon); and fixes-format blamed a space before a colon it has not."""
    line = f'Fixes {SHA} ("net: foo: add bar")'
    data = _review(tmp_path, check_json, f"The bar path leaks.\n\n{line}\n\nFree it.",
                   "Signed-off-by: Jane Developer <jane@example.org>")
    by_rule = {f["rule"]: f for f in data["findings"]}
    assert "no colon after Fixes" in by_rule["fixes-format"]["message"]
    assert "space before the colon" not in by_rule["fixes-format"]["message"]
    assert line in by_rule["trailer-block-broken"]["evidence"]
    assert line in data["verdict"]["patches"][0]["reasons"]


def test_a_four_digit_hash_is_too_short_not_missing(tmp_path, check_json):
    data = _review(tmp_path, check_json, "The bar path leaks.", 'Fixes: 01ac ("net: foo: add bar")\n'
                   "Signed-off-by: Jane Developer <jane@example.org>", "--select", "fixes-format")
    [hit] = data["findings"]
    assert "the hash has 4 digits" in hit["message"]


def test_a_tag_wrapped_at_a_blank_gets_its_one_line_without_a_repository(tmp_path, check_json):
    """The first line ends in a blank: the break cannot have split a word, so the line is given."""
    data = _review(tmp_path, check_json, "The bar path leaks.", f'Fixes: {SHA} ("net: foo: add the \n'
                   'bar path")\nSigned-off-by: Jane Developer <jane@example.org>', "--select", "fixes-format")
    [hit] = data["findings"]
    assert hit["advice"] == f'Put it on one line: `Fixes: {SHA} ("net: foo: add the bar path")`.'


def test_lint_suggest_puts_a_wrapped_tag_on_one_line(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    target = repo.commit("ip: Compensation for the missing foo\n\nBody.\n", {"a.c": "int a;\n"})
    repo.git("checkout", "-q", "-b", "work")
    repo.git("branch", "--set-upstream-to=main")
    repo.commit(f'ip: fix it\n\nFix.\n\nFixes: {target[:12]} ("ip: Compensat\nion for the missing foo")\n'
                "Signed-off-by: Ann Author <ann@example.org>\n", {"a.c": "int b;\n"})
    out = cli("lint", "--repo", str(repo.path), "--suggest").out
    assert f'+Fixes: {target[:12]} ("ip: Compensation for the missing foo")' in out
    assert '-ion for the missing foo")' in out  # the continuation goes: one line, not two
