"""The earlier copies of a reposted patch are read by b4fast (b4adapter._reposts): the Patches
must be those b4's own LoreMessage gives, on every patch mail of the fixture threads and on
hostile ones."""

from __future__ import annotations

import copy

import pytest

from reviewtool.model import b4adapter, b4fast
from reviewtool.sources.b4fetch import init_b4
from reviewtool.sources.files import load_messages
from test_b4mailbox import THREADS


@pytest.fixture(scope="module", autouse=True)
def _b4():
    init_b4()


def _both(msgs, monkeypatch):
    ours = b4adapter._reposts(copy.deepcopy(msgs))
    with monkeypatch.context() as m:
        m.setattr(b4fast, "usable", lambda _b4: False)
        theirs = b4adapter._reposts(copy.deepcopy(msgs))
    return ours, theirs


def test_every_fixture_mail_reads_as_b4_reads_it(monkeypatch):
    total = 0
    for path in THREADS:
        msgs = load_messages(path)
        ours, theirs = _both(msgs, monkeypatch)
        assert ours == theirs, path.name
        total += len(ours)
    assert total > 150


HOSTILE = [b"Subject: [PATCH] no id\n\nbody\n",
           b"Message-ID: <1@x>\nSubject: =?bogus?q?x?= [PATCH 1/2] y\nFrom: ???\nDate: never\n\n"
           b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
           b"Message-ID: <2@x>\nSubject: [PATCH v2 1/1] z\nContent-Type: text/plain; charset=nonesuch\n"
           b"Content-Transfer-Encoding: base64\n\nZGlmZiAtLWdpdCBhL2YgYi9m\n"]


def test_hostile_mails_read_as_b4_reads_them(monkeypatch):
    import email

    from reviewtool.mail.headers import MAIL_POLICY

    msgs = [email.message_from_bytes(raw, policy=MAIL_POLICY) for raw in HOSTILE]
    ours, theirs = _both(msgs, monkeypatch)
    assert ours == theirs
