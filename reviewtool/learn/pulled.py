"""Postings a maintainer's pull request shows applied, where no reply said so.

netfilter's maintainers apply a patch to nf or nf-next, often without a word in its thread, and
send the tree on as a series (`[PATCH net 0/6] Netfilter fixes for net`, the `git request-pull`
text in the cover letter, the applied patches below it). A patch of such a pull request is an
earlier posting's patch applied to the tree the pull request is made of: matched by its
normalized summary to the latest posting sent before the pull request that carries it (the
revision the maintainer took). Only the pull requests that upstream took (a trusted reply says
so), or that someone who applies on the list sent, count: a contributor's branch offered for
review proves nothing.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone

from ..mail.replies import ReplyAction, address
from ..mail.subject import parse_subject
from .postings import Applied, Posting, PullRequest


def _repo(pr: PullRequest) -> str:
    base = pr.url.rstrip("/").rsplit("/", 1)[-1].lower()
    return base.removesuffix(".git")


def applied_by_pulls(postings: list[Posting], pulls: list[PullRequest], appliers: frozenset[str]) -> int:
    """Mark the patches the archive's pull requests carry as applied to the pull's tree; the
    number of postings newly applied."""
    by_summary: dict[str, list[tuple[Posting, int]]] = defaultdict(list)
    for p in postings:
        if not p.pull and p.date is not None:
            for m in p.patches:
                by_summary[m.summary].append((p, m.counter))
    for entries in by_summary.values():
        entries.sort(key=lambda e: e[0].date or 0.0)
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
