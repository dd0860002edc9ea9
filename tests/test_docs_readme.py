"""The README is the first page: short, its set-up commands as they always were, its example
true, and every page of docs/ one link away; no link of README.md or docs/ leads nowhere."""

from __future__ import annotations

import re

from conftest import FIXTURES, ROOT

README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
SETUP = ["pip install . && reviewtool check fixtures/examples/net-foo-3-patches.mbox", "sh tests/run.sh"]
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def fenced(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block."""
    blocks, lang, body = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, body = line[3:].strip(), []
            else:
                blocks.append((lang, "\n".join(body)))
                lang = None
        elif lang is not None:
            body.append(line)
    return blocks


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path) -> set[str]:
    text = re.sub(r"^```.*?^```$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}


def test_readme_is_short_and_links_every_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert len(PAGES) >= 10
    for page in PAGES:
        assert f"](docs/{page.name})" in text, f"README.md does not link docs/{page.name}"


def test_readme_keeps_exactly_the_two_setup_commands():
    setup = section(README.read_text(encoding="utf-8"), "Set-up")
    assert fenced(setup) == [("sh", command) for command in SETUP]


def test_every_link_resolves(tmp_path):
    for page in [README, *PAGES]:
        for target in LINK_RE.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # an outside URL (or mailto:): not followed, no network in tests
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: link to {target}: no such file"
            if anchor:
                assert anchor in anchors(dest), f"{page.name}: link to {target}: no such heading"


def test_readme_example_is_the_real_review(tmp_path, cli):
    text = README.read_text(encoding="utf-8")
    example = fenced(section(text, "What a review looks like"))[0][1].splitlines()
    out = tmp_path / "review.txt"
    res = cli("check", FIXTURES / "examples" / "net-foo-3-patches.mbox", "--output", out)
    assert res.code == 1  # "It exits 1", as the set-up says
    real = out.read_text(encoding="utf-8").splitlines()
    shown = [line for line in example if line != "[...]"]
    assert len(shown) > 10
    pos = 0
    for line in shown:  # every line shown is a line of the review, in the review's order
        assert line in real[pos:], f"README example line not in the review (or out of order): {line!r}"
        pos = real.index(line, pos) + 1
