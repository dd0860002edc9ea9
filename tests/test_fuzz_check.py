"""Property-based hardening: random and mutated real mail through the parsers and the whole
`check` path must give a review (exit 0/1) or a one-line error (exit 2), never a traceback
(which the CLI turns into exit 3)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import CORPUS, FIXTURES
import hardening

from reviewtool.model.diff import parse_basement
from reviewtool.mail.subject import parse_subject
from reviewtool.model.trailers import parse_person, split_commit_message

SEEDS = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".mbox", ".gz"))
REGRESSIONS = FIXTURES / "regressions"


def _seed_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


SEED_DATA = [_seed_bytes(p) for p in SEEDS][:200]
FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    """Byte-level damage of the kinds real mail suffers: flips, cuts, NULs, CR, 8-bit, dups."""
    buf = bytearray(data)
    for kind, pos, val in ops:
        if not buf:
            break
        i = pos % len(buf)
        if kind == 0:
            buf[i] = val
        elif kind == 1:
            del buf[i: i + (val % 64) + 1]
        elif kind == 2:
            buf[i:i] = b"\x00"
        elif kind == 3:
            buf[i:i] = b"\r\n"
        elif kind == 4:
            buf = buf[:i]
        elif kind == 5:
            buf[i:i] = bytes([0xC3, 0x28, 0xFF, 0xFE])
        elif kind == 6:
            buf[i:i] = buf[max(0, i - 200): i]
        elif kind == 7:
            buf[i:i] = b"\n=?utf-8?b?" + bytes([val]) * 3 + b"?=\n"
    return bytes(buf)


def _check_bytes(cli, tmp: Path, data: bytes, name: str = "fuzz.mbox"):
    hardening.tried(data)
    path = tmp / name
    path.write_bytes(data)
    res = cli("check", str(path), "--format", "json")
    assert res.code in (0, 1, 2), f"exit {res.code}: {res.err}"
    if res.code == 2:
        assert res.err.count("\n") == 1 and res.err.startswith("reviewtool: "), res.err
    return res


@FUZZ
@given(seed=st.integers(0, max(len(SEED_DATA) - 1, 0)),
       ops=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 10**7), st.integers(0, 255)),
                    min_size=1, max_size=6))
def test_mutated_corpus_mail(cli, tmp_path_factory, seed, ops):
    tmp = tmp_path_factory.mktemp("fz")
    _check_bytes(cli, tmp, _mutate(SEED_DATA[seed], ops))


HEADER = st.sampled_from(["From", "Subject", "Message-ID", "In-Reply-To", "References", "Date",
                          "Content-Type", "Content-Transfer-Encoding", "To", "Cc"])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@FUZZ
@given(headers=st.lists(st.tuples(HEADER, TEXT), max_size=8), body=st.text(max_size=400),
       subject=TEXT)
def test_generated_mail(cli, tmp_path_factory, headers, body, subject):
    lines = [f"Subject: [PATCH] {subject}".replace("\n", " ")]
    lines += [f"{k}: {v}".replace("\n", " ").replace("\r", " ") for k, v in headers]
    data = ("\n".join(lines) + "\n\n" + body + "\n---\n" +
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").encode("utf-8", "surrogatepass")
    _check_bytes(cli, tmp_path_factory.mktemp("gen"), data)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_subject_parser_total(text):
    s = parse_subject(text)
    assert s.revision >= 1 and isinstance(s.summary, str)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=600))
def test_commit_message_parser_total(text):
    parts = split_commit_message(text)
    assert all(t.lineno >= 1 for t in parts.trailers)
    parse_person(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=800))
def test_diff_parser_total(text):
    basement = parse_basement("diff --git a/f b/f\n--- a/f\n+++ b/f\n" + text)
    assert basement.diff.has_diff


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*")), ids=lambda p: p.name)
def test_kept_regressions(cli, tmp_path, path):
    """Inputs that once crashed reviewtool; kept so they never do again."""
    _check_bytes(cli, tmp_path, path.read_bytes(), path.name)
