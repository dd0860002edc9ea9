"""Postings a maintainer's pull request shows applied, where no reply said so.

netfilter's maintainers apply a patch to nf or nf-next, often without a word in its thread, and
send the tree on as a series (`[PATCH net 0/6] Netfilter fixes for net`, the `git request-pull`
text in the cover letter, the applied patches below it). A patch of such a pull request is an
earlier posting's patch applied to the tree the pull request is made of: matched by its
normalized summary to the latest posting sent before the pull request that carries it (the
revision the maintainer took). Only the pull requests that upstream took (a trusted reply says
so), or that someone who applies on the list sent, count: a contributor's branch offered for
review proves nothing.

The same pull requests are how `profile learn` knows who applies (`appliers_by_pulls`): a script's
"Patch applied to wireless-next.git, thanks." is words anyone can send, but a pull request that
upstream took (the upstream bot's or a known applier's reply says so), sent from the address the
script's replies came from and carrying a patch they said was applied, is not.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import Callable

from ..mail.replies import ReplyAction, address
from ..mail.subject import normalized_summary, parse_subject
from .postings import Applied, Posting, patches_by_summary, PullRequest


def _repo(pr: PullRequest) -> str:
    base = pr.url.rstrip("/").rsplit("/", 1)[-1].lower()
    return base.removesuffix(".git")


def applied_by_pulls(postings: list[Posting], pulls: list[PullRequest], appliers: frozenset[str]) -> int:
    """Mark the patches the archive's pull requests carry as applied to the pull's tree; the
    number of postings newly applied."""
    by_summary = patches_by_summary(postings)
    covers = {p.cover.msgid: p for p in postings if p.cover and p.pull}
    touched: set[int] = set()
    for pr in pulls:
        carrier = covers.get(pr.msgid)
        if carrier is None or carrier.date is None or not _repo(pr):
            continue
        sender = address(carrier.sender)
        if pr.applied_to is None and sender.email not in appliers:
            continue
        action = ReplyAction(state="applied", form="pull-request", trust="form", by=sender, sender=sender,
                             date=datetime.fromtimestamp(carrier.date, timezone.utc), msgid=pr.msgid, in_reply_to=None, references=(),
                             tree_words=f"{_repo(pr)}.git", branch=None, repo=_repo(pr), patches=None, commits=(),
                             count=None, reason=None, evidence=pr.subject)
        for m in carrier.patches:
            earlier = [(p, c) for p, c in by_summary.get(m.summary, ()) if (p.date or 0.0) < carrier.date]
            if not earlier:
                continue
            p, c = earlier[-1]
            if c not in p.applied:
                p.applied[c] = Applied(action, parse_subject(m.subject).summary)
                touched.add(p.key)
    return len(touched)


def appliers_by_pulls(known: frozenset[str], actions: list[ReplyAction], pulls: list[PullRequest],
                      postings: list[Posting], answered: Callable[[ReplyAction], tuple[Posting, int] | None],
                      ancestors: Callable[[ReplyAction], list[str]]) -> frozenset[str]:
    """`known` and the senders of a script's applied replies (pwcli, b4 ty: commits listed, the
    sender's own words) whose own pull request, taken upstream and sent after a reply, carries a
    patch the reply applied: one it lists, or one of the posting's it answers, matched by
    normalized summary as a pull request's patches are matched to postings (its shortlog, or the
    patches below its cover letter). A pull request is taken by an "applied" reply in its thread
    from the bot (a form that proves itself) or from an applier, also one learned so: each
    applier's replies and each pull request are looked at once."""
    covers = {p.cover.msgid: p for p in postings if p.cover}
    by_id = {pr.msgid: pr for pr in pulls if pr.sender}
    takers: dict[str | None, list[str]] = defaultdict(list)  # who took which pull requests; None: the bot
    said: dict[str, dict[str, float]] = defaultdict(dict)  # sender -> summary -> their earliest reply's date
    for a in actions:
        if a.state != "applied":
            continue
        m = next((m for m in ancestors(a) if m in by_id), None)
        if m is not None:
            takers[a.by.email if a.needs_applier else None].append(m)
        if a.needs_applier and a.commits:
            summaries = {normalized_summary(parse_subject(r.subject)) for r in a.patches or () if r.subject}
            target = answered(a)
            if target is not None:
                summaries |= {x.summary for x in target[0].patches if target[1] in (0, x.counter)}
            when = a.date.timestamp() if a.date else float("-inf")
            mine = said[a.sender.email]
            for x in summaries:
                mine[x] = min(mine.get(x, when), when)
    out, queue, seen = set(known), [None, *sorted(known)], set()
    while queue:
        for m in takers.pop(queue.pop(), ()):
            pr = by_id[m]
            if m in seen or pr.sender in out:
                continue
            seen.add(m)
            below = covers.get(m)
            carried = pr.carries | {x.summary for x in (below.patches if below else ())}
            mine = said.get(pr.sender, {})
            if any(x in mine and (pr.date is None or pr.date >= mine[x]) for x in carried):
                out.add(pr.sender)
                queue.append(pr.sender)
    return frozenset(out)
