"""One mail's headers as text: the parsing policy, header values, message-ids, dates, addresses.

Every stage that reads a header reads it here: the file reader and the header index (sources/),
thread grouping, the series builders (model/) and triage. A header never raises: a malformed one
gives its raw text.
"""

from __future__ import annotations

import email.policy
import re
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr, parsedate_to_datetime
from functools import lru_cache
from typing import Iterable

from .encoded_words import MAX_WORDS, decode_words, end_of_words
from .fastheaders import address_pieces, plain_date, simple_header_text, simple_mailboxes

# What one header value brings to a parser (the email package's or ours) is bounded: past a cap
# the value is read up to it and the rest kept as written (capped_note says so). The email
# package's parsers take time and memory that grow faster than the value (a Cc of 8,000 names
# with an accented letter: 22 s and 3 GB). Real mail, the four shared stretches: the longest
# header 8,176 characters (a Cc), the most addresses in one header 187, the most encoded words
# 11; MAX_WORDS (1,000 encoded words) is encoded_words.py's.
MAX_HEADER_CHARS = 64 * 1024
MAX_ADDRESSES = 1000
# Shorter values are within every cap: an address takes a comma and more, an encoded word 8
# characters.
_WITHIN_CAPS = min(MAX_HEADER_CHARS, MAX_ADDRESSES, 8 * MAX_WORDS)
# An address list's commas outside quoted strings, comments and angle brackets (each skipped whole).
_LIST_COMMA_RE = re.compile(r'"(?:[^"\\]|\\.)*"?|\([^()]*\)?|<[^<>]*>?|,')
_BLANK_RE = re.compile(r"\s")


def bounded(name: str, value: str) -> tuple[str, str]:
    """(what a parser reads of the unfolded header value, the rest, kept as written: "" when the
    value is within the caps). An address list is cut after an address, other text between words."""
    address = name.lower() in _ADDRESS_HEADERS
    if len(value) <= _WITHIN_CAPS or (len(value) <= MAX_HEADER_CHARS and value.count("=?") <= MAX_WORDS
                                      and (not address or value.count(",") < MAX_ADDRESSES)):
        return value, ""
    cut = min(len(value), MAX_HEADER_CHARS, end_of_words(value, MAX_WORDS) or len(value))
    if address:
        commas, end = 0, 0
        for m in _LIST_COMMA_RE.finditer(value, 0, cut):
            if m.group() == ",":
                commas += 1
                end = m.start()
                if commas == MAX_ADDRESSES:
                    break
        cut = end if cut < len(value) or commas == MAX_ADDRESSES else cut
    elif cut < len(value) and not value[cut].isspace():
        blanks = [m.start() for m in _BLANK_RE.finditer(value, max(0, cut - 1000), cut)]
        cut = blanks[-1] if blanks else cut  # a word longer than that is cut where it stands
    return value[:cut], value[cut:]


def capped_note(msgs) -> str | None:
    """One note for the header values of `msgs` that were over a cap (bounded): which, and that
    the rest of each was kept as written."""
    found = []
    for msg in msgs:
        for name, value in msg.raw_items():
            if isinstance(value, str) and len(value) > _WITHIN_CAPS \
                    and bounded(name, value.replace("\r", "").replace("\n", ""))[1]:
                found.append(f"{name} of <{message_id_of(msg) or '?'}>")
    if not found:
        return None
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (f"read up to the header caps ({MAX_HEADER_CHARS // 1024} KB, {MAX_ADDRESSES:,} addresses, {MAX_WORDS:,} "
            f"encoded words), the rest kept as written: {', '.join(found[:3])}{more}")


@lru_cache(maxsize=16384)
def _parsed_header(policy: "_MailPolicy", name: str, value: str):
    return email.policy.EmailPolicy.header_fetch_parse(policy, name, value)


# MIME headers (a body's type, charset and encoding) are asked for again and again (b4, the parser,
# the index) and take a few values across a whole archive: their parses are kept across series.
_MIME_HEADERS = frozenset({"content-type", "content-transfer-encoding", "content-disposition", "mime-version"})


@lru_cache(maxsize=4096)
def _parsed_mime_header(policy: "_MailPolicy", name: str, value: str):
    return email.policy.EmailPolicy.header_fetch_parse(policy, name, value)


def forget_parsed_headers() -> None:
    """Drop the parsed header objects _MailPolicy keeps (16,384 of them) for the many reads of
    one review: across thousands of series with unique headers they are 150+ MB no later series
    uses (triage and profile learn drop them after each series)."""
    _parsed_header.cache_clear()


