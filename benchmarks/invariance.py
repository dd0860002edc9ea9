"""What must not change a triage: each shared stretch rewritten in ways a maintainer's archive
differs from lore's (line ends, mail order, files, transfer encodings, header spelling, a
maildir), triaged, and compared with the stretch's own report, series by series: status and
findings (rule, severity). A difference is a bug, or a reading that rests on how the archive was
stored rather than on what its mail says.

    python3 benchmarks/invariance.py [STRETCH ...] [--only crlf,shuffled,...]

Each rewriting keeps every mail's meaning: `crlf` (CRLF line ends, a Windows client's mbox),
`reversed` and `shuffled` (the mails in another order), `two-files` (the archive given as two
inputs), `encoded` (every single-part 7/8-bit mail re-sent as quoted-printable or base64),
`duplicated` (every third mail twice, as an inbox subscribed to two lists keeps a cross-posted
mail), `headers` (field names in other cases, every Date in +0530), `direct` (every other mail
without the list's List-* and X-Mailing-List fields, as a maintainer in To or Cc keeps the copy
sent to them), `list-tag` (a Mailman list's `[Foo-devel] ` in every subject), `mboxo` (mutt's
and Python's mbox: `From <sender> <date>` separators, quoted `From ` lines left quoted),
`localized` (a reply's `Re:` as other clients write it: `AW:`, `SV:`, `Antw:`, `Odp:`, `VS:`,
`回复:`, `答复：`), `flowed` (replies in RFC 3676 format=flowed, wrapped at 60 columns, harsher
than a mail client's 72), `gzip`,
`maildir` (a file per mail).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import quopri
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import timedelta, timezone
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
SEP_RE = re.compile(rb"^From mboxrd@z ", re.M)
FIELD_RE = re.compile(rb"^([!-9;-~]+):(.*)$")
MBOXRD_QUOTE_RE = re.compile(rb"^>(>*From )", re.M)
CTE_RE = re.compile(rb"^content-transfer-encoding:[^\n]*\n", re.I | re.M)
NOW = "2027-01-01T00:00:00Z"


def mails_of(data: bytes) -> list[bytes]:
    at = [m.start() for m in SEP_RE.finditer(data)]
    return [m if m.endswith(b"\n\n") else m.rstrip(b"\n") + b"\n\n"
            for m in (data[a:b] for a, b in zip(at, at[1:] + [len(data)]))]


def _parts(mail: bytes) -> tuple[bytes, bytes, bytes] | None:
    """(separator line, header block with its last newline, body) or None."""
    sep = mail.find(b"\n") + 1
    end = mail.find(b"\n\n", sep)
    return None if end < 0 else (mail[:sep], mail[sep:end + 1], mail[end + 2:])


def encoded(mail: bytes, n: int) -> bytes:
    parts = _parts(mail)
    if parts is None:
        return mail
    sep, head, body = parts
    if re.search(rb"^content-type:[ \t]*multipart|^content-transfer-encoding:[ \t]*(quoted-printable|base64)",
                 head, re.I | re.M):
        return mail
    head = CTE_RE.sub(b"", head)
    if not re.search(rb"^content-type:", head, re.I | re.M):
        head += b"Content-Type: text/plain; charset=utf-8\n"
    text, cte = (quopri.encodestring(body), b"quoted-printable") if n % 2 else (base64.encodebytes(body), b"base64")
    return sep + head + b"Content-Transfer-Encoding: " + cte + b"\n\n" + text.rstrip(b"\n") + b"\n\n"


def headers(mail: bytes, n: int) -> bytes:
    parts = _parts(mail)
    if parts is None:
        return mail
    sep, head, body = parts
    india = timezone(timedelta(hours=5, minutes=30))
    out = []
    for i, line in enumerate(head.split(b"\n")):
        m = FIELD_RE.match(line)
        if m and m.group(1).lower() == b"date":
            try:
                when = parsedate_to_datetime(m.group(2).decode("ascii").strip()).astimezone(india)
                line = b"DATE: " + format_datetime(when).encode()
            except (TypeError, ValueError, UnicodeDecodeError):
                pass
        elif m:
            name = m.group(1).upper() if (n + i) % 2 else m.group(1).lower()
            line = name + b":" + m.group(2)
        out.append(line)
    return sep + b"\n".join(out) + b"\n" + body


LIST_FIELD_RE = re.compile(rb"^(list-[a-z-]+|x-mailing-list|precedence):[^\n]*\n(?:[ \t][^\n]*\n)*", re.I | re.M)


def direct(mail: bytes, n: int) -> bytes:
    """Every other mail as its addressee got it straight from the sender, not through the list:
    without the list's own header fields (a maintainer in To or Cc keeps that copy)."""
    parts = _parts(mail)
    if parts is None or n % 2:
        return mail
    sep, head, body = parts
    return sep + LIST_FIELD_RE.sub(b"", head) + b"\n" + body


