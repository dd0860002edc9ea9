"""Tree policy across the series: mixed fix and development work, and the merge window."""

from __future__ import annotations

from datetime import timezone

from ..context.classify.series import Classification
from .labels import counters_text
from .registry import Hit, Severity, rule
from .tree import classification


def _plural(counters: list[int]) -> str:
    return ("patch " if len(counters) == 1 else "patches ") + counters_text(counters)


def _group_advice(cls: Classification, fixes: list[int], dev: list[int], cover_min: int, closed: str) -> str:
    """Which patches go where, in which order, and that a lone fix goes alone."""
    ft, dt = cls.fixes_tree, cls.development_tree
    if len(fixes) == 1:
        first = (f"Send {_plural(fixes)} alone to {ft} as a single patch, [PATCH {ft}], with no cover letter")
    else:
        cover = " with a cover letter" if len(fixes) >= cover_min else ""
        first = f"Send {_plural(fixes)} to {ft} as their own series, [PATCH {ft} 1/{len(fixes)}]{cover}"
    if len(dev) == 1:
        then = f"send {_plural(dev)} to {dt} as a single patch, [PATCH {dt}]"
    else:
        then = f"send {_plural(dev)} to {dt} as a new series, [PATCH {dt} 1/{len(dev)}]"
    return (f"{first}. Then, once {ft} has been merged into {dt} (the {dt} work may build on the fix), "
            f"{then}{closed}.")


@rule("split-series", family="tree", severity="warning",
      summary="The series mixes fixes and new work: split it, fixes first")
def split_series(series, ctx):
    """Why: Fixes and new work travel through different trees: fixes reach the current release and
    stable within days, new work waits for the next merge window. A series carrying both is
    either delayed or half-rejected; maintainers ask for the fixes to be sent alone first.
    A patch whose files another subsystem's profile claims (a wireless driver patch in a tree-wide
    series posted to another subsystem) is a note: its maintainers apply it from its own posting.
    Source: kernel-rules SPLIT-FIX-FROM-FEATURE; maintainer-netdev ("git trees and patch flow").
    Bad:
      [PATCH net 0/3]  1/3 fix (Fixes:)  2/3 fix (Fixes:)  3/3 new module parameter
    Good:
      [PATCH net 0/2]  1/2, 2/2 fixes      then, after net is merged into net-next:
      [PATCH net-next] new module parameter
    """
    yield from _foreign(series, ctx)
    cls = classification(series, ctx)
    declared = cls.declared
    if cls.fixes_tree is None or cls.development_tree is None:
        return
    if declared is not None and declared.kind == "development":
        yield from _fix_inside_development_series(series, cls, ctx)
    fixes = [pc.counter for pc in cls.patches if pc.tree == cls.fixes_tree]
    dev = [pc.counter for pc in cls.patches if pc.tree == cls.development_tree]
    if declared is None:
        # No tree named: split when both sides are plain, a Fixes tag on one and new work in the diff on the other.
        tagged = [pc for pc in cls.patches if pc.counter in fixes and pc.kind == "fix" and pc.fixes]
        new_work = [pc for pc in cls.patches if pc.counter in dev and pc.basis == "diff"]
        if not tagged or not new_work:
            return
    else:
        misplaced = [pc for pc in cls.patches if pc.certain and pc.tree != declared.name]
        staying = fixes if declared.kind == "fixes" else dev
        if not fixes or not dev or not misplaced or not staying:
            return
    evidence = []
    for pc in cls.patches:
        p = series.patch(pc.counter)
        evidence.append(f"{pc.counter}/{series.expected} {pc.kind} -> {pc.tree}: "
                        f"{p.subject.summary if p else ''} ({pc.summary})")
    closed = ""
    state = _window(series, ctx)
    dev_spec = ctx.profile.tree(cls.development_tree)
    if state is not None and state.status == "closed" and dev_spec is not None and dev_spec.closed_in_merge_window:
        closed = f", after {dev_spec.name} reopens ({state.closes_at.tag})"
    yield Hit(f"the series mixes fixes for {cls.fixes_tree} ({_plural(fixes)}) with {cls.development_tree} work "
              f"({_plural(dev)})", evidence=tuple(evidence),
              advice=_group_advice(cls, fixes, dev, int(ctx.setting("cover_letter_min", 3)), closed))


def _fix_inside_development_series(series, cls: Classification, ctx):
    """A development series carrying a Fixes-tagged fix for a failure users meet (tree-mismatch's
    doubt) beside its new work: the fix may belong in the fixes tree, alone and first."""
    fixes = [pc.counter for pc in cls.patches if pc.doubtful and pc.fixes and pc.doubt_tree == cls.fixes_tree]
    dev = [pc.counter for pc in cls.patches if pc.counter not in fixes and pc.tree == cls.development_tree]
    if not fixes or not dev:
        return
    ft, dt = cls.fixes_tree, cls.development_tree
    group = _group_advice(cls, fixes, dev, int(ctx.setting("cover_letter_min", 3)), "")
    yield Hit(f"{_plural(fixes)} of this {dt} series {'fixes' if len(fixes) == 1 else 'fix'} a failure users meet "
              f"and {'carries' if len(fixes) == 1 else 'carry'} a Fixes tag, beside {dt} work ({_plural(dev)}): "
              f"{ft} material if the commit {'it fixes is' if len(fixes) == 1 else 'they fix are'} in {ft}",
              severity=Severity.WARNING,
              evidence=tuple(e for c in fixes for e in cls.of(c).doubt_evidence[:2]),
              advice=f"If the commit {_plural(fixes)} {'fixes is' if len(fixes) == 1 else 'fix are'} in {ft}: "
                     f"{group[0].lower()}{group[1:]} If it is only in {dt}, keep the series and say so below `---`.")


