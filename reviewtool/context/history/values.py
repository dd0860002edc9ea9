"""The values History answers with: commits, resolutions of shas written in mails, tree refs,
and the parsing of raw commit objects into them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ...model.series import Person

_IDENT_RE = re.compile(r"^(?P<name>.*?) ?<(?P<email>[^<>]*)> (?P<ts>-?\d+) (?P<tz>[+-]\d{4})$")


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str  # what `git log --format=%s` prints: the first paragraph joined with spaces
    author: Person
    date: datetime | None  # author date
    committer: Person
    commit_date: datetime | None
    parents: tuple[str, ...] = ()
    message: str = ""  # the whole commit message


@dataclass(frozen=True)
class Resolution:
    """What an abbreviated sha written in a mail turned out to be."""

    query: str  # as asked (lower-cased)
    status: str  # "found" | "unknown" | "ambiguous" | "not-a-commit"
    commit: Commit | None = None
    candidates: tuple[Commit, ...] = ()  # ambiguous: the commits the abbreviation matches
    kind: str | None = None  # not-a-commit: the object type it names (blob, tree)

    @property
    def found(self) -> bool:
        return self.status == "found"

    @property
    def sha(self) -> str | None:
        return self.commit.sha if self.commit else None

    @property
    def subject(self) -> str | None:
        return self.commit.subject if self.commit else None

    @property
    def author(self) -> Person | None:
        return self.commit.author if self.commit else None

    @property
    def date(self) -> datetime | None:
        return self.commit.date if self.commit else None


@dataclass(frozen=True)
class TreeRef:
    name: str  # tree name as in the profile: net, net-next
    ref: str  # the git ref (or sha) that tracks it
    source: str  # "profile" | "config" | "option" | "remote NAME (URL)": the remote that is the tree's repository
    sha: str | None = None  # what the ref resolves to; None when the repository lacks it
    kind: str = "development"  # "fixes" | "development" (from the profile)


def parse_commit(sha: str, raw: bytes) -> Commit:
    """A raw commit object (as cat-file prints it) into a Commit."""
    head, _, body = raw.partition(b"\n\n")
    headers: dict[str, list[str]] = {}
    last = None
    for line in head.decode("utf-8", "replace").split("\n"):
        if line.startswith(" ") and last:
            continue  # continuation of gpgsig / mergetag
        key, _, value = line.partition(" ")
        headers.setdefault(key, []).append(value)
        last = key
    encoding = (headers.get("encoding") or ["utf-8"])[0]
    try:
        message = body.decode(encoding, "replace")
    except LookupError:
        message = body.decode("utf-8", "replace")
    author, adate = _ident((headers.get("author") or [""])[0])
    committer, cdate = _ident((headers.get("committer") or [""])[0])
    return Commit(sha=sha, subject=subject_of(message), author=author, date=adate, committer=committer,
                  commit_date=cdate, parents=tuple(headers.get("parent", ())), message=message)


def subject_of(message: str) -> str:
    """git's %s: the first paragraph of the message, lines joined with single spaces."""
    para = []
    for line in message.lstrip("\n").split("\n"):
        if not line.strip():
            break
        para.append(line.strip())
    return " ".join(para)


def _ident(value: str) -> tuple[Person, datetime | None]:
    m = _IDENT_RE.match(value.strip())
    if not m:
        return Person(value.strip(), ""), None
    tz = m.group("tz")
    offset = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * (-1 if tz[0] == "-" else 1)
    try:
        date = datetime.fromtimestamp(int(m.group("ts")), timezone(offset))
    except (OverflowError, OSError, ValueError):
        date = None
    return Person(m.group("name").strip(), m.group("email").strip()), date


def tag_of(name: str) -> str | None:
    """A name-rev name, `(tags/v6.1-rc1~12^2~3)` -> `v6.1-rc1`; `undefined` -> None."""
    name = name.strip().strip("()")
    if not name or name == "undefined":
        return None
    name = name.removeprefix("tags/")
    return re.split(r"[~^]", name, maxsplit=1)[0] or None
