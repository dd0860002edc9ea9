"""A pull request's text, as `git request-pull` writes it: the repository and ref to pull, and
the shortlog of the commits it carries ("Author Name (N):" then each subject, indented).

    parse_pull_request(text) -> PullRequest | None

Maintainers send these upstream ("pull-request: wireless-2022-07-13", netfilter's "[PATCH net
0/5] Netfilter fixes for net" cover letter): the commits they list are applied in that tree,
whatever the patch's own thread says. A project's release announcement carries the same
shortlog (`parse_release`: "[ANNOUNCE] nftables 1.0.9 release" and its changes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .subject import past_list_tag

_AT_RE = re.compile(r"^are available in the [Gg]it repository at:?[ \t]*\n\s*\n?[ \t]+(?P<repo>\S+)(?:[ \t]+(?P<ref>\S+))?",
                    re.M)
_AUTHOR_RE = re.compile(r"^(?P<name>\S[^\n]{0,120}?) \(\d{1,5}\):[ \t]*$")
_COMMIT_RE = re.compile(r"^[ \t]{2,}(?P<subject>\S[^\n]*)$")
_ANNOUNCE_RE = re.compile(r"\[ANNOUNCE\]\s+(?P<project>[A-Za-z][\w.+-]{1,40})\s+v?(?P<version>\d[\w.-]{0,20})\b")
MAX_COMMITS = 5000  # a merge-window pull carries hundreds, never more


@dataclass(frozen=True)
class PullRequest:
    repo: str  # as written: git://git.kernel.org/.../wireless.git
    ref: str | None  # tags/wireless-2022-07-13, or None
    commits: tuple[tuple[str, str], ...]  # (author name, subject) of each commit, in shortlog order

    @property
    def repo_name(self) -> str:
        """The repository's last path part: "wireless.git"."""
        return self.repo.rstrip("/").rsplit("/", 1)[-1]


def parse_pull_request(text: str) -> PullRequest | None:
    """The pull request in `text` (a mail's own words, quotes removed), or None when it is none."""
    m = _AT_RE.search(text)
    if m is None:
        return None
    return PullRequest(repo=m.group("repo"), ref=m.group("ref"), commits=shortlog(text[m.end():]))


def announced(subject: str) -> str | None:
    """The subject of a release announcement ("[ANNOUNCE] nftables 1.0.9 release"), past a
    Mailman list's tag; None for any other subject."""
    text = " ".join(subject.split())
    for t in (text, past_list_tag(text)):
        if t is not None and t[:9].upper() == "[ANNOUNCE":
            return t
    return None


def parse_release(subject: str, text: str) -> PullRequest | None:
    """A release announcement ("[ANNOUNCE] nftables 1.0.9 release") whose text carries the
    release's shortlog: the commits it lists are in that project's tree. None otherwise."""
    m = _ANNOUNCE_RE.match(announced(subject) or "")
    if m is None:
        return None
    commits = shortlog(text)
    return PullRequest(repo=m.group("project") + ".git", ref=m.group("version"), commits=commits) if commits else None


def shortlog(text: str) -> tuple[tuple[str, str], ...]:
    """(author name, subject) of each commit of a `git shortlog` in `text`: "Author Name (N):"
    then each subject, indented; it ends at the first unindented line that names no author."""
    commits: list[tuple[str, str]] = []
    author = None
    for line in text.splitlines():
        if not line.strip():
            continue
        a = _AUTHOR_RE.match(line)
        if a is not None:
            author = a.group("name").strip()
            continue
        c = _COMMIT_RE.match(line)
        if c is not None and author is not None:
            commits.append((author, " ".join(c.group("subject").split())))
            if len(commits) >= MAX_COMMITS:
                break
        elif author is not None and not line.startswith(" "):
            author = None  # the diffstat or the signature: the shortlog ended
    return tuple(commits)
