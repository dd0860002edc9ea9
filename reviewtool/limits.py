"""Resource limits: what reviewtool refuses to read rather than exhaust the machine.

Each limit is said in one line naming it and the environment variable that raises it. `check`
stops there (exit 2); `triage` sets the file, mail or series aside, says so, and reviews the
rest. The limits hold while the input streams: nothing over a limit is read into memory first.
The defaults let real inputs through with room to spare: the largest public list threads are a
few thousand messages, the largest kernel patches a few megabytes, real mail has tens of
headers, lines of at most a few thousand characters and MIME parts nested three or four deep.
No limit caps an archive's size: an archive is indexed from the file (or the inbox's objects)
without being held, about 2 KB of memory a mail; the mails one run indexes bound that memory
(the oldest are left out past it), and a gzip may expand only so many times its size (a bomb).
docs/security.md lists them with their defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_MB = 1024 * 1024
_KB = 1024


def _env_int(name: str, default: int, scale: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if len(raw) <= 12 else 0
    except ValueError:
        return default
    return value * scale if value > 0 else default


@dataclass(frozen=True)
class Limits:
    mail_bytes: int  # one mail, e.g. a huge patch, REVIEWTOOL_MAX_MAIL_MB
    thread_messages: int  # mails in the thread under review, REVIEWTOOL_MAX_MESSAGES
    line_bytes: int = 1 * _MB  # one line of a mail, REVIEWTOOL_MAX_LINE_KB
    header_fields: int = 1000  # header fields of one mail, REVIEWTOOL_MAX_HEADERS
    mime_depth: int = 32  # multipart parts nested in one another, REVIEWTOOL_MAX_MIME_DEPTH
    series_patches: int = 1000  # patches of one series, REVIEWTOOL_MAX_PATCHES
    archive_series: int = 50_000  # series triaged from one run's archives, REVIEWTOOL_MAX_SERIES
    archive_mails: int = 1_000_000  # mails one run indexes (its memory), REVIEWTOOL_MAX_ARCHIVE_MAILS
    gzip_ratio: int = 100  # what a gzip input may expand to, times its size, REVIEWTOOL_MAX_GZIP_RATIO

    @staticmethod
    def from_env() -> "Limits":
        return Limits(mail_bytes=_env_int("REVIEWTOOL_MAX_MAIL_MB", 32 * _MB, _MB),
                      thread_messages=_env_int("REVIEWTOOL_MAX_MESSAGES", 20000),
                      line_bytes=_env_int("REVIEWTOOL_MAX_LINE_KB", 1024 * _KB, _KB),
                      header_fields=_env_int("REVIEWTOOL_MAX_HEADERS", 1000),
                      mime_depth=_env_int("REVIEWTOOL_MAX_MIME_DEPTH", 32),
                      series_patches=_env_int("REVIEWTOOL_MAX_PATCHES", 1000),
                      archive_series=_env_int("REVIEWTOOL_MAX_SERIES", 50_000),
                      archive_mails=_env_int("REVIEWTOOL_MAX_ARCHIVE_MAILS", 1_000_000),
                      gzip_ratio=_env_int("REVIEWTOOL_MAX_GZIP_RATIO", 100))


_NAMES = ("REVIEWTOOL_MAX_MAIL_MB", "REVIEWTOOL_MAX_MESSAGES", "REVIEWTOOL_MAX_LINE_KB", "REVIEWTOOL_MAX_HEADERS",
          "REVIEWTOOL_MAX_MIME_DEPTH", "REVIEWTOOL_MAX_PATCHES", "REVIEWTOOL_MAX_SERIES", "REVIEWTOOL_MAX_ARCHIVE_MAILS",
          "REVIEWTOOL_MAX_GZIP_RATIO")
_SEEN: dict[tuple, Limits] = {}


# os.environ's own bytes table, where POSIX keeps it: eight os.environ.get() calls of names that
# are not set raise and catch eight KeyErrors, 16 µs a call, and a triage run asks 20,000 times.
_RAW_ENV = getattr(os.environ, "_data", None)
_RAW_NAMES = tuple(os.fsencode(n) for n in _NAMES) if os.name == "posix" else ()


def _env_key() -> tuple:
    if _RAW_NAMES and isinstance(_RAW_ENV, dict) and _RAW_ENV is getattr(os.environ, "_data", None):
        return tuple(map(_RAW_ENV.get, _RAW_NAMES))
    return tuple(map(os.environ.get, _NAMES))


def limits() -> Limits:
    """The limits the environment sets now (read once for each set of values: a triage run asks
    20,000 times)."""
    key = _env_key()
    found = _SEEN.get(key)
    if found is None:
        found = _SEEN[key] = Limits.from_env()
        if len(_SEEN) > 64:  # tests set many; keep the newest
            del _SEEN[next(iter(_SEEN))]
    return found


def megabytes(n: int) -> str:
    """A size for a limit's message: whole megabytes, or kilobytes below one."""
    return f"{n // _MB} MB" if n >= _MB else f"{max(1, n // _KB)} KB"
