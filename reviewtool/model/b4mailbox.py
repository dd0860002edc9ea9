"""b4's LoreMailbox filled with a thread's mails, built once per series and copied for each
revision asked of it.

Reading a mail into b4 (LoreMessage) is most of what building a series costs, and most of that
is one scan of the whole body for follow-up trailers, diff included. b4 0.16 keeps what that scan
finds only for a reply (`if self.reply:` after it; a mail with a diff is never promoted to one),
so for a patch mail the scan is thrown away. `_scan_skipped_for` skips exactly those scans: for a
mail whose subject b4 reads as no reply and whose body b4 finds a diff in. For any other mail read
here, the scan is skipped where it must find nothing: no line of the body starts as a trailer
does (four replies in five); the scans left are b4's, done by b4fast.followup_trailers with its
patterns compiled once. Each message is made and added, and each mailbox copied, by
model/b4fast.py (b4's steps, with what depends on a header's text read once per text); every
other call is b4's own.
"""

from __future__ import annotations

import contextlib
import copy
import re
import threading
from datetime import datetime
from email.message import EmailMessage

from ..mail.headers import header, quarantine_bad_headers
from ..mail.subject import is_reply_subject, without_reply_prefix
from . import b4fast
from .patchid import patch_ids

# the b4 whose LoreMessage.__init__ this was read against; another version scans as it likes
_KNOWN_B4 = ("0.16.",)


_SKIPPING = threading.local()  # while this thread reads a mail into b4 (_add): `mail`; `on` if it is no reply
# What every trailer line b4's follow-up scan accepts starts with: its pattern is
# `^\s*(\w\S+):\s+(\S.*)` on each line, some lines joined to the one before (a wrapped address
# or Fixes subject), and the first word of a joined line, with its colon, is on the first of them.
# Blanks before the word stay on the line (`\s*` across lines would be quadratic on blank lines).
_TRAILER_START_RE = re.compile(r"^[^\S\n]*\w\S*:\s", re.M)


def _install_skip(b4) -> None:
    """Wrap b4's trailer scan once: it answers nothing for a follow-up scan of a body with a diff
    while this thread's _add reads a non-reply, or of a body where no line starts as a trailer
    while it reads any other mail (LoreMessage.__init__, the only follow-up scan, keeps only the
    trailers), and b4's scan done faster (b4fast.followup_trailers) for the other bodies _add
    reads; every other call (another thread's, b4's own later reads) is b4's scan unchanged."""
    scan = b4.LoreMessage.__dict__["find_trailers"].__func__
    if getattr(scan, "_reviewtool_skip", False):
        return

    def find_trailers(body, followup=False):
        if followup and getattr(_SKIPPING, "on", False) and b4.DIFF_RE.search(body):
            return [], []
        if followup and getattr(_SKIPPING, "mail", False):
            if not _TRAILER_START_RE.search(body):
                return [], []
            return b4fast.followup_trailers(b4, body)  # b4's scan, its patterns compiled once
        return scan(body, followup)

    find_trailers._reviewtool_skip = True
    b4.LoreMessage.find_trailers = staticmethod(find_trailers)


@contextlib.contextmanager
def _scan_skipped_for(b4, msg: EmailMessage):
    """While b4 reads `msg`, its follow-up trailer scan returns nothing for a non-reply with a
    diff, and for a body where no line starts as a trailer does."""
    if not b4.__VERSION__.startswith(_KNOWN_B4):
        yield
        return
    try:
        reply = _b4_reads_a_reply(b4, msg["Subject"])
    except Exception:  # b4 will say so itself when it reads the mail
        reply = True
    _install_skip(b4)
    _SKIPPING.on, _SKIPPING.mail = not reply, True
    try:
        yield
    finally:
        _SKIPPING.on = _SKIPPING.mail = False


_REPLY_RE = re.compile(r"^(Re|Aw|Fwd):", re.I)
_TAGGED_REPLY_RE = re.compile(r"^\w{2,3}:\s*\[")


_BLANKS_RE = re.compile(r"\s+")


