"""The form of Fixes: tags (family "trailers"); whether the commit exists is fixes-target's job."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.trailers import is_trailer_line
from .registry import Hit, Severity, rule
from .trailerlib import upstream_commit_line

# Like checkpatch: a line that starts with "fixes", an optional colon and "commit", then hex.
_FIXES_RE = re.compile(r"^(?P<tag>fixes)(?P<sp1>[ \t]*)(?:(?P<colon>:)(?P<sp2>[ \t]*))?(?P<commit>commit[ \t]+)?"
                       r"(?P<sha>[0-9a-f]{5,64})(?![0-9a-z])(?P<rest>.*)$", re.I)
_QUOTES = (('"', '"', None), ("\u201c", "\u201d", "curly quotes; use plain double quotes"),
           ("'", "'", "single quotes; use double quotes"))


@dataclass(frozen=True)
class FixesCheck:
    problems: tuple[str, ...]
    corrected: str | None  # the exact line to write, when the hash and subject are known
    sha: str
    cosmetic: bool  # only curly quotes: an info


def _matching_paren(s: str) -> int | None:
    depth = 0
    for i, c in enumerate(s):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _subject(rest: str) -> tuple[str | None, list[str]]:
    """The quoted subject after the hash, and what is wrong with how it is written."""
    s = rest.strip()
    if not s:
        return None, ['no subject: the tag needs `("subject of the fixed commit")`']
    problems = []
    if not rest.startswith(" "):
        problems.append("no space between the hash and `(`")
    if s.startswith("("):
        end = _matching_paren(s)
        if end is None:
            return None, problems + ["unbalanced parentheses"]
        inner = s[1:end].strip()
    else:
        inner = s
        problems.append("the subject is not in parentheses")
    for open_q, close_q, problem in _QUOTES:
        if len(inner) >= 2 and inner.startswith(open_q) and inner.endswith(close_q):
            if problem:
                problems.append(problem)
            subject = inner[1:-1]
            if subject.count('"') % 2:
                return None, problems + ["unbalanced quotes"]
            return subject, problems
    if inner.count('"') % 2 or inner.startswith(('"', "\u201c")):
        return None, problems + ["unbalanced quotes"]
    return inner, problems + ["the subject is not in double quotes"]


def check_fixes_line(line: str, following: str | None = None) -> FixesCheck | None:
    """None when `line` is no Fixes tag (or is well formed); `following` joins a wrapped tag."""
    m = _FIXES_RE.match(line)
    if not m:
        return None
    rest = m.group("rest")
    if not m.group("colon") and not rest.strip().startswith("("):
        return None  # "fixes deadbeef handling": prose, not a tag
    problems = []
    if m.group("tag") != "Fixes":
        problems.append(f"write `Fixes:`, not `{m.group('tag')}`")
    if m.group("sp1"):
        problems.append("space before the colon")
    if not m.group("colon"):
        problems.append("no colon after Fixes")
    elif m.group("sp2") != " ":
        problems.append("use exactly one space after `Fixes:`")
    if m.group("commit"):
        problems.append("the word `commit` does not belong in a Fixes tag")
    sha = m.group("sha")
    if sha != sha.lower():
        problems.append("the hash is not lower case")
    if len(sha) < 12:
        problems.append(f"the hash has {len(sha)} digits; use at least 12")
    unbalanced = rest.count("(") != rest.count(")") or rest.count('"') % 2
    cut_before_subject = not rest.strip() and (following or "").strip().startswith(("(", '"', "\u201c"))
    if following and following.strip() and not is_trailer_line(following) and (unbalanced or cut_before_subject):
        problems.append("the tag is wrapped over two lines; trailers are never wrapped")
        rest = rest.rstrip() + " " + following.strip()
    subject, subject_problems = _subject(rest)
    problems += subject_problems
    if not problems:
        return None
    corrected = f'Fixes: {sha.lower()} ("{subject}")' if subject and len(sha) >= 12 else None
    cosmetic = all(p.startswith("curly quotes") for p in problems)
    return FixesCheck(tuple(problems), corrected, sha, cosmetic)


def _advice(check: FixesCheck) -> str:
    regenerate = f"`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' {check.sha.lower()}`"
    if check.corrected and any("wrapped" in p for p in check.problems):
        # the lines were joined at a space; a break inside a word ("Compensat" + "ion") only the
        # repository can mend
        return f"Put it on one line: `{check.corrected}`, or regenerate it with {regenerate} if the break split a word."
    if check.corrected:
        return f"Replace it with `{check.corrected}`."
    return ("Regenerate it from the repository: "
            f"`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' {check.sha.lower()}`.")


@rule("fixes-format", family="trailers", severity="warning",
      summary='A Fixes: tag is not `Fixes: <12+ hex> ("subject")` on one line')
def fixes_format(series, ctx):
    """Why: Fixes tags are read by the stable scripts, AUTOSEL, NIPA and humans; they must be
    exactly `Fixes: <at least 12 lower-case hex> ("<subject of that commit>")` on one line, with no
    `commit` word, one space before `(`, and balanced quotes and parentheses. Curly quotes alone
    are an info. Fixes tags given in replies (which b4 applies) are checked too.
    Source: kernel submitting-patches ("Describe your changes": the Fixes: format); checkpatch
    BAD_FIXES_TAG; NIPA verify_fixes (kernel-rules TAG-FIXES-FORMAT, TAG-FIXES-PLACE).
    Bad:
      Fixes: commit 9f8e7d6c5b4a ("net: foo: query firmware on open")
      Fixes: 9f8e7d6 (net: foo: query firmware on open)
    Good:
      Fixes: 9f8e7d6c5b4a ("net: foo: query firmware on open")
    """
    for p in series.patches:
        if upstream_commit_line(p):
            continue  # a stable backport quotes the upstream message as it is
        lines = p.message_lines
        for i, line in enumerate(lines):
            check = check_fixes_line(line, lines[i + 1] if i + 1 < len(lines) else None)
            if check is not None:
                wrapped = any("wrapped" in x for x in check.problems)
                yield Hit("Fixes tag is malformed: " + "; ".join(check.problems), patch=p.counter,
                          evidence=(line,) + ((lines[i + 1],) if wrapped else ()), advice=_advice(check),
                          severity=Severity.INFO if check.cosmetic else None)
        for t in p.trailers_named("fixes"):
            value = t.value.strip()
            if not _FIXES_RE.match(t.line) and value and not value.startswith(("http", "#")):
                yield Hit("Fixes tag names no commit hash", patch=p.counter, evidence=(t.line,),
                          advice="Find the commit that introduced the bug and write "
                                 "`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' <commit>`.")
        for t in (f for f in p.followup_trailers if f.key == "fixes"):
            check = check_fixes_line(t.line)
            if check is not None:
                yield Hit("Fixes tag given in a reply is malformed: " + "; ".join(check.problems),
                          patch=p.counter, evidence=(t.line, f"in reply <{t.source_msgid}>"),
                          advice=_advice(check) + " Correct it when applying: b4 applies it as written.",
                          severity=Severity.INFO if check.cosmetic else None)
