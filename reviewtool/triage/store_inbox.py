"""A public-inbox's epochs in the result store (sources/inbox.py reads them in place): each epoch's
mails are kept under the commit read last, so that the next run reads only the commits made since
(`rev-list OLD..NEW`), and none when the epoch's tip has not moved. An epoch whose history no
longer holds that commit (public-inbox-purge rewrites it) is read whole again, as is one indexed by
other code or under another limit (store_index.py decides that, as for files)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..sources.inbox import EpochRead, descends, read_epoch, tip_of
from ..sources.index import MailHead


@dataclass
class EpochMails:
    pairs: list[tuple[MailHead, bytes]]  # every mail of the epoch now, with its digest, in order
    state: dict | None  # the row's state to store (None: the stored row stands)
    how: str  # "kept" (nothing read), "resumed" (the new commits read), "read" (read whole)
    read: int = 0  # mails read this run


def epoch_mails(repo: Path, label: str, state: dict | None,
                old: list[tuple[MailHead, bytes]] | None) -> EpochMails:
    """The epoch's mails, from its stored `state` and mails `old` where they still hold."""
    tip = tip_of(repo)
    if tip is None:
        return EpochMails([], None, "read")
    if state is not None and old is not None and state.get("kind") == "inbox":
        if state.get("tip") == tip:
            return EpochMails(old, None, "kept")
        if isinstance(state.get("tip"), str) and isinstance(state.get("next"), int) \
                and descends(repo, state["tip"], tip):
            new = read_epoch(repo, label, tip, since=state["tip"], first=state["next"])
            kept = [(h, d) for h, d in old if h.ref.blob not in new.deleted]
            return EpochMails(kept + new.mails, _state(new), "resumed", len(new.mails))
    new = read_epoch(repo, label, tip)
    return EpochMails(new.mails, _state(new), "read", len(new.mails))


def _state(read: EpochRead) -> dict:
    return {"kind": "inbox", "tip": read.tip, "next": read.next}