SUBJECT_RE = re.compile(rb"^(subject:[ \t]*)((?:re:[ \t]*)?)", re.I | re.M)
DATE_FIELD_RE = re.compile(rb"^date:[ \t]*([^\n]*)", re.I | re.M)
ADDRESS_RE = re.compile(rb"^from:[^\n]*?([^\s<>\"]+@[^\s<>\"]+)", re.I | re.M)


REPLY_SUBJECT_RE = re.compile(rb"^(subject:[ \t]*)re:[ \t]*", re.I | re.M)
LOCALIZED = ("AW: ", "SV: ", "Antw: ", "Odp: ", "VS: ", "\u56de\u590d: ", "\u7b54\u590d\uff1a")  # 回复, 答复


def localized(mail: bytes, n: int) -> bytes:
    """A reply's `Re:` as other mail clients write it (Outlook in German, Swedish, Dutch, Polish,
    Finnish; Chinese clients' 回复 and 答复), RFC 2047-encoded where it is not ASCII."""
    parts = _parts(mail)
    if parts is None:
        return mail
    sep, head, body = parts
    m = REPLY_SUBJECT_RE.search(head)
    if m is None:
        return mail
    prefix = LOCALIZED[n % len(LOCALIZED)]
    end = head.find(b"\n", m.end())
    rest = head[m.end():end].decode("utf-8", "surrogateescape")
    if prefix.isascii():
        subject = (prefix + rest).encode("utf-8", "surrogateescape")
    else:
        subject = b"=?utf-8?b?" + base64.b64encode(prefix.encode()) + b"?= " + rest.encode("utf-8", "surrogateescape")
    return sep + head[:m.start()] + m.group(1) + subject + head[end:] + b"\n" + body


def flowed(mail: bytes, n: int) -> bytes:
    """A reply as Thunderbird sends it (RFC 3676 format=flowed): lines over 60 characters wrapped
    at a blank, each break a soft one (a trailing space), quoted lines keeping their `>`."""
    parts = _parts(mail)
    if parts is None or not REPLY_SUBJECT_RE.search(parts[1]) or re.search(
            rb"^content-type:[ \t]*multipart|^content-transfer-encoding:[ \t]*(quoted-printable|base64)",
            parts[1], re.I | re.M):
        return mail
    sep, head, body = parts
    out = []
    for line in body.split(b"\n"):
        quote = re.match(rb"^(>+ ?)", line)
        prefix = quote.group(1) if quote else b""
        while len(line) > 60 and (cut := line.rfind(b" ", len(prefix) + 1, 60)) > len(prefix):
            out.append(line[:cut + 1])  # the blank stays at the end: a soft break
            line = prefix + line[cut + 1:]
        out.append(line.rstrip(b" ") if line.strip() != b"--" else line)
    head = re.sub(rb"^content-type:[^\n]*\n(?:[ \t][^\n]*\n)*", b"", head, flags=re.I | re.M)
    head += b"Content-Type: text/plain; charset=utf-8; format=flowed\n"
    return sep + head + b"\n" + b"\n".join(out)


def list_tag(mail: bytes, n: int) -> bytes:
    """The subject tag a Mailman list adds (`[Foo-devel] [PATCH v2 1/3] ...`, after `Re: `)."""
    parts = _parts(mail)
    if parts is None:
        return mail
    sep, head, body = parts
    return sep + SUBJECT_RE.sub(rb"\1\2[Foo-devel] ", head, count=1) + b"\n" + body


def mboxo(mail: bytes, n: int) -> bytes:
    """As mutt or mailbox.mbox write it: `From <sender> <asctime>` separators, and a body's `From `
    lines quoted once and never unquoted (an mboxrd archive's quoted lines keep their `>`)."""
    parts = _parts(mail)
    if parts is None:
        return mail
    sep, head, body = parts
    who = ADDRESS_RE.search(head)
    when = DATE_FIELD_RE.search(head)
    try:
        stamp = parsedate_to_datetime(when.group(1).decode("ascii").strip()).strftime("%a %b %e %H:%M:%S %Y")
    except (AttributeError, TypeError, ValueError, UnicodeDecodeError):
        stamp = "Thu Jan  1 00:00:00 1970"
    sender = who.group(1) if who else b"MAILER-DAEMON"
    return b"From " + sender + b" " + stamp.encode() + b"\n" + head + b"\n" + body


