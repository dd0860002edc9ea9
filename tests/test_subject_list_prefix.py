"""A mailman list's subject prefix is the list's, not the patch's: `[Intel-wired-lan] [PATCH iwl-net]`
reads as `[PATCH iwl-net]`, and the list's word is no tree tag. Near misses keep their tags."""

from reviewtool.mail.subject import parse_subject


def test_the_lists_prefix_is_set_apart():
    s = parse_subject("[Intel-wired-lan] [PATCH iwl-net v2 1/3] igc: fix the typo in the PTM mask")
    assert (s.list_prefix, s.tags, s.revision, s.counter, s.expected) == ("Intel-wired-lan", ("iwl-net",), 2, 1, 3)
    r = parse_subject("Re: [Intel-wired-lan] [PATCH iwl-next] ice: add a thing")
    assert (r.reply, r.list_prefix, r.tags) == (True, "Intel-wired-lan", ("iwl-next",))
    assert parse_subject("[lvc-project] [PATCH] foo: bar").list_prefix == "lvc-project"


def test_near_misses_keep_their_tags():
    # a lower-case tree tag in its own bracket is the author's route, not a list's prefix
    assert parse_subject("[net-next][PATCH v2] net: foo").tags == ("net-next",)
    # no PATCH bracket after it: an ordinary bracket (a list's own announcement, say)
    plain = parse_subject("[Intel-wired-lan] meeting notes")
    assert (plain.list_prefix, plain.tags) == (None, ("Intel-wired-lan",))
    assert parse_subject("[iptables PATCH] nft: fix").list_prefix is None
