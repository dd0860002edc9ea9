"""What the maintainers' replies settled for the postings a triaged series replaces (its earlier
revisions and resent copies, listed as superseded) and for replies whose patch is not in the
archive: read from the mails themselves, as context/replies/settled.py reads the triaged series.
Where no reply form settled a superseded posting, its applier's words do, read from the earlier
revision the review built as context/replies/acts.py reads the triaged series' replies.

The posting of a superseded entry is every patch mail of its revision in its thread; a reply
belongs to the patch it answers through In-Reply-To (else References), however deep.
Trust is as for the triaged series, without MAINTAINERS: a form that needs an applier counts
from the profile's `[replies] appliers`.
"""

from __future__ import annotations

from email.message import Message
from typing import Any, Iterable, Sequence

from ..mail.headers import header, ids_in, message_id_of
from ..mail.replies import ReplyAction, read_reply
from ..mail.subject import list_name_of, parse_subject
from ..mail.settle import Answer, PostingPatch, settle
from ..sources.unionfind import DisjointSets


class Thread:
    """The mails of one group (or orphan thread): patches by msgid, parents, replies' actions."""

    def __init__(self, msgs: Iterable[Message], forms, read: set[str] | None = None) -> None:
        """`read`: replies already read for the triaged series (they answer its mails, so they
        settle no other posting): their bodies are not read again."""
        self.parent: dict[str, str | None] = {}
        self.patches: dict[str, tuple[int, int, str]] = {}  # msgid -> (revision, counter, summary)
        self.actions: list[ReplyAction] = []
        self.subjects: dict[str, Any] = {}  # a reply's msgid -> its parsed subject
        uf = DisjointSets()
        for msg in msgs:
            mid = message_id_of(msg)
            if not mid:
                continue
            irt, refs = ids_in(header(msg, "In-Reply-To")), ids_in(header(msg, "References"))
            self.parent[mid] = (irt or refs[-1:] or [None])[0]
            uf.find(mid)
            for p in irt + refs:
                uf.union(mid, p)
            s = parse_subject(header(msg, "Subject"))
            if s.is_patch and not s.reply:
                self.patches[mid] = (s.revision, s.counter if s.counter is not None else 1, s.summary)
            elif read is None or mid not in read:
                action = read_reply(msg, forms)
                if action is not None:
                    self.actions.append(action)
                    self.subjects[mid] = s
        self.root = uf.find

    def answered(self, action: ReplyAction) -> str | None:
        """The nearest patch mail above the reply, else the topmost id it names."""
        cur, seen = action.in_reply_to, set()
        last = cur
        while cur is not None and cur not in seen:
            if cur in self.patches:
                return cur
            seen.add(cur)
            last = cur
            cur = self.parent.get(cur)
        return last

    def posting(self, msgid: str) -> list[PostingPatch]:
        """The patch mails of `msgid`'s revision in its thread."""
        if msgid not in self.patches:
            return []
        revision, root = self.patches[msgid][0], self.root(msgid)
        return [PostingPatch(m, c, summary) for m, (r, c, summary) in self.patches.items()
                if r == revision and self.root(m) == root]


def known_appliers(profile) -> frozenset[str]:
    from ..context.replies.settled import known_appliers as known  # lazily, as this module's other context reads

    return known(profile)


def _trusted(action: ReplyAction, appliers: Sequence[str] | frozenset[str]) -> bool:
    return not action.needs_applier or action.by.email in appliers


def posting_state(thread: Thread, msgid: str, profile) -> dict[str, Any] | None:
    """The state data (context/reply_state.state_data) of the posting whose mail is `msgid`."""
    from ..context.replies.settled import state_data

    patches = thread.posting(msgid)
    ids = {p.msgid: p.counter for p in patches}
    answers = [Answer(a, ids[hit]) for a in thread.actions
               if (hit := thread.answered(a)) in ids and _trusted(a, known_appliers(profile))]
    ps = settle(patches, answers)
    return state_data(ps, profile) if ps is not None else None


def _states_in_words(group, earlier: Sequence[Any], profile) -> dict[str, dict[str, Any]]:
    """{a superseded posting's msgid: the state its applier's words settle} for the earlier
    revisions the review built (Series.earlier), read as the triaged series' replies are
    (context/replies/acts.state_in_words: "could you please send a v2 that ...", a rejection),
    where no reply form settled it. A resent copy b4 did not take has none."""
    from ..context.replies.acts import state_in_words
    from ..context.replies.settled import applier_check

    out = {}
    for s in group.superseded:
        e = next((e for e in earlier if e.revision == s.revision and any(p.msgid == s.msgid for p in e.all_mails)),
                 None)
        if e is not None and e.replies and (state := state_in_words(e, applier_check(profile, None, e))) is not None:
            out[s.msgid] = state
    return out


