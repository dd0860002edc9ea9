"""The module that builds series with b4: parsed mail in, frozen model out (sources/b4fetch.py,
which fetches through b4 and liblore and sets b4 up, is the only other one importing b4).

It copes with b4 0.16's known traps: configuration must be set up before use (b4fetch.init_b4),
get_series() is not idempotent (a fresh LoreMailbox per call), some calls sys.exit(), the b4
logger prints to stderr, and base-commit is mis-parsed for non-hex values (we read it ourselves).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from email.message import EmailMessage

from ..errors import InputError, LimitError
from ..limits import limits
from ..mail.footer import strip_list_footer
from ..mail.headers import capped_note, header, message_id_of, msg_date
from ..mail.message import is_patch_mail, without_forwarded
from ..mail.quoting import original_offset
from ..mail.subject import normalized_summary, parse_subject
from ..sources.b4fetch import init_b4
from ..sources.threads import split_reposts
from . import b4fast
from .assemble import duplicate_counters, make_patch, make_series, person
from .b4fast import read_subject
from .b4mailbox import mailboxes
from .series import Patch, Reply, Series
from .trailers import find_reply_trailers, make_trailer


def _patch(lmsg, subjects: dict[str, str] | None = None) -> Patch:
    """The model of one patch mail; `subjects` maps msgid -> the subject as written when b4 was
    handed a rewritten one."""
    msg = lmsg.msg
    followups = [make_trailer(t.name, t.value, f"{t.name}: {t.value}",
                              source_msgid=getattr(t, "origin", None) or None)
                 for t in (lmsg.followup_trailers or [])]
    return make_patch(msg, msgid=lmsg.msgid, body=lmsg.body or "", sender=person(lmsg.fromname, lmsg.fromemail),
                      subject=(subjects or {}).get(lmsg.msgid) or lmsg.full_subject or header(msg, "Subject"),
                      counter_hint=lmsg.counter, date=msg_date(msg), in_reply_to=lmsg.in_reply_to,
                      references=tuple(lmsg.references or ()), followups=followups,
                      patch_id=getattr(lmsg, "_git_patch_id", None))


def _strip_quotes(body: str) -> str:
    """The reply's own lines: no `>` quote, nothing of a top-posted reply's copy of the answered mail."""
    body = body.replace("\r", "")
    body = body[:original_offset(body)]  # None: all of it
    return "\n".join(l for l in body.split("\n") if not l.startswith(">"))


def _earlier_replies(lmbx, summaries: dict[str, int]) -> tuple[Reply, ...]:
    """Replies whose parent the input lacks, answering a posting of one of the series' patches
    (matched by the summary of their `Re:` subject); see Series.earlier_replies."""
    known = set(lmbx.msgid_map) | {f.msgid for f in lmbx.followups}
    out = []
    for f in lmbx.followups:
        parent = f.in_reply_to or (f.references[-1] if f.references else None)
        if not parent or parent in known:
            continue
        s = parse_subject(f.full_subject or "")
        counter = summaries.get(normalized_summary(s)) if s.reply else None
        if counter is None:
            continue
        author = person(f.fromname, f.fromemail)
        body = strip_list_footer(f.body or "")
        out.append(Reply(msgid=f.msgid, subject=f.full_subject, author=author, date=msg_date(f.msg),
                         in_reply_to=parent, counter=counter, body=_strip_quotes(body),
                         trailers=find_reply_trailers(body, source_msgid=f.msgid, source_from=author),
                         text=body))
    out.sort(key=lambda r: (r.date is None, r.date.timestamp() if r.date else 0, r.msgid))
    return tuple(out)


def _replies(lmbx, mails: dict[str, int]) -> tuple[Reply, ...]:
    """Replies that answer (directly or through other replies) one of the series' mails."""
    by_id = {f.msgid: f for f in lmbx.followups}
    resolved: dict[str, int | None] = dict(mails)

    def counter_of(msgid: str) -> int | None:
        # Iterative with memoisation: reply chains can be 10,000 deep (no recursion, no O(n^2) walk).
        path, cur, seen = [], msgid, set()
        while cur is not None and cur not in resolved and cur not in seen:
            seen.add(cur)
            path.append(cur)
            f = by_id.get(cur)
            cur = (f.in_reply_to or (f.references[-1] if f.references else None)) if f else None
        found = resolved.get(cur) if cur is not None else None
        for m in path:
            resolved[m] = found
        return found

    out = []
    for f in lmbx.followups:
        parent = f.in_reply_to or (f.references[-1] if f.references else None)
        counter = counter_of(parent) if parent else None
        if counter is None:
            continue
        author = person(f.fromname, f.fromemail)
        body = strip_list_footer(f.body or "")
        out.append(Reply(msgid=f.msgid, subject=f.full_subject, author=author, date=msg_date(f.msg),
                         in_reply_to=f.in_reply_to, counter=counter, body=_strip_quotes(body),
                         trailers=find_reply_trailers(body, source_msgid=f.msgid, source_from=author), text=body))
    out.sort(key=lambda r: (r.date is None, r.date.timestamp() if r.date else 0, r.msgid))
    return tuple(out)


