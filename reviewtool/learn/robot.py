"""Postings a build robot's reports show at the head of a maintainer's queue.

Intel's Ethernet maintainers apply intel-wired-lan's postings to their queues (tnguy/net-queue.git,
tnguy/next-queue.git) without a word on the list; the build robot then reports on each branch it
built: `[tnguy-net-queue:dev-queue] BUILD SUCCESS <sha>`, with `tree/branch: <url> <branch>` and
`branch HEAD: <sha>  <subject>` in the body. The head's subject is the summary of the last patch
applied: matched to the latest posting sent before the report that carries it, that patch and the
ones before it in the posting are applied to the queue (a series is applied in order).

A report counts only from the robot's own address (mail/kinds.py: the kernel test robot), not
from anyone who writes its words, however many such mails they send; and never on a branch named
main or master: those follow the upstream tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from ..mail.kinds import is_robot
from ..mail.replies import Address, ReplyAction
from ..mail.subject import normalized_summary, parse_subject
from .postings import Applied, Posting, patches_by_summary

UPSTREAM_BRANCHES = ("main", "master")
SUBJECT_RE = re.compile(r"\[([\w.+-]{1,80}):([\w.+/-]{1,80})\][ \t]{1,8}BUILD\b", re.I)
_TREE_RE = re.compile(r"^tree/branch:[ \t]*(\S+)[ \t]+(\S+)", re.M)
_HEAD_RE = re.compile(r"^branch HEAD:[ \t]*[0-9a-f]{7,40}[ \t]+(\S[^\n]*)", re.M)


@dataclass(frozen=True)
class BuildReport:
    msgid: str
    sender: str  # address
    date: float | None
    owner: str  # the repository's directory (kernel.org user): "tnguy"
    repo: str  # "net-queue"
    branch: str
    head: str  # the head commit's subject


def read_report(msgid: str, sender: str, date: float | None, subject: str, body: str) -> BuildReport | None:
    """A build robot's report on a branch, or None when the mail is not one."""
    if not SUBJECT_RE.search(subject):
        return None
    tree, head = _TREE_RE.search(body), _HEAD_RE.search(body)
    if tree is None or head is None:
        return None
    parts = tree.group(1).rstrip("/").split("/")
    repo = parts[-1].lower().removesuffix(".git")
    owner = parts[-2].lower() if len(parts) > 1 else ""
    if not repo:
        return None
    return BuildReport(msgid, sender, date, owner, repo, tree.group(2), head.group(1).strip())


def applied_by_robot(postings: list[Posting], reports: list[BuildReport]) -> int:
    """Mark what the robot's reports show applied; the number of postings newly applied."""
    by_summary = patches_by_summary(postings)
    touched: set[int] = set()
    for r in reports:
        if not is_robot(r.sender) or r.branch.lower() in UPSTREAM_BRANCHES or r.date is None:
            continue
        earlier = [(p, c) for p, c in by_summary.get(normalized_summary(parse_subject(r.head)), ())
                   if (p.date or 0.0) < r.date]
        if not earlier:
            continue
        p, last = earlier[-1]
        if any(a.action.form != "build-robot" for a in p.applied.values()):
            continue  # a maintainer's reply settled it
        action = ReplyAction(state="applied", form="build-robot", trust="form", by=Address(r.owner, ""),
                             sender=Address("", r.sender), date=datetime.fromtimestamp(r.date, timezone.utc),
                             msgid=r.msgid, in_reply_to=None, references=(), tree_words=f"{r.repo}.git",
                             branch=r.branch, repo=r.repo, patches=None, commits=(), count=None, reason=None,
                             evidence=f"[{r.owner}-{r.repo}:{r.branch}] branch HEAD: {r.head}")
        for m in p.patches:
            if m.counter <= last and m.counter not in p.applied:
                p.applied[m.counter] = Applied(action, None)
        touched.add(p.key)
    return len(touched)
