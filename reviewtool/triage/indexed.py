"""What indexing an archive gives (Indexed), and how each file's mails go into it: in order,
with their digests and the store's row that holds them (store_index.py reads the files)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..limits import limits
from ..sources.index import MailHead, MailRef
from ..sources.input_files import unpack_gzip
from ..sources.newest import Newest, left_out_note
from .index_rows import Blob, blob_bytes, encode_rows
from .store import Guard
from .store_keys import code_digest


@dataclass
class Indexed:
    heads: list[MailHead] = field(default_factory=list)
    digests: dict[MailRef, bytes] = field(default_factory=dict)  # empty without a store
    files_read: int = 0  # indexed from their first byte
    files_resumed: int = 0  # mboxes read from where the last run stopped
    files_kept: int = 0  # single-mail files not read at all
    mails_read: int = 0  # mails whose headers were read this run
    mails_new: int = 0  # of those, mails other than the ones the store held (a grown mbox's last is read again)
    used_files: list[str] = field(default_factory=list)
    packed: dict[Path, Path] = field(default_factory=dict)  # unpacked copy -> gzip, not unpacked yet
    # Per file, in order: (the path its mails carry, its label, the store's row of its mails);
    # None once a file has no row (read without a store, not settled, fetched): see group_memo.py
    # (a row read this run holds its bytes as an index_rows.Blob, made when first asked for)
    sources: list[tuple[str, str, tuple[str, bytes | Blob]]] | None = field(default_factory=list)
    limited: list[str] = field(default_factory=list)  # what a limit left out, one line each
    left_out: int = 0  # the oldest mails left out (REVIEWTOOL_MAX_ARCHIVE_MAILS)
    # the rows to write, each as (input, rows, paths gone): written by save_rows, once
    pending: list[tuple[str, list, set]] = field(default_factory=list)
    guard: Guard | None = None
    single_tail: str = ""  # single_tail() of the run, worked out once
    cap: int = field(default_factory=lambda: limits().archive_mails)  # read once: keep_newest runs per file

    @property
    def keeping(self) -> bool:
        """Whether a store keeps what is read (else no digest is worked out or kept)."""
        return self.guard is not None and self.guard.usable

    def keep_newest(self) -> None:
        """Hold at most REVIEWTOOL_MAX_ARCHIVE_MAILS mails: the ones read first are left out."""
        extra = len(self.heads) - self.cap
        if extra <= 0:
            return
        for h in self.heads[:extra]:
            self.digests.pop(h.ref, None)
        del self.heads[:extra]
        self.left_out += extra
        self.sources = None  # the grouping memo is of whole files

    def save_rows(self) -> None:
        """Write the rows this run read (their bytes are made now, see index_rows.Blob)."""
        pending, self.pending = self.pending, []
        for input_path, rows, gone in pending:
            made = [(key, state, blob_bytes(blob)) for key, state, blob in rows]
            self.guard.call(lambda s: s.save_files(input_path, made, gone))

    def notes(self) -> list[str]:
        """The lines that say what a limit left out."""
        return self.limited + [n for n in (left_out_note(self.left_out, len(self.heads)),) if n]

    def unpack(self) -> None:
        """Unpack the gzip files whose index came from the store, for what reads mails: the
        same bytes at the same place as the run that indexed them (input_files.unpack_gzip)."""
        for target, gz in list(self.packed.items()):
            if unpack_gzip(gz, target.parent) != target:
                raise InputError(f"{gz}: unpacked to another place than its index says")
            del self.packed[target]


def note_source(out: Indexed, f: Path, label: str, row: tuple[str, bytes] | None, before: int) -> None:
    """Record which row the file's mails (out.heads[before:]) came from, or that none did."""
    if out.sources is None:
        return
    if row is None:
        out.sources = None
        return
    paths = {h.ref.path for h in out.heads[before:]}
    if len(paths) > 1:
        out.sources = None
        return
    out.sources.append((paths.pop() if paths else str(f), label, row))


def add(out: Indexed, pairs: list[tuple[MailHead, bytes]], state: dict | None = None,
         blob: Callable[[], bytes] | None = None) -> tuple[str, Blob] | None:
    """Put the mails into `out`; the row that stores them with `state` (None: store nothing),
    its mails encoded by `blob` when given (an appended row), else whole."""
    if not out.keeping:  # without a store no key is made of the digests (Indexed.digests)
        out.heads.extend(h for h, _ in pairs)
        return None
    for h, d in pairs:
        out.heads.append(h)
        out.digests[h.ref] = d
    if state is None:
        return None
    return state_text(state), Blob(blob if blob is not None else lambda: encode_rows(pairs))


_SINGLE = re.compile(r'\{"kind": "single", "sig": \[(-?\d+), (-?\d+), (-?\d+), (-?\d+), (-?\d+)\](.*)', re.ASCII | re.S)


def single_tail() -> str:
    """The end of the state state_text writes for a single mail's row under this code and cap."""
    return f', "code": "{code_digest()}", "cap": {limits().archive_mails}}}'


def single_sig(text: str, tail: str) -> list[int] | None:
    """The signature in a single mail's row state exactly as state_text writes it under this code
    and cap (`tail`, from single_tail); None for any other text, which json reads. json.loads of
    28,000 of them was a twentieth of a warm run over a four-year maildir."""
    m = _SINGLE.match(text)
    if m is None or m.group(6) != tail:
        return None
    return [int(v) for v in m.group(1, 2, 3, 4, 5)]


def state_text(state: dict) -> str:
    """json.dumps of the row's state with the code and the cap that read it. A single mail's, the
    row of each file of a directory of mail files, is written out directly: json.dumps of 28,000
    of them was a third of what indexing a four-year maildir left to this process, when a
    maildir's files had a row each (tests/test_store_index_paths.py
    holds the two equal)."""
    cap = limits().archive_mails
    sig = state.get("sig")
    if (len(state) == 2 and state.get("kind") == "single" and isinstance(sig, list) and len(sig) == 5
            and all(type(v) is int for v in sig) and type(cap) is int):
        return (f'{{"kind": "single", "sig": [{sig[0]}, {sig[1]}, {sig[2]}, {sig[3]}, {sig[4]}], '
                f'"code": "{code_digest()}", "cap": {cap}}}')
    return json.dumps({**state, "code": code_digest(), "cap": cap})


def newest(heads, out: Indexed) -> list[MailHead]:
    """One file's mails, no more than a run keeps: the ones read first are left out, and counted."""
    kept: Newest = Newest()
    kept.extend(heads)
    done = kept.done()
    out.left_out += kept.left_out
    return done
