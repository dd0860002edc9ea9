"""Index a mail archive without holding it: one pass over the bytes, headers only.

A list archive of 10,000 series is hundreds of megabytes. We never keep parsed messages: each
mail becomes a `MailRef` (where its bytes are) and a `MailHead` (the few headers that group it
into threads and series). Bodies are parsed later, one series at a time (`raw_mail`), through
the same splitter rules and parser as `reviewtool check` (sources/files.py).
"""

from __future__ import annotations

import email.parser
import gzip
import hashlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from ..errors import InputError
from ..sources import files
from ..sources.files import MAIL_POLICY, RawMail, header, message_id_of
from ..sources.threads import msg_date

_HEADER_PARSER = email.parser.BytesHeaderParser(policy=MAIL_POLICY)
_IDS_RE = re.compile(r"<([^<>\s]+)>")
_CHANGE_ID_RE = re.compile(rb"^change-id:[ \t]*(\S+)", re.I)
SYNTHETIC_DOMAIN = "format-patch.reviewtool.invalid"  # the domain files.parse_mails uses


@dataclass(frozen=True, slots=True)
class MailRef:
    """Where one mail's bytes are: enough for a worker process to read it again."""

    path: str
    offset: int  # first byte after the `From ` separator line (0 for a single-mail file)
    length: int
    in_mbox: bool = False  # a chunk of an mbox (files.split_mbox trims and unquotes those)
    mboxrd: bool = False
    format_patch: bool = False

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


def raw_mail(ref: MailRef, fh: BinaryIO) -> RawMail:
    """The mail's bytes exactly as files.split_mbox would hand them to the parser."""
    fh.seek(ref.offset)
    data = fh.read(ref.length)
    if ref.in_mbox:
        data = data.rstrip(b"\n") + b"\n"
        if ref.mboxrd:
            data = files._MBOXRD_QUOTE_RE.sub(rb"\1", data)
    return RawMail(data, ref.origin, ref.format_patch)


def _head(ref: MailRef, head: bytes, change_id: bytes | None, whole: bytes | None) -> MailHead | None:
    msg = _HEADER_PARSER.parsebytes(head)
    if not msg.keys():
        return None  # not a mail (files.parse_mails skips these too)
    msgid = message_id_of(msg)
    synthesized = False
    if not msgid:
        # The same id files.parse_mails gives it: a hash of the mail's bytes.
        data = whole if whole is not None else b""
        msgid = f"{hashlib.sha256(data).hexdigest()[:24]}@{SYNTHETIC_DOMAIN}"
        synthesized = True
    irt = _IDS_RE.findall(header(msg, "In-Reply-To"))
    refs = _IDS_RE.findall(header(msg, "References"))
    date = msg_date(msg)
    return MailHead(ref=ref, msgid=msgid, parents=tuple(irt + refs), in_reply_to=irt[0] if irt else None,
                    subject=header(msg, "Subject"), sender=header(msg, "From").lower(),
                    date=date.timestamp() if date else None,
                    change_id=change_id.decode("ascii", "replace") if change_id else None,
                    synthesized=synthesized)


def _scan_mbox(path: str, fh: BinaryIO) -> Iterator[MailHead]:
    """Split on `From ` lines (files.split_mbox's rule: after a blank line, matching the separator
    pattern), keeping only each mail's header block and change-id line."""
    first = fh.readline()
    mboxrd = first.startswith(b"From mboxrd@z")
    pos = len(first)
    start, fp = pos, bool(files._FORMAT_PATCH_RE.match(first))
    head: list[bytes] = []
    in_head, change_id, prev_blank = True, None, False

    def finish(end: int) -> MailHead | None:
        ref = MailRef(path, start, end - start, True, mboxrd, fp)
        raw = b"".join(head)
        if not raw.strip():
            return None
        whole = None
        if b"message-id:" not in raw.lower():
            with open(path, "rb") as again:
                whole = raw_mail(ref, again).data
        return _head(ref, raw, change_id, whole)

    for line in fh:
        if line.startswith(b"From ") and prev_blank and files._SEPARATOR_RE.match(line):
            if (m := finish(pos)) is not None:
                yield m
            start, fp = pos + len(line), bool(files._FORMAT_PATCH_RE.match(line))
            head, in_head, change_id = [], True, None
        elif in_head:
            if line.strip(b"\r\n"):
                head.append(line)
            else:
                in_head = False
        elif change_id is None and line[:1] in (b"c", b"C") and (m2 := _CHANGE_ID_RE.match(line)):
            change_id = m2.group(1)
        pos += len(line)
        prev_blank = not line.strip(b"\r\n")
    if (m := finish(pos)) is not None:
        yield m


def _single(path: str, data: bytes) -> MailHead | None:
    end = re.search(rb"\r?\n\r?\n", data)
    head = data[: end.start() + 1] if end else data
    m = re.search(rb"^change-id:[ \t]*(\S+)", data[end.end():] if end else b"", re.M | re.I)
    cid = m.group(1) if m else None
    return _head(MailRef(path, 0, len(data)), head, cid, data)


def index_file(path: Path) -> Iterator[MailHead]:
    """Every mail of one file (mbox or single message), in file order."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    with fh:
        first = fh.read(4096)
        if first[:2] == b"\x1f\x8b":
            raise InputError(f"{path}: gzip must be unpacked first (index_inputs does that)")
        if not first.strip():
            return
        firstline = first.split(b"\n", 1)[0]
        fh.seek(0)
        if firstline.startswith(b"From ") and files._SEPARATOR_RE.match(firstline):
            yield from _scan_mbox(str(path), fh)
            return
        if b"\x00" in first and not re.search(rb"^(Subject|From|Message-I[dD]):", first, re.M):
            return  # binary junk in a directory of mail: not a mail
        data = fh.read()
    if (m := _single(str(path), data)) is not None:
        yield m


def mail_files(path: Path) -> list[Path]:
    """The files of an input: itself, a maildir's cur/ and new/, or a directory's files."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        if all((path / d).is_dir() for d in ("cur", "new", "tmp")):
            found = sorted([*(path / "cur").iterdir(), *(path / "new").iterdir()])
        else:
            found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        return [p for p in found if p.is_file()]
    return [path]


def unpack_gzip(path: Path, scratch: Path) -> Path:
    """A gzip input, streamed into the scratch directory (bounded memory, seekable for workers)."""
    target = scratch / f"{hashlib.sha256(str(path).encode()).hexdigest()[:16]}-{path.name.removesuffix('.gz')}"
    try:
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"{path}: corrupt gzip data ({exc})") from exc
    return target


def is_gzip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def index_inputs(paths: list[Path], scratch: Path) -> Iterator[MailHead]:
    """Every mail of every input, streaming; gzip files are unpacked into `scratch` first."""
    for p in paths:
        for f in mail_files(p):
            yield from index_file(unpack_gzip(f, scratch) if is_gzip(f) else f)
