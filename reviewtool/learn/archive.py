"""A list archive as `profile learn` reads it: the postings (one revision of one series each), the
pull requests, and what the maintainers' replies say became of each posting.

The archive is indexed as `triage` indexes it (sources/index.py: headers only, the bytes stay in
the file) and grouped into series families by triage's rules (triage/group.py). Replies are read
by the reply-forms reader (mail/replies.py); a reply is tied to the posting whose mail it answers
(In-Reply-To, else the nearest References entry that is a posting's mail), and to the patches it
names (by counter, else by summary: the maintainers' tools list the commits as applied, with
the subject the commit got).
"""

from __future__ import annotations

import email
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from ..mail.pull_request import shortlog
from ..mail.replies import ReplyAction, read_reply, read_reply_text
from ..mail.reply_forms import hints, shipped_forms
from ..mail.settle import Answer, PostingPatch, settle, targets
from ..context.replies.settled import shipped_appliers
from ..model.fixes import has_fixes_tag
from ..mail.subject import list_name_of, normalized_summary, parse_subject
from ..sources.archives import index_inputs
from ..sources.index import MailHead, MailRef
from ..sources.mail_refs import MailReader
from .postings import Applied, PatchMail, Posting, PullRequest
from .pulled import applied_by_pulls, appliers_by_pulls
from .robot import SUBJECT_RE as ROBOT_SUBJECT_RE, BuildReport, applied_by_robot, read_report

SENT_BACK = ("changes-requested", "rejected", "nak")
_ENCODED_RE = re.compile(rb"^content-transfer-encoding:[ \t]*(base64|quoted-printable)", re.I | re.M)
# a mail of parts, or one that is itself a forwarded mail (message/rfc822): its body is not plain
# text of the sender's own, so the mail parser reads it (mail/message.py sets forwarded mail aside)
_MULTIPART_RE = re.compile(rb"^content-type:[ \t]*(?:multipart|message)/", re.I | re.M)
_PULL_RE = re.compile(r"\bpull\b|\bgit pull\b|pull[- ]request", re.I)
_PULL_URL_RE = re.compile(r"are available in the [Gg]it repository at:\s*\n\s*(\S+)(?:[ \t]+(\S+))?")


@dataclass
class Archive:
    messages: int
    span: tuple[float, float] | None  # the first and last mail's dates
    postings: list[Posting]
    pulls: list[PullRequest]
    actions: list[ReplyAction]
    untrusted: list[ReplyAction]  # plain-words replies from people who send no proving form
    unmatched: int  # replies that settle no posting of the archive
    labels: tuple[str, ...]
    senders: frozenset[str] = frozenset()  # every From address: a list address sends nothing
    own_list: str | None = None  # the address of the List-Id most of its mails carry
    by_pulls: int = 0  # postings shown applied by a pull request only (learn/pulled.py)
    by_robot: int = 0  # postings shown applied by a build robot's reports only (learn/robot.py)


def own_list(heads) -> str | None:
    """The list the archive is of: the List-Id most of its mails carry, as an address
    ("netfilter-devel.vger.kernel.org": netfilter-devel@vger.kernel.org), when more than half do."""
    ids = Counter(h.list_id for h in heads if h.list_id)
    if not ids:
        return None
    lid, n = ids.most_common(1)[0]
    local, dot, domain = lid.partition(".")
    return f"{local}@{domain}" if dot and domain and 2 * n > len(heads) else None


def _patch_mail(h: MailHead) -> tuple[PatchMail, object]:
    s = parse_subject(h.subject, list_name_of(h.list_id))
    return PatchMail(s.counter if s.counter is not None else 1, h.msgid, h.subject, normalized_summary(s)), s


