"""A maildir in one row of the store (store_index.py reads it through this).

A maildir holds a file per mail, and a row per file cost a warm run a lookup, a CRC, a state and a
decode for each: 28,000 of them were half of a warm run over a four-year maildir. Its one row holds,
in listing order, each file's name under the maildir (cur/..., new/...), its signature
(store_files.signature), its label, and its mail (index_rows.row_tuples) or the one line that said
it is not mail. A file whose signature is the one stored is not read: a maildir's files are
complete when they appear and any write changes the signature, as with a row per file. Any other
file is read as before and the row written again. A file there that is not one mail (an mbox put
into cur/) keeps a row of its own.
"""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

from ..limits import limits
from ..sources.index import MailHead
from .index_rows import Blob, mails_of, row_tuples
from .store_keys import code_digest

KIND = "maildir"
_VERSION = 1

# (name under the maildir, signature, the line that said it is not mail or None, label, row_tuples)
Entry = tuple[str, list[int], str | None, str, list]


def name_in(f: Path) -> str:
    """The file's name under its maildir: its directory's name and its own (cur/1700000000.M1P1.host)."""
    s = str(f)
    last = s.rfind(os.sep)
    return s[s.rfind(os.sep, 0, last) + 1:]


def state_text() -> str:
    return json.dumps({"kind": KIND, "code": code_digest(), "cap": limits().archive_mails})


class MaildirRow:
    """The stored row of one maildir as this run reads it, and the row it leaves."""

    def __init__(self, stored: tuple[str, bytes] | None):
        self.stored = stored
        decoded = _decode(stored)
        self.old: dict[str, Entry] = decoded or {}
        self.entries: list[Entry] = []
        self.changed = decoded is None  # no row of this code to keep (an empty maildir's is one)

    def kept(self, f: Path, name: str, sig: list[int] | None, label: str) -> tuple[list[tuple[MailHead, bytes]],
                                                                                   str | None] | None:
        """(the file's mails, the line that said it is not mail) as stored, when its signature is
        the one stored (and a file that was no mail is named as it was then); None: read it."""
        was = self.old.get(name)
        if was is None or sig is None or was[1] != sig or was[2] is not None and was[3] != label:
            return None
        try:
            mails = mails_of(was[4], str(f), label)
        except (ValueError, TypeError):  # a row that does not decode is a miss, as any row's
            return None
        self.entries.append(was)
        return mails, was[2]

    def read(self, name: str, sig: list[int], label: str, pairs: list[tuple[MailHead, bytes]],
             error: str | None = None) -> None:
        """A file read this run: its mails, or the line that said it is not mail."""
        self.changed = True
        self.entries.append((name, sig, error, label, row_tuples(pairs)))

    def result(self) -> tuple[str, bytes | Blob] | None:
        """The row the maildir's mails are those of, and None when it is the one stored (nothing to write)."""
        if not self.changed and [e[0] for e in self.entries] == list(self.old):
            return None
        entries = self.entries
        return state_text(), Blob(lambda: marshal.dumps((_VERSION, entries), 4))


def _decode(row: tuple[str, bytes] | None) -> dict[str, Entry] | None:
    """{name: entry} of a stored row written by this code under this limit, in its order; None for
    any other row, or one that does not decode (every file is read again, and the row replaced)."""
    if row is None or row[0] != state_text():
        return None
    try:
        version, entries = marshal.loads(row[1])
        if version != _VERSION or type(entries) is not list:
            return None
        out: dict[str, Entry] = {}
        for e in entries:
            name, sig, error, label, rows = e
            if not (type(name) is str and type(sig) is list and len(sig) == 5 and all(type(v) is int for v in sig)
                    and (error is None or type(error) is str) and type(label) is str and type(rows) is list):
                return None
            out[name] = e
        return out
    except (ValueError, TypeError, EOFError, RecursionError):
        return None
