"""Real public-inbox inboxes on disk, made by public-inbox's own tools (public-inbox-init and its
importer, as tests/pi_server.py makes the server's), for the tests that read an inbox in place.

`PublicInbox(workdir, "list", version=2).add(mbox, rotate_bytes=N)` imports an mbox's mails; a
small `rotate_bytes` makes public-inbox start a new epoch (`git/1.git`, ...) as it does at about
a gigabyte on a real list. `remove(mbox)` removes those mails as public-inbox-learn / -purge's
importer does (a v2 commit holding `d`, a v1 commit deleting the path). All public-inbox state
lives in the work dir (PI_CONFIG, PI_DIR, HOME), never in ~.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from pi_server import missing_tools, public_inbox_env  # noqa: F401 - missing_tools: the tests skip on it

# public-inbox's importer, with the epoch size settable (V2Writable rotates at rotate_bytes)
_IMPORT_PL = r"""
use v5.12;
use PublicInbox::Config;
use PublicInbox::InboxWritable;
use PublicInbox::MboxReader;
use PublicInbox::Eml;
my ($name, $action, $variant, $rotate, @paths) = @ARGV;
my $ibx = PublicInbox::Config->new->lookup_name($name) or die "no inbox $name\n";
$ibx = PublicInbox::InboxWritable->new($ibx);
$ibx->{-no_fsync} = 1;  # throwaway test data
my $im = $ibx->importer(1);
$im->{rotate_bytes} = $rotate if $rotate > 0;
my $cb = PublicInbox::MboxReader->reads($variant) or die "$variant not supported\n";
for my $path (@paths) {
    open(my $fh, '<', $path) or die "open $path: $!\n";
    if ($action eq 'add') {
        $cb->(undef, $fh, \&PublicInbox::InboxWritable::_mbox_eml_cb, $im, undef);
    } else {
        $cb->(undef, $fh, sub { my ($eml) = @_; $im->remove($eml, 'removed') or die "not removed\n" });
    }
}
$im->done;
"""


class PublicInbox:
    def __init__(self, workdir: Path, name: str = "list", version: int = 2):
        self.workdir = workdir.resolve()
        self.name = name
        self.path = self.workdir / name
        self.env = public_inbox_env(self.workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._run("public-inbox-init", f"-V{version}", "-L", "basic", name, str(self.path),
                  f"http://127.0.0.1/{name}", f"{name}@example.org")

    def _run(self, *args: str) -> None:
        res = subprocess.run(args, env=self.env, cwd=self.workdir, capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError(f"{' '.join(args[:2])} failed ({res.returncode}): {res.stderr.strip()[-800:]}")

    def _import(self, action: str, mbox: Path, rotate_bytes: int) -> None:
        variant = "mboxrd" if mbox.read_bytes().startswith(b"From mboxrd@") else "mboxo"
        self._run("perl", "-e", _IMPORT_PL, self.name, action, variant, str(rotate_bytes), str(mbox.resolve()))

    def add(self, mbox: Path, rotate_bytes: int = 0) -> "PublicInbox":
        self._import("add", mbox, rotate_bytes)
        return self

    def remove(self, mbox: Path) -> "PublicInbox":
        self._import("remove", mbox, 0)
        return self

    def epochs(self) -> list[Path]:
        return sorted((self.path / "git").glob("*.git"), key=lambda p: int(p.name[:-4]))
