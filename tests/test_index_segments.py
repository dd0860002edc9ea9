"""A large mbox is indexed in segments, one per process (sources/segments.py, index.scan_segment):
the mails, their order and every field must be those of one scan of the whole file, however the
file's separators look (dated or not, CRLF, `From ` lines inside bodies, long lines)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from reviewtool.sources import index, segments as segmenting
from reviewtool.sources.index import index_file
from reviewtool.sources.segments import SegmentScan

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _serial_map(fn, args):
    return [fn(*a) for a in args]


def _mail(i: int, body: str, sep: str) -> str:
    return (f"{sep}\nFrom: Dev {i} <dev{i}@example.org>\nSubject: [PATCH {i % 3 + 1}/3] wifi: x: change {i}\n"
            f"Message-ID: <m{i}@example.org>\nDate: Tue, 1 Nov 2022 10:{i % 60:02d}:00 +0000\n\n{body}\n")


BODIES = [
    "Plain text.\n\nSigned-off-by: Dev <dev@example.org>\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
    "From the start of a body line, after a blank line:\n\nFrom here it is text, not a separator.\n",
    "A quoted line\n\n>From an escaped one\n",
    "Long " + "x" * 5000 + "\n",
    "\nFrom nobody Mon Jan  1 00:00:00 2001\nnot-a-header line after a dated From in a body\n",
]


def _archive(tmp_path: Path, sep: str, crlf: bool = False, n: int = 120) -> Path:
    text = "".join(_mail(i, BODIES[i % len(BODIES)], sep) for i in range(n))
    data = text.replace("\n", "\r\n") if crlf else text
    path = tmp_path / "list.mbox"
    path.write_bytes(data.encode())
    return path


SEPARATORS = {
    "dated": "From dev@example.org Tue Nov  1 10:00:00 2022",
    "mboxrd": "From mboxrd@z Thu Jan  1 00:00:00 1970",
    "dateless": "From dev@example.org",
}


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(segmenting, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(index, "_LINE_PIECE", 1024)  # long lines come in pieces, as in a huge archive


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("sep", sorted(SEPARATORS))
@pytest.mark.parametrize("parts", [2, 3, 7])
def test_segments_give_the_mails_one_scan_gives(tmp_path, small_pieces, sep, crlf, parts):
    path = _archive(tmp_path, SEPARATORS[sep], crlf)
    whole = list(index_file(path))
    cuts = segmenting.segments(str(path), 0, parts, index._LINE_PIECE)
    assert len(cuts) == parts  # the test cuts the file, or it proves nothing
    assert list(index_file(path, segmented=SegmentScan(parts, _serial_map))) == whole
    assert len(whole) == 120 or sep == "dateless"


def test_every_cut_is_a_separator_one_scan_also_sees(tmp_path, small_pieces):
    path = _archive(tmp_path, SEPARATORS["dateless"])
    starts = {h.ref.offset for h in index_file(path)}
    data = path.read_bytes()
    for start, _ in segmenting.segments(str(path), 0, 9, index._LINE_PIECE)[1:]:
        line_end = data.index(b"\n", start) + 1
        assert line_end in starts  # the mail after the cut starts right after its separator line


def test_a_small_or_single_mail_file_is_one_segment(tmp_path):
    path = _archive(tmp_path, SEPARATORS["dated"], n=3)
    assert segmenting.segments(str(path), 0, 4, index._LINE_PIECE) == [(0, None)]


def test_a_real_corpus_archive_in_a_process_pool(tmp_path, small_pieces):
    """The segments cross a process boundary (pickled heads) and come back in order."""
    src = sorted((FIXTURES / "cases").rglob("*.mbox"))[:25]
    path = tmp_path / "corpus.mbox"
    path.write_bytes(b"".join(p.read_bytes().rstrip(b"\n") + b"\n\n" for p in src))
    whole = list(index_file(path))
    with ProcessPoolExecutor(2) as pool:
        scan = SegmentScan(3, lambda fn, args: pool.map(fn, *zip(*args)))
        assert list(index_file(path, segmented=scan)) == whole
    assert len(whole) > 25


# Bodies whose end is hard to find without reading their lines: a `From ` line after a line of
# carriage returns (blank) or after a space (not blank), a separator as the body's first line,
# a header-like line after a dateless `From `, a body with no newline at the end of the file, a
# line longer than a line piece.
TRICKY_BODIES = BODIES + [
    "one\n\r\r\nFrom x@example.org Tue Nov  1 10:00:00 2022\nnot a header\n",
    "one\n \nFrom nobody Tue Nov  1 10:00:00 2022\n",
    "From nobody Tue Nov  1 10:00:00 2022\nX-Odd: a header line\n",
    "\n\nFrom dateless\nSubject: looks like a header\n\nbody\n",
    "Long " + "y" * 3000 + "\n\nFrom z@example.org Tue Nov  1 10:00:00 2022\n",
    # In 1,024-byte pieces the second piece is blank and the third a separator: the scan's pieces decide.
    "b" * 1024 + "\r" * 1024 + "From x@example.org Tue Nov  1 10:00:00 2022\n",
]


def _scan(path: Path, skip_bodies: bool) -> list:
    with open(path, "rb") as fh:
        kind, skip = index.probe(fh, str(path))
        assert kind == "mbox"
        return list(index.scan_mbox(str(path), fh, skip, str(path), skip_bodies=skip_bodies))


@pytest.mark.parametrize("pieces", [False, True], ids=["whole-lines", "small-pieces"])
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("sep", sorted(SEPARATORS))
def test_bodies_skipped_to_their_end_give_what_reading_every_line_gives(tmp_path, monkeypatch, sep, crlf, pieces):
    if pieces:
        monkeypatch.setattr(index, "_LINE_PIECE", 1024)  # a long body line or a long body: its lines are read
    text = "".join(_mail(i, TRICKY_BODIES[i % len(TRICKY_BODIES)], SEPARATORS[sep]) for i in range(60))
    text = text.rstrip("\n")  # the last line has no newline
    path = tmp_path / "list.mbox"
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode())
    fast = _scan(path, True)
    assert fast == _scan(path, False)
    assert len(fast) >= 60 if sep != "dateless" else len(fast) > 1


def test_bodies_skipped_on_real_archives(tmp_path):
    for src in sorted((FIXTURES / "cases").rglob("*.mbox"))[:60]:
        assert _scan(src, True) == _scan(src, False), src
