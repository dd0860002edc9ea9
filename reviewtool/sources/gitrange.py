"""Commits of a range -> the mails the author is about to send, as `git format-patch --stdout
--cover-letter --base` writes them, without writing a file in the repository.

Where the range comes from, in order: the argument (`A..B`, or one revision `X` meaning `X..HEAD`
as format-patch reads it, or the name of a b4 prep branch); else the current branch when b4 prep
manages it; else `@{u}..HEAD`. The cover letter text comes from b4 prep's cover commit (the empty
commit holding `--- b4-submit-tracking ---`) or from `branch.<name>.description`; without either,
no cover letter is built and the series rules say whether one is expected.

Every git call is read-only and runs with GIT_OPTIONAL_LOCKS=0, so not even the index's stat
cache is refreshed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Callable, Iterator

from ..errors import InputError, RepositoryError
from ..mail.headers import address_list
from .b4prep import Cover
from .files import RawMail, parse_mail, thread_under
from .gitconfig import GitConfig, RepoFacts
from .gitbatch import DIFF_NO_PROGRAMS
from .rangeplan import RangePlan, concurrently, git, out_text, plan_range, quick_plan

_FROM_SHA_RE = re.compile(rb"^From ([0-9a-f]{40}(?:[0-9a-f]{24})?) Mon Sep 17 00:00:00 2001$", re.M)  # SHA-1/256
_MAX_COMMITS = 1000  # a limit, not a target: a "range" of more is a mistake (a missing `..`)


@dataclass(frozen=True)
class RangeRequest:
    """What the command line asked for."""

    revrange: str | None = None
    prefixes: tuple[str, ...] = ()  # subject tags: --prefix net  ->  [PATCH net ...]
    revision: int | None = None  # -v N
    rfc: bool = False
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()


@dataclass(frozen=True)
class RangeMails:
    """The mails of a range and where each one came from."""

    messages: tuple[EmailMessage, ...]
    commits: tuple[str, ...]  # full sha per patch, in counter order (patch 1 = commits[0])
    base: str
    tip: str
    label: str  # "origin/main..HEAD", "b4 prep branch foo", for notes and `series.source`
    cover: Cover | None
    to: tuple[str, ...] = ()  # recipients configured for sending (headers of every mail)
    cc: tuple[str, ...] = ()
    recipients_command: str | None = None  # sendemail.toCmd/ccCmd: chosen at send time
    upstream: str | None = None  # where "already applied" is looked for (@{u}, A of A..B, else the base)
    facts: RepoFacts | None = None  # the configuration and layout read on the way (for the context)
    notes: tuple[str, ...] = field(default_factory=tuple)

    def commit_of(self, counter: int | None) -> str | None:
        if counter is None or counter < 1 or counter > len(self.commits):
            return None
        return self.commits[counter - 1]


_SEND_KEYS = r"^sendemail\.(to|cc|tocmd|cccmd)$"


def _send_config(repo: Path) -> dict[str, list[str]]:
    res = git(repo, "config", "-z", "--get-regexp", _SEND_KEYS, check=False)
    return _send_config_of(GitConfig.parse(res.out))


def _send_config_of(config: GitConfig) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in config.matching(_SEND_KEYS):
        if value is not None:  # a key without '=' names no recipient
            out.setdefault(key.lower(), []).append(value)
    return out


# --- the mails ------------------------------------------------------------------------------------

def _subject_prefix(request: RangeRequest, plan: RangePlan) -> list[str]:
    prefixes = request.prefixes or plan.prefixes
    args = []
    if prefixes:
        args.append("--subject-prefix=" + " ".join((("RFC",) if request.rfc else ()) + ("PATCH",) + prefixes))
    elif request.rfc:
        args.append("--rfc")
    revision = request.revision or plan.revision
    if revision and revision > 1:
        args.append(f"-v{revision}")
    return args


def _split_format_patch(data: bytes) -> list[tuple[str, bytes]]:
    """(sha, mail bytes) for each mail of `git format-patch --stdout`, separator line kept."""
    found = list(_FROM_SHA_RE.finditer(data))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(data)
        out.append((m.group(1).decode("ascii"), data[m.start():end]))
    return out


def _stream_format_patch(repo: Path, args: list[str]) -> Iterator[tuple[str, bytes]]:
    """_split_format_patch over git's output as it arrives: a mail is complete when the next one
    starts (or git is done). Each byte is searched once, so a 20 MB patch costs no more than it
    did read whole."""
    from .gitbatch import GitRunner

    pending = bytearray()
    scanned = 0  # pending[:scanned] holds no separator after its first byte
    for block in GitRunner(repo).stream(args):
        pending += block
        # Back up by one separator line: it may have arrived in two blocks.
        last = None
        for m in _FROM_SHA_RE.finditer(pending, max(1, scanned - 128)):
            last = m.start()
        scanned = len(pending)
        if last is not None:
            yield from _split_format_patch(bytes(pending[:last]))
            del pending[:last]
            scanned -= last
    if pending:
        yield from _split_format_patch(bytes(pending))


def _fill_cover(chunk: bytes, cover: Cover) -> bytes:
    """Put the cover text where format-patch left `*** SUBJECT HERE ***` and `*** BLURB HERE ***`."""
    from email.header import Header

    text = chunk.decode("utf-8", "replace")
    head, sep, body = text.partition("\n\n")
    subject = cover.subject
    m = re.search(r"^Subject: (.*?)\*\*\* SUBJECT HERE \*\*\*$", head, re.M)
    if m:
        value = m.group(1) + subject
        if not value.isascii():
            value = Header(value, "utf-8").encode()
        head = head[: m.start()] + "Subject: " + value + head[m.end():]
    if not (cover.body + subject).isascii() and "Content-Type:" not in head:
        head += "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit"
    body = body.replace("*** BLURB HERE ***", cover.body or "", 1)
    extra = "".join(f"\n{line}" for line in ((f"change-id: {cover.change_id}",) if cover.change_id else ())
                    + cover.prerequisites)
    if extra:
        body = re.sub(r"^(base-commit: [0-9a-f]{40}(?:[0-9a-f]{24})?)$", lambda mm: mm.group(1) + extra, body,
                      count=1, flags=re.M)
    return (head + sep + body).encode("utf-8")


def range_mails(repo: Path, request: RangeRequest,
                on_message: Callable[[EmailMessage], None] | None = None,
                on_facts: Callable[[RepoFacts], None] | None = None) -> RangeMails:
    """The series the author would send from the requested commits (see the module docstring).
    `on_message` gets each mail as soon as it is parsed, while git writes the rest; `on_facts`
    gets what was read of the repository before format-patch starts."""
    quick = quick_plan(repo, request.revrange)
    if quick is not None:
        plan, count, merges = quick.plan, quick.commits, quick.merges
        send = _send_config_of(quick.facts.config)
        if on_facts is not None and 0 < count <= _MAX_COMMITS:
            on_facts(quick.facts)
    else:
        if not repo.is_dir() or git(repo, "rev-parse", "--git-dir", check=False).code != 0:
            raise RepositoryError(f"{repo}: not a git repository")
        plan = plan_range(repo, request.revrange)
        listed, send = concurrently(lambda: git(repo, "rev-list", "--parents", plan.rev_range),
                                    lambda: _send_config(repo))
        listing = out_text(listed).splitlines()
        merges = sum(1 for line in listing if line.count(" ") > 1)
        count = len(listing) - merges
    if count == 0:
        raise InputError(f"{plan.label}: no commits to lint (the range is empty)")
    if count > _MAX_COMMITS:
        raise InputError(f"{plan.label}: {count} commits is not a patch series (limit {_MAX_COMMITS}); "
                         "name the range, e.g. origin/main..HEAD")
    cover = plan.cover
    to = _dedupe(request.to + address_list(send.get("sendemail.to", ())) + (cover.to if cover else ()))
    cc = _dedupe(request.cc + address_list(send.get("sendemail.cc", ())) + (cover.cc if cover else ()))
    with_cover = cover is not None and count >= 2
    # With b4's cover commit at the bottom, --base is the cover commit (so format-patch lists no
    # prerequisite for it) and the base-commit line is then set to its parent, as b4 writes it.
    args = ["format-patch", "--stdout", *DIFF_NO_PROGRAMS, f"--base={plan.bottom or plan.base}",
            "--cover-letter" if with_cover else "--no-cover-letter", *_subject_prefix(request, plan),
            *(f"--to={a}" for a in to), *(f"--cc={a}" for a in cc), plan.rev_range, "--"]
    messages: list[EmailMessage] = []
    shas: list[str] = []
    # Each mail is parsed (and handed on) while format-patch writes the next ones: on two cores
    # the parsing costs almost no wall time.
    for i, (sha, chunk) in enumerate(_stream_format_patch(repo, args)):
        if plan.bottom:
            chunk = chunk.replace(f"base-commit: {plan.bottom}".encode(), f"base-commit: {plan.base}".encode())
        if i == 0 and with_cover:
            chunk = _fill_cover(chunk, cover)
        msg, _ = parse_mail(RawMail(chunk, f"{plan.label}:{i + 1}", True))
        if msg is None:
            continue
        if messages:  # format-patch writes one series in counter order: the first mail is its root
            thread_under(msg, messages[0])
        messages.append(msg)
        shas.append(sha)
        if on_message is not None:
            on_message(msg)
    commits = tuple(shas[1 if with_cover else 0:])
    notes = list(plan.notes)
    if merges:
        notes.append(f"{merges} merge commit(s) in {plan.label} were left out, as git format-patch does")
    if cover is None and count >= 2:
        notes.append("no cover letter text was found (b4 prep cover commit or `git branch --edit-description`); "
                     "the series was built without a cover letter")
    elif cover is not None:
        notes.append(f"cover letter from the {cover.origin}")
    command = next((v[-1] for k, v in sorted(send.items()) if k.endswith("cmd") and v), None)
    return RangeMails(messages=tuple(messages), commits=commits, base=plan.base, tip=plan.tip,
                      label=plan.label, cover=cover, to=to, cc=cc, recipients_command=command,
                      upstream=plan.upstream or plan.base, notes=tuple(notes),
                      facts=quick.facts if quick is not None else None)


def _dedupe(addresses: tuple[str, ...]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for a in addresses:
        if a.lower() not in seen:
            seen.add(a.lower())
            out.append(a)
    return tuple(out)
