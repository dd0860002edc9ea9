"""A directory of mail files, as the store's index reads it (store_index.py): each file's
signature, its real path, and its one mail read with one open and one read, ahead of the index by
the idle workers where the directory is large. A maildir (`lei q -o`, a mail client's) is such a
directory: thousands of files of one mail each.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..limits import limits
from ..sources.index import MailHead, probe, single_head
from ..sources.segments import SegmentScan
from .store_keys import mail_digest

RACY_S = 2.0  # a file written this recently may still change without its timestamps changing


def signature(f: Path, maildir: bool = False) -> tuple[list[int], bool] | None:
    """The file's signature (size, mtime, ctime, inode, device), and whether it has settled: in a
    maildir, or not written within RACY_S, so that a later write must change the signature."""
    try:
        st = os.stat(f)
    except OSError:
        return None
    settled = maildir or time.time() - max(st.st_mtime, st.st_ctime) >= RACY_S
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev], settled


READ_AHEAD_FILES = 256  # a directory of fewer mail files is read here alone: a worker's round trip costs more

Read = tuple[list[MailHead], list[bytes]]  # one_mail's answer: the file's mails and their digests


class ReadAhead:
    """one_mail of each of a directory's files the store does not answer, read in as many parts as
    segmented allows: this process reads the first part while the workers, idle until the archive
    is indexed, read the others (a maildir is indexed mail by mail, as a large mbox is by segments).
    A worker's part is waited for only when the index reaches its first file. Each answer comes with
    the file's signature from before it was read, and stands only where the index then finds the
    same (a file written meanwhile is read again). A file that is not one mail has no answer:
    store_index reads it, and says why, as before."""

    def __init__(self, files: list[Path], labels: dict[Path, str], segmented: SegmentScan | None, maildir: bool):
        self.got: dict[str, tuple[list[int] | None, Read | None]] = {}
        self.wanted: set[str] = set()
        self.pending: Iterator = iter(())
        if segmented is None or segmented.parts < 2 or len(files) < READ_AHEAD_FILES:
            return
        size = -(-len(files) // segmented.parts)
        chunks = [files[i:i + size] for i in range(0, len(files), size)]
        self.wanted = set(map(str, files))
        later = segmented.map(read_ones, [_args(c, labels, maildir) for c in chunks[1:]])
        self.pending = zip(chunks[1:], later)
        self.got = dict(zip(map(str, chunks[0]), read_ones(*_args(chunks[0], labels, maildir))))

    def take(self, f: Path, stat: tuple[list[int], bool] | None, keep: bool) -> Read | None:
        """The file's mails as read ahead, if they were and it has not changed since (`stat`: its
        signature now; `keep`: whether the store keeps a row for it, else any reading stands)."""
        name = str(f)  # a Path's hash is worked out anew each time; its text is kept
        if name not in self.wanted:
            return None
        while name not in self.got and (part := next(self.pending, None)) is not None:
            self.got.update(zip(map(str, part[0]), part[1]))
        sig, read = self.got.pop(name, (None, None))
        return read if not keep or (stat is not None and sig == stat[0]) else None


def _args(files: list[Path], labels: dict[Path, str], maildir: bool) -> tuple[list[str], list[str], bool]:
    return [str(f) for f in files], [labels.get(f, str(f)) if labels else str(f) for f in files], maildir


def read_ones(paths: list[str], labels: list[str], maildir: bool) -> list[tuple[list[int] | None, Read | None]]:
    """(signature before the read, one_mail) of each file: a worker's part of ReadAhead."""
    out: list[tuple[list[int] | None, Read | None]] = []
    for path, label in zip(paths, labels):
        stat = signature(Path(path), maildir)
        try:
            out.append((stat[0] if stat is not None else None, one_mail(Path(path), label)))
        except InputError:
            out.append((None, None))
    return out


def real_paths(files: list[Path]) -> list[tuple[Path, str]]:
    """(file, os.path.realpath of it) of each file, in order, its directory's resolved once (a
    list: hashing a Path works out its parts anew each time). realpath looks at every
    component of every path (a maildir of 5,402 mails: 14% of its index). A file that is itself a
    symbolic link is resolved whole. Paths are split as strings: pathlib's parent and hash of each
    were a fifth of a warm run's index of a four-year maildir."""
    dirs: dict[str, str] = {}
    links: dict[str, set[str] | None] = {}  # each directory's entries that are links, from one listing
    listed = len(files) >= READ_AHEAD_FILES  # a few files (an mbox): a stat each, not their directory's listing
    out: list[tuple[Path, str]] = []
    for f in files:
        parent, name = os.path.split(str(f))
        if listed and parent not in links:
            links[parent] = _links_in(parent or ".")
        named = links[parent] if listed else ({name} if _is_link(f) else set())
        if named is None or name in named or name in ("", ".", ".."):
            out.append((f, os.path.realpath(f)))
            continue
        if (d := dirs.get(parent)) is None:
            d = dirs[parent] = os.path.realpath(parent or ".")
        out.append((f, os.path.join(d, name)))
    return out


def _is_link(f: Path) -> bool:
    try:
        return os.path.islink(f)
    except OSError:
        return True


def _links_in(d: str) -> set[str] | None:
    """The names of the directory's entries that are symbolic links (its listing knows, without a
    stat of each: a stat of each of a four-year maildir's files was a tenth of its warm run);
    None where it cannot be listed."""
    try:
        with os.scandir(d) as entries:
            return {e.name for e in entries if e.is_symlink()}
    except OSError:
        return None


def one_mail(f: Path, label: str) -> tuple[list[MailHead], list[bytes]] | None:
    """The mail of a file that holds one (a maildir's, a directory's) and the digest of its bytes,
    read with one open and one read; None for any other file (a gzip, an mbox, one over the mail
    limit or that cannot be opened), which store_index reads as any file. A maildir is thousands of
    such files, and is_gzip, scan_whole, index_file and with_digests opened each of them four times
    and read it three: 1.2 s to index a maildir of 5,402 mails, against 0.4 s for the same mbox."""
    try:
        with open(f, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return None
            fh.seek(0)
            kind, skip = probe(fh, label)  # what is not mail raises here as in index_file
            if kind != "single" or os.fstat(fh.fileno()).st_size - skip > limits().mail_bytes:
                return None
            fh.seek(skip)
            whole = fh.read()
    except OSError:  # the reading that store_index falls back to says what went wrong
        return None
    head = single_head(str(f), whole, skip, label)
    return ([head], [mail_digest(whole)]) if head is not None else ([], [])