def _b4_reads_a_reply(b4, subject) -> bool:
    """LoreSubject(subject).reply, the two tests b4 0.16 makes of the cleaned subject, without the
    rest of its parse (tests/test_b4mailbox.py holds them equal)."""
    text = _BLANKS_RE.sub(" ", b4.LoreMessage.clean_header(subject)).strip()
    return bool(_REPLY_RE.search(text) or _TAGGED_REPLY_RE.search(text))


_B4_REPLY_START_RE = re.compile(r"^\s*(?:re|aw|fwd)\s*:", re.I)


def _as_b4_reads_a_reply(b4, msg: EmailMessage) -> EmailMessage:
    """`msg`, or, for a reply whose prefix b4 does not read as one ("Antw: [PATCH]", "答复：[PATCH]",
    "Odp: Re: [PATCH]": mail/subject.py reads them), a copy whose Subject starts "Re: ", so that
    b4 files it as a follow-up as it does any reply. The thread's own mail is left as it came."""
    subject = msg["Subject"]
    if not isinstance(subject, str) or _B4_REPLY_START_RE.match(subject) or not is_reply_subject(subject):
        return msg  # b4 reads "Re:", "Aw:", "Fwd:" itself; the others are no replies to us either
    try:
        if _b4_reads_a_reply(b4, subject):
            return msg
    except Exception:  # b4 will say so itself when it reads the mail
        return msg
    out = copy.copy(msg)
    out._headers = list(msg._headers)  # the copy's own list: the thread's mail keeps its Subject
    out.replace_header("Subject", "Re: " + without_reply_prefix(subject).strip())
    return out


def _add(b4, lmbx, msg: EmailMessage) -> None:
    msg = _as_b4_reads_a_reply(b4, msg)
    with _scan_skipped_for(b4, msg):
        if not b4fast.usable(b4):
            lmbx.add_message(msg)
            return
        msgid = b4.LoreMessage.get_clean_msgid(msg)
        if msgid and msgid in lmbx.msgid_map:
            return
        b4fast.add_message(b4, lmbx, b4fast.lore_message(b4, msg))


def mailbox(msgs: list[EmailMessage]):
    """(LoreMailbox of `msgs`, [what b4 could not use, a line each])."""
    import b4

    lmbx = b4.LoreMailbox()
    skipped = []
    for msg in msgs:
        try:
            _add(b4, lmbx, msg)
        except Exception:  # b4 raises many types on hostile headers: set those aside, try once more
            quarantine_bad_headers(msg)
            try:
                _add(b4, lmbx, msg)
            except Exception as exc:  # keep going, say what was skipped
                skipped.append(f"skipped a message b4 cannot use ({header(msg, 'Subject')[:60]!r}: {exc})")
    _seed_patch_ids(lmbx)
    return lmbx, skipped


def mailboxes(msgs: list[EmailMessage], count: int):
    """`count` mailboxes of `msgs` as add_message left them, and what b4 could not use.
    get_series() changes the mailbox it reads (a partial reroll moves patches in, follow-up
    trailers are added), so each revision asked for reads its own copy; the copies share the
    mails themselves, which b4 only reads."""
    import b4

    lmbx, skipped = mailbox(msgs)
    copies = [b4fast.clone_mailbox(b4, lmbx) if b4fast.usable(b4) else None for _ in range(count - 1)]
    if any(c is None for c in copies):
        shared = {id(m): m for m in msgs}
        for lmsg in (*lmbx.msgid_map.values(), *lmbx.followups, *lmbx.unknowns):
            if isinstance(date := getattr(lmsg, "date", None), datetime):
                shared[id(date)] = date  # immutable: half of what a copy rebuilt was dates and their zones
        copies = [copy.deepcopy(lmbx, dict(shared)) for _ in range(count - 1)]
    return copies + [lmbx], skipped


def _seed_patch_ids(lmbx) -> None:
    """Give b4 every patch-id from one git process (none when triage asked for the batch's ids
    already: patchid.warm); b4 would start one per patch."""
    todo = [m for m in lmbx.msgid_map.values()
            if getattr(m, "_git_patch_id", "") is None and m.has_diff and m.body]
    ids = patch_ids([m.body for m in todo]) if todo else None
    for lmsg, pid in zip(todo, ids or ()):
        lmsg._git_patch_id = pid or ""  # "" = no patch-id: b4 must not run git again for it
