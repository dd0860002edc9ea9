"""Series by message-id or archive URL: parse what the user typed, pick the server, fetch (or take
the cached copy), and hand the thread to the same code that reads local files.

Accepted: `msgid`, `<msgid>`, `id:msgid`, and public-inbox URLs such as
`https://lore.kernel.org/LIST/MSGID/` with `/T/`, `/t/`, `/raw`, `/t.mbox.gz` after the msgid,
`https://patch.msgid.link/MSGID`. We parse these ourselves: b4.parse_msgid() rewrites b4's
configured server as a side effect.

Server order (the first that is set wins):
  1. --lore-url URL
  2. the server of a pasted URL, unless it is lore.kernel.org or a msgid redirector
  3. git config reviewtool.loreurl
  4. b4's b4.midmask (git config or .b4-config)
  5. https://lore.kernel.org/all/%s
"""

from __future__ import annotations

import re
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import quote, unquote, urlsplit

from ..errors import FetchError, InputError
from ..mail.headers import header, message_id_of
from ..mail.subject import parse_subject
from .files import parse_mails, split_mbox
from .lorecache import DEFAULT_TTL_S, ThreadCache

LORE_DEFAULT = "https://lore.kernel.org/all/%s"
DEFAULT_TIMEOUT_S = 30.0
# Hosts whose URLs name a message but are not where we fetch from: the configured server is.
MESSAGE_NAMING_HOSTS = frozenset({"lore.kernel.org", "patch.msgid.link", "msgid.link", "lkml.kernel.org"})
_MSGID_ARG_RE = re.compile(r"[^\s<>@]+@[^\s<>]+")
_ID_PREFIX_RE = re.compile(r"^(?:rfc822msgid|msgid|mid|id):\s*", re.I)
_MAIL_FILE_SUFFIXES = (".mbox", ".mbx", ".eml", ".patch", ".gz", ".mail", ".txt")


@dataclass(frozen=True)
class MessageRef:
    msgid: str
    server: str | None = None  # base URL when the user pasted a URL of another public-inbox
    text: str = ""  # as typed


@dataclass(frozen=True)
class Server:
    base: str  # e.g. https://lore.kernel.org/all (what liblore's LoreNode takes)
    chosen_by: str  # which setting picked it, for messages


@dataclass(frozen=True)
class FetchOptions:
    lore_url: str | None = None
    latest: bool = False
    cache_ttl_s: float = DEFAULT_TTL_S
    no_cache: bool = False
    offline: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    quiet: bool = False


# --- what the user typed -------------------------------------------------------------------

def _looks_like_path(text: str) -> bool:
    if text.lower().endswith(_MAIL_FILE_SUFFIXES):
        return True
    parent = Path(text).parent
    return "/" in text and parent != Path(".") and parent.is_dir()


def parse_ref(text: str) -> MessageRef | None:
    """A message reference, or None when `text` is not one (then it is treated as a path).
    Raises InputError for an http(s) URL that names no message."""
    raw = text.strip()
    if re.match(r"(?i)^https?://", raw):
        return _parse_url(raw)
    candidate = _ID_PREFIX_RE.sub("", raw, count=1).strip()
    if candidate.startswith("<") and candidate.endswith(">"):
        candidate = candidate[1:-1].strip()
    if not _MSGID_ARG_RE.fullmatch(candidate) or _looks_like_path(raw):
        return None
    return MessageRef(candidate, None, raw)


def _parse_url(url: str) -> MessageRef:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    segments = [unquote(s) for s in parts.path.split("/") if s]  # %2F inside a msgid stays one segment
    at = next((i for i, s in enumerate(segments) if "@" in s), None)
    if not host or at is None:
        raise InputError(f"{url}: no message-id in this URL (expected https://SERVER/LIST/MSGID/)")
    msgid = segments[at].strip("<>")
    if host in MESSAGE_NAMING_HOSTS:
        return MessageRef(msgid, None, url)
    list_path = "/".join(quote(s, safe="") for s in segments[:at])
    base = f"{parts.scheme.lower()}://{parts.netloc}/{list_path or 'all'}"
    return MessageRef(msgid, base, url)


def server_base(value: str, setting: str) -> str:
    """A midmask (http://host/all/%s) or base URL (http://host/all, http://host) as a base URL."""
    text = value.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or parts.query:
        raise InputError(f"{setting}: {value!r} is not an http(s) archive URL "
                         "(e.g. https://lore.kernel.org/all/%s)")
    path = parts.path.replace("%s", "").rstrip("/")
    return f"{parts.scheme.lower()}://{parts.netloc}{path or '/all'}"


def select_server(ref: MessageRef, options: FetchOptions,
                  git_config: Callable[[], str | None], b4_midmask: Callable[[], str | None]) -> Server:
    """The server to ask, by the documented order; the lookups run only when needed."""
    if options.lore_url:
        return Server(server_base(options.lore_url, "--lore-url"), "--lore-url")
    if ref.server:
        return Server(ref.server, "the URL given")
    configured = git_config()
    if configured:
        return Server(server_base(configured, "git config reviewtool.loreurl"), "git config reviewtool.loreurl")
    midmask = b4_midmask()
    if midmask:
        return Server(server_base(midmask, "b4.midmask"), "b4.midmask")
    return Server(server_base(LORE_DEFAULT, "default"), "default")


