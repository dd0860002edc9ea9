"""`reviewtool rules [NAME]`: list the rules and profiles, or explain one rule (like `ruff rule`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..context.profiles import load_profiles
from ..errors import InputError
from ..render.env import render_template
from ..render.output import emit
from ..rules.registry import Rule, all_rules, get_rule


def rule_data(r: Rule, profiles) -> dict:
    return {
        "name": r.name, "family": r.family, "severity": r.severity.value, "summary": r.summary,
        "why": r.why, "source": r.source, "bad": r.bad, "good": r.good, "needs": list(r.needs),
        "profiles": {p.name: ("off" if r.name in p.disabled else p.severity.get(r.name, r.severity.value))
                     for p in profiles.values()},
    }


def profile_data(p, rules: list[dict]) -> dict:
    """A profile as data: its trees and policies, and which rules it runs at which severity."""
    return {"name": p.name, "description": p.description, "origin": p.origin, "lists": list(p.lists),
            "trees": [{"name": t.name, "kind": t.kind, "ref": t.ref, "pair": t.pair,
                       "closed_in_merge_window": t.closed_in_merge_window} for t in p.trees],
            "settings": dict(p.settings), "disabled": list(p.disabled), "severity": dict(p.severity),
            "enabled": [r["name"] for r in rules if r["name"] not in p.disabled]}


def rules_command(
    name: Optional[str] = typer.Argument(None, help="A rule to explain."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, markdown or json."),
    repo: Optional[Path] = typer.Option(None, "--repo", help="Also list the profiles of this repository's "
                                                             ".reviewtool.toml (default: the current directory's)."),
) -> int:
    """List every rule and profile, or explain one rule."""
    if fmt not in ("text", "markdown", "json"):
        raise InputError(f"--format {fmt!r}: use text, markdown or json")
    if repo is None and Path(".reviewtool.toml").is_file():
        repo = Path(".")
    profiles = load_profiles(repo)
    if name:
        r = get_rule(name)
        if r is None:
            close = [x.name for x in all_rules() if name in x.name or x.name in name]
            hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
            raise InputError(f"no rule named {name!r}{hint}; `reviewtool rules` lists them")
        data = rule_data(r, profiles)
        text = json.dumps(data, indent=2) + "\n" if fmt == "json" else render_template(f"rule.{fmt}.j2", rule=data)
    else:
        rules = [rule_data(r, profiles) for r in all_rules()]
        profs = [profile_data(p, rules) for p in profiles.values()]
        text = (json.dumps({"rules": rules, "profiles": profs}, indent=2) + "\n" if fmt == "json"
                else render_template(f"rules.{fmt}.j2", rules=rules, profiles=profs))
    emit(text, fmt)
    return 0


EPILOG = """Examples:
  reviewtool rules                 # every rule and profile
  reviewtool rules fixes-missing   # why, source, bad and good examples
  reviewtool rules --format markdown > docs/rules.md

The last example writes the page docs/rules.md of reviewtool's source."""


def register(app: typer.Typer) -> None:
    app.command("rules", epilog=EPILOG)(rules_command)
