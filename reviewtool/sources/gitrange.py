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
from .b4prep import B4_MARKER, Cover, b4_cover_text, cover_from_text, json_object, tracking_prefixes
from .files import RawMail, parse_mail, thread_under

_FROM_SHA_RE = re.compile(rb"^From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001$", re.M)
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
    notes: tuple[str, ...] = field(default_factory=tuple)

    def commit_of(self, counter: int | None) -> str | None:
        if counter is None or counter < 1 or counter > len(self.commits):
            return None
        return self.commits[counter - 1]


def git(repo: Path, *args: str, check: bool = True, binary: bool = False):
    """One read-only git command in `repo` (context.gitbatch sets the safe environment)."""
    from ..context.gitbatch import GitRunner

    return GitRunner(repo).run(list(args), check=check, binary=binary)


def _concurrently(*calls):
    """Run independent read-only git queries at once: each is a process, and on two cores two
    short processes take the time of one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]


def _out(res) -> str:
    out = res.out
    return (out.decode("utf-8", "replace") if isinstance(out, bytes) else out).strip()


def _rev(repo: Path, spec: str) -> str | None:
    res = git(repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{spec}^{{commit}}", check=False)
    return (_out(res) or None) if res.code == 0 else None


def _branch_config(repo: Path, branch: str) -> dict[str, str]:
    res = git(repo, "config", "-z", "--get-regexp", "^branch\\." + re.escape(branch) + "\\.", check=False)
    out: dict[str, str] = {}
    for item in res.out.split("\0"):
        if "\n" in item:
            key, value = item.split("\n", 1)
            out[key[len("branch.") + len(branch) + 1:].lower()] = value
    return out


def _send_config(repo: Path) -> dict[str, list[str]]:
    res = git(repo, "config", "-z", "--get-regexp", r"^sendemail\.(to|cc|tocmd|cccmd)$", check=False)
    out: dict[str, list[str]] = {}
    for item in res.out.split("\0"):
        if "\n" in item:
            key, value = item.split("\n", 1)
            out.setdefault(key.lower(), []).append(value)
    return out


def _split_addresses(values) -> tuple[str, ...]:
    out = []
    for v in values:
        out.extend(a.strip() for a in v.split(",") if a.strip())
    return tuple(out)


def _find_b4_cover(repo: Path, rev_range: str) -> tuple[str, str] | None:
    """(sha, message) of the b4 cover commit inside `rev_range`, if there is one."""
    res = git(repo, "log", "-z", "--format=%H%n%B", "-F", f"--grep={B4_MARKER}", "--max-count=1", rev_range,
              "--", check=False)
    item = res.out.strip("\0")
    if res.code != 0 or "\n" not in item:
        return None
    sha, message = item.split("\n", 1)
    return sha, message


@dataclass(frozen=True)
class _Plan:
    base: str
    tip: str
    label: str
    cover: Cover | None
    prefixes: tuple[str, ...] = ()
    revision: int | None = None
    bottom: str | None = None  # exclusive start of the commits when it is not the base (b4's cover commit)
    notes: tuple[str, ...] = ()
    upstream: str | None = None  # the tree the series goes to, as far as the range says (@{u}, A of A..B)

    @property
    def rev_range(self) -> str:
        return f"{self.bottom or self.base}..{self.tip}"


def _prep_plan(repo: Path, branch: str, bcfg: dict[str, str]) -> _Plan | None:
    """The series of a b4 prep branch, following its cover strategy."""
    strategy = bcfg.get("b4-prep-cover-strategy", "commit")
    tip = _rev(repo, f"refs/heads/{branch}")
    if tip is None:
        return None
    if strategy == "branch-description":
        tracking = json_object(bcfg.get("b4-tracking", ""))
        base_branch = tracking.get("series", {}).get("base-branch")
        base = _merge_base(repo, base_branch, tip) if base_branch else None
        if base is None:
            return None
        cover = cover_from_text(bcfg.get("description", ""), f"branch.{branch}.description", tracking)
        return _Plan(base, tip, f"b4 prep branch {branch}", cover, *tracking_prefixes(tracking))
    found = _find_b4_cover(repo, tip)
    if found is None:
        return None
    sha, message = found
    text, tracking = b4_cover_text(message)
    cover = cover_from_text(text, f"b4 prep cover commit {sha[:12]}", tracking)
    if strategy == "tip-commit":
        base_branch = tracking.get("series", {}).get("base-branch")
        base = _merge_base(repo, base_branch, sha) if base_branch else None
        if base is None:
            return None
        return _Plan(base, _rev(repo, f"{sha}~1") or sha, f"b4 prep branch {branch}", cover,
                     *tracking_prefixes(tracking))
    base = _rev(repo, f"{sha}~1")
    if base is None:
        return None
    # b4's "commit" strategy: the series starts after the cover commit; its parent is the base.
    return _Plan(base, tip, f"b4 prep branch {branch}", cover, *tracking_prefixes(tracking), bottom=sha)


def _merge_base(repo: Path, a: str, b: str) -> str | None:
    res = git(repo, "merge-base", "--end-of-options", a, b, check=False)
    return (_out(res) or None) if res.code == 0 else None


def _current_branch(repo: Path) -> str | None:
    res = git(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return (_out(res) or None) if res.code == 0 else None


def plan_range(repo: Path, revrange: str | None) -> _Plan:
    """Decide base, tip and cover letter for the request (see the module docstring)."""
    if revrange and "..." in revrange:
        raise InputError(f"{revrange}: a symmetric range (A...B) is not a series; use A..B")
    if revrange and ".." in revrange:
        left, right = revrange.split("..", 1)
        tip = _rev(repo, right or "HEAD")
        start = _rev(repo, left or "HEAD")
        if tip is None or start is None:
            raise InputError(f"{revrange}: not a revision range of {repo}")
        base = _merge_base(repo, start, tip) or start
        return _with_range_cover(repo, _Plan(base, tip, revrange, None, upstream=start))
    if revrange:
        bcfg = _branch_config(repo, revrange) if _rev(repo, f"refs/heads/{revrange}") else {}
        if bcfg.get("b4-prep-cover-strategy") or bcfg.get("b4-tracking"):
            plan = _prep_plan(repo, revrange, bcfg)
            if plan:
                return plan
        start = _rev(repo, revrange)
        tip = _rev(repo, "HEAD")
        if start is None or tip is None:
            raise InputError(f"{revrange}: not a revision, branch or directory in {repo}")
        base = _merge_base(repo, start, tip) or start
        return _with_range_cover(repo, _Plan(base, tip, f"{revrange}..HEAD", None, upstream=start))
    branch, upstream, tip = _concurrently(lambda: _current_branch(repo), lambda: _rev(repo, "@{upstream}"),
                                          lambda: _rev(repo, "HEAD"))
    bcfg = _branch_config(repo, branch) if branch else {}
    if branch and (bcfg.get("b4-prep-cover-strategy") or bcfg.get("b4-tracking")):
        plan = _prep_plan(repo, branch, bcfg)
        if plan:
            return plan
    if upstream is None or tip is None:
        where = f"branch {branch}" if branch else "a detached HEAD"
        raise InputError(f"{repo}: {where} has no upstream; name the commits to lint, "
                         "e.g. `reviewtool lint origin/main..HEAD`")
    base = _merge_base(repo, upstream, tip) or upstream
    plan = _Plan(base, tip, "@{upstream}..HEAD", None, upstream=upstream)
    return _with_range_cover(repo, plan, branch, bcfg)


def _with_range_cover(repo: Path, plan: _Plan, branch: str | None = None,
                      bcfg: dict[str, str] | None = None) -> _Plan:
    """A b4 cover commit inside the range, else the branch description, gives the cover letter."""
    found = _find_b4_cover(repo, plan.rev_range)
    if found:
        sha, message = found
        text, tracking = b4_cover_text(message)
        prefixes, revision = tracking_prefixes(tracking)
        cover = cover_from_text(text, f"b4 prep cover commit {sha[:12]}", tracking)
        if sha == plan.tip:  # b4's "tip-commit" strategy
            return _Plan(plan.base, _rev(repo, f"{sha}~1") or sha, plan.label, cover, prefixes, revision,
                         upstream=plan.upstream)
        return _Plan(_rev(repo, f"{sha}~1") or plan.base, plan.tip, plan.label, cover, prefixes, revision, bottom=sha,
                     upstream=plan.upstream)
    if branch is None:
        branch = _current_branch(repo)
        bcfg = _branch_config(repo, branch) if branch else {}
    description = (bcfg or {}).get("description", "")
    # The description belongs to the branch, so it is the cover letter only of that branch's commits.
    if description.strip() and branch and _rev(repo, f"refs/heads/{branch}") == plan.tip:
        return _Plan(plan.base, plan.tip, plan.label, cover_from_text(description, f"branch.{branch}.description", {}),
                     upstream=plan.upstream)
    return plan


# --- the mails ------------------------------------------------------------------------------------

def _subject_prefix(request: RangeRequest, plan: _Plan) -> list[str]:
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
    starts = [m.start() for m in _FROM_SHA_RE.finditer(data)]
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        chunk = data[start:end]
        out.append((chunk[5:45].decode("ascii"), chunk))
    return out


def _stream_format_patch(repo: Path, args: list[str]) -> Iterator[tuple[str, bytes]]:
    """_split_format_patch over git's output as it arrives: a mail is complete when the next one
    starts (or git is done). Each byte is searched once, so a 20 MB patch costs no more than it
    did read whole."""
    from ..context.gitbatch import GitRunner

    pending = bytearray()
    scanned = 0  # pending[:scanned] holds no separator after its first byte
    for block in GitRunner(repo).stream(args):
        pending += block
        # Back up by one separator line: it may have arrived in two blocks.
        last = None
        for m in _FROM_SHA_RE.finditer(pending, max(1, scanned - 80)):
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
        body = re.sub(r"^(base-commit: [0-9a-f]{40})$", lambda mm: mm.group(1) + extra, body, count=1, flags=re.M)
    return (head + sep + body).encode("utf-8")


def range_mails(repo: Path, request: RangeRequest,
                on_message: Callable[[EmailMessage], None] | None = None) -> RangeMails:
    """The series the author would send from the requested commits (see the module docstring).
    `on_message` gets each mail as soon as it is parsed, while git writes the rest."""
    if not repo.is_dir() or git(repo, "rev-parse", "--git-dir", check=False).code != 0:
        raise RepositoryError(f"{repo}: not a git repository")
    plan = plan_range(repo, request.revrange)
    listed, send = _concurrently(lambda: git(repo, "rev-list", "--parents", plan.rev_range), lambda: _send_config(repo))
    listing = _out(listed).splitlines()
    merges = sum(1 for line in listing if line.count(" ") > 1)
    count = len(listing) - merges
    if count == 0:
        raise InputError(f"{plan.label}: no commits to lint (the range is empty)")
    if count > _MAX_COMMITS:
        raise InputError(f"{plan.label}: {count} commits is not a patch series (limit {_MAX_COMMITS}); "
                         "name the range, e.g. origin/main..HEAD")
    cover = plan.cover
    to = _dedupe(request.to + _split_addresses(send.get("sendemail.to", ())) + (cover.to if cover else ()))
    cc = _dedupe(request.cc + _split_addresses(send.get("sendemail.cc", ())) + (cover.cc if cover else ()))
    with_cover = cover is not None and count >= 2
    # With b4's cover commit at the bottom, --base is the cover commit (so format-patch lists no
    # prerequisite for it) and the base-commit line is then set to its parent, as b4 writes it.
    args = ["format-patch", "--stdout", f"--base={plan.bottom or plan.base}",
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
                      upstream=plan.upstream or plan.base, notes=tuple(notes))


def _dedupe(addresses: tuple[str, ...]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for a in addresses:
        if a.lower() not in seen:
            seen.add(a.lower())
            out.append(a)
    return tuple(out)
