"""Commit message bodies: a description, commit references, the trailer block, the diff itself,
and the base-commit a series is built on."""

from __future__ import annotations

import re

from ..model.fixes import fixes_lines, read_fixes_line
from ..model.series import Patch, is_pull_request
from ..model.trailers import is_trailer_line, split_commit_message
from .registry import Hit, Severity, rule

_BLURB_RE = re.compile(r"\*\*\*\s*BLURB HERE\s*\*\*\*", re.I)
# `commit <hex>` (5+ hex with a digit, so "commit added" is a word) and a bare 12-40 hex id.
_COMMIT_REF_RE = re.compile(r"\b(commit)\s+(?=[0-9a-fA-F]*\d)([0-9a-fA-F]{5,})\b", re.I)
_BARE_ID_RE = re.compile(r"(?<![\w/.:=@<\[+#-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])([0-9a-f]{12,64})(?![\w/.@>\]-])")
_DESCRIPTION_RE = re.compile(r'\s*\("(.+?)"\)', re.S)
_HEX_RUN_RE = re.compile(r"[0-9a-fA-F]{5}", re.I)  # in every id both patterns above find
# Lines where an id is written the way their own convention wants (and Fixes tags: model/fixes.py).
_EXEMPT_LINE_RE = re.compile(
    r"^\s*(>|(Link|Closes|base-commit|prerequisite-[\w-]+|change-id|Patchwork|BugLink)\s*:"
    r"|This reverts commit |\(cherry[ -]picked from commit |\[\s*upstream commit |upstream commit "
    r"|commit [0-9a-f]{12,64} upstream\b|https?://"
    r"|From [0-9a-f]{40}(?:[0-9a-f]{24})? Mon Sep 17 00:00:00 2001)", re.I)  # a pasted format-patch separator
# A pasted oops or log: ids in it are addresses and hashes, not commits (checkpatch does the same).
# Also the crash utility's `bt` output (`PID: 210933  TASK: ffff...`, `[ffffa7a8...] __schedule at ffff...`).
_DUMP_RE = re.compile(r"(\[\s*\d+\.\d+\]|Call Trace:|\bRIP:|\bBUG:|\bWARNING:|\bCode:|\bRSP:|\bRAX:|Hardware name:"
                      r"|Workqueue:|\+0x[0-9a-f]+/0x[0-9a-f]+|^[^\S\n]*[0-9a-f]{8,16}:\s|\bPID:\s*\d+\s+TASK:"
                      r"|^[^\S\n]*(?:#\d+\s+)?\[[0-9a-f]{8,16}\]\s+\S+\s+at\s+[0-9a-f]+)", re.M)
# Kernel and user-space addresses of 64-bit machines: never commit ids.
_ADDRESS_RE = re.compile(r"^(?:ffff|0000)[0-9a-f]{12}$")
# An id named properly somewhere in the message: `commit <id> ("...")`, `This reverts commit <id>`,
# or a Fixes tag (model/fixes.py). A later bare mention of it (or of its prefix) is a back-reference.
_INTRODUCED_RE = re.compile(r"\bcommit\s+([0-9a-f]{8,64})\b(?=\s*\(\"|\.?\s*$)"
                            r"|\breverts\s+commit\s+([0-9a-f]{8,64})", re.I | re.M)
_TINY_CHANGE = 3  # changed lines up to which a subject alone can say it all (a device ID, a typo)



def _description_lines(p: Patch) -> list[tuple[int, str]]:
    """(line number, text) of the commit message above the trailer block, in-body headers excluded."""
    parts = split_commit_message("\n".join(p.message_lines))
    trailer_lines = {t.lineno for t in p.trailers}
    first_trailer = min(trailer_lines, default=len(p.message_lines) + 1)
    skip_head = 0
    if parts.inbody_headers:
        for n, line in enumerate(p.message_lines, 1):
            if re.match(r"^(From|Subject|Date):\s", line):
                skip_head = n
            elif line.strip():
                break
    return [(n, line) for n, line in enumerate(p.message_lines, 1) if skip_head < n < first_trailer]


@rule("commit-message-missing", family="body", severity="warning",
      summary="A patch has no description besides its trailers (or a cover letter has no text)")
