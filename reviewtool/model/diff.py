"""The part of a patch mail below '---': notes for reviewers, diffstat and the diff (via unidiff)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..bounded import MAX_COUNT, number
from .gitdiff import read_git_diff
from .series import Diff, FileChange

_DIFF_START_RE = re.compile(r"^(diff --git |diff -|Index: |--- \S)", re.M)
_DIFFSTAT_LINE_RE = re.compile(r"^ ?\S.*\s\|\s+(\d+|Bin\b.*)", re.M)
# [^\S\n]: blanks within the line. `^\s*` ran from every line start across all the blank lines after it.
_DIFFSTAT_SUMMARY_RE = re.compile(r"^[^\S\n]*(\d+) files? changed", re.M)
_STAT_ANY_RE = re.compile(r"^( ?\S.*[^\S\n]\|[^\S\n]+(\d+|Bin\b).*|[^\S\n]*\d+ files? changed.*)\n?", re.M)
_TAIL_INFO_RE = re.compile(r"^((?:base-commit|change-id|prerequisite-[\w-]+):[ \t]*\S+)[ \t]*$\n?", re.M)
_TAIL_MARKERS = ("base-commit:", "change-id:", "prerequisite-")  # literals every _TAIL_INFO_RE match holds
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x9b]")


@dataclass(frozen=True)
class Basement:
    notes: str  # version log and comments for reviewers
    diffstat: str
    diff: Diff


@lru_cache(maxsize=8192)  # each path is named by three or four header lines of its diff
def unsafe_path_reason(path: str) -> str | None:
    if _CONTROL_RE.search(path):
        return "control characters or terminal escapes in the file name"
    if path.startswith("/"):
        return "absolute path"
    if any(part == ".." for part in path.split("/")):
        return "'..' path component"
    return None


def _strip_prefix(path: str | None) -> str | None:
    if path is None or path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


_HUGE_HUNK_RE = re.compile(r"\n@@ [^\n]*?\d{10}")  # on "\n" + diff: unidiff would convert every digit of it
_HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _changed_lines(lines: list[str], patchset) -> list[tuple[list[str], list[str]]] | None:
    """(added, removed) lines per file of a metadata-only unidiff parse, read from the diff text
    between the files' header lines; None when they do not add up to unidiff's own counts (the
    caller then lets unidiff read every line)."""
    starts = [pf.diff_line_no - 1 for pf in patchset] + [len(lines)]
    out = []
    for pf, start, end in zip(patchset, starts, starts[1:]):
        added: list[str] = []
        removed: list[str] = []
        i = start
        while i < end:
            m = _HUNK_RE.match(lines[i])
            i += 1
            if not m:
                continue
            old, new = (1 if g is None else _count(g) for g in m.groups())
            while (old > 0 or new > 0) and i < end:
                line = lines[i]
                kind = line[:1]
                if kind == "+":
                    added.append(line[1:])
                    new -= 1
                elif kind == "-":
                    removed.append(line[1:])
                    old -= 1
                elif kind in (" ", "", "\r"):
                    old -= 1
                    new -= 1
                elif kind != "\\":  # "\ No newline at end of file"
                    return None
                i += 1
        if len(added) != pf.added or len(removed) != pf.removed:
            return None
        out.append((added, removed))
    return out


def _parse_files(diff_text: str):
    """(the files as unidiff reads them, FileChanges). A plain git diff is read in one pass
    (model/gitdiff.py). Otherwise unidiff checks the structure and counts every hunk's lines
    (metadata only); the changed lines are then read from the text. If the two disagree, unidiff
    reads every line itself, as it always did."""
    files = read_git_diff(diff_text)
    if files is not None:
        return files, tuple(_file_change(f, (f.added_lines, f.removed_lines)) for f in files)
    patchset = PatchSet(diff_text, metadata_only=True)
    changed = _changed_lines(diff_text.split("\n"), patchset)
    if changed is None:
        patchset = PatchSet(diff_text)
        return patchset, tuple(_file_change(pf) for pf in patchset)
    return patchset, tuple(_file_change(pf, c) for pf, c in zip(patchset, changed))


def _file_change(pf, changed: tuple[list[str], list[str]] | None = None) -> FileChange:
    src = _strip_prefix(pf.source_file)
    tgt = _strip_prefix(pf.target_file)
    if pf.is_added_file:
        status = "added"
    elif pf.is_removed_file:
        status = "deleted"
    elif pf.is_rename:
        status = "renamed"
    elif src and tgt and src != tgt:
        status = "renamed"
    elif not len(pf) and "old mode" in "".join(str(x) for x in pf.patch_info or ()):
        status = "mode"
    else:
        status = "modified"
    path = tgt or src or pf.path
    if changed is not None:
        added, removed = changed
    else:
        added, removed = [], []
        for hunk in pf:
            for line in hunk:
                if line.is_added:
                    added.append(line.value.rstrip("\n"))
                elif line.is_removed:
                    removed.append(line.value.rstrip("\n"))
    reason = unsafe_path_reason(path) or (unsafe_path_reason(src) if src else None)
    return FileChange(path=path, old_path=src if status == "renamed" else None, status=status,
                      insertions=pf.added, deletions=pf.removed, binary=pf.is_binary_file,
                      added_lines=tuple(added), removed_lines=tuple(removed), unsafe_path=reason)


def _has_unified_header(pf) -> bool:
    """A content change announced with no hunk after it: the hunks were lost or mangled."""
    info = "".join(str(line) for line in (pf.patch_info or ()))
    if pf.is_binary_file or pf.is_rename or pf.is_added_file or pf.is_removed_file:
        return False
    return not any(k in info for k in ("old mode", "new mode", "similarity index", "copy from"))


# Header lines are found as "\n" + header on "\n" + text: a pattern that starts with a literal is
# searched for that literal, where `^` in multi-line mode is tried at every character.
_HEADER_PATH_RE = re.compile(r"\n(?:diff --git a/(\S+) b/(\S+)|--- (?:a/)?(\S+)|\+\+\+ (?:b/)?(\S+)|"
                             r"rename (?:from|to) (\S+)|copy (?:from|to) (\S+))")


def _unsafe_header_paths(diff_text: str) -> list[FileChange]:
    """Unsafe names seen in any diff header line, even where unidiff could not parse the file."""
    out: dict[str, FileChange] = {}
    for m in _HEADER_PATH_RE.finditer("\n" + diff_text):
        for path in filter(None, m.groups()):
            reason = path != "/dev/null" and unsafe_path_reason(path)
            if reason and path not in out:
                out[path] = FileChange(path=path, old_path=None, status="unparsed", insertions=0,
                                       deletions=0, unsafe_path=reason)
    return list(out.values())


def _count(digits: str) -> int:
    """A hunk header's line count; one past any file's length reads on to the next file."""
    n = number(digits)
    return MAX_COUNT if n is None else n


_SHARED_BELOW = 64 << 10  # texts up to this size are remembered: at most 128 of them (8 MB and their parse)


def parse_basement(text: str) -> Basement:
    """Split what follows '---' and parse its diff. A seventh of a list's patch mails are read
    twice (a resend, a patch in two threads): a Basement is frozen, so a repeated text shares it."""
    return _parse_shared(text) if len(text) <= _SHARED_BELOW else _parse_basement(text)


@lru_cache(maxsize=128)
def _parse_shared(text: str) -> Basement:
    return _parse_basement(text)


_BLANK_LINES_RE = re.compile(r"\n{3,}")


def _parse_basement(text: str) -> Basement:
    text = text.replace("\r\n", "\n")
    m = _DIFF_START_RE.search(text)
    head, diff_text = (text[: m.start()], text[m.start():]) if m else (text, "")
    # git format-patch --base puts base-commit/prerequisite lines after the diff: they are notes.
    tail = []
    if any(marker in diff_text for marker in _TAIL_MARKERS):  # the regex alone scans every line start
        tail = _TAIL_INFO_RE.findall(diff_text)
        diff_text = _TAIL_INFO_RE.sub("", diff_text)
    stat_lines = _DIFFSTAT_LINE_RE.findall(head)
    summary = _DIFFSTAT_SUMMARY_RE.search(head)
    has_diffstat = bool(stat_lines or summary)
    announced = number(summary.group(1)) if summary else None  # an absurd count is no count
    diffstat_files = announced if announced is not None else len(stat_lines)
    stat_text = "\n".join(m.group(0) for m in _STAT_ANY_RE.finditer(head))
    notes = _STAT_ANY_RE.sub("", head) if has_diffstat else head
    notes = _BLANK_LINES_RE.sub("\n\n", notes) + ("\n" + "\n".join(tail) if tail else "")
    files: tuple[FileChange, ...] = ()
    problem = None
    has_diff = bool(diff_text.strip())
    if has_diff and (huge := _HUGE_HUNK_RE.search("\n" + diff_text)):
        problem = f"a hunk header's line numbers have more digits than any file has lines: {huge.group(0)[1:61]!r}"
    elif has_diff:
        try:
            patchset, files = _parse_files(diff_text)
            empty = [f.path for pf, f in zip(patchset, files) if not len(pf) and _has_unified_header(pf)]
            if empty:
                problem = f"no usable hunk follows the header of {empty[0]}"
        except (UnidiffParseError, ValueError, IndexError) as exc:
            problem = f"the diff does not parse: {' '.join(str(exc).split())[:160]}"
        if not files and problem is None:
            problem = "a diff header is present but no file change could be read from it"
        if problem is None and has_diffstat and diffstat_files > len(files):  # a file's diff was lost
            problem = f"the diffstat announces {diffstat_files} changed files but the diff carries {len(files)}"
        flagged = {f.path for f in files if f.unsafe_path}
        files += tuple(f for f in _unsafe_header_paths(diff_text) if f.path not in flagged
                       and not any(f.path in (g.path, g.old_path) for g in files))
    elif has_diffstat and diffstat_files:
        problem = f"the diffstat announces {diffstat_files} changed file(s) but no diff follows"
    return Basement(notes=notes.strip("\n"), diffstat=stat_text.strip("\n"),
                    diff=Diff(files=files, has_diff=has_diff, has_diffstat=has_diffstat,
                              diffstat_files=diffstat_files, problem=problem,
                              text=diff_text if has_diff else ""))
