"""Series a maintainer's pull request carries: applied, though their own thread never said so.

Wireless and netfilter maintainers answer few patches on the list; the pull request they send
upstream lists what they applied (mail/pull_request.py). A triaged posting whose every patch the
shortlog of a later pull request names (its summary, by the same author) shows `applied`, to the
tree the pull request's repository is, by the one who sent it, with the pull request as evidence.
A project's release announcement from one of them ("[ANNOUNCE] nftables 1.0.9 release", its
shortlog attached) counts the same way (form `release`).

Only a pull request from someone who applies patches for a tree counts (the profiles' appliers,
as for a plain "Applied"): anyone can write a shortlog. A posting a pull request consists of
(netfilter's "[PATCH net 0/5] Netfilter fixes for net") is not applied by its own cover letter.
The pull requests are matched once per run, while the reviews run: what another thread says is
never part of a stored review. What each pull request mail holds is kept in the store by its
bytes, so a warm run reads none of them again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from ..mail.headers import address_of, mailbox
from ..mail.subject import is_reply_subject, normalized_summary, parse_subject
from ..sources.index import MailHead
from .group import SeriesGroup

MIN_SUMMARY = 12  # a shorter summary ("fix typo") names too many commits to match on alone


@dataclass(frozen=True)
class Pulled:
    msgid: str
    subject: str
    by: str
    date: float | None
    repo: str
    ref: str | None
    kind: str = "pull-request"  # or "release": a project's release announcement with its shortlog


def _candidates(heads: Iterable[MailHead], appliers: frozenset[str]) -> list[MailHead]:
    """Mails that may be pull requests: from an applier, not a reply, not a numbered patch."""
    out = []
    for h in heads:
        if is_reply_subject(h.subject) or address_of(h.sender) not in appliers:
            continue
        s = parse_subject(h.subject)
        if s.counter in (None, 0) and (not s.is_patch or s.counter == 0 or "pull" in h.subject.lower()):
            out.append(h)
    return out


def read_pull_requests(heads: list[MailHead], appliers: frozenset[str],
                       prepare: Callable[[], None] = lambda: None, guard=None,
                       digests: dict | None = None) -> tuple[dict[tuple[str, str], Pulled], list[str]]:
    """({(summary, author name): the earliest pull request naming that commit} over the archive,
    the store keys used); `prepare` makes the archive's mails readable (a gzip the store indexed
    is unpacked). What a mail holds is a function of its bytes: with a usable store (`guard`, and
    the index's `digests`), each candidate is read once and its reading kept, so a warm run reads
    no mail here."""
    from .store_keys import series_key

    cands = _candidates(heads, appliers)
    stored = guard is not None and guard.usable and digests is not None and all(h.ref in digests for h in cands)
    keys = {h.msgid: "pull:" + series_key(_STORE_BASE, [h.ref], digests) for h in cands} if stored else {}
    rows = guard.call(lambda st: st.reviews(sorted(set(keys.values()))), default={}) if keys else {}
    found: dict[str, dict | None] = {}
    for h in cands:
        row = rows.get(keys.get(h.msgid, ""))
        if row is not None and row[0] == _STORE_BASE:
            try:
                found[h.msgid] = _checked(json.loads(row[1]))
                continue
            except ValueError:
                pass  # a row that does not decode: read again
    todo = [h for h in cands if h.msgid not in found]
    if todo:
        prepare()
        fresh = {h.msgid: _read_one(h, raw) for h, (raw,) in zip(todo, _read_refs(todo))}
        found.update(fresh)
        if keys:
            guard.call(lambda st: st.save_reviews([(keys[m], _STORE_BASE, m, json.dumps(v), b"")
                                                   for m, v in fresh.items()]))
    out: dict[tuple[str, str], Pulled] = {}
    for h in cands:
        pr = found.get(h.msgid)
        if pr is None:
            continue
        pulled = Pulled(h.msgid, h.subject, pr["by"] or h.sender, h.date, pr["repo"], pr["ref"], pr["kind"])
        for author, subject in pr["commits"]:
            key = (normalized_summary(parse_subject(subject)), author.casefold())
            old = out.get(key)
            if old is None or (h.date or 0.0) < (old.date or 0.0):
                out[key] = pulled
    return out, list(keys.values())


_STORE_BASE = "pull-request-v2"  # the reading below: change it when the reading changes (v2: past a list tag)


def _read_refs(heads: list[MailHead]):
    from ..sources.mail_refs import read_refs

    return read_refs([(h.ref,) for h in heads])


def _read_one(h: MailHead, raw) -> dict | None:
    """What one candidate mail holds: its pull request or release announcement (repository, ref,
    kind, the commits' authors and subjects, its From), or None."""
    from ..mail.headers import header
    from ..mail.message import all_text, body_text
    from ..mail.pull_request import announced, parse_pull_request, parse_release
    from ..sources.files import parse_mail

    msg, _ = parse_mail(raw)
    text = body_text(msg) if msg is not None else ""
    kind = "pull-request"
    pr = parse_pull_request(text) if "repository at" in text else None
    if pr is None and msg is not None and announced(h.subject):
        pr, kind = parse_release(h.subject, all_text(msg)), "release"
    if pr is None:
        return None
    return {"by": header(msg, "From") or "", "repo": pr.repo_name, "ref": pr.ref, "kind": kind,
            "commits": [[author, subject] for author, subject in pr.commits]}


def _checked(value) -> dict | None:
    """A stored reading, if it has the shape _read_one writes (else ValueError: read again)."""
    if value is None:
        return None
    if (not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("by", "repo", "kind"))
            or not (value.get("ref") is None or isinstance(value["ref"], str))
            or not isinstance(value.get("commits"), list)
            or not all(isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
                       for c in value["commits"])):
        raise ValueError("not a stored pull request")
    return value


def _name(sender: str) -> str:
    return mailbox(sender)[0].strip().strip('"').casefold()


class _AuthorPulls:
    """One author's pull-requested commits: by summary, and by the summary's last MIN_SUMMARY
    characters, the only ones a summary it ends with can have (every summary looked up is that
    long), each list in the order the commits were found."""

    def __init__(self) -> None:
        self.exact: dict[str, Pulled] = {}
        self.tails: dict[str, list[tuple[str, Pulled]]] = {}

    def add(self, summary: str, p: Pulled) -> None:
        self.exact[summary] = p
        self.tails.setdefault(summary[-MIN_SUMMARY:], []).append((summary, p))

    def lookup(self, summary: str) -> Pulled | None:
        """The commit of this summary; else the first whose summary ends with it: maintainers add
        a prefix as they apply ("wifi: " before "mt76: ...")."""
        found = self.exact.get(summary)
        if found is not None:
            return found
        return next((p for s, p in self.tails.get(summary[-MIN_SUMMARY:], ()) if s.endswith(summary)), None)


def pulled_groups(groups: list[SeriesGroup], heads: list[MailHead],
                  pulls: dict[tuple[str, str], Pulled]) -> dict[int, Pulled]:
    """{group key: the pull request that carries every patch of its triaged posting}."""
    if not pulls:
        return {}
    by_ref = {h.ref: h for h in heads}
    by_author: dict[str, _AuthorPulls] = {}
    for (s, a), p in pulls.items():
        by_author.setdefault(a, _AuthorPulls()).add(s, p)
    nobody = _AuthorPulls()
    out: dict[int, Pulled] = {}
    for g in groups:
        patches = []
        for ref in g.refs:
            h = by_ref.get(ref)
            if h is None or is_reply_subject(h.subject):
                continue
            s = parse_subject(h.subject)
            if s.is_patch and s.revision == g.revision and s.counter != 0:
                patches.append((normalized_summary(s), _name(h.sender), h))
        if not patches or any(len(summary) < MIN_SUMMARY for summary, _, _ in patches):
            continue
        found = [by_author.get(author, nobody).lookup(summary) for summary, author, _ in patches]
        if any(f is None for f in found):
            continue
        last = max(found, key=lambda p: p.date or 0.0)
        own = {by_ref[ref].msgid for ref in g.refs if ref in by_ref}
        if last.msgid in own or any((p.date or 0.0) < (h.date or 0.0) for p, (_, _, h) in zip(found, patches)):
            continue  # its own cover letter, or a pull request older than the posting
        out[g.key] = last
    return out


def _named(words: str) -> str | None:
    from ..context.profiles.load import shipped_profiles

    for profile in shipped_profiles().values():
        named = profile.tree_named(words)
        if named is not None:
            return named[0].name
    return None


def tree_of(repo_name: str, ref: str | None = None) -> str | None:
    """The profile tree a pull request's tag or repository names, or None. A tag names the tree
    by its longest leading words ("wireless-next-2022-06-10": wireless-next; "mt76-for-kvalo-
    2022-09-15": the mt76 tree, which feeds wireless-next; "nf-23-08-31": nf); a maintainer's own
    repository often has another name ("nbd168/wireless" for mt76), so the tag comes first."""
    parts = (ref or "").rsplit("/", 1)[-1].split("-")
    for n in range(len(parts), 0, -1):
        if parts[n - 1].isdigit():
            continue
        tree = _named("-".join(parts[:n]))
        if tree is not None:
            return tree
    return _named(repo_name)


def pulled_state(p: Pulled) -> dict[str, Any]:
    """The state a pull request settles (the shape of context/reply_state.state_data)."""
    when = datetime.fromtimestamp(p.date, timezone.utc).isoformat() if p.date is not None else None
    return {"state": "applied", "tree": tree_of(p.repo, p.ref), "tree_words": p.repo, "branch": p.ref, "by": p.by,
            "date": when, "patches": None, "applied": [], "not_applied": [], "open": [], "commits": [],
            "reason": None, "form": p.kind, "msgid": p.msgid, "evidence": p.subject}
