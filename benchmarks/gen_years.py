"""A list archive of several years, made of the real stretches in ../shared/corpus/lists.

Each half-year of the archive is a copy of one stretch (in turn: linux-wireless 2024-03,
linux-wireless 2022, intel-wired-lan, netfilter-devel), its dates moved into that half-year and
its message-ids, reply headers and change-ids made fresh (`<yN.ID>`), so no two copies share a
mail or a thread. Bodies and subjects are the stretch's own, with two changes that give the
archive the bytes a mail of a real multi-year archive carries (linux-bluetooth's four years:
533 MB for 22,846 mails, 23 KB a mail; the stretches hold 8 KB a mail): a plain reply quotes the
mail it answers in full below its own text, up to `quote` bytes, as a mail client does when
nobody trims (a reply to a reply so carries both), and every tenth plain reply pastes a 64 KB log
(the stretch's own added diff lines, as a build log echoes code).

    python3 benchmarks/gen_years.py OUT.mbox [--halves 8] [--quote 60000]

Eight halves (four years) hold 27,976 mails and 527 MB; `--halves 2` and `--halves 4` make the
one- and two-year archives of the memory figures. `append_day` adds the next day's mail (a copy
of the first day of a stretch, after the archive's last mail).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
STRETCHES = ("linux-wireless-2024-03", "linux-wireless-2022-06_2022-11", "intel-wired-lan-2023-07_2023-12",
             "netfilter-devel-2023-07_2023-12")
START = datetime(2022, 12, 1, tzinfo=timezone.utc)
HALF = timedelta(days=182)
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
_ID_HEADERS_RE = re.compile(rb"^(Message-I[dD]|In-Reply-To|References):(.*(?:\n[ \t].*)*)", re.M | re.I)
_DATE_RE = re.compile(rb"^Date:([^\n]*(?:\n[ \t][^\n]*)*)", re.M | re.I)
_MSGID_RE = re.compile(rb"^Message-I[dD]:[ \t]*<([^<>\s]+)>", re.M | re.I)
_IRT_RE = re.compile(rb"^In-Reply-To:[ \t]*(?:\n[ \t]+)?<([^<>\s]+)>", re.M | re.I)
_FROM_RE = re.compile(rb"^From:[ \t]*([^\n]*)", re.M | re.I)
_CHANGE_ID_RE = re.compile(rb"^(change-id:[ \t]*\S+)", re.M)
_PLAIN_RE = re.compile(rb"^content-(?:transfer-encoding:[ \t]*(?:base64|quoted-printable)|type:[ \t]*multipart)",
                       re.M | re.I)


def stretch_mails(name: str) -> list[bytes]:
    """The stretch's mails as reviewtool's splitter gives them (unquoted)."""
    sys.path.insert(0, str(ROOT))
    from reviewtool.sources.files import split_mbox

    data = gzip.decompress((LISTS / f"{name}.mbox.gz").read_bytes())
    return [r.data for r in split_mbox(data, name)]


def _date(head: bytes) -> datetime | None:
    m = _DATE_RE.search(head)
    try:
        d = parsedate_to_datetime(m.group(1).decode("ascii", "replace").strip()) if m else None
    except (TypeError, ValueError):
        return None
    return d if d is None or d.tzinfo else d.replace(tzinfo=timezone.utc)


def copy_mail(mail: bytes, tag: bytes, shift: timedelta, quoted: dict, quote: int, log: bytes = b"") -> bytes:
    """The mail with fresh ids (`<TAG.ID>`), its date moved by `shift`, and, for a plain reply,
    `log` pasted and the mail it answers (`quoted`: the bodies written so far, by their old id)
    quoted below its text."""
    head, sep, body = mail.partition(b"\n\n")
    old_id = _MSGID_RE.search(head)
    parent = _IRT_RE.search(head)
    head = _ID_HEADERS_RE.sub(lambda m: m.group(1) + b":" + re.sub(rb"<([^<>\s]+)>", rb"<" + tag + rb".\1>",
                                                                     m.group(2)), head)
    when = _date(head)
    if when is not None:
        head = _DATE_RE.sub(lambda m: b"Date: " + format_datetime(when + shift).encode(), head, count=1)
    body = _CHANGE_ID_RE.sub(rb"\1-" + tag, body)
    plain = not _PLAIN_RE.search(head)
    if plain and parent is not None and parent.group(1) in quoted and quote > 0:
        who = _FROM_RE.search(quoted[parent.group(1)][0])
        lines = quoted[parent.group(1)][1][:quote].split(b"\n")
        pasted = b"\n\nThe log:\n" + log if log else b""
        body = (body.rstrip(b"\n") + pasted + b"\n\nOn a day before, " + (who.group(1) if who else b"someone") + b" wrote:\n"
                + b"\n".join(b">" + (b" " if ln and not ln.startswith(b">") else b"") + ln for ln in lines) + b"\n")
    if old_id is not None and plain:
        quoted[old_id.group(1)] = (head, body)
    return head + sep + body


def _log_lines(mails: list[bytes]) -> list[bytes]:
    """The lines a pasted log is made of: the stretch's added diff lines, as a build log echoes code."""
    return [ln[1:] for m in mails if not _PLAIN_RE.search(m.partition(b"\n\n")[0])
            for ln in m.split(b"\n") if ln.startswith(b"+") and not ln.startswith(b"+++") and len(ln) > 8]


