"""Nothing of the README before the split into docs/ was lost.

The README of ORIGINAL (the last commit before the split) is cut into units: every paragraph,
list item, table row, heading and line of a code block. Each must appear, whitespace aside, in
README.md or a hand-written docs/*.md page (docs/rules.md is generated and does not count): as
it was; or after the EDITS below, each an edit made so that a page reads on its own; or sentence
by sentence, for a paragraph whose sentences went to different pages. DROPPED lists what was
left out on purpose, and why. When a later change rewrites a moved text, record the edit here.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import ROOT

ORIGINAL = "c261af2d4dbb523cdee0aafabac1fb4100682c72"  # README.md before the split

# (old, new): replacements made in moved text, applied to an original unit before it is sought.
EDITS: list[tuple[str, str]] = [
    # README: "what reviewtool is" in three sentences.
    ("A review assistant for patch series", "reviewtool is a review assistant for patch series"),
    ("a concrete next step. When it cannot know", "a concrete next step, and when it cannot know"),
    # check.md: the cache paragraph opens its own section, "Caches", that other pages link to.
    ("**Cache.** Fetched threads", "Fetched threads"),
    ('(see "Cache")', "(see [Caches](check.md#caches))"),
    # fixes-audit.md: "above" and "as for check" are on another page now.
    ("the fixes rules above plus", "the fixes rules of `check`'s [history checks](check.md#history-checks---repo---tree) plus"),
    ("Exit codes as for `check`.", "Exit codes as for `check` ([exit codes](check.md#exit-codes))."),
    # profiles.md: the verdict's JSON, on a page of its own, says which commands write it.
    ("`--format json` adds:", "`--format json` (of `check`, `lint` and, per series, `triage`) adds:"),
    # performance.md: the overview table links to its sections; "How:" became a heading.
    ('see "Lint speed"', "see [Lint speed](#lint-speed)"),
    ('see "Limits"', "see [Limits](#limits)"),
    ("How: every git question", "Every git question"),
    # development.md: the fetch tests' paragraph, under "Tests" there.
    ("**Tests.** `tests/pi_server.py`", "Fetching is tested against a real archive server: `tests/pi_server.py`"),
]

# Headings renamed: old -> new (a heading must be a heading of some page, not just a phrase in one).
HEADINGS: dict[str, str] = {
    "reviewtool": "reviewtool",
    "`reviewtool check`": "`reviewtool check`: review one series",
    "Benchmark": "`fixes-audit` on 100,100 commits",
    "Rules": "Rule families",
    "Triage: speed": "Triage speed",
    "Speed": "Performance and limits",
}

# The start of an original unit left out on purpose -> why.
DROPPED: dict[str, str] = {}


def units(text: str) -> list[tuple[str, str]]:
    """(kind, text) for every paragraph, list item, table row, heading and code line."""
    out: list[tuple[str, str]] = []
    block: list[str] = []
    kind = "paragraph"
    fence = False

    def flush():
        nonlocal block
        if block:
            out.append((kind, " ".join(block)))
        block = []

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            fence = not fence
            continue
        if fence:
            if stripped:
                out.append(("code", stripped))
            continue
        if not stripped:
            flush()
        elif stripped.startswith("#"):
            flush()
            out.append(("heading", stripped.lstrip("#").strip()))
        elif stripped.startswith("|"):
            flush()
            if not re.fullmatch(r"\|[\s:|-]+\|", stripped):
                out.append(("table row", stripped))
        elif m := re.match(r"([-*]|\d+\.)\s+(.*)", stripped):
            flush()
            kind, block = "list item", [m.group(2)]
        else:
            if not block:
                kind = "paragraph"
            block.append(stripped)
    flush()
    return out


def norm(text: str) -> str:
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.:;])\s+(?=[A-Z`(*\"])", text) if s]


def found(unit: str, corpus: str) -> bool:
    """The unit as it was, or as edited, is in the corpus whole or sentence by sentence."""
    edited = norm(unit)
    for old, new in EDITS:
        edited = edited.replace(norm(old), norm(new))
    return any(u in corpus or all(s in corpus for s in sentences(u)) for u in {norm(unit), edited})


def headings(text: str) -> set[str]:
    return {norm(t) for kind, t in units(text) if kind == "heading"}


def original_readme() -> str:
    """The README as it was at ORIGINAL, kept in fixtures/ so a shallow clone checks it too."""
    return (ROOT / "fixtures" / "docs" / "README-before-split.md").read_text(encoding="utf-8")


def test_the_kept_copy_is_the_original_readme():
    res = subprocess.run(["git", "-C", str(ROOT), "show", f"{ORIGINAL}:README.md"], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"commit {ORIGINAL} is not in this clone (a shallow clone or a tarball)")
    assert res.stdout == original_readme()


def test_every_fact_of_the_old_readme_is_on_some_page():
    pages = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "rules.md")
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    corpus, titles = norm(text), headings(text)
    todo = units(original_readme())
    assert len(todo) > 300  # the whole README was read, not an empty or truncated one
    missing = [f"{kind}: {t[:160]}" for kind, t in todo
               if not (HEADINGS.get(norm(t), norm(t)) in titles if kind == "heading" else found(t, corpus))
               and not any(t.startswith(d) for d in DROPPED)]
    assert not missing, f"{len(missing)} of {len(todo)} units of the old README are on no page:\n" + "\n".join(missing)


def test_the_checker_finds_what_is_missing():
    corpus = norm("One sentence here. Another one there.\n| a | b |")
    assert found("One sentence here.", corpus) and found("| a | b |", corpus)
    assert found("Another one there.  One sentence\nhere.", corpus)  # split across pages
    assert not found("A sentence nobody kept.", corpus) and not found("| a | c |", corpus)
    assert units("# T\n\ntext\nmore\n\n- item\n  cont\n\n| x |\n|---|\n\n```\ncode\n```\n") == [
        ("heading", "T"), ("paragraph", "text more"), ("list item", "item cont"), ("table row", "| x |"),
        ("code", "code")]
