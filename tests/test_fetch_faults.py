"""Fetch failures, each one line on stderr with exit code 2 and nothing left in the cache.

A public-inbox server does not misbehave on demand, so these use a small http.server on
127.0.0.1 that answers the way broken or overloaded archives do. The first path element picks
the fault: http://127.0.0.1:PORT/<fault>/<msgid>/t.mbox.gz.
"""

from __future__ import annotations

import gzip
import os
import pty
import select
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import CORPUS
import hardening

MSGID = "20230113164106.311491-1-pablo@netfilter.org"
THREAD = (CORPUS / "netfilter-devel" / "net-fixes-0-3-fixes-reported-tested.mbox").read_bytes()


class FaultServer:
    def __init__(self) -> None:
        self.release = threading.Event()  # lets hanging handlers go at teardown
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_HEAD(self) -> None:
                server.requests.append(f"HEAD {self.path}")
                self.send_response(404)
                self.end_headers()

            def do_GET(self) -> None:
                server.requests.append(f"GET {self.path}")
                hardening.bump("faults injected")
                fault = self.path.strip("/").split("/")[0]
                getattr(self, f"fault_{fault.replace('-', '_')}")()

            def do_POST(self) -> None:  # searches: only the searchfail fault gets any
                server.requests.append(f"POST {self.path}")
                hardening.bump("faults injected")
                self.reply(501, b"Search is not available\n", "text/plain")

            def fault_searchfail(self) -> None:  # the thread is fine, the search is not (-L basic)
                self.reply(200, gzip.compress(THREAD))

            def fault_empty(self) -> None:
                self.reply(200, gzip.compress(b""))

            def reply(self, status: int, body: bytes, ctype: str = "application/gzip") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def fault_e500(self) -> None:
                self.reply(500, b"Internal Server Error\n", "text/plain")

            def fault_e503(self) -> None:
                self.reply(503, b"Service Unavailable\n", "text/plain")

            def fault_hang(self) -> None:  # accepts, then never answers
                server.release.wait(60)

            def fault_trickle(self) -> None:  # answers, one byte at a time, forever
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                try:
                    while not server.release.wait(0.2):
                        self.wfile.write(b"\x1f")
                        self.wfile.flush()
                except OSError:
                    pass

            def fault_truncated(self) -> None:
                whole = gzip.compress(THREAD)
                self.reply(200, whole[: len(whole) // 2])

            def fault_html(self) -> None:
                self.reply(200, b"<!DOCTYPE html><html><body>Moved</body></html>\n", "text/html")

            def fault_notmbox(self) -> None:
                self.reply(200, gzip.compress(b"<!DOCTYPE html><html>Welcome to the archive</html>\n"))

            def fault_otherthread(self) -> None:
                other = (CORPUS / "netdev" / "iproute2-v2-0-3-dcb-fixes.mbox").read_bytes()
                self.reply(200, gzip.compress(other))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, fault: str) -> str:
        return f"http://127.0.0.1:{self.port}/{fault}/%s"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def faults():
    server = FaultServer()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def cache_entries(tmp_path) -> list[str]:
    root = tmp_path / "cache" / "reviewtool" / "threads"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def fetch_fails(cli, tmp_path, url: str, *args: str):
    res = cli("check", MSGID, "--lore-url", url, *args)
    assert res.code == 2, (res.code, res.out, res.err)
    assert len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err, res.err
    assert res.out == ""
    assert cache_entries(tmp_path) == []  # a failed fetch never leaves anything in the cache
    return res.err.strip()


@pytest.mark.parametrize("fault, status", [("e500", 500), ("e503", 503)])
def test_server_error_is_retried_a_bounded_number_of_times(cli, tmp_path, faults, fault, status):
    before = len(faults.requests)
    err = fetch_fails(cli, tmp_path, faults.url(fault))
    assert f"server error HTTP {status}" in err and "after 3 attempts" in err
    assert len(faults.requests) - before == 3


def test_never_answering_server_times_out(cli, tmp_path, faults):
    err = fetch_fails(cli, tmp_path, faults.url("hang"), "--timeout", "1")
    assert err == (f"reviewtool: 127.0.0.1:{faults.port}: no answer within 1 s for <{MSGID}> "
                   "(raise --timeout, or check the server)")


def test_trickling_server_hits_the_overall_deadline(cli, tmp_path, faults):
    # each byte arrives well within the socket timeout: only the overall deadline ends it
    err = fetch_fails(cli, tmp_path, faults.url("trickle"), "--timeout", "1")
    assert f"no complete answer within 1 s for <{MSGID}>" in err


def test_truncated_gzip(cli, tmp_path, faults):
    err = fetch_fails(cli, tmp_path, faults.url("truncated"))
    assert "is not valid gzip (truncated or corrupt" in err


def test_html_instead_of_gzip(cli, tmp_path, faults):
    assert "is not valid gzip" in fetch_fails(cli, tmp_path, faults.url("html"))


def test_gzip_that_is_not_an_mbox(cli, tmp_path, faults):
    err = fetch_fails(cli, tmp_path, faults.url("notmbox"))
    assert "the answer is not an mbox (it starts with '<!DOCTYPE html>" in err


def test_answer_without_the_message_asked_for(cli, tmp_path, faults):
    err = fetch_fails(cli, tmp_path, faults.url("otherthread"))
    assert f"does not hold <{MSGID}>" in err


def test_empty_answer(cli, tmp_path, faults):
    assert "the server sent an empty thread" in fetch_fails(cli, tmp_path, faults.url("empty"))


def test_latest_when_the_search_fails_reviews_the_given_revision_and_says_why(cli, faults):
    res = cli("check", MSGID, "--lore-url", faults.url("searchfail"), "--latest", "--format", "json")
    assert res.code in (0, 1), res.err
    assert res.json["series"]["msgid"] == MSGID
    [note] = [n for n in res.json["summary"]["notes"] if n.startswith("--latest")]
    assert "HTTP 501 for the revision search" in note and note.endswith("reviewed the revision given")
    assert any(r.startswith("POST /searchfail/?x=m") for r in faults.requests)


def test_connection_refused(cli, tmp_path):
    hardening.bump("faults injected")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: the kernel refuses connections
        port = sock.getsockname()[1]
        err = fetch_fails(cli, tmp_path, f"http://127.0.0.1:{port}/all/%s", "--timeout", "5")
    assert err.startswith(f"reviewtool: cannot reach 127.0.0.1:{port} (connection refused)")


def test_unusable_options_are_input_errors(cli):
    assert cli("check", MSGID, "--lore-url", "ftp://x/all/%s").code == 2
    res = cli("check", MSGID, "--cache-ttl", "soon")
    assert res.code == 2 and "--cache-ttl: 'soon' is not a duration" in res.err


def _run_on_a_terminal(args: list[str], seconds: float) -> str:
    """Run the CLI with stderr on a pseudo-terminal; return what the terminal showed."""
    master, slave = pty.openpty()
    code = "import sys; from reviewtool.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave, env=dict(os.environ, TERM="xterm"))
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    return shown.decode("utf-8", "replace")


def test_progress_on_a_terminal_and_quiet(faults):
    args = ["check", MSGID, "--lore-url", faults.url("hang"), "--timeout", "2"]
    shown = _run_on_a_terminal(args, 30)
    assert f"Fetching <{MSGID}>" in shown and "no answer within 2 s" in shown
    quiet = _run_on_a_terminal(args + ["--quiet"], 30)
    assert "Fetching" not in quiet and "no answer within 2 s" in quiet