def commit_message_missing(series, ctx):
    """Why: The commit message is what remains of the discussion in git history: it says what the
    problem is, why this change fixes it and how. Even a one-line fix needs a sentence; a reviewer
    cannot judge a change whose reason is not written down.
    A message that is only remarks in parentheses says no more than an empty one. A change of up
    to three lines (a new device ID, say) is a note: maintainers apply those when the subject says
    it all.
    Source: kernel submitting-patches ("Describe your changes"); checkpatch COMMIT_MESSAGE.
    Bad:
      [PATCH net] net: foo: fix leak

      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      [PATCH net] net: foo: fix leak

      foo_open() allocates the ring but its error path returns without freeing it.
      Free the ring when register_netdev() fails.

      Signed-off-by: Jane Developer <jane@example.org>
    """
    if series.cover is not None and not series.cover.subject.pull:
        text = series.cover.message
        if _BLURB_RE.search(text) or not text.strip():
            yield Hit("the cover letter has no text" if not text.strip() else
                      "the cover letter still holds the `*** BLURB HERE ***` placeholder", patch=0,
                      evidence=tuple(l for l in text.splitlines() if _BLURB_RE.search(l))[:1] or (series.cover.subject.raw,),
                      advice="Describe the series in the cover letter: the problem, the approach, how it was "
                             "tested; on netdev it becomes the merge commit's message.")
    for p in series.patches:
        if p.subject.pull or not p.diff.has_diff:
            continue
        described = " ".join(line.strip() for _, line in _description_lines(p) if line.strip())
        aside = bool(described) and _only_asides(described)
        if described and not aside:
            continue
        size = p.diff.insertions + p.diff.deletions
        tiny = bool(p.diff.files) and size <= _TINY_CHANGE
        what = (f"the commit message is only a remark in parentheses: {described[:80]!r}" if aside
                else "the commit message has no description, only trailers" if p.trailers
                else "the commit message is empty")
        yield Hit(what + (f" (a {size}-line change)" if tiny else ""), patch=p.counter,
                  evidence=(p.subject.raw,) + ((described[:160],) if aside else ()),
                  severity=Severity.INFO if tiny else None,
                  advice="Add a paragraph saying what is wrong, why, and how this patch fixes it, as sentences of "
                         "their own above the trailers.")


_WORD_RE = re.compile(r"\w")


def _only_asides(text: str) -> bool:
    """Nothing but remarks in parentheses ("(foo() does not read this field.)", "(Found by
    inspection.) (Untested.)"): once every parenthesized part is taken out, no word is left.
    A sentence with a remark in it ("Drop it (foo() never reads it).") is a description."""
    if "(" not in text:
        return False  # most description lines: the answer below needs a "(" anyway
    depth, outside = 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            outside.append(ch)
    return depth == 0 and "(" in text and not _WORD_RE.search("".join(outside))


def _dump_paragraph_lines(lines: list[tuple[int, str]]) -> set[int]:
    """Line numbers of paragraphs that look like a pasted oops, register dump or log."""
    out: set[int] = set()
    para: list[tuple[int, str]] = []
    for n, line in lines + [(0, "")]:
        if line.strip():
            para.append((n, line))
            continue
        if para and any(_DUMP_RE.search(l) for _, l in para):
            out.update(k for k, _ in para)
        para = []
    return out


def _reference_problem(window: str, hex_id: str, with_word: bool) -> str | None:
    described = _DESCRIPTION_RE.match(window)
    if with_word and len(hex_id) < 12:
        return f"the id {hex_id} is abbreviated to {len(hex_id)} characters (12 or more are needed)"
    if described:
        return None
    if with_word:
        return f"commit {hex_id} is not followed by its subject in (\"...\")"
    return f"{hex_id} looks like a commit id but is not written as commit <id> (\"subject\")"


@rule("commit-reference-format", family="body", severity="warning",
      summary="A commit named in the description is not written as commit <12+ hex> (\"subject\")")
