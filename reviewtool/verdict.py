"""The summary verdict of a review: one status and the one next step a maintainer asks for first.

`series_verdict(series, findings, classification)` is a pure function of the review's results, so
`reviewtool check` and `reviewtool triage` reach the same verdict for the same series:

  incomplete      patches are missing (series-incomplete): nothing else can be judged yet
  wrong-tree      a patch or the whole series belongs in another tree (tree-mismatch on what
                  the diff or the history shows, fix-for-next-only-code, split-series), or one
                  patch touches files of several trees (patch-spans-trees); a
                  tree-mismatch that only raises a doubt the mail cannot settle does not decide
  needs-revision  a reply asked for changes or the author took the posting back
                  (context/replies/acts.py); else at least one error-level finding (the first one
                  decides the next step; a closed development tree comes first: nothing else
                  matters until it reopens)
  ready           no error-level finding: review the code and apply (an RFC: comment on it);
                  a tree doubt comes first in the next step, so the tree is settled before applying;
                  for lint (`for_author`), the step is the author's: send it, the tree first

Before all of these, a series the maintainers already settled in the thread (applied, changes
requested, deferred, rejected, superseded: settled_verdict.py) gets that status and its next step.

Each verdict carries the per-patch classification (kind, reasons, tree) for renderers and JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .context.classify.series import Classification, PatchClass
from .model.series import Series
from .rules.registry import Finding, Severity
from .settled_verdict import state_verdict

STATUSES = ("ready", "needs-revision", "wrong-tree", "incomplete", "applied", "changes-requested", "deferred",
            "rejected", "superseded")
WRONG_TREE_RULES = ("split-series", "patch-spans-trees", "fix-for-next-only-code", "tree-mismatch")  # in order
FIRST_ERRORS = ("net-next-closed",)  # errors that override the order of the findings


@dataclass(frozen=True)
class Verdict:
    status: str  # one of STATUSES
    next_step: str  # the one thing to do first
    decided_by: str | None  # the rule whose finding decided, None for ready
    patches: tuple[PatchClass, ...] = ()


def _step(f: Finding) -> str:
    return f.advice or f.message


def _is_doubt(f: Finding, classification: Classification | None) -> bool:
    """A tree finding that keeps the author's tree (see context/classify/series.py `doubt`): a
    tree-mismatch on a doubtful patch, or a split-series that rests on doubts alone (no patch is
    certain to belong elsewhere)."""
    if classification is None:
        return False
    if f.rule == "split-series":
        pcs = classification.patches
        return any(pc.doubtful for pc in pcs) and not any(pc.certain and pc.tree != pc.declared for pc in pcs)
    pc = classification.of(f.patch) if f.patch is not None else None
    return pc is not None and pc.doubtful


def request_step(act: dict) -> str:
    """The next step when a reply asked for changes or the author took the posting back
    (context/replies/acts.py)."""
    if act["code"] == "withdrawn":
        return f'Wait for the author\'s next posting: {act["by"]} took this one back ("{act["evidence"]}").'
    if act["code"] == "will-revise":
        return f'Wait for the author\'s next posting: {act["by"]} will revise it ("{act["evidence"]}").'
    if act["code"] == "rejected":
        return f'Nothing to do: {act["by"]} will not apply it ("{act["evidence"]}").'
    return f'Wait for a new revision: {act["by"]} asked for changes ("{act["evidence"]}").'


def series_verdict(series: Series, findings: Iterable[Finding],
                   classification: Classification | None, state: dict | None = None,
                   requests: Iterable[dict] = (), rfc_lifted: dict | None = None, *,
                   for_author: bool = False) -> Verdict:
    """The verdict for one reviewed series (see the module docstring); `state`: what the
    maintainers' replies settled (context/reply_state.state_data), if anything; `requests`: what
    replies ask of the author (context/replies/acts.py); `rfc_lifted`: the reply that took the RFC
    tag off, if any (the posting is then for applying); `for_author`: the steps are the author's,
    before sending (lint), not the applier's."""
    findings = list(findings)
    rfc = series.is_rfc and rfc_lifted is None
    patches = classification.patches if classification is not None else ()
    settled = state_verdict(state)
    if settled is not None:
        return Verdict(settled[0], settled[1], state.get("form"), patches)
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    if series.missing or not series.patches or "series-incomplete" in by_rule:
        f = by_rule.get("series-incomplete", [None])[0]
        step = _step(f) if f else "Ask for the missing patches " + ", ".join(map(str, series.missing)) + "."
        return Verdict("incomplete", step, "series-incomplete" if f else None, patches)
    # the series' doubt first: its advice says how to split; a patch's doubt says what to settle
    doubts = [f for name in ("split-series", "tree-mismatch") for f in by_rule.get(name, [])
              if f.severity is not Severity.INFO and _is_doubt(f, classification)]
    for name in ("split-series", "tree-mismatch"):
        if name in by_rule:
            by_rule[name] = [f for f in by_rule[name] if f not in doubts]
            if not by_rule[name]:
                del by_rule[name]
    for name in WRONG_TREE_RULES:
        # a note (info) is not an objection: a driver-tree split hint never makes a series wrong-tree
        hits = [f for f in by_rule.get(name, ()) if f.severity is not Severity.INFO]
        if hits:
            if name == "tree-mismatch" and len(hits) == len(series.patches) and classification is not None:
                trees = {pc.tree for pc in patches}
                if len(trees) == 1:
                    tree = trees.pop()
                    send = "Send" if for_author else "Resend"
                    return Verdict("wrong-tree", f"{send} the whole series as [PATCH {tree}]: {hits[0].message}.",
                                   name, patches)
            return Verdict("wrong-tree", _step(hits[0]), name, patches)
    requests = list(requests)
    if requests:  # a reviewer's request or the author's withdrawal outranks what the rules found
        return Verdict("needs-revision", request_step(requests[0]), "reply", patches)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        first = next((f for name in FIRST_ERRORS for f in errors if f.rule == name), errors[0])
        return Verdict("needs-revision", _step(first), first.rule, patches)
    trees = sorted({pc.tree for pc in patches if pc.tree})
    where = f" to {trees[0]}" if len(trees) == 1 else ""
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    closed = by_rule.get("net-next-closed")
    if for_author:
        return _author_ready(where, warnings, closed[0] if closed else (doubts[0] if doubts else None), rfc,
                             patches)
    if closed and not rfc:  # a warning here: the tree was inferred, not named
        return Verdict("ready", f"Check the tree before applying: {closed[0].message}. {closed[0].advice}",
                       "net-next-closed", patches)
    if doubts and not rfc:
        return Verdict("ready", f"Settle the tree before applying: {doubts[0].message}. {doubts[0].advice}",
                       "tree-mismatch", patches)
    extra = f"; mention the {warnings} warning{'s' if warnings != 1 else ''} in the review" if warnings else ""
    if rfc:  # ready for review, not for applying
        return Verdict("ready", f"Nothing blocks it: comment on the approach; as an RFC it is not applied, the "
                                f"author reposts it as [PATCH{' ' + trees[0] if len(trees) == 1 else ''}]{extra}.",
                       None, patches)
    if rfc_lifted is not None and series.is_rfc:
        extra += f' (sent as an RFC; {rfc_lifted["by"]}: "{rfc_lifted["evidence"]}")'
    return Verdict("ready", f"Nothing blocks it: review the code and apply it{where}{extra}.", None, patches)


def _author_ready(where: str, warnings: int, tree_first: Finding | None, rfc: bool,
                  patches: tuple[PatchClass, ...]) -> Verdict:
    """No error: the author's next step before sending (lint), the tree first when it is in doubt."""
    if tree_first is not None and not rfc:
        return Verdict("ready", f"Check the tree before sending: {tree_first.message}. {tree_first.advice}",
                       tree_first.rule, patches)
    extra = f"; look at the {warnings} warning{'s' if warnings != 1 else ''} first" if warnings else ""
    what = "it as an RFC" if rfc else "it"
    return Verdict("ready", f"Nothing blocks sending {what}{where}{extra}.", None, patches)
