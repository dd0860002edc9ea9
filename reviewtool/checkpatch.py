"""The repository's own scripts/checkpatch.pl, run per patch (opt-in: `--checkpatch`), its findings
folded in under their own names (`checkpatch:BAD_SIGN_OFF`), as b4's checks do.

Not a context stage: it needs the patch mails as bytes, which only the commands hold.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .bounded import number
from .rules.registry import Finding, NotChecked, Severity

SCRIPT = Path("scripts") / "checkpatch.pl"
ARGS = ("-q", "--terse", "--no-summary", "--mailback", "--show-types", "-")  # b4's flags, plus the types
_LINE_RE = re.compile(r"^(?:[^:\s]*):(?P<line>\d+): (?P<level>ERROR|WARNING|CHECK):(?:(?P<type>[A-Z0-9_]+):)? ?(?P<msg>.*)$")
_BARE_RE = re.compile(r"^(?P<level>ERROR|WARNING|CHECK):(?:(?P<type>[A-Z0-9_]+):)? ?(?P<msg>.*)$")
_SEVERITY = {"ERROR": Severity.ERROR, "WARNING": Severity.WARNING, "CHECK": Severity.INFO}


def script_path(repo: Path | None) -> Path | None:
    if repo is None:
        return None
    path = repo / SCRIPT
    return path if path.is_file() else None


def parse_output(text: str, mail: bytes, counter: int | None) -> list[Finding]:
    """checkpatch --terse --show-types lines -> findings; the offending mail line is the evidence."""
    src = mail.decode("utf-8", "replace").splitlines()
    out: list[Finding] = []
    for raw in text.splitlines():
        m = _LINE_RE.match(raw) or _BARE_RE.match(raw)
        if not m:
            if out and raw.strip():  # continuation of the previous finding
                last = out[-1]
                out[-1] = Finding(last.rule, last.severity, last.patch, f"{last.message} {raw.strip()}",
                                  last.evidence, last.advice)
            continue
        kind = m.group("type") or "CHECKPATCH"
        evidence = []
        lineno = (number(m.group("line")) or 0) if "line" in m.groupdict() and m.group("line") else 0
        if 0 < lineno <= len(src) and src[lineno - 1].strip():
            evidence.append(src[lineno - 1].rstrip())
        evidence.append(f"checkpatch.pl {m.group('level')}:{kind}" + (f" at line {lineno} of the mail" if lineno else ""))
        out.append(Finding(rule=f"checkpatch:{kind}", severity=_SEVERITY[m.group("level")], patch=counter,
                           message=m.group("msg").strip(), evidence=tuple(evidence),
                           advice=f"Fix what checkpatch reports, or explain below `---` why {kind} does not apply "
                                  "(see `scripts/checkpatch.pl --help` and `--ignore " + kind + "`)."))
    return out


def _run_one(script: Path, repo: Path, counter: int | None, mail: bytes) -> tuple[int | None, str, str, int]:
    try:
        res = subprocess.run(["perl", str(script), *ARGS], input=mail, capture_output=True, cwd=repo,
                             timeout=300, check=False)
    except FileNotFoundError:
        return counter, "", "perl is not installed", 127
    except subprocess.TimeoutExpired:
        return counter, "", "checkpatch.pl took longer than 300 s", 124
    return counter, res.stdout.decode("utf-8", "replace"), res.stderr.decode("utf-8", "replace"), res.returncode


def run_checkpatch(repo: Path | None, mails: list[tuple[int | None, bytes]]) -> tuple[list[Finding], list[NotChecked]]:
    """Findings of scripts/checkpatch.pl for each (counter, mail bytes), or why it could not run."""
    script = script_path(repo)
    if script is None:
        where = f"{repo}" if repo else "no repository given"
        return [], [NotChecked("checkpatch", f"{where} has no scripts/checkpatch.pl" if repo else where)]
    findings: list[Finding] = []
    problems: list[str] = []
    with ThreadPoolExecutor(max_workers=max(1, min(len(mails), os.cpu_count() or 1))) as pool:
        for counter, out, err, code in pool.map(lambda cm: _run_one(script, repo, *cm), mails):
            got = parse_output(out, dict(mails)[counter], counter)
            findings.extend(got)
            if not got and (code not in (0, 1) or (err.strip() and not out.strip())):
                problems.append(f"patch {counter}: {(err.strip().splitlines() or ['exit ' + str(code)])[-1]}")
    if problems:
        return findings, [NotChecked("checkpatch", "; ".join(problems)[:300])]
    return findings, []
