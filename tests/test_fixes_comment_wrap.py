"""Fixes tags as real histories write them: a trailing comment after the subject is no part of
it, and a tag wrapped inside its subject gets one finding, whose advice offers the repository's
own line for a break that split a word (iproute2 has both). The near miss: a quoted subject that is really another commit's still mismatches."""

from __future__ import annotations

from gitrepo import GitRepo
from reviewtool.model.fixes import parse_fixes_value


def test_the_value_parser_stops_at_the_closing_parenthesis():
    assert parse_fixes_value('f89d46ad1234 ("ss: Add support for SCTP protocol") # sctp') == \
        ("f89d46ad1234", "ss: Add support for SCTP protocol")
    assert parse_fixes_value('f89d46ad1234 ("Revert "foo: bar"")')[1] == 'Revert "foo: bar"'
    assert parse_fixes_value('f89d46ad1234 ("foo (bar) baz")')[1] == "foo (bar) baz"


def _audit(tmp_path, cli, fixes: str):
    repo = GitRepo(tmp_path / "repo")
    target = repo.commit("ip: Compensation for the missing foo\n\nBody.\n", {"a.c": "int a;\n"})
    repo.commit(f"ip: fix it\n\nFix.\n\n{fixes.format(sha=target[:12])}\nSigned-off-by: A U <a@example.org>\n",
                {"a.c": "int b;\n"})
    res = cli("fixes-audit", "--repo", str(repo.path), "--format", "json", "HEAD~1..HEAD")
    assert res.code in (0, 1), res.err
    return res.json["findings"]


def test_a_trailing_comment_is_not_a_subject_mismatch(tmp_path, cli):
    found = _audit(tmp_path, cli, 'Fixes: {sha} ("ip: Compensation for the missing foo") # sctp')
    assert "fixes-subject-mismatch" not in {f["rule"] for f in found}


def test_a_wrapped_tag_gets_one_finding_that_keeps_no_break(tmp_path, cli):
    found = _audit(tmp_path, cli, 'Fixes: {sha} ("ip: Compensat\nion for the missing foo")')
    rules = [f["rule"] for f in found]
    assert rules.count("fixes-format") == 1 and "fixes-subject-mismatch" not in rules
    # the break split a word: the repository mends it, and no line that keeps the break is offered
    advice = found[0]["advice"]
    assert '("ip: Compensation for the missing foo")`' in advice and "Compensat ion" not in advice


def test_another_commits_subject_still_mismatches(tmp_path, cli):
    found = _audit(tmp_path, cli, 'Fixes: {sha} ("ip: add the foo") # sctp')
    assert "fixes-subject-mismatch" in {f["rule"] for f in found}
