"""Resource limits: what reviewtool refuses to read rather than exhaust the machine.

Each limit stops the command with a one-line message (exit 2) naming the limit and the
environment variable that raises it. The defaults let real inputs through with room to spare:
the largest public list threads are a few thousand messages; the largest kernel patches are a
few megabytes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_MB = 1024 * 1024


def _env_int(name: str, default: int, scale: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        return default
    return value * scale if value > 0 else default


@dataclass(frozen=True)
class Limits:
    input_bytes: int  # one input file (after gzip), REVIEWTOOL_MAX_INPUT_MB
    mail_bytes: int  # one mail, e.g. a huge patch, REVIEWTOOL_MAX_MAIL_MB
    thread_messages: int  # mails in the thread under review, REVIEWTOOL_MAX_MESSAGES

    @staticmethod
    def from_env() -> "Limits":
        return Limits(input_bytes=_env_int("REVIEWTOOL_MAX_INPUT_MB", 256 * _MB, _MB),
                      mail_bytes=_env_int("REVIEWTOOL_MAX_MAIL_MB", 32 * _MB, _MB),
                      thread_messages=_env_int("REVIEWTOOL_MAX_MESSAGES", 20000))


def limits() -> Limits:
    return Limits.from_env()