# b4 converts every digit of a `vN` word of a subject (int() raises past 4,300 digits); a
# version that long is no version (subject.py reads at most three digits), so b4 never sees it.
_ABSURD_VERSION_RE = re.compile(r"(?i)v\d{100,}")
# b4 reads a run of `[` in a subject in cubic time (800 of them: 0.5 s, 20,000: hours); a run that
# long names no tag, so b4 sees one.
_BRACKET_RUN_RE = re.compile(r"\[{8,}")


def _canonical_subject(raw: str) -> str | None:
    """`[PATCH vN M/N] summary` when b4 would read the prefix differently from us (b4 does not split
    `[PATCH nft,v2]`, `0/6,v3` or patchwork's `[net,v2,1/2]` at commas), else None."""
    import b4

    ours = parse_subject(raw)
    if ours.reply:
        return None
    theirs = read_subject(b4, raw)
    same_counter = ours.counter is None or (ours.counter, ours.expected) == (theirs.counter, theirs.expected)
    if ours.revision == theirs.revision and same_counter and (theirs.patch or not ours.is_patch):
        return None
    words = ["PATCH"] + (["RFC"] if ours.rfc else []) + (["RESEND"] if ours.resend else [])
    words += [f"v{ours.revision}"] if ours.revision_explicit else []
    words += [f"{ours.counter}/{ours.expected}"] if ours.counter is not None else []
    return f"[{' '.join(words)}] {ours.summary}"


def _b4_view(msgs: list[EmailMessage]) -> tuple[list[EmailMessage], dict[str, str]]:
    """The messages as b4 should see them, and {msgid: subject as written} for rewritten ones.
    A rewritten message is a copy: the caller's message keeps its subject; so is one that forwards
    a mail, without it."""
    out, originals = [], {}
    for msg in msgs:
        msg = without_forwarded(msg)  # b4 reads every text part: a forwarded mail's words are not the sender's
        raw = header(msg, "Subject")
        sane = _ABSURD_VERSION_RE.sub("", raw) if "v" in raw.lower() else raw
        sane = _BRACKET_RUN_RE.sub("[", sane) if "[[[[[[[[" in sane else sane
        canonical = _canonical_subject(sane) if is_patch_mail(msg) else None
        if canonical is None and sane != raw:
            canonical = sane
        if canonical is None:
            out.append(msg)
            continue
        clone = copy.copy(msg)
        clone._headers = list(msg._headers)  # its own header list, so the original is untouched
        clone.replace_header("Subject", canonical)
        originals[message_id_of(msg) or ""] = raw
        out.append(clone)
    return out, originals


