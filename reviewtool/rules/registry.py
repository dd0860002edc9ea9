"""The rule registry, in the style of ruff: every rule is a documented object.

A rule has a stable kebab-case name, a family, a default severity, a one-line summary, and a
docstring in sections (Why / Source / Bad / Good). Its check is a pure function of the series and
the context that yields `Hit`s; the runner turns hits into `Finding`s. A rule that needs something
the context lacks (a repository, a network) is not run but listed as not checked, with the reason.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True)
class Hit:
    """What a rule reports; the runner adds the rule's name and severity."""

    message: str
    patch: int | None = None  # counter; None for the whole series, 0 for the cover letter
    evidence: tuple[str, ...] = ()
    advice: str = ""
    severity: Severity | None = None  # only when one rule reports at two levels
    commit: str | None = None  # full sha of the commit carrying the problem (fixes-audit, lint)


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    patch: int | None
    message: str
    evidence: tuple[str, ...] = ()
    advice: str = ""
    commit: str | None = None


@dataclass(frozen=True)
class NotChecked:
    rule: str
    reason: str


@dataclass(frozen=True)
class Rule:
    name: str
    family: str
    severity: Severity
    summary: str
    why: str
    source: str
    bad: str
    good: str
    needs: tuple[str, ...]
    check: Callable[..., Iterable[Hit]] = field(repr=False, compare=False)
    # Starts slow queries (git processes) before any rule runs, so they overlap the other checks.
    prefetch: Callable[..., None] | None = field(default=None, repr=False, compare=False)

    @property
    def module(self) -> str:
        return self.check.__module__


REGISTRY: dict[str, Rule] = {}
_SECTION_RE = re.compile(r"^(Why|Source|Bad|Good):[ \t]*(.*)$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def _sections(doc: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current = None
    for line in inspect.cleandoc(doc or "").splitlines():
        m = _SECTION_RE.match(line)
        if m:
            current = m.group(1).lower()
            out[current] = [m.group(2)] if m.group(2) else []
        elif current:
            out[current].append(line)
    return {k: textwrap.dedent("\n".join(v)).strip("\n") for k, v in out.items()}


def rule(name: str, *, family: str, severity: str, summary: str, needs: tuple[str, ...] = (),
         prefetch: Callable[..., None] | None = None):
    """Register a check function as a rule; its docstring is the documentation. `prefetch(series,
    ctx)`, when given, is called before any rule runs to start the rule's slow queries."""

    def register(check: Callable[..., Iterable[Hit]]) -> Callable[..., Iterable[Hit]]:
        if not _NAME_RE.match(name):
            raise ValueError(f"rule name {name!r} is not kebab-case")
        if name in REGISTRY:
            raise ValueError(f"rule {name!r} registered twice")
        sec = _sections(check.__doc__ or "")
        missing = [s for s in ("why", "source", "bad", "good") if not sec.get(s)]
        if missing:
            raise ValueError(f"rule {name!r} lacks docstring sections: {', '.join(missing)}")
        REGISTRY[name] = Rule(name=name, family=family, severity=Severity(severity), summary=summary,
                              why=" ".join(sec["why"].split()), source=" ".join(sec["source"].split()),
                              bad=sec["bad"], good=sec["good"], needs=tuple(needs), check=check,
                              prefetch=prefetch)
        return check

    return register


def all_rules() -> list[Rule]:
    from . import load_all  # noqa: F401  (importing the families fills the registry)

    load_all()
    if len(REGISTRY) != _SORTED[0]:
        _SORTED[:] = [len(REGISTRY), sorted(REGISTRY.values(), key=lambda r: (r.family, r.name))]
    return list(_SORTED[1])


_SORTED: list = [0, []]  # (registry size, its rules sorted): all_rules() runs once per review


def get_rule(name: str) -> Rule | None:
    all_rules()
    return REGISTRY.get(name)
