"""Revisions: the version log of a vN posting, where it sits, review trailers carried from the
previous revision, and reposts that change a patch without a new version number."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ..model.series import Patch, Person, Series, Trailer
from ..model.subject import normalized_summary
from ..model.trailers import REVIEW_TRAILERS
from ..model.series import is_pull_request, same_person
from .labels import patch_label
from .registry import Hit, Severity, rule

# A version note that names a version: "v2:", "Changes in v3", "v1 -> v2", "Since v2:", "[v3]".
_VERSION_NOTE_RE = re.compile(
    r"^[^\S\n]*(?:[-*][^\S\n]*)?(?:\[?v\d+\]?\s*[:)\]]|v\d+\s*(?:->|-->|→|=>|\.\.|to|vs\.?|-)\s*v\d+\b|v\d+\s*$"
    r"|(?:changes|changelog|change\s+log|revision\s+history)\b[^\n]{0,20}?\bv\d+[^\S\n]*(?::[^\S\n]*)?$"
    r"|since\s+v\d+[^\S\n]*(?::[^\S\n]*)?$)",
    re.I | re.M)
# Looser, for "is there any log at all": also "Changes:", "Changes since the last version", "Changes from RFC",
# "Change since v1:", "v2 changes:", "Version 2 changes:", "v1...v2: <link>", "v1 link:", "Link to v1:".
_ANY_LOG_RE = re.compile(
    r"^[^\S\n]*(?:[-*][^\S\n]*)?(?:"
    r"(?:changes?|changelog|change\s+log)\b[^\n]{0,40}?(?::\s*$|\b(?:v\d+|version\s*\d+|rfc|previous|last|earlier)\b)"
    r"|updates?\s+(?:since|from|in|for|vs\.?)\b[^\n]{0,30}?\b(?:v\d+|version|previous|last|earlier)\b|updates?:\s*$"
    r"|(?:v|version\s*)\d+\s+(?:changes?|changelog|updates?|notes?)\b"
    r"|v\d+\s*(?:\.\.\.?|\u2026)\s*v\d+"
    r"|(?:v|version\s*)\d+\s+(?:link|posting|thread)\s*:"
    r"|link\s+to\s+(?:v\d+|the\s+(?:previous|last|earlier)\s+(?:version|revision|posting))\b)",
    re.I | re.M)
_DROP_NOTE_RE = re.compile(
    r"(?:drop|remov|omit|did\s*n[o']t\s+(?:carry|keep|add|pick)|not\s+(?:carried|kept|picked|added))\w*\b[^\n]{0,60}?"
    r"\b(?:tags?|trailers?|reviewed-by|acked-by|tested-by|r-b|a-b|t-b|reviews?|acks?)\b"
    r"|\b(?:tags?|trailers?|reviewed-by|acked-by|tested-by|r-b|a-b|t-b|reviews?|acks?)\b[^\n]{0,60}?"
    r"\b(?:dropped|removed|omitted|not\s+(?:carried|kept|picked|added))", re.I)


def cover_not_in_input(series: Series) -> bool:
    """Numbered patches that all answer one message the input lacks: their cover letter (git
    send-email threads every patch to it), which did not come along."""
    if series.cover is not None or series.expected < 2 or not series.patches:
        return False
    parents = {p.in_reply_to for p in series.patches}
    known = {p.msgid for p in series.all_mails} | {r.msgid for r in series.replies}
    return len(parents) == 1 and None not in parents and not parents & known


def has_version_log(text: str, *, strict: bool) -> bool:
    return bool(_VERSION_NOTE_RE.search(text) or (not strict and _ANY_LOG_RE.search(text)))


@rule("changelog-missing", family="revisions", severity="info",
      summary="A v2+ posting says nowhere what changed since the previous version")
def changelog_missing(series, ctx):
    """Why: Reviewers of vN need to know what changed since v(N-1) to review only the difference
    and to see that their comments were addressed; without a log they must diff the postings.
    A note: netdev, linux-wireless and linux-bluetooth maintainers apply v2+ postings without
    one every day (benchmarks/rule_table.txt: 2 of 21 netdev and 14 of 427 wireless postings
    applied as posted, against one verdict that raised it among other points). A warning when
    the input holds an earlier revision that got review comments: those reviewers need the log
    to see what became of what they asked.
    Source: kernel submitting-patches ("The canonical patch format"); maintainer-netdev ("Changes requested").
    Bad:
      [PATCH net-next v2 0/3] ...   (no "Changes in v2" anywhere)
    Good:
      ---
      v2: check the length before the copy (Jakub)
      v1: https://lore.kernel.org/r/20260101120000.1234-1-jane@example.org
    """
    if series.revision < 2 or series.first is None or is_pull_request(series):
        return
    if series.cover is None and (series.missing or cover_not_in_input(series)):
        return  # the log may be in a cover letter or patch that is not in the input
    # A partial reroll reuses mails of the previous revision: only this revision's mails count.
    mails = [m for m in series.all_mails if m.subject.revision == series.revision] or list(series.all_mails)
    texts = [t for m in mails for t in (m.notes, m.message if m.is_cover else "")]
    texts += ["\n".join(line for _, line in m.untrailered_lines()) for m in mails if not m.is_cover]  # above-cut has its own rule
    if any(has_version_log(t, strict=False) for t in texts):
        return
    where = mails[0]
    asked = _review_comment(series)
    said = (f"; v{asked[0]} got review comments ({asked[1]}: \"{asked[2]}\") that it should answer"
            if asked else "")
    yield Hit(f"v{series.revision} carries no change log: neither the cover letter nor the notes below "
              f"`---` say what changed since the previous version{said}", patch=where.counter,
              evidence=(where.subject.raw,) + ((f"{asked[1]} on v{asked[0]}: {asked[2]}",) if asked else ()),
              advice=f"Add a per-version log (\"v{series.revision}: ...\", one line per change, with a lore link "
                     "to the previous posting) to the cover letter, or below the `---` of a single patch.",
              severity=Severity.WARNING if asked else None)


def _review_comment(series: Series) -> tuple[int, str, str] | None:
    """(revision, who, first line) of the first review comment on an earlier revision in the input:
    a reply in words from someone other than its author. Reviewers who commented want to see what
    became of their comments; an earlier revision nobody answered needs no account."""
    for e in series.earlier:
        first = e.first
        for r in e.replies:
            if first is not None and (same_person(r.author, first.author) or same_person(r.author, first.sender)):
                continue
            trailer_lines = {t.line.strip() for t in r.trailers}
            words = [line.strip() for line in r.body.splitlines()
                     if len(line.strip()) > 15 and line.strip() not in trailer_lines and not line.startswith(">")]
            if words:
                return e.revision, str(r.author), words[0][:100]
    return None


@rule("changelog-above-cut", family="revisions", severity="warning",
      summary="Version notes sit in the commit message instead of below the `---` line")
def changelog_above_cut(series, ctx):
    """Why: Everything above `---` becomes the commit message in git history; "v2: fixed the
    typo" means nothing there. Notes for reviewers go below `---`, where git am drops them.
    Source: kernel submitting-patches ("The canonical patch format"); checkpatch COMMIT_LOG_VERSIONING.
    Bad:
      Signed-off-by: Jane Developer <jane@example.org>

      v2: check the length first
      ---
    Good:
      Signed-off-by: Jane Developer <jane@example.org>
      ---
      v2: check the length first
    """
    for p in series.patches:
        if p.subject.pull:
            continue
        hits = [(n, line) for n, line in p.untrailered_lines() if not line.startswith((" ", "\t", ">", "["))
                and _VERSION_NOTE_RE.match(line)]
        if hits:
            yield Hit(f"version notes above `---` (line {hits[0][0]}) would end up in the commit message",
                      patch=p.counter, evidence=tuple(line.strip() for _, line in hits[:3]),
                      advice="Move the version notes below the `---` line (after the trailers), where reviewers "
                             "see them and git am drops them.")


def match_patch(old: Patch, candidates: tuple[Patch, ...]) -> Patch | None:
    """The patch in `candidates` that is `old` in a later revision: same summary, else the only
    one with the same patch-id (a reworded summary), else a similar summary in the same position."""
    key = normalized_summary(old.subject)
    for p in candidates:
        if normalized_summary(p.subject) == key:
            return p
    same_id = [p for p in candidates if old.patch_id and p.patch_id == old.patch_id]
    if len(same_id) == 1:
        return same_id[0]
    for p in candidates:
        if p.counter == old.counter and SequenceMatcher(None, key, normalized_summary(p.subject)).ratio() >= 0.8:
            return p
    return None


def _given(prev: Series, counter: int, before) -> list[tuple[Trailer, str]]:
    """Review trailers given on `prev`'s mail `counter`: in the patch itself or in a reply by the
    person named, sent before `before` (a reply the author could not have seen does not count)."""
    out: list[tuple[Trailer, str]] = []
    mail = prev.patch(counter)
    if mail is not None:
        out += [(t, f"in {patch_label(prev, counter)} of v{prev.revision}") for t in mail.trailers
                if t.key in REVIEW_TRAILERS and t.person]
    for r in prev.replies:
        if r.counter != counter or (before and r.date and r.date > before):
            continue
        out += [(t, f"in a reply on v{prev.revision} <{r.msgid}>") for t in r.trailers
                if t.key in REVIEW_TRAILERS and t.person and same_person(t.person, r.author)]
    return out


def _carried(person: Person, mails: tuple[Patch, ...]) -> bool:
    return any(t.key in REVIEW_TRAILERS and same_person(t.person, person) for m in mails for t in m.trailers)


def _explained(person: Person, texts: list[str]) -> bool:
    """The notes say something about dropping tags, or name the reviewer: trust them."""
    names = [w for w in re.split(r"\s+", person.name) if len(w) >= 3]
    for text in texts:
        if _DROP_NOTE_RE.search(text) or (person.email and person.email.lower() in text.lower()):
            return True
        if any(re.search(rf"\b{re.escape(w)}\b", text, re.I) for w in names):
            return True
    return False


@rule("trailers-not-carried", family="revisions", severity="warning",
      summary="A Reviewed-by/Acked-by/Tested-by given on the previous revision is missing, with no note why")
def trailers_not_carried(series, ctx):
    """Why: Review tags received on the list belong in the next version unless the patch changed
    substantially; a silently dropped tag loses the reviewer's work and makes them review again,
    and a deliberately dropped one should say so below `---`.
    Source: kernel submitting-patches ("Reviewer's statement of oversight", "Using Reported-by:,
    Tested-by:, Reviewed-by:, Suggested-by: and Fixes:"); b4 trailers -u.
    Bad:
      v2 2/3 got "Reviewed-by: Simon Horman <horms@kernel.org>"; v3 2/3 has no such line and its
      notes do not mention it
    Good:
      v3 2/3 carries "Reviewed-by: Simon Horman <horms@kernel.org>", or says below `---`:
      "dropped Simon's Reviewed-by: the locking changed"
    """
    cover_texts = [series.cover.message, series.cover.notes] if series.cover else []
    yield from _dropped_from_absent_postings(series, cover_texts)
    if not series.earlier:
        return
    prev = series.earlier[-1]
    all_mails = series.all_mails
    for old in prev.patches:
        new = match_patch(old, series.patches)
        if new is None or new.msgid == old.msgid:  # a partial reroll reuses the earlier mail itself
            continue
        changed = bool(old.patch_id and new.patch_id and old.patch_id != new.patch_id)
        seen: set[tuple[str, str]] = set()  # one note per tag and person, however often it was given
        for t, where in _given(prev, old.counter, new.date):
            if _not_carried(t, new, cover_texts, seen):
                yield Hit(f"{t.name} from {t.person} given on v{prev.revision} is missing from v{series.revision}"
                          + (" (the patch changed since)" if changed else ""), patch=new.counter,
                          evidence=(t.line, where), advice=_add_advice(t))
    # Tags given to the whole series on the previous cover letter.
    if prev.cover is not None and series.cover is not None and series.cover.msgid != prev.cover.msgid:
        seen = set()
        for t, where in _given(prev, 0, series.cover.date):
            key = (t.key, (t.person.email or t.person.name).lower())
            if key in seen or _carried(t.person, all_mails) or _explained(t.person, cover_texts):
                continue
            seen.add(key)
            yield Hit(f"{t.name} from {t.person} given to the whole v{prev.revision} is missing from every "
                      f"v{series.revision} patch", patch=0, evidence=(t.line, where),
                      advice=f"Add `{t.name}: {t.person}` to the patches it covers, or say in the cover "
                             "letter why it was dropped.")


def _not_carried(t: Trailer, new: Patch, cover_texts: list[str], seen: set) -> bool:
    """`t`, given on another posting, is neither on `new` nor explained there (nor the author's
    own, nor reported already: `seen` collects one key per tag and person)."""
    key = (t.key, (t.person.email or t.person.name).lower())
    if key in seen or same_person(t.person, new.author) or _carried(t.person, (new,)) \
            or _explained(t.person, [new.notes] + cover_texts):
        return False
    seen.add(key)
    return True


def _add_advice(t: Trailer) -> str:
    return (f"Add `{t.name}: {t.person}` to the patch, or say below `---` why it was dropped "
            "(e.g. the patch changed substantially since it was given).")


def _dropped_from_absent_postings(series: Series, cover_texts: list[str]):
    """Review tags given in replies to other postings of these patches that the input lacks (a
    reviewer's answer to v2 2/2 beside v3 2/2, or to a first copy of a v2 posted twice), not carried
    into this posting. One given after this posting went out is for the next version to carry: b4
    does not collect it from the other posting."""
    seen: dict[int, set] = {}
    for r in series.earlier_replies:
        new = series.patch(r.counter)
        if new is None or r.in_reply_to == new.msgid:
            continue
        later = bool(new.date and r.date and r.date > new.date)
        for t in r.trailers:
            if t.key not in REVIEW_TRAILERS or not t.person or not same_person(t.person, r.author) \
                    or not _not_carried(t, new, cover_texts, seen.setdefault(new.counter, set())):
                continue
            label = f"{patch_label(series, new.counter)} of v{series.revision}"
            yield Hit(f"{t.name} from {t.person} given on another posting of {label} "
                      + ("(after this one was sent) is not on it" if later else "is missing from it"),
                      patch=new.counter,
                      evidence=(t.line, f"in a reply <{r.msgid}> to {r.subject!r} (<{r.in_reply_to}>, "
                                        "not in the input)"),
                      advice=(f"Carry `{t.name}: {t.person}` into the next version (b4 does not collect it from the "
                              "other posting)." if later else
                              _add_advice(t)))


def _diff_signature(p: Patch) -> tuple:
    return tuple((f.path, f.status, f.added_lines, f.removed_lines) for f in p.diff.files)


def _first_difference(old: Patch, new: Patch) -> str:
    old_lines = {(f.path, "+" + l) for f in old.diff.files for l in f.added_lines}
    old_lines |= {(f.path, "-" + l) for f in old.diff.files for l in f.removed_lines}
    new_lines = [(f.path, "+" + l) for f in new.diff.files for l in f.added_lines]
    new_lines += [(f.path, "-" + l) for f in new.diff.files for l in f.removed_lines]
    for path, line in new_lines:
        if (path, line) not in old_lines:
            return f"new in the later posting, {path}: {line[0]}{line[1:].strip()[:100]}"
    old_paths = {f.path for f in old.diff.files} ^ {f.path for f in new.diff.files}
    return f"files differ: {', '.join(sorted(old_paths))}" if old_paths else "lines were dropped from the diff"


def _prose(p: Patch) -> str:
    return " ".join(p.message.split())


def _repost_hit(series: Series, old: Patch, new: Patch) -> Hit | None:
    """A finding when `new` reposts `old` under the same version with its diff or description changed."""
    if not (old.diff.files and new.diff.files):
        return None
    changes = [what for what, differs in (("the diff", _diff_signature(old) != _diff_signature(new)),
                                          ("the commit message", _prose(old) != _prose(new))) if differs]
    if not changes:
        return None
    what = " and ".join(changes)
    label = patch_label(series, new.counter)
    message = (f"the RESEND of {label} changes {what}" if new.subject.resend else
               f"{label} was posted again as v{series.revision} with {what} changed")
    detail = _first_difference(old, new) if "the diff" in changes else "the description was reworded"
    return Hit(message, patch=new.counter,
               evidence=(f"earlier: {old.subject.raw} <{old.msgid}>", f"later: {new.subject.raw} <{new.msgid}>", detail),
               advice=f"Post the changed patch as v{series.revision + 1} with a note below `---` saying what "
                      "changed; keep RESEND for reposting an unchanged patch.")


# A RESEND that says what changed ("Resend to correct dt-bindings issues pointed out by Rob").
_RESEND_CHANGED_RES = (
    re.compile(r"\b(?:resen[dt]\w*|repost\w*)\b[^.\n]{0,30}?\b(?:to|for|after|with)\s+(?:correct|fix|address|update|"
               r"change|adjust|drop|add|remove|include|incorporate)\w*", re.I),
    re.compile(r"\b(?:correct|fix|address|updat|adjust|rework|incorporat)\w*\s+(?:\w+\s+){0,4}?(?:issues?|comments?|"
               r"feedback|review|problems?|warnings?|errors?|typos?|nits?|suggestions?)\s+(?:pointed\s+out|raised|"
               r"reported|noted|found|given|from|by)\b", re.I),
)


# ... but adding people or lists to the mail changes nothing in the patch ("Resend to add netdev to
# Cc, no changes", "Resending to include the maintainers").
_RESEND_RECIPIENTS_RE = re.compile(r"\b(?:add|adding|include|including|cc|ccing|to)\s+(?:\S+\s+){0,4}?(?:cc|to:|lists?|"
                                   r"maintainers?|reviewers?|recipients?|people|folks|netdev|linux-\S+|\S+@\S+)", re.I)
_NO_CHANGE_RE = re.compile(r"\bno\s+(?:code\s+|other\s+|functional\s+)?changes?\b|\bunchanged\b|\bas\s+is\b", re.I)


def _resend_says_changed(series: Series) -> tuple[Patch, str] | None:
    """(mail, sentence) where a RESEND posting says it changes something (a rebase alone does not,
    nor a resend that only adds recipients)."""
    for m in series.all_mails:
        if not m.subject.resend:
            continue
        texts = [m.message, m.notes] if m.is_cover else [m.notes]
        for text in texts:
            for line in text.splitlines():
                # A version log in a RESEND describes the version being resent, not the resend.
                if _NO_CHANGE_RE.search(line) or _RESEND_RECIPIENTS_RE.search(line):
                    continue
                if any(rx.search(line) for rx in _RESEND_CHANGED_RES):
                    return m, line.strip()
    return None


@rule("version-not-bumped", family="revisions", severity="warning",
      summary="A changed patch was reposted under the same version number (or as a RESEND)")
def version_not_bumped(series, ctx):
    """Why: Reviewers, patchwork and b4 tell postings apart by their vN: two different patches
    under one number mean a maintainer may apply the old one, and review comments land on the
    wrong copy. RESEND is for an unchanged patch only; any change makes a new version, also when the
    RESEND says so itself ("Resend to correct the issues pointed out by Rob").
    Source: kernel submitting-patches ("Don't get discouraged - or impatient", RESEND);
    maintainer-netdev ("Resending after review").
    Bad:
      [PATCH net 1/2] foo: fix bar      (Monday)
      [PATCH net 1/2] foo: fix bar      (Tuesday, with a changed hunk)
    Good:
      [PATCH net v2 1/2] foo: fix bar   (Tuesday, "v2: ..." below ---)
    """
    said = _resend_says_changed(series)
    if said is not None and not series.reposts:
        mail, line = said
        yield Hit(f"a RESEND that says it changed: {line!r}", patch=mail.counter, evidence=(mail.subject.raw, line),
                  advice=f"Post the changed series as v{series.revision + 1} with a change log (\"v{series.revision + 1}: "
                         "...\"); keep RESEND for reposting unchanged patches.")
    chains: dict[int, list[Patch]] = {}
    for old in series.reposts:
        chains.setdefault(old.counter, []).append(old)
    for counter, olds in sorted(chains.items()):
        latest = series.patch(counter)
        if latest is None or latest.is_cover:
            continue
        postings = olds + [latest]  # oldest first: compare each posting with the next
        for old, new in zip(postings, postings[1:]):
            hit = _repost_hit(series, old, new)
            if hit:
                yield hit
