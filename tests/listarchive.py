"""A mailing list's archive, built from mails of our own: postings in git send-email's shape
(mailfactory) and the maintainers' replies in the forms their tools write (the wireless pwcli
script, the kernel.org patchwork bot), for the `profile learn` tests."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

from mailfactory import hunk_diff, patch_body

LIST = "linux-lab@vger.example.org"
MAE = "Mae Maintainer <mae@kernel.example>"
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)  # v7.0 is out on 2026-04-12 (data/kernel-releases.tsv)


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass
class Posting:
    """One patch (or series) and the maintainer's answer to it."""

    summary: str  # "lab: drv1: fix the error path"
    path: str = "drivers/lab/drv1/main.c"
    tree: str | None = "lab-next.git"  # the reply's tree words; None: no reply
    tag: str | None = None  # [PATCH TAG ...]
    version: int = 1
    signed: bool = True
    fixes: bool = False
    changelog: bool = True  # a v2+ posting says what changed
    patches: int = 1
    when: datetime | None = None
    reply: str = "pwcli"  # pwcli | korg | changes | plain | thanks ("Applied, thanks", naming no tree)
    reason: str = "Please fix the build first."
    committed: str | None = None  # the subject its commit got (default: as posted)
    sender: str = "Jane Developer <jane@example.org>"
    files: list[str] = field(default_factory=list)  # more files than `path`
    replier: str | None = None  # who sends the "changes" or "thanks" reply (default: the maintainer, MAE)
    tag_first: bool = False  # [TAG PATCH] rather than [PATCH TAG]
    to: str = LIST  # its To: (another list first, this one in Cc: a series Cc'd to the list)


