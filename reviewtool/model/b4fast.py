"""b4's mailbox filled and copied faster, b4 none the wiser (model/b4mailbox.py uses it, for b4 0.16
only: another version is read b4's own way).

- A LoreMessage is made by the steps of b4's LoreMessage.__init__, in its order, with the parts that
  depend only on a header's text (the subject's prefixes, the From address, References, the Date)
  read once per distinct text: a list's senders, subjects and dates repeat across a half-year's
  series thousands of times. The body, its diff and trailers are b4's own calls.
- A message goes into the mailbox as b4's add_message puts it (the same branches, in order).
- A mailbox is copied for each revision asked of it (get_series changes the mailbox it reads) by
  copying what get_series can change: each message's trailer lists and the trailers in them,
  each series' patch list and mismatch set, the mailbox's maps. The mails, dates, subjects and
  bodies under them are shared, as the deep copy they replace already shared the mails and dates.

tests/test_b4mailbox.py holds every message, mailbox and series of every fixture thread to b4's
own, field by field.
"""

from __future__ import annotations

import codecs
import copy
import datetime
import email.utils
import re
from collections import defaultdict
from functools import lru_cache

KNOWN_B4 = ("0.16.",)
_BAD_TRAILERS = frozenset({"from", "author", "cc", "to", "date", "subject", "subscribe", "unsubscribe",
                           "base-commit", "change-id", "message-id"})
# LoreMessage.__init__'s attributes, all of them (anything else and the message is b4's to make)
_FIELDS = frozenset({"_attestors", "_blob_indexes", "_git_patch_id", "_pwhash", "body", "charset", "counter",
                     "counters_inferred", "date", "expected", "followup_trailers", "fromemail", "fromname",
                     "full_subject", "has_diff", "has_diffstat", "in_reply_to", "local_ci_status", "lsubject", "msg",
                     "msgid", "pr_base_commit", "pr_ref", "pr_remote_tip_commit", "pr_repo", "pr_tip_commit",
                     "pw_ci_status", "references", "reply", "reroll_from_revision", "revision", "revision_inferred",
                     "subject", "trailers"})


def usable(b4) -> bool:
    return b4.__VERSION__.startswith(KNOWN_B4)


@lru_cache(maxsize=4096)
def _subject(b4, text: str):
    """b4.LoreSubject of a subject's text (a new copy is handed out: nothing changes one, but each
    message keeps its own, as b4's do)."""
    return b4.LoreSubject(text)


def read_subject(b4, text: str):
    """b4.LoreSubject(text), shared: to be read, never changed (the adapter reads a patch mail's
    subject as b4 will before handing it over, and the message made of it then finds it read)."""
    return _subject(b4, text) if usable(b4) else b4.LoreSubject(text)


@lru_cache(maxsize=2048)
def _from(b4, texts: tuple[str, ...]) -> tuple[str, str] | None:
    found = email.utils.getaddresses([b4.LoreMessage.clean_header(t) for t in texts])
    return found[0] if found else None


