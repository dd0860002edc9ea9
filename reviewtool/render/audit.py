"""The fixes-audit report as plain data (the JSON output and the templates' input)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .. import TOOL_NAME, __version__
from ..rules.registry import Finding, NotChecked, Severity
from .env import render_template

AUDIT_FORMATS = ("text", "markdown", "json")


@dataclass(frozen=True)
class Audit:
    repo: str
    revrange: str
    commits: tuple[Any, ...]  # context.history.values.Commit carrying Fixes-like lines, newest first
    tags: int  # Fixes tags verified
    findings: tuple[Finding, ...]
    not_checked: tuple[NotChecked, ...] = ()
    notes: tuple[str, ...] = ()
    trees: dict[str, str] = field(default_factory=dict)  # tree -> ref it resolved through

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)


def audit_data(audit: Audit) -> dict[str, Any]:
    subjects = {c.sha: c.subject for c in audit.commits}
    return {
        "tool": TOOL_NAME,
        "version": __version__,
        "audit": {"repo": audit.repo, "range": audit.revrange, "commits_with_fixes": len(audit.commits),
                  "fixes_tags": audit.tags, "trees": dict(audit.trees)},
        "findings": [
            {"rule": f.rule, "severity": f.severity.value, "commit": f.commit,
             "subject": subjects.get(f.commit or "", ""), "message": f.message,
             "evidence": list(f.evidence), "advice": f.advice}
            for f in audit.findings
        ],
        "summary": {
            "errors": audit.count(Severity.ERROR),
            "warnings": audit.count(Severity.WARNING),
            "infos": audit.count(Severity.INFO),
            "not_checked": [f"{n.rule}: {n.reason}" for n in audit.not_checked],
            "notes": list(audit.notes),
        },
    }


def render_audit(audit: Audit, fmt: str) -> str:
    data = audit_data(audit)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return render_template(f"audit.{fmt}.j2", r=data)
