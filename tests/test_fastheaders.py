"""The header fast path gives exactly the text the email package's parser gives, or steps aside."""

from __future__ import annotations

import email.policy
from pathlib import Path

import pytest

from reviewtool.mail.fastheaders import simple_address_text, simple_header_text
from reviewtool.sources.files import read_raw_mails

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PARSER = email.policy.EmailPolicy(utf8=True)


def parsed_text(name: str, value: str) -> str:
    return str(PARSER.header_fetch_parse(name, value))


def corpus_header_values(names=("From", "To", "Cc", "Reply-To", "Sender")) -> list[tuple[str, str]]:
    import email.parser

    out = set()
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix not in (".mbox", ".eml", ".patch", ".mbx", ""):
            continue
        try:
            raws = read_raw_mails(path)
        except Exception:
            continue
        for raw in raws:
            msg = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw.data, headersonly=True)
            for name in names:
                for v in msg.get_all(name) or ():
                    if isinstance(v, str):
                        out.add((name, v.replace("\r", "").replace("\n", "")))
    return sorted(out)


def test_every_corpus_address_header_reads_the_same():
    values = corpus_header_values()
    fast = 0
    for name, value in values:
        text = simple_address_text(value)
        if text is not None:
            fast += 1
            assert text == parsed_text(name, value), value
    # The fast path must carry most real headers, or it is not worth having.
    assert len(values) > 200 and fast > len(values) * 0.7, (fast, len(values))


@pytest.mark.parametrize("value", [
    "Jane Dev <jane@example.org>", "<jane@example.org>", "jane@example.org",
    "a@b.c,d@e.f", "a@b.c, Jo Bo <d@e.f>, <g@h.i>", "a@b.c,\t Jo Bo <d@e.f>,        <g@h.i>", "first.last+tag@sub.example.co.uk",
    "O'Neil Smith <o.neil@example.org>", "x-y_z <q@w-e.r>",
])
def test_simple_shapes_match_the_parser(value):
    assert simple_address_text(value) == parsed_text("To", value)


@pytest.mark.parametrize("value", [
    '"Ping-Ke Shih" <pkshih@example.com>', '"J. Doe" <jd@example.org>', '"Kalle Valo" <k@example.org>, a@b.c',
    '"linux-wireless@vger.kernel.org" <linux-wireless@vger.kernel.org>', '"A B (Corp)" <a_b@example.org>',
    '"a [x]" <x@y.z>', "\"O'Neil\" <x@y.z>", '"A.B" <a@b.c>,\t "C D" <c@d.e>',
    '"Doe, John" <jd@example.org>', 'a@b.c,  "Doe, John" <jd@example.org>,"x,y" <x@y.z>',  # commas inside quotes
])
def test_quoted_display_names_match_the_parser(value):
    """A quoted name without specials loses its quotes; one with them keeps them, as str() of the
    parsed header does."""
    assert simple_address_text(value) == parsed_text("Cc", value)


@pytest.mark.parametrize("value", [
    '"a-a\\@b" <x@y.z>', '"a  b" <x@y.z>', '"" <x@y.z>', '" a" <x@y.z>', '"a "<x@y.z>', '"a\tb" <x@y.z>',
    '"Doe, John <jd@example.org>', '"Zoë" <z@example.org>', '"a" b <x@y.z>', '"a"<x@y.z>', '"a,  b" <x@y.z>',
])
def test_quoted_names_the_parser_would_rewrite_take_the_parser(value):
    assert simple_address_text(value) is None


@pytest.mark.parametrize("value", [
    '"Doe, John <jd@example.org>', "J. Doe <jd@example.org>", "jd@example.org (John Doe)",
    "=?utf-8?q?Zo=C3=AB?= <z@example.org>", "Zoë <z@example.org>", "Jane  Dev <j@example.org>",
    "Jane Dev<j@example.org>", "undisclosed-recipients:;", "a@b.c,", "", " a@b.c", "a@b.c ",
    "<a@b.c", "a@[127.0.0.1]", "a..b@c.d", '"a b"@c.d', "Jane Dev <j@example.org> extra",
])
def test_anything_else_takes_the_parser(value):
    assert simple_address_text(value) is None