def _postings(families: list, start: int) -> list[Posting]:
    out: list[Posting] = []
    for fam_no, fam in enumerate(families):
        earlier: list[MailRef] = []
        for t in fam:
            for rev in sorted(t.revisions):
                mails = [(h, s) for h, s in t.patches if s.revision == rev]
                by_counter: dict[int, PatchMail] = {}
                for h, s in sorted(mails, key=lambda m: (m[1].counter or 1, m[0].date or 0.0)):
                    pm, _ = _patch_mail(h)
                    counter = s.counter if s.counter is not None else 1
                    by_counter.setdefault(counter, pm)  # the first posting of a counter; a resend is later
                first_h = min(mails, key=lambda m: (m[1].counter if m[1].counter is not None else 1,
                                                    m[0].date or 0.0))[0]
                first_s = parse_subject(first_h.subject, list_name_of(first_h.list_id))
                cover = by_counter.pop(0, None)
                expected = max((s.expected or 1 for _, s in mails), default=1)
                refs = tuple(sorted({*earlier, *(h.ref for h in t.heads)}, key=lambda r: (r.path, r.offset)))
                out.append(Posting(key=start + len(out), msgid=first_h.msgid, subject=first_h.subject,
                                   sender=first_h.sender, date=first_h.date, revision=rev, expected=expected,
                                   tags=first_s.tags, rfc=first_s.rfc, pull=first_s.pull,
                                   patches=tuple(by_counter[c] for c in sorted(by_counter)), cover=cover, refs=refs,
                                   family=start + fam_no))
            earlier += [h.ref for h in t.heads]
    return out


def read_archive(paths: list[Path], scratch: Path, on_mail: Callable[[], None] | None = None,
                 skipped: list[str] | None = None, limited: list[str] | None = None) -> Archive:
    """Index the inputs, group their postings, read every reply and tie it to what it settles;
    `limited` gets a line for each limit that left mail out (sources/newest.py, a gzip's bound)."""
    from ..conversation.revisions import patch_families
    from ..sources.newest import Newest, left_out_note

    kept: Newest = Newest()
    notes: list[str] = []
    for h in index_inputs(paths, scratch, skipped, limited=notes):
        kept.add(h)
        if on_mail:
            on_mail()
    heads = kept.done()
    if limited is not None:
        limited += notes + [n for n in (left_out_note(kept.left_out, len(heads)),) if n]
    postings = _postings(patch_families(heads), 0)
    by_mail: dict[str, tuple[Posting, int]] = {}
    for p in postings:
        for m in ((p.cover,) if p.cover else ()) + p.patches:
            by_mail.setdefault(m.msgid, (p, m.counter))
    handles = MailReader()  # files and inboxes alike (sources/mail_refs.py)
    try:
        actions = list(_replies(heads, handles))
        pulls = list(_pull_requests(heads, handles))
        reports = list(_build_reports(heads, handles))
    finally:
        handles.close()
    # who applies: named by a bot's own mail ("by NAME", from the bot's address), by the shipped
    # profiles' data, or by their own pull requests that upstream took (learn/pulled.py); never by
    # a reply's own words, which anyone can write
    appliers = _learned_appliers(actions, pulls, postings, by_mail)
    trusted = [a for a in actions if not a.needs_applier or a.by.email in appliers]
    untrusted = [a for a in actions if a.needs_applier and a.by.email not in appliers]
    unmatched = 0
    pull_by_id = {pr.msgid: i for i, pr in enumerate(pulls)}
    answers: dict[int, list[Answer]] = {}
    for a in trusted:
        target = _answered(a, by_mail)
        if target is None:
            i = next((pull_by_id[m] for m in _ancestors(a) if m in pull_by_id), None)
            if i is not None and a.state == "applied":
                pulls[i] = PullRequest(**{**pulls[i].__dict__, "applied_to": a.tree_words})
            else:
                unmatched += 1
            continue
        answers.setdefault(target[0].key, []).append(Answer(a, target[1]))
    for p in postings:
        if p.key in answers:
            _settle(p, answers[p.key])
    _pulls_as_postings(postings, pulls)
    by_pulls = applied_by_pulls(postings, pulls, appliers)
    by_robot = applied_by_robot(postings, reports)
    by_id = {h.msgid: h for h in heads}
    try:
        for p in postings:  # every posting: paths that are applied without a reply show only here
            _scan_patches(p, by_id, handles)
            _recipients(p, by_id, handles)
    finally:
        handles.close()
    dates = [h.date for h in heads if h.date is not None]
    return Archive(messages=len(heads), span=(min(dates), max(dates)) if dates else None, postings=postings,
                   pulls=pulls, actions=trusted, untrusted=untrusted, unmatched=unmatched,
                   labels=tuple(str(p) for p in paths), senders=frozenset(_address(h.sender) for h in heads),
                   own_list=own_list(heads), by_pulls=by_pulls, by_robot=by_robot)


