"""reviewtool's cache directory, $XDG_CACHE_HOME/reviewtool/ (~/.cache/reviewtool/), and the
small file operations its caches share. Every cache is an optimisation: a file that cannot be
written is skipped, and the caller rebuilds what it cannot read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def root(name: str) -> Path:
    """The directory of one cache (threads, templates, maintainers, subjects)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reviewtool" / name


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to a temporary file beside `path`, then rename it there: a reader sees the old
    entry or the new one, never a part. False when it could not be written."""
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as f:
            written = f.name
            f.write(data)
        os.replace(written, path)
        return True
    except OSError:
        if written is not None:
            Path(written).unlink(missing_ok=True)
        return False


def mark_used(path: Path) -> None:
    """Make `path` the most recently used entry (keep_newest removes the others first)."""
    try:
        os.utime(path)
    except OSError:
        pass


def keep_newest(directory: Path, pattern: str, keep: int) -> None:
    """Remove all but the `keep` most recently used entries matching `pattern`."""
    try:
        entries = sorted(directory.glob(pattern), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
    except OSError:  # another command pruned at the same time
        pass
