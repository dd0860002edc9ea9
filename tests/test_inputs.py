"""Every input form `reviewtool check` reads: mbox (mboxrd and mboxo), maildir, one RFC 822
message, gzip of either, `git format-patch` files and directories (made with the real `git`
binary), thread selection with --msgid, and unusable input (one line, exit 2, nothing created)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS
from mailfactory import series_mails, thread, write

from reviewtool.sources import files
from reviewtool.mail.headers import header
from reviewtool.sources.files import load_messages

NF = CORPUS / "netfilter-devel"
RFC_SERIES = NF / "rfc-nf-next-ct-helper-0-2.mbox"  # mboxrd; its cover letter has a `>From ` line


def _summary(res) -> tuple:
    """What must not depend on the container the mail came in."""
    d = res.json
    return (d["series"]["full_subject"], d["series"]["received"], d["series"]["missing"],
            [p["msgid"] for p in d["patches"]], sorted((f["rule"], f["patch"]) for f in d["findings"]))


def _one_line_error(res, *needles: str) -> None:
    assert res.code == 2, (res.code, res.out[:200], res.err)
    assert res.out == ""
    assert res.err.startswith("reviewtool: ") and res.err.count("\n") == 1, res.err
    assert "Traceback" not in res.err
    for needle in needles:
        assert needle in res.err, res.err


# --- mbox flavours -------------------------------------------------------------------------------

def test_mboxrd_from_lines_are_unquoted_once():
    cover = next(m for m in load_messages(RFC_SERIES) if "0/2" in header(m, "Subject"))
    body = cover.get_body(("plain",)).get_content()
    assert "\nFrom nftables, existing (inconsistent) syntax" in body
    assert ">From nftables" not in body


def test_mboxo_keeps_quoted_from_lines(tmp_path, check_json):
    # The same real thread with mboxo separators: `>From ` is ambiguous there, so it is kept.
    text = RFC_SERIES.read_bytes().replace(b"From mboxrd@z Thu Jan  1 00:00:00 1970",
                                           b"From pablo@netfilter.org Tue Mar  9 21:02:00 2021")
    mboxo = tmp_path / "mboxo.mbox"
    mboxo.write_bytes(text)
    cover = next(m for m in load_messages(mboxo) if "0/2" in header(m, "Subject"))
    assert "\n>From nftables, existing" in cover.get_body(("plain",)).get_content()
    assert _summary(check_json(mboxo)) == _summary(check_json(RFC_SERIES))


def test_mbox_with_bare_from_separators_is_split(check_json):
    # patchew's files use Python mailbox's `From A` / `From nobody` separators (no date): 5 mails,
    # not one mail with four others pasted into its body.
    res = check_json(CORPUS / "patchew/0004-multiple-patch-reviewed.mbox.gz")
    assert res.json["series"]["full_subject"].endswith("[PATCH v4 0/2] Report format specific info for LUKS block driver")
    assert res.json["series"]["received"] == [1, 2] and res.json["series"]["has_cover"]


def test_crlf_and_leading_blank_lines(tmp_path, check_json):
    plain = NF / "nf-next-ipvs-cleanups-v3.mbox"
    crlf = tmp_path / "crlf.mbox"
    crlf.write_bytes(b"\n\n" + plain.read_bytes().replace(b"\n", b"\r\n"))
    assert _summary(check_json(crlf)) == _summary(check_json(plain))


# --- maildir, single message, gzip ---------------------------------------------------------------

def _to_maildir(mbox: Path, root: Path) -> Path:
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True)
    for i, raw in enumerate(files.split_mbox(mbox.read_bytes(), str(mbox))):
        (root / ("cur" if i % 2 else "new") / f"17000000{i:02d}.M{i}P1.host:2,S").write_bytes(raw.data)
    (root / "tmp" / "half-delivered").write_bytes(b"From: x\n")  # tmp/ is never read
    return root


def test_maildir_reviews_like_the_mbox(tmp_path, check_json):
    mbox = NF / "net-fixes-0-5-tested-closes-link.mbox"
    maildir = _to_maildir(mbox, tmp_path / "Maildir")
    assert _summary(check_json(maildir)) == _summary(check_json(mbox))


def test_single_rfc822_message_without_from_line(check_json):
    path = CORPUS / "patchwork/mail/0011-no-newline-at-end-of-file.mbox"
    assert not path.read_bytes().startswith(b"From ")
    res = check_json(path)
    assert res.json["series"]["received"] == [5] and res.json["series"]["revision"] == 3


def test_gzip_of_mbox_and_of_single_message(tmp_path, check_json):
    mbox = NF / "iptables-restore-counter-zeroing-0-2.mbox"
    gz = tmp_path / "thread.mbox.gz"
    gz.write_bytes(gzip.compress(mbox.read_bytes()))
    assert _summary(check_json(gz)) == _summary(check_json(mbox))
    single = CORPUS / "patchwork/mail/0013-with-utf8-body.mbox"
    gz1 = tmp_path / "one.eml.gz"
    gz1.write_bytes(gzip.compress(single.read_bytes()))
    assert [m["Message-ID"] for m in load_messages(gz1)] == [m["Message-ID"] for m in load_messages(single)]


def test_byte_order_mark_from_an_editor(tmp_path, check_json):
    single = CORPUS / "patchwork/mail/0011-no-newline-at-end-of-file.mbox"
    bom = tmp_path / "saved.eml"
    bom.write_bytes(b"\xef\xbb\xbf" + single.read_bytes())
    assert _summary(check_json(bom)) == _summary(check_json(single))


def test_real_patchew_gzip(check_json):
    res = check_json(CORPUS / "patchew/0001-simple-patch.mbox.gz")
    assert res.json["patches"][0]["subject"].endswith("quorum: Only compile when supported")


# --- git format-patch ----------------------------------------------------------------------------

GIT_ENV = {"GIT_AUTHOR_NAME": "Jane Developer", "GIT_AUTHOR_EMAIL": "jane@example.org",
           "GIT_COMMITTER_NAME": "Jane Developer", "GIT_COMMITTER_EMAIL": "jane@example.org",
           "GIT_AUTHOR_DATE": "2026-11-02T10:00:00Z", "GIT_COMMITTER_DATE": "2026-11-02T10:00:00Z"}


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    """A small kernel-like tree with three commits on top of a base."""
    repo = tmp_path / "linux"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    src = repo / "net/core/foo.c"
    src.parent.mkdir(parents=True)
    lines = [f"int foo_{i}(void)\n{{\n\treturn {i};\n}}\n\n" for i in range(12)]
    src.write_text("".join(lines))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "net: foo: add the foo helpers")
    for n, (i, what) in enumerate([(2, "return an error"), (6, "drop a dead branch"), (10, "use the new flag")]):
        lines[i] = lines[i].replace(f"return {i};", f"return -{i}; /* {what} */")
        src.write_text("".join(lines))
        body = (f"net: foo: {what} in foo_{i}()\n\nfoo_{i}() returned a positive value on a path that "
                f"must fail.\nReturn the negative error instead.\n\nSigned-off-by: Jane Developer <jane@example.org>\n")
        _git(repo, "commit", "-q", "-a", "-m", body)
    return repo


def test_format_patch_directory_with_cover_letter(repo, tmp_path, check_json):
    out = tmp_path / "outgoing"
    _git(repo, "format-patch", "-q", "--cover-letter", "--base=HEAD~3", "-o", str(out), "HEAD~3")
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "0000-cover-letter.patch" and len(names) == 4
    res = check_json(out)
    s = res.json["series"]
    assert s["received"] == [1, 2, 3] and s["has_cover"] and s["missing"] == []
    assert s["base_commit"] == _git(repo, "rev-parse", "HEAD~3").strip()
    assert s["msgid"].endswith("@format-patch.reviewtool.invalid")
    # Stable ids: a second run gives the same ones.
    assert _summary(check_json(out)) == _summary(res)
    # Threaded as git send-email does: every patch answers the cover letter.
    msgs = load_messages(out)
    root = header(msgs[0], "Message-ID")
    assert all(header(m, "In-Reply-To") == root for m in msgs[1:])


def test_format_patch_single_file_and_stdout_mbox(repo, tmp_path, check_json):
    one = Path(_git(repo, "format-patch", "-1", "-o", str(tmp_path)).strip())
    res = check_json(one)
    assert [p["subject"] for p in res.json["patches"]] == ["[PATCH] net: foo: use the new flag in foo_10()"]
    assert res.json["patches"][0]["files"] == ["net/core/foo.c"]
    stream = tmp_path / "series.mbox"
    stream.write_text(_git(repo, "format-patch", "--stdout", "--cover-letter", "HEAD~3"))
    res = check_json(stream)
    assert res.json["series"]["received"] == [1, 2, 3] and res.json["series"]["has_cover"]


def test_format_patch_revisions_in_one_directory(repo, tmp_path, check_json):
    out = tmp_path / "outgoing"
    _git(repo, "format-patch", "-q", "-o", str(out), "HEAD~3")
    _git(repo, "format-patch", "-q", "-v2", "--cover-letter", "-o", str(out), "HEAD~3")
    res = check_json(out)
    assert res.json["series"]["revision"] == 2 and res.json["series"]["has_cover"]
    assert res.json["series"]["earlier_revisions"] == [1]
    v1 = check_json(out, "--revision", "1")
    assert v1.json["series"]["revision"] == 1 and v1.json["series"]["received"] == [1, 2, 3]
    # Each revision is its own thread, as two git send-email runs would make.
    threads = {header(m, "In-Reply-To") for m in load_messages(out) if header(m, "In-Reply-To")}
    assert len(threads) == 2


def test_format_patch_with_thread_keeps_git_message_ids(repo, tmp_path, check_json):
    out = tmp_path / "threaded"
    _git(repo, "format-patch", "-q", "--thread", "--cover-letter", "-o", str(out), "HEAD~3")
    res = check_json(out)
    assert not res.json["series"]["msgid"].endswith(".invalid")
    assert res.json["series"]["received"] == [1, 2, 3]


def test_directory_skips_stray_files(repo, tmp_path, check_json):
    out = tmp_path / "outgoing"
    _git(repo, "format-patch", "-q", "-o", str(out), "HEAD~2")
    (out / "series").write_text("0001-net-foo.patch\n0002-net-foo.patch\n")  # a quilt series file
    (out / "notes.bin").write_bytes(bytes(range(256)) * 4)
    assert check_json(out).json["series"]["received"] == [1, 2]


# --- thread selection ----------------------------------------------------------------------------

def test_newest_series_by_default_and_msgid_picks_a_thread(tmp_path, check_json):
    older, newer = NF / "nft-parser-scope-0-3.mbox", NF / "nf-next-ipvs-cleanups-v1.mbox"  # 2022, 2023
    both = tmp_path / "archive.mbox"
    both.write_bytes(newer.read_bytes() + b"\n" + older.read_bytes())
    alone_new, alone_old = check_json(newer).json, check_json(older).json
    assert check_json(both).json["series"]["msgid"] == alone_new["series"]["msgid"]
    picked = check_json(both, "--msgid", f"<{alone_old['patches'][1]['msgid']}>")
    assert picked.json["series"]["msgid"] == alone_old["series"]["msgid"]


def test_msgid_not_in_input(cli):
    res = cli("check", NF / "nf-next-ipvs-cleanups-v1.mbox", "--msgid", "nope@example.org")
    _one_line_error(res, "<nope@example.org> is not in the input")


# --- unusable input ------------------------------------------------------------------------------

def test_missing_path_is_never_created(tmp_path, cli):
    for missing in (tmp_path / "nothere.mbox", tmp_path / "no/such/dir/x.mbox"):
        _one_line_error(cli("check", missing), "no such file")
        assert not missing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("name,data,needle", [
    ("empty.mbox", b"", "empty"),
    ("blank.mbox", b"\n \n\t\n", "empty"),
    ("plain.diff", b"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "plain diff"),
    ("notes.txt", b"Hello,\nthis is not a mail.\n", "not a mail"),
    ("random.bin", bytes(range(256)) * 64, "binary"),
    ("cut.gz", gzip.compress(b"From: a\n\nbody\n" * 50, mtime=0)[:40], "corrupt gzip"),
    ("bad-deflate.gz", gzip.compress(b"From: a\n\nbody\n" * 50, mtime=0)[:12] + b"\xff" * 40, "corrupt gzip"),
    ("thread.mbox.xz", lzma.compress(b"From: a\nSubject: [PATCH] x\n\nbody\n"), "xz-compressed"),
    ("thread.mbox.bz2", bz2.compress(b"From: a\nSubject: [PATCH] x\n\nbody\n"), "bzip2-compressed"),
])
def test_unusable_files(tmp_path, cli, name, data, needle):
    path = tmp_path / name
    path.write_bytes(data)
    _one_line_error(cli("check", path), needle)


def test_real_unusable_inputs(cli):
    _one_line_error(cli("check", CORPUS / "b4/gitdir.bundle"), "binary")
    _one_line_error(cli("check", NF / "announce-nftables-1.0.9-not-a-patch.mbox"), "no patch")
    _one_line_error(cli("check", CORPUS / "patchew/0025-foo-patch-review.mbox.gz"), "no patch")


def test_empty_directories_and_maildirs(tmp_path, cli):
    empty = tmp_path / "empty"
    empty.mkdir()
    _one_line_error(cli("check", empty), "holds no mail")
    maildir = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    _one_line_error(cli("check", maildir), "holds no mail")


def test_fifo_is_refused_without_blocking(tmp_path, cli):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _one_line_error(cli("check", fifo), "not a regular file")


def test_gzip_bomb_is_refused(tmp_path, cli):
    bomb = tmp_path / "bomb.mbox.gz"
    bomb.write_bytes(gzip.compress(b"From: a\n\n" + b"x" * (2 * 1024 * 1024)))
    assert bomb.stat().st_size < 64 * 1024  # expands over 100 times its size
    _one_line_error(cli("check", bomb), "REVIEWTOOL_MAX_GZIP_RATIO")


def test_mailfactory_thread_in_every_container(tmp_path, check_json):
    """One generated thread as mboxrd, maildir and gzip: the same review each time."""
    mbox = write(tmp_path, thread(*series_mails(3)))
    maildir = _to_maildir(mbox, tmp_path / "md")
    gz = tmp_path / "t.mbox.gz"
    gz.write_bytes(gzip.compress(mbox.read_bytes()))
    reviews = [_summary(check_json(p)) for p in (mbox, maildir, gz)]
    assert reviews[0] == reviews[1] == reviews[2]
    assert re.match(r"\[PATCH net 0/3\]", reviews[0][0])
