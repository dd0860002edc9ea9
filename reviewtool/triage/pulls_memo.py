"""The states the archive's pull requests give its series, kept in the store beside the grouping.

Which series a pull request applies is a function of the archive's mails (the grouping's key
names every row of them, and so every pull request's bytes), of who may apply patches and of
the series asked about. A run whose grouping the store kept (group_memo.py) asks the same
question again: the answer is read back under a key made of those three, instead of the pull
requests being found and matched against every series again (a sixth of a warm run on a
four-year archive). A row that does not read back is a miss: matched again, the row replaced.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

from .store import PULLED, Guard
from .store_keys import code_digest


def memo_key(grouping_key: str | None, series: list[tuple[int, str]], appliers: frozenset[str]) -> str | None:
    """The store's key for the pull requests' states of these series, each (its key in this run,
    its message-id): a window or a cap numbers the series it keeps from 0, so the numbers alone
    do not say which series they are (None: the grouping is not kept)."""
    if grouping_key is None:
        return None
    h = hashlib.sha256(f"pulled\0{code_digest()}\0{grouping_key}\0".encode())
    h.update("\0".join(sorted(appliers)).encode("utf-8", "surrogatepass") + b"\0\0")
    h.update("\0".join(f"{key} {msgid}" for key, msgid in series).encode("utf-8", "surrogatepass"))
    return PULLED + h.hexdigest()


def recall(key: str, guard: Guard) -> tuple[dict[int, dict[str, Any]], list[str]] | None:
    """({series key: state}, the pull-request reading keys it used) kept under `key`, or None."""
    row = guard.call(lambda s: s.reviews([key]), default={}).get(key)
    if row is None or row[0] != "":
        return None
    try:
        data = json.loads(zlib.decompress(row[2]).decode("utf-8", "surrogatepass"))
        states, used = data["states"], data["used"]
        if not (type(states) is dict and all(type(v) is dict for v in states.values())
                and type(used) is list and all(type(k) is str for k in used)):
            return None
        return {int(k): v for k, v in states.items()}, used
    except (ValueError, TypeError, KeyError, zlib.error, RecursionError, UnicodeError):
        return None


def keep(key: str, states: dict[int, dict[str, Any]], used: list[str], guard: Guard) -> None:
    blob = zlib.compress(json.dumps({"states": {str(k): v for k, v in states.items()}, "used": used},
                                    ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"), 1)
    guard.call(lambda s: s.save_reviews([(key, "", None, "", blob)]))


def pulled_states(grouping, indexed, opts, guard: Guard, grouping_key: str | None) -> tuple[dict, list[str]]:
    """({group key: the applied state a later pull request of an applier gives it}, store keys),
    kept in the store under the grouping's key."""
    from ..context.profiles.load import load_profiles
    from .pulls import pulled_groups, pulled_state, read_pull_requests

    appliers = frozenset(a.lower() for p in load_profiles(opts.review.repo).values() for a in p.appliers)
    key = memo_key(grouping_key, [(g.key, g.msgid) for g in grouping.series], appliers) if guard.usable else None
    found = recall(key, guard) if key is not None else None
    if found is not None:
        return found[0], found[1] + [key]
    pulls, used = read_pull_requests(indexed.heads, appliers, indexed.unpack, guard, indexed.digests)
    states = {k: pulled_state(p) for k, p in pulled_groups(grouping.series, indexed.heads, pulls).items()}
    if key is not None:
        keep(key, states, used, guard)
        used = used + [key]
    return states, used