def _foreign(series, ctx):
    own = [p.counter for p in series.patches if p.counter not in ctx.foreign]
    if not ctx.foreign or not own:
        return
    for counter, (name, lists, path) in sorted(ctx.foreign.items()):
        p = series.patch(counter)
        to = f" to {lists[0]}" if lists else ""
        yield Hit(f"patch {counter}/{series.expected} touches only {name}'s files ({path}); the rest of the series "
                  f"is {ctx.profile.name}'s", patch=counter, severity=Severity.INFO,
                  evidence=(p.subject.raw if p else "", path),
                  advice=f"Send it on its own{to}, so the {name} maintainers apply it from their queue; the series "
                         "can say it depends on it (or follows it).")


def _window(series, ctx):
    first = series.first
    if ctx.calendar is None or first is None or first.date is None:
        return None
    return ctx.calendar.state_at(first.date)


@rule("net-next-closed", family="tree", severity="error",
      summary="New work was posted for a development tree while it was closed (merge window, announced break)")
def net_next_closed(series, ctx):
    """Why: During the two-week merge window (from the vX.Y release to vX.(Y+1)-rc1) net-next and
    the trees that follow it take no new work; postings are dropped and must be resent once the
    tree reopens. Closures announced besides the window (netdev's end-of-year break) are data in
    the profile. A posting for a queue that feeds the closed tree ([PATCH iwl-next]) is not refused:
    its maintainers collect it and send it on after the window (unless the profile says the queue
    closes too). The tree a patch belongs in decides, not only the one it names: a clean-up sent as
    [PATCH net], or an untagged patch that is new work, is net-next material while net-next is
    closed. A posting that names the closed tree is an error; one whose tree is inferred from what
    it reads as is a warning that quotes why. RFCs are welcome at any time.
    Source: maintainer-netdev ("Development cycle"); NIPA form letter net-next-closed.
    Bad:
      [PATCH net-next] ...   (Date: the day after a vX.Y release)
      [PATCH] net: foo: use a read-write lock for the list   (untagged, the same day)
    Good:
      [RFC PATCH net-next] ...   (or the same patch after vX.(Y+1)-rc1)
      [PATCH iwl-next] ...   (a queue that feeds net-next: its maintainers collect it meanwhile)
    """
    first = series.first
    if first is None or first.date is None or series.is_rfc or any(p.subject.rfc for p in series.all_mails):
        return
    cls = classification(series, ctx)
    spec = ctx.profile.tree(cls.development_tree)
    if spec is None or not spec.closed_in_merge_window:
        return
    queue = ctx.profile.series_queue(series)
    if queue is not None and not queue.closed_in_merge_window:
        return  # [PATCH iwl-next]: its maintainers collect it and send it on once the window is over
    declared = cls.declared
    if declared is not None and declared.name == spec.name:
        affected = None  # the whole posting is for the closed tree
    else:
        # Untagged: what reads as new work; for the fixes tree: what the diff or words decide is not a fix.
        affected = [pc for pc in cls.patches if pc.tree == spec.name and pc.kind == "development"
                    and (declared is None or pc.certain)]
        if not affected:
            return
    closed = _closed(series, ctx, spec)
    if closed is None:
        return
    why, reopen = closed
    when = first.date.astimezone(timezone.utc)
    fixes = ctx.profile.tree_for("fixes", spec)
    if affected is None:
        message = f"{spec.name} was closed when this was posted ({when:%Y-%m-%d %H:%M} UTC): {why}"
        evidence = (f"Date: {first.date.isoformat()}", first.subject.raw)
    else:
        counters = [pc.counter for pc in affected]
        message = (f"{_plural(counters)} {'is' if len(counters) == 1 else 'are'} {spec.name} material "
                   f"({affected[0].summary}), and {spec.name} was closed when this was posted "
                   f"({when:%Y-%m-%d %H:%M} UTC): {why}")
        evidence = (f"Date: {first.date.isoformat()}",) + tuple(series.patch(c).subject.raw for c in counters[:3])
    # Named for the closed tree, it is refused on sight; inferred from what the patch reads as, a warning.
    yield Hit(message, evidence=evidence, severity=None if affected is None else Severity.WARNING,
              advice=f"Repost {'it ' if affected is None else ''}as [PATCH {spec.name}] {reopen}, once {spec.name} "
                     "reopens (it is announced on the list); post it as RFC meanwhile if you want review now"
                     + (f"; fixes for released code go to {fixes.name}." if fixes else "."))


def _closed(series, ctx, spec) -> tuple[str, str] | None:
    """(why the tree was closed, when to repost) at the posting's date, or None when it was open."""
    when = series.first.date
    closure = ctx.profile.closure_at(spec.name, when)
    if closure is not None:
        return (f"{closure.why}, {closure.first_day} to {closure.last_day} (announced)",
                f"after {closure.last_day}")
    state = _window(series, ctx)
    if state is None or state.status != "closed":
        return None
    opened, closes = state.opened_by, state.closes_at
    return (f"the merge window for v{state.window_version} runs from {opened.tag} ({opened.day}) to "
            f"{closes.tag} ({closes.day})", f"after {closes.tag}")