def commit_reference_format(series, ctx):
    """Why: An abbreviated or bare id can become ambiguous as the tree grows and tells the reader
    nothing; with its subject the reference survives rebases and backports, and reads on its own.
    The reference may wrap over up to three lines. Link:, base-commit:, "This reverts commit", a
    stable backport's `commit <sha> upstream.` and a pasted format-patch separator (`From <sha>
    Mon Sep 17 00:00:00 2001`, which discussion-in-log explains) follow their own conventions.
    Source: kernel submitting-patches ("Describe your changes"); checkpatch GIT_COMMIT_ID.
    Bad:
      This was broken by commit 1234abcd, which moved the check.
    Good:
      This was broken by commit 1234abcd5678 ("net: foo: move the length check"), which moved
      the check.
    """
    for p in series.patches:
        if p.subject.pull:
            continue
        found = list(_reference_problems(p))
        if found:
            yield _reference_hit(p, found)


def _introduced(p: Patch) -> set[str]:
    named = {(m.group(1) or m.group(2)).lower() for m in _INTRODUCED_RE.finditer("\n".join(p.message_lines))}
    return named | {fl.sha.lower() for _, fl in fixes_lines(p.message_lines) if fl.sha}


def _reference_problems(p: Patch):
    """(line number, context lines, problem, id) for each badly written commit reference."""
    lines = _description_lines(p)
    if not any(_HEX_RUN_RE.search(line) for _, line in lines):
        return  # no line names an id (most messages): nothing below can find one
    dumps = _dump_paragraph_lines(lines)
    named = _introduced(p)
    texts = [line for _, line in lines]
    for i, (n, line) in enumerate(lines):
        if not _HEX_RUN_RE.search(line) or _EXEMPT_LINE_RE.match(line) or read_fixes_line(line) is not None:
            continue
        window_text = " ".join(t.strip() for t in texts[i:i + 3])
        offset = len(line) - len(line.lstrip())  # window_text starts at the first non-blank
        seen: set[int] = set()
        for m in _COMMIT_REF_RE.finditer(line):
            seen.update(range(m.start(2), m.end(2)))
            problem = _reference_problem(window_text[m.end() - offset:], m.group(2), True)
            if problem:
                yield n, texts[i:i + 3], problem, m.group(2)
        if n in dumps or line[:1].isspace():
            continue  # indented text is quoted output: ids there are rarely commits
        for m in _BARE_ID_RE.finditer(line):
            hex_id = m.group(1)
            if m.start(1) in seen or _ADDRESS_RE.match(hex_id) or any(full.startswith(hex_id) or hex_id.startswith(full)
                                                                     for full in named):
                continue
            problem = _reference_problem(window_text[m.end() - offset:], hex_id, False)
            if problem:
                yield n, texts[i:i + 3], problem, hex_id


def _reference_hit(p: Patch, found: list) -> Hit:
    """One finding per patch, however many references share the problem: the first ones as evidence."""
    lineno, context, problem, hex_id = found[0]
    shown = [context[0]] + [l for l in context[1:2] if l.strip()]
    if len(found) == 1:
        message, evidence = f"line {lineno}: {problem}", tuple(l.rstrip() for l in shown)
    else:
        lines = ", ".join(str(f[0]) for f in found[:6]) + (", ..." if len(found) > 6 else "")
        message = (f"{len(found)} commit references are not written as commit <12+ hex> (\"subject\") "
                   f"(lines {lines}); the first: {problem}")
        evidence = tuple(f[1][0].rstrip() for f in found[:3])
    return Hit(message, patch=p.counter, evidence=evidence,
               advice="Write each reference as `commit <12+ hex> (\"<its subject>\")`; "
                      f"`git log -1 --abbrev=12 --format='commit %h (\"%s\")' {hex_id}` prints it.")


@rule("trailer-block-broken", family="body", severity="warning",
      summary="Blank lines or prose inside the trailer block, or a Fixes tag cut off from the trailers")