def _build_reports(heads: list[MailHead], handles: MailReader) -> Iterable[BuildReport]:
    """The build robot's reports on a queue's branches (learn/robot.py); no other body is read."""
    for h in heads:
        if h.in_reply_to or not ROBOT_SUBJECT_RE.search(h.subject):
            continue
        report = read_report(h.msgid, _address(h.sender), h.date, h.subject, _text_of(_read(h, handles)))
        if report is not None:
            yield report


def _pulls_as_postings(postings: list[Posting], pulls: list[PullRequest]) -> None:
    """A pull request sent as a series is a posting whose replies say where it was applied: that
    is where the pull went (the netdev bot's "This series was applied to netdev/net.git")."""
    cover_of = {p.cover.msgid: p for p in postings if p.cover}
    for i, pr in enumerate(pulls):
        p = cover_of.get(pr.msgid)
        if p is not None:
            p.pull = True
            if p.applied and pr.applied_to is None:
                pulls[i] = PullRequest(**{**pr.__dict__, "applied_to": p.tree_words})


def _read(h: MailHead, handles: MailReader) -> bytes:
    return handles.read(h.ref).data


def _replies(heads: list[MailHead], handles: MailReader) -> Iterable[ReplyAction]:
    """Every reply that states an action. A mail holding none of the forms' hint words (and not
    encoded, where the words could hide) is never parsed."""
    words = tuple(w.encode() for w in (hints(shipped_forms()) or ()))
    for h in heads:
        if not h.parents:
            continue
        s = parse_subject(h.subject)
        if s.is_patch and not s.reply:
            continue
        data = _read(h, handles)
        head, _, body = data.partition(b"\n\n")
        plain = not _ENCODED_RE.search(head) and not _MULTIPART_RE.search(head)
        if plain and words and not any(w in body.lower() for w in words):
            continue
        if plain:  # the index read its headers already: no mail parser for the body
            action = read_reply_text(sender=h.sender, date=_when(h.date), body=body.decode("utf-8", "replace"),
                                     msgid=h.msgid, in_reply_to=h.in_reply_to, references=h.parents)
        else:
            action = read_reply(email.message_from_bytes(data))  # compat32: the fast parser
        if action is not None:
            yield action


def _address(sender: str) -> str:
    from ..mail.headers import mailbox

    return mailbox(sender)[1].lower()


def _when(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, timezone.utc) if ts is not None else None


def _pull_requests(heads: list[MailHead], handles: MailReader) -> Iterable[PullRequest]:
    """`git request-pull` mails: a `[GIT PULL]` or `pull-request:` subject, or the cover letter of
    a series (netfilter's maintainers send `[PATCH net 0/6] Netfilter fixes for net`, the pull
    request in the cover and the patches below it)."""
    for h in heads:
        if h.in_reply_to:
            continue
        s = parse_subject(h.subject)
        if s.reply or not (_PULL_RE.search(h.subject) or (s.is_patch and s.counter == 0)):
            continue
        text = _read(h, handles).decode("utf-8", "replace")
        m = _PULL_URL_RE.search(text)
        if m:
            carries = frozenset(normalized_summary(parse_subject(s)) for _, s in shortlog(text[m.end():]))
            yield PullRequest(h.msgid, h.subject, h.date, m.group(1), m.group(2), sender=_address(h.sender),
                              carries=carries)