class Archive:
    def __init__(self):
        self.mails: list[str] = []
        self.n = 0
        # what the maintainer's pwcli replies applied, by repository: (the reply's date, author, commit subject)
        self.applied: dict[str, list[tuple[datetime, str, str]]] = {}

    def _mail(self, headers: dict[str, str], body: str) -> str:
        self.n += 1
        msgid = f"{self.n:05d}.{_sha(body)}@example.org"
        head = "".join(f"{k}: {v}\n" for k, v in headers.items()) + f"List-Id: <{LIST.replace('@', '.')}>\n"
        self.mails.append(f"From mboxrd@z Thu Jan  1 00:00:00 1970\n{head}Message-ID: <{msgid}>\n"
                          "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                          f"Content-Transfer-Encoding: 8bit\n\n{body.rstrip()}\n")
        return msgid

    def post(self, p: Posting) -> list[str]:
        when = p.when or START + timedelta(hours=self.n)
        v = f" v{p.version}" if p.version > 1 else ""
        tag = f" {p.tag}" if p.tag and not p.tag_first else ""
        lead = f"{p.tag} " if p.tag and p.tag_first else ""
        ids, subjects = [], []
        total = p.patches
        cover = None
        cc = {"Cc": LIST} if p.to != LIST else {}
        if total > 1:
            cover = self._mail({"From": p.sender, "Date": format_datetime(when), "To": p.to, **cc,
                                "Subject": f"[{lead}PATCH{tag}{v} 0/{total}] {p.summary}"},
                               "This series does the thing.\n\n" + (f"v{p.version}: rebased\n" if p.version > 1 and p.changelog else ""))
        for i in range(1, total + 1):
            summary = p.summary if total == 1 else f"{p.summary} (part {i})"
            counter = f" {i}/{total}" if total > 1 else ""
            trailers = []
            if p.fixes:
                trailers.append(f'Fixes: {_sha(summary)} ("lab: the commit it fixes")')
            if p.signed:
                trailers.append(f"Signed-off-by: {p.sender}")
            notes = f"v{p.version}: rebased on the latest tree" if p.version > 1 and p.changelog and total == 1 else ""
            diff = "".join(hunk_diff(f, ["\treturn 0;"], ["\treturn ret;"]) for f in [p.path, *p.files])
            body = patch_body(message=f"The {summary} path returns early.\n\nReturn the error instead.",
                              trailers="\n".join(trailers), notes=notes, diff=diff)
            headers = {"From": p.sender, "Date": format_datetime(when + timedelta(seconds=i)), "To": p.to, **cc,
                       "Subject": f"[{lead}PATCH{tag}{v}{counter}] {summary}"}
            if cover:
                headers |= {"In-Reply-To": f"<{cover}>", "References": f"<{cover}>"}
            ids.append(self._mail(headers, body))
            subjects.append(summary)
        answered = cover or ids[0]
        if p.tree is not None or p.reply in ("changes", "thanks"):
            self._reply(p, answered, subjects, when + timedelta(days=3))
        return ids

    def _reply(self, p: Posting, msgid: str, subjects: list[str], when: datetime) -> None:
        quote = "Jane Developer <jane@example.org> wrote:\n\n> Return the error instead.\n\n"
        commits = "\n".join(f"{_sha(s)} {p.committed or s}" for s in subjects)
        if p.reply == "pwcli":
            line = (f"Patch applied to {p.tree}, thanks." if len(subjects) == 1
                    else f"{len(subjects)} patches applied to {p.tree}, thanks.")
            body = f"{quote}{line}\n\n{commits}\n\n-- \nhttps://patchwork.example/patch/{_sha(msgid)}/\n"
            sender = MAE
            repo = next((w for w in reversed(p.tree.split()) if w.endswith(".git")), p.tree).rsplit("/", 1)[-1]
            self.applied.setdefault(repo, []).extend((when, p.sender, p.committed or s) for s in subjects)
        elif p.reply == "korg":
            repo, _, branch = p.tree.partition(" ")
            items = "".join(f"  - [{i}/{len(subjects)}] {s}\n    https://git.kernel.example/c/{_sha(s)}\n"
                            if len(subjects) > 1 else f"  - {s}\n    https://git.kernel.example/c/{_sha(s)}\n"
                            for i, s in enumerate(subjects, 1))
            body = (f"Hello:\n\nThis {'patch' if len(subjects) == 1 else 'series'} was applied to {repo} "
                    f"({branch or 'master'})\nby {MAE}:\n\n{quote}Here is the summary with links:\n{items}\n"
                    "You are awesome, thank you!\n-- \nDeet-doot-dot, I am a bot.\n")
            sender = "patchwork-bot+lab@kernel.org"
        elif p.reply == "changes":
            body = f"{quote}{p.reason}\n\nPatch set to Changes Requested.\n\n-- \nhttps://patchwork.example/x/\n"
            sender = p.replier or MAE
        elif p.reply == "thanks":  # the maintainer's own plain words, naming no tree
            body = f"{quote}Applied, thanks\n"
            sender = p.replier or MAE
        else:  # plain words
            body = f"{quote}Applied to {p.tree}, thanks!\n"
            sender = "Someone Else <someone@example.org>"
        self._mail({"From": sender, "Date": format_datetime(when), "To": p.sender, "Cc": LIST,
                    "Subject": f"Re: [PATCH] {subjects[0]}", "In-Reply-To": f"<{msgid}>",
                    "References": f"<{msgid}>"}, body)

    def pull(self, tag: str, url: str, into: str | None, when: datetime = START, sender: str = MAE,
             carries: list[tuple[str, str]] = ()) -> str:
        """A maintainer's pull request of `url` (tag `tag`) in `git request-pull`'s shape, its
        shortlog listing `carries` ((author, commit subject) each), and the upstream bot's
        "applied" to `into` (None: no answer); its message id."""
        by_author: dict[str, list[str]] = {}
        for author, subject in carries:
            by_author.setdefault(author.split(" <")[0], []).append(subject)
        shortlog = "".join(f"{a} ({len(subs)}):\n" + "".join(f"      {x}\n" for x in subs) + "\n"
                           for a, subs in sorted(by_author.items()))
        body = (f"Hi,\n\nhere are the fixes.\n\nThe following changes since commit {'a' * 40}:\n\n  lab: x (2026-03-01)\n\n"
                f"are available in the Git repository at:\n\n  {url} tags/{tag}\n\nfor you to fetch changes up to "
                f"{'b' * 40}:\n\n  lab: y (2026-03-05)\n"
                + (f"\n{'-' * 64}\nlab updates\n\n{'-' * 64}\n{shortlog} drivers/lab/x.c | 2 +-\n" if carries else ""))
        msgid = self._mail({"From": sender, "Date": format_datetime(when), "To": "up@vger.example.org", "Cc": LIST,
                            "Subject": f"pull-request: {tag}"}, body)
        if into is None:
            return msgid
        repo, _, branch = into.partition(" ")
        self._mail({"From": "patchwork-bot+up@kernel.org", "Date": format_datetime(when + timedelta(days=1)),
                    "To": sender, "Cc": LIST, "Subject": f"Re: pull-request: {tag}", "In-Reply-To": f"<{msgid}>",
                    "References": f"<{msgid}>"},
                   f"Hello:\n\nThis pull request was applied to {repo} ({branch or 'main'})\nby Up Maintainer "
                   f"<up@kernel.example>:\n\nHere is the summary with links:\n  - pull-request: {tag}\n"
                   "    https://git.kernel.example/up/c/0123456789ab\n\nYou are awesome, thank you!\n")
        return msgid

    def send_pulls(self, into: str = "top/top.git") -> None:
        """The maintainer's pull requests upstream, as real maintainers send them: one a repository
        their pwcli replies applied to, after the last such reply, carrying what they applied, and
        the upstream bot's "applied" to `into` (a tree of another list). This is how `profile learn`
        knows the replies' sender applies (learn/pulled.py): a reply's words alone prove nothing."""
        for repo, done in sorted(self.applied.items()):
            last = max(when for when, _, _ in done)
            self.pull(f"{repo.removesuffix('.git')}-pull", f"git://git.kernel.example/pub/scm/linux/kernel/git/lab/{repo}",
                      into, last + timedelta(hours=1), carries=[(author, subject) for _, author, subject in done])
        self.applied = {}

    def pull_series(self, tag: str, url: str, summaries: list[str], into: str | None, when: datetime,
                    sender: str = MAE, path: str = "drivers/lab/drv1/main.c") -> None:
        """A maintainer's pull request sent as a series (netfilter's `[PATCH net 0/6] Netfilter fixes
        for net`): the request-pull text in the cover letter, the applied patches below it, and the
        upstream bot's "applied" to `into` (None: no answer)."""
        subject = f"[PATCH {tag} 0/{len(summaries)}] lab updates for {tag}"
        body = (f"Hi,\n\nthe following patches are for {tag}.\n\nThe following changes since commit {'a' * 40}:\n\n"
                f"  lab: x (2026-03-01)\n\nare available in the Git repository at:\n\n  {url} tags/lab-{tag}\n\n"
                f"for you to fetch changes up to {'b' * 40}:\n\n  lab: y (2026-03-05)\n")
        cover = self._mail({"From": sender, "Date": format_datetime(when), "To": "up@vger.example.org", "Cc": LIST,
                            "Subject": subject}, body)
        for i, summary in enumerate(summaries, 1):
            self._mail({"From": sender, "Date": format_datetime(when + timedelta(seconds=i)),
                        "To": "up@vger.example.org", "Cc": LIST,
                        "Subject": f"[PATCH {tag} {i}/{len(summaries)}] {summary}",
                        "In-Reply-To": f"<{cover}>", "References": f"<{cover}>"},
                       patch_body(message=f"The {summary} path returns early.", diff=diff_for(path)))
        if into is None:
            return
        repo, _, branch = into.partition(" ")
        self._mail({"From": "patchwork-bot+up@kernel.org", "Date": format_datetime(when + timedelta(days=1)),
                    "To": sender, "Cc": LIST, "Subject": f"Re: {subject}", "In-Reply-To": f"<{cover}>",
                    "References": f"<{cover}>"},
                   f"Hello:\n\nThis series was applied to {repo} ({branch or 'main'})\nby Up Maintainer "
                   f"<up@kernel.example>:\n\nHere is the summary with links:\n"
                   + "".join(f"  - [{i}/{len(summaries)}] {s}\n    https://git.kernel.example/up/c/{_sha(s)}\n"
                             for i, s in enumerate(summaries, 1))
                   + "\nYou are awesome, thank you!\n")

    def robot_report(self, owner: str, repo: str, branch: str, head: str, when: datetime,
                     sender: str = "kernel test robot <lkp@intel.com>") -> None:
        """A build robot's report on a branch of a maintainer's queue, naming the head commit."""
        self._mail({"From": sender, "Date": format_datetime(when), "To": LIST,
                    "Subject": f"[{owner}-{repo}:{branch}] BUILD SUCCESS {_sha(head) * 3}"[:120]},
                   f"tree/branch: https://git.kernel.example/pub/scm/linux/kernel/git/{owner}/{repo}.git {branch}\n"
                   f"branch HEAD: {_sha(head) * 3}  {head}\n\nelapsed time: 1452m\n\nconfigs tested: 140\n")

    def write(self, path: Path) -> Path:
        path.write_text("\n".join(self.mails), encoding="utf-8")
        return path


def archive_of(postings: list[Posting], path: Path, pulls: list[tuple[str, str, str]] = (),
               maintainer_pulls: bool = True) -> Path:
    """The postings and their replies; `pulls` (tag, url, where upstream applied it); and, unless
    `maintainer_pulls` is False, the maintainer's pull requests of what their replies applied."""
    a = Archive()
    for p in postings:
        a.post(p)
    for tag, url, into in pulls:
        a.pull(tag, url, into)
    if maintainer_pulls:
        a.send_pulls()
    return a.write(path)


def lab_list(n_next: int = 24, n_fixes: int = 8, n_drv: int = 6, **kw) -> list[Posting]:
    """A list like linux-wireless: lab-next takes new work, lab fixes, drv.git's drv-next feeds
    lab-next with the drv driver's patches; nobody names a tree in the subject."""
    out = []
    for i in range(n_next):
        out.append(Posting(f"lab: drv{i % 4}: rework the queue {i}", path=f"drivers/lab/drv{i % 4}/main.c",
                           when=START + timedelta(days=i), **kw))
    for i in range(n_fixes):
        out.append(Posting(f"lab: drv{i % 4}: fix a leak {i}", path=f"drivers/lab/drv{i % 4}/main.c", tree="lab.git",
                           fixes=True, when=START + timedelta(days=i, hours=5), **kw))
    for i in range(n_drv):
        out.append(Posting(f"lab: drv: add the thing {i}", path=f"drivers/lab/drv/core{i}.c",
                           tree="drv-next branch of drv.git", when=START + timedelta(days=i, hours=9), **kw))
    return out


def diff_for(path: str) -> str:
    return hunk_diff(path, ["\treturn 0;"], ["\treturn ret;"])
