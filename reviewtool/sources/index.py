"""Index a mail archive without holding it: one pass over the bytes, headers only.

A list archive of 10,000 series is hundreds of megabytes. We never keep parsed messages: each
mail becomes a `MailRef` (where its bytes are) and a `MailHead` (the few headers that group it
into threads and series). Bodies are parsed later, one series at a time (`raw_mail`), through
the same splitter rules and parser as `reviewtool check` (sources/files.py).
"""

from __future__ import annotations

import email.parser
import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ..errors import InputError
from ..limits import limits
from ..mail.headers import MAIL_POLICY, date_of, decoded, ids_in, msgid_in
from ..mail.message import is_patch_mail
from ..mail.subject import is_reply_subject, parse_subject
from . import diffsig, files
from .bodies import Bodies, read_on_to
from .segments import SegmentScan, segments
from .files import SYNTHETIC_DOMAIN, RawMail

_HEADER_PARSER = email.parser.BytesHeaderParser(policy=MAIL_POLICY)
_CHANGE_ID_BODY_RE = re.compile(rb"^change-id:[ \t]*(\S+)", re.I | re.M)
_ID_COLON_RE = re.compile(rb"-[iI][dD]:")  # what any case of `change-id:` holds


@dataclass(frozen=True, slots=True)
class MailRef:
    """Where one mail's bytes are: enough for a worker process to read it again."""

    path: str
    offset: int  # first byte after the `From ` separator line (0 for a single-mail file)
    length: int
    in_mbox: bool = False  # a chunk of an mbox (files.split_mbox trims and unquotes those)
    mboxrd: bool = False
    format_patch: bool = False
    label: str = ""  # what to call the file in messages: the path given, not a scratch copy
    blob: str = ""  # a public-inbox's mail: its object in the repository at `path` (offset: its place)

    @property
    def origin(self) -> str:
        return f"{self.path}@{self.offset}"


@dataclass(frozen=True, slots=True)
class MailHead:
    ref: MailRef
    msgid: str
    parents: tuple[str, ...]  # In-Reply-To then References, as message-ids
    in_reply_to: str | None
    subject: str
    sender: str  # the From: header, lower-cased
    date: float | None  # POSIX timestamp
    change_id: str | None
    synthesized: bool = False  # the mail had no Message-ID (git format-patch output)
    paths: tuple[str, ...] = ()  # the files its diff changes (sources/diffsig.py)
    sketch: bytes = b""  # a sketch of its changed lines (sources/diffsig.py)
    has_diff: bool = False  # its body carries a diff, as `check` (mail.message.is_patch_mail) reads it
    list_id: str | None = None  # the List-Id the list stamped on it ("netfilter-devel.vger.kernel.org")


def raw_mail(ref: MailRef, fh: BinaryIO) -> RawMail:
    """The mail's bytes exactly as files.split_mbox would hand them to the parser."""
    fh.seek(ref.offset)
    data = fh.read(ref.length)
    if ref.in_mbox:
        data = data.rstrip(b"\n") + b"\n"
        if ref.mboxrd and b">From " in data:  # the search is in C; the pattern's `^` is tried at every byte
            data = files._MBOXRD_QUOTE_RE.sub(rb"\1", data)
    return RawMail(data, ref.origin, ref.format_patch)


_WANTED = frozenset({b"message-id", b"in-reply-to", b"references", b"subject", b"from", b"date", b"list-id"})


def _fields(head: bytes) -> dict[bytes, str]:
    """The first value of each header grouping needs, unfolded. A hand-rolled reader: the email
    package's header objects cost more than the rest of indexing together."""
    out: dict[bytes, bytes] = {}
    cur = None
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if cur is not None:
                out[cur] += b" " + line.strip()
            continue
        name, sep, value = line.partition(b":")
        key = name.strip().lower()
        if sep and key in _WANTED and key not in out:
            out[key], cur = value.strip(), key
        else:
            cur = None
    return {k: " ".join(v.decode("utf-8", "replace").split()) for k, v in out.items()}


def _whole(ref: MailRef) -> bytes:
    with open(ref.path, "rb") as fh:
        return raw_mail(ref, fh).data