def _log(lines: list[bytes], n: int, size: int) -> bytes:
    out, i = [], (n * 7919) % max(1, len(lines))
    while size > 0 and lines:
        line = b"[%8d.%06d] " % (n, i) + lines[i % len(lines)]
        out.append(line)
        size -= len(line) + 1
        i += 1
    return b"\n".join(out) + b"\n"


def generate(path: Path, halves: int = 8, quote: int = 60000, start: datetime = START, every: int = 10,
             log: int = 65536) -> dict:
    """An mboxrd archive of `halves` half-years; its mail count, bytes and last date. Every
    `every`th plain reply pastes a log of `log` bytes."""
    count, last = 0, start
    with open(path, "wb") as out:
        for k in range(halves):
            name = STRETCHES[k % len(STRETCHES)]
            mails = stretch_mails(name)
            first = next(d for m in mails if (d := _date(m.partition(b"\n\n")[0])) is not None)
            shift = start + k * HALF - first
            quoted: dict[bytes, tuple[bytes, bytes]] = {}
            lines, replies = _log_lines(mails), 0
            for mail in mails:
                pasted = b""
                if _IRT_RE.search(mail.partition(b"\n\n")[0]):
                    replies += 1
                    pasted = _log(lines, replies, log) if every and replies % every == 0 else b""
                data = copy_mail(mail, b"y%d" % k, shift, quoted, quote, pasted)
                out.write(SEP + re.sub(rb"^(>*From )", rb">\1", data.rstrip(b"\n"), flags=re.M) + b"\n\n")
                count += 1
                d = _date(data.partition(b"\n\n")[0])
                last = max(last, d) if d is not None else last
    return {"mails": count, "bytes": path.stat().st_size, "last": last}


def append_day(path: Path, after: datetime, day: int = 0) -> int:
    """Append a day's mail after `after`: the mails of the first day of a stretch (its first
    24 hours), with fresh ids (`<dDAY.ID>`); the number of mails appended."""
    mails = stretch_mails(STRETCHES[day % len(STRETCHES)])
    first = next(d for m in mails if (d := _date(m.partition(b"\n\n")[0])) is not None)
    shift = after + timedelta(hours=1) - first
    n, quoted = 0, {}
    with open(path, "ab") as out:
        for mail in mails:
            d = _date(mail.partition(b"\n\n")[0])
            if d is None or d - first > timedelta(days=1):
                continue
            data = copy_mail(mail, b"d%d" % day, shift, quoted, 60000)
            out.write(SEP + re.sub(rb"^(>*From )", rb">\1", data.rstrip(b"\n"), flags=re.M) + b"\n\n")
            n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--halves", type=int, default=8, help="Half-years (8: four years).")
    ap.add_argument("--quote", type=int, default=60000, help="Bytes of the answered mail a reply quotes.")
    args = ap.parse_args()
    made = generate(args.out, args.halves, args.quote)
    print(f"{args.out}: {made['mails']:,} mails, {made['bytes'] / 1e6:.1f} MB, last mail {made['last']:%Y-%m-%d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