def _reposts(msgs: list[EmailMessage]) -> tuple[Patch, ...]:
    import b4

    out = []
    for msg in msgs:
        try:
            out.append(_patch(_lore_message(b4, msg)))
        except (ValueError, KeyError, AttributeError, LookupError, UnicodeError):
            continue  # an unreadable old copy only means one comparison less
    return tuple(out)


def _lore_message(b4, msg: EmailMessage):
    """b4.LoreMessage(msg), made by b4fast where it can (b4's own scans a patch's whole body for
    reply trailers it then drops); where b4fast fails, b4 says how."""
    if b4fast.usable(b4):
        try:
            return b4fast.lore_message(b4, msg)
        except Exception:
            pass
    return b4.LoreMessage(msg)


def _b4_revision(lmbx, revision: int, anchors: frozenset[str]) -> int:
    """The revision under which b4 keeps the patches we read as `revision` (`anchors`: the first
    mail of the posting the linker chose, else every patch mail whose subject says `revision`).
    b4 numbers a second unnumbered single patch from the same author in one thread as the next
    revision ("Assuming new revision"), in the order the mails come: in a thread with two v1
    patches and then a v2, b4's v2 is the second v1 and the v2 its v3, and asked for v2 it answered
    with a patch of v1. Where the anchors sit under more than one of b4's revisions (an unnumbered
    patch sent twice), b4's own numbering is asked, as before."""
    if not anchors or not any(k > revision for k in lmbx.series):
        return revision
    keys = [k for k, lser in lmbx.series.items() if any(p is not None and p.msgid in anchors for p in lser.patches)]
    return keys[0] if len(keys) == 1 else revision


def _series_for(lmbx, skipped: list[str], msgs: list[EmailMessage], revision: int, source: str, *,
                subjects: dict[str, str] | None = None, reposts: tuple[Patch, ...] = (),
                anchors: frozenset[str] = frozenset()) -> Series | None:
    try:
        lser = lmbx.get_series(revision=_b4_revision(lmbx, revision, anchors), codereview_trailers=False)
    except SystemExit as exc:  # b4 exits on Cf characters and attestation hardfail
        raise InputError(f"{source}: b4 refused the series (exit {exc.code}); the mail may hold "
                         "bidirectional-control characters") from exc
    cover_lmsg = None
    if lser is None:
        cover_lmsg = lmbx.covers.get(revision)
        if cover_lmsg is None:
            return None
        patches_lmsg, expected = [], cover_lmsg.expected
    else:
        cover_lmsg = lser.patches[0] if lser.patches and lser.patches[0] is not None else None
        patches_lmsg = [p for p in lser.patches[1:] if p is not None]
        expected = lser.expected
    cover = _patch(cover_lmsg, subjects) if cover_lmsg is not None else None
    patches = tuple(sorted((_patch(p, subjects) for p in patches_lmsg), key=lambda p: p.counter))
    mails = {p.msgid: p.counter for p in ((cover,) if cover else ()) + patches}
    summaries = {normalized_summary(p.subject): p.counter for p in ((cover,) if cover else ()) + patches}
    return make_series(revision=revision, expected=expected, cover=cover, patches=patches,
                       duplicates=duplicate_counters(msgs, revision), source=source, replies=_replies(lmbx, mails),
                       trailer_mismatches=tuple(sorted(lser.trailer_mismatches)) if lser is not None else (),
                       reposts=reposts, notes=tuple(skipped), earlier_replies=_earlier_replies(lmbx, summaries))


def _unusable_series(msgs: list[EmailMessage], revision: int, source: str) -> Series | None:
    """The series of patch mails b4 cannot use (a diffstat followed by pasted text instead of a
    diff, say), read by our own parser, so the review can say what is wrong with them."""
    from .own import OwnSeriesBuilder

    builder = OwnSeriesBuilder()
    for m in msgs:
        s = parse_subject(header(m, "Subject"))
        if is_patch_mail(m) and s.revision == revision and not s.pull:
            builder.add(m)
    try:
        series = builder.series(source)
    except InputError:
        return None
    note = "b4 found no usable patch in the thread: the mails were read as they are"
    return Series(**{**series.__dict__, "notes": series.notes + (note,)}) if series.patches else None


