"""A real public-inbox server (the software behind lore.kernel.org) on 127.0.0.1, for fetch tests.

`PublicInboxServer(workdir, {"netdev": [mbox, ...]}).start()` imports each list's mboxes into
its own v2 inbox (indexed for search), builds the `/all/` extindex that b4 uses by default, and
runs `public-inbox-httpd` on a free loopback port. Every request is written to `access.log`
(Plack's AccessLog middleware), so a test can prove that a run made no request.

The listening socket is bound here (port 0: the kernel picks a free port, no race) and handed to
the httpd systemd-style (LISTEN_FDS=1 on fd 3). All public-inbox state lives in the work dir
(PI_CONFIG, PI_DIR), never in ~. The server is stopped by its PID.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

READY_TIMEOUT = 30.0
TOOLS = ("public-inbox-init", "public-inbox-index", "public-inbox-extindex", "public-inbox-httpd",
         "perl", "git")

# Import every message of an mbox with public-inbox's own importer (what upstream's
# scripts/import_vger_from_mbox does; Debian does not package that script).
_IMPORT_PL = r"""
use v5.12;
use PublicInbox::Config;
use PublicInbox::InboxWritable;
my ($name, $variant, @paths) = @ARGV;
my $ibx = PublicInbox::Config->new->lookup_name($name) or die "no inbox $name\n";
$ibx = PublicInbox::InboxWritable->new($ibx);
$ibx->{-no_fsync} = 1;  # throwaway test data
for my $path (@paths) {
    open(my $fh, '<', $path) or die "open $path: $!\n";
    $ibx->import_mbox($fh, $variant);
}
"""

# The httpd's default app (PublicInbox::WWW behind Plack's Head middleware) plus an access log.
_PSGI = r"""
use v5.12;
use Plack::Builder;
use PublicInbox::WWW;
my $www = PublicInbox::WWW->new;
$www->preload;
open(my $log, '>>', $ENV{REVIEWTOOL_ACCESS_LOG}) or die "access log: $!\n";
$log->autoflush(1);
builder {
    enable 'AccessLog', format => '%m %U%q %>s', logger => sub { print $log @_ };
    enable 'Head';
    sub { $www->call(@_) };
};
"""


def _as_fd3(fd: int) -> None:
    """In the child before exec: the listener on fd 3, inheritable (dup2 onto itself would keep
    close-on-exec)."""
    if fd == 3:
        os.set_inheritable(3, True)
    else:
        os.dup2(fd, 3)


def public_inbox_env(workdir: Path) -> dict[str, str]:
    """The environment public-inbox's tools run in: all their state under `workdir`, no user or
    system git config."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
        "PI_CONFIG": str(workdir / "pi-config"),
        "PI_DIR": str(workdir),
        "PI_EMERGENCY": str(workdir / "emergency"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


class PublicInboxServer:
    def __init__(self, workdir: Path, inboxes: dict[str, list[Path]]):
        self.workdir = workdir.resolve()
        self.inboxes = inboxes
        self.proc: subprocess.Popen | None = None
        self.generated_mbox: Path | None = None  # set by the fixture
        self.port: int | None = None
        self.access_log = self.workdir / "access.log"
        self.error_log = self.workdir / "httpd.log"
        self.env = {**public_inbox_env(self.workdir), "REVIEWTOOL_ACCESS_LOG": str(self.access_log)}

    # --- URLs -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def midmask(self) -> str:
        """What b4.midmask / --lore-url take: the /all/ extindex, like lore.kernel.org."""
        return f"{self.base_url}/all/%s"

    # --- build ------------------------------------------------------------------------------
    def _run(self, *args: str) -> None:
        res = subprocess.run(args, env=self.env, cwd=self.workdir, capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError(f"{' '.join(args[:2])} failed ({res.returncode}): {res.stderr.strip()[-800:]}")

    def build(self) -> "PublicInboxServer":
        self.workdir.mkdir(parents=True, exist_ok=True)
        for name, mboxes in self.inboxes.items():
            inboxdir = self.workdir / name
            # the url is only used in redirects; the port is not known yet, and /all/ needs no url
            self._run("public-inbox-init", "-V2", "-L", "full", name, str(inboxdir),
                      f"http://127.0.0.1/{name}", f"{name}@example.org")
            by_variant: dict[str, list[str]] = {}
            for mbox in mboxes:
                first = Path(mbox).read_bytes()[:20]
                by_variant.setdefault("mboxrd" if first.startswith(b"From mboxrd@") else "mboxo",
                                      []).append(str(Path(mbox).resolve()))
            for variant, paths in by_variant.items():
                self._run("perl", "-e", _IMPORT_PL, name, variant, *paths)
            self._run("public-inbox-index", "--no-fsync", str(inboxdir))
        self._run("git", "config", "-f", self.env["PI_CONFIG"], "extindex.all.topdir",
                  str(self.workdir / "all"))
        self._run("public-inbox-extindex", "--no-fsync", "--all", str(self.workdir / "all"))
        (self.workdir / "app.psgi").write_text(_PSGI)
        return self

    # --- serve ------------------------------------------------------------------------------
    def start(self) -> "PublicInboxServer":
        if not (self.workdir / "pi-config").exists():
            self.build()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.setblocking(False)  # public-inbox-httpd wants a non-blocking listener
        self.port = sock.getsockname()[1]
        fd = sock.fileno()
        env = dict(self.env, LISTEN_FDS="1")
        with open(self.error_log, "ab") as err:
            # sh sets LISTEN_PID to its own PID and exec keeps it: the httpd checks it is $$.
            self.proc = subprocess.Popen(
                ["sh", "-c", 'LISTEN_PID=$$ exec public-inbox-httpd -W0 "$0"',
                 str(self.workdir / "app.psgi")],
                env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                close_fds=False, preexec_fn=lambda: _as_fd3(fd), start_new_session=True)
        sock.close()  # the httpd holds its own copy
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        name = next(iter(self.inboxes))
        url = f"{self.base_url}/{name}/description"
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"public-inbox-httpd exited: {self.error_log.read_text()[-800:]}")
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"public-inbox-httpd not ready after {READY_TIMEOUT:.0f}s")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM the httpd by its PID (it is our child, so the PID cannot have been reused
        before we reap it), then SIGKILL if it lingers."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)

    # --- what the server saw ----------------------------------------------------------------
    def requests(self) -> list[str]:
        """Access-log lines, `METHOD /path?query STATUS`, oldest first."""
        if not self.access_log.exists():
            return []
        return [line for line in self.access_log.read_text().splitlines() if line.strip()]