# The text of plain header values read before, by (name, value), or that a value is not plain:
# one building path asks a mail for its Subject, Message-ID and From half a dozen times (grouping,
# is_patch_mail, b4, the adapter), each ask unfolding, bounding and scanning the value again. Only
# texts are kept (no parsed header objects: forget_parsed_headers still frees those); the map is
# emptied when full.
_PLAIN_FETCHED: dict[tuple[str, str], str] = {}
_PLAIN_FETCHED_MAX = 8192
_PLAIN_FETCHED_CHARS = 1024  # longer values are read each time: the map holds at most ~16 MB of them
_NOT_PLAIN = "\0not plain"  # remembered for a value within the caps that goes to the parser (its object is not kept)


def _remember_plain(name: str, value: str, text: str) -> str:
    if len(value) > _PLAIN_FETCHED_CHARS:
        return text
    if len(_PLAIN_FETCHED) >= _PLAIN_FETCHED_MAX:
        _PLAIN_FETCHED.clear()
    _PLAIN_FETCHED[(name, value)] = text
    return text


class _MailPolicy(email.policy.EmailPolicy):
    """EmailPolicy that parses each distinct header value once.

    The email package re-parses a header on every access, and b4, the thread grouping and the
    adapter read the same From/Subject/References many times: a third of a 50-patch review went
    there. Header objects are immutable, so sharing them is safe; the message's source headers
    are untouched, so serializing it is unchanged.
    """

    def header_fetch_parse(self, name, value):
        if hasattr(value, "name"):
            return value
        if isinstance(value, str):
            text = _PLAIN_FETCHED.get((name, value))
            if text is not None:
                return self._parsed(name, value) if text is _NOT_PLAIN else text
            head, rest = bounded(name, value.replace("\r", "").replace("\n", ""))  # unfolded as the policy does
            text = simple_header_text(name, head)
            if text is not None:
                return _remember_plain(name, value, text + rest)  # str() of the parsed header; nothing reads more
            if rest:  # a value over a cap: its head parsed, the rest as written
                try:
                    return str(_parsed_header(self, name, head)) + rest
                except Exception:  # noqa: BLE001 - the parser raises many types on hostile headers
                    return head + rest
            _remember_plain(name, value, _NOT_PLAIN)
            return self._parsed(name, value)
        return _parsed_header(self, name, value)

    def _parsed(self, name: str, value: str):
        """The parsed header of a value within the caps that is not plain."""
        if name.lower() in _MIME_HEADERS:
            return _parsed_mime_header(self, name, value)
        return _parsed_header(self, name, value)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other


# b4's own parsing policy: keep 8-bit bodies, never re-wrap headers.
MAIL_POLICY = _MailPolicy(utf8=True, cte_type="8bit", max_line_length=None, message_factory=EmailMessage)

_MSGID_RE = re.compile(r"<([^<>\s]+)>")
_BARE_MSGID_RE = re.compile(r"(?<!\S)(\S+@\S+)")  # from a word's start: linear


def msgid_in(raw: str) -> str | None:
    """The message-id a Message-ID header's text names: `<id>`, else a bare `local@domain`."""
    m = _MSGID_RE.search(raw) or _BARE_MSGID_RE.search(raw)
    return m.group(1) if m else None


def ids_in(value: str) -> list[str]:
    """Every `<id>` of an In-Reply-To or References header's text, in order."""
    return _MSGID_RE.findall(value or "")


def message_id_of(msg: EmailMessage, read=None) -> str | None:
    """`read` is a header_reader(msg) the caller already has."""
    return msgid_in(read("Message-ID") if read is not None else header(msg, "Message-ID"))


_PLAIN_HEADER_RE = re.compile(r"[ -~\t\r\n]*")
# Address lists are normalised by parsing (`<a@b>` becomes `a@b`): always parsed.
_ADDRESS_HEADERS = frozenset({"from", "to", "cc", "bcc", "sender", "reply-to"})


_ABSENT = object()


def header(msg: EmailMessage, name: str) -> str:
    """A header as text; a malformed header gives its raw text instead of an exception.

    Plain ASCII values without encoded words read the same raw as parsed, so they skip the email
    package's structured parse (the most expensive part of reading a thread)."""
    lname = name.lower()
    raw = _ABSENT
    if lname not in _ADDRESS_HEADERS:
        for k, v in msg._headers:  # raw_items() without its copy of the list: a third of the call
            if k.lower() == lname:
                raw = v
                break
    return _header_text(msg, name, lname, raw)


def header_reader(msg: EmailMessage):
    """header(msg, name) for many names with one pass over the headers: a function of the
    name. It reads the headers as they are now; a mail changed later needs a new reader."""
    first: dict[str, object] = {}
    for k, v in msg.raw_items():
        first.setdefault(k.lower(), v)

    def read(name: str) -> str:
        lname = name.lower()
        return _header_text(msg, name, lname, first.get(lname, _ABSENT))

    return read


