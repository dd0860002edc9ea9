"""The fast paths of the phrase table and the path checks answer as the plain ones do.

`Meaning.first` skips every phrase whose required literal is missing from the texts (tested with
`map(str.__contains__)`), and tries each phrase left only on the texts that hold its literal; a
plain reading tries every phrase on every text. The profile's path
checks take a tuple of prefixes in one `startswith`; the plain check tries each prefix in turn.
`file_owner` picks the profiles that may own files once per series, not once per file.
"""

from __future__ import annotations

from dataclasses import replace

from reviewtool.context.phrases import PhraseHit, table
from reviewtool.context.profiles.profile import Profile
from reviewtool.rules.body import _only_asides

# Tricky texts: case changes, literals split across texts, negations and contrasts near a phrase,
# phrases only in the second text, and texts with no phrase at all.
TEXTS = (
    ("Fix a NULL pointer dereference in the RX path.",),
    ("This does not cause a crash.", "But a Use-After-Free happens on resume."),
    ("We assumed this could not happen, but syzbot hits it.",),
    ("cleanup", "Remove UNUSED variable", "no functional change intended"),
    ("Typo fix.", "Fix a memory LEAK when probe fails", "Avoids any future deadlock."),
    ("KASAN: slab-out-of-bounds in ieee80211_rx", "BUG: kernel NULL pointer dereference, address: 0"),
    ("Please fix the indentation and resend.", "Applied to wireless-next, thanks!", "NACK"),
    ("Reported-by: syzbot", "This results in a leak", "this typically results in resource leaks"),
    ("", " ", "withdrawn", "I'll send a v2 with that fixed"),
    ("No regression in throughput.", "This is a REGRESSION since v6.0"),
    # a literal in one text and the words around it in another: no phrase spans texts
    ("The driver leaks", "memory on every probe failure.", "A use-after", "free in the RX path"),
    ("This fixes a use-after-free.", "no functional change"),
)


def _plain_first(meaning, texts) -> PhraseHit | None:
    """Every phrase on every text, in text order then phrase order: no literal pre-filter."""
    for text in texts:
        for p in meaning.phrases:
            for m in p.pattern.finditer(text):
                if meaning._counts(text, m, p):
                    return PhraseHit(meaning.name, p.id, m.group(0), text, p.whole_series)
    return None


def test_first_matches_the_plain_reading():
    seen = 0
    for meaning in table().values():
        for texts in TEXTS:
            fast, plain = meaning.first(texts), _plain_first(meaning, texts)
            assert fast == plain, (meaning.name, texts)
            seen += fast is not None
    assert seen >= 10  # the texts do find phrases: the comparison is not of Nones only


def test_all_matches_the_plain_reading():
    for meaning in table().values():
        for texts in TEXTS:
            plain: dict[str, PhraseHit] = {}
            for text in texts:
                for p in meaning.phrases:
                    m = next((m for m in p.pattern.finditer(text) if meaning._counts(text, m, p)), None)
                    if m is not None and p.id not in plain:
                        plain[p.id] = PhraseHit(meaning.name, p.id, m.group(0), text, p.whole_series)
            assert sorted(meaning.all(texts), key=lambda h: h.phrase) == sorted(plain.values(), key=lambda h: h.phrase)


def test_live_phrases_match_the_generator_check():
    for meaning in table().values():
        for texts in TEXTS:
            joined = " ".join(texts)
            low = joined.lower()
            plain = [p for p in meaning.phrases
                     if p.needs is None or any(n in (low if p.fold else joined) for n in p.needs)]
            assert meaning._live(joined) == plain


def test_path_checks_match_the_prefix_loop():
    profile = replace(Profile(name="x"), paths=["drivers/net/wireless/", "net/mac80211/"],
                      excluded_paths=("drivers/net/wireless/ath/ath9k/",), test_paths=["tools/testing/"],
                      docs_paths=("Documentation/", "MAINTAINERS"))
    for path in ("drivers/net/wireless/ath/ath9k/main.c", "drivers/net/wireless/mt76/mac.c", "MAINTAINERS",
                 "MAINTAINERS.bak", "Documentation/x.rst", "tools/testing/a.sh", "net/mac80211", "", "n"):
        owns = (not any(path.startswith(p) for p in profile.excluded_paths)
                and any(path.startswith(p) for p in profile.paths))
        assert profile.owns(path) == owns, path
        assert profile.is_test_path(path) == any(path.startswith(p) for p in profile.test_paths), path
        assert profile.is_docs_path(path) == any(path == p or path.startswith(p) for p in profile.docs_paths), path


def test_only_asides_without_a_parenthesis_is_false():
    assert not _only_asides("Drop the unused field.")
    assert not _only_asides("")
    assert _only_asides("(Found by inspection.) (Untested.)")
    assert not _only_asides("Drop it (foo() never reads it).")


def test_file_owner_matches_the_per_prefix_reading():
    from reviewtool.context.profiles.parts import TreeSpec
    from reviewtool.context.profiles.profile import DEFAULT_DOCS_PATHS
    from reviewtool.context.profiles.select import _claim, file_owner

    tree = (TreeSpec(name="t", kind="main"),)
    wifi = replace(Profile(name="wifi"), trees=tree, paths=("drivers/net/wireless/", "net/mac80211/"),
                   excluded_paths=["drivers/net/wireless/ath/"])  # a list, as a hand-built profile may give
    ath = replace(Profile(name="ath"), trees=tree, paths=("drivers/net/wireless/ath/",))
    net = replace(Profile(name="net"), trees=tree, paths=("drivers/net/", "net/"))
    off = replace(Profile(name="off"), paths=("drivers/",))  # no trees: never an owner
    profiles = {p.name: p for p in (wifi, ath, net, off)}
    paths = ("drivers/net/wireless/ath/ath9k/main.c", "drivers/net/wireless/mt76/mac.c", "net/mac80211/rx.c",
             "net/core/dev.c", "drivers/gpu/x.c", "MAINTAINERS", "MAINTAINERS.bak", "Documentation/a.rst", "")

    def plain_claim(p, path):
        if any(path.startswith(x) for x in p.excluded_paths):
            return 0
        return max((len(x) for x in p.paths if path.startswith(x)), default=0)

    def plain_owner(chosen):
        chosen = [x for x in dict.fromkeys(chosen) if x]
        code = [x for x in chosen if not any(x.startswith(d) or x == d for d in DEFAULT_DOCS_PATHS)] or chosen
        tally = {}
        for path in code:
            best = max(((plain_claim(p, path), p.name) for p in profiles.values() if p.trees and p.select_by_files),
                       default=(0, ""))
            if best[0]:
                tally.setdefault(best[1], []).append(path)
        if not tally:
            return None
        name, owned = max(tally.items(), key=lambda kv: len(kv[1]))
        return (profiles[name], owned[0]) if len(owned) * 2 > len(code) else None

    for p in profiles.values():
        for path in paths:
            assert _claim(p, path) == plain_claim(p, path), (p.name, path)
    owners = set()
    for n in range(len(paths)):
        for chosen in (paths[n:], paths[:n + 1], paths[n:n + 3], paths[::n + 1], paths[n:n + 1]):
            assert file_owner(profiles, chosen) == plain_owner(chosen), chosen
            owners.add(None if plain_owner(chosen) is None else plain_owner(chosen)[0].name)
    assert {"wifi", "ath", "net", None} <= owners  # the comparison is not of Nones only
