"""Patches sent without threading are one series, in check as in triage (patchwork's rule)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from reviewtool.sources.unthreaded import UNTHREADED_WINDOW_S, join_unthreaded, unthreaded_marker

SERIES = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "mbox" / "patchwork" / "series"


@pytest.mark.parametrize("name", ["base-no-references.mbox", "base-no-references-no-cover.mbox",
                                  "revision-unlabeled-noreferences.mbox"])
def test_check_reviews_every_patch_of_an_unthreaded_series(cli, name):
    data = cli("check", str(SERIES / name), "--format", "json").json
    assert data["series"]["expected"] == 2
    assert data["series"]["received"] == [1, 2] and data["series"]["missing"] == []
    assert [p["counter"] for p in data["patches"]] == [1, 2]


class Subj(NamedTuple):
    counter: int | None
    expected: int | None
    revision: int = 1
    tags: tuple[str, ...] = ()


class Post(NamedTuple):
    name: str
    sender: str
    subj: Subj
    when: float


def groups(posts):
    out = join_unthreaded(posts, lambda p: unthreaded_marker([(p.sender, p.subj)]), lambda p: {p.subj.counter},
                          lambda p: p.when)
    return [[p.name for p in g] for g in out]


def test_join_rule():
    a = "a@example.org"
    posts = [Post("a2", a, Subj(2, 3), 100), Post("a1", a, Subj(1, 3), 50), Post("a3", a, Subj(3, 3), 200),
             Post("b1", "b@example.org", Subj(1, 3), 60),  # another sender: its own series
             Post("a1-again", a, Subj(1, 3), 300),  # a counter seen twice: a new posting starts
             Post("late", a, Subj(2, 3), 300 + UNTHREADED_WINDOW_S + 1),  # too late for that posting
             Post("single", a, Subj(None, None), 70),  # one patch alone is never joined
             Post("cover", a, Subj(0, 3), 45),  # the cover letter leads its series, as in patchwork
             Post("cover-2", a, Subj(0, 2), 46)]  # a cover of another total: its own series
    assert groups(posts) == [["single"], ["cover", "a1", "a2", "a3"], ["a1-again"], ["late"], ["b1"], ["cover-2"]]


def test_an_unthreaded_cover_letter_leads_its_series_in_check_and_triage(cli, tmp_path):
    """`git send-email --no-thread` of a cover letter and three patches: four unrelated mails.
    check reviews one series with its cover letter; triage lists one series, not two."""
    from mailfactory import series_mails, thread, write

    path = write(tmp_path, thread(*series_mails(3, tree="net-next"), thread_to_first=False))
    data = cli("check", str(path), "--format", "json").json
    assert data["series"]["has_cover"] is True
    assert data["series"]["received"] == [1, 2, 3] and data["series"]["missing"] == []
    report = cli("triage", str(path), "--format", "json").json
    assert len(report["series"]) == 1
    assert report["series"][0]["has_cover"] is True
