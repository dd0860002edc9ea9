"""The form of Fixes: tags (family "trailers"); whether the commit exists is fixes-target's job."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.fixes import FixesLine, read_fixes_line
from .registry import Hit, Severity, rule
from .trailerlib import upstream_commit_line

_QUOTES = (('"', '"', None), ("\u201c", "\u201d", "curly quotes; use plain double quotes"),
           ("'", "'", "single quotes; use double quotes"))


@dataclass(frozen=True)
class FixesCheck:
    problems: tuple[str, ...]
    corrected: str | None  # the exact line to write, when the hash and subject are known
    sha: str
    cosmetic: bool  # only curly quotes: an info
    read: FixesLine | None = None  # the tag as model/fixes.py read it


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
    """None when `line` is no Fixes tag (or is well formed); `following` joins a wrapped tag. An
    indented line quotes another message, and a line naming no hex is the trailer check's."""
    fl = read_fixes_line(line, following)
    if fl is None or fl.sha is None or fl.indent:
        return None
    problems = []
    if fl.tag != "Fixes":
        problems.append(f"write `Fixes:`, not `{fl.tag}`")
    if fl.space_before_colon and fl.colon:
        problems.append("space before the colon")
    if not fl.colon:
        problems.append("no colon after Fixes")
    elif fl.space_after_colon != " ":
        problems.append("use exactly one space after `Fixes:`")
    if fl.commit_word:
        problems.append("the word `commit` does not belong in a Fixes tag")
    sha = fl.sha
    if sha != sha.lower():
        problems.append("the hash is not lower case")
    if len(sha) < 12:
        problems.append(f"the hash has {len(sha)} digits; use at least 12")
    if fl.wrapped:
        problems.append("the tag is wrapped over two lines; trailers are never wrapped")
    subject, subject_problems = _subject(fl.rest)
    problems += subject_problems
    if not problems:
        return None
    corrected = f'Fixes: {sha.lower()} ("{subject}")' if subject and len(sha) >= 12 else None
    cosmetic = all(p.startswith("curly quotes") for p in problems)
    return FixesCheck(tuple(problems), corrected, sha, cosmetic, fl)


def _regenerate(sha: str) -> str:
    return f"`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' {sha.lower()}`"


def _advice(check: FixesCheck, real: str | None = None) -> str:
    """`real`: the line the repository writes for the tag's commit, when it has it."""
    fl = check.read
    if fl is not None and fl.wrapped:
        if real:
            return f"Put it on one line: `{real}`."
        if check.corrected and fl.break_in_word:
            # between two letters: a blank lost at the wrap (every wrap of the shared stretches),
            # or a word split ("Compensat" / "ion"), which only the repository can tell
            return (f"Put it on one line: `{check.corrected}`, or regenerate it with {_regenerate(check.sha)} "
                    "if the break split a word.")
        if check.corrected:
            return f"Put it on one line: `{check.corrected}`."
    if check.corrected:
        return f"Replace it with `{check.corrected}`."
    return f"Regenerate it from the repository: {_regenerate(check.sha)}."


def _repository_lines(checks: list[FixesCheck], ctx) -> dict[str, str]:
    """sha -> the line the repository writes, for wrapped tags whose commit it has and whose
    subject (joined at the break or glued) is that commit's: the one line to offer."""
    wrapped = [c for c in checks if c.read is not None and c.read.wrapped]
    if not wrapped or ctx.history is None:
        return {}
    from .fixes import fixes_line, subject_matches

    resolved = ctx.history.resolve(sorted({c.sha.lower() for c in wrapped}))
    out = {}
    for c in wrapped:
        res = resolved.get(c.sha.lower())
        if res is not None and res.found and any(subject_matches(s, res.commit.subject) for s in c.read.subjects):
            out[c.sha.lower()] = fixes_line(res.sha, res.commit.subject)
    return out


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
    found = []  # (patch, line index, check)
    for p in series.patches:
        if upstream_commit_line(p):
            continue  # a stable backport quotes the upstream message as it is
        lines = p.message_lines
        for i, line in enumerate(lines):
            check = check_fixes_line(line, lines[i + 1] if i + 1 < len(lines) else None)
            if check is not None:
                found.append((p, i, check))
    real = _repository_lines([c for _, _, c in found], ctx)
    for p in series.patches:
        for q, i, check in found:
            if q is not p:
                continue
            lines = p.message_lines
            yield Hit("Fixes tag is malformed: " + "; ".join(check.problems), patch=p.counter,
                      evidence=(lines[i],) + ((lines[i + 1],) if check.read.wrapped else ()),
                      advice=_advice(check, real.get(check.sha.lower())),
                      severity=Severity.INFO if check.cosmetic else None)
        for t in p.trailers_named("fixes"):
            value = t.value.strip()
            fl = read_fixes_line(t.line)
            if (fl is None or fl.sha is None or fl.indent) and value and not value.startswith(("http", "#")):
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
