"""`check -f email` is a reply to the author: on every shared verdict case (netdev's, copied into
fixtures/; linux-wireless's, read from ../shared beside the checkout when it is there, as in CI),
no line of it tells the maintainer what to do (apply, review, pick up trailers, ask the author)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT

CASES = sorted((ROOT / "fixtures" / "cases" / "verdicts").glob("*.mbox"))
SHARED = sorted((ROOT.parent / "shared" / "cases").glob("*/verdicts/*.mbox"))

# The maintainer's acts, as a next step would name them: written here, apart from the renderer's
# own filter, so that a new phrasing of them fails this test rather than passing both.
MAINTAINERS_ACTS = re.compile(
    r"\b(?:apply it|(?:before|when|while) applying|applying (?:this|it|the patch)|review (?:it|the code) yourself|"
    r"pick up|ask (?:the author|for a resend|for the missing)|wait for (?:a review|the author|a new revision)|"
    r"mention the \d+ warnings?|in the review)\b", re.I)


def _said(text: str) -> str:
    """The reply's own prose: no headers, no quoted lines, wrapped lines joined."""
    body = text.split("\n\n", 1)[1] if "\n\n" in text else text
    return " ".join(line.strip() for line in body.splitlines() if not line.startswith(">"))


@pytest.mark.parametrize("mbox", CASES + SHARED, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_the_email_reply_says_nothing_to_the_maintainer(cli, mbox, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no repository around: the reply rests on the mail alone
    res = cli("check", str(mbox), "--format", "email")
    assert res.code in (0, 1), res.err
    found = MAINTAINERS_ACTS.findall(_said(res.out))
    assert not found, f"{mbox.name}: {found}"


def test_the_cases_are_there():
    assert len(CASES) >= 30  # the netdev verdicts' copies; a glob that finds nothing proves nothing
