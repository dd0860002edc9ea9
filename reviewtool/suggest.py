"""`lint --suggest`: safe, mechanical corrections of commit-message trailers, offered as a patch to
the commit messages and never applied.

Only what the repository can vouch for is suggested: the canonical `Fixes: <12 hex> ("subject")`
line of a commit that resolves, the author's own Signed-off-by when it is missing, and a `Closes:`
moved up to sit right after the `Reported-by:` it belongs to. A Closes URL is never invented.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .model.fixes import read_fixes_line
from .model.trailers import split_commit_message
from .model.series import same_person


@dataclass(frozen=True)
class MessageFix:
    commit: str  # full sha
    subject: str
    reasons: tuple[str, ...]
    diff: tuple[str, ...]  # unified diff lines of the commit message


def _fixes_lines(lines: list[str], trailers, hist) -> list[str]:
    """The canonical line for each Fixes tag whose commit resolves; a tag wrapped over two lines
    becomes one."""
    fixes = [t for t in trailers if t.key == "fixes"]
    read = {t: read_fixes_line("Fixes: " + t.value, lines[t.lineno] if t.lineno < len(lines) else None)
            for t in fixes}
    wanted = {t: fl.sha.lower() for t, fl in read.items() if fl is not None and fl.sha}
    resolved = hist.resolve(list(wanted.values()))
    reasons = []
    for t, sha in wanted.items():
        res = resolved.get(sha)
        if res is None or not res.found:
            continue  # unknown or ambiguous: only a person can say which commit was meant
        line = f'Fixes: {res.sha[:12]} ("{res.subject}")'
        if lines[t.lineno - 1] != line or read[t].wrapped:
            lines[t.lineno - 1] = line
            if read[t].wrapped:
                lines[t.lineno] = None  # type: ignore[call-overload]
            reasons.append(f"canonical Fixes line for {res.sha[:12]}")
    while None in lines:
        lines.remove(None)  # type: ignore[arg-type]
    return reasons


def _closes_after_reported(lines: list[str], trailers) -> list[str]:
    """Move a stray Closes: right after the Reported-by: that has none (line numbers are stable
    because the line moves within the trailer block)."""
    order = [t for t in trailers]
    reasons = []
    taken = set()
    for i, t in enumerate(order):
        if t.key not in ("reported-by", "reported-and-tested-by"):
            continue
        nxt = order[i + 1] if i + 1 < len(order) else None
        if nxt is not None and nxt.key in ("closes", "link"):
            taken.add(nxt.lineno)
            continue
        stray = next((c for j, c in enumerate(order) if c.key == "closes" and c.lineno not in taken
                      and not (j > 0 and order[j - 1].key in ("reported-by", "reported-and-tested-by"))), None)
        if stray is None:
            continue
        taken.add(stray.lineno)
        text = lines[stray.lineno - 1]
        lines[stray.lineno - 1] = None  # type: ignore[call-overload]
        lines.insert(t.lineno, text)
        reasons.append("Closes: moved right after its Reported-by:")
        break  # one move per pass keeps the line numbers of the remaining trailers honest
    while None in lines:
        lines.remove(None)  # type: ignore[arg-type]
    return reasons


def _author_signoff(lines: list[str], trailers, author) -> list[str]:
    sobs = [t for t in trailers if t.key == "signed-off-by"]
    if any(same_person(t.person, author) for t in sobs) or not author or not author.email:
        return []
    sob = f"Signed-off-by: {author}"
    if sobs:
        lines.insert(sobs[0].lineno - 1, sob)  # the author's sign-off opens the chain
    elif trailers:
        lines.insert(max(t.lineno for t in trailers), sob)
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines.extend(["", sob])
    return [f"Signed-off-by for the author, {author}"]


def message_fixes(commits, hist) -> list[MessageFix]:
    """A MessageFix for every commit whose message can be corrected mechanically."""
    out = []
    for commit in commits:
        old = commit.message.rstrip("\n").split("\n")
        new = list(old)
        reasons = _fixes_lines(new, split_commit_message("\n".join(new)).trailers, hist)
        reasons += _closes_after_reported(new, split_commit_message("\n".join(new)).trailers)
        reasons += _author_signoff(new, split_commit_message("\n".join(new)).trailers, commit.author)
        if new != old:
            label = f'{commit.sha[:12]} ("{commit.subject}")'
            diff = tuple(difflib.unified_diff(old, new, f"a/COMMIT_MSG {label}", f"b/COMMIT_MSG {label}", lineterm=""))
            out.append(MessageFix(commit.sha, commit.subject, tuple(reasons), diff))
    return out
