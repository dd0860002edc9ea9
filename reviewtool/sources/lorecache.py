"""The thread cache: fetched threads as raw mbox files under $XDG_CACHE_HOME/reviewtool/threads/.

One file per (server, message-id); its mtime is the fetch time, so the TTL needs no index.
A file only ever appears complete: it is written to a temporary name in the same directory and
renamed after the caller validated the thread, so an interrupted run leaves no partial entry.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import cachedir

DEFAULT_TTL_S = 600.0
_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 3600.0  # temp files of killed runs older than this are removed


def cache_root() -> Path:
    return cachedir.root("threads")


@dataclass(frozen=True)
class CachedThread:
    data: bytes
    fetched_at: float  # epoch seconds

    def age_s(self, now: float | None = None) -> float:
        return max(0.0, (now or time.time()) - self.fetched_at)


class ThreadCache:
    def __init__(self, root: Path | None = None):
        self.root = root or cache_root()

    def path_for(self, server: str, msgid: str) -> Path:
        key = hashlib.sha256(f"{server}\0{msgid}".encode()).hexdigest()[:40]
        return self.root / f"{key}.mbox"

    def get(self, server: str, msgid: str, *, max_age_s: float | None) -> CachedThread | None:
        """The cached thread if present and (unless max_age_s is None) fresh enough."""
        path = self.path_for(server, msgid)
        try:
            fetched_at = path.stat().st_mtime
            if max_age_s is not None and time.time() - fetched_at > max_age_s:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        return CachedThread(data, fetched_at) if data else None

    def put(self, server: str, msgid: str, data: bytes) -> None:
        """Store a validated thread atomically. A cache that cannot be written is not an error:
        the review goes on, it just is not cached."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=self.root)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path_for(server, msgid))
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return
        self._sweep_stale_tmp()

    def drop(self, server: str, msgid: str) -> None:
        try:
            self.path_for(server, msgid).unlink()
        except OSError:
            pass

    def _sweep_stale_tmp(self) -> None:
        now = time.time()
        try:
            for entry in self.root.iterdir():
                if entry.name.startswith(_TMP_PREFIX) and now - entry.stat().st_mtime > _STALE_TMP_S:
                    entry.unlink()
        except OSError:
            pass