# --- the pytest fixture ---------------------------------------------------------------------
# Import it into a test module (`from pi_server import lore_server`) to use it there.

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "mbox"
NETFILTER_THREADS = ("nf-next-ipvs-cleanups-v1.mbox", "nf-next-ipvs-cleanups-v2.mbox",
                     "nf-next-ipvs-cleanups-v3.mbox", "net-fixes-0-3-fixes-reported-tested.mbox",
                     "announce-nftables-1.0.9-not-a-patch.mbox")
NETDEV_THREADS = ("iproute2-v2-0-3-dcb-fixes.mbox",)
# A generated netdev thread whose cover letter's message-id needs URL quoting ('/' and '+').
GENERATED_COVER_MSGID = "cover/v1+fix@gen.example.org"


def generated_thread() -> str:
    from datetime import datetime, timezone

    from mailfactory import Mail, series_mails, thread

    mails = series_mails(2, tree="net")
    mails[0].msgid = GENERATED_COVER_MSGID
    review = Mail("Re: [PATCH net 1/2] foo: fix thing number 1",
                  "> Pass the flags.\n\nLooks right.\n\nReviewed-by: Rita Reviewer <rita@example.org>\n",
                  sender="Rita Reviewer <rita@example.org>", msgid="rita-1@gen.example.org",
                  date=datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc))
    text = thread(*mails, domain="gen.example.org")
    # the review answers patch 1, whose id thread() derived from the domain
    review.in_reply_to = "20261102100000.1001-1-jane@gen.example.org"
    return text + "\n" + thread(review, domain="gen.example.org")


@pytest.fixture(scope="session")
def lore_server(tmp_path_factory):
    """A running public-inbox with real netfilter-devel/netdev threads; stopped at session end."""
    missing = missing_tools()
    if missing:
        pytest.skip(f"public-inbox is not installed (missing {', '.join(missing)}); tests/run.sh installs it")
    work = tmp_path_factory.mktemp("public-inbox")
    generated = work / "generated-net-2-patches.mbox"
    generated.write_text(generated_thread(), encoding="utf-8")
    server = PublicInboxServer(work / "server", {
        "netfilter-devel": [CORPUS / "netfilter-devel" / n for n in NETFILTER_THREADS],
        "netdev": [CORPUS / "netdev" / n for n in NETDEV_THREADS] + [generated],
    })
    server.generated_mbox = generated
    server.start()
    try:
        yield server
    finally:
        server.stop()
