"""The posting `check` reviews, and the other postings of its series that come along.

A file may hold several threads (a list archive, several revisions each in its own thread).
`--msgid` picks one; otherwise the thread with the newest patch is reviewed. The postings that
come along are those the revision linker (revisions.py) puts in its family, as triage links
them: earlier revisions (also under a reworded subject, or from the author under another display
name) and older postings of the same revision (a RESEND, a repost without a version bump), never
a newer one. So do replies whose patch the input lacks but whose subject names one of the
series' patches (a review of an earlier posting: its tags count). The revision rules compare
them; sources/threads.split_reposts then sets older copies of a revision apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import EmailMessage

from ..errors import InputError
from ..limits import limits
from ..mail.headers import header, ids_in, message_id_of, msg_date
from ..mail.message import DIFF_RE, body_text
from ..mail.subject import is_reply_subject, normalized_summary, parse_subject
from ..sources.diffsig import scan_text
from ..sources.index import MailHead, MailRef
from .revisions import PatchThread, families, joined, threads_of

_CHANGE_ID_RE = re.compile(r"^change-id:[ \t]*(\S+)", re.I | re.M)


def head_of_message(msg: EmailMessage, position: int, origin: str = "") -> MailHead:
    """What the revision linker reads of a parsed mail: the header index's fields (sources/index.py)
    taken from the message instead of its bytes. `position` tells mails with one id apart."""
    subject = header(msg, "Subject")
    # A reply is never a patch to the linker: its body is not read (most mail of an archive).
    text = "" if is_reply_subject(subject) else body_text(msg)
    paths, sketch = scan_text(text.encode("utf-8", "surrogateescape"))
    irt = ids_in(header(msg, "In-Reply-To"))
    parents = tuple(irt + ids_in(header(msg, "References")))
    when = msg_date(msg)
    try:
        date = when.timestamp() if when is not None else None
    except (OverflowError, ValueError, OSError):
        date = None
    cid = _CHANGE_ID_RE.search(text)
    return MailHead(ref=MailRef(origin, position, 0), msgid=message_id_of(msg) or f"#{position}", parents=parents,
                    in_reply_to=irt[0] if irt else None, subject=subject,
                    sender=header(msg, "From").lower(), date=date, change_id=cid.group(1) if cid else None,
                    paths=paths, sketch=sketch, has_diff=bool(paths) or bool(DIFF_RE.search(text)))


@dataclass(frozen=True)
class PostingChoice:
    chosen: PatchThread  # the thread under review
    others: tuple[PatchThread, ...]  # its earlier revisions and older postings, oldest first
    reviews: tuple[PatchThread, ...]  # reply-only threads answering a posting the input lacks


def _newest(t: PatchThread) -> tuple[float, int]:
    # Equal dates are common: format-patch -v2 of rebased commits keeps their author dates.
    return t.newest_patch_date(), t.top


def choose_posting(heads: list[MailHead], msgid: str | None) -> PostingChoice | None:
    """The thread to review (the one holding `msgid`, else the newest patch's) and the threads that
    come along; None when there is no such patch thread (the caller says why)."""
    threads = threads_of(heads)
    patch_threads = joined([t for t in threads if t.patches])
    if msgid:
        chosen = next((t for t in patch_threads if any(h.msgid == msgid for h in t.heads)), None)
    else:
        chosen = max(patch_threads, key=_newest, default=None)
    if chosen is None:
        return None
    family = next(f for f in families(patch_threads) if any(t is chosen for t in f))
    newest, newest_date = chosen.top, chosen.newest_patch_date()
    others = tuple(sorted((t for t in family if t is not chosen and (
        t.top < newest or t.top == newest and t.newest_patch_date() < newest_date)), key=_newest))
    summaries = {s.summary for t in (chosen, *others) for _, s in t.patches}
    reviews = tuple(t for t in threads if not t.patches and _answers_one_of(t, summaries))
    return PostingChoice(chosen, others, reviews)


def _answers_one_of(t: PatchThread, summaries: set[str]) -> bool:
    """A thread of replies whose subject is `Re:` one of the series' patches."""
    for h in t.heads:
        s = parse_subject(h.subject)
        if s.reply and s.brackets and normalized_summary(s) in summaries:
            return True
    return False


def select_posting(msgs: list[EmailMessage], msgid: str | None, origin: str) -> list[EmailMessage]:
    """The messages to review, in input order: the chosen thread plus the postings of its series
    that come along (see the module's docstring)."""
    if not msgs:
        raise InputError(f"{origin}: no mail messages found")
    heads = [head_of_message(m, i, origin) for i, m in enumerate(msgs)]
    if msgid and not any(h.msgid == msgid for h in heads):
        raise InputError(f"{origin}: message-id <{msgid}> is not in the input")
    choice = choose_posting(heads, msgid)
    if choice is None and msgid:
        raise InputError(f"{origin}: the thread of <{msgid}> holds no patch")
    if choice is None:
        subj = header(msgs[0], "Subject") or "(no subject)"
        raise InputError(f"{origin}: no patch in the input (first subject: {subj[:80]!r})")
    # Mails with the same id are one mail to the linker (it keeps the first): keep every copy.
    ids = {h.msgid for t in (choice.chosen, *choice.others, *choice.reviews) for h in t.heads}
    selected = [m for m, h in zip(msgs, heads) if h.msgid in ids]
    cap = limits().thread_messages
    if len(selected) > cap:
        raise InputError(f"{origin}: the thread under review has {len(selected)} messages, over the limit of "
                         f"{cap} (REVIEWTOOL_MAX_MESSAGES)")
    return selected
