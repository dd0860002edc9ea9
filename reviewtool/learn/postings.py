"""What the archive holds, as `profile learn` reads it: the postings (one revision of one series
each, and what became of each patch) and the pull requests."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..mail.replies import ReplyAction
from ..sources.index import MailRef


@dataclass(frozen=True)
class PatchMail:
    counter: int
    msgid: str
    subject: str
    summary: str  # normalized (parse_subject's summary, lower case)


@dataclass
class Applied:
    """One patch the maintainers applied: where, by whom, when, and the subject its commit got."""

    action: ReplyAction
    commit_subject: str | None = None


@dataclass
class Posting:
    """One revision of one series, as posted: the mails of its thread, and what became of it."""

    key: int
    msgid: str  # the cover letter, else the first patch
    subject: str
    sender: str
    date: float | None
    revision: int
    expected: int
    tags: tuple[str, ...]
    rfc: bool
    pull: bool
    patches: tuple[PatchMail, ...]  # counter >= 1, in order
    cover: PatchMail | None
    refs: tuple[MailRef, ...]  # what a review reads: this thread, and earlier revisions' threads
    applied: dict[int, Applied] = field(default_factory=dict)  # counter -> how it was applied
    sent_back: list[ReplyAction] = field(default_factory=list)
    deferred: list[ReplyAction] = field(default_factory=list)
    edited: bool = False  # a commit subject differs from the posted one
    files: dict[int, tuple[str, ...]] = field(default_factory=dict)  # counter -> the files its diff touches
    fixes: set[int] = field(default_factory=set)  # counters of the patches carrying a Fixes: tag
    family: int = -1  # the series it is a revision of (revisions of one series share it)
    recipients: tuple[str, ...] = ()  # its first mail's To then Cc addresses, lower case

    @property
    def settled(self) -> bool:
        return bool(self.applied or self.sent_back or self.deferred)

    @property
    def applied_whole(self) -> bool:
        return bool(self.patches) and all(p.counter in self.applied for p in self.patches)

    @property
    def tree_words(self) -> str | None:
        words = [a.action.tree_words for a in self.applied.values() if a.action.tree_words]
        return max(set(words), key=words.count) if words else None


@dataclass(frozen=True)
class PullRequest:
    """A `git request-pull` mail: the repository and tag it asks to pull, and who pulled it where."""

    msgid: str
    subject: str
    date: float | None
    url: str
    ref: str | None
    applied_to: str | None = None  # the tree words of the reply that says it was pulled
    sender: str = ""  # its From address, lower case
    carries: frozenset[str] = frozenset()  # the normalized summaries of its shortlog's commits


def patches_by_summary(postings: list[Posting]) -> dict[str, list[tuple[Posting, int]]]:
    """Each patch summary -> the postings that carry it, with the patch's counter, oldest first
    (pull requests and undated postings left out): where a later mail naming a patch by its
    summary (a pull request's shortlog, a build robot's head) finds the posting it took."""
    out: dict[str, list[tuple[Posting, int]]] = {}
    for p in postings:
        if not p.pull and p.date is not None:
            for m in p.patches:
                out.setdefault(m.summary, []).append((p, m.counter))
    for entries in out.values():
        entries.sort(key=lambda e: e[0].date or 0.0)
    return out