def _digest_of(ref: MailRef, whole: bytes | None) -> str:
    """sha256 of the mail's bytes as the parser gets them (rare: a mail without a Message-ID is
    read again). One over the mail limit is hashed as it streams: its review refuses it."""
    if whole is not None:
        return hashlib.sha256(whole).hexdigest()
    if ref.blob:  # a public-inbox's mail over the mail limit: its object id names its bytes
        return ref.blob
    if ref.length <= limits().mail_bytes:
        return hashlib.sha256(_whole(ref)).hexdigest()
    h = hashlib.sha256()
    with open(ref.path, "rb") as fh:
        fh.seek(ref.offset)
        left = ref.length
        while left > 0 and (chunk := fh.read(min(left, 1 << 20))):
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


HEAD_BYTES = 1 << 20  # header bytes kept per mail: References of a 20,000-mail thread fit; a mail
# with more is over the header or line limit, which its review says (files.parse_mail)
_LINE_PIECE = 1 << 20  # the longest piece of a line the scan holds
# mail.message.DIFF_RE, searched on "\n" + body: a pattern that starts with a literal is searched
# for it, where `^` in multi-line mode is tried at every byte (ten times slower here).
_BODY_DIFF_RE = re.compile(rb"\n(?:diff --git |Index: \S|--- \S[^\n]*\n\+\+\+ \S)")
_ENCODED_PART_RE = re.compile(rb"^content-transfer-encoding:[ \t]*(?:base64|quoted-printable)", re.M | re.I)
_MULTIPART_RE = re.compile(rb"^content-type:[ \t]*multipart", re.M | re.I)  # diffsig.decoded reads single parts


def _body_has_diff(head: bytes, text: bytes) -> bool:
    """mail.message.is_patch_mail's body test, on the body as diffsig.decoded gives it."""
    return bool(_BODY_DIFF_RE.search(b"\n" + text))


def _might_be_a_patch(subject: str) -> bool:
    """Whether the body decides (mail.message.is_patch_mail): not a reply, no PATCH prefix."""
    s = parse_subject(subject)
    return not s.reply and not s.is_patch


def _decoded_body_has_diff(ref: MailRef, whole: bytes | None) -> bool:
    """mail.message.is_patch_mail's own answer, for a mail whose body must be decoded part by part."""
    if ref.length > limits().mail_bytes:
        return False  # over the mail limit: its review says so
    data = whole if whole is not None else _whole(ref)
    if not _ENCODED_PART_RE.search(data):
        return False  # its parts are plain: the search of the raw body saw any diff they hold
    try:
        msg, _ = files.parse_mail(RawMail(data, ref.origin))
        return msg is not None and is_patch_mail(msg)
    except Exception:  # noqa: BLE001 - hostile mail: the review of its thread reports it
        return False


_LIST_ID_RE = re.compile(r"<([A-Za-z0-9][A-Za-z0-9._-]{0,200})>")


def _list_id(value: str) -> str | None:
    """The list's id in its List-Id header (RFC 2919: a dotted name in angle brackets), lower-cased
    and shared between the mails that carry it."""
    m = _LIST_ID_RE.search(value) if value else None
    return sys.intern(m.group(1).lower()) if m else None


def _head(ref: MailRef, head: bytes, body: Callable[[], bytes], whole: bytes | None = None) -> MailHead | None:
    """The head of the mail whose header block is `head`; `body()` reads its body, which only a
    patch's head describes (its change-id and diff): grouping keys patches, never replies, by
    them (conversation/threads.py), and half of an archive's mails are replies."""
    f = _fields(head)
    if not f and not _HEADER_PARSER.parsebytes(head).keys():
        return None  # not a mail (files.parse_mails skips these too)
    msgid = msgid_in(f.get(b"message-id", ""))
    synthesized = False
    if not msgid:
        # The same id files.parse_mails gives it: a hash of the mail's bytes.
        msgid = f"{_digest_of(ref, whole)[:24]}@{SYNTHETIC_DOMAIN}"
        synthesized = True
    irt = ids_in(f.get(b"in-reply-to", ""))
    refs = ids_in(f.get(b"references", ""))
    when = date_of(f.get(b"date", ""))
    try:
        date = when.timestamp() if when is not None else None
    except (OverflowError, ValueError, OSError):  # a date at the ends of the calendar
        date = None
    subject = decoded(f.get(b"subject", ""))
    change_id, diff, has_diff = None, ((), b""), False
    if not is_reply_subject(subject):
        raw_body = body()
        text = diffsig.decoded(head, raw_body)
        change_id, diff, has_diff = _change_id(raw_body), diffsig.scan_text(text), _body_has_diff(head, text)
        has_diff = has_diff or bool(diff[0])
        if not has_diff and _MULTIPART_RE.search(head) and _might_be_a_patch(subject):
            has_diff = _decoded_body_has_diff(ref, whole)  # rare: a diff in a MIME part
    return MailHead(ref=ref, msgid=msgid, parents=tuple(irt + refs), in_reply_to=irt[0] if irt else None,
                    subject=subject, sender=decoded(f.get(b"from", "")).lower(),
                    date=date, change_id=change_id.decode("ascii", "replace") if change_id else None,
                    synthesized=synthesized, paths=diff[0], sketch=diff[1], has_diff=has_diff,
                    list_id=_list_id(f.get(b"list-id", "")))