def test_generated_address_lists_agree_with_the_parser():
    from hypothesis import strategies as st

    word = st.text(alphabet="abcXYZ09.-_'\"(),:;<>@ \t=?+", min_size=1, max_size=8)
    mailbox = st.one_of(
        st.builds(lambda n, a, d: f"{n} <{a}@{d}>", word, word, word),
        st.builds(lambda a, d: f"<{a}@{d}>", word, word),
        st.builds(lambda a, d: f"{a}@{d}", word, word))
    _lists_agree(mailbox, st.sampled_from([",", ", ", ",\t", ",   ", " ,", ";"]), 400)


def _lists_agree(mailbox, sep, examples: int) -> None:
    """Lists of up to four generated mailboxes: the fast text, where there is one, is the parser's."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(st.lists(st.tuples(mailbox, sep), min_size=1, max_size=4))
    def check(parts):
        value = "".join(m + s for m, s in parts)[: -len(parts[-1][1])]
        text = simple_address_text(value)
        if text is not None:
            assert text == parsed_text("Cc", value), value

    check()


def test_message_ids_and_unstructured_headers_read_the_same():
    names = ("Message-ID", "Subject", "References", "In-Reply-To", "X-Mailer", "List-Id", "Date",
             "Content-Type", "MIME-Version")
    values = corpus_header_values(names)
    fast = {n: 0 for n in names}
    for name, value in values:
        text = simple_header_text(name, value)
        if text is not None:
            fast[name] += 1
            assert text == parsed_text(name, value), (name, value)
    # Structured headers other than addresses, dates and message-ids always take the parser.
    assert fast["Content-Type"] == fast["MIME-Version"] == 0
    total = {n: sum(1 for name, _ in values if name == n) for n in names}
    assert all(fast[n] > 0.9 * total[n] > 80 for n in ("Message-ID", "Subject", "References", "Date")), (fast, total)


@pytest.mark.parametrize("value", [
    "Mon, 1 Jan 2024 00:00:00 +0000", "Tue, 01 Nov 2022 10:00:00 -0700 (PDT)", "1 Nov 2022 10:00 +0530",
    "Tue, 1 Nov 2022 10:00:00 -0000", "Tue, 1 Nov 2022 10:00:00 GMT", "Tue, 1 Nov 2022 10:00:00", "not a date",
    "Tue, 31 Feb 2022 10:00:00 +0000", "Tue, 1 Nov 2022 10:00:00 +9900", "Tue, 1 Nov 22 10:00:00 +0000",
])
def test_dates_read_as_the_parser_writes_them(value):
    """The parser rewrites a date as format_datetime does, or keeps what is no date: so do we."""
    assert simple_header_text("Date", value) == parsed_text("Date", value)


def test_dates_already_written_as_formatted_come_back_as_the_parser_writes_them():
    """A date in format_datetime's own shape is kept as it is, unparsed, only when parsing and
    writing it gives it back: a wrong weekday, a year under 1000, a zone's minutes over 59, an
    hour of 24 or a day the month lacks take the parser's path, or say what it would."""
    import random

    from reviewtool.mail.fastheaders import _written_as_formatted, simple_date_text

    rng = random.Random(7)
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    kept = 0
    for _ in range(3000):
        value = (f"{rng.choice(days)}, {rng.randint(0, 31):02d} {rng.choice(months)} "
                 f"{rng.choice([rng.randint(0, 1999), rng.randint(2000, 2030)]):04d} {rng.randint(0, 24):02d}:"
                 f"{rng.randint(0, 60):02d}:{rng.randint(0, 60):02d} {rng.choice('+-')}{rng.randint(0, 2460):04d}")
        simple_date_text.cache_clear()
        assert simple_date_text(value) == parsed_text("Date", value), value
        kept += _written_as_formatted(value)
    for value in ("Tue, 01 Nov 2022 10:00:00 +0000", "Thu, 29 Feb 2024 23:59:59 -0000", "Wed, 01 Jan 1000 00:00:00 +2359"):
        assert _written_as_formatted(value) and simple_date_text(value) == parsed_text("Date", value) == value
    for value in ("Mon, 01 Nov 2022 10:00:00 +0000", "Sat, 01 Jan 0050 00:00:00 +0000", "Tue, 01 Nov 2022 10:00:00 +0099",
                  "Tue, 01 Nov 2022 24:00:00 +0000", "Tue, 31 Feb 2022 10:00:00 +0000", "Tue, 1 Nov 2022 10:00:00 +0000"):
        assert not _written_as_formatted(value), value
        assert simple_date_text(value) == parsed_text("Date", value), value
    assert kept > 20  # the shape does occur: the comparison covers the kept path


