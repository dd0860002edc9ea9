"""Review an archive's series through the result store: reuse what was reviewed before, review
the rest.

Every group gets a key (store_keys.series_key). A stored review is reused when its key is in the
store and it was made with the same repository state; every other group is reviewed
(triage/run.py) and stored as results come, a batch per transaction, so an interrupted run keeps
what it finished. Reused and fresh reviews become entries the same way (entry.entry): the report
is the one a run without the store writes.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

from .entry import Reviewed, TriageOptions, compact
from .group import SeriesGroup
from .run import run_groups
from .store import Guard
from .status import STATUSES
from .store_keys import options_digest, repo_state, series_key

SAVE_EVERY = 256  # reviews per write transaction: short, so that another run is never kept waiting


@dataclass
class Plan:
    """Which groups the store answers and which must be reviewed."""

    results: list[Reviewed | None]  # per group, in order; None until reviewed
    todo: list[int]  # indices of the groups to review
    keys: list[str] = field(default_factory=list)
    env: str = ""  # the repository state (store_keys.repo_state)

    @property
    def reused(self) -> int:
        return len(self.results) - len(self.todo)

    def used_keys(self) -> list[str]:
        waiting = set(self.todo)
        return [k for i, k in enumerate(self.keys) if i not in waiting]


def plan(groups: list[SeriesGroup], opts: TriageOptions, guard: Guard, digests) -> Plan:
    if not guard.usable:
        return Plan([None] * len(groups), list(range(len(groups))))
    base = options_digest(opts)
    keys = [series_key(base, g.refs, digests) for g in groups]
    env = repo_state(opts.review.repo)
    rows = guard.call(lambda s: s.reviews(sorted(set(keys))), default={})
    stored = {k: r for k, (row_env, head, tail) in rows.items() if row_env == env and (r := decode(head, tail))}
    results: list[Reviewed | None] = [stored.get(k) for k in keys]
    return Plan(results, [i for i, r in enumerate(results) if r is None], keys, env)


def review(p: Plan, groups: list[SeriesGroup], opts: TriageOptions, guard: Guard, pool=None,
           on_done=None, meanwhile=None) -> list[Reviewed]:
    """Every group's review, in order: the stored ones and the reviews of `p.todo`, stored;
    `meanwhile` as for run.run_groups (called in any case)."""
    pending: list[tuple[str, str, str | None, str, bytes]] = []

    def save() -> None:
        guard.call(lambda s: s.save_reviews(pending))
        pending.clear()

    if not p.todo and meanwhile is not None:
        meanwhile()
    for i, r in zip(p.todo, run_groups([groups[i] for i in p.todo], opts, on_done=on_done, pool=pool,
                                       meanwhile=meanwhile)):
        p.results[i] = r
        if guard.usable and r.keep:
            pending.append((p.keys[i], p.env, _text(r.msgid or groups[i].msgid), *encode(r)))
            if len(pending) >= SAVE_EVERY:
                save()
    if pending:
        save()
    return [r for r in p.results if r is not None]


def _text(value: str) -> str:
    from ..render.output import printable

    return printable(value)


def encode(r: Reviewed) -> tuple[str, bytes]:
    """(head, tail) of the store's row: the few fields as JSON, the entry's rest as compressed."""
    from ..render.output import printable  # lone surrogates cannot be stored; the report writes U+FFFD for them

    return printable(compact([r.status, r.msgid, r.full_subject, list(r.reasons), r.skip_reason, r.tree, r.profile,
                              r.errors, r.placed, r.step])), r.tail


_STATUSES = frozenset(STATUSES) | {"skipped"}


def decode(head: str, tail: bytes) -> Reviewed | None:
    """The stored review, or None when the row does not decode to one: a CRC proves only that
    the row is the one written, not that what was written is a review (another program, a bug,
    a hand edit). A row that does not decode is a miss, reviewed again and replaced."""
    try:
        status, msgid, full_subject, reasons, skip_reason, tree, profile, errors, placed, step = json.loads(head)
        text = zlib.decompress(tail).decode("utf-8") if tail else ""
        whole = json.loads("{" + text) if text else None
    except (ValueError, TypeError, zlib.error, UnicodeDecodeError, RecursionError):
        return None
    texts = (msgid, full_subject, skip_reason, tree, profile, step)
    if (status not in _STATUSES or not all(t is None or isinstance(t, str) for t in texts)
            or not isinstance(reasons, list) or not all(isinstance(r, dict) for r in reasons)
            or not isinstance(errors, int) or isinstance(errors, bool) or not isinstance(placed, bool)
            or (status == "skipped") != (whole is None) or whole is not None and not isinstance(whole, dict)):
        return None
    return Reviewed(status=status, msgid=msgid, full_subject=full_subject, reasons=tuple(reasons), tail=tail,
                    skip_reason=skip_reason, tree=tree, profile=profile, errors=errors, placed=placed, step=step)


def orphan_states(orphans, opts: TriageOptions, guard: Guard, digests, env: str, before_reading) -> tuple[
        dict[str, dict], list[str]]:
    """({orphan msgid: state}, the store keys used) for the replies whose patch is not in the
    archive (earlier_postings.orphan_states), through the store: what their mails settled is a
    function of those mails, the ids they answer, the options and the repository, like a review.
    `before_reading` is called once before any mail is read (it unpacks what must be)."""
    def settled(todo, opts):  # its reply readers are imported only when some mails must be read
        from .earlier_postings import orphan_states

        return orphan_states(todo, opts)

    if not orphans:
        return {}, []
    if not guard.usable:
        before_reading()
        return settled(orphans, opts), []
    base = options_digest(opts) + "\0orphan"
    keys = {o.msgid: "orphan:" + series_key(base + "\0" + "\0".join(o.missing), o.refs, digests) for o in orphans}
    rows = guard.call(lambda s: s.reviews(sorted(set(keys.values()))), default={})
    known: dict[str, dict | None] = {}
    for o in orphans:
        row = rows.get(keys[o.msgid])
        if row is not None and row[0] == env:
            try:
                state = json.loads(row[1])
            except ValueError:
                continue  # a row that does not decode: read again
            if state is None or isinstance(state, dict):
                known[o.msgid] = state
    todo = [o for o in orphans if o.msgid not in known]
    if todo:
        before_reading()
        fresh = settled(todo, opts)
        guard.call(lambda s: s.save_reviews([(keys[o.msgid], env, _text(o.msgid), _text(json.dumps(fresh.get(o.msgid))), b"")
                                             for o in todo]))
        known.update({o.msgid: fresh.get(o.msgid) for o in todo})
    return {m: s for m, s in known.items() if s is not None}, list(keys.values())
