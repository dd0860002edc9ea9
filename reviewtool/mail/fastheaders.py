"""Headers in their common shape, read without the email package's RFC 5322 parser.

Reading a header through the email package builds a full parse tree per value: the largest
single cost of reading a thread (address lists most of all: a tenth of a triage run). Nearly every
value has a plain shape: a list of `Name Surname <local@domain>` or `local@domain`, a
`<left@right>` message-id, printable ASCII text (its RFC 2047 encoded words decoded by
mail/encoded_words.py). For those, the text the parser would give (`str()` of its header object,
all that b4 and reviewtool read) is written here directly; anything else (quoted names,
comments, encoded words in an address list, groups, odd spacing, dates, MIME headers) returns
None and takes the parser's path. Tests hold both paths to the same text on
every such header of the corpus and on generated variants.

A single-part mail (what git format-patch writes) is parsed the same way: the email package reads
its headers, and the body is set as its feed parser would set it, without that parser's pass over
every body line (half the cost of parsing a patch mail). So is a multipart mail whose parts are
each single-part (a patch with a log attached, a signed mail): cut at its boundary lines.
"""

from __future__ import annotations

import datetime
import email
import email.parser
import email.utils
import re
from email.headerregistry import HeaderRegistry
from functools import lru_cache
from email.message import Message
from email.policy import EmailPolicy

from .encoded_words import decode_words

# Headers the parser gives structure to; the rest (and Subject) are unstructured text.
_STRUCTURED = frozenset(HeaderRegistry().registry) - {"subject"}
_ADDRESS = frozenset({"from", "to", "cc", "bcc", "sender", "reply-to"})
_PLAIN_TEXT_RE = re.compile(r"[ -~\t]*")

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDR_SPEC = rf"{_ATEXT}(?:\.{_ATEXT})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
_NAME = rf"{_ATEXT}(?: {_ATEXT})*"
_MAILBOX_RE = re.compile(rf"({_NAME}) <({_ADDR_SPEC})>|<({_ADDR_SPEC})>|({_ADDR_SPEC})")
_DOT_ATOM = rf"{_ATEXT}(?:\.{_ATEXT})*"
# `"Display Name" <addr>` with printable ASCII words (no quote, backslash, tab or doubled space,
# which the parser would unescape or fold): its display name is the quoted text as written.
_QWORD = r'[!#-\[\]-~]+'
_QUOTED_MAILBOX_RE = re.compile(rf'"({_QWORD}(?: {_QWORD})*)" <({_ADDR_SPEC})>')
_SPECIALS = frozenset('()<>@,:;."[]')  # email._header_value_parser.SPECIALS: such a name stays quoted
_MSGID_RE = re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>")


def simple_header_text(name: str, value: str) -> str | None:
    """str() of the parsed header `name: value` (unfolded) when its shape is plain, else None."""
    lname = name.lower()
    if lname in _ADDRESS:
        return simple_address_text(value)
    if lname == "date":
        return simple_date_text(value)
    if lname == "message-id":
        return value if "=?" not in value and _MSGID_RE.fullmatch(value) else None
    if lname not in _STRUCTURED and _PLAIN_TEXT_RE.fullmatch(value):
        # encoded words too, by the one linear decoder (the parser's is superlinear in them)
        return decode_words(value) if "=?" in value else value
    return None


# `Tue, 01 Nov 2022 10:20:30 +0100`, the shape nearly every mailer writes and format_datetime
# writes, every field in range: a four-digit year from 1000 (the parser adds 1900 to a smaller
# one), a zone's minutes under 60 (it would carry them into hours).
_PLAIN_DATE_RE = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                            r"([1-9]\d\d\d) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d) ([+-])([01]\d|2[0-3])([0-5]\d)")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                        "Dec"), 1)}


@lru_cache(maxsize=64)
def _zone(seconds: int) -> datetime.timezone:
    return datetime.timezone.utc if seconds == 0 else datetime.timezone(datetime.timedelta(seconds=seconds))


