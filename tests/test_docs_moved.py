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
    # Issue 19 (profiles follow the files; list conventions as data): the shipped list and the
    # selection order grew.
    ("`wireless` (wireless / wireless-next), `iproute2`", "`wireless` (wireless / wireless-next, fed by the ath, iwlwifi, mt76 and rtw driver trees), `bluetooth` (bluetooth / bluetooth-next), `bluez` (BlueZ user space on linux-bluetooth, no sign-offs), `iproute2`"),
    ("matched as an exact token (`[PATCH bpf-next/net]` is bpf's, never `net`); the repository's default (`git config reviewtool.profile NAME`, or `profile = \"NAME\"` in `.reviewtool.toml`); the first list address",
     "matched as an exact token (`[PATCH bpf-next/net]` is bpf's, never `net`), in any case, or as a tree's former name or a sub-tree (`[PATCH wireless-drivers]`, `[PATCH ath-next]`), unless that profile claims none of the files the series touches and the profile that does reads the tag as one of its own trees (`[PATCH net-next] wifi: ath11k: ...` touching drivers/net/wireless/ is wireless's, read as wireless-next); the repository's default (`git config reviewtool.profile NAME`, or `profile = \"NAME\"` in `.reviewtool.toml`); the profile that claims more than half of the files touched, each file going to the profile with the longest matching path prefix, as in MAINTAINERS (net/netfilter/ is netfilter's, not netdev's; documentation aside; a profile with `select_by_files = false`, such as iproute2, is never chosen this way); the first list address"),
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
    # Issue 14 (tree policy and severities calibrated on real verdicts): rule and policy text updated.
    ("| `subject-format` | warning (error for a `*** SUBJECT HERE ***` cover) | a missing or garbled `[PATCH ...]` prefix (no bracket, unclosed bracket, `[PATCH]:`), a summary without `subsystem:` (reverts and pull requests exempt; profile setting `subject_subsystem = false` turns it off), a summary longer than the profile's `subject_max`, a cover letter not titled `[PATCH ... 0/N] summary`, a tree of the profile placed before PATCH (`[net-next PATCH]`).",
     "| `subject-format` | warning (error for a `*** SUBJECT HERE ***` cover; info for the forms the tools still read) | a missing or garbled `[PATCH ...]` prefix (no bracket, unclosed bracket, `[PATCH]:`, a second `[PATCH ...]` inside the summary), a summary without `subsystem:` (reverts and pull requests exempt; profile setting `subject_subsystem = false` turns it off), a summary longer than the profile's `subject_max` (info up to 100 characters, a warning past it), a cover letter not titled `[PATCH ... 0/N] summary`, a tree tag the profile reads but its tools may not (`-next`, `NET`, `net-nxt`: the profile's `tree_aliases`, another case, one edit away), and as info a tree of the profile placed before PATCH (`[net-next PATCH]`) or a prefix without the PATCH keyword (`[net-next v4 1/2]`)."),
    ('| `commit-message-missing` | warning | a patch whose commit message holds only trailers, or a cover letter with no text or `*** BLURB HERE ***` |',
     '| `commit-message-missing` | warning (info for a change of up to three lines) | a patch whose commit message holds only trailers, or a cover letter with no text or `*** BLURB HERE ***` |'),
    ('`commit <sha> upstream.` and `[ Upstream commit <sha> ]` lines, pasted oopses and indented output are exempt |',
     '`commit <sha> upstream.` and `[ Upstream commit <sha> ]` lines, pasted oopses, crash-utility backtraces, 64-bit addresses, indented output and ids the message already named with their subject are exempt; one finding per patch lists the lines |'),
    ('| `changelog-missing` | warning | a v2+ posting whose cover letter and notes below `---` say nothing about what changed (silent when patches are missing and there is no cover letter, and for pull requests) |',
     '| `changelog-missing` | warning | a v2+ posting whose cover letter and notes below `---` say nothing about what changed (silent when patches are missing and there is no cover letter, when every patch answers a cover letter the input lacks, and for pull requests); `Changes in v2:`, `v2 changes:`, `Version 2 changes:`, `Change since v1:`, `v1...v2: <link>`, `v1 link:` all count |'),
    ('patches are matched across revisions by summary, then patch-id, then a similar summary in the same position |',
     "patches are matched across revisions by summary, then patch-id, then a similar summary in the same position; a reviewer's reply to a posting the input lacks (`Re: [PATCH v2 2/2] <summary>`, its parent absent) counts too, and one sent after this posting is for the next version to carry |"),
    ('| `version-not-bumped` | warning | an older posting of the same revision (same vN and counter: a RESEND, or a repost without a version bump) whose diff or description differs from the newer one |',
     '| `version-not-bumped` | warning | an older posting of the same revision (same vN and counter: a RESEND, or a repost without a version bump) whose diff or description differs from the newer one, or a RESEND that says itself that it changed ("Resend to correct the issues pointed out by Rob") |'),
    ('first list address in To, then Cc, that a profile claims; else `generic`.',
     'first list address in To, then Cc, that a profile claims, a profile with trees before one without (netdev@ in Cc beats LKML in To); else `generic`. Within the chosen profile, a tag written another way still names its tree: another case (`NET`), an alias the profile lists (`tree_aliases`; netdev: `-next`, `next`, `net_next`), or a misspelling one edit away from a tree name of five or more letters (`net-nxt`); `subject-format` reports the form.'),
    ('Fixes counts as new work), `repost_min_hours`; also `test_paths`, `docs_paths` and\n`untagged_prefixes` (subjects exempt from a tree tag, e.g. `"can: "`) at the profile level.',
     'Fixes counts as new work), `repost_min_hours`, `untagged_tree` (the tree untagged patches go to,\nso a missing tag is only noted on fixes; wireless: `wireless-next`); also `test_paths`, `docs_paths` and\n`untagged_prefixes` (subjects exempt from a tree tag, e.g. `"can: "`) at the profile level.'),
    ('| `wrong-tree` | a patch, or the whole series, belongs in another tree (`tree-mismatch`, `fix-for-next-only-code`, `split-series`) | which patches to send where, in which order |',
     '| `wrong-tree` | a patch, or the whole series, belongs in another tree (`tree-mismatch` on what the diff or history shows, `fix-for-next-only-code`, `split-series`), or one patch touches files of several trees (`patch-spans-trees`) | which patches to send where, in which order |'),
    ('| `ready` | no error-level finding | review the code and apply it (to the tree named) |',
     '| `ready` | no error-level finding | review the code and apply it (to the tree named); a tree doubt, or a closed tree the patch was inferred to belong in, comes first ("Settle the tree before applying: ...") |'),
    ('| `fixes-missing` | a patch that reads as a fix, or any code patch for a fixes tree, has no Fixes tag (test-only and docs-only patches are exempt; a Fixes tag given in a reply counts) |',
     '| `fixes-missing` | a patch that reads as a fix, or any code patch for a fixes tree, has no Fixes tag (test-only and docs-only patches are exempt; a Fixes tag given in a reply counts). A warning: maintainers take fixes without the tag and ask in review; a preparation that travels with a fix of its series is a note, and so is a stable backport |'),
    ('| `net-next-closed` | development work posted while the merge window had the tree closed (RFCs exempt) |',
     "| `net-next-closed` | development work posted while the tree was closed (the merge window, or a closure the profile lists; RFCs exempt): an error when the posting names the closed tree, a warning when a clean-up sent to the fixes tree or an untagged patch reads as new work |\n| `fixes-not-needed` | a Fixes tag on a change that fixes no bug: a comment-only diff, a removal of unused code, a message that says no caller can hit it or that it is a clean-up, a patch the cover letter calls a clean-up |\n| `patch-spans-trees` | one patch touches devicetree sources or bindings and other code (the groups are the profile's `separate_paths`, by default `reviewtool/data/separate-paths.toml`): split it per tree |"),
    # Issue 16 (the triage result store): its options, and the plain speed benchmark runs without it.
    ("terminal).", "terminal), `--store PATH`, `--no-store`, `--store-info` (the [result store](#the-result-store))."),
    ("runs `reviewtool triage --format json` on each", "runs `reviewtool triage --format json --no-store` on each"),
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
