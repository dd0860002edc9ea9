"""The b4/liblore boundary for fetching, and b4's set-up (init_b4): the only module besides
model/b4adapter.py that imports b4 or liblore. It turns a server URL and a message-id into raw mbox bytes, looks up newer revisions of
a series the way `b4 am -c` does, and maps every failure to one FetchError with a one-line reason.

Why not b4.get_pi_thread_by_msgid(): it returns None both for "not found" and for "server
unreachable". liblore.LoreNode.get_mbox_by_msgid() raises RemoteError with the HTTP status (None
when nothing answered), so we call the node directly, with our own node: no liblore cache (our
cache validates before it stores), no partial-mirror upstream hops (we fetch from the server we
were told to), and a hard overall deadline (a server that trickles bytes cannot outlast it).
"""

from __future__ import annotations

import argparse
import logging
import threading
import time
import zlib
from email.message import EmailMessage
from typing import Callable, TypeVar
from urllib.parse import urlsplit

from ..errors import FetchError

_LOCK = threading.Lock()
_READY = False


class _Capture(logging.Handler):
    """Keeps b4's log lines instead of letting them reach stderr."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) < 1000:
            self.records.append((record.levelname, record.getMessage()))


CAPTURE = _Capture()


def init_b4(config: dict[str, str] | None = None, *, network: bool = False) -> None:
    """Configure b4 once per process: quiet logging, no network unless asked, no attestation."""
    global _READY
    import b4

    with _LOCK:
        if not _READY:
            for name in ("b4", "liblore"):
                log = logging.getLogger(name)
                log.handlers[:] = [CAPTURE]
                log.propagate = False
                log.setLevel(logging.WARNING)
        cfg = {"attestation-policy": "off", "b4.attestation-policy": "off"}
        cfg.update(config or {})
        global _SETUP_KEY
        key = _setup_key(cfg)
        if key != _SETUP_KEY:  # setup_config runs `git config` 4 times: a third of a small review
            b4.setup_config(argparse.Namespace(config=cfg))
            _SETUP_KEY = key
        b4.MAIN_CONFIG["attestation-policy"] = "off"
        b4.can_network = network
        _READY = True


_SETUP_KEY: tuple | None = None


def _setup_key(cfg: dict[str, str]) -> tuple:
    """What b4.setup_config reads: our overrides, the git config environment, and the config files
    of the current directory's repository (by mtime). Equal keys give b4 the same configuration."""
    import os

    env = tuple(sorted((k, v) for k, v in os.environ.items()
                       if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME")))
    try:
        cwd = os.getcwd()
    except OSError:
        return (object(),)  # never equal: set up again
    files = []
    for path in (os.environ.get("GIT_CONFIG_GLOBAL") or os.path.expanduser("~/.gitconfig"),
                 os.path.join(cwd, ".git", "config"), os.path.join(cwd, ".b4-config")):
        try:
            files.append((path, os.stat(path).st_mtime_ns))
        except OSError:
            files.append((path, None))
    return tuple(sorted(cfg.items())), env, cwd, tuple(files)


T = TypeVar("T")
RETRIED_STATUS = (500, 502, 503, 504)  # a restarting server answers these; 4xx are final
ATTEMPTS = 3
BACKOFF_S = 0.5
_B4_NETWORK_LOCK = threading.Lock()  # b4.LORENODE / b4.can_network are process globals


class ThreadNotFound(FetchError):
    """The server answered 404: it has no message with that id."""


class ServerUnreachable(FetchError):
    """Nothing answered: refused, DNS failure, connection cut."""


class FetchTimeout(FetchError):
    """The server did not answer within --timeout."""


class ServerError(FetchError):
    """The server answered 5xx (after retries) or another unexpected status."""


class BadResponse(FetchError):
    """The server answered 200 with something that is not a gzip'd mbox."""


def _node(base_url: str, timeout: float):
    import liblore

    from .. import __version__

    node = liblore.LoreNode(base_url, cache_dir=None, request_timeout=_socket_timeout(timeout),
                            follow_upstream=False)
    node.set_user_agent("reviewtool", __version__)
    return node


def _socket_timeout(timeout: float) -> tuple[float, float]:
    """Connect and read timeouts a little inside the overall deadline, so that a silent server
    is reported as a timeout by requests (which knows the cause) before the deadline hits."""
    return (timeout * 0.9, timeout * 0.9)


def _host(base_url: str) -> str:
    return urlsplit(base_url).netloc or base_url


def _cause_text(exc: BaseException | None) -> str:
    """'connection refused' rather than urllib3's nested repr."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ConnectionRefusedError):
            return "connection refused"
        text = str(exc)
        if "Connection refused" in text:
            return "connection refused"
        if "Name or service not known" in text or "nodename nor servname" in text \
                or "Temporary failure in name resolution" in text:
            return "host name not found"
        if "Connection reset" in text or "RemoteDisconnected" in text or "IncompleteRead" in text:
            return "the connection was cut"
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return "no connection"


def _is_timeout(exc: BaseException | None) -> bool:
    import requests

    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, (requests.Timeout, TimeoutError)):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _remote_error(exc, what: str, base_url: str, timeout: float) -> FetchError:
    status = getattr(exc, "status_code", None)
    host = _host(base_url)
    if status == 404:
        return ThreadNotFound(f"{what}: not found on {base_url} (HTTP 404)")
    if status is not None and status >= 500:
        attempts = getattr(exc, "attempts", 1)
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ServerError(f"{host}: server error HTTP {status} for {what}{tries}; "
                           "try again later or use another server (--lore-url)")
    if status is not None:
        return ServerError(f"{host}: unexpected HTTP {status} for {what}")
    if _is_timeout(exc):
        return FetchTimeout(f"{host}: no answer within {timeout:g} s for {what} (raise --timeout, or "
                            "check the server)")
    return ServerUnreachable(f"cannot reach {host} ({_cause_text(exc)}) to fetch {what}; check the "
                             "URL and network, or use --offline to review a cached copy")


def _with_deadline(work: Callable[[], T], node, timeout: float, what: str, base_url: str) -> T:
    """Run `work` in a helper thread; give up after `timeout` seconds whatever the socket does."""
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["value"] = work()
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    worker = threading.Thread(target=run, name="reviewtool-fetch", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        node.cancel_active()  # closes the session so the helper's blocked read ends
        raise FetchTimeout(f"{_host(base_url)}: no complete answer within {timeout:g} s for {what} "
                           "(raise --timeout, or check the server)")
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    return result["value"]  # type: ignore[return-value]


def _retrying(call: Callable[[], T], deadline: float) -> T:
    """Retry a 5xx answer a bounded number of times while the deadline allows."""
    import liblore

    for attempt in range(1, ATTEMPTS + 1):
        try:
            return call()
        except liblore.RemoteError as exc:
            pause = BACKOFF_S * attempt
            if (exc.status_code not in RETRIED_STATUS or attempt == ATTEMPTS
                    or time.monotonic() + pause >= deadline):
                exc.attempts = attempt  # for the message
                raise
            time.sleep(pause)
    raise AssertionError("unreachable")


def fetch_thread_mbox(base_url: str, msgid: str, *, timeout: float) -> bytes:
    """The whole thread holding <msgid>, as the server's mbox (gunzipped), or a FetchError."""
    import liblore
    import requests

    init_b4()  # quiet b4/liblore loggers; b4 itself stays offline, we use our own node
    node = _node(base_url, timeout)
    what = f"<{msgid}>"
    deadline = time.monotonic() + timeout

    def work() -> bytes:
        return _retrying(lambda: node.get_mbox_by_msgid(msgid, nocache=True), deadline)

    try:
        return _with_deadline(work, node, timeout, what, base_url)
    except liblore.RemoteError as exc:
        raise _remote_error(exc, what, base_url, timeout) from exc
    except requests.RequestException as exc:  # the body broke off mid-transfer
        if _is_timeout(exc):
            raise FetchTimeout(f"{_host(base_url)}: no answer within {timeout:g} s for {what}") from exc
        raise ServerUnreachable(f"{_host(base_url)}: the answer for {what} was cut off "
                                f"({_cause_text(exc)})") from exc
    except (EOFError, zlib.error, OSError) as exc:  # liblore gunzips the body itself
        raise BadResponse(f"{_host(base_url)}: the answer for {what} is not valid gzip (truncated or "
                          f"corrupt: {' '.join(str(exc).split())[:80]})") from exc
    finally:
        node.close()


class SearchOutcome:
    """What a newer-revision search returned: raw mbox answers and the failures b4 swallowed."""

    def __init__(self) -> None:
        self.answers: list[bytes] = []
        self.failures: list[str] = []


def _recording_node(base_url: str, timeout: float, outcome: SearchOutcome):
    """A LoreNode that remembers search answers and errors (b4 logs and drops them)."""
    import liblore

    from .. import __version__

    class RecordingNode(liblore.LoreNode):
        def get_mbox_by_query(self, query, **kwargs):
            try:
                data = super().get_mbox_by_query(query, **kwargs)
            except liblore.RemoteError as exc:
                if exc.status_code != 404:  # 404 is public-inbox's "no results"
                    outcome.failures.append(_remote_error(exc, "the revision search", base_url,
                                                          timeout).one_line())
                raise
            except (EOFError, zlib.error, OSError) as exc:
                outcome.failures.append(f"the revision search answer is not valid gzip ({exc})")
                raise liblore.RemoteError(str(exc)) from exc
            outcome.answers.append(data)
            return data

    node = RecordingNode(base_url, cache_dir=None, request_timeout=_socket_timeout(timeout),
                         follow_upstream=False)
    node.set_user_agent("reviewtool", __version__)
    return node


def search_newer_revisions(base_url: str, msgs: list[EmailMessage], *,
                           timeout: float) -> tuple[set[str], SearchOutcome]:
    """Ask the server for newer revisions of the series in `msgs`, with b4's own query
    (change-id, else subject + author, dated from the newest revision we have).

    Returns the message-ids b4 accepted as newer revisions (and replies to them) and the raw
    search answers holding them; the caller parses those with the same code as any thread."""
    import b4
    import b4.mbox

    init_b4()
    outcome = SearchOutcome()
    node = _recording_node(base_url, timeout, outcome)
    before = {b4.LoreMessage.get_clean_msgid(m) for m in msgs}

    def work() -> list[EmailMessage]:
        return b4.mbox.get_extra_series(list(msgs), direction=1, nocache=True)

    with _B4_NETWORK_LOCK:
        saved_node, saved_network = b4.LORENODE, b4.can_network
        b4.LORENODE, b4.can_network = node, True  # network only for this explicit search
        try:
            found = _with_deadline(work, node, timeout, "the revision search", base_url)
        finally:
            b4.LORENODE, b4.can_network = saved_node, saved_network
            node.close()
    added = {b4.LoreMessage.get_clean_msgid(m) for m in found} - before
    return {m for m in added if m}, outcome


def b4_midmask() -> str | None:
    """b4's configured b4.midmask (git config or .b4-config), when it differs from b4's default."""
    import b4

    init_b4()
    value = b4.get_main_config().get("midmask")
    if not isinstance(value, str) or not value.strip() or value == b4.LOREADDR + "/all/%s":
        return None
    return value.strip()


def search_mbox(base_url: str, query: str, *, timeout: float) -> bytes:
    """The full threads of every message matching a public-inbox search (`reviewtool triage
    --query`), as the server's mbox; b"" when nothing matches (public-inbox answers 404)."""
    import liblore
    import requests

    init_b4()
    node = _node(base_url, timeout)
    what = f"the search {query!r}"
    deadline = time.monotonic() + timeout

    def work() -> bytes:
        return _retrying(lambda: node.get_mbox_by_query(query, full_threads=True, nocache=True), deadline)

    try:
        return _with_deadline(work, node, timeout, what, base_url) or b""
    except liblore.RemoteError as exc:
        if exc.status_code == 404:
            return b""
        raise _remote_error(exc, what, base_url, timeout) from exc
    except requests.RequestException as exc:
        if _is_timeout(exc):
            raise FetchTimeout(f"{_host(base_url)}: no answer within {timeout:g} s for {what}") from exc
        raise ServerUnreachable(f"{_host(base_url)}: the answer for {what} was cut off "
                                f"({_cause_text(exc)})") from exc
    except (EOFError, zlib.error, OSError) as exc:
        raise BadResponse(f"{_host(base_url)}: the answer for {what} is not valid gzip "
                          f"({' '.join(str(exc).split())[:80]})") from exc
    finally:
        node.close()
