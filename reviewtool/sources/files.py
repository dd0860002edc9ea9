"""Local input: mbox (mboxo/mboxrd), maildir, one RFC 822 message, gzip of either, a
`git format-patch` file or a directory of them, into parsed messages.

git format-patch output carries no Message-ID; we synthesize stable ones (a hash of the mail) and
thread the files the way git send-email does (every patch in reply to the first mail).
"""

from __future__ import annotations

import email
import email.policy
import gzip
import hashlib
import re
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from ..errors import InputError

# b4's own parsing policy: keep 8-bit bodies, never re-wrap headers.
MAIL_POLICY = email.policy.EmailPolicy(utf8=True, cte_type="8bit", max_line_length=None,
                                       message_factory=EmailMessage)
MAX_INPUT_BYTES = 256 * 1024 * 1024  # a limit, not a target: see README "Limits"

_SEPARATOR_RE = re.compile(rb"^From (mboxrd@z|\S+ +\w{3} +\w{3} +\d{1,2} +\d{1,2}:\d{2}(:\d{2})? +\d{4}|\S+@\S+ .*\d{4}|\S+ .*\d{1,2}:\d{2}.*\d{4})")
_FORMAT_PATCH_RE = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001")
_MBOXRD_QUOTE_RE = re.compile(rb"^>(>*From )", re.M)


@dataclass(frozen=True)
class RawMail:
    data: bytes
    origin: str  # "path" or "path:index"
    format_patch: bool = False  # written by git format-patch (no Message-ID of its own)


def _read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise InputError(f"{path}: {size} bytes is over the input limit of {MAX_INPUT_BYTES} bytes")
        data = path.read_bytes()
    except PermissionError as exc:
        raise InputError(f"{path}: permission denied") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"{path}: corrupt gzip data ({exc})") from exc
    return data


def split_mbox(data: bytes, origin: str) -> list[RawMail]:
    """Split mbox bytes on `From ` separator lines; undo mboxrd quoting when the file is mboxrd."""
    lines = data.split(b"\n")
    mboxrd = lines[0].startswith(b"From mboxrd@z")
    chunks: list[list[bytes]] = []
    seps: list[bytes] = []
    prev_blank = True
    for line in lines:
        if line.startswith(b"From ") and prev_blank and _SEPARATOR_RE.match(line):
            chunks.append([])
            seps.append(line)
        elif chunks:
            chunks[-1].append(line)
        prev_blank = not line.strip(b"\r")
    mails = []
    for i, (sep, chunk) in enumerate(zip(seps, chunks)):
        raw = b"\n".join(chunk).rstrip(b"\n") + b"\n"
        if mboxrd:
            raw = _MBOXRD_QUOTE_RE.sub(rb"\1", raw)
        if raw.strip():
            mails.append(RawMail(raw, f"{origin}:{i + 1}", bool(_FORMAT_PATCH_RE.match(sep))))
    return mails


def read_raw_mails(path: Path) -> list[RawMail]:
    """Every mail in `path`, in file order."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        if all((path / d).is_dir() for d in ("cur", "new", "tmp")):
            files = sorted([*(path / "cur").iterdir(), *(path / "new").iterdir()])
        else:
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError(f"{path}: the directory holds no mail files")
        mails: list[RawMail] = []
        for f in files:
            mails.extend(_mails_of_file(f))
        return mails
    return _mails_of_file(path)


def _mails_of_file(path: Path) -> list[RawMail]:
    data = _read_bytes(path)
    if not data.strip():
        raise InputError(f"{path}: the file is empty")
    if data.startswith(b"From ") and _SEPARATOR_RE.match(data.split(b"\n", 1)[0]):
        mails = split_mbox(data, str(path))
        if not mails:
            raise InputError(f"{path}: an mbox with no messages in it")
        return mails
    if b"\x00" in data[:4096] and not re.search(rb"^(Subject|From|Message-I[dD]):", data[:65536], re.M):
        raise InputError(f"{path}: not a mail file (binary data)")
    return [RawMail(data, str(path))]


def message_id_of(msg: EmailMessage) -> str | None:
    raw = header(msg, "Message-ID")
    m = re.search(r"<([^<>\s]+)>", raw) or re.search(r"(\S+@\S+)", raw)
    return m.group(1) if m else None


def header(msg: EmailMessage, name: str) -> str:
    """A header as text; a malformed header gives its raw text instead of an exception."""
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


def parse_mails(raws: list[RawMail]) -> list[EmailMessage]:
    """Parse, give every mail a Message-ID, and thread format-patch files like git send-email."""
    msgs: list[EmailMessage] = []
    synthesized: list[EmailMessage] = []
    for raw in raws:
        msg = email.message_from_bytes(raw.data, policy=MAIL_POLICY)
        if not msg.keys():
            continue  # not a mail at all
        _quarantine_bad_headers(msg)
        if not message_id_of(msg):
            digest = hashlib.sha256(raw.data).hexdigest()[:24]
            del msg["Message-ID"]
            msg["Message-ID"] = f"<{digest}@format-patch.reviewtool.invalid>"
            if raw.format_patch or _looks_like_patch(msg):
                synthesized.append(msg)
        msgs.append(msg)
    _thread_like_send_email(synthesized)
    return msgs


# Headers the email package parses into objects; a hostile value raises on access (an
# out-of-range year in Date raised OverflowError inside b4), so unusable ones are set aside.
_STRUCTURED = ("Date", "From", "To", "Cc", "Message-ID", "In-Reply-To", "References", "Subject")


def _quarantine_bad_headers(msg: EmailMessage) -> None:
    for name in _STRUCTURED:
        try:
            msg.get_all(name)
            for value in msg.get_all(name) or ():
                str(value)
        except Exception:
            raw = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
            del msg[name]
            for value in raw:
                msg[f"X-Reviewtool-Unparsable-{name}"] = " ".join(str(value).split())[:200]


def _looks_like_patch(msg: EmailMessage) -> bool:
    return "[PATCH" in header(msg, "Subject").upper()


def _counter(msg: EmailMessage) -> int:
    m = re.search(r"\b(\d+)/\d+\]", header(msg, "Subject"))
    return int(m.group(1)) if m else 1


def _thread_like_send_email(msgs: list[EmailMessage]) -> None:
    if len(msgs) < 2:
        return
    msgs.sort(key=_counter)
    root = header(msgs[0], "Message-ID")
    for msg in msgs[1:]:
        if not header(msg, "In-Reply-To"):
            msg["In-Reply-To"] = root
            msg["References"] = root


def load_messages(path: Path) -> list[EmailMessage]:
    return parse_mails(read_raw_mails(path))
