"""The changed lines of a diff are read from its text beside unidiff's metadata parse
(model/diff.py); they must be exactly what unidiff's full parse gives, on every diff of the corpus
and on generated hunks, and anything unusual must fall back to the full parse."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from conftest import CORPUS, FIXTURES
from reviewtool.model.diff import _changed_lines, _file_change, _parse_files, parse_basement
from reviewtool.sources.files import load_messages


def full_parse(diff_text: str):
    return tuple(_file_change(pf) for pf in PatchSet(diff_text))


def corpus_diffs() -> list[str]:
    from reviewtool.model.assemble import split_body
    from reviewtool.model.own import _body

    out = []
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")) + \
            sorted((FIXTURES / "examples").glob("*.mbox")):
        try:
            msgs = load_messages(path)
        except Exception:  # corpus files that are not mail at all are other tests' business
            continue
        for msg in msgs:
            below = split_body(_body(msg))[1].replace("\r\n", "\n")
            start = below.find("diff --git ")
            if start >= 0:
                out.append(below[start:])
    return out


def test_every_corpus_diff_reads_as_unidiff_reads_it():
    diffs = corpus_diffs()
    assert len(diffs) > 200
    fast = 0
    for text in diffs:
        try:
            expected = full_parse(text)
        except (UnidiffParseError, ValueError, IndexError):
            continue
        assert _parse_files(text)[1] == expected
        fast += _changed_lines(text.split("\n"), PatchSet(text, metadata_only=True)) is not None
    assert fast > 0.9 * len(diffs)  # the text reading is the common path, not the fallback


HUNK_LINE = st.one_of(st.builds(lambda t: "+" + t, st.text(max_size=8)),
                      st.builds(lambda t: "-" + t, st.text(max_size=8)),
                      st.builds(lambda t: " " + t, st.text(max_size=8)),
                      st.just(""), st.just("\\ No newline at end of file"), st.just("-- "), st.just("@@ x"))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(HUNK_LINE, max_size=12), st.integers(0, 6), st.integers(0, 6))
def test_generated_hunks_read_as_unidiff_reads_them(body, old, new):
    """Bodies of any shape under headers with any counts: the two readings agree, or the full
    parse decides (including its errors)."""
    text = f"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,{old} +1,{new} @@\n" + "\n".join(
        line.replace("\n", " ").replace("\r", " ") for line in body) + "\n"
    try:
        expected = full_parse(text)
    except (UnidiffParseError, ValueError, IndexError):
        with pytest.raises((UnidiffParseError, ValueError, IndexError)):
            _parse_files(text)
        return
    assert _parse_files(text)[1] == expected


def test_a_form_feed_and_carriage_return_stay_inside_their_line():
    text = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\x0cb\n+c\rd\n x\n-- \n2.39.0\n"
    files = parse_basement(text).diff.files
    assert files[0].removed_lines == ("a\x0cb",) and files[0].added_lines == ("c\rd",)
    assert files == full_parse(text)
