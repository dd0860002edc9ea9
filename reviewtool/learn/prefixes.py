"""A summary prefix the list requires (`wifi:` on linux-wireless, `Bluetooth:`), and since when.

Each applied patch is a row: the month it was posted, its leading `subsys:` prefixes as posted
and as committed (the subject the maintainers' reply lists for its commit, when it lists one),
and its files. The candidate is the first prefix of most rows, over three areas or more (a
driver's own prefix is not the list's), and of more than half the applied patches on its paths
from the month it took hold, those without it included (intel-wired-lan's `ice:` starts a third,
beside igc:, i40e:, iavf: ...: a driver's, however many areas follow it); and not one whose
patches lie, nine in ten, in one directory below the project's home (drivers/net/ethernet/intel/ice/). Month by month, on the profile's paths where applied
commits carry it:

- `since`: the first month from which four in five commits and half the postings carry it;
- `noted_since`: the first month from which half the commits do (the maintainers added it when
  applying before posters wrote it), when earlier;
- `exempt`: first prefixes of commits without it that never appear beside it (`dt-bindings:`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from .counts import month, share
from .learned_profile import LearnedProfile
from .projects import Project
from .trees import home_of

MIN_PATCHES = 10
MONTH_MIN = 5  # a month with fewer applied patches says nothing of a prefix's hold
AREAS_MIN = 3
HELD = 0.8  # the commits' share from the month it took hold (four in five)
POSTED = 0.5  # ... and the postings' share (most posters write it)
NOTED = 0.5  # the commits' share from the month the maintainers began to add it
EXEMPT_MIN = 2


def leading(summary: str) -> list[str]:
    from ..mail.subject import leading_prefixes  # the rules' own reading of `subsys:` prefixes

    return leading_prefixes(summary)


def summary_of(subject: str) -> str:
    from ..mail.subject import parse_subject

    return parse_subject(subject).summary


@dataclass(frozen=True)
class Row:
    month: str
    posted: tuple[str, ...]
    committed: tuple[str, ...] | None  # None: the reply lists no commit subject
    files: tuple[str, ...]

    @property
    def final(self) -> tuple[str, ...]:
        """The prefixes the patch ended with: as committed when known, else as posted."""
        return self.committed if self.committed is not None else self.posted

    def touches(self, path: str) -> bool:
        return any(f == path or f.startswith(path) for f in self.files)


def _rows(project: Project) -> list[Row]:
    out = []
    for p in project.postings:
        by_counter = {m.counter: m for m in p.patches}
        for counter, applied in p.applied.items():
            if counter in by_counter:
                committed = tuple(leading(applied.commit_subject)) if applied.commit_subject else None
                out.append(Row(month(p.date), tuple(leading(summary_of(by_counter[counter].subject))), committed,
                               p.files.get(counter, ())))
    return out


def _written(prefix: str, project: Project) -> str:
    """The prefix as posters write it (`Bluetooth:`): the rule compares it in any case."""
    forms = Counter(word for p in project.postings for m in p.patches
                    for word in summary_of(m.subject).split()[:1] if word.lower() == prefix)
    return forms.most_common(1)[0][0] if forms else prefix


@dataclass(frozen=True)
class Month:
    patches: int
    posted: int  # patches posted with the prefix
    known: int  # patches whose commit subject the reply lists
    committed: int  # ... committed with it

    @property
    def committed_share(self) -> float:
        return self.committed / self.known if self.known else self.posted / self.patches

    @property
    def posted_share(self) -> float:
        return self.posted / self.patches

    def text(self, name: str) -> str:
        return f"{name}: {self.posted}/{self.patches} posted" + (
            f", {self.committed}/{self.known} committed" if self.known else "")


def _months(rows: list[Row], prefix: str) -> dict[str, Month]:
    out = {}
    for m in sorted({r.month for r in rows}):
        got = [r for r in rows if r.month == m]
        known = [r for r in got if r.committed is not None]
        out[m] = Month(len(got), sum(prefix in r.posted for r in got), len(known),
                       sum(prefix in r.committed for r in known))
    return {m: s for m, s in out.items() if s.patches >= MONTH_MIN}


def _first_holding(months: dict[str, Month], test) -> str | None:
    names = list(months)
    return next((m for i, m in enumerate(names) if all(test(months[n]) for n in names[i:])), None)


def learn_prefixes(lp: LearnedProfile, project: Project) -> None:
    rows = _rows(project)
    firsts = Counter(r.final[0] for r in rows if r.final)
    if len(rows) < MIN_PATCHES or not firsts:
        lp.left_out.append(f"a required prefix: {len(rows)} applied patches, fewer than {MIN_PATCHES}")
        return
    prefix, _ = firsts.most_common(1)[0]
    areas = {r.final[1] for r in rows if len(r.final) > 1 and r.final[0] == prefix}
    if len(areas) < AREAS_MIN:
        lp.left_out.append(f"a required prefix: '{prefix}' leads most subjects but names one area "
                           f"({', '.join(sorted(areas)) or 'none after it'}), not the list's")
        return
    own = home_of(Counter(f for r in rows if prefix in r.final for f in r.files))
    if own.startswith(project.home) and len(own) > len(project.home):
        lp.left_out.append(f"a required prefix: '{prefix}' patches lie under {own}, one part of where the project's "
                           f"go ({project.home or 'everywhere'}): a driver's or an area's own")
        return
    paths = [x for x in lp.paths if any(r.touches(x) and prefix in r.final for r in rows)]
    never = [x for x in lp.paths if x not in paths and any(r.touches(x) for r in rows)]
    unknown = [x for x in lp.paths if x not in paths and x not in never]
    in_paths = [r for r in rows if any(r.touches(x) for x in paths)]
    beside = {x for r in in_paths if prefix in r.final for x in r.final}
    lacking = Counter(r.final[0] for r in in_paths if r.final and prefix not in r.final)
    exempt = sorted(x for x, n in lacking.items() if n >= EXEMPT_MIN and x not in beside)
    scope = [r for r in in_paths if not (r.final and r.final[0] in exempt)]
    months = _months(scope, prefix)
    monthly = "(" + ", ".join(s.text(m) for m, s in months.items()) + ")"
    since = _first_holding(months, lambda s: s.committed_share >= HELD and s.posted_share >= POSTED)
    if since is None:
        lp.left_out.append(f"a required prefix: '{prefix}' never held in {HELD:.0%} of the commits and "
                           f"{POSTED:.0%} of the postings through the end of the archive {monthly}")
        return
    held = [r for r in in_paths if r.month >= since]
    carry = sum(1 for r in held if prefix in r.final)
    if carry * 2 <= len(held):
        lp.left_out.append(f"a required prefix: '{prefix}' starts {share(carry, len(held))} applied patches since "
                           f"{since} where it is used, not most: a driver's or an area's own "
                           f"({len(exempt)} other first prefixes beside it)")
        return
    noted = _first_holding(months, lambda s: s.committed_share >= NOTED)
    entry = {"prefix": _written(prefix, project), "since": _first_day(since)}
    after = [r for r in scope if r.month >= since]
    known = [r for r in after if r.committed is not None]
    why = (f"{share(sum(prefix in r.posted for r in after), len(after))} applied patches since {since} start with "
           f"'{prefix}' as posted, " + (f"{share(sum(prefix in r.committed for r in known), len(known))} as committed"
                                        if known else "their commits not named")
           + f"; it took hold in {since}" + (" (the archive's first month: it may be older)"
                                             if since == min(months) else ""))
    if noted is not None and noted < since:
        entry["noted_since"] = _first_day(noted)
        why += f"; from {noted} the maintainers added it when applying"
    why += "; month by month " + monthly
    if exempt:
        entry["exempt"] = exempt
        why += f"; not on {', '.join(exempt)} patches"
    if paths != lp.paths:
        entry["paths"] = paths
    if never:
        why += f"; never on {', '.join(never)}"
    if unknown:
        why += f"; not known on {', '.join(unknown)} (no applied patch there)"
    entry["source"] = why
    lp.required_prefixes.append(entry)


def _first_day(m: str) -> date:
    y, mo = m.split("-")
    return date(int(y), int(mo), 1)