def rewrite(kind: str, data: bytes, tmp: Path) -> list[Path]:
    mails = mails_of(data)
    out = tmp / f"{kind}.mbox"
    if kind == "crlf":
        out.write_bytes(data.replace(b"\n", b"\r\n"))
    elif kind == "reversed":
        out.write_bytes(b"".join(mails[::-1]))
    elif kind == "shuffled":
        random.Random(7).shuffle(mails)
        out.write_bytes(b"".join(mails))
    elif kind == "two-files":
        half = len(mails) // 2
        second = tmp / "two-files-2.mbox"
        out.write_bytes(b"".join(mails[half:]))
        second.write_bytes(b"".join(mails[:half]))
        return [out, second]
    elif kind == "encoded":
        out.write_bytes(b"".join(encoded(m, n) for n, m in enumerate(mails)))
    elif kind == "headers":
        out.write_bytes(b"".join(headers(m, n) for n, m in enumerate(mails)))
    elif kind == "duplicated":
        out.write_bytes(b"".join(m + m if n % 3 == 0 else m for n, m in enumerate(mails)))
    elif kind == "flowed":
        out.write_bytes(b"".join(flowed(m, n) for n, m in enumerate(mails)))
    elif kind == "localized":
        out.write_bytes(b"".join(localized(m, n) for n, m in enumerate(mails)))
    elif kind == "list-tag":
        out.write_bytes(b"".join(list_tag(m, n) for n, m in enumerate(mails)))
    elif kind == "mboxo":
        out.write_bytes(b"".join(mboxo(m, n) for n, m in enumerate(mails)))
    elif kind == "direct":
        out.write_bytes(b"".join(direct(m, n) for n, m in enumerate(mails)))
    elif kind == "gzip":
        out = tmp / "gzip.mbox.gz"
        out.write_bytes(gzip.compress(data, 6))
    elif kind == "maildir":
        out = tmp / "maildir"
        for d in ("cur", "new", "tmp"):
            (out / d).mkdir(parents=True)
        for n, m in enumerate(mails):
            body = MBOXRD_QUOTE_RE.sub(rb"\1", m[m.find(b"\n") + 1:])  # a maildir file holds the mail as sent
            (out / "cur" / f"{n:06d}.mail:2,S").write_bytes(body)
    return [out]


KINDS = ("crlf", "reversed", "shuffled", "two-files", "duplicated", "encoded", "headers", "direct", "list-tag", "mboxo",
         "localized", "flowed", "gzip", "maildir")


def triage(paths: list[Path], cache: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "reviewtool", "triage", *map(str, paths), "--no-store", "--format",
                        "json", "--now", NOW, "--no-progress"], capture_output=True,
                       env={**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)})
    if r.returncode not in (0, 1):
        raise SystemExit(f"triage {paths[0].name} failed ({r.returncode}): {r.stderr.decode()[-400:]}")
    return json.loads(r.stdout)


def compare(ref: dict, got: dict) -> tuple[Counter, list[str]]:
    want = {s["msgid"]: s for s in ref["series"]}
    have = {s["msgid"]: s for s in got["series"]}
    counts: Counter = Counter()
    examples = []
    for msgid, s in want.items():
        t = have.get(msgid)
        if t is None:
            counts["missing"] += 1
            examples.append(f"missing: {s['full_subject'][:70]}")
            continue
        if t["status"] != s["status"]:
            counts["status"] += 1
            examples.append(f"{s['status']} -> {t['status']}: {s['full_subject'][:70]}")
        rules = [Counter((f["rule"], f["severity"]) for f in x.get("findings", ())) for x in (s, t)]
        if rules[0] != rules[1]:
            counts["findings"] += 1
            examples.append(f"findings {dict(rules[0] - rules[1])} / {dict(rules[1] - rules[0])}: "
                            f"{s['full_subject'][:60]}")
    counts["extra"] = len(set(have) - set(want))
    return +counts, examples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--only", default=",".join(KINDS))
    args = ap.parse_args()
    kinds = [k for k in args.only.split(",") if k]
    bad = 0
    for src in sorted(LISTS.glob("*.mbox.gz")):
        name = src.name[:-len(".mbox.gz")]
        if args.names and name not in args.names:
            continue
        with tempfile.TemporaryDirectory(prefix="invariance-") as tmp:
            tmp = Path(tmp)
            data = gzip.decompress(src.read_bytes())
            plain = tmp / f"{name}.mbox"
            plain.write_bytes(data)
            ref = triage([plain], tmp / "cache")
            print(f"{name}: {ref['totals']['messages']:,} messages, {len(ref['series'])} series")
            for kind in kinds:
                counts, examples = compare(ref, triage(rewrite(kind, data, tmp), tmp / "cache"))
                bad += bool(counts)
                print(f"  {kind:<10} {'the same' if not counts else dict(counts)}")
                for line in examples[:8]:
                    print(f"      {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
