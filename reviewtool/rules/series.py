"""Series shape: completeness, numbering, length and cover letters."""

from __future__ import annotations

from collections import Counter

from ..model.subject import UNCLOSED
from .labels import counters_text
from .registry import Hit, Severity, rule


@rule("series-incomplete", family="series", severity="error",
      summary="Patches of the series did not arrive, or a cover letter came without its patches")
def series_incomplete(series, ctx):
    """Why: A maintainer cannot apply or review a series with holes: later patches usually depend
    on the missing ones, and b4 am exits 0 even when it warns "Thread incomplete!".
    A part resent (`[PATCH v8 2/2 RESEND]` alone) or rerolled in its own thread (`[PATCH v2 2/2]`
    in reply to v1's 2/2, no cover letter) is a warning: the rest may stand as posted before.
    Source: kernel submitting-patches ("numbered series"); netdev: "always resend the whole series".
    Bad:
      [PATCH net 1/3] ...   [PATCH net 3/3] ...      (2/3 never reached the list)
    Good:
      [PATCH net 0/3] ...  [PATCH net 1/3] ...  [PATCH net 2/3] ...  [PATCH net 3/3] ...
    """
    if not series.patches:
        yield Hit(f"only the cover letter arrived; none of its {series.expected} patch(es) is in the thread",
                  evidence=(series.cover.subject.raw,) if series.cover else (),
                  advice="If the patches are not in the list's archive either (they may be held in moderation), "
                         "resend the complete series.")
    elif series.missing and all(p.subject.resend for p in series.patches):
        # `[PATCH v8 2/2 RESEND]` alone: the author resent what was not applied yet.
        yield Hit(f"only patch {counters_text(series.received)} of {series.expected} was resent; missing "
                  f"{counters_text(series.missing)}", severity=Severity.WARNING,
                  evidence=tuple(p.subject.raw for p in series.patches),
                  advice="Fine if the others were applied: say so below `---`; otherwise resend the whole series.")
    elif series.missing and _rerolled_in_place(series):
        # `[PATCH v2 2/2]` in reply to v1's 2/2: one patch of the series replaced in its own thread
        yield Hit(f"only patch {counters_text(series.received)} of {series.expected} came as "
                  f"v{series.revision}, in reply to an earlier posting; missing {counters_text(series.missing)}",
                  severity=Severity.WARNING,
                  evidence=tuple(f"{p.subject.raw} (In-Reply-To: <{p.in_reply_to}>)" for p in series.patches),
                  advice="Fine if the others stand as posted before: say so below `---`; otherwise resend the "
                         "whole series as a new thread.")
    elif series.missing:
        yield Hit(f"received {len(series.patches)} of {series.expected} patches; missing "
                  f"{counters_text(series.missing)}",
                  evidence=tuple(p.subject.raw for p in series.patches),
                  advice="If the missing patches are not in the list's archive either, resend the whole series "
                         "as the next revision, not only the missing ones.")


def _rerolled_in_place(series) -> bool:
    """A later revision of some patches only, each sent in reply to a mail outside this revision
    (the earlier posting's thread) with no cover letter: the author replaced those patches where
    they were reviewed, and the rest stand as posted before."""
    own = {p.msgid for p in series.patches}
    return (series.revision >= 2 and series.cover is None
            and all(p.in_reply_to and p.in_reply_to not in own for p in series.patches))


@rule("series-numbering", family="series", severity="error",
      summary="Counters have gaps, duplicates, mixed totals or mixed versions")