@pytest.mark.parametrize("name,value", [
    ("Message-ID", "<a.b@c.d>"), ("Message-ID", "<20240101.123-1-x@host.example.org>"),
    ("Subject", "[PATCH net-next v2 3/7] net: fix\tthe  thing"), ("References", "<a@b> <c@d>\t<e@f>"),
    ("In-Reply-To", "<a@b>"), ("X-Anything", "  spaced  "),
    # encoded words: the one linear decoder (mail/encoded_words.py) reads them as the parser does
    ("Subject", "=?utf-8?q?caf=C3=A9?="), ("Subject", "Re: [PATCH] =?UTF-8?q?f=C3=B6o?=: bar"),
    ("Subject", "=?utf-8?q?a?= =?utf-8?q?b?=  c"), ("Subject", "=?iso-8859-1?q?caf=E9?= =?utf-8?q?x?="),
    ("Subject", "=?UTF-8?B?W1BBVENIXSB3aWZpOiBmb28=?="), ("Subject", "=?nosuch?q?x?= y"),
    ("Subject", "word=?utf-8?q?x_y?=z"), ("X-Anything", "=?utf-8?b?w6Q=?= =?utf-8?b?w6Q=?="),
])
def test_plain_shapes_match_the_parser(name, value):
    assert simple_header_text(name, value) == parsed_text(name, value)


@pytest.mark.parametrize("name,value", [
    ("Message-ID", "<a@b> (comment)"), ("Message-ID", "a@b"), ("Message-ID", "<a..b@c>"), ("Message-ID", "<a@[1.2.3.4]>"),
    ("Subject", "café"), ("Subject", "bell\x07"), ("Date", ""), ("Date", "Mon, 1 Jan 2024 00:00:00 +0000 (café)"),
    ("Content-Type", "text/plain"),
])
def test_other_shapes_take_the_parser(name, value):
    assert simple_header_text(name, value) is None


def test_header_reader_reads_as_header_does():
    """One pass over a mail's headers (header_reader) gives header()'s text for every name, on
    every mail of the corpus, for names present, repeated and absent."""
    from conftest import CORPUS
    from reviewtool.mail.headers import header, header_reader
    from reviewtool.sources.files import load_messages

    names = ("From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "X-Absent",
             "Content-Type", "received")
    checked = 0
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            msgs = load_messages(path)
        except Exception:  # not mail at all: other tests' business
            continue
        for msg in msgs:
            read = header_reader(msg)
            for name in names + tuple(k for k in msg.keys()):
                assert read(name) == header(msg, name), (path.name, name)
                checked += 1
    assert checked > 5000


def test_simple_mailboxes_are_what_getaddresses_gives():
    """On every address header of the corpus (as header() reads it) and on generated lists,
    simple_mailboxes answers as email.utils.getaddresses does, or steps aside (None)."""
    from email.utils import getaddresses

    from conftest import CORPUS
    from reviewtool.mail.fastheaders import simple_mailboxes
    from reviewtool.mail.headers import header
    from reviewtool.sources.files import load_messages

    values = ["Jane Dev <jane@example.org>", "a@b.c", "<a@b.c>", "A B <a@b.c>, c@d.e,  <f@g.h>", "x", "",
              '"Dev, Jane" <j@e.org>', "Jane (the dev) <j@e.org>", "a@b.c,", ", a@b.c"]
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            msgs = load_messages(path)
        except Exception:
            continue
        values += [header(m, name) for m in msgs for name in ("From", "To", "Cc")]
    fast = 0
    for value in values:
        got = simple_mailboxes(value)
        if got is not None:
            assert got == getaddresses([value]), value
            fast += 1
    assert fast > 0.5 * len(values)