def earlier_states(group, msgs: Sequence[Message], profile, triaged: Iterable[str] = (),
                   earlier: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """An "earlier-state" reason for each posting of the group other than the triaged one
    (`triaged`: the ids of its mails and of the replies the review read) that a reply settled: its superseded postings, a patch posted
    into the thread that the series does not take, and a posting the archive lacks (revision
    None: a v1 sent before the archive starts, answered "Patch set to Changes Requested.").
    `earlier`: the series' earlier revisions as the review built them, whose replies' words
    settle a superseded posting no form settled (_states_in_words)."""
    from ..context.replies.settled import forms_for, state_data

    triaged = set(triaged)
    if not group.superseded and all(message_id_of(m) in triaged for m in msgs):
        return []  # every mail is the series' own or a reply the review read: nothing else to settle
    thread = Thread(msgs, forms_for(profile), read=triaged)
    in_words = _states_in_words(group, earlier, profile)
    if not thread.actions and not in_words:
        return []
    out = []
    done = {m for m in triaged if m in thread.patches}
    for s in group.superseded:
        done |= {p.msgid for p in thread.posting(s.msgid)}
        state = posting_state(thread, s.msgid, profile) or in_words.get(s.msgid)
        if state is not None:
            out.append({"code": "earlier-state", "msgid": s.msgid, "revision": s.revision, "state": state})
    for msgid, (revision, counter, summary) in thread.patches.items():
        if msgid in done:
            continue
        answers = [Answer(a, counter) for a in thread.actions
                   if thread.answered(a) == msgid and _trusted(a, known_appliers(profile))]
        ps = settle([PostingPatch(msgid, counter, summary)], answers)
        if ps is not None:
            out.append({"code": "earlier-state", "msgid": msgid, "revision": revision, "state": state_data(ps, profile)})
    absent: dict[str, list[Answer]] = {}
    for a in thread.actions:
        hit = thread.answered(a)
        if hit is not None and hit not in thread.parent and _trusted(a, known_appliers(profile)):
            absent.setdefault(hit, []).append(Answer(a, None))
    summaries = {summary for _, _, summary in thread.patches.values()}
    for msgid, answers in sorted(absent.items()):
        ps = settle((), answers)
        if ps is not None:
            entry = {"code": "earlier-state", "msgid": msgid, "revision": None, "state": state_data(ps, profile)}
            # answered as "Re: [PATCH v3] <the series' summary>" above the triaged revision: a newer
            # revision of the series that the archive lacks (its settled state is the series')
            said = [thread.subjects.get(a.action.msgid) for a in answers]
            newer = [x.revision for x in said if x is not None and x.summary in summaries and x.revision > group.revision]
            if newer:
                entry.update(revision=max(newer), newer=True)
            out.append(entry)
    return out


def orphan_state(msgs: Sequence[Message], missing: Sequence[str], profile) -> dict[str, Any] | None:
    """The state of the patch (not in the archive) the orphan replies answer, from trusted forms."""
    from ..context.replies.settled import forms_for, state_data

    thread = Thread(msgs, forms_for(profile))
    answers = [Answer(a, None) for a in thread.actions
               if thread.answered(a) in missing and _trusted(a, known_appliers(profile))]
    ps = settle((), answers)
    return state_data(ps, profile) if ps is not None else None


_ENCODED = (b"base64", b"quoted-printable")


def _may_state(data: bytes) -> bool:
    """Whether a raw mail may hold a reply form: one of the shipped forms' hint words, or a
    body we cannot read without decoding it (with a profile's own forms, every mail is read)."""
    from ..mail.reply_forms import hints, shipped_forms

    words = hints(shipped_forms())
    low = data.lower()
    return any(w.encode() in low for w in (words or ())) or any(e in low for e in _ENCODED)


def _orphan_profile(msgs: Sequence[Message], opts, profiles):
    from ..context.profiles.file import choose
    from ..context.profiles.select import select_profile
    first = msgs[0]
    choice = choose(profiles, opts.review.profile, opts.review.repo)  # --profile may name a file
    return select_profile(choice.profiles, name=choice.name, tags=parse_subject(header(first, "Subject"), list_name_of(header(first, "List-Id"))).tags,
                          recipients=[header(first, "To"), header(first, "Cc")], repo=opts.review.repo,
                          default=choice.default)[0]


def orphan_states(orphans, opts) -> dict[str, dict[str, Any]]:
    """{orphan msgid: state} for the orphan threads whose replies settled their patch."""
    from ..context.profiles.load import load_profiles
    from ..sources.files import parse_mails
    from ..sources.mail_refs import read_refs

    out = {}
    profiles = load_profiles(opts.review.repo) if orphans else {}
    own_forms = any(p.reply_forms for p in profiles.values())
    for o, raws in zip(orphans, read_refs([o.refs for o in orphans])):
        raws = raws if own_forms else [r for r in raws if _may_state(r.data)]
        if not raws:
            continue  # no reply of the thread holds a word any form needs
        msgs = parse_mails(raws)
        if not msgs:
            continue
        state = orphan_state(msgs, o.missing, _orphan_profile(msgs, opts, profiles))
        if state is not None:
            out[o.msgid] = state
    return out
