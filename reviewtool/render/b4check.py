"""reviewtool's findings in the shapes b4 0.16 reads from external check commands.

- review-perpatch-check-cmd / review-series-check-cmd (b4/review/checks.py `_run_external_cmd`):
  JSON `[{tool, status: pass|warn|fail, summary, url, details}]` on stdout; `details` is itself a
  JSON list of `{status, context, state, description, srcline}` that the b4 review TUI lists.
- am-perpatch-check-cmd / prep-perpatch-check-cmd (b4 `LoreMessage.run_local_check`): one line per
  problem on stdout, a line holding `ERROR:` counts as a failure and any other as a warning; no
  output and exit 0 is "passed all checks". Infos are left out: b4 would show them as warnings.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..rules.registry import Finding, Severity
from .env import render_template

TOOL = "reviewtool"
_STATUS = {Severity.ERROR: "fail", Severity.WARNING: "warn", Severity.INFO: "pass"}


def _summary(findings: list[Finding]) -> str:
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((errors, "error"), (warnings, "warning")) if n]
    infos = len(findings) - errors - warnings
    if not parts:
        return "passed all checks" + (f" ({infos} note{'s' if infos != 1 else ''})" if infos else "")
    return ", ".join(parts)


def tool_result(tool: str, findings: list[Finding], not_checked: Iterable[str] = ()) -> dict[str, Any]:
    """One b4 check result for `tool` over the findings that belong to it."""
    worst = "pass"
    for f in findings:
        status = _STATUS[f.severity]
        if status == "fail" or (status == "warn" and worst == "pass"):
            worst = status
    details = [{"status": _STATUS[f.severity], "context": f.rule, "state": f.severity.value,
                "description": f.message + (f" → {f.advice}" if f.advice else ""),
                **({"srcline": f.evidence[0]} if f.evidence else {})} for f in findings]
    details += [{"status": "pass", "context": "not checked", "state": "info", "description": n} for n in not_checked]
    return {"tool": tool, "status": worst, "summary": _summary(findings), "url": "",
            "details": json.dumps(details, ensure_ascii=False) if details else ""}


def review_results(findings: list[Finding], not_checked: Iterable[str] = ()) -> list[dict[str, Any]]:
    """reviewtool's own findings as one result; checkpatch's (rule `checkpatch:TYPE`) as another."""
    own = [f for f in findings if not f.rule.startswith("checkpatch:")]
    out = [tool_result(TOOL, own, not_checked)]
    cp = [f for f in findings if f.rule.startswith("checkpatch:")]
    if cp:
        out.append(tool_result("checkpatch", cp))
    return out


def render_b4(findings: list[Finding], not_checked: list[str], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(review_results(findings, not_checked), indent=2, ensure_ascii=False) + "\n"
    lines = [{"level": "ERROR" if f.severity is Severity.ERROR else "WARNING", "rule": f.rule, "message": f.message,
              "evidence": f.evidence[0] if f.evidence else ""}
             for f in findings if f.severity is not Severity.INFO]
    return render_template("b4check.terse.j2", lines=lines)