_ZERO_COUNTER_RE = re.compile(r"0+/\d+")


def _patch_limit(msgs: list[EmailMessage], source: str, limit: int) -> None:
    """LimitError when a revision has more patches than `limit`: its distinct patches (counter and
    summary: a copy posted again counts once), the cover letter (0/N) left out, so N patches and
    their cover are within a limit of N. Counted before copies are set aside: patches whose
    counters cannot be read (a total of 10,000 or more) would be taken for copies of one patch."""
    patches: set[tuple[int, int | None, str]] = set()
    for m in msgs:
        if not is_patch_mail(m):
            continue
        s = parse_subject(header(m, "Subject"))
        if s.counter != 0 and not (s.counter is None and any(_ZERO_COUNTER_RE.fullmatch(t) for t in s.tokens)):
            patches.add((s.revision, s.counter, normalized_summary(s)))
    per_revision = Counter(revision for revision, _, _ in patches)
    if per_revision and max(per_revision.values()) > limit:
        biggest = max(per_revision, key=per_revision.get)
        raise LimitError(source, f"revision v{biggest} has {per_revision[biggest]} patches, over the limit of "
                                 f"{limit} (REVIEWTOOL_MAX_PATCHES)")


def build_series(msgs: list[EmailMessage], *, revision: int | None = None, source: str = "",
                 current: str | None = None) -> Series:
    """The newest (or the asked-for) revision of the series in `msgs`, with earlier ones attached;
    `current`: the first patch of the posting the linker chose, kept over another posting of the
    same revision and number (sources/threads.split_reposts)."""
    init_b4()
    msgs = [m for m in msgs if message_id_of(m)]
    lim = limits()
    if len(msgs) > lim.thread_messages:  # check's select_posting says it first; triage's groups say it here
        raise LimitError(source, f"the thread under review has {len(msgs)} messages, over the limit of "
                                 f"{lim.thread_messages} (REVIEWTOOL_MAX_MESSAGES)")
    _patch_limit(msgs, source, lim.series_patches)
    msgs, older = split_reposts(msgs, current)
    seen = [(m, parse_subject(header(m, "Subject"))) for m in msgs if is_patch_mail(m)]
    revisions = sorted({s.revision for _, s in seen})
    if not revisions:
        raise InputError(f"{source}: no patch mail in the thread")
    target = revision or revisions[-1]
    if target not in revisions:
        raise InputError(f"{source}: revision v{target} is not in the input (found: "
                         + ", ".join(f"v{r}" for r in revisions) + ")")
    anchors = frozenset({current} if current else {message_id_of(m) for m, s in seen if s.revision == target} - {None})
    b4_msgs, subjects = _b4_view(msgs)
    boxes, skipped = mailboxes(b4_msgs, 1 + sum(1 for r in revisions if r < target))

    def series_for(r: int) -> Series | None:
        reposts = _reposts(older.get(r, [])) if r == target else ()
        return _series_for(boxes.pop(), skipped, b4_msgs, r, source, subjects=subjects, reposts=reposts,
                           anchors=anchors if r == target else frozenset())

    series = series_for(target)
    if series is None:
        series = _unusable_series(msgs, target, source)  # mail that says it is a patch but carries none
    if series is None:
        raise InputError(f"{source}: b4 found no usable patch series in the thread")
    earlier = tuple(s for r in revisions if r < target if (s := series_for(r)) is not None)
    if earlier:
        series = Series(**{**series.__dict__, "earlier": earlier})
    capped = capped_note(msgs)
    return Series(**{**series.__dict__, "notes": series.notes + (capped,)}) if capped else series