@lru_cache(maxsize=1024)
def _references(b4, texts: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for rbunch in texts:
        for rchunk in b4.LoreMessage.clean_header(rbunch).split():
            rmsgid = rchunk.strip("<>")
            if rmsgid not in out:
                out.append(rmsgid)
    return tuple(out)


@lru_cache(maxsize=4096)
def _date(text: str) -> datetime.datetime | None:
    """b4's reading of a Date header (None where b4 takes the time it runs at: not kept)."""
    dtuple = email.utils.parsedate_tz(text)
    if dtuple is None:
        return None
    if dtuple[-1] is not None and abs(dtuple[-1]) > 86400:
        date = datetime.datetime(*dtuple[:6], tzinfo=datetime.timezone.utc)
    else:
        date = email.utils.parsedate_to_datetime(text)
    return date if date.tzinfo is not None else date.replace(tzinfo=datetime.timezone.utc)


def lore_message(b4, msg):
    """b4.LoreMessage(msg), made as its __init__ makes it."""
    lmsg = b4.LoreMessage.__new__(b4.LoreMessage)
    lmsg.msg = msg
    lmsg.revision = 1
    lmsg.reroll_from_revision = None
    lmsg.counter = 1
    lmsg.expected = 1
    lmsg.revision_inferred = True
    lmsg.counters_inferred = True
    lmsg.charset = "utf-8"
    lmsg.has_diff = False
    lmsg.has_diffstat = False
    lmsg.trailers = []
    lmsg.followup_trailers = []
    lmsg.pr_base_commit = lmsg.pr_repo = lmsg.pr_ref = lmsg.pr_tip_commit = lmsg.pr_remote_tip_commit = None
    lmsg.pw_ci_status = None
    lmsg.local_ci_status = None
    msgid = b4.LoreMessage.get_clean_msgid(msg)
    if not msgid:
        raise ValueError("Message without a valid Message-ID")
    lmsg.msgid = msgid
    subject = msg["Subject"]
    lsubject = lmsg.lsubject = copy.copy(_subject(b4, subject)) if isinstance(subject, str) else b4.LoreSubject(subject)
    lsubject.prefixes = list(lsubject.prefixes)
    lmsg.full_subject = lsubject.full_subject
    lmsg.subject = lsubject.subject
    lmsg.reply = lsubject.reply
    lmsg.revision = lsubject.revision
    lmsg.counter = lsubject.counter
    lmsg.expected = lsubject.expected
    lmsg.revision_inferred = lsubject.revision_inferred
    lmsg.counters_inferred = lsubject.counters_inferred
    lmsg._attestors = None
    lmsg._git_patch_id = None
    lmsg._pwhash = None
    lmsg._blob_indexes = None
    if lmsg.counter > lmsg.expected:
        lmsg.expected = lmsg.counter
    lmsg.in_reply_to = b4.LoreMessage.get_clean_msgid(msg, header="In-Reply-To")
    lmsg.references = []
    if msg.get("References"):
        lmsg.references = list(_references(b4, tuple(str(x) for x in msg.get_all("references", list()))))
    if lmsg.in_reply_to and lmsg.in_reply_to not in lmsg.references:
        lmsg.references.append(lmsg.in_reply_to)
    fromdata = _from(b4, tuple(str(x) for x in msg.get_all("from", [])))
    if fromdata is None:
        lmsg.fromname = lmsg.fromemail = ""
    else:
        lmsg.fromname, lmsg.fromemail = fromdata
        if not len(lmsg.fromname.strip()):
            lmsg.fromname = lmsg.fromemail
    msgdate = msg.get("Date")
    date = _date(str(msgdate)) if msgdate else None
    lmsg.date = date if date is not None else _now(b4, msgdate)
    lmsg.body, lmsg.charset = _payload(b4, msg)
    if not lmsg.body:
        return lmsg
    if b4.DIFFSTAT_RE.search(lmsg.body):
        lmsg.has_diffstat = True
    if b4.DIFF_RE.search(lmsg.body):
        lmsg.has_diff = True
        if not lmsg.reply:
            return lmsg  # b4 keeps the follow-up scan's trailers for a reply only, and a diff makes none
    trailers, _others = b4.LoreMessage.find_trailers(lmsg.body, followup=True)
    if trailers and lmsg.references and not lmsg.has_diff and not lmsg.reply:
        lmsg.reply = True
    if lmsg.reply:
        for trailer in trailers:
            if trailer.lname not in _BAD_TRAILERS:
                trailer.lmsg = lmsg
                lmsg.trailers.append(trailer)
    return lmsg


# b4 0.16's LoreMessage.find_trailers(body, followup=True), its sets and patterns compiled once
_IGNORED = frozenset({"phone", "mail", "email", "e-mail", "prerequisite-message-id"})
_HEADER_NAMES = frozenset({"subject", "date", "from"})
_LINKS = frozenset({"link", "buglink", "closes"})
_NON_PERSON = _LINKS | {"fixes", "subject", "date", "obsoleted-by", "change-id", "base-commit"}
_WRAPPED_FIXES_RE = re.compile(r"^(\S+:\s+[\da-f]+\s+\([^)]+)\n([^\n]+\))", re.M)
_WRAPPED_ADDRESS_RE = re.compile(r"^(\S+:\s+[^<]+)\n(<[^>]+>)$", re.M)
_TRAILER_LINE_RE = re.compile(r"^\s*(\w\S+):\s+(\S.*)", re.I)
_LINK_RE = re.compile(r"https?://")
_FIXES_HASH_RE = re.compile(r"^[0-9a-f]{6,}")
_BRACKETED_RE = re.compile(r"^\s*\[[^]]+]\s*$")


def followup_trailers(b4, body: str) -> tuple[list, list[str]]:
    """b4.LoreMessage.find_trailers(body, followup=True), step for step, with its patterns
    compiled once and a line without a colon (no trailer) taken as such without a regex: b4
    looks each pattern up again on every line of a reply, quoted patch included."""
    body = body.split("\n-- \n", 1)[0].strip() + "\n"
    body = _WRAPPED_FIXES_RE.sub(r"\1 \2", body)
    body = _WRAPPED_ADDRESS_RE.sub(r"\1 \2", body)
    trailers: list = []
    others: list[str] = []
    was_trailer = False
    for line in body.split("\n"):
        line = line.strip("\r")
        matches = _TRAILER_LINE_RE.search(line) if ":" in line else None
        if matches:
            oname, ovalue = matches.groups()
            lname = oname.lower()
            if lname in _IGNORED or (others and lname in _HEADER_NAMES) or not lname.isascii():
                continue
            if not _names_an_address(ovalue) and lname not in _NON_PERSON:
                continue
            if _LINK_RE.search(ovalue) and lname not in _LINKS:
                continue
            if lname == "fixes" and not _FIXES_HASH_RE.search(ovalue):
                continue
            extinfo = None
            mextinfo = _hashtag_split(ovalue)
            if mextinfo:
                ovalue, extinfo = mextinfo
            was_trailer = True
            trailers.append(b4.LoreTrailer(name=oname, value=ovalue, extinfo=extinfo))
            continue
        if len(line) > 2 and was_trailer and _BRACKETED_RE.search(line):
            trailers[-1].extinfo = line
            was_trailer = False
            continue
        was_trailer = False
        others.append(line)
    return trailers, others


def _names_an_address(value: str) -> bool:
    r"""re.search(r"\S+@\S+\.\S+", value) (b4's test, quadratic on a long run of non-blanks):
    a word with an '@' after its first character and a '.' at least two characters after that
    '@', before the word's last character (the first such '@' leaves the most room)."""
    for word in value.split():  # str.split's blanks are the pattern's \s
        at = word.find("@", 1)
        if at >= 0 and "." in word[at + 2:-1]:
            return True
    return False


def _hashtag_split(value: str) -> tuple[str, str] | None:
    r"""re.search(r"(.*\S+)(\s+#[^#]+)$", value).groups(), or None, for a value of one line,
    found from its last '#' (b4's pattern backtracks in cubic time: most of its scan). The
    pattern can only split where a run of blanks before the last '#' starts, with something after
    the '#' and a non-blank before the run."""
    h = value.rfind("#")
    if h < 2 or h == len(value) - 1 or not value[h - 1].isspace():
        return None
    j = h - 1
    while j > 0 and value[j - 1].isspace():
        j -= 1
    return (value[:j], value[j:]) if j > 0 else None


_TYPES: dict[object, tuple[str, str | None]] = {}  # a Content-Type field's text -> (type, charset)


def _payload(b4, msg) -> tuple[str, str]:
    """b4.LoreMessage.get_payload(msg): for a single-part mail, its type and charset read once per
    Content-Type text (the email package parses the field's parameters on every ask)."""
    if msg.is_multipart():
        return b4.LoreMessage.get_payload(msg)
    raw = next((v for k, v in msg.raw_items() if k.lower() == "content-type"), None)
    if not isinstance(raw, (str, type(None))):
        return b4.LoreMessage.get_payload(msg)
    found = _TYPES.get(raw)
    if found is None:
        found = (msg.get_content_type(), msg.get_content_charset())
        if len(_TYPES) < 4096:
            _TYPES[raw] = found
    ctype, charset = found
    mcharset = charset or "utf-8"
    if ctype.find("/plain") < 0 and ctype.find("/x-patch") < 0:
        return "", mcharset
    bpayload = msg.get_payload(decode=True)
    if bpayload is None or not isinstance(bpayload, bytes):
        return "", mcharset
    try:
        codecs.lookup(mcharset)
    except LookupError:  # b4 rewrites the charset in the mail: its own way
        return b4.LoreMessage.get_payload(msg)
    return bpayload.decode(mcharset, errors="replace"), mcharset


def _now(b4, msgdate) -> datetime.datetime:
    """What b4 takes for a mail without a readable Date: the time it reads it."""
    if msgdate:
        b4.logger.warning("Could not parse Date: %s", msgdate)
    return datetime.datetime.now(tz=datetime.timezone.utc)


def add_message(b4, lmbx, lmsg) -> None:
    """b4's LoreMailbox.add_message, of a message made already (lore_message)."""
    msgid = lmsg.msgid
    if msgid in lmbx.msgid_map:
        return
    lmbx.msgid_map[msgid] = lmsg
    if lmsg.reply:
        lmbx.followups.append(lmsg)
        return
    if lmsg.counter == 0 and (not lmsg.counters_inferred or lmsg.has_diffstat):
        lmbx.covers[lmsg.revision] = lmsg
        return
    if lmsg.has_diff:
        if lmsg.revision not in lmbx.series:
            if lmsg.revision_inferred and lmsg.in_reply_to:
                irt = lmbx.msgid_map.get(lmsg.in_reply_to)
                if irt is not None and irt.has_diffstat and not irt.has_diff:
                    lmsg.revision = irt.revision
                elif lmsg.counter > 0 and irt is not None and irt.has_diff and irt.counter == 1:
                    lmsg.revision = irt.revision
        if lmsg.revision not in lmbx.series:
            lmbx.series[lmsg.revision] = b4.LoreSeries(lmsg.revision, lmsg.expected)
        if (lmsg.counter == 1 and lmsg.counters_inferred and not lmsg.reply and lmsg.lsubject.patch
                and not lmsg.lsubject.resend):
            omsg = lmbx.series[lmsg.revision].patches[lmsg.counter]
            if (omsg is not None and omsg.counters_inferred and lmsg.fromemail == omsg.fromemail
                    and omsg.date < lmsg.date):
                lmsg.revision = len(lmbx.series) + 1
                lmbx.series[lmsg.revision] = b4.LoreSeries(lmsg.revision, lmsg.expected)
        lmbx.series[lmsg.revision].add_patch(lmsg)
        return
    lmbx.unknowns.append(lmsg)


def clone_mailbox(b4, lmbx):
    """A copy of a mailbox add_message filled (its trailer map empty, no series read from it yet)
    that get_series may change without changing `lmbx`; None when it holds what this copy does
    not know to copy (the caller deep-copies instead)."""
    if set(vars(lmbx)) != {"covers", "followups", "msgid_map", "series", "trailer_map", "unknowns"} \
            or lmbx.trailer_map:
        return None
    messages: dict[int, object] = {}
    for lmsg in (*lmbx.msgid_map.values(), *lmbx.followups, *lmbx.unknowns, *lmbx.covers.values(),
                 *(p for s in lmbx.series.values() for p in s.patches if p is not None)):
        if id(lmsg) in messages:
            continue
        if set(vars(lmsg)) != _FIELDS or lmsg.followup_trailers:
            return None
        new = b4.LoreMessage.__new__(b4.LoreMessage)
        new.__dict__.update(vars(lmsg))
        new.trailers = [_trailer(t, lmsg, new) for t in lmsg.trailers]
        new.followup_trailers = []
        new.references = list(lmsg.references)
        messages[id(lmsg)] = new
    out = b4.LoreMailbox()
    out.msgid_map = {k: messages[id(v)] for k, v in lmbx.msgid_map.items()}
    out.followups = [messages[id(v)] for v in lmbx.followups]
    out.unknowns = [messages[id(v)] for v in lmbx.unknowns]
    out.covers = {k: messages[id(v)] for k, v in lmbx.covers.items()}
    out.trailer_map = defaultdict(list)
    out.series = {}
    for rev, lser in lmbx.series.items():
        new = b4.LoreSeries.__new__(b4.LoreSeries)
        new.__dict__.update(vars(lser))
        new.patches = [messages[id(p)] if p is not None else None for p in lser.patches]
        new.followups = [messages[id(p)] for p in lser.followups]
        new.trailer_mismatches = set(lser.trailer_mismatches)
        out.series[rev] = new
    return out


def _trailer(t, old, new):
    c = copy.copy(t)
    if t.lmsg is old:
        c.lmsg = new
    elif t.lmsg is not None:
        raise ValueError("a trailer of another message")
    return c