def series_numbering(series, ctx):
    """Why: Tools (git am, b4, patchwork) order and group patches by their M/N counters and vN
    tags; inconsistent numbering makes them drop, misorder or mix up patches. A cover letter whose
    prefix alone is garbled or carries another version (`[PATCHv2 0/4]` over `[PATCH 1/4]`...) is a
    note: the patches still apply as one series, and the maintainers apply them. So are counters
    padded to different widths (`0/12` over `01/12`): the tools read the numbers.
    Source: kernel submitting-patches ("[PATCH v2 01/27]"), NIPA series grouping.
    Bad:
      [PATCH v2 1/3] ...   [PATCH v3 2/3] ...   [PATCH v2 3/4] ...
    Good:
      [PATCH v3 1/3] ...   [PATCH v3 2/3] ...   [PATCH v3 3/3] ...
    """
    mails = series.all_mails
    for p in mails:
        for problem in p.subject.problems:
            if "before PATCH" in problem or problem == UNCLOSED:
                continue  # a matter of the prefix's form, reported by subject-format
            yield Hit(f"garbled prefix: {problem}", patch=p.counter, evidence=(p.subject.raw,),
                      severity=Severity.INFO if p.is_cover else None,
                      advice="Regenerate the series with `git format-patch -v N --cover-letter` (or b4 send) "
                             "so every subject carries a clean `[PATCH vN M/N]` prefix.")
    totals = Counter(p.subject.expected for p in mails if p.subject.expected is not None)
    if len(totals) > 1:
        yield Hit("the patches disagree on the series length: " +
                  ", ".join(f"{n} say /{t}" for t, n in sorted(totals.items())),
                  evidence=tuple(p.subject.raw for p in mails),
                  advice="Resend the whole series with one total in every subject.")
    versions = Counter(p.subject.revision for p in mails)
    if len(versions) > 1:
        cover_only = series.cover is not None and len({p.subject.revision for p in series.patches}) == 1
        yield Hit("the mails of one posting carry different versions: " +
                  ", ".join(f"v{v} ({n})" for v, n in sorted(versions.items())),
                  evidence=tuple(p.subject.raw for p in mails), severity=Severity.INFO if cover_only else None,
                  advice="Every mail of a revision carries the same vN; resend the series as one revision.")
    if series.duplicates:
        yield Hit(f"counter(s) {counters_text(series.duplicates)} were posted more than once in v{series.revision}",
                  advice="Say which copy is meant, or resend the series as the next revision.")
    beyond = [p for p in series.patches if series.expected and p.counter > series.expected]
    for p in beyond:
        yield Hit(f"patch counter {p.counter} is beyond the announced total {series.expected}", patch=p.counter,
                  evidence=(p.subject.raw,), advice="Renumber the series so that M ≤ N in every [PATCH M/N].")
    widths = {len(p.subject.counter_text.split("/")[0]) for p in mails if p.subject.counter_text}
    if len(widths) > 1:
        # b4, git am and patchwork read the numbers, whatever their width: only a mail client's
        # sort by subject is off, so it is a note (a cover `0/12` over `01/12` was applied as sent)
        yield Hit("counters are zero-padded inconsistently", severity=Severity.INFO,
                  evidence=tuple(p.subject.raw for p in mails if p.subject.counter_text),
                  advice="Let git format-patch number the series; it pads M to the width of N.")


@rule("series-too-long", family="series", severity="warning",
      summary="More patches than the project accepts in one series")
def series_too_long(series, ctx):
    """Why: Long series are hard to review and block the tree; netdev rejects more than 15
    patches (its CI fails them) and asks for the work to be split into smaller series.
    Source: maintainer-netdev ("Dividing work into patches": at most 15); NIPA series_format.
    Bad:
      [PATCH net-next 00/22] ...
    Good:
      [PATCH net-next 00/12] part 1 ...   (the rest once part 1 is merged)
    """
    limit = ctx.setting("max_patches")
    if limit and series.expected > int(limit):
        yield Hit(f"the series has {series.expected} patches; the {ctx.profile.name} limit is {limit}",
                  evidence=(series.first.subject.raw,) if series.first else (),
                  advice=f"Split it into series of at most {limit} patches at dependency boundaries, "
                         "and post the next part once the first is merged.")


@rule("cover-letter-missing", family="series", severity="warning",
      summary="A series of three or more patches has no cover letter")
def cover_letter_missing(series, ctx):
    """Why: The cover letter explains the series as a whole and, on netdev, becomes the merge
    commit message; maintainers expect one from three patches on.
    Source: NIPA series_format (cover_letter); kernel submitting-patches.
    Bad:
      [PATCH net-next 1/3] ...  [PATCH net-next 2/3] ...  [PATCH net-next 3/3] ...
    Good:
      [PATCH net-next 0/3] what and why  +  1/3, 2/3, 3/3 in reply to it
    """
    minimum = int(ctx.setting("cover_letter_min", 3))
    if not series.has_cover and series.expected >= minimum:
        yield Hit(f"{series.expected} patches and no cover letter",
                  evidence=tuple(p.subject.raw for p in series.patches[:3]),
                  advice="Resend with `git format-patch --cover-letter` (or b4 send) and describe the series "
                         "in [PATCH 0/N].")


@rule("cover-letter-unneeded", family="series", severity="warning",
      summary="A single patch was sent with a cover letter: send the patch alone")
def cover_letter_unneeded(series, ctx):
    """Why: A one-patch series needs no cover letter; what it would say belongs in the commit
    message or below the `---` of the patch, and the cover letter's discussion gets lost.
    Source: maintainer-netdev; common maintainer request ("send this patch alone").
    Bad:
      [PATCH net 0/1] fix foo  +  [PATCH net 1/1] foo: fix bar
    Good:
      [PATCH net] foo: fix bar   (notes for reviewers below ---)
    """
    if series.has_cover and series.expected == 1:
        cover = series.cover
        yield Hit("a single patch sent with a cover letter", patch=0,
                  evidence=(cover.subject.raw,),
                  advice="Send this patch alone, without a cover letter: move anything reviewers need from "
                         "the cover letter into the commit message or below the patch's `---` line.")
