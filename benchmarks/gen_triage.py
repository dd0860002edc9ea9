"""Generated list archives for bench_triage.py, made of the real threads in fixtures/corpus.

Series i is a copy of one corpus thread with its message-ids, subjects and change-ids made
unique, its dates moved and the first added line of each diff marked with the copy's number, so
every copy is its own series with its own patch-ids, as in a real list archive. `append_mails`
adds a morning's traffic to such an archive: new series, new revisions of old series and
replies to old series.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "corpus" / "mbox"
TEMPLATE_DIRS = ("netfilter-devel", "netdev", "b4")
START = datetime(2026, 6, 1, tzinfo=timezone.utc)
_ID_HEADERS_RE = re.compile(rb"^(Message-I[dD]|In-Reply-To|References):(.*(?:\n[ \t].*)*)", re.M | re.I)
_SUBJECT_RE = re.compile(rb"^(Subject:[^\n]*?)(\]\s*)([^\n]*)$", re.M | re.I)
_DATE_RE = re.compile(rb"^Date:[^\n]*(\n[ \t][^\n]*)*", re.M)
_CHANGE_ID_RE = re.compile(rb"^(change-id:[ \t]*\S+)", re.M)
_ADDED_LINE_RE = re.compile(rb"^\+(?!\+\+ )[^\n]*", re.M)
_BASE64_RE = re.compile(rb"^content-transfer-encoding:[ \t]*base64", re.M | re.I)
_PATCH_TAG_RE = re.compile(rb"^(Subject:[^\n]*?\[(?:RFC )?PATCH)((?: [^\]\s]+)*?)(?: v(\d+))?((?: \d+/\d+)?\])",
                           re.M | re.I)
_MSGID_RE = re.compile(rb"^Message-I[dD]:\s*<([^<>\s]+)>", re.M)
_SUBJECT_LINE_RE = re.compile(rb"^Subject:([^\n]*)", re.M)
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"


def templates() -> list[list[bytes]]:
    """Each corpus thread as a list of mails (mboxrd bodies), through reviewtool's own splitter."""
    sys.path.insert(0, str(ROOT))
    from reviewtool.sources.files import read_raw_mails

    out = []
    for d in TEMPLATE_DIRS:
        for f in sorted((CORPUS / d).glob("*.mbox")):
            try:
                mails = [r.data for r in read_raw_mails(f)]
            except Exception:
                continue
            if any(b"[PATCH" in m[:4000] for m in mails):
                out.append(mails)
    return out


def unique(mail: bytes, n: int, when: datetime, ids: bytes | None = None) -> bytes:
    """Copy `n` of a template mail; `ids` tags its message-ids (default: the copy's number)."""
    tag = ids or b"g%d" % n
    head, sep, body = mail.partition(b"\n\n")
    head = _ID_HEADERS_RE.sub(lambda m: m.group(1) + b":" + re.sub(rb"<([^<>\s]+)>", rb"<" + tag + rb".\1>",
                                                                     m.group(2)), head)
    head = _SUBJECT_RE.sub(lambda m: m.group(1) + m.group(2) + b"s%d " % n + m.group(3), head, count=1)
    head = _DATE_RE.sub(b"Date: " + format_datetime(when).encode(), head, count=1)
    body = _CHANGE_ID_RE.sub(rb"\1-g%d" % n, body)
    if not _BASE64_RE.search(head):  # each copy's diffs differ too, so no patch-id repeats across copies
        body = _ADDED_LINE_RE.sub(lambda m: m.group(0) + b" /* g%d */" % n, body, count=1)
    body = re.sub(rb"^(>*From )", rb">\1", body, flags=re.M)  # mboxrd quoting
    return head + sep + body


def _posted(n: int) -> datetime:
    return START + timedelta(minutes=20 * n)


def generate(path: Path, series: int, pool: list[list[bytes]]) -> int:
    """An mboxrd archive of `series` copies of corpus threads; returns its message count."""
    count = 0
    with open(path, "wb") as out:
        for n in range(series):
            for k, mail in enumerate(pool[n % len(pool)]):
                out.write(SEP + unique(mail, n, _posted(n) + timedelta(minutes=k)).rstrip(b"\n") + b"\n\n")
                count += 1
    return count


def _next_revision(mail: bytes) -> bytes:
    """The mail with its [PATCH ...] tag one revision higher (v2 for an unversioned one)."""
    def bump(m: re.Match) -> bytes:
        return m.group(1) + m.group(2) + b" v%d" % (int(m.group(3) or 1) + 1) + m.group(4)
    return _PATCH_TAG_RE.sub(bump, mail, count=1)


def _reply(to: bytes, n: int, k: int, when: datetime) -> bytes:
    """A review of the mail `to` (a copy's first mail) from an outside reviewer."""
    msgid = _MSGID_RE.search(to).group(1)
    subject = _SUBJECT_LINE_RE.search(to).group(1).strip()
    body = (b"On a recent day the author wrote:\n> the patch\n\nLooks right to me.\n\n"
            b"Reviewed-by: Rita Reviewer <rita%d@example.org>\n" % k)
    return (b"From: Rita Reviewer <rita%d@example.org>\nDate: %s\nSubject: Re: %s\nMessage-ID: <r%d.%d@rita.example>\n"
            b"In-Reply-To: <%s>\nReferences: <%s>\nTo: netdev@vger.kernel.org\nMIME-Version: 1.0\n"
            b"Content-Type: text/plain; charset=utf-8\n\n" % (k, format_datetime(when).encode(), subject, n, k, msgid,
                                                               msgid) + body)


def append_mails(path: Path, series: int, pool: list[list[bytes]], mails: int = 300) -> dict[str, int]:
    """Append `mails` mails to an archive `generate` made: in turn a new series (the next copy
    numbers), a new revision of an old series (same change-id and sender, higher revision) and a
    few replies to old series, all dated after the archive's last mail."""
    made = {"mails": 0, "new_series": 0, "revisions": 0, "replies": 0}
    when = _posted(series) + timedelta(hours=1)
    out = bytearray()

    def add(mail: bytes) -> None:
        if made["mails"] < mails:  # the last series may stop short: its other patches come tomorrow
            out.extend(SEP + mail.rstrip(b"\n") + b"\n\n")
            made["mails"] += 1

    step = 0
    recent = max(1, series * 2 // 3)  # revisions follow within weeks (group.REVISION_WINDOW_S)
    while made["mails"] < mails:
        old = series - 1 - (step * 7919) % recent  # spread over the archive's newer part
        if step % 3 == 0:
            n = series + made["new_series"]
            for k, mail in enumerate(pool[n % len(pool)]):
                add(unique(mail, n, when + timedelta(minutes=k)))
            made["new_series"] += 1
        elif step % 3 == 1:
            for k, mail in enumerate(pool[old % len(pool)]):
                add(_next_revision(unique(mail, old, when + timedelta(minutes=k), ids=b"g%dv" % old)))
            made["revisions"] += 1
        else:
            first = unique(pool[old % len(pool)][0], old, _posted(old))
            for k in range(3):
                add(_reply(first, old, k, when + timedelta(minutes=k)))
                made["replies"] += 1
        when += timedelta(minutes=10)
        step += 1
    with open(path, "ab") as fh:
        fh.write(bytes(out))
    return made
