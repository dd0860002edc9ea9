"""Apply a series' diffs onto a commit in a scratch index, the way `git am -3` would.

All writes (the index, blobs of the result) go to a scratch repository (sources.gitbatch.
ScratchRepo) that borrows nothing from the user's: the base's entries are read from the user's
repository with `ls-tree`, and the blobs git apply reads (the files the diffs touch, the
preimages a three-way merge names) are copied in from its `cat-file --batch`. With the user's
objects as alternates, git would "freshen" (touch) the user's copy of every object it writes
again: the user's index, work tree, refs and object store, down to file times, are never written.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Protocol, Sequence

from ...sources.gitbatch import CatFile, GitRunner, ScratchRepo

_FAILED_RE = re.compile(r"^error: (?:patch failed: (?P<a>.+?):\d+|(?P<b>.+?): (?:patch does not apply|does not exist "
                        r"in index|already exists in index|does not match index|No such file or directory))\s*$")
_counter = itertools.count(1)


@dataclass(frozen=True)
class ApplyResult:
    base: str  # full sha the series was applied onto
    applied: bool  # every patch applied
    failed_patch: int | None = None  # counter of the first patch that did not apply
    failed_file: str | None = None  # the file git named
    error: str = ""  # git's first error line
    three_way: tuple[int, ...] = ()  # patches that needed a 3-way merge (they did not apply as-is)


class Source(Protocol):
    """The user's repository, read only: `runner` for ls-tree, `catfile` for blobs."""

    runner: GitRunner
    catfile: CatFile


def apply_in_scratch(scratch: ScratchRepo, base: str, diffs: Sequence[tuple[int, str]], *, source: Source,
                     sparse: bool = True, at_once: bool = True) -> ApplyResult:
    """Apply `diffs` ((counter, diff text), in order) onto `base`; stop at the first failure.

    `sparse`: first into an index holding only the entries the diffs can meet (_read_entries_for):
    reading a kernel's 78,000 entries cost each apply about 200 ms. What applies there applies on
    the whole tree; a failure is confirmed on the whole tree, as `git am` has it, so a path named in
    a way read here differently from git cannot make a series look broken.

    `at_once`: the whole series first goes to one `git apply`, which applies each patch to what
    the ones before it left, all or nothing; only when that fails is each patch applied by itself
    (to name the first that fails, and to try a three-way merge). One process, not one a patch."""
    if sparse:
        result = _with_index(scratch, source, base, diffs, whole_tree=False, at_once=at_once)
        if result is not None and result.applied:
            return result
    return _with_index(scratch, source, base, diffs, whole_tree=True, at_once=at_once)  # type: ignore[return-value]


def _with_index(scratch: ScratchRepo, source: Source, base: str, diffs: Sequence[tuple[int, str]], *,
                whole_tree: bool, at_once: bool) -> ApplyResult | None:
    index = scratch.dir / f"index-{next(_counter)}"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        if not whole_tree:
            if not _read_entries_for(scratch, source, base, diffs, env):
                return None
        else:
            error = _read_whole_tree(scratch, source, base, diffs, env)
            if error is not None:
                return ApplyResult(base, False, error=error)
        _copy_preimages(scratch, source, diffs)
        texts = [d if d.endswith("\n") else d + "\n" for _, d in diffs if d.strip()]
        if at_once and len(texts) > 1 and _independent_structure(texts):
            res = scratch.run(["apply", "--cached", "--whitespace=nowarn"], input="".join(texts), env=env,
                              check=False)
            if res.code == 0:
                return ApplyResult(base, True)
            # git apply wrote nothing: each patch is tried by itself on the same index.
        merged: list[int] = []
        for counter, diff in diffs:
            if not diff.strip():
                continue
            text = diff if diff.endswith("\n") else diff + "\n"
            res = scratch.run(["apply", "--cached", "--whitespace=nowarn"], input=text, env=env, check=False)
            if res.code == 0:
                continue
            three = scratch.run(["apply", "--cached", "--3way", "--whitespace=nowarn"], input=text, env=env,
                                check=False)
            if three.code == 0:
                merged.append(counter)
                continue
            return ApplyResult(base, False, failed_patch=counter, failed_file=_failed_file(res.err),
                               error=_first_error(res.err), three_way=tuple(merged))
        return ApplyResult(base, True, three_way=tuple(merged))
    finally:
        index.unlink(missing_ok=True)


