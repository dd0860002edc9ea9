"""Shared questions the trailer rule families ask of the model (no rules here).

b4's follow-up trailers and our own reply-trailer scan describe the same lines from two sides:
these helpers pair them up, so a rule can tell a trailer b4 will apply from one it dropped.
"""

from __future__ import annotations

import re
import threading

from ..model.series import Patch, Person, Reply, Series, Trailer
from ..model.trailers import address_problem

REVIEW_KEYS = ("reviewed-by", "acked-by", "tested-by")


_BLANKS_RE = re.compile(r"\s+")


def _norm(value: str) -> str:
    return _BLANKS_RE.sub(" ", value.split(" #", 1)[0]).strip().casefold()


def same_trailer(a: Trailer, b: Trailer) -> bool:
    """Same tag and same person (by address) or, for non-person values, the same text."""
    if a.key != b.key:
        return False
    if a.person and b.person and a.person.email and b.person.email:
        return a.person.email.lower() == b.person.email.lower()
    return _norm(a.value) == _norm(b.value)


class _Trailers:
    """Trailers indexed for same_trailer: {(key, address): msgids} of those naming a person with
    an address, {(key, value): msgids} of the others and of all (msgids: the replies that gave
    them, None for the patch's own). Asked of every reply trailer of a thread, a scan of the
    patch's follow-up trailers each time was quadratic (4,000 reviews of one patch: a minute)."""

    def __init__(self, trailers) -> None:
        self.by_address: dict[tuple[str, str], set] = {}
        self.by_value_bare: dict[tuple[str, str], set] = {}
        self.by_value: dict[tuple[str, str], set] = {}
        for f in trailers:
            value = (f.key, _norm(f.value))
            if f.person and f.person.email:
                self.by_address.setdefault((f.key, f.person.email.lower()), set()).add(f.source_msgid)
            else:
                self.by_value_bare.setdefault(value, set()).add(f.source_msgid)
            self.by_value.setdefault(value, set()).add(f.source_msgid)

    def sources(self, t: Trailer) -> set:
        """The msgids of the trailers same_trailer(t, _) holds for."""
        value = (t.key, _norm(t.value))
        if t.person and t.person.email:
            return self.by_address.get((t.key, t.person.email.lower()), set()) | self.by_value_bare.get(value, set())
        return self.by_value.get(value, set())


# The trailers of the series last asked about, indexed per patch as asked: one series at a time,
# one per reviewing thread (as _LAST below).
_INDEXED = threading.local()


def _indexed(series: Series, patch: Patch, own: bool) -> _Trailers:
    if getattr(_INDEXED, "series", None) is not series:
        _INDEXED.series, _INDEXED.patches = series, {}
    key = (id(patch), own)
    found = _INDEXED.patches.get(key)
    if found is None or found[0] is not patch:
        found = _INDEXED.patches[key] = (patch, _Trailers(patch.trailers if own else patch.followup_trailers))
    return found[1]


def accepted_by_b4(series: Series, patch: Patch, reply: Reply, trailer: Trailer) -> bool:
    """b4 collected this reply trailer into the patch's follow-up trailers."""
    found = _indexed(series, patch, own=False).sources(trailer)
    return None in found or reply.msgid in found


def already_in_patch(series: Series, patch: Patch, trailer: Trailer) -> bool:
    return bool(_indexed(series, patch, own=True).sources(trailer))


def mismatches_from(series: Series, address: str) -> list[tuple[str, str]]:
    """(trailer name, value), lower case, of the trailers b4 listed as sent by `address` (any
    case) for someone else (series.trailer_mismatches), indexed once per series."""
    if getattr(_INDEXED, "mismatch_series", None) is not series:
        index: dict[str, list[tuple[str, str]]] = {}
        for name, value, _, from_email in series.trailer_mismatches:
            index.setdefault(from_email.lower(), []).append((name.lower(), value.lower()))
        _INDEXED.mismatch_series, _INDEXED.mismatches = series, index
    return _INDEXED.mismatches.get(address.lower(), [])


def replies_by_msgid(series: Series) -> dict[str, Reply]:
    return {r.msgid: r for r in series.replies}


def known_people(series: Series) -> list[Person]:
    """Everyone with a usable address in the thread: senders, authors, repliers, trailer people."""
    people: list[Person] = []
    for p in series.all_mails:
        people += [p.sender, p.author]
        people += [t.person for t in p.trailers if t.person and not t.address_problem]
    people += [r.author for r in series.replies]
    return [x for x in people if x.email and address_problem(x.email) is None]


def _name_key(name: str) -> str:
    return re.sub(r"\s+", " ", name.strip().strip('"')).casefold()


# The people of the series last asked about, by name: built once per series, not once per trailer
# (a thread of 19,000 replies asked for every reply's trailers). The series is kept, not its id;
# one per thread, so a reviewing thread never reads another's.
_LAST = threading.local()


def _people_by_name(series: Series) -> dict[str, dict[str, Person]]:
    if getattr(_LAST, "series", None) is not series:
        index: dict[str, dict[str, Person]] = {}
        for x in known_people(series):
            index.setdefault(_name_key(x.name), {})[x.email.lower()] = x
        _LAST.series, _LAST.index = series, index
    return _LAST.index


def address_for(name: str, series: Series) -> Person | None:
    """The one usable address the thread shows for this name, if there is exactly one."""
    key = _name_key(name)
    if not key:
        return None
    found = _people_by_name(series).get(key, {})
    return next(iter(found.values())) if len(found) == 1 else None


def corrected_line(trailer: Trailer, series: Series) -> str | None:
    """The trailer rewritten with the address the thread shows for the same name, when unambiguous."""
    if trailer.person is None:
        return None
    if "mailto" in (trailer.address_problem or "") and address_problem(trailer.person.email) is None:
        return f"{trailer.name}: {trailer.person}"
    good = address_for(trailer.person.name, series)
    return f"{trailer.name}: {trailer.person.name} <{good.email}>" if good else None


_UPSTREAM_RE = re.compile(r"^\s*(?:commit [0-9a-f]{12,64} upstream\b|\[ *upstream commit [0-9a-f]{12,64} *\])", re.I)


def upstream_commit_line(patch: Patch) -> str | None:
    """The `commit <sha> upstream.` / `[ Upstream commit <sha> ]` line of a stable backport: its
    message and trailers are the upstream commit's, which the backporter may not rewrite."""
    return next((line.strip() for line in patch.message_lines if _UPSTREAM_RE.match(line)), None)
