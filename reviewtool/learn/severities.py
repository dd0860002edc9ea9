"""Which findings a list's maintainers accept, and which objections they make.

A rule fired on an applied posting is a finding the maintainers took the posting with. A rule
whose finding they accepted on at least MIN_HITS applied postings, and on at least two of three
of the postings it fired on where they answered (applied, or sent back naming its objection), is
a note for that list. What they sent back is counted by objection (data/learn.toml), with the
rules that fired on those postings.
"""

from __future__ import annotations

from collections import Counter

from ..rules.registry import all_rules
from .archive import Posting
from .evidence import share, table
from .facts import Facts
from .model import LearnedProfile

MIN_HITS = 5
ACCEPTED = 2 / 3
_EDITABLE_FAMILIES = ("subject",)  # maintainers rewrite subjects when applying: an edited one was not accepted


def objections_of(reason: str | None) -> list[dict]:
    low = (reason or "").lower()
    return [o for o in table()["objections"] if any(w in low for w in o["words"])]


def learn_severities(lp: LearnedProfile, applied: list[tuple[Posting, Facts]],
                     sent_back: list[tuple[Posting, Facts]]) -> None:
    rules = {r.name: r for r in all_rules()}
    fired: dict[str, int] = Counter()
    for p, f in applied:
        for name in {r for r, sev, _ in f.findings}:
            if rules.get(name) and rules[name].family in _EDITABLE_FAMILIES and p.edited:
                continue
            fired[name] += 1
    objected: dict[str, int] = Counter()
    for p, f in sent_back:
        named = {r for o in (o for a in p.sent_back for o in objections_of(a.reason)) for r in o["rules"]}
        for name in {r for r, sev, _ in f.findings}:
            if name in named or not any(name in o["rules"] for o in table()["objections"]):
                objected[name] += 1
    n, s = len(applied), len(sent_back)
    for name, a in sorted(fired.items(), key=lambda kv: (-kv[1], kv[0])):
        if name in lp.disable or rules.get(name) is None or rules[name].severity.value == "info":
            continue
        o = objected[name]
        why = f"fired on {a} of {n:,} applied postings ({share(a, n).split(' ')[0]}); on {o} of {s} sent back"
        if a >= MIN_HITS and a / (a + o) >= ACCEPTED:
            lp.severity[name] = "info"
            lp.note(f"rules.severity.{name}", why + ": the maintainers take it (a note here, "
                                                    f"{rules[name].severity.value} by default)")
        elif a >= 2:
            article = "an" if rules[name].severity.value == "error" else "a"
            lp.left_out.append(f"{name} stays {article} {rules[name].severity.value}: {why} (a note needs {MIN_HITS} "
                               f"applied postings and two in three of those it fired on)")


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
