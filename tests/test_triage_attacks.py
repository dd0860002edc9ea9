"""What attacking triage and its store found (issue 22, item 7), each with the test that failed
before its fix: stale reviews when objects arrive or vanish under --repo, rows whose CRC holds
but whose content does not decode, an explicit store that cannot be read, -o onto an input or
the store, the input and mail limits while streaming, what a patch is, deep MIME, a failed write
to stdout, the store's file mode, advice that deletes data, and bidirectional controls."""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import stat
import subprocess
import sys
import zlib
from contextlib import closing
from pathlib import Path

import pytest

from conftest import ROOT
from gitrepo import GitRepo
from mailfactory import Mail, patch_body, series_mails, thread, write
from test_triage_status import NOW, RULES, build_archive
from test_triage_store import COUNTS_RE, fresh, stored_run

SOB = "Signed-off-by: Jane Developer <jane@example.org>"
FIXES_RULES = ("--select", "fixes")


def _run(args: list[str], *, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """reviewtool as a command of its own (stdout and limits of its own)."""
    return subprocess.run([sys.executable, "-m", "reviewtool", *map(str, args)], capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, **kw)


# -- stale reviews under --repo: objects that arrive or vanish without a ref moving ---------------

def _fix_for(tmp_path: Path, sha: str, subject: str) -> Path:
    body = patch_body(message="Return the right error.", trailers=f'Fixes: {sha[:12]} ("{subject}")\n{SOB}')
    return write(tmp_path, thread(Mail("[PATCH net] foo: return the right error", body)), "fix.mbox")


def _rules(report) -> set[str]:
    return {f["rule"] for s in report["series"] for f in s["findings"]}


def test_objects_that_arrive_without_a_ref_change_review_again(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("foo: start\n", {"foo.c": "int a;\n"})
    other = GitRepo(tmp_path / "other", init=False)
    subprocess.run(["git", "clone", "-q", str(repo.path), str(other.path)], check=True)
    other.git("config", "user.name", "Other Builder")
    other.git("config", "user.email", "other@example.org")
    target = other.commit("foo: add bar\n", {"bar.c": "int b;\n"})
    box = _fix_for(tmp_path, target, "foo: add bar")
    store = tmp_path / "store.sqlite"
    args = (box, "--repo", repo.path, *FIXES_RULES)
    first, _, _ = stored_run(cli, store, *args)
    assert "fixes-target-unknown" in _rules(first.json)
    refs = repo.git("for-each-ref")
    repo.git("fetch", "-q", str(other.path))  # writes FETCH_HEAD and objects, moves no ref
    assert repo.git("for-each-ref") == refs
    res, _, reviewed = stored_run(cli, store, *args)
    assert reviewed == 1 and res.out == fresh(cli, *args)
    assert "fixes-target-unknown" not in _rules(res.json)
    # unpack-objects: the same, without fetch
    late = other.commit("foo: add baz\n", {"baz.c": "int c;\n"})
    box = _fix_for(tmp_path, late, "foo: add baz")
    stored_run(cli, store, *args)
    pack = subprocess.run(["git", "-C", str(other.path), "pack-objects", "--stdout", "--revs"], input=f"{late}\n".encode(),
                          capture_output=True, check=True).stdout
    subprocess.run(["git", "-C", str(repo.path), "unpack-objects", "-q"], input=pack, check=True)
    res, _, reviewed = stored_run(cli, store, *args)
    assert reviewed == 1 and res.out == fresh(cli, *args) and "fixes-target-unknown" not in _rules(res.json)


def test_objects_that_vanish_review_again(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("foo: start\n", {"foo.c": "int a;\n"})
    repo.git("checkout", "-q", "-b", "side")
    target = repo.commit("foo: add bar\n", {"bar.c": "int b;\n"})
    repo.git("checkout", "-q", "main")
    box = _fix_for(tmp_path, target, "foo: add bar")
    store = tmp_path / "store.sqlite"
    args = (box, "--repo", repo.path, *FIXES_RULES)
    first, _, _ = stored_run(cli, store, *args)
    assert "fixes-target-unknown" not in _rules(first.json)
    repo.git("branch", "-D", "side")
    res, _, _ = stored_run(cli, store, *args)
    assert res.out == fresh(cli, *args)
    refs = repo.git("for-each-ref")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    assert repo.git("for-each-ref") == refs
    res, _, reviewed = stored_run(cli, store, *args)
    assert reviewed == 1 and res.out == fresh(cli, *args) and "fixes-target-unknown" in _rules(res.json)


# -- rows whose CRC holds but whose content does not decode -----------------------------------------

def _rewrite_rows(store: Path, table: str, column: str, value: bytes) -> None:
    """Replace one column of every row, and its CRC, as a writer with a bug (or a hand) would."""
    from reviewtool.triage.store import _crc

    with closing(sqlite3.connect(store)) as db:
        if table == "reviews":
            rows = db.execute("SELECT key, env, head FROM reviews").fetchall()
            for key, env, head in rows:
                db.execute("UPDATE reviews SET tail = ?, crc = ? WHERE key = ?", (value, _crc(key, env, head, value), key))
        else:
            rows = db.execute("SELECT path, state FROM files").fetchall()
            for path, state in rows:
                db.execute("UPDATE files SET heads = ?, crc = ? WHERE path = ?", (value, _crc(path, state, value), path))
        db.commit()


@pytest.mark.parametrize("table, value", [
    ("reviews", b"not zlib at all"),  # was `internal error: ... incorrect header check`, exit 3
    ("reviews", zlib.compress(b'"subject": [')),  # was invalid JSON, exit 1, no message
    ("files", b"not zlib at all"),
    ("files", zlib.compress(b'[["x", 1]]')),
], ids=["review-not-zlib", "review-not-json", "index-not-zlib", "index-not-mails"])
def test_a_row_that_does_not_decode_is_reviewed_again(tmp_path, cli, table, value):
    archive = build_archive(tmp_path)
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    _rewrite_rows(store, table, "tail", value)
    out = tmp_path / "report.json"
    res = cli("triage", archive, *RULES, "--format", "json", "--now", NOW, "--store", store, "-o", out)
    assert res.code == 1 and res.err == ""
    assert out.read_text() == fresh(cli, archive, *RULES)
    res, reused, reviewed = stored_run(cli, store, archive, *RULES)  # the rows were replaced whole
    assert (reused, reviewed) == (7, 0) and res.out == out.read_text()


# -- an explicit --store that cannot be read: said in one line, as at the default path ------------

def _without_read_permission() -> list[str]:
    """A prefix that runs a command unable to read a mode-000 file (root reads anything)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a file root cannot read cannot be made")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def test_an_explicit_store_that_cannot_be_read_is_said_and_the_run_goes_on(tmp_path):
    archive = build_archive(tmp_path)
    expected = _run(["triage", archive, *RULES, "--format", "json", "--now", NOW, "--no-store"])
    locked = tmp_path / "locked.sqlite"
    locked.write_bytes(b"")
    locked.chmod(0)
    cache = tmp_path / "cache"
    (cache / "reviewtool").mkdir(parents=True)
    shutil.copy(locked, cache / "reviewtool" / "triage.sqlite")
    (cache / "reviewtool" / "triage.sqlite").chmod(0)
    for extra in (["--store", str(locked)], []):  # explicit, then the same file at the default path
        proc = subprocess.run([*_without_read_permission(), sys.executable, "-m", "reviewtool", "triage",
                               str(archive), *RULES, "--format", "json", "--now", NOW, *extra],
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache)})
        assert proc.returncode == 1 and proc.stdout == expected.stdout.decode(), proc.stderr
        (line,) = proc.stderr.splitlines()
        assert "result store" in line and "triaging without it" in line


# -- -o onto an input or the store ------------------------------------------------------------------

def test_output_onto_an_input_or_the_store_is_refused(tmp_path, cli):
    archive = build_archive(tmp_path)
    before = archive.read_bytes()
    res = cli("triage", archive, *RULES, "-o", archive)
    assert res.code == 2 and archive.read_bytes() == before and len(res.err.splitlines()) == 1
    assert "is the input" in res.err
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    kept = store.read_bytes()
    res = cli("triage", archive, *RULES, "--store", store, "-o", store)
    assert res.code == 2 and "result store" in res.err and store.read_bytes() == kept
    maildir = tmp_path / "md"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    shutil.copy(archive, maildir / "cur" / "1:2,S")
    res = cli("triage", maildir, *RULES, "-o", maildir / "new" / "report")
    assert res.code == 2 and not (maildir / "new" / "report").exists()
    res = cli("check", archive, "-o", archive)
    assert res.code == 2 and archive.read_bytes() == before
    ok = cli("triage", archive, *RULES, "--no-store", "-o", tmp_path / "report.txt")  # the near miss
    assert ok.code == 1 and (tmp_path / "report.txt").read_text()


# -- the mail limit holds while the input streams ----------------------------------------------

# (an archive's size is capped by no limit: tests/test_archive_limits.py)


# The peak of this process's own memory (VmHWM: kept per address space, so not the test's, which
# ru_maxrss would carry over from before exec).
_PEAK = """
import sys
from reviewtool.cli import main
code = main(sys.argv[1:])
peak = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
print(code, int(peak) // 1024, file=sys.stderr)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measures memory through /proc (Linux)")
def test_a_mail_over_the_mail_limit_is_never_loaded(tmp_path):
    line = "+static const char t[] = \"" + "x" * 1000 + "\";\n"
    huge = Mail("[PATCH net] foo: add a table", patch_body(   # 64 MB: loaded whole, it would cost 100s of MB
        diff="diff --git a/t.c b/t.c\n--- a/t.c\n+++ b/t.c\n@@ -1 +1,65001 @@\n x\n" + line * 65000))
    small = thread(*series_mails(2), domain="small.example")
    archive = write(tmp_path, thread(huge, domain="huge.example") + "\n" + small)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REVIEWTOOL_MAX_MAIL_MB": "1"}
    proc = subprocess.run([sys.executable, "-c", _PEAK, "triage", str(archive), "--format", "json", "--now", NOW,
                           "--no-store"], capture_output=True, text=True, env=env)
    code, peak = proc.stderr.split()[-2:]
    report = json.loads(proc.stdout)
    assert code in ("0", "1") and report["totals"]["series"] == 1  # the rest is reviewed
    (skipped,) = report["skipped"]
    assert "REVIEWTOOL_MAX_MAIL_MB" in skipped["reason"]
    mbox = tmp_path / "huge.mbox"
    mbox.write_text(thread(huge, domain="huge.example") + "\n" + small * 30)  # over 4 MB: narrowed
    proc = subprocess.run([sys.executable, "-c", _PEAK, "check", str(mbox), "--msgid",
                           "20261102100000.1000-0-jane@huge.example"], capture_output=True, text=True, env=env)
    lines = proc.stderr.splitlines()
    assert lines[-1].split()[0] == "2" and "REVIEWTOOL_MAX_MAIL_MB" in lines[0]
    assert int(peak) < 100 and int(lines[-1].split()[1]) < 100  # MB: the 64 MB mail was never read


# -- what a patch is: triage takes what check reviews -------------------------------------------------

def test_a_series_without_patch_in_its_subjects_is_triaged_as_check_reviews_it(tmp_path, cli, check_json):
    mails = series_mails(2, cover=False)
    for m in mails:
        m.subject = m.subject.replace("[PATCH net ", "[net ")
    discussion = Mail("foo: how should bar work?", "What do you think about bar?\n", sender="Ann <ann@example.org>")
    archive = write(tmp_path, thread(*mails) + "\n" + thread(discussion, domain="talk.example"))
    assert check_json(archive, "--msgid", "20261102100000.1000-0-jane@example.org").json["patches"]
    report = json.loads(fresh(cli, archive))
    assert report["totals"]["series"] == 1 and report["series"][0]["received"] == [1, 2]
    assert report["totals"]["other_threads"] == 1  # the near miss: no diff, no patch


# -- deep MIME ----------------------------------------------------------------------------------------

def _nested(depth: int, domain: str) -> str:
    out = (f"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Jane Developer <jane@example.org>\n"
           f"Date: Mon, 2 Nov 2026 10:00:00 +0000\nSubject: [PATCH net] foo: fix bar\nMessage-ID: <deep@{domain}>\n"
           f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b0"\n\n')
    for i in range(1, depth):
        out += f'--b{i - 1}\nContent-Type: multipart/mixed; boundary="b{i}"\n\n'
    out += f"--b{depth - 1}\nContent-Type: text/plain\n\n" + patch_body() + "\n"
    return out + "".join(f"--b{i}--\n" for i in reversed(range(depth)))


def test_deep_mime_is_a_limit_in_check_and_triage_and_is_remembered(tmp_path, cli):
    deep = write(tmp_path, _nested(1000, "deep.example"), "deep.mbox")
    res = cli("check", deep)
    assert res.code == 2 and "REVIEWTOOL_MAX_MIME_DEPTH" in res.err and len(res.err.splitlines()) == 1
    store = tmp_path / "store.sqlite"
    report, _, _ = stored_run(cli, store, deep)
    (skipped,) = report.json["skipped"]
    assert "REVIEWTOOL_MAX_MIME_DEPTH" in skipped["reason"] and "internal error" not in skipped["reason"]
    _, reused, reviewed = stored_run(cli, store, deep)
    assert (reused, reviewed) == (1, 0)  # the same bytes nest as deep next time
    shallow = write(tmp_path, _nested(3, "shallow.example"), "shallow.mbox")  # the near miss
    assert cli("check", shallow, "--format", "json").code in (0, 1)


# -- a failed write to stdout ---------------------------------------------------------------------

def _small_file_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))


@pytest.mark.parametrize("command", ["triage", "check"])
def test_a_failed_write_to_stdout_is_one_line_and_exit_2(tmp_path, command):
    archive = build_archive(tmp_path)
    with open(os.devnull if not Path("/dev/full").exists() else "/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "reviewtool", command, str(archive), "--format", "json"],
                              stdout=full, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    if Path("/dev/full").exists():
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "cannot write to standard output" in proc.stderr
    with open(tmp_path / "out.json", "w") as out:
        proc = subprocess.run([sys.executable, "-m", "reviewtool", command, str(archive), "--format", "json",
                               "--no-store"] if command == "triage" else
                              [sys.executable, "-m", "reviewtool", command, str(archive), "--format", "json"],
                              stdout=out, stderr=subprocess.PIPE, text=True, preexec_fn=_small_file_limit,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot write to standard output (File too large)" in proc.stderr


# -- the store's mode -----------------------------------------------------------------------------------

def test_the_store_is_readable_by_its_owner_only(tmp_path, cli):
    archive = build_archive(tmp_path)
    old = os.umask(0o022)
    try:
        store = tmp_path / "store.sqlite"
        stored_run(cli, store, archive, *RULES)
        for p in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
            if p.exists():
                assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
        older = tmp_path / "older.sqlite"  # made by a reviewtool before this one: 0644
        stored_run(cli, older, archive, *RULES)
        older.chmod(0o644)
        stored_run(cli, older, archive, *RULES)
        assert stat.S_IMODE(older.stat().st_mode) == 0o600
    finally:
        os.umask(old)


# -- advice that deletes data -----------------------------------------------------------------------

def test_a_store_path_that_is_not_a_store_is_never_advised_away(tmp_path, cli):
    archive = build_archive(tmp_path)
    other = tmp_path / "all.mbox"
    shutil.copy(archive, other)
    before = other.read_bytes()
    res = cli("triage", archive, *RULES, "--format", "json", "--now", NOW, "--store", other)
    (line,) = res.err.splitlines()
    assert res.code == 1 and "remove" not in line and "not a reviewtool result store" in line
    assert other.read_bytes() == before


# -- bidirectional controls ----------------------------------------------------------------------------

BIDI = "\u202e"


@pytest.mark.parametrize("command, fmt", [("check", "text"), ("check", "markdown"), ("check", "email"),
                                          ("triage", "text"), ("triage", "markdown"), ("triage", "html")])
def test_bidirectional_controls_are_shown_not_obeyed(tmp_path, cli, command, fmt):
    mail = Mail(f"[PATCH net] foo: fix {BIDI}gnp.exe\u2066x\u2069", patch_body(message=f"Fix {BIDI}this.\n\nMore."),
                sender=f"Jane {BIDI}Developer <jane@example.org>")
    box = write(tmp_path, thread(mail))
    for args in ([box] if command == "check" else [box, "--now", NOW, "--no-store"],):
        res = cli(command, *args, "--format", fmt)
        assert res.code in (0, 1), res.err
        assert BIDI not in res.out and "\u2066" not in res.out and "\u2069" not in res.out
        assert "U+202E" in res.out
    data = cli("check", box, "--format", "json")
    assert BIDI in data.json["series"]["full_subject"]  # JSON is data: the text as it is
