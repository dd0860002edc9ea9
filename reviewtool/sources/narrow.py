"""Narrow a large archive to the threads a review can need, before parsing any body.

A list archive of 100 MB holds thousands of threads; parsing every mail to review one series
costs seconds and hundreds of megabytes. The header index (one streaming pass, no email objects)
finds the thread to review — the one holding --msgid, else the one with the newest patch — and
every thread that shares a patch summary or change-id with it (its other revisions and
reposts). Only those mails are parsed; sources.threads then decides exactly as it would have on
the whole file, because the threads left out share nothing with the chosen one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..limits import limits
from ..mail.subject import normalized_summary, parse_subject
from .index import MailHead, index_file, raw_mail
from .files import RawMail
from .unionfind import DisjointSets
from .unthreaded import join_unthreaded, unthreaded_marker

NARROW_FROM_BYTES = 4 * 1024 * 1024  # smaller files are parsed whole: simpler and as fast


def _threads(heads: list[MailHead]) -> list[list[MailHead]]:
    sets = DisjointSets()
    for h in heads:
        sets.find(h.msgid)
        for p in h.parents:
            sets.union(h.msgid, p)
    groups: dict[str, list[MailHead]] = {}
    for h in heads:
        groups.setdefault(sets.find(h.msgid), []).append(h)
    return list(groups.values())


def _joined(threads: list[list[MailHead]]) -> list[list[MailHead]]:
    """Patches sent without threading joined into their series, as sources.threads joins them.
    The index has no bodies, so any numbered mail that is not a reply counts here (patchwork's
    `[net,v2,1/2]` carries no PATCH word): joining more than check will only keeps more mail."""
    def numbered(t: list[MailHead]) -> list[tuple[MailHead, object]]:
        return [(h, s) for h in t if not (s := parse_subject(h.subject)).reply
                and (s.is_patch or s.counter is not None)]

    with_patches = [t for t in threads if numbered(t)]
    groups = join_unthreaded(
        with_patches,
        lambda t: unthreaded_marker((h.sender, s) for h, s in numbered(t)),
        lambda t: {s.counter for _, s in numbered(t)},
        lambda t: max(h.date or 0.0 for h, _ in numbered(t)))
    return [[h for t in g for h in t] for g in groups] + [t for t in threads if not numbered(t)]


def _patch_heads(thread: list[MailHead]) -> list[MailHead]:
    out = []
    for h in thread:
        s = parse_subject(h.subject)
        if s.is_patch and not s.reply:
            out.append(h)
    return out


def _keys(thread: list[MailHead]) -> set[str]:
    keys = {"s:" + normalized_summary(parse_subject(h.subject)) for h in _patch_heads(thread)}
    keys |= {"c:" + h.change_id for h in thread if h.change_id}
    return keys


@dataclass(frozen=True)
class Narrowed:
    raws: list[RawMail]  # the mails worth parsing, in file order
    outside: list[tuple[str, tuple[str, ...], str, float]]  # the headers of the mails left out


def narrowed_raws(path: Path, msgid: str | None) -> list[RawMail] | None:
    """The raw mails worth parsing, in file order; None when narrowing does not apply (small or
    compressed input, or nothing recognisable as a patch: the whole-file path then explains)."""
    got = narrow(path, msgid)
    return got.raws if got is not None else None


def narrow(path: Path, msgid: str | None) -> Narrowed | None:
    """narrowed_raws, with the headers of the mails left out (to say which series were not
    reviewed: sources/threads.series_outside)."""
    try:
        if not path.is_file() or path.stat().st_size < NARROW_FROM_BYTES:
            return None
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return None
    except OSError:
        return None
    cap = limits().input_bytes
    if path.stat().st_size > cap:  # as the whole-file read refuses it (files._read_bytes)
        raise InputError(f"{path}: {path.stat().st_size} bytes is over the input limit of {cap} bytes "
                         "(REVIEWTOOL_MAX_INPUT_MB)")
    heads = list(index_file(path))
    threads = _joined(_threads(heads))
    if msgid:
        chosen = next((t for t in threads if any(h.msgid == msgid for h in t)), None)
    else:
        candidates = [t for t in threads if _patch_heads(t)]
        chosen = max(candidates, key=lambda t: (max(h.date or 0.0 for h in _patch_heads(t)),
                                                max(parse_subject(h.subject).revision for h in _patch_heads(t))),
                     default=None)
    if chosen is None:
        return None
    keys = _keys(chosen)
    keep = [t for t in threads if t is chosen or _keys(t) & keys]
    kept = {id(h) for t in keep for h in t}
    refs = sorted((h.ref for t in keep for h in t), key=lambda r: r.offset)
    big = limits().mail_bytes
    with open(path, "rb") as fh:  # a mail over the mail limit is never read: parse_mail refuses it by its size
        raws = [raw_mail(ref, fh) if ref.length <= big else RawMail(b"", ref.origin, ref.format_patch, unread=ref.length)
                for ref in refs]
    return Narrowed(raws, [(h.msgid, h.parents, h.subject, h.date or 0.0) for h in heads if id(h) not in kept])
