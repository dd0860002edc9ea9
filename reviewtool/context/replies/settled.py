"""What the maintainers' replies in the thread settled: applied, changes requested, deferred, ...

A context stage: each reply of the series is read against the reply forms (mail/replies.py;
the profile's `[[replies.forms]]` first), the trusted ones settle the posting
(mail/settle.py), and `fields["reply_state"]` holds the result for the verdict, `check`'s
note and triage's status. A form that counts only from someone who applies patches for the tree
(plain "Applied", a NAK) is trusted when its sender is in the profile's `[replies] appliers`
or a MAINTAINERS `M:` of the files the series touches (with --repo); otherwise a note says
whose words were not taken.

The tree a reply names is the profile's (Profile.tree_named: its trees, their git names, former
names and the sub-trees that feed them, so "ath-next branch of ath.git" is wireless-next), or
another shipped profile's (a wireless patch sent as [PATCH net] is applied to wireless-next.git);
else a `-next` branch or repository is the profile's development tree and a `-current` or
`-fixes` one its fixes tree; otherwise there is no tree, and the reply's words are kept as they
are (`tree_words`).
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Any, Callable

from ...mail.replies import Address, ReplyAction, address, read_reply_text
from ...mail.reply_forms import load_forms, shipped_forms
from ...mail.settle import Answer, PostingPatch, PostingState, settle

STAGE_ORDER = 70  # after the maintainers stage: M: entries decide whose plain words count
CLOCK_SKEW = timedelta(hours=1)  # mailers' clocks disagree by minutes; a reply a day early is no answer

_DEVELOPMENT_SUFFIXES = ("-next", "/next", "for-next")
_FIXES_SUFFIXES = ("-current", "-fixes", "/fixes", "for-current")


def forms_for(profile) -> tuple:
    extra = getattr(profile, "reply_forms", ())
    return load_forms(extra, f"profile {profile.name!r}") if extra else shipped_forms()


def tree_name(action: ReplyAction, profile) -> str | None:
    """The tree that the reply's words name (see the module docstring), or None."""
    from ..profiles.load import shipped_profiles

    words = " ".join(w for w in (action.tree_words, action.branch) if w)
    names = [n.lower() for n in (action.repo, action.branch) if n]
    for p in (profile, *shipped_profiles().values()):  # a wireless patch sent as [PATCH net] names wireless-next
        named = p.tree_named(words) if words else None  # its trees, their former names and sub-trees
        if named is not None:
            return named[0].name
        for n in names:
            if p.tree(n) is not None:
                return n
    for kind, suffixes in (("development", _DEVELOPMENT_SUFFIXES), ("fixes", _FIXES_SUFFIXES)):
        if any(n.endswith(s) or n == s.strip("-/") for n in names for s in suffixes):
            spec = profile.tree_for(kind)
            if spec is not None:
                return spec.name
    return None


@lru_cache(maxsize=1)
def shipped_appliers() -> frozenset[str]:
    """Who applies, by the shipped profiles' data (MAINTAINERS M: of their trees)."""
    from ..profiles.load import shipped_profiles

    return frozenset(a.lower() for p in shipped_profiles().values() for a in p.appliers)


def known_appliers(profile) -> frozenset[str]:
    """The addresses whose plain replies settle a series: the profile's appliers and those of the
    shipped profiles (a wireless patch sent as [PATCH net] is applied by a wireless maintainer).
    Every one of them is named by data (a profile, MAINTAINERS), never by a reply's words."""
    return shipped_appliers() | {a.lower() for a in getattr(profile, "appliers", ())}


def applier_check(profile, maintainers, series) -> Callable[[Address], bool]:
    """Whether an address applies patches for the series' tree: a known applier (known_appliers),
    or an M: entry of MAINTAINERS for the files the series touches."""
    known = set(known_appliers(profile))
    if maintainers is not None:
        paths = sorted({f.path for p in series.patches for f in p.diff.files if not f.unsafe_path})
        known |= {r.address.lower() for r in maintainers.recipients(paths) if r.kind == "maintainer"}

    def check(who: Address) -> bool:
        if maintainers is not None:
            who = Address(*maintainers.mailmap.canonical(who.name, who.email))
        return who.email.lower() in known
    return check


def posting_patches(series) -> list[PostingPatch]:
    return [PostingPatch(p.msgid, p.counter, p.subject.summary) for p in series.all_mails]


def read_actions(series, forms) -> list[tuple[ReplyAction, int | None]]:
    """(action, the counter of the mail it answers) for every reply of the series that states one."""
    out = []
    for r in series.replies:
        action = read_reply_text(sender=str(r.author), date=r.date, subject=r.subject, body=r.text or r.body,
                                 msgid=r.msgid, in_reply_to=r.in_reply_to, forms=forms)
        if action is not None:
            out.append((action, r.counter))
    return out


