"""Every file of the corpus (fixtures/corpus/mbox, recursively: mboxes, single mails, gzip, the git
bundle, the SOURCES tables) gives a review (exit 0/1) or one line on stderr with exit 2. Never
exit 3 (an internal error), never a traceback; a few files go through the installed entry point
in a subprocess as well."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPUS

FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file())
# Inputs that hold no reviewable series, and must say so in one line.
NOT_REVIEWABLE = {
    "b4/gitdir.bundle",  # binary
    "netfilter-devel/SOURCES.tsv", "netdev/SOURCES.tsv",  # not mail
    "netfilter-devel/announce-nftables-1.0.9-not-a-patch.mbox",
    "patchew/0005-non-utf-8.mbox.gz", "patchew/0006-multi-part-non-utf-8.mbox.gz",  # replies only
    "patchew/0016-nested-multipart.mbox.gz", "patchew/0025-foo-patch-review.mbox.gz",
    "patchew/0027-foo-patch-based-on.mbox.gz", "patchwork/mail/0020-multipart-comment.mbox",
}
# Reviewable series the corpus was built around: a walk that turns them into errors is a regression.
MUST_REVIEW = {
    "patchew/0004-multiple-patch-reviewed.mbox.gz", "patchew/0009-obsolete-by.mbox.gz",
    "patchew/0031-supersedes-embedded.mbox.gz", "b4/trailers-followup-nore.mbox",
    "patchwork/series/base-no-references.mbox", "patchwork/series/revision-unlabeled-noreferences.mbox",
    "netfilter-devel/net-next-updates-0-6-comma-v3.mbox", "netfilter-devel/nft-parser-json-netdev-v2.mbox",
    "patchwork/fuzz/year-out-of-range.mbox",
}


def _rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


@pytest.fixture(autouse=True)
def _outside_any_repository(tmp_path, monkeypatch):
    # The history checks default to the current repository; the corpus is about mail, not this tree.
    monkeypatch.chdir(tmp_path)


def test_corpus_is_complete():
    names = {_rel(p) for p in FILES}
    assert len(FILES) >= 150 and "b4/gitdir.bundle" in names
    assert sum(n.endswith(".gz") for n in names) == 35
    assert (NOT_REVIEWABLE | MUST_REVIEW) <= names


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_every_corpus_file_reviews_or_fails_in_one_line(cli, path):
    res = cli("check", path, "--format", "json")
    assert res.code in (0, 1, 2), (res.code, res.err)
    assert "Traceback" not in res.err and "internal error" not in res.err, res.err
    if res.code == 2:
        assert res.out == "" and res.err.startswith("reviewtool: ") and res.err.count("\n") == 1, res.err
        assert _rel(path) not in MUST_REVIEW, res.err
        return
    assert _rel(path) not in NOT_REVIEWABLE
    data = json.loads(res.out)
    assert data["patches"] or data["cover"]
    assert res.code == (1 if data["summary"]["errors"] else 0)
    for fmt in ("text", "markdown", "email"):
        rendered = cli("check", path, "--format", fmt)
        assert rendered.code == res.code and rendered.out.strip(), (fmt, rendered.err)
        assert "\x1b" not in rendered.out


def _entry_point() -> list[str]:
    """The installed console script, else the same function through this Python."""
    script = Path(sys.executable).parent / "reviewtool"
    if script.is_file():
        return [str(script)]
    found = shutil.which("reviewtool")
    return [found] if found else [sys.executable, "-c", "from reviewtool.cli import run; run()"]


@pytest.mark.parametrize("rel,codes", [
    ("netfilter-devel/net-fixes-0-5-tested-closes-link.mbox", (0, 1)),
    ("patchew/0004-multiple-patch-reviewed.mbox.gz", (0, 1)),
    ("patchwork/fuzz/year-out-of-range.mbox", (0, 1)),
    ("b4/gitdir.bundle", (2,)),
    ("patchwork/mail/0020-multipart-comment.mbox", (2,)),
])
def test_real_entry_point_in_a_subprocess(tmp_path, rel, codes):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "TERM": "dumb"}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run([*_entry_point(), "check", str(CORPUS / rel), "--format", "json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in codes, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    if proc.returncode == 2:
        assert proc.stdout == "" and proc.stderr.count("\n") == 1 and proc.stderr.startswith("reviewtool: ")
    else:
        assert json.loads(proc.stdout)["tool"] == "reviewtool"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in ("cache", "data")) == []