def _same_message(a, b) -> None:
    assert type(a) is type(b)
    assert a.get_unixfrom() == b.get_unixfrom()
    assert list(a.raw_items()) == list(b.raw_items())
    assert [type(d) for d in a.defects] == [type(d) for d in b.defects]
    assert a.is_multipart() == b.is_multipart()
    assert (a.preamble, a.epilogue, a.get_default_type()) == (b.preamble, b.epilogue, b.get_default_type())
    assert a.get_payload(decode=True) == b.get_payload(decode=True)
    if a.is_multipart():
        assert len(a.get_payload()) == len(b.get_payload())
        for x, y in zip(a.get_payload(), b.get_payload()):
            _same_message(x, y)
    else:
        assert a._payload == b._payload
    assert a.as_bytes() == b.as_bytes()


def _multipart(body: bytes, ctype: bytes = b"multipart/mixed; boundary=XX") -> bytes:
    return b"From: a@b.c\nMIME-Version: 1.0\nContent-Type: " + ctype + b"\n\n" + body


_PLAIN_PART = b"Content-Type: text/plain\n\none\n"


ODD_MAILS = [
    b"From: a@b.c\nSubject: x\n\nbody\n",
    b"From 0123 Mon Sep 17 00:00:00 2001\nFrom: a@b.c\nSubject: [PATCH] x\n\nbody\n---\n a | 1 +\n",
    b"From: a@b.c\r\nSubject: crlf\r\n\r\nbody\r\n",
    b"From: a@b.c\nSubject: bare cr\r\n\nbody\n",
    b" folded first\nFrom: a@b.c\n\nbody\n",
    b"From: a@b.c\nnot a header line\nSubject: x\n\nbody\n",
    b"From: a@b.c\nSubject: no body\n",
    b"From: a@b.c\nSubject: empty body\n\n",
    b"From: a@b.c\nSubject: folded\n  subject\n\nbody\n\n\nmore\n",
    b"From: a@b.c\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\ncaf\xc3\xa9 \xff\n",
    b"From: a@b.c\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\nY2Fmw6k=\n",
    b"From: a@b.c\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=XX\n\n--XX\nContent-Type: text/plain\n\n"
    b"one\n--XX\nContent-Type: text/x-patch\n\ntwo\n--XX--\n",
    b"From: a@b.c\nContent-Type: message/rfc822\n\nFrom: c@d.e\nSubject: inner\n\nbody\n",
    b"From: a@b.c\nContent-Type: multipart/mixed\n\nno boundary\n",
    b"\n\nonly a body\n",
    b"Subject: x\n\nbody with\rlone CR\n",
    b"From: a@b.c\nSubject: =?utf-8?q?caf=C3=A9?=\n\nbody\n",
    # multipart mails: cut at their boundary lines, or left to the parser when it reads them otherwise
    _multipart(b"preamble\n\n--XX\n" + _PLAIN_PART + b"--XX \t\nContent-Type: text/x-patch\n\ntwo\n\n\n--XX--\nepilogue\n"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n"),
    _multipart(b"--XXnot\n--XX\n" + _PLAIN_PART + b"--XX-- x\nstill part\n--XX--\n\nafter\n"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX\n--XX\n" + _PLAIN_PART + b"--XX--\n"),
    _multipart(b"--XX\n--XX--\nepilogue\n"),
    _multipart(b"--XX--\n--XX\n" + _PLAIN_PART + b"--XX--\n"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX\n" + _PLAIN_PART),
    _multipart(b"no boundary at all\n"),
    _multipart(b"--XX\nContent-Type: text/plain\n--XX--\n"),
    _multipart(b"--XX\nContent-Type: text/plain\n\n--XX--\n"),
    _multipart(b"--XX\n\nno headers\n--XX--\n"),
    _multipart(b"--XX\nnot a header\n\nbody\n--XX--\n"),
    _multipart(b"--XX\nFrom nobody\n\nbody\n--XX--\n"),
    _multipart(b"--XX\nContent-Type: text/plain\n folded\n\nbody\n--XX--\n"),
    _multipart(b"--XX\nContent-Type: message/rfc822\n\nFrom: c@d.e\n\ninner\n--XX--\n"),
    _multipart(b"--XX\nContent-Type: multipart/alternative; boundary=YY\n\n--YY\n" + _PLAIN_PART
               + b"--YY--\n--XX--\n"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n", b"multipart/digest; boundary=XX"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n", b"multipart/mixed; boundary=XX\nContent-Transfer-Encoding: base64"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n", b"multipart/mixed; boundary=\"a+b (c)\""),
    _multipart(b"--a+b (c)\n" + _PLAIN_PART + b"--a+b (c)--\n", b"multipart/mixed; boundary=\"a+b (c)\""),
    _multipart(b"--XX\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\nY2Fmw6k=\n--XX\n"
               b"Content-Type: application/octet-stream\n\n\xff\xfe\n--XX--\n"),
    _multipart(b"--XX\r\n" + _PLAIN_PART + b"--XX--\r\n"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n", b"message/rfc822; boundary=XX"),
    _multipart(b"--XX\n" + _PLAIN_PART + b"--XX--\n", b"multipart/signed"),
]


@pytest.mark.parametrize("data", ODD_MAILS)
def test_fast_message_parse_equals_the_email_package_on_odd_mails(data):
    import email

    from reviewtool.mail.fastheaders import message_from_bytes
    from reviewtool.mail.headers import MAIL_POLICY

    _same_message(message_from_bytes(data, MAIL_POLICY), email.message_from_bytes(data, policy=MAIL_POLICY))


def test_fast_message_parse_equals_the_email_package_on_the_corpus(monkeypatch):
    """Every mail of the corpus parses to the same message either way; most take the fast path."""
    import email

    from conftest import CORPUS
    from reviewtool.mail import fastheaders
    from reviewtool.mail.headers import MAIL_POLICY
    from reviewtool.sources.files import read_raw_mails

    full = email.message_from_bytes
    fallbacks = []
    monkeypatch.setattr(email, "message_from_bytes", lambda data, policy: fallbacks.append(1) or full(data, policy=policy))
    mails = 0
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz", ".patch", ".eml")):
        try:
            raws = read_raw_mails(path)
        except Exception:  # not mail at all: other tests' business
            continue
        for raw in raws:
            _same_message(fastheaders.message_from_bytes(raw.data, MAIL_POLICY), full(raw.data, policy=MAIL_POLICY))
            mails += 1
    assert mails > 400
    assert len(fallbacks) < mails / 2  # the fast path is the common one


ADDRESS_OF_NEAR_MISSES = [
    "Jane Dev <jane@example.org>", "jane@example.org", "<jane@example.org>", "jane dev <jane@example.org>",
    "a@b.c, d@e.f", "Jane Dev <j@e.org>, c@d.e", '"Dev, Jane" <j@e.org>', "J. Dev <j@e.org>",
    "j@e.org (Jane Dev)", "Jane (the dev) <j@e.org>", "=?utf-8?q?Zo=C3=AB?= <z@example.org>", "zoë <z@example.org>",
    "Jane  Dev <j@e.org>", "Jane Dev<j@e.org>", "Jane Dev <j@e.org> extra", "<j@e.org", "j@e.org,", ", j@e.org",
    " j@e.org", "j@e.org ", "x", "", "undisclosed-recipients:;", "a..b@c.d", '"a b"@c.d', "a@[127.0.0.1]",
]


def test_address_of_is_what_parseaddr_gives():
    """address_of's plain-mailbox path answers as email.utils.parseaddr does, on every From of the
    corpus (lower-cased, as the header index keeps it) and on near misses: two addresses, quoted
    or dotted names, comments, encoded words, odd spacing."""
    from email.utils import parseaddr

    from conftest import CORPUS
    from reviewtool.mail.fastheaders import simple_mailboxes
    from reviewtool.mail.headers import address_of, header
    from reviewtool.sources.files import load_messages

    values = list(ADDRESS_OF_NEAR_MISSES)
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mbox", ".gz")):
        try:
            msgs = load_messages(path)
        except Exception:
            continue
        values += [header(m, "From").lower() for m in msgs]
    fast = 0
    for value in values:
        assert address_of(value) == (parseaddr(value)[1] or value), value
        fast += (pairs := simple_mailboxes(value)) is not None and len(pairs) == 1
    assert fast > 0.5 * len(values)
    assert all(simple_mailboxes(v) is None or len(simple_mailboxes(v)) > 1 for v in ADDRESS_OF_NEAR_MISSES[4:])


def test_lists_with_mailboxes_the_parser_reads_alone_agree_with_it():
    """In a list of several, an encoded, escaped or oddly spaced mailbox is parsed alone and the
    rest read here: the text is the parser's whole-list text, or None (comments, groups, domain
    literals, escapes outside quotes, an encoded word cut by a comma)."""
    from hypothesis import strategies as st

    name = st.sampled_from(["Jo Bo", "=?utf-8?q?Zo=C3=AB?=", "=?utf-8?q?Doe,_J?=", "Toke =?utf-8?q?H=C3=B8i?=",
                            '"M \\(QUIC\\)"', '"a \\" b, c"', '"Doe, John"', "Del   Regno", "J. Doe", "(c, d) x",
                            "list:", '"x', "a\\b", "[1,2]", ""])
    addr = st.sampled_from(["a@b.c", "<a@b.c>", "d-e@f.g", "h@[1.2.3.4]", "x@y.z;", "bad"])
    mailbox = st.builds(lambda n, a: f"{n} <{a.strip('<>')}>" if n else a, name, addr)
    _lists_agree(mailbox, st.sampled_from([",", ", ", ",\t", ",  "]), 800)
    mixed = 'a@b.c, =?utf-8?q?Zo=C3=AB?= <z@example.org>, "M \\(QUIC\\)" <m@q.c>,  Del   Regno <d@r.e>'
    assert simple_address_text(mixed) == parsed_text("Cc", mixed) == \
        'a@b.c, Zoë <z@example.org>, "M (QUIC)" <m@q.c>, Del Regno <d@r.e>'
    for whole in ('a@b.c, x@y.z (comment, with comma)', '=?utf-8?q?Doe,_J?= <j@d.e>, a@b.c', 'a@b.c, list: x@y.z;'):
        assert simple_address_text(whole) is None, whole


def test_date_of_reads_the_common_shape_as_the_general_parse_does():
    """date_of reads `Tue, 01 Nov 2022 10:20:30 +0100` itself; on generated dates in and out of
    range (a day the month lacks, hour 24, second 60, a zone's minutes over 59, -0000, a year under
    1000) it gives what email.utils' parse gives, zone and all, or None where that fails."""
    import random
    from datetime import timezone
    from email.utils import parsedate_to_datetime

    from reviewtool.mail.fastheaders import plain_date
    from reviewtool.mail.headers import date_of

    def general(raw):
        try:
            d = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        return d if d is None or d.tzinfo else d.replace(tzinfo=timezone.utc)

    rng = random.Random(11)
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    own = 0
    values = ["Tue, 01 Nov 2022 10:20:30 -0000", "Tue, 01 Nov 2022 10:20:30 +0000", "Tue, 1 Nov 2022 10:20:30 +0100",
              "Sat, 01 Jan 0050 00:00:00 +0000", "Tue, 31 Feb 2022 10:00:00 +0000", "Tue, 01 Nov 2022 10:00:60 +0000"]
    values += [f"{rng.choice(days)}, {rng.randint(0, 31):02d} {rng.choice(months)} "
               f"{rng.choice([rng.randint(0, 1999), rng.randint(2000, 2030)]):04d} {rng.randint(0, 24):02d}:"
               f"{rng.randint(0, 60):02d}:{rng.randint(0, 60):02d} {rng.choice('+-')}{rng.randint(0, 2460):04d}"
               for _ in range(5000)]
    for value in values:
        mine, theirs = date_of(value), general(value)
        assert mine == theirs, value
        if mine is not None:
            assert (mine.utcoffset(), mine.isoformat()) == (theirs.utcoffset(), theirs.isoformat()), value
        own += plain_date(value) is not None
    assert own > 1000  # most take the own reading: the comparison covers it
