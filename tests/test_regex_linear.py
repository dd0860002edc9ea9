"""Every regular expression of the package runs in time linear in its input (issue 22).

tests/regexscan.py collects every pattern from the modules themselves (globals, the patterns
written in `re.*()` calls, and what the package's cached loaders of shipped data give: the phrase
table, the reply forms) and times each on generated worst cases: long
runs of whitespace, newlines and repeated words, nested brackets, 1 MB lines, and runs of the
pattern's own words and punctuation. A pattern the package only ever tries at one position
(`.match`, `.fullmatch`) is timed that way; every other as a search from every position. Any
input that takes more than regexscan.BUDGET_S of CPU fails the test, naming the module, the
pattern, the input and the time; a new pattern is covered without being registered.
"""

from __future__ import annotations

import re

import hardening
import regexscan

FOUND = regexscan.collect()


def test_the_scan_sees_every_kind_of_pattern():
    where = {f.where for f in FOUND}
    assert "reviewtool.rules.body:_INTRODUCED_RE" in where  # a module global
    assert any(w.startswith("reviewtool.rules.ai:_DISCLOSURE_RES[") for w in where)  # in a tuple
    assert "reviewtool.mail.reply_forms:shipped_forms()[0].line" in where  # shipped data, in an object
    assert any(w.startswith("reviewtool.context.phrases:table()") for w in where)  # the phrase table
    assert any(w.startswith("reviewtool.model.assemble:line ") for w in where)  # built at call time (f-string)
    assert any(isinstance(f.pattern, bytes) for f in FOUND)
    by_name = {f.where: f for f in FOUND}
    assert by_name["reviewtool.model.trailers:_ANGLE_RE"].anchored  # only ever .match()ed
    assert by_name["reviewtool.mail.reply_forms:shipped_forms()[0].line"].anchored  # form.line.fullmatch()
    assert not by_name["reviewtool.rules.body:_INTRODUCED_RE"].anchored  # finditer
    assert len(FOUND) > 200


def test_the_scan_fails_a_quadratic_pattern_and_passes_its_linear_form():
    """The issue's own case: `^\\s*Fixes:` with re.M runs `\\s*` from every line start across all
    the blank lines after it; within the line (`[^\\S\\n]*`) it reads each character once."""
    quadratic = regexscan.Found("example", "quadratic", r"^\s*Fixes:", re.M)
    linear = regexscan.Found("example", "linear", r"^[^\S\n]*Fixes:", re.M)
    slow = regexscan.scan([quadratic, linear])
    assert [s.found.name for s in slow] == ["quadratic"]
    assert slow[0].case in ("newlines", "whitespace-only lines")


def test_every_regex_of_the_package_is_linear():
    slow = regexscan.scan(FOUND)
    hardening.bump("regex worst cases timed", sum(regexscan.case_count(f) for f in FOUND))
    assert not slow, "patterns over the time budget:\n" + "\n".join(map(str, slow))