def trailer_block_broken(series, ctx):
    """Why: git, b4 and patchwork read trailers only from the last paragraph of the commit
    message: a blank line or a line of prose inside it hides the trailers above it, and a Fixes
    tag left in the description is invisible to the tools that route fixes to stable trees.
    Source: git interpret-trailers; kernel submitting-patches; NIPA verify_fixes (isolated Fixes).
    Bad:
      Fixes: 1234abcd5678 ("net: foo: add bar")

      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      Fixes: 1234abcd5678 ("net: foo: add bar")
      Signed-off-by: Jane Developer <jane@example.org>
    """
    for p in series.patches:
        if p.subject.pull:
            continue
        parts = split_commit_message("\n".join(p.message_lines))
        problems = list(parts.block_problems)
        description = parts.prose.split("\n")
        for line in description:
            if (fl := read_fixes_line(line)) is not None and fl.sha:
                problems.append(f"a Fixes tag sits in the description, away from the trailer block: {line.strip()!r}")
        # A sign-off followed by more text (often a version log) is not in the last paragraph.
        signoffs = [i for i, l in enumerate(description) if l.lower().startswith("signed-off-by:")]
        if signoffs:
            after = [l for l in description[signoffs[-1] + 1:] if l.strip() and not is_trailer_line(l)]
            if after:
                problems.append("text follows the Signed-off-by, so the trailers are not the last paragraph: "
                                f"{after[0].strip()[:80]!r}")
        for problem in problems:
            yield Hit(f"trailer block: {problem}", patch=p.counter, evidence=_quote(problem),
                      advice="Put every trailer (Fixes, Reported-by, Signed-off-by, ...) in one block of "
                             "consecutive lines at the end of the commit message; version notes go below `---`.")


def _quote(problem: str) -> tuple[str, ...]:
    m = re.search(r"'(.*)'$", problem) or re.search(r"\"(.*)\"$", problem)
    return (m.group(1),) if m else ()


@rule("patch-corrupt", family="body", severity="error",
      summary="The diff is missing, truncated or mangled: no usable hunk, or hunks that do not match their headers")
def patch_corrupt(series, ctx):
    """Why: A patch whose hunks were wrapped, stripped of their leading spaces or cut short by a
    mail client does not apply; a diffstat announcing files that no hunk changes means the diff
    was lost on the way. Neither can be reviewed as sent.
    Source: kernel email-clients.rst; checkpatch CORRUPTED_PATCH / NOT_UNIFIED_DIFF; git apply.
    Bad:
      @@ -10,7 +10,7 @@ static int foo(struct net_device *dev)
      -	err = bar(dev);
      +	err = bar(dev,
      0);
    Good:
      @@ -10,7 +10,7 @@ static int foo(struct net_device *dev)
      -	err = bar(dev);
      +	err = bar(dev, 0);
    """
    for p in series.patches:
        problem = p.diff.problem
        if problem:
            # unidiff names the line it stumbled on after a colon; that line is the evidence.
            m = re.search(r"(?:expected|found|source|target|header of): (.+)$", problem)
            yield Hit(f"the diff is unusable: {problem}", patch=p.counter,
                      evidence=(m.group(1),) if m else (p.subject.raw,),
                      advice="Resend with git send-email (or b4 send) instead of pasting into a mail client, "
                             "and check it with `git am` on a clean tree first.")


@rule("base-commit-missing", family="body", severity="info",
      summary="The cover letter (or patch 1 without one) names no base-commit")
def base_commit_missing(series, ctx):
    """Why: CI bots and maintainers need the commit the series was built on to apply and test it;
    without it they guess a tree, and "does not apply" reports follow.
    Source: kernel submitting-patches ("Providing base tree information"); git format-patch --base.
    Bad:
      [PATCH net-next 0/3] ...   (no base-commit: line anywhere)
    Good:
      base-commit: 0123456789abcdef0123456789abcdef01234567   (below the diffstat, via --base=auto)
    """
    first = series.first
    if first is None or is_pull_request(series):  # request-pull names its base itself
        return
    where = 0 if series.has_cover else first.counter
    if series.base_commit_raw and not series.base_commit:
        yield Hit(f"base-commit: {series.base_commit_raw!r} is not a commit id", patch=where,
                  evidence=(f"base-commit: {series.base_commit_raw}",),
                  advice="Let `git format-patch --base=auto` (or b4 send) write the full 40-hex id of the base.")
    elif not series.base_commit_raw:
        yield Hit(f"{'the cover letter' if series.has_cover else 'patch 1'} names no base-commit", patch=where,
                  evidence=(first.subject.raw,),
                  advice="Generate the series with `git format-patch --base=auto` (set a branch upstream) "
                         "or send it with b4, which add `base-commit: <sha>`.")
