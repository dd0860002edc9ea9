"""`reviewtool rules [NAME]`: list the rules and profiles, or explain one rule (like `ruff rule`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import InputError

# The stages are imported when the command runs: every command is registered on each start.
if TYPE_CHECKING:
    from ..rules.registry import Rule


def rule_data(r: Rule, profiles) -> dict:
    return {
        "name": r.name, "family": r.family, "severity": r.severity.value, "summary": r.summary,
        "why": r.why, "source": r.source, "bad": r.bad, "good": r.good, "needs": list(r.needs),
        "profiles": {p.name: ("off" if r.name in p.disabled else p.severity.get(r.name, r.severity.value))
                     for p in profiles.values()},
    }


def provenance(p) -> list[dict]:
    """Where each of the profile's settings came from: the sources its trees, sub-trees, prefixes,
    policies and closures name, then its [evidence] table (a learned profile's counts)."""
    out = []

    def add(setting: str, label: str, source: str) -> None:
        if source:
            out.append({"setting": setting, "label": label, "source": source})

    for t in p.trees:
        add(f"trees.{t.name}", f"tree {t.name} ({t.kind})", t.source)
        for f in t.former_names:
            add(f"trees.{t.name}.former_names.{f.name}", f"{f.name} (former name of {t.name})", f.source)
    for s in p.subtrees:
        add(f"subtrees.{s.name}", f"{s.name} (feeds {s.feeds})", s.source)
    for r in p.required_prefixes:
        add(f"required_prefixes.{r.prefix}", f"prefix '{r.prefix}' (since {r.since})", r.source)
    if p.untagged is not None:
        add("untagged", f"untagged patches go to {p.untagged.tree}", p.untagged.source)
    for c in p.closures:
        add(f"closures.{c.tree}.{c.first_day}", f"{c.tree} closed {c.first_day}..{c.last_day}", c.source)
    for key, text in p.evidence.items():
        add(key, key, text)
    return out


def profile_data(p, rules: list[dict]) -> dict:
    """A profile as data: its trees and policies, which rules it runs at which severity, and
    where its settings came from."""
    return {"name": p.name, "description": p.description, "origin": p.origin, "lists": list(p.lists),
            "trees": [{"name": t.name, "kind": t.kind, "ref": t.ref, "pair": t.pair,
                       "closed_in_merge_window": t.closed_in_merge_window} for t in p.trees],
            "subtrees": [{"name": s.name, "feeds": s.feeds, "git": s.git, "paths": list(s.paths)} for s in p.subtrees],
            "settings": dict(p.settings), "disabled": list(p.disabled), "severity": dict(p.severity),
            "enabled": [r["name"] for r in rules if r["name"] not in p.disabled],
            "evidence": dict(p.evidence), "provenance": provenance(p)}


def rules_command(
    name: Optional[str] = typer.Argument(None, help="A rule to explain."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, markdown or json."),
    repo: Optional[Path] = typer.Option(None, "--repo", help="Also list the profiles of this repository's "
                                                             ".reviewtool.toml (default: the current directory's)."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p", metavar="NAME|FILE",
                                          help="Show only this profile (a name, or a profile file such as "
                                               "`reviewtool profile learn` writes), with where each setting "
                                               "came from."),
) -> int:
    """List every rule and profile, or explain one rule."""
    from ..context.profiles.load import load_profiles
    from ..render.env import render_template
    from ..render.output import emit
    from ..rules.registry import all_rules, get_rule

    if fmt not in ("text", "markdown", "json"):
        raise InputError(f"--format {fmt!r}: use text, markdown or json")
    if repo is None and Path(".reviewtool.toml").is_file():
        repo = Path(".")
    profiles = load_profiles(repo)
    only = None
    if profile:
        profiles, only = _only(profiles, profile)
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
        profs = [profile_data(p, rules) for p in profiles.values() if only is None or p.name in only]
        text = (json.dumps({"rules": rules, "profiles": profs}, indent=2) + "\n" if fmt == "json"
                else render_template(f"rules.{fmt}.j2", rules=rules, profiles=profs, detail=only is not None))
    emit(text, fmt)
    return 0


def _only(profiles: dict, wanted: str) -> tuple[dict, set[str]]:
    """The profiles and the names --profile shows: a known name, or every profile of a file."""
    from ..context.profiles.file import names_a_file, read_profile_file

    if names_a_file(wanted):
        pf = read_profile_file(Path(wanted).expanduser(), profiles)
        return {**profiles, **{p.name: p for p in pf.profiles}}, {p.name for p in pf.profiles}
    if wanted not in profiles:
        raise InputError(f"unknown profile {wanted!r} (known: {', '.join(sorted(profiles))})")
    return profiles, {wanted}


EPILOG = """Examples:
  reviewtool rules                 # every rule and profile
  reviewtool rules fixes-missing   # why, source, bad and good examples
  reviewtool rules --profile learned.toml   # one profile and its sources
  reviewtool rules --format markdown > docs/rules.md

The last example writes the page docs/rules.md of reviewtool's source."""


def register(app: typer.Typer) -> None:
    app.command("rules", epilog=EPILOG)(rules_command)
