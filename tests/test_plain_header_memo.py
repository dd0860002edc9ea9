"""The policy's remembered plain header texts read as a first fetch does, on tricky values:
encoded words, folding, CRLF, dates, addresses, a value changed in place."""

import email

from reviewtool.mail import headers
from reviewtool.mail.headers import MAIL_POLICY

RAW = (b"From: =?utf-8?q?J=C3=B6rg?= <j@example.org>\r\n"
       b"To: a@example.org,\r\n  \"B, C\" <b@example.org>\r\n"
       b"Subject: [PATCH v2 1/3] wifi: =?utf-8?b?w6TDtsO8?=\r\n  folded tail\r\n"
       b"Date: Tue, 5 Jul 2022 10:00:00 +0200\r\n"
       b"Message-ID: <1.2@example.org>\r\n"
       b"In-Reply-To: <0.2@example.org>\r\n"
       b"X-Odd: tab\there\r\n"
       b"Cc: undisclosed-recipients:;\r\n"
       b"References: <0.1@example.org>\r\n <0.2@example.org> (comment)\r\n"
       b"Content-Type: text/plain; charset=\"utf-8\"\r\n"
       b"X-Raw: caf\xc3\xa9 \xff raw\r\n"
       b"\r\nbody\r\n")
NAMES = ("From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "X-Odd", "subject", "date", "Cc",
         "References", "Content-Type", "X-Raw")


def _texts(msg):
    return [str(msg.get(n)) for n in NAMES]


def test_remembered_texts_equal_first_reads():
    headers._PLAIN_FETCHED.clear()
    first = _texts(email.message_from_bytes(RAW, policy=MAIL_POLICY))
    assert headers._PLAIN_FETCHED  # the plain ones were remembered
    assert headers._NOT_PLAIN in headers._PLAIN_FETCHED.values()  # and some not plain
    again = _texts(email.message_from_bytes(RAW, policy=MAIL_POLICY))
    headers._PLAIN_FETCHED.clear()
    fresh = _texts(email.message_from_bytes(RAW, policy=MAIL_POLICY))
    assert first == again == fresh
    # and as the email package's own policy reads them
    stock = email.message_from_bytes(RAW, policy=email.policy.EmailPolicy(utf8=True))
    assert fresh == [str(stock.get(n)) for n in NAMES]


def test_a_changed_value_is_read_anew():
    msg = email.message_from_bytes(RAW, policy=MAIL_POLICY)
    assert "wifi" in str(msg["Subject"])
    msg.replace_header("Subject", "[PATCH] other")
    assert str(msg["Subject"]) == "[PATCH] other"


def test_full_map_is_emptied(monkeypatch):
    monkeypatch.setattr(headers, "_PLAIN_FETCHED_MAX", 2)
    headers._PLAIN_FETCHED.clear()
    _texts(email.message_from_bytes(RAW, policy=MAIL_POLICY))
    assert len(headers._PLAIN_FETCHED) <= 2


def test_long_values_are_not_remembered():
    headers._PLAIN_FETCHED.clear()
    subject = "[PATCH] " + " ".join(["word"] * 400)
    msg = email.message_from_bytes(b"Subject: " + subject.encode() + b"\r\nFrom: a@example.org\r\n\r\nbody\r\n",
                                   policy=MAIL_POLICY)
    assert str(msg["Subject"]) == subject and str(msg["From"]) == "a@example.org"
    assert [k for k, _ in headers._PLAIN_FETCHED] == ["From"]  # the 2,000-character Subject is read each time
