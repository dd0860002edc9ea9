"""A repository's parsed MAINTAINERS, kept between commands in
$XDG_CACHE_HOME/reviewtool/maintainers/.

Reading the kernel's MAINTAINERS (2,600 sections, 20,000 patterns, 5,000 directory checks) cost
every command 100 to 200 ms; b4 starts `b4-check` once per patch. An entry is used only when it
was made from the same MAINTAINERS and .mailmap bytes (SHA-256) and every directory check the
parse made still answers the same (a directory named by an F: line gets a trailing `/`). An entry
that is missing, stale or unreadable is rebuilt; one that cannot be written is skipped. The
entries of the 16 most recently used repositories are kept.

Entries are pickles of our own objects, read by an unpickler that builds nothing else: a planted
file cannot run code.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import stat
from pathlib import Path
from typing import Any

from ... import cachedir

FORMAT = 3  # bump when Maintainers, Section or the matchers change shape
KEEP = 16  # repositories whose entry is kept (the most recently used; a kernel's is 1.5 MB)

_ALLOWED = {
    ("reviewtool.context.maintainers.lookup", "Maintainers"),
    ("reviewtool.context.maintainers.file_format", "Section"),
    ("reviewtool.context.maintainers.mailmap", "Mailmap"),
    ("reviewtool.context.maintainers.patterns", "Prefix"),
    ("reviewtool.context.maintainers.patterns", "Lazy"),
    ("reviewtool.model.series", "Person"),
    ("re", "RegexFlag"),
}


class _OursOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a MAINTAINERS entry")
        return super().find_class(module, name)


def _entry_path(repo: Path) -> Path:
    key = hashlib.sha256(str(repo.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cachedir.root("maintainers") / f"{key}.pickle"


def _digest(*texts: str) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


def load(repo: Path, text: str, mailmap_text: str) -> Any | None:
    """The Maintainers stored for exactly these files and directories, or None."""
    try:
        data = _entry_path(repo).read_bytes()
        stored = _OursOnly(io.BytesIO(data)).load()
    except Exception:  # missing, damaged, planted or from another version: rebuilt by the caller
        return None
    if not (isinstance(stored, tuple) and len(stored) == 4 and stored[0] == FORMAT):
        return None
    _, digest, answers, maintainers = stored
    if digest != _digest(text, mailmap_text) or not isinstance(answers, dict):
        return None
    if not _same_directories(repo, answers):
        return None  # a directory appeared or went away: patterns read differently now
    cachedir.mark_used(_entry_path(repo))
    return maintainers


def _same_directories(repo: Path, answers: dict[str, bool]) -> bool:
    """Whether each path still is (or is not) a directory of the work tree, as when stored."""
    try:
        top = os.open(repo, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return False
    try:
        for path, was_dir in answers.items():
            try:
                now = stat.S_ISDIR(os.stat(path, dir_fd=top).st_mode)  # relative to top: no joins
            except (OSError, ValueError):
                now = False
            if now != was_dir:
                return False
        return True
    finally:
        os.close(top)


def store(repo: Path, text: str, mailmap_text: str, answers: dict[str, bool], maintainers: Any) -> None:
    """Keep `maintainers` (built from these files, with these directory answers) for next time."""
    path = _entry_path(repo)
    try:
        data = pickle.dumps((FORMAT, _digest(text, mailmap_text), answers, maintainers), protocol=5)
    except pickle.PicklingError:
        return
    if cachedir.write_atomically(path, data):
        cachedir.keep_newest(path.parent, "*.pickle", KEEP)
