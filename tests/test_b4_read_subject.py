"""b4fast.read_subject hands out b4's own reading of a subject, shared: it must read as a fresh
b4.LoreSubject does, and the messages made afterwards (which copy it) must leave it unchanged."""

from __future__ import annotations

import email
import email.policy

import pytest

from reviewtool.model import b4fast
from reviewtool.sources.b4fetch import init_b4

SUBJECTS = ["[PATCH v2 3/7] wifi: ath11k: fix", "Re: [PATCH] x", "[PATCH nft,v2] a", "[net,v2,1/2] b",
            "[PATCH RFC RESEND v3 0/6] c", "=?utf-8?q?J=C3=B6rg?= [PATCH] d", "[PATCH 1/2 v4] e",
            "Aw: [PATCH] f", "[RFC][PATCH 01/10] g", "[PATCH v99999] h", "[[[[PATCH]]]] i", "", "   "]


@pytest.fixture(scope="module", autouse=True)
def _b4():
    init_b4()


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_shared_reading_is_b4s_and_stays_so(subject):
    import b4

    shared = b4fast.read_subject(b4, subject)
    assert vars(shared) == vars(b4.LoreSubject(subject))
    msg = email.message_from_string(f"Message-ID: <1@x>\nSubject: {subject}\nFrom: A <a@b.c>\n\nbody\n",
                                    policy=email.policy.default)
    lmsg = b4fast.lore_message(b4, msg)
    lmsg.lsubject.prefixes.append("CHANGED")  # what get_series may do to a message's subject
    lmsg.lsubject.revision = 99
    assert vars(b4fast.read_subject(b4, subject)) == vars(b4.LoreSubject(subject))