def plain_date(value: str) -> tuple[datetime.datetime, str] | None:
    """(the aware datetime, the weekday written) of a date of the plain shape, as email.utils'
    parse reads it (it drops the weekday); None for another shape or a day the month lacks."""
    m = _PLAIN_DATE_RE.fullmatch(value)
    if m is None:
        return None
    weekday, day, month, year, hour, minute, second, sign, zh, zm = m.groups()
    offset = (int(zh) * 3600 + int(zm) * 60) * (-1 if sign == "-" else 1)
    try:
        when = datetime.datetime(int(year), _MONTHS[month], int(day), int(hour), int(minute), int(second),
                                 tzinfo=_zone(offset))
    except ValueError:
        return None
    return when, weekday


def _written_as_formatted(value: str) -> bool:
    """`value` is what format_datetime writes for the date it names (its weekday right): parsed
    and written again, it comes back unchanged (most mailers write dates so)."""
    found = plain_date(value)
    return found is not None and _WEEKDAYS[found[0].weekday()] == found[1]


@lru_cache(maxsize=4096)  # a list's dates repeat across its replies; the value alone decides
def simple_date_text(value: str) -> str | None:
    """str(DateHeader) of `value`: the date as email.utils.format_datetime writes it, or the value
    itself when it is no date (what DateHeader.parse does, without its parse tree of the result)."""
    if not value or not _PLAIN_TEXT_RE.fullmatch(value):
        return None
    if _written_as_formatted(value):
        return value
    try:
        return email.utils.format_datetime(email.utils.parsedate_to_datetime(value))
    except ValueError:
        return value
    except Exception:  # anything else is the parser's to say
        return None


@lru_cache(maxsize=4096)  # senders and lists repeat in every mail; the value alone decides
def simple_address_text(value: str) -> str | None:
    """str(AddressHeader) of `value` when it is a plain address list, else None. In a list of
    several, a mailbox of another shape (an encoded or escaped name) is parsed alone (_one_mailbox),
    where nothing in the list can join it to its neighbours."""
    pieces = address_pieces(value)
    # A long list is read piece by piece (the parser reads a 20,000-address Cc in quadratic time,
    # 30 s); one long piece is the parser's.
    if pieces is None or any(len(p) > 4000 for p in pieces):
        return None
    alone = len(pieces) > 1 and _pieces_stand_alone(value, pieces)
    out = []
    for i, piece in enumerate(pieces):
        if i:
            piece = piece.lstrip(" \t")  # folding whitespace after a comma: the parser drops it
        text = _plain_mailbox(piece) if "=?" not in piece else None  # encoded words are the parser's
        if text is None:
            text = _one_mailbox(piece) if alone else None
            if text is None:
                return None
        out.append(text)
    return ", ".join(out)


def _plain_mailbox(piece: str) -> str | None:
    m = _MAILBOX_RE.fullmatch(piece)
    if m is None:
        q = _QUOTED_MAILBOX_RE.fullmatch(piece)
        if q is None:
            return None
        name, addr = q.groups()
        return f'"{name}" <{addr}>' if _SPECIALS.intersection(name) else f"{name} <{addr}>"
    name, angled, bracketed, bare = m.groups()
    return f"{name} <{angled}>" if name else bracketed or bare


# Outside quoted strings, what lets the parser read across a comma: a comment, a domain literal,
# a group, an escape; and an encoded word left open in its piece (`=?utf-8?q?Doe,_J?=`).
_QUOTED_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')
_ACROSS_COMMAS = frozenset('()[]:;\\"')
_ENCODED_WORD_RE = re.compile(r"=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=")
_REGISTRY = HeaderRegistry()


def _pieces_stand_alone(value: str, pieces: list[str]) -> bool:
    """Whether the parser reads each piece of the list as it reads the piece alone."""
    bare = _QUOTED_STRING_RE.sub("", value)
    # every encoded word closed in its piece (base64's `=` padding is no word's end: `w6Q=?=`)
    return not _ACROSS_COMMAS.intersection(bare) and all("=?" not in _ENCODED_WORD_RE.sub("", p) for p in pieces)


