"""What `profile learn` writes reads back as `--profile` reads it, whatever the archive's mail
named: control and bidi characters, TOML syntax and quotes in every learned field (issue 32 4.,
issue 28 1.). A name with control or format characters is left out, and said; other odd text is
escaped and reads back as it was."""

from __future__ import annotations

import itertools

import pytest

from reviewtool.context.profiles.file import read_profile_text
from reviewtool.learn.learned_profile import LearnedProfile
from reviewtool.learn.write import drop_unseen_names, render

HOSTILE = ["e\x1bvil", "nul\x00l", "del\x7f", "bidi\u202eegap", "zw\u200bj", '"]\n[profiles.x]\nname = "y',
           "back\\slash", "#comment", "new\nline", "tab\tbed", "ünï", "a" * 300]


def _profile(text: str) -> LearnedProfile:
    lp = LearnedProfile(name="learned")
    lp.lists = [f"list-{text}@example.org"]
    lp.trees = [{"name": f"net-{text}", "kind": "fixes", "source": f"seen {text}"},
                {"name": "net-next", "kind": "development", "source": "bot"}]
    lp.appliers = [f"{text}@example.org", "kuba@kernel.org"]
    lp.tree_aliases = {f"alias-{text}": "net-next"}
    lp.description = f"learned from {text}"
    lp.left_out.append(f"a tag {text}")
    lp.note("trees", f"evidence {text}")
    return lp


@pytest.mark.parametrize("text", HOSTILE)
def test_every_learned_field_reads_back(text):
    lp = _profile(text)
    drop_unseen_names(lp)
    out = render([lp], [f"header {text}"])
    (profile,) = read_profile_text(out, "learned.toml").profiles
    unseen = any(ord(c) < 32 and c != "\t" or c in "\x7f\u202e\u200b" for c in text)
    names = {t.name for t in profile.trees}
    assert ("net-next" in names) and ((f"net-{text}" in names) != unseen or "\n" in text), names
    if unseen:
        assert any("control or format characters" in x for x in lp.left_out)
        assert not any(ord(c) < 32 and c not in "\t\n" or c in "\x7f\u202e" for c in out)  # nothing a terminal acts on


def test_two_hostile_profiles_in_one_file_read_back():
    for a, b in itertools.combinations(HOSTILE[:6], 2):
        one, two = _profile(a), _profile(b)
        two.name = "second"
        for lp in (one, two):
            drop_unseen_names(lp)
        assert len(read_profile_text(render([one, two], []), "learned.toml").profiles) == 2
