"""The patch lists that follow a reply form's line: which patches a reply settles, and the
commits they became. One parser per syntax named in reply-forms.toml (`list = ...`); each reads
the reply's own lines after the form's line and returns the patches in the order written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..bounded import number

_COUNTER_RE = re.compile(r"(?<!\d)(\d+)/(\d+)\s*$")  # from a number's start: linear
_SHA = r"[0-9a-f]{7,40}"
_COMMIT_LINE_RE = re.compile(rf"({_SHA})\s+(\S.*)")
_PW_LINE_RE = re.compile(r"\d+\s+\[([^\]]*)\]\s+(\S.*)")
_KORG_ITEM_RE = re.compile(r"\s*-\s+(\S.*)")
_KORG_LINK_RE = re.compile(rf"\s+(?:https?://\S*?/c/({_SHA})\S*|(\(no matching commit\)))\s*")
_B4_ITEM_RE = re.compile(r"\[([^\]]*)\]\s+(\S.*)")
_B4_COMMIT_RE = re.compile(rf"\s+(?:(?:merge )?commit:\s*({_SHA})\b.*|https?://\S*?\b({_SHA})\b\S*|(\(no commit info\)))\s*")
_LEADING_BRACKET_RE = re.compile(r"\[([^\]]*)\]\s+(\S.*)")


@dataclass(frozen=True)
class PatchRef:
    """One patch a reply names: its counter when the reply writes `[N/M]`, its subject as the
    reply writes it, the commit it became, and whether the reply says it was applied (the
    kernel.org bot's "(no matching commit)" and b4's "(no commit info)" say it was not)."""

    counter: int | None
    total: int | None
    subject: str | None
    commit: str | None = None
    applied: bool = True


def _counter(bracket: str) -> tuple[int | None, int | None]:
    m = _COUNTER_RE.search(bracket.replace(",", " "))
    if not m or (counter := number(m.group(1))) is None or (total := number(m.group(2))) is None:
        return None, None  # none, or numbers no series has
    return counter, total


def _ref(bracket: str | None, subject: str, commit: str | None = None, applied: bool = True) -> PatchRef:
    counter, total = _counter(bracket) if bracket is not None else (None, None)
    return PatchRef(counter=counter, total=total, subject=subject.strip(), commit=commit, applied=applied)


def _skip_blank(lines: Sequence[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def commit_lines(lines: Sequence[str]) -> list[PatchRef]:
    """`<sha> subject` lines after the form's line (pwcli: "Patch applied to ..., thanks.")."""
    out, i = [], _skip_blank(lines, 0)
    while i < len(lines) and (m := _COMMIT_LINE_RE.fullmatch(lines[i].strip())):
        out.append(_ref(None, m.group(2), m.group(1)))
        i += 1
    return out


def pw_list(lines: Sequence[str]) -> list[PatchRef]:
    """patchwork's `<id> [v2,1/3] subject` lines (pwcli: "3 patches set to Changes Requested.")."""
    out, i = [], _skip_blank(lines, 0)
    while i < len(lines) and (m := _PW_LINE_RE.fullmatch(lines[i].strip())):
        out.append(_ref(m.group(1), m.group(2)))
        i += 1
    return out


def korg_summary(lines: Sequence[str]) -> list[PatchRef]:
    """The kernel.org bot's "Here is the summary with links:" items: `- [1/2] subject`, then a
    commit link or "(no matching commit)" on the next line."""
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("Here is the summary")), None)
    if start is None:
        return []
    out, i = [], start + 1
    while i < len(lines):
        item = _KORG_ITEM_RE.fullmatch(lines[i])
        if item is None:
            break
        text, link = item.group(1), _KORG_LINK_RE.fullmatch(lines[i + 1]) if i + 1 < len(lines) else None
        bracket = _LEADING_BRACKET_RE.fullmatch(text)
        sha, none = (link.group(1), link.group(2)) if link else (None, None)
        out.append(_ref(bracket.group(1) if bracket else None, bracket.group(2) if bracket else text, sha,
                        applied=none is None))
        i += 2 if link else 1
    return out


_B4_LEAD_LINES = 6  # a template's lines before the summary: the repository and branch, "Thanks!"


def b4_summary(lines: Sequence[str]) -> list[PatchRef]:
    """b4 ty's `[1/2] subject` items, each followed by `commit: <sha>`, a commit link or
    "(no commit info)"; the items need their commit line (a bare `[1/2] x` is not b4's). The
    summary may start a few lines down, where a template names the tree first."""
    i = _skip_blank(lines, 0)
    first = next((j for j in range(i, min(len(lines) - 1, i + _B4_LEAD_LINES + 1))
                  if _B4_ITEM_RE.fullmatch(lines[j].strip()) and _B4_COMMIT_RE.fullmatch(lines[j + 1])), i)
    out, i = [], first
    while i + 1 < len(lines):
        item, commit = _B4_ITEM_RE.fullmatch(lines[i].strip()), _B4_COMMIT_RE.fullmatch(lines[i + 1])
        if item is None or commit is None:
            break
        sha = commit.group(1) or commit.group(2)
        out.append(_ref(item.group(1), item.group(2), sha, applied=commit.group(3) is None))
        i += 2
    return out


PARSERS: dict[str, Callable[[Sequence[str]], list[PatchRef]]] = {
    "commit-lines": commit_lines, "pw-list": pw_list, "korg-summary": korg_summary, "b4-summary": b4_summary}