def _one_mailbox(piece: str) -> str | None:
    """str() of one mailbox as the parser reads it; None unless it is exactly one, read without
    a defect (the list is then the parser's whole)."""
    try:
        parsed = _REGISTRY("cc", piece)
    except Exception:  # the parser raises on some hostile shapes: the whole list is its
        return None
    groups = parsed.groups
    if parsed.defects or len(groups) != 1 or groups[0].display_name is not None or len(parsed.addresses) != 1:
        return None
    return str(parsed)


# A piece of an address list: up to a comma that no quoted string holds (escapes read as in one).
_PIECE_RE = re.compile(r'(?:[^,"]|"(?:[^"\\]|\\.)*")*')


def address_pieces(value: str) -> list[str] | None:
    """`value` cut at the commas outside quotes (`"Doe, John" <jd@example.org>` is one mailbox);
    None when a quote is left open."""
    if '"' not in value:
        return value.split(",")
    out, at = [], 0
    while True:
        m = _PIECE_RE.match(value, at)
        out.append(m.group())
        at = m.end()
        if at == len(value):
            return out
        if value[at] != ",":
            return None  # a quote left open
        at += 1


def simple_mailboxes(value: str) -> list[tuple[str, str]] | None:
    """email.utils.getaddresses([value]) when `value` is a plain address list (header text as
    header() gives it), else None: the caller asks getaddresses."""
    if len(value) > 4000 or "=?" in value or not value.strip():
        return None
    out = []
    for i, piece in enumerate(value.split(",")):
        m = _MAILBOX_RE.fullmatch(piece.strip(" \t") if i else piece)
        if m is None:
            return None
        name, angled, bracketed, bare = m.groups()
        out.append((name, angled) if name else ("", bracketed or bare))
    return out


def message_from_bytes(data: bytes, policy) -> Message:
    """email.message_from_bytes(data, policy=policy), with the body of a plain single-part mail
    taken as one piece and its header block read by _field_lines. Anything odd (a line the feed
    parser would end the headers at or find a defect in, a CR, a multipart or message type) is
    parsed the email package's way."""
    end = data.find(b"\n\n")
    if end > 0 and b"\r" not in data[:end]:
        fields = _field_lines(data[:end + 1].decode("ascii", "surrogateescape"))
        if fields is not None:
            msg = _with_fields(fields, policy)
            if _plain_type(fields) or msg.get_content_maintype() not in ("multipart", "message"):
                # The feed parser's payload: the rest of the input, decoded as its bytes parser decodes it.
                msg.set_payload(data[end + 2:].decode("ascii", "surrogateescape"))
                return msg
            if b"\r" not in data and _parts(msg, data[end + 2:].decode("ascii", "surrogateescape"), policy):
                return msg
    return email.message_from_bytes(data, policy=policy)


def _with_fields(fields, policy) -> Message:
    """A message of the policy's type holding the header `fields` as the parser sets them."""
    msg = policy.message_factory(policy=policy)
    if type(policy).header_source_parse is EmailPolicy.header_source_parse:
        # what it does with a field's lines: the value from the colon, blanks before it and the
        # line end after it dropped
        msg._headers = [(name, value.lstrip(" \t").rstrip("\r\n")) for name, value in fields]
    else:
        for name, value in fields:
            msg.set_raw(*policy.header_source_parse([f"{name}:{value}"]))
    return msg


def _part(text: str, policy) -> Message | None:
    """A single-part body part as the feed parser reads it (`text`: its lines, the last one's
    line end already left to the boundary), or None for any other shape."""
    end = text.find("\n\n")
    if end <= 0:
        return None
    fields = _field_lines(text[:end + 1])
    if fields is None:
        return None
    msg = _with_fields(fields, policy)
    if not _plain_type(fields) and msg.get_content_maintype() in ("multipart", "message"):
        return None
    msg.set_payload(text[end + 2:])
    return msg