def _lines(fh: BinaryIO, cap: int) -> Iterator[tuple[bytes, bytes | None]]:
    """Each line with the one after it (None at the end): separators are recognised by both. A
    line longer than `cap` comes in pieces of `cap` bytes, so no line is ever held whole: a piece
    after the first never follows a blank line, so it is never taken for a separator."""
    prev = fh.readline(cap)
    if not prev:
        return
    while line := fh.readline(cap):
        yield prev, line
        prev = line
    yield prev, None


def scan_mbox(path: str, fh: BinaryIO, start: int, label: str, first_line: bytes | None = None,
              stop: int | None = None, skip_bodies: bool = True, cap: int | None = None) -> Iterator[MailHead]:
    """Split on `From ` lines by files.split_mbox's rule (the first line is a separator; after a
    blank line, a `From ` line is one when it carries a date, or, in a file whose first separator
    carries none, when a header line follows), keeping only each mail's header block; its body
    is read once more, by offset, for its change-id line and its diff. The mail's bytes stay in
    the file. A body's lines are not read one by one: its end, the next separator, is searched for
    (bodies.py; `skip_bodies=False` reads every line, the rule's plain form). A scan resumed at a
    later separator
    (`start`) is given the file's own first line, which decides the separator rule; one given
    `stop` (a separator's offset, from segments()) ends at the separator there. With `cap` (a gzip
    unpacked no further than its bound: input_files.gzip_cut), nothing past that byte is read, and
    the mail that crosses it is not one."""
    fh.seek(start)
    pos = start
    big = limits().mail_bytes
    cap = (1 << 62) if cap is None else cap
    strict = mboxrd = False
    mail_start, fp = start, False
    head: list[bytes] = []
    in_head, prev_blank, first, kept = True, True, True, 0
    body_start = start
    # The body is read again for its diff (diffsig.scan_text) through another descriptor: a few
    # searches in C per mail instead of a test of every line here.
    fd = os.open(path, os.O_RDONLY)

    def finish(end: int) -> MailHead | None:
        ref = MailRef(path, mail_start, end - mail_start, True, mboxrd, fp, label)
        raw = b"".join(head)
        if not raw.strip():
            return None
        # A mail over the mail limit is not read: its review refuses it by its size alone.
        return _head(ref, raw, lambda: os.pread(fd, end - body_start, body_start)
                     if body_start < end <= body_start + big else b"")

    bodies = Bodies.open(fd, _LINE_PIECE) if skip_bodies else None
    try:
        lines = _lines(fh, _LINE_PIECE)
        while (item := next(lines, None)) is not None:
            line, nxt = item
            if pos > cap:
                return  # the mail that crosses the limit is not one: it was not read whole
            if first:
                rule = line if first_line is None else first_line
                strict = bool(files._SEPARATOR_RE.match(rule))
                mboxrd = rule.startswith(b"From mboxrd@z")
            if prev_blank and line.startswith(b"From ") and (
                    first or files._SEPARATOR_RE.match(line)
                    or not strict and nxt is not None and files._FIELD_RE.match(nxt)):
                if not first and (m := finish(pos)) is not None:
                    yield m
                if stop is not None and pos >= stop:
                    return
                mail_start, fp = pos + len(line), bool(files._FORMAT_PATCH_RE.match(line))
                head, in_head, first, kept = [], True, False, 0
                body_start = mail_start
            elif in_head:
                if line.strip(b"\r\n"):
                    if kept < HEAD_BYTES:
                        head.append(line)
                        kept += len(line)
                else:
                    in_head = False
                    body_start = pos + len(line)
                    if bodies is not None and (sep := bodies.next_separator(body_start, strict, cap)) is not None:
                        pos, prev_blank = sep, True  # the body's lines decide nothing: on to its end
                        read_on_to(fh, sep)
                        lines = _lines(fh, _LINE_PIECE)
                        continue
            pos += len(line)
            prev_blank = (len(line) <= 2 or line[0] in (10, 13)) and not line.strip(b"\r\n")
        if not first and (m := finish(pos)) is not None:
            yield m
    finally:
        if bodies is not None:
            bodies.close()
        os.close(fd)


