"""A plain git diff read in one pass, as unidiff reads it, changed lines included.

unidiff's metadata parse walks every hunk line, and model/diff.py then walked them again for the
changed lines: most of a patch mail's parse. This reader does both in one walk, for the shape
`git format-patch` writes: `diff --git a/X b/Y` headers (no blanks or quotes in the names), the
usual extended header lines, `---`/`+++`, hunks, a binary patch or `Binary files ... differ`
line before any hunk (a firmware patch's base85 lines are most of the stretch's unidiff time),
and anything after the last hunk that unidiff reads as patch info. On anything else (a header
unidiff would read differently, a hunk that does not add up, which unidiff reports) it answers
None and the caller lets unidiff
read the diff, so the reading, and any error, stays unidiff's. Each file answers what
model/diff.py asks of a unidiff PatchedFile (tests/test_diff_lines.py holds them equal).
"""

from __future__ import annotations

import re

from unidiff.constants import RE_BINARY_DIFF, RE_HUNK_HEADER

DEV_NULL = "/dev/null"
_GIT_HEADER_RE = re.compile(r'diff --git (a/[^\s"]+) (b/[^\s"]+)')
_NEW_FILE_RE = re.compile(r"new file mode \d+")
_DELETED_FILE_RE = re.compile(r"deleted file mode \d+")
# What starts a line unidiff reads as more than patch info outside a hunk (a file, a side of
# one, a hunk, a marker, a binary file): such a line is read here only in the forms handled below.
_STRUCTURAL = ("diff", "new file mode", "deleted file mode", "---", "+++", "@@", "\\", "Binary", "GIT binary")
_NO_NEWLINE = "\\ No newline at end of file"


class GitFile:
    """One file of the diff: the parts of a unidiff PatchedFile that model/diff.py reads."""

    __slots__ = ("source_file", "target_file", "patch_info", "hunks", "added_lines", "removed_lines",
                 "is_binary_file")

    def __init__(self, source_file: str, target_file: str, header_line: str):
        self.source_file = source_file
        self.target_file = target_file
        self.patch_info = [header_line + "\n"]  # as unidiff keeps them, each with its newline
        self.hunks: list[tuple[int, int, int, int]] = []  # (source start, length, target start, length)
        self.added_lines: list[str] = []
        self.removed_lines: list[str] = []
        self.is_binary_file = False

    def __len__(self) -> int:
        return len(self.hunks)

    @property
    def added(self) -> int:
        return len(self.added_lines)

    @property
    def removed(self) -> int:
        return len(self.removed_lines)

    @property
    def is_rename(self) -> bool:
        return (self.source_file != DEV_NULL and self.target_file != DEV_NULL
                and self.source_file[2:] != self.target_file[2:])

    @property
    def is_added_file(self) -> bool:
        return self.source_file == DEV_NULL or (len(self.hunks) == 1 and self.hunks[0][:2] == (0, 0))

    @property
    def is_removed_file(self) -> bool:
        return self.target_file == DEV_NULL or (len(self.hunks) == 1 and self.hunks[0][2:] == (0, 0))


def read_git_diff(text: str) -> list[GitFile] | None:
    """The files of `text` (a diff that starts at its first `diff --git` line), or None when it
    holds anything this reader leaves to unidiff."""
    if not text.startswith("diff --git "):
        return None
    lines = text.split("\n")  # unidiff reads lines as StringIO splits them: at "\n" only
    if lines[-1] == "":
        lines.pop()  # the text's final newline ends its last line
    files: list[GitFile] = []
    current: GitFile | None = None
    in_header = False  # after `diff --git`, before the file's first hunk
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if line.startswith("diff"):
            m = _GIT_HEADER_RE.fullmatch(line)
            if m is None:
                return None
            current = GitFile(m.group(1), m.group(2), line)
            files.append(current)
            in_header = True
            continue
        if current is None:  # after a file's hunks, what unidiff keeps as patch info of no file
            if line.startswith(_STRUCTURAL):
                return None
            continue
        if line.startswith("@@"):
            i = _read_hunk(lines, i, line, current)
            if i < 0:
                return None
            in_header = False
        elif in_header and line == "GIT binary patch":
            if i == n and not text.endswith("\n"):
                return None  # unidiff reads an unfinished last line as patch info
            current.is_binary_file = True
            current = None  # the base85 lines that follow are patch info of no file to unidiff
        elif in_header and line.startswith("Binary") and RE_BINARY_DIFF.match(line):
            current.is_binary_file = True
            current.patch_info.append(line + "\n")
            current = None
        elif in_header:
            if not _header_line(line, current):
                return None
        elif line == "" or line.startswith(_NO_NEWLINE):
            continue  # unidiff puts them at the end of the last hunk: no line is added or removed
        elif line.startswith(_STRUCTURAL):
            return None
        else:
            current = None  # patch info after the hunks: unidiff's file ends
    if any(f.source_file == DEV_NULL and f.target_file == DEV_NULL for f in files):
        return None  # unidiff's `path` would be asked for: left to it
    return files


def _header_line(line: str, current: GitFile) -> bool:
    """Take one line between `diff --git` and the first hunk; False when unidiff must read it."""
    if line.startswith("new file mode"):
        if not _NEW_FILE_RE.fullmatch(line):
            return False
        current.source_file = DEV_NULL
    elif line.startswith("deleted file mode"):
        if not _DELETED_FILE_RE.fullmatch(line):
            return False
        current.target_file = DEV_NULL
    elif line.startswith("--- "):
        return True  # unidiff keeps the file's source as `diff --git` named it (or /dev/null)
    elif line.startswith("+++ "):
        return line == "+++ " + current.target_file  # unidiff raises on another target
    elif line.startswith(_STRUCTURAL):
        return False
    current.patch_info.append(line + "\n")
    return True


def _read_hunk(lines: list[str], i: int, header: str, current: GitFile) -> int:
    """Read the hunk whose header is `header` and whose first line is lines[i]: the index after
    it, or -1 where unidiff would raise (or the header is not one it reads)."""
    m = RE_HUNK_HEADER.match(header)
    if m is None:
        return -1
    src_start, src_len, tgt_start, tgt_len = m.group(1, 2, 3, 4)
    src_left = 1 if src_len is None else int(src_len)
    tgt_left = 1 if tgt_len is None else int(tgt_len)
    current.hunks.append((int(src_start), src_left, int(tgt_start), tgt_left))
    added, removed = current.added_lines, current.removed_lines
    n = len(lines)
    while i < n:  # as unidiff does, at least one line is read, even for an empty hunk
        line = lines[i]
        i += 1
        kind = line[:1]
        if kind == "+":
            added.append(line[1:])
            tgt_left -= 1
        elif kind == "-":
            removed.append(line[1:])
            src_left -= 1
        elif kind in (" ", "", "\r"):
            src_left -= 1
            tgt_left -= 1
        elif kind != "\\":
            return -1
        if src_left <= 0 and tgt_left <= 0:
            return i if src_left == 0 and tgt_left == 0 else -1
        if src_left < 0 or tgt_left < 0:
            return -1
    return -1 if src_left > 0 or tgt_left > 0 else i
