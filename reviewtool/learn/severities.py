"""Which findings a list's maintainers accept, and which objections they make.

A rule fired on an applied posting is a finding the maintainers took the posting with. As for
the shipped profiles (benchmarks/rule_table.py), a warning that fired on at least two applied
postings, more of them than postings sent back naming its objection, is a note for that list.
An error says the posting cannot be taken: it becomes a note only when it fired on at least five
applied postings and two in three of those where the maintainers answered. A note they sent
postings back for, naming it, three times at least and more often than they took it, is a
warning. What they sent back is counted by objection (data/learn.toml), with the rules that
fired on those postings.
"""

from __future__ import annotations

from collections import Counter

from ..rules.registry import Severity, all_rules
from .archive import Posting
from .counts import share, table
from .facts import Facts
from .learned_profile import LearnedProfile

MIN_HITS = 2  # a warning's
MIN_HITS_ERROR, ACCEPTED_ERROR = 5, 2 / 3
MIN_OBJECTIONS = 3
_EDITABLE_FAMILIES = ("subject",)  # maintainers rewrite subjects when applying: an edited one was not accepted


def objections_of(reason: str | None) -> list[dict]:
    low = (reason or "").lower()
    return [o for o in table()["objections"] if any(w in low for w in o["words"])]


def _fired(f: Facts, rules: dict) -> set[str]:
    """The rules that fired on a posting at their own severity or above (a rule that only noted
    something, where it warns elsewhere, did not fire)."""
    out = set()
    for name, sev, _ in f.findings:
        r = rules.get(name)
        if r is not None and Severity(sev).rank <= r.severity.rank:
            out.add(name)
    return out


def _topical(name: str) -> bool:
    return any(name in o["rules"] for o in table()["objections"])


def learn_severities(lp: LearnedProfile, applied: list[tuple[Posting, Facts]],
                     sent_back: list[tuple[Posting, Facts]]) -> None:
    """A rule whose finding the maintainers take is a note; a note they send postings back for
    (more often than they take it, three times at least) is a warning."""
    rules = {r.name: r for r in all_rules()}
    fired: dict[str, int] = Counter()
    for p, f in applied:
        for name in _fired(f, rules):
            if rules[name].family in _EDITABLE_FAMILIES and p.edited:
                continue
            fired[name] += 1
    objected: dict[str, int] = Counter()
    for p, f in sent_back:
        named = {r for o in (o for a in p.sent_back for o in objections_of(a.reason)) for r in o["rules"]}
        for name in _fired(f, rules):
            if name in named or not _topical(name):
                objected[name] += 1
    n, s = len(applied), len(sent_back)
    for name in sorted(set(fired) | set(objected), key=lambda k: (-fired[k], -objected[k], k)):
        if name in lp.disable:
            continue
        a, o, default = fired[name], objected[name], rules[name].severity.value
        if default == "info" and not _topical(name):
            continue  # a report, not a finding anyone objects to (review-coverage)
        why = f"fired on {a} of {n:,} applied postings ({share(a, n).split(' ')[0]}); on {o} of {s} sent back"
        taken = (a >= MIN_HITS_ERROR and a / (a + o) >= ACCEPTED_ERROR) if default == "error" else (
            a >= MIN_HITS and a > o)
        if taken:
            lp.severity[name] = "info"
            lp.note(f"rules.severity.{name}", why + ": the maintainers take it (a note here"
                                                    + (f", {default} by default)" if default != "info" else ", as by default)"))
        elif default == "info" and o >= MIN_OBJECTIONS and o > a:
            lp.severity[name] = "warning"
            lp.note(f"rules.severity.{name}", why + ", naming it: the maintainers ask for it (a warning here, "
                                                    "a note by default)")
        elif a >= 1 and default != "info":
            need = (f"{MIN_HITS_ERROR} applied postings and two in three of those it fired on" if default == "error"
                    else f"{MIN_HITS} applied postings, more than those sent back naming it")
            article = "an" if default == "error" else "a"
            lp.left_out.append(f"{name} stays {article} {default}: {why} (a note needs {need})")


def learn_objections(lp: LearnedProfile, sent_back: list[tuple[Posting, Facts | None]]) -> None:
    counts: Counter = Counter()
    fired: dict[str, Counter] = {}
    other: list[str] = []
    for p, f in sent_back:
        for a in p.sent_back:
            found = objections_of(a.reason)
            for o in found:
                counts[o["name"]] += 1
                hits = {r for r, _, _ in (f.findings if f else ())} & set(o["rules"])
                fired.setdefault(o["name"], Counter()).update(hits)
            if not found:
                other.append((a.reason_line or a.evidence or "")[:80])
    for name, c in counts.most_common():
        rules = ", ".join(f"{r} fired on {k}" for r, k in fired[name].most_common())
        lp.objections.append(f"{name}: {c}" + (f" ({rules})" if rules else ""))
    if other:
        lp.objections.append(f"other reasons: {len(other)} (" + "; ".join(f"'{o}'" for o in other[:3])
                             + (", ..." if len(other) > 3 else "") + ")")