_FILE_HEADER_RE = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)
_CREATES = ("new file mode ", "rename to ", "copy to ")
_REMOVES = ("deleted file mode ", "rename from ")


def _independent_structure(texts: Sequence[str]) -> bool:
    """Whether one `git apply` of all the diffs answers as applying them one by one does.

    Patches that modify the same files are fine. A file may also be created by one patch and
    modified by later ones, or modified and then deleted (or renamed away) by a later one. Any
    other mix (a file created or removed twice, named before it is created or after it is
    removed, a copy's source named elsewhere), and any file header not plainly readable, goes
    patch by patch: one run carries such files from patch to patch differently (the same rename
    twice succeeds)."""
    mentions: dict[str, list[tuple[int, str]]] = {}  # path -> (patch, "create" | "remove" | "copy" | "modify")
    for i, text in enumerate(texts):
        for section in re.split(r"^(?=diff --git )", text, flags=re.M):
            if not section.startswith("diff --git "):
                continue
            m = _FILE_HEADER_RE.match(section)
            if m is None:
                return False  # a quoted or spaced name: not read here
            old, new = m.groups()
            head = section.split("\n@@", 1)[0]
            lines = head.splitlines()
            creates = any(line.startswith(_CREATES) for line in lines)
            removes = any(line.startswith(_REMOVES) for line in lines)
            copies = any(line.startswith("copy from ") for line in lines)
            if old == new:
                kind = "create" if creates else "remove" if removes else "modify"
                mentions.setdefault(old, []).append((i, kind))
            else:  # a rename or a copy: the source is removed or copied, the destination created
                mentions.setdefault(old, []).append((i, "copy" if copies else "remove"))
                mentions.setdefault(new, []).append((i, "create"))
    for events in mentions.values():
        structural = [(i, kind) for i, kind in events if kind != "modify"]
        if len(structural) > 1:
            return False
        if structural:
            at, kind = structural[0]
            others = [i for i, k in events if k == "modify"]
            if kind == "copy" and others:
                return False
            if kind == "create" and any(i <= at for i in others):
                return False
            if kind == "remove" and any(i >= at for i in others):
                return False
    return True


_MAX_SPARSE_PATHS = 2000  # a larger series reads the whole tree (and keeps command lines short)
_SOURCE_RE = re.compile(rb"^(?:rename|copy) from (.+)$", re.M)
_C_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def _diff_paths(scratch: ScratchRepo, text: str) -> set[bytes] | None:
    """Every path the diffs name: git apply's own list (`--numstat -z`, destinations), and the
    sources of renames and copies, which it does not list. None when git cannot read the diffs."""
    stat = scratch.run(["apply", "--numstat", "-z"], input=text, check=False, binary=True)
    if stat.code != 0:
        return None
    paths: set[bytes] = set()
    for record in stat.out.split(b"\0"):
        parts = record.split(b"\t", 2)
        if len(parts) == 3 and parts[2]:
            paths.add(parts[2])
        elif record:
            return None  # a shape this reading does not know
    for m in _SOURCE_RE.finditer(text.encode("utf-8", "surrogateescape")):
        name = _c_unquote(m.group(1))
        if name is None:
            return None
        paths.add(name)
    return paths


