"""What `reviewtool triage` reads: local archives, a file of message-ids, or a server search.

Fetched threads are written as mboxrd files into a scratch directory and then indexed like any
local archive, so every input goes through the same streaming index (sources/index.py).
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

from ..errors import InputError



def read_msgid_file(path: Path) -> list[str]:
    """Message-ids, one a line, in any form `reviewtool check` takes (bare, <bracketed>, `id:`,
    archive URLs). Blank lines and `#` comments are skipped; anything else names its line."""
    from ..sources.lore import parse_ref

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ref = parse_ref(line.strip())
        if ref is None:
            raise InputError(f"{path}:{n}: not a message-id: {line.strip()[:80]!r}")
        if ref.msgid not in out:
            out.append(ref.msgid)
    if not out:
        raise InputError(f"{path}: no message-ids in the file")
    return out


def write_mboxrd(msgs: list[EmailMessage], target: Path) -> Path:
    """Fetched messages as an mboxrd file (`From ` lines in bodies quoted, as public-inbox does)."""
    from ..mail.headers import MAIL_POLICY

    with open(target, "ab") as out:
        for msg in msgs:
            data = msg.as_bytes(policy=MAIL_POLICY)
            data = re.sub(rb"^(>*From )", rb">\1", data, flags=re.M)
            out.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + data.rstrip(b"\n") + b"\n\n")
    return target


def _server(fetch):
    from ..sources.b4fetch import b4_midmask
    from ..sources import lore

    return lore.select_server(lore.MessageRef(""), fetch, lore.git_config_loreurl, b4_midmask)


def fetch_msgids(msgids: list[str], scratch: Path, fetch, on_done: Callable[[str], None] | None = None
                 ) -> tuple[Path, list[str]]:
    """Every thread named, through `check`'s fetch path (server selection, cache, --offline), into
    one mbox; a thread already fetched for an earlier message-id is not fetched again."""
    from ..sources import lore
    from ..mail.headers import message_id_of
    from ..sources.lorecache import ThreadCache

    server = _server(fetch)
    cache = ThreadCache()
    target = scratch / "fetched.mbox"
    target.touch()
    seen: set[str] = set()
    notes: list[str] = []
    for mid in msgids:
        if mid in seen:
            continue
        msgs, more = lore.load_thread(lore.MessageRef(mid), server, fetch, cache)
        notes += more
        fresh = [m for m in msgs if (message_id_of(m) or "") not in seen]
        seen.update(message_id_of(m) or "" for m in msgs)
        write_mboxrd(fresh, target)
        if on_done:
            on_done(mid)
    return target, notes


def search(query: str, scratch: Path, fetch) -> Path:
    """The threads matching a public-inbox search on the configured server, as one mbox."""
    from ..sources.b4fetch import search_mbox

    if fetch.offline:
        raise InputError("--query asks the archive server; it cannot be used with --offline")
    server = _server(fetch)
    data = search_mbox(server.base, query, timeout=fetch.timeout_s)
    if not data.strip():
        raise InputError(f"the search {query!r} found no messages on {server.base}")
    target = scratch / "search.mbox"
    target.write_bytes(data)
    return target