def git_config_loreurl() -> str | None:
    try:
        res = subprocess.run(["git", "config", "--get", "reviewtool.loreurl"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return (res.stdout.strip() or None) if res.returncode == 0 else None


def parse_duration(text: str, option: str, positive: bool = False) -> float:
    """Seconds from '600', '90s', '10m', '2h', '14d', '2w': the one parser of every option taking
    a duration. `positive` for a timeout, where 0 would give up before asking."""
    m = re.fullmatch(r"\s*(\d{1,9}(?:\.\d{1,9})?)\s*([smhdw]?)\s*", text or "", re.I)
    if not m:
        raise InputError(f"{option}: {text!r} is not a duration (e.g. 600, 90s, 10m, 1h, 14d)")
    seconds = float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2).lower()]
    if positive and seconds <= 0:
        raise InputError(f"{option}: {text!r} must be longer than 0 (e.g. 5s, 30s, 2m)")
    return seconds


# --- the thread ----------------------------------------------------------------------------

def message_url(server: str, msgid: str) -> str:
    return f"{server}/{quote(msgid, safe='@+=')}/"


def thread_messages(data: bytes, msgid: str, origin: str) -> list[EmailMessage]:
    """The server's mbox as parsed mail, checked: an mbox, holding the message asked for.
    Duplicates (one mail archived in several lists of /all/) are kept once."""
    if not data.strip():
        raise FetchError(f"{origin}: the server sent an empty thread")
    if not data.lstrip().startswith(b"From "):
        start = " ".join(data[:40].decode("utf-8", "replace").split())
        raise FetchError(f"{origin}: the answer is not an mbox (it starts with {start!r})")
    msgs, seen = [], set()
    for msg in parse_mails(split_mbox(data, origin)):
        mid = message_id_of(msg)
        if mid not in seen:
            seen.add(mid)
            msgs.append(msg)
    if not any(message_id_of(m) == msgid for m in msgs):
        raise FetchError(f"{origin}: the answer ({len(msgs)} messages) does not hold <{msgid}>")
    return msgs


@contextmanager
def _progress(text: str, quiet: bool) -> Iterator[None]:
    """A transient spinner on stderr, only for a person watching a terminal."""
    if quiet or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True, highlight=False).status(text):
        yield


def _age(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def load_thread(ref: MessageRef, server: Server, options: FetchOptions,
                cache: ThreadCache) -> tuple[list[EmailMessage], list[str]]:
    """The thread's messages (cache or server) and the notes the review must carry."""
    from .b4fetch import fetch_thread_mbox

    url = message_url(server.base, ref.msgid)
    if options.offline:
        cached = cache.get(server.base, ref.msgid, max_age_s=None)
        if cached is None:
            raise FetchError(f"offline: <{ref.msgid}> is not in the cache for {server.base}; "
                             "run once without --offline to fetch it")
        msgs = thread_messages(cached.data, ref.msgid, url)
        return msgs, [f"offline: reviewed the copy of the thread cached {_age(cached.age_s())} ago "
                      f"from {server.base}; replies sent since then are not included"]
    if not options.no_cache:
        cached = cache.get(server.base, ref.msgid, max_age_s=options.cache_ttl_s)
        if cached is not None:
            try:
                return thread_messages(cached.data, ref.msgid, url), []
            except FetchError:
                cache.drop(server.base, ref.msgid)  # unreadable entry: fetch anew
    with _progress(f"Fetching <{ref.msgid}> from {urlsplit(server.base).netloc} …", options.quiet):
        data = fetch_thread_mbox(server.base, ref.msgid, timeout=options.timeout_s)
    msgs = thread_messages(data, ref.msgid, url)
    cache.put(server.base, ref.msgid, data)  # only now: the cache never holds a bad answer
    return msgs, []


def newest_revision(msgs: list[EmailMessage]) -> int:
    revs = [s.revision for m in msgs if (s := parse_subject(header(m, "Subject"))).is_patch and not s.reply]
    return max(revs, default=1)


def add_newer_revisions(msgs: list[EmailMessage], server: Server,
                        options: FetchOptions) -> tuple[list[EmailMessage], list[str]]:
    """--latest: the thread plus newer revisions the server's search finds (b4's query)."""
    from .b4fetch import search_newer_revisions

    with _progress(f"Searching {urlsplit(server.base).netloc} for newer revisions …", options.quiet):
        wanted, outcome = search_newer_revisions(server.base, msgs, timeout=options.timeout_s)
    notes = [f"--latest: {failure}; reviewed the revision given" for failure in outcome.failures]
    added: dict[str, EmailMessage] = {}
    for answer in outcome.answers:
        for msg in thread_messages_loose(answer, f"{server.base} search"):
            mid = message_id_of(msg)
            if mid in wanted and mid not in added:
                added[mid] = msg
    return msgs + list(added.values()), notes


def thread_messages_loose(data: bytes, origin: str) -> list[EmailMessage]:
    """Parsed mail of a search answer (no message is required to be in it)."""
    if not data.lstrip().startswith(b"From "):
        return []
    return parse_mails(split_mbox(data, origin))
