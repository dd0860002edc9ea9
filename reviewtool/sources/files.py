"""Local input: mbox (mboxo/mboxrd), maildir, one RFC 822 message, gzip of either, a
`git format-patch` file or a directory of them, into parsed messages.

git format-patch output carries no Message-ID; we synthesize stable ones (a hash of the mail) and
thread the files the way git send-email does (every patch in reply to the first mail).
A path that does not exist is an error, never created (b4's mailbox reader creates it).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import zlib
from dataclasses import dataclass, replace
from email.message import EmailMessage
from pathlib import Path

from ..bounded import number
from ..errors import InputError, LimitError
from ..limits import limits, megabytes
from ..mail.fastheaders import message_from_bytes
from ..mail.headers import MAIL_POLICY, add_raw, header, message_id_of


_SEPARATOR_RE = re.compile(rb"^From (mboxrd@z|\S+ +\w{3} +\w{3} +\d{1,2} +\d{1,2}:\d{2}(:\d{2})? +\d{4}|\S+@\S+ .*\d{4}|\S+ .*\d{1,2}:\d{2}.*\d{4})")
_FORMAT_PATCH_RE = re.compile(rb"^From [0-9a-f]{40}(?:[0-9a-f]{24})? Mon Sep 17 00:00:00 2001")  # SHA-1/256
_MBOXRD_QUOTE_RE = re.compile(rb"^>(>*From )", re.M)
_FIELD_RE = re.compile(rb"^[!-9;-~]+:")  # a header line: field name and colon (RFC 5322)
_FROM_LINE_RE = re.compile(rb"\nFrom ")
_PARSER_HEADER_RE = re.compile(rb"^(From |[!-9;-~]*:|[\t ])")  # what the email parser takes as a header
_PLAIN_DIFF_RE = re.compile(rb"^(diff --git |diff -|--- \S.*\n\+\+\+ |Index: )", re.M)
SYNTHETIC_DOMAIN = "format-patch.reviewtool.invalid"
_OTHER_COMPRESSION = ((re.compile(rb"\xfd7zXZ\x00"), "xz"), (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2"),
                      (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd"))


@dataclass(frozen=True)
class RawMail:
    data: bytes
    origin: str  # "path" or "path:index"
    format_patch: bool = False  # written by git format-patch (no Message-ID of its own)
    unread: int = 0  # the length of a mail left unread because it is over the mail limit (triage)


def _gunzip(data: bytes, path: Path) -> bytes:
    """Decompress every gzip member, no further than REVIEWTOOL_MAX_GZIP_RATIO times the gzip's
    size (a gzip bomb). Only small files are read whole (`check` unpacks a larger one to a scratch
    file and narrows it: conversation/narrow.py)."""
    bound = max(limits().gzip_ratio * len(data), 1 << 20)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            out = fh.read(bound + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: corrupt gzip data ({' '.join(str(exc).split()) or type(exc).__name__})") from exc
    if len(out) > bound:
        raise LimitError(str(path), f"decompresses to more than {limits().gzip_ratio} times its size "
                                    "(REVIEWTOOL_MAX_GZIP_RATIO)")
    return out


def _read_bytes(path: Path) -> bytes:
    """The file whole: what reads it so (a small `check` input, a directory of format-patch
    files) is handed small files; an archive is indexed instead (sources/index.py)."""
    try:
        if not path.is_file():
            raise InputError(f"{path}: not a regular file")
        data = path.read_bytes()
    except PermissionError as exc:
        raise InputError(f"{path}: permission denied") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, path)
    for magic, kind in _OTHER_COMPRESSION:
        if magic.match(data):
            raise InputError(f"{path}: {kind}-compressed; only gzip is read, decompress it first")
    return data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark from an editor


def split_mbox(data: bytes, origin: str) -> list[RawMail]:
    """Split mbox bytes on `From ` separator lines. The first line is one. After it, a separator
    follows a blank line and, like git mailsplit's, carries a date; when the file's own first
    separator has none (`From nobody`, `From A`: Python's mailbox module writes those), a `From `
    line followed by a header line is one too. Only an mboxrd file (public-inbox's `From mboxrd@z`
    separator) gets its `>From ` lines unquoted: in mboxo and in git format-patch output a
    `>From ` line is text. Only the lines that start with `From ` are looked at, each mail is one
    slice of the input: a header folded 800,000 times is not 800,000 objects."""
    first = data[:data.find(b"\n")] if b"\n" in data else data
    mboxrd = first.startswith(b"From mboxrd@z")
    strict = bool(_SEPARATOR_RE.match(first))
    seps: list[tuple[int, int]] = []  # (where the separator line starts, where it ends)
    for start in ([0] if data.startswith(b"From ") else []) + [m.start() + 1 for m in _FROM_LINE_RE.finditer(data)]:
        before = data.rfind(b"\n", 0, start - 1) + 1 if start else 0
        if start and data[before:start - 1].strip(b"\r"):
            continue  # no blank line before it
        end = data.find(b"\n", start)
        line = data[start:end if end >= 0 else len(data)]
        if not seps or _SEPARATOR_RE.match(line) or not strict and end >= 0 and _FIELD_RE.match(_line_at(data, end + 1)):
            seps.append((start, end if end >= 0 else len(data)))
    mails = []
    for i, (start, end) in enumerate(seps):
        upto = seps[i + 1][0] - 1 if i + 1 < len(seps) else len(data)
        raw = data[end + 1:upto].rstrip(b"\n") + b"\n"
        if mboxrd and b">From " in raw:  # every quoted line holds it; the pattern's `^` is tried at every byte
            raw = _MBOXRD_QUOTE_RE.sub(rb"\1", raw)
        if raw.strip():
            mails.append(RawMail(raw, f"{origin}:{i + 1}", bool(_FORMAT_PATCH_RE.match(_line_at(data, start)))))
    return mails


def _line_at(data: bytes, start: int) -> bytes:
    end = data.find(b"\n", start)
    return data[start:end if end >= 0 else len(data)]


def _directory_files(path: Path) -> list[Path]:
    """A maildir's cur/ and new/, else the directory's visible regular files, in name order."""
    try:
        if all((path / d).is_dir() for d in ("cur", "new", "tmp")):
            entries = [*(path / "cur").iterdir(), *(path / "new").iterdir()]
        else:
            entries = list(path.iterdir())
    except PermissionError as exc:
        raise InputError(f"{path}: permission denied") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot list the directory ({exc.strerror or exc})") from exc
    return sorted(p for p in entries if not p.name.startswith(".") and p.is_file())


def read_raw_mails(path: Path, label: str | None = None) -> list[RawMail]:
    """Every mail in `path`, in file order; `label` names a file in origins and messages (a
    scratch copy by its input's name)."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if not path.is_dir():
        return _mails_of_file(path, label)
    files = _directory_files(path)
    if not files:
        raise InputError(f"{path}: the directory holds no mail files")
    mails: list[RawMail] = []
    first_error: InputError | None = None
    for f in files:
        try:
            mails.extend(_mails_of_file(f))
        except InputError as exc:  # a stray non-mail file (a quilt `series`, a README) is skipped
            first_error = first_error or exc
    if not mails:
        raise first_error or InputError(f"{path}: the directory holds no mail files")
    return mails


def _mails_of_file(path: Path, label: str | None = None) -> list[RawMail]:
    data = _read_bytes(path)
    name = label or str(path)
    if not data.strip():
        raise InputError(f"{name}: the file is empty")
    data = data.lstrip(b"\r\n") if data[:1] in (b"\r", b"\n") else data
    head = data[:4096].split(b"\n", 2)
    if data.startswith(b"From ") and (_SEPARATOR_RE.match(head[0]) or len(head) > 1 and _FIELD_RE.match(head[1])):
        mails = split_mbox(data, name)
        if not mails:
            raise InputError(f"{name}: an mbox with no messages in it")
        return mails
    if b"\x00" in data[:4096] and not re.search(rb"^(Subject|From|Message-I[dD]):", data[:65536], re.M):
        raise InputError(f"{name}: not a mail file (binary data)")
    if not _PARSER_HEADER_RE.match(data):  # the email parser would see no header at all
        raise InputError(f"{name}: {_not_mail_reason(data)}")
    return [RawMail(data, name)]


def _not_mail_reason(data: bytes) -> str:
    if _PLAIN_DIFF_RE.search(data[:65536]):
        return "a plain diff, not a mail (no headers): send it as `git format-patch` output"
    return "not a mail file (it does not start with mail headers or an mbox `From ` line)"


def mail_too_big(size: int, origin: str) -> LimitError | None:
    max_mail = limits().mail_bytes
    if size <= max_mail:
        return None
    return LimitError(origin, f"one mail of {megabytes(size)} is over the limit of {megabytes(max_mail)} "
                              "(REVIEWTOOL_MAX_MAIL_MB)")


_MULTIPART_RE = re.compile(rb"^content-type:[ \t]*multipart/", re.I | re.M)
_BOUNDARY_RE = re.compile(rb'boundary[ \t]*=[ \t]*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.I)


def mime_depth(data: bytes) -> int:
    """How deep the mail's multipart parts nest, read line by line as a MIME parser reads the
    delimiters (the email package's parser recurses once per level)."""
    stack: list[bytes] = []
    where: dict[bytes, int] = {}
    deepest, in_head, head = 0, True, []
    for line in data.split(b"\n"):
        line = line.rstrip(b"\r")
        if in_head:
            if line.strip():
                head.append(line)
                continue
            in_head, block, head = False, b"\n".join(head), []
            m = _BOUNDARY_RE.search(block) if _MULTIPART_RE.search(block) else None
            if m:
                b = m.group(1) or m.group(2)
                where[b] = len(stack)
                stack.append(b)
                deepest = max(deepest, len(stack))
            continue
        if not stack or not line.startswith(b"--"):
            continue
        token = line[2:].rstrip()
        closing = token.endswith(b"--") and token[:-2] in where
        name = token[:-2] if closing else token
        if name not in where:
            continue
        keep = where[name] + (0 if closing else 1)
        for b in stack[keep:]:
            where.pop(b, None)
        del stack[keep:]
        in_head = not closing  # a part starts: its headers follow
    return deepest


def _over_limits(raw: RawMail) -> LimitError | None:
    """The limit one mail is over, read without parsing it: size, line length, header fields,
    MIME depth. Each costs nothing for the mails of ordinary size and shape."""
    too_big = mail_too_big(raw.unread or len(raw.data), raw.origin)
    if too_big is not None:
        return too_big
    lim, data = limits(), raw.data
    if len(data) > lim.line_bytes and _longest_line_over(data, lim.line_bytes):
        return LimitError(raw.origin, f"a line of over {megabytes(lim.line_bytes)} is over the line limit "
                                      "(REVIEWTOOL_MAX_LINE_KB)")
    end = data.find(b"\n\n")
    head = data if end < 0 else data[:end]
    if head.count(b"\n") >= lim.header_fields:
        fields = sum(1 for line in head.split(b"\n") if line[:1] not in (b" ", b"\t", b""))
        if fields > lim.header_fields:
            return LimitError(raw.origin, f"{fields} header fields are over the limit of {lim.header_fields} "
                                          "(REVIEWTOOL_MAX_HEADERS)")
    # `multipart/` anywhere (any case) bounds the Content-Type lines that open a part: a count in
    # C first, the line-anchored search only for the rare mail with that many
    if data.lower().count(b"multipart/") > lim.mime_depth and \
            len(_MULTIPART_RE.findall(data, 0, len(data))) > lim.mime_depth:
        depth = mime_depth(data)
        if depth > lim.mime_depth:
            return LimitError(raw.origin, f"MIME parts nest {depth} deep, over the limit of {lim.mime_depth} "
                                          "(REVIEWTOOL_MAX_MIME_DEPTH)")
    return None


def _longest_line_over(data: bytes, cap: int) -> bool:
    start = 0
    while True:
        i = data.find(b"\n", start)
        if (len(data) if i < 0 else i) - start > cap:
            return True
        if i < 0:
            return False
        start = i + 1


def lf_lines(data: bytes) -> bytes:
    """A mail stored with CRLF line endings (its first line ends in CRLF: a Windows client's
    mbox, a saved .eml) with LF ones, as git mailsplit reads it without --keep-cr; any other
    mail as it is, so a diff of a CRLF file keeps its CRs."""
    end = data.find(b"\n")
    return data.replace(b"\r\n", b"\n") if end > 0 and data[end - 1] == 13 else data


def parse_mail(raw: RawMail) -> tuple[EmailMessage | None, bool]:
    """One mail, parsed, with a Message-ID; (None, False) when it is not a mail at all. The flag
    says the Message-ID was synthesized for a format-patch file, which still needs threading
    (its id is a hash of the mail's bytes as stored, as the archive's index makes it).
    InputError when the mail is over a limit (limits.py)."""
    stored, data = raw, lf_lines(raw.data)
    if data is not raw.data:
        raw = replace(raw, data=data)
    over = _over_limits(raw)
    if over is not None:
        raise over
    try:
        msg = message_from_bytes(raw.data, MAIL_POLICY)
    except RecursionError as exc:  # nesting the depth count did not see (message/rfc822 in message/rfc822...)
        raise LimitError(raw.origin, "MIME parts nest too deeply to read (REVIEWTOOL_MAX_MIME_DEPTH)") from exc
    if not msg.keys():
        return None, False
    if message_id_of(msg):
        return msg, False
    digest = hashlib.sha256(stored.data).hexdigest()[:24]
    del msg["Message-ID"]
    add_raw(msg, "Message-ID", f"<{digest}@{SYNTHETIC_DOMAIN}>")
    return msg, raw.format_patch or _looks_like_patch(msg)


def parse_mails(raws: list[RawMail]) -> list[EmailMessage]:
    """Parse, give every mail a Message-ID, and thread format-patch files like git send-email."""
    msgs: list[EmailMessage] = []
    synthesized: list[EmailMessage] = []
    for raw in raws:
        msg, needs_thread = parse_mail(raw)
        if msg is None:
            continue
        if needs_thread:
            synthesized.append(msg)
        msgs.append(msg)
    _thread_like_send_email(synthesized)
    return msgs


def thread_under(msg: EmailMessage, root: EmailMessage) -> None:
    """Make `msg` a reply to `root`, as git send-email threads a series (--no-chain-reply-to)."""
    if not header(msg, "In-Reply-To"):
        add_raw(msg, "In-Reply-To", header(root, "Message-ID"))
        add_raw(msg, "References", header(root, "Message-ID"))


def _looks_like_patch(msg: EmailMessage) -> bool:
    return "[PATCH" in header(msg, "Subject").upper()


_PREFIX_RE = re.compile(r"^\s*\[([^\]]*)\]")


def _position(msg: EmailMessage) -> tuple[str, int]:
    """(the series a format-patch mail belongs to, its counter): `[PATCH v2 3/7]` -> ("v2/7", 3)."""
    m = _PREFIX_RE.match(header(msg, "Subject"))
    prefix = m.group(1) if m else ""
    version = re.search(r"\bv(\d+)\b", prefix, re.I)
    counter = re.search(r"\b(\d+)/(\d+)\b", prefix)
    key = f"v{version.group(1) if version else 1}/{counter.group(2) if counter else 1}"
    return key, (number(counter.group(1)) or 1) if counter else 1


def _thread_like_send_email(msgs: list[EmailMessage]) -> None:
    """git send-email (--thread, --no-chain-reply-to): every mail of a series answers its first.

    A directory may hold several revisions (v1-*.patch, v2-*.patch): each is its own thread."""
    series: dict[str, list[tuple[int, EmailMessage]]] = {}
    for msg in msgs:
        key, counter = _position(msg)
        series.setdefault(key, []).append((counter, msg))
    for members in series.values():
        members.sort(key=lambda cm: cm[0])
        for _, msg in members[1:]:
            thread_under(msg, members[0][1])


def load_messages(path: Path) -> list[EmailMessage]:
    msgs = parse_mails(read_raw_mails(path))
    if not msgs:
        raise InputError(f"{path}: no mail message could be read from it")
    return msgs
