"""A large archive is narrowed by headers before parsing; the review must be the same."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from gen_limits import big_mbox  # noqa: E402

from reviewtool.conversation import narrow


def _archive(tmp_path: Path) -> Path:
    """5 MB of one-patch threads with the three ipvs-cleanups revisions (real) in the middle."""
    filler = tmp_path / "filler.mbox"
    big_mbox(filler, 5)
    data = filler.read_bytes()
    cut = data.index(b"From mboxrd@z", len(data) // 2)
    real = b"".join((CORPUS / f"netfilter-devel/nf-next-ipvs-cleanups-v{v}.mbox").read_bytes() + b"\n"
                    for v in (1, 2, 3))
    path = tmp_path / "archive.mbox"
    path.write_bytes(data[:cut] + real + data[cut:])
    return path


def test_narrowed_review_equals_whole_file_review(tmp_path, cli, monkeypatch):
    path = _archive(tmp_path)
    msgid = "20230409-ipvs-cleanup-v3-0-5149ea34b0b9@kernel.org"
    raws = narrow.narrowed_raws(path, msgid)
    assert raws is not None and len(raws) < 40  # three threads, not thousands of mails
    fast = cli("check", path, "--msgid", msgid, "--format", "json")
    monkeypatch.setattr(narrow, "NARROW_FROM_BYTES", 1 << 40)
    slow = cli("check", path, "--msgid", msgid, "--format", "json")
    assert fast.code == slow.code and fast.out == slow.out
    assert fast.json["series"]["revision"] == 3 and fast.json["series"]["earlier_revisions"] == [1, 2]


def test_newest_series_is_chosen_without_msgid(tmp_path, cli, monkeypatch):
    path = _archive(tmp_path)
    fast = cli("check", path, "--format", "json")
    monkeypatch.setattr(narrow, "NARROW_FROM_BYTES", 1 << 40)
    slow = cli("check", path, "--format", "json")
    assert fast.out == slow.out and fast.code in (0, 1)


def test_unthreaded_series_in_a_large_archive_is_reviewed_whole(tmp_path, cli, monkeypatch):
    """Narrowing keeps the mails of a series posted without threading: the same joined series."""
    filler = tmp_path / "filler.mbox"
    big_mbox(filler, 5)
    data = filler.read_bytes()
    path = tmp_path / "archive.mbox"
    path.write_bytes(data.rstrip(b"\n") + b"\n\n" + (CORPUS / "patchwork/series/base-no-references.mbox").read_bytes())
    msgid = "1495517379-18456-1-git-send-email-xiaolou4617@gmail.com"  # patch 2/2
    raws = narrow.narrowed_raws(path, msgid)
    assert raws is not None and len(raws) == 2
    fast = cli("check", path, "--msgid", msgid, "--format", "json")
    assert fast.json["series"]["received"] == [1, 2] and fast.json["series"]["missing"] == []
    monkeypatch.setattr(narrow, "NARROW_FROM_BYTES", 1 << 40)
    slow = cli("check", path, "--msgid", msgid, "--format", "json")
    assert fast.out == slow.out