def _parts(msg: Message, body: str, policy) -> bool:
    """Fill `msg`, a multipart/* mail with no CR in it, as the feed parser would: the preamble,
    each part (every one a single-part mail: _part), the epilogue. False (msg left half made:
    the caller parses it again) for anything that parser reads some other way or finds a defect
    in: no boundary, an encoded multipart, a part that is itself multipart or a message, two
    boundary lines in a row, no closing boundary."""
    boundary = msg.get_boundary() if msg.get_content_maintype() == "multipart" else None
    if (boundary is None or msg.get_content_type() == "multipart/digest"
            or str(msg.get("content-transfer-encoding", "8bit")).lower() not in ("7bit", "8bit", "binary")):
        return False
    separator = "--" + boundary
    line_re = re.compile("(?P<sep>" + re.escape(separator) + r")(?P<end>--)?(?P<ws>[ \t]*)(?P<linesep>\n)?$")
    # every line the boundary pattern matches, as (start, end of its line, closing)
    marks = []
    at = 0 if body.startswith(separator) else body.find("\n" + separator) + 1
    while at > 0 or (at == 0 and body.startswith(separator)):
        stop = body.find("\n", at) + 1 or len(body)
        m = line_re.match(body[at:stop])
        if m:
            marks.append((at, stop, bool(m.group("end"))))
            if m.group("end"):
                break
        at = body.find("\n" + separator, stop - 1) + 1
        if at <= 0:
            break
    if not marks or not marks[-1][2] or marks[0][2]:
        return False
    first = marks[0][0]
    if first:  # the preamble, its last line end left to the boundary
        msg.preamble = body[:first - 1]
    parts = []
    for (_, start, _), (upto, _, _) in zip(marks, marks[1:]):
        if upto == start:
            return False  # boundary lines in a row: the parser reads past them
        part = _part(body[start:upto - 1], policy)
        if part is None:
            return False
        parts.append(part)
    msg._payload = parts
    msg.epilogue = body[marks[-1][1]:]
    return True


_TEXT_TYPE_RE = re.compile(r"[ \t]*text/[A-Za-z0-9.+-]+[ \t]*(?:;.*)?", re.S)


def _plain_type(fields: list[tuple[str, str]]) -> bool:
    """Whether the first Content-Type field (the one get_content_maintype reads) says text/...,
    or there is none (text/plain by default): no multipart or message type, told without parsing."""
    value = next((v for name, v in fields if name.lower() == "content-type"), None)
    return value is None or bool(_TEXT_TYPE_RE.fullmatch(value))


# A field line as the feed parser reads it (its headerRE, without `From ` and continuations): a
# name of printable ASCII but the colon, then the colon.
_FIELD_START_RE = re.compile(r"[\041-\071\073-\176]+:")
_FIELD_BREAK_RE = re.compile(r"\n(?=[^ \t])")  # a line that continues nothing starts after it


def _field_lines(block: str) -> list[tuple[str, str]] | None:
    """[(name, the rest of its lines)] of a header block of `\n`-ended lines, each a field line or
    a continuation of one, as the feed parser cuts it; None for a block it would read otherwise
    (a first line that continues nothing, a `From ` line, anything else ends its headers). Each
    field is one slice of the block, from one line that continues nothing to the next: a header
    folded 400,000 times costs what its text costs, in time and memory."""
    block = block[:block.rfind("\n") + 1]  # an unended last line is no line
    if not block:
        return []
    starts = [0, *(m.end() for m in _FIELD_BREAK_RE.finditer(block))]
    fields = []
    for at, upto in zip(starts, [*starts[1:], len(block)]):
        m = _FIELD_START_RE.match(block, at)
        if m is None or block.startswith("From ", at):
            return None
        fields.append((block[at:m.end() - 1], block[m.end():upto - 1]))
    return fields