def mbox_segments(path: str, skip: int, parts: int) -> list[tuple[int, int | None]]:
    """segments.segments() cut where scan_mbox, reading lines in pieces of _LINE_PIECE, would cut."""
    return segments(path, skip, parts, _LINE_PIECE)


def scan_segment(path: str, start: int, stop: int | None, skip: int, label: str) -> list[MailHead]:
    """The mails of one segment (segments()) of an mbox."""
    with open(path, "rb") as fh:
        fh.seek(skip)
        first_line = fh.readline(_LINE_PIECE)
        return list(scan_mbox(path, fh, start, label, first_line, stop))


def _change_id(body: bytes) -> bytes | None:
    """The first `change-id:` line's value (any case, at a line start), as b4 prep writes it."""
    # `-id:` in any case first: the search skips from dash to dash in C, where lowering every
    # body copied the whole archive once more (a tenth of the index).
    if _ID_COLON_RE.search(body) is None or b"change-id:" not in body.lower():
        return None
    m = _CHANGE_ID_BODY_RE.search(body)
    return m.group(1) if m else None


def single_head(path: str, data: bytes, offset: int, label: str, size: int | None = None,
                blob: str = "") -> MailHead | None:
    """One mail file (or a public-inbox's `blob`); `size` when only its first part was read (one
    over the mail limit)."""
    end = re.search(rb"\r?\n\r?\n", data)
    head = data[: end.start() + 1] if end else data
    ref = MailRef(path, offset, size if size is not None else len(data), label=label, blob=blob)
    return _head(ref, head, lambda: data[end.end():] if end else b"", data if size is None else None)


def probe(fh: BinaryIO, name: str) -> tuple[str, int]:
    """("mbox" or "single", the number of blank bytes before the first line) of an open file, as
    files._mails_of_file recognises it; InputError when it is not mail."""
    probe = fh.read(65536)
    if not probe.strip():
        raise InputError(f"{name}: the file is empty")
    skip = len(probe) - len(probe.lstrip(b"\r\n")) if probe[:1] in (b"\r", b"\n") else 0
    data = probe[skip:]
    head = data[:4096].split(b"\n", 2)
    if data.startswith(b"From ") and (files._SEPARATOR_RE.match(head[0])
                                      or len(head) > 1 and files._FIELD_RE.match(head[1])):
        return "mbox", skip
    if b"\x00" in data[:4096] and not re.search(rb"^(Subject|From|Message-I[dD]):", data[:65536], re.M):
        raise InputError(f"{name}: not a mail file (binary data)")
    if not files._PARSER_HEADER_RE.match(data):
        raise InputError(f"{name}: not a mail file (it does not start with mail headers or an mbox "
                         "`From ` line)")
    return "single", skip


def index_file(path: Path, label: str | None = None, segmented: SegmentScan | None = None,
               cap: int | None = None) -> Iterator[MailHead]:
    """Every mail of one file (mbox or single message), in file order; the file is recognised
    as files._mails_of_file recognises it. With `segmented`, a large mbox's first segment is
    scanned here while the others are scanned elsewhere: the same mails in the same order.
    `cap`: as for scan_mbox (a gzip's copy, cut at its bound)."""
    name = label or str(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from exc
    with fh:
        kind, skip = probe(fh, name)
        if kind == "mbox":
            cuts = mbox_segments(str(path), skip, segmented.parts) \
                if segmented is not None and cap is None else [(skip, None)]
            later = segmented.map(scan_segment, [(str(path), a, b, skip, name) for a, b in cuts[1:]]) \
                if len(cuts) > 1 else ()
            yield from scan_mbox(str(path), fh, skip, name, stop=cuts[0][1], cap=cap)
            for heads in later:
                yield from heads
            return
        fh.seek(skip)
        size = os.fstat(fh.fileno()).st_size - skip
        over = size > limits().mail_bytes
        whole = fh.read(HEAD_BYTES if over else -1)  # over the limit: its review refuses it unread
    if (m := single_head(str(path), whole, skip, name, size if over else None)) is not None:
        yield m