def _text_of(data: bytes) -> str:
    head, _, body = data.partition(b"\n\n")
    if not _ENCODED_RE.search(head) and not _MULTIPART_RE.search(head):
        return body.decode("utf-8", "replace")
    msg = email.message_from_bytes(data)
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload.decode("utf-8", "replace")
    return ""


def _recipients(p: Posting, by_id: dict[str, MailHead], handles: MailReader) -> None:
    """Its first mail's To and Cc, in order: which lists it was sent to, and which first
    (learn/paths.py: a path the postings of another profile's list touch is not this list's)."""
    from ..mail.headers import mailboxes

    h = by_id.get(p.cover.msgid if p.cover else p.msgid)
    if h is None:
        return
    head = email.message_from_bytes(_read(h, handles).partition(b"\n\n")[0])
    fields = [str(v) for k in ("to", "cc") for v in head.get_all(k, [])]
    p.recipients = tuple(a.lower() for _, a in mailboxes(fields) if a)


def _scan_patches(p: Posting, by_id: dict[str, MailHead], handles: MailReader) -> None:
    """The files each patch touches (the index read them: sources/diffsig.py) and, for a posting
    the maintainers settled, whether each patch carries a Fixes tag (the first pass needs only
    these; the review of the second pass reads the rest)."""
    for m in p.patches:
        h = by_id.get(m.msgid)
        if h is None:
            continue
        p.files[m.counter] = h.paths
        if p.settled:
            message, _, _ = _text_of(_read(h, handles)).partition("\n---")
            if has_fixes_tag(message):
                p.fixes.add(m.counter)


def _ancestors(a: ReplyAction) -> list[str]:
    out = [a.in_reply_to] if a.in_reply_to else []
    return out + [r for r in reversed(a.references) if r not in out]


def _answered(a: ReplyAction, by_mail: dict[str, tuple[Posting, int]]) -> tuple[Posting, int] | None:
    return next((by_mail[m] for m in _ancestors(a) if m in by_mail), None)


def _settle(p: Posting, answers: list[Answer]) -> None:
    """What the trusted replies settled (mail/settle.py): the posting's state, and for each
    patch applied in the end the reply that applied it, with the subject its commit got."""
    mails = [PostingPatch(m.msgid, m.counter, m.subject) for m in ((p.cover,) if p.cover else ()) + p.patches]
    state = settle(mails, answers)
    if state is None:
        return
    if state.state in SENT_BACK:
        p.sent_back = [a for a in state.replies if a.state == state.state]
    elif state.state == "deferred":
        p.deferred = [a for a in state.replies if a.state == "deferred"]
    by_counter = {m.counter: m for m in p.patches}
    for answer in sorted(answers, key=lambda x: x.action.date.timestamp() if x.action.date else 0):
        if answer.action.state != "applied":
            continue
        for c, ref in targets(answer, mails).items():
            if c in state.applied and c in by_counter:
                p.applied[c] = Applied(answer.action, ref.subject if ref is not None else None)
    for c, applied in p.applied.items():
        if applied.commit_subject and normalized_summary(parse_subject(applied.commit_subject)) != by_counter[c].summary:
            p.edited = True


def _learned_appliers(actions: list[ReplyAction], pulls: list[PullRequest], postings: list[Posting],
                      by_mail: dict[str, tuple[Posting, int]]) -> frozenset[str]:
    """Who applies, from evidence a stranger cannot write: whom the kernel.org bot names in its own
    mails, the shipped profiles' appliers (MAINTAINERS), and whoever sent a script's applied reply
    (pwcli, b4 ty) and then the patch in their own pull request that upstream took, as those two
    say (learn/pulled.py). How many such replies someone sent counts for nothing: anyone can
    send three."""
    named = frozenset(a.by.email for a in actions if a.state == "applied" and a.trust == "form")
    return appliers_by_pulls(named | shipped_appliers(), actions, pulls, postings, lambda a: _answered(a, by_mail),
                             _ancestors)
