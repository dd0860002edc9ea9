"""What `reviewtool triage` reads: local archives, a file of message-ids, or a server search.

Fetched threads are written as mboxrd files into a scratch directory and then indexed like any
local archive, so every input goes through the same streaming index (triage/index.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

from ..errors import InputError

_MSGID_LINE_RE = re.compile(r"^\s*(?:id:)?<?([^<>\s]+@[^<>\s]+?)>?\s*$")
_URL_MSGID_RE = re.compile(r"^\s*https?://\S+?/([^/\s]+@[^/\s]+)(/.*)?$")


@dataclass
class Inputs:
    paths: list[Path]
    labels: list[str]  # what the user named, for the report
    notes: list[str] = field(default_factory=list)


def read_msgid_file(path: Path) -> list[str]:
    """Message-ids, one a line: bare, <bracketed>, `id:` prefixed or as a list-archive URL.
    Blank lines and `#` comments are skipped; anything else is an error naming the line."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _URL_MSGID_RE.match(line) or _MSGID_LINE_RE.match(line)
        if not m:
            raise InputError(f"{path}:{n}: not a message-id: {line.strip()[:80]!r}")
        from urllib.parse import unquote

        mid = unquote(m.group(1))
        if mid not in out:
            out.append(mid)
    if not out:
        raise InputError(f"{path}: no message-ids in the file")
    return out


def write_mboxrd(msgs: list[EmailMessage], target: Path) -> Path:
    """Fetched messages as an mboxrd file (`From ` lines in bodies quoted, as public-inbox does)."""
    from ..sources.files import MAIL_POLICY

    with open(target, "ab") as out:
        for msg in msgs:
            data = msg.as_bytes(policy=MAIL_POLICY)
            data = re.sub(rb"^(>*From )", rb">\1", data, flags=re.M)
            out.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + data.rstrip(b"\n") + b"\n\n")
    return target


def _fetcher() -> Callable[[str], list[EmailMessage]]:
    """The thread fetcher of sources/lore.py (the `check` fetch path), when this build has one."""
    try:
        from ..sources import lore
    except ImportError as exc:
        raise InputError("fetching by message-id is not available in this build") from exc
    for name in ("fetch_thread_messages", "fetch_thread"):
        fn = getattr(lore, name, None)
        if fn is not None:
            return fn
    raise InputError("fetching by message-id is not available in this build")


def fetch_msgids(msgids: list[str], scratch: Path, fetch: Callable[[str], list[EmailMessage]] | None = None,
                 on_done: Callable[[str], None] | None = None) -> Path:
    """Every thread named, into one mbox; a message already fetched with an earlier thread is
    not fetched again."""
    fetch = fetch or _fetcher()
    target = scratch / "fetched.mbox"
    target.touch()
    seen: set[str] = set()
    from ..sources.files import message_id_of

    for mid in msgids:
        if mid in seen:
            continue
        msgs = fetch(mid)
        fresh = [m for m in msgs if (message_id_of(m) or "") not in seen]
        seen.update(message_id_of(m) or "" for m in msgs)
        write_mboxrd(fresh, target)
        if on_done:
            on_done(mid)
    return target


def search(query: str, scratch: Path) -> Path:
    """The threads matching a public-inbox search on the configured server, as one mbox."""
    try:
        from ..model.b4adapter import search_threads
    except ImportError as exc:
        raise InputError("searching the archive server is not available in this build") from exc
    msgs = search_threads(query)
    if not msgs:
        raise InputError(f"the search {query!r} found no messages")
    return write_mboxrd(msgs, scratch / "search.mbox")