def _c_unquote(name: bytes) -> bytes | None:
    """A path as git writes it in a diff header: as is, or C-quoted ("a\\tb", octal bytes)."""
    if not name.startswith(b'"'):
        return name
    if not name.endswith(b'"') or len(name) < 2:
        return None
    out, body, i = bytearray(), name[1:-1], 0
    while i < len(body):
        c = body[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
        elif body[i + 1:i + 2] in _C_ESCAPES:
            out.append(_C_ESCAPES[body[i + 1:i + 2]])
            i += 2
        elif re.fullmatch(rb"[0-7]{3}", body[i + 1:i + 4]):
            out.append(int(body[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            return None
    return bytes(out)


def _joined(diffs: Sequence[tuple[int, str]]) -> str:
    return "".join(d if d.endswith("\n") else d + "\n" for _, d in diffs if d.strip())


def _fill_index(scratch: ScratchRepo, source: Source, entries: list[bytes], blobs_for: set[bytes] | None,
                env: dict[str, str]) -> bool:
    """Put `entries` (ls-tree -z records of the user's base) into the scratch index, and copy in
    the blobs of those whose path is in `blobs_for` (None: of all of them): git apply reads
    those, and the scratch repository has no other way to see them."""
    wanted = []
    for e in entries:
        meta, _, path = e.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob" and (blobs_for is None or path in blobs_for):
            wanted.append(parts[2].decode("ascii"))
    scratch.add_blobs(source.catfile.query(sorted(set(wanted))))
    # The index file must exist before the first apply, as read-tree leaves it: git apply --3way
    # answers differently on an index it creates itself.
    fill = (scratch.run(["update-index", "-z", "--index-info"], input=b"".join(e + b"\0" for e in entries),
                        env=env, check=False) if entries else scratch.run(["read-tree", "--empty"], env=env, check=False))
    return fill.code == 0


def _read_whole_tree(scratch: ScratchRepo, source: Source, base: str, diffs: Sequence[tuple[int, str]],
                     env: dict[str, str]) -> str | None:
    """The scratch index as `read-tree base` leaves it, read from the user's repository (which
    only `ls-tree` reads); the error line when git cannot read the tree."""
    listed = source.runner.run(["ls-tree", "-r", "-z", "--full-tree", base], check=False, binary=True)
    if listed.code != 0:
        return _first_error(listed.err) or f"cannot read the tree of {base}"
    paths = _diff_paths(scratch, _joined(diffs)) or set()
    if not _fill_index(scratch, source, [e for e in listed.out.split(b"\0") if e], paths, env):
        return f"cannot read the tree of {base}"
    return None


_INDEX_LINE_RE = re.compile(r"^index ([0-9a-f]{4,64})\.\.[0-9a-f]{4,64}(?: [0-7]{6})?$", re.M)


def _copy_preimages(scratch: ScratchRepo, source: Source, diffs: Sequence[tuple[int, str]]) -> None:
    """The blobs a three-way merge starts from (each diff's `index OLD..NEW` line): copied in
    when the user's repository has them, as git apply --3way would find them there."""
    names = sorted({m.group(1) for _, d in diffs for m in _INDEX_LINE_RE.finditer(d)} - {"0" * 7})
    if names:
        scratch.add_blobs(source.catfile.query([n for n in names if n.strip("0")]))


def _read_entries_for(scratch: ScratchRepo, source: Source, base: str, diffs: Sequence[tuple[int, str]],
                      env: dict[str, str]) -> bool:
    """Fill the scratch index with base's entries for the paths the diffs name, everything under
    those of them that are directories, and those of their parent directories that are files:
    what `git apply --cached` looks at (a missing file, an existing one, a file/directory clash).
    False: the diffs do not parse, or name too many paths; the caller reads the whole tree."""
    paths = _diff_paths(scratch, _joined(diffs))
    if not paths:
        return False
    parents = {p.rsplit(b"/", k)[0] for p in paths for k in range(1, p.count(b"/") + 1)} - paths
    if len(paths) + len(parents) > _MAX_SPARSE_PATHS:
        return False
    # ls-tree of a directory lists its children: exact matches are kept for the parents, and
    # everything under a named path (a directory the diff would replace by a file).
    literal = {"GIT_LITERAL_PATHSPECS": "1"}  # a '*' or ':' in a file name is that character
    listed = source.runner.run(["ls-tree", "-r", "-z", "--full-tree", base, "--",
                                *(p.decode("utf-8", "surrogateescape") for p in sorted(paths))],
                               check=False, binary=True, env=literal)
    above = source.runner.run(["ls-tree", "-z", "--full-tree", base, "--",
                               *(p.decode("utf-8", "surrogateescape") for p in sorted(parents))],
                              check=False, binary=True, env=literal) if parents else None
    if listed.code != 0 or (above is not None and above.code != 0):
        return False
    entries = [e for e in listed.out.split(b"\0") if e]
    if above is not None:
        entries += [e for e in above.out.split(b"\0") if e and e.split(b"\t", 1)[1] in parents
                    and b" tree " not in e.split(b"\t", 1)[0]]
    return _fill_index(scratch, source, entries, paths, env)


def _first_error(err: str) -> str:
    return next((line.strip() for line in err.splitlines() if line.startswith(("error:", "fatal:"))), "")


def _failed_file(err: str) -> str | None:
    for line in err.splitlines():
        m = _FAILED_RE.match(line.strip())
        if m:
            return m.group("a") or m.group("b")
    return None