def _header_text(msg: EmailMessage, name: str, lname: str, raw: object) -> str:
    """The text of header `name` whose first raw value is `raw` (_ABSENT: none, or not looked up
    because address lists are always parsed: `<a@b>` becomes `a@b`)."""
    if lname in _ADDRESS_HEADERS:
        return _parsed_text(msg, name)
    if raw is _ABSENT:
        return ""
    if isinstance(raw, str) and "=?" not in raw and _PLAIN_HEADER_RE.fullmatch(raw):
        return " ".join(raw.split())
    return _parsed_text(msg, name)


def _parsed_text(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # the email package raises many types on hostile headers
        value = None
        for k, v in msg.raw_items():
            if k.lower() == name.lower():
                value = v
                break
    if value is None:
        return ""
    try:
        return " ".join(str(value).split())
    except Exception:
        return ""


def decoded(value: str) -> str:
    """A raw header value with its RFC 2047 encoded words decoded, as the email package shows
    them (the header index reads raw bytes, not parsed mail)."""
    if "=?" not in value:
        return value
    return " ".join(decode_words(value.replace("\r", "").replace("\n", "")).split())


# Addresses: every stage reads a sender, a recipient list or a reply's author here. A plain
# mailbox is read without the email package's parser (triage groups thousands of senders;
# tests/test_fastheaders.py holds both to the same answer), anything else by email.utils.

def mailbox(text: str | None) -> tuple[str, str]:
    """(display name, address) of one mailbox's text, as written (`("", "")` when it holds none)."""
    if text and len(text) <= _CACHED_MAILBOX:
        return _mailbox_cached(text)
    return _mailbox(text)


# An archive has a few thousand senders, each read many times; only texts of a mailbox's usual
# size are kept (4,096 of them at most 512 characters: 2 MB however hostile the headers).
_CACHED_MAILBOX = 512


@lru_cache(maxsize=4096)
def _mailbox_cached(text: str) -> tuple[str, str]:
    return _mailbox(text)


def _mailbox(text: str | None) -> tuple[str, str]:
    pairs = simple_mailboxes(text or "")
    if pairs is not None and len(pairs) == 1:
        return pairs[0]
    return parseaddr(text or "")


def address_of(sender: str) -> str:
    """The address of a From header's text (its case as given; the text itself when it holds no
    address): the same author under another display name."""
    return mailbox(sender)[1] or sender


def mailboxes(values: Iterable[str]) -> list[tuple[str, str]]:
    """(display name, address) of every mailbox of To/Cc-like values, each of which may list
    several (`"Doe, John" <jd@example.org>, x@y.org`)."""
    out: list[tuple[str, str]] = []
    for value in values:
        pairs = simple_mailboxes(value)
        out += pairs if pairs is not None else getaddresses([value])
    return out


def address_list(values: Iterable[str]) -> tuple[str, ...]:
    """The mailboxes of To/Cc-like values as written, one entry each, cut at the commas outside
    quotes (`"Doe, John" <jd@example.org>` is one entry, not two)."""
    out = []
    for value in values:
        pieces = address_pieces(value) or value.split(",")
        out += [p.strip() for p in pieces if p.strip()]
    return tuple(out)


def date_of(raw: str) -> datetime | None:
    """The Date header's text as an aware datetime (UTC when it names no zone), or None."""
    if not raw:
        return None
    if (plain := plain_date(raw)) is not None:
        return plain[0]  # the common shape, without the general parse (a tenth of indexing a header)
    try:
        d = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if d is None:
        return None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


def msg_date(msg: EmailMessage) -> datetime | None:
    return date_of(header(msg, "Date"))


def add_raw(msg: EmailMessage, name: str, value: str) -> None:
    """Add a header as the parser adds the ones it reads (Message.set_raw): stored as text and
    parsed when read, like every other header of the mail. `msg[name] = value` would run the
    header registry's full parse at once (a fifth of building a 50-patch series)."""
    msg.set_raw(*msg.policy.header_source_parse([f"{name}: {value}\n"]))


# Headers the email package parses into objects; a hostile value raises on access (an
# out-of-range year in Date raised OverflowError inside b4), so unusable ones can be set aside.
_STRUCTURED = ("Date", "From", "To", "Cc", "Message-ID", "In-Reply-To", "References", "Subject")


def quarantine_bad_headers(msg: EmailMessage) -> None:
    """Set aside structured headers the email package cannot parse. Called only when a consumer
    (b4) failed on the mail: validating every header of every mail up front cost a quarter of a
    triage run, and header() above never raises anyway."""
    for name in _STRUCTURED:
        try:
            for value in msg.get_all(name) or ():
                str(value)
        except Exception:
            raw = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
            del msg[name]
            for value in raw:
                msg[f"X-Reviewtool-Unparsable-{name}"] = " ".join(str(value).split())[:200]
