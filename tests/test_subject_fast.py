"""parse_subject's Subject, made without the dataclass's __init__ (mail/subject._subject), is the
object Subject(...) makes: the same fields in the same order, equal, hashed alike, still frozen."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from reviewtool.mail.subject import Subject, _parse_subject, parse_subject

ODD_SUBJECTS = [
    "", "   ", "[PATCH] x", "Re: [PATCH v2 1/3] net: y", "[RFC PATCH net-next v3 02/10] a: b", "[PATCH v0] z",
    "[PATCH 3/2] beyond", "[PATCH 1/2 2/2] twice", "[PATCH 1.2/3] odd", "[iptables PATCH] tag first",
    "[PATCH v2 0/3 foo: bar", "Fwd: Re: AW: [PULL] wireless", "[GIT PULL] net", "[PATCHv4] squashed",
    "[RESEND PATCH] again", "no brackets at all", "[] empty", "[PATCH net,v2] comma", "zoë: [PATCH] ünicode",
]


def _corpus_subjects() -> list[str]:
    from conftest import CORPUS
    from reviewtool.mail.headers import header
    from reviewtool.sources.files import load_messages

    out = []
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            out += [header(m, "Subject") for m in load_messages(path)]
        except Exception:  # not mail: other tests' business
            continue
    return out


@pytest.mark.parametrize("raw", ODD_SUBJECTS)
def test_a_parsed_subject_is_the_dataclass_made_by_init(raw):
    fast = _parse_subject.__wrapped__(raw)
    made = Subject(**{f.name: getattr(fast, f.name) for f in dataclasses.fields(Subject)})
    assert list(vars(fast)) == list(vars(made)) == [f.name for f in dataclasses.fields(Subject)]
    assert vars(fast) == vars(made) and fast == made and hash(fast) == hash(made) and repr(fast) == repr(made)
    assert pickle.loads(pickle.dumps(fast)) == made
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.revision = 2


def test_every_corpus_subject_parses_to_what_init_makes():
    subjects = _corpus_subjects()
    assert len(subjects) > 400
    for raw in subjects:
        fast = _parse_subject.__wrapped__(raw)
        assert vars(fast) == vars(Subject(**vars(fast))), raw


def test_is_reply_subject_is_what_the_parse_says():
    from reviewtool.mail.subject import is_reply_subject

    near = ["Re: x", " re :x", "RE: [PATCH] x", "Aw: y", "Sv: y", "Fwd: z", "Fw: z", "Re[2]: x", "Re : Re: x",
            "Reply: x", "Re x", "[PATCH] Re: x", "re:", "\tRe:\n x", "Rex: y", "Fwd [2]: x"]
    for raw in ODD_SUBJECTS + near + _corpus_subjects():
        assert is_reply_subject(raw) == _parse_subject.__wrapped__(raw).reply, raw


def test_a_list_name_the_subject_does_not_hold_parses_as_none_and_one_it_holds_as_itself():
    """parse_subject remembers one parse for a subject whose list name it does not contain: the
    same Subject the uncached parse gives with that name, for every corpus subject and the
    list-prefix shapes (the name as the first bracket in any case, elsewhere, or not at all)."""
    shapes = ["[LTP] [PATCH v2] foo: bar", "[ltp] [PATCH] x", "[PATCH] ltp: fix [LTP] doc", "[Ltp][PATCH 1/2] y",
              "Re: [LTP] [PATCH] z", "[linux-wireless] [RFC] a", "[PATCH] no list here", "[lt p] [PATCH] q"]
    for raw in shapes + _corpus_subjects()[:400]:
        for name in ("ltp", "LTP", "linux-wireless", "intel-wired-lan", None):
            assert parse_subject(raw, name) == _parse_subject.__wrapped__(raw, name), (raw, name)
    assert parse_subject("[LTP] [PATCH v2] foo: bar", "ltp").summary == "foo: bar"
