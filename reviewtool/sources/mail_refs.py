"""Mails read back from the archive by where the index found them (sources/index.py's MailRefs): an
mbox's or a mail file's bytes by offset, a public-inbox's mail by its object id, through one
`git cat-file --batch` per epoch and process. What triage's review, its earlier states and pull
requests, `profile learn` and `check`'s narrowed archive all read."""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..limits import limits
from .files import RawMail
from .index import MailRef, raw_mail

_CATS: dict[tuple[int, str], Any] = {}  # (process, epoch) -> CatFile: a forked worker starts its own


def _cat(repo: str):
    from .gitbatch import CatFile, GitRunner

    key = (os.getpid(), repo)
    cat = _CATS.get(key)
    if cat is None:
        cat = _CATS[key] = CatFile(GitRunner(Path(repo)))
    return cat


@atexit.register
def _close_cats() -> None:
    for (pid, _), cat in list(_CATS.items()):
        if pid == os.getpid():
            cat.close()
    _CATS.clear()


class MailReader:
    """Reads mails back by their MailRefs, keeping each file open until close()."""

    def __init__(self) -> None:
        self._files: dict[str, Any] = {}

    def read(self, ref: MailRef) -> RawMail:
        """The mail's bytes as the parser gets them; a mail over the mail limit is not read
        (parse_mail refuses it by its size, in one line)."""
        return self.read_all([ref])[0]

    def read_all(self, refs) -> list[RawMail]:
        """The mails at `refs`, in order (a public-inbox's asked of git at once)."""
        cap = limits().mail_bytes
        out: list[RawMail | None] = [None] * len(refs)
        blobs: dict[str, list[int]] = {}
        for i, ref in enumerate(refs):
            if ref.length > cap:
                out[i] = RawMail(b"", ref.origin, ref.format_patch, unread=ref.length)
            elif ref.blob:
                blobs.setdefault(ref.path, []).append(i)
            else:
                fh = self._files.get(ref.path) or self._files.setdefault(ref.path, open(ref.path, "rb"))
                out[i] = raw_mail(ref, fh)
        for repo, where in blobs.items():
            for i, entry in zip(where, _cat(repo).query([refs[i].blob for i in where])):
                if entry.status != "found":
                    raise InputError(f"{refs[i].label or repo}: message {refs[i].blob} is gone from {repo} "
                                     "(the inbox changed while it was read)")
                out[i] = RawMail(entry.content, refs[i].origin)
        return out  # type: ignore[return-value]

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()


def read_refs(ref_lists: list) -> list[list[RawMail]]:
    """The mails of each list of MailRefs, read back from the archive."""
    reader = MailReader()
    try:
        return [reader.read_all(list(refs)) for refs in ref_lists]
    finally:
        reader.close()