def not_counted(action: ReplyAction, answered, is_applier: Callable[[Address], bool], people: set[str]) -> str | None:
    """Why the reply may not set the series' state, or None when it may. `answered`: the mail it
    answers (a model Patch), when known.
    - a reply dated before the mail it answers was written before it, or lies about its date;
    - an applier's form (plain "Applied", a NAK) counts from someone who applies for the tree;
    - a thread command (netdev's `pw-bot: cr`) from the patch's author, such a maintainer,
      someone the series was sent to (maintainer-netdev: "the author ..., MAINTAINERS entries and
      senior reviewers", whom get_maintainer puts in To/Cc), or a reviewer whose reply says why
      (words above the command): a command sent alone by anyone else is mail "only to drive the
      bot"; `people`: the author and sender addresses and those of To/Cc."""
    posted = getattr(answered, "date", None)
    if posted is not None and action.date is not None and _earlier(action.date, posted - CLOCK_SKEW):
        return f"it is dated {action.date:%Y-%m-%d %H:%M}, before the mail it answers ({posted:%Y-%m-%d %H:%M})"
    if action.needs_applier and not is_applier(action.by):
        return (f"{action.by.email or action.by.name} is not known to apply patches for this tree (the profile's "
                "[replies] appliers, or a MAINTAINERS M: of its files with --repo)")
    if action.trust == "thread" and not is_applier(action.by) and action.by.email.lower() not in people \
            and not action.reason_line:
        return (f"{action.by.email or action.by.name} sent the command alone, and is not the patch's author, was not "
                "sent the series and is not known to apply patches for this tree")
    return None


def _earlier(a, b) -> bool:
    try:
        return a < b
    except TypeError:  # one date without a zone: no order to trust
        return False


def series_state(series, profile, maintainers=None) -> tuple[PostingState | None, list[tuple[ReplyAction, str]]]:
    """(the series' state, the actions not taken and why: not_counted)."""
    is_applier = applier_check(profile, maintainers, series)
    people = {a.lower() for p in series.all_mails for a in (p.author.email, p.sender.email) if a}
    people |= {address(r).email for p in series.all_mails for r in p.to + p.cc} - {""}
    trusted, untrusted = [], []
    for action, counter in read_actions(series, forms_for(profile)):
        why = not_counted(action, series.patch(counter) if counter is not None else None, is_applier, people)
        if why is None and action.state == "applied" and action.tree_words and tree_name(action, profile) is None:
            # "Patch applied to evil.git": a tree no profile knows is no tree this series goes to
            why = f"it names {action.tree_words}, a tree no profile knows"
        if why is not None:
            untrusted.append((action, why))
        else:
            trusted.append(Answer(action, counter))
    return settle(posting_patches(series), trusted), untrusted


def state_data(ps: PostingState, profile, posted: str | None = None) -> dict[str, Any]:
    """The state as plain data: the reason triage reports and the note `check` words. `posted`:
    the profile tree the posting's subject tag names; a reply applying it without naming a tree
    ("Applied, thanks") applied it there."""
    a = ps.action
    tree = tree_name(a, profile)
    if tree is None and posted is not None and ps.state == "applied" and not a.tree_words:
        tree = posted
    return {"state": ps.state, "tree": tree, "tree_words": a.tree_words,
            "branch": a.branch, "by": str(a.by), "date": a.date.isoformat() if a.date else None,
            "patches": None if ps.whole else list(ps.counters), "applied": list(ps.applied),
            "not_applied": list(ps.not_applied), "open": list(ps.open), "commits": list(a.commits),
            "reason": a.reason_line, "form": a.form, "msgid": a.msgid, "evidence": a.evidence}


def context_stage(series, options, fields: dict[str, Any]) -> None:
    """fields["reply_state"]: the state data (state_data), or None when no reply settled anything;
    fields["reply_claims"]: the replies that state one but may not set it (not_counted)."""
    profile = fields["profile"]
    state, untrusted = series_state(series, profile, fields.get("maintainers"))
    posted = profile.series_tree(series)
    fields["reply_state"] = (state_data(state, profile, posted.name if posted else None)
                             if state is not None else None)
    # A claim settles nothing but is shown, with whose words they were and why they do not count.
    fields["reply_claims"] = tuple({"state": a.state, "by": str(a.by), "evidence": a.evidence, "msgid": a.msgid,
                                    "why": why} for a, why in untrusted)
    for a, why in untrusted:
        fields["notes"].append(f"a reply by {a.by} says \"{a.evidence}\", but {why}: it was not taken as the "
                               "series' state")
