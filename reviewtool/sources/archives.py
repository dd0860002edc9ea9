"""Every mail of an archive input, in the order it holds them: an mbox or a single mail (gzip of
either, unpacked to a scratch file no further than its bound), a maildir or a directory of mail
files, a public-inbox inbox (or a mirror of one) read in place. The header index of each:
sources/index.py for files, sources/inbox.py for inboxes."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import InputError
from .inbox import index_inbox, is_inbox
from .index import MailHead, index_file
from .input_files import gzip_cut, gzip_note, is_gzip, mail_files, unpack_gzip
from .segments import SegmentScan


def index_inputs(paths: list[Path], scratch: Path, skipped: list[str] | None = None,
                 labels: dict[Path, str] | None = None, segmented: SegmentScan | None = None,
                 limited: list[str] | None = None) -> Iterator[MailHead]:
    """Every mail of every input, streaming; gzip files are unpacked into `scratch` first (no
    further than their bound: the line saying so goes to `limited`). In a directory, a file that
    is not mail (a README, a quilt `series`) is skipped and named in `skipped`; a file given by
    name must be mail. `labels` names inputs that are scratch files (fetched threads) in messages."""
    for p in paths:
        if is_inbox(p):  # a public-inbox (or a mirror of one), read in place
            yield from index_inbox(p, (labels or {}).get(p, str(p)))
            continue
        for f in mail_files(p):
            label = (labels or {}).get(f, str(f))
            try:
                if is_gzip(f):
                    target = unpack_gzip(f, scratch)
                    cut = gzip_cut(f, target)
                    if cut is not None and limited is not None:
                        limited.append(gzip_note(label, cut))
                    yield from index_file(target, label, segmented, cut)
                else:
                    yield from index_file(f, label, segmented)
            except InputError as exc:
                if f == p:
                    raise
                if skipped is not None:
                    skipped.append(exc.one_line())
