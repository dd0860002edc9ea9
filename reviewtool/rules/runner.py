"""Run the registered rules over a series with a context."""

from __future__ import annotations

from ..context import Context
from ..model.series import Series
from .registry import Finding, NotChecked, Rule, Severity, all_rules


def selected_rules(ctx: Context, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> list[Rule]:
    rules = [r for r in all_rules() if r.name not in ctx.profile.disabled]
    if select:
        rules = [r for r in rules if r.name in select or r.family in select]
    if ignore:
        rules = [r for r in rules if r.name not in ignore and r.family not in ignore]
    return rules


def run_rules(series: Series, ctx: Context, rules: list[Rule]) -> tuple[list[Finding], list[NotChecked]]:
    findings: list[Finding] = []
    not_checked: list[NotChecked] = []
    runnable = []
    for r in rules:
        missing = [n for n in r.needs if not ctx.has(n)]
        if missing:
            not_checked.append(NotChecked(r.name, "; ".join(ctx.why_not(n) for n in missing)))
        else:
            runnable.append(r)
    for r in runnable:
        if r.prefetch is not None:
            r.prefetch(series, ctx)
    # Rules that started queries run last, when their git processes are most likely done.
    for r in sorted(runnable, key=lambda r: r.prefetch is not None):
        for hit in r.check(series, ctx):
            # Looked up per hit: most rules find nothing, and the enum call was a tenth of this loop.
            severity = hit.severity or Severity(ctx.profile.severity.get(r.name, r.severity.value))
            findings.append(Finding(rule=r.name, severity=severity, patch=hit.patch,
                                    message=hit.message, evidence=tuple(hit.evidence), advice=hit.advice,
                                    commit=hit.commit))
    findings.sort(key=lambda f: (f.patch is not None, f.patch or 0, f.severity.rank, f.rule))
    return findings, not_checked
