"""A profile's TOML table read into a Profile, every value checked: a mistake in a profile is a
ConfigError naming the file, the profile and the key (context/profiles/load.py loads the tables)."""

from __future__ import annotations

import math
import tomllib
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any

from ...errors import ConfigError
from .profile import DEFAULT_DOCS_PATHS, DEFAULT_TEST_PATHS, TREE_KINDS, Profile
from .parts import (UNTAGGED_SIGNALS, Closure, FormerName, RequiredPrefix, SeparatePaths, SubTree, TreeSpec,
                    UntaggedPolicy)

def _str_list(data: dict[str, Any], key: str, origin: str, name: str) -> tuple[str, ...]:
    value = data.get(key, ())
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{origin}: profile {name!r}: {key} must be a list of strings")
    return tuple(value)


def _day(value: Any, what: str, origin: str) -> date:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise ConfigError(f"{origin}: {what} must be a date (YYYY-MM-DD), not {value!r}") from exc


def _former(f: Any, origin: str) -> FormerName:
    if isinstance(f, str):
        return FormerName(f.lower())
    return FormerName(str(f["name"]).lower(), _day(f["until"], "former_names until", origin) if "until" in f else None,
                      str(f.get("source", "")))


def _tree(t: dict[str, Any], origin: str) -> TreeSpec:
    spec = TreeSpec(name=t["name"], kind=t.get("kind", "development"), ref=t.get("ref"), pair=t.get("pair"),
                    closed_in_merge_window=bool(t.get("closed_in_merge_window", False)),
                    former_names=tuple(_former(f, origin) for f in t.get("former_names", ())),
                    git=t.get("git"), source=str(t.get("source", "")),
                    tags=tuple(_str_list(t, "tags", origin, str(t.get("name")))))
    if spec.kind not in TREE_KINDS:
        raise ConfigError(f"{origin}: tree {spec.name!r} has kind {spec.kind!r} (fixes or development)")
    return spec


def _subtree(t: dict[str, Any], trees: list[str], origin: str, name: str) -> SubTree:
    sub = SubTree(name=str(t["name"]).lower(), feeds=str(t["feeds"]), git=t.get("git"),
                  paths=_str_list(t, "paths", origin, name), source=str(t.get("source", "")),
                  closed_in_merge_window=bool(t.get("closed_in_merge_window", False)))
    if sub.feeds not in trees:
        raise ConfigError(f"{origin}: profile {name!r}: sub-tree {sub.name!r} feeds unknown tree {sub.feeds!r}")
    return sub


def _required_prefix(r: dict[str, Any], origin: str, name: str) -> RequiredPrefix:
    prefix = str(r["prefix"])
    if not prefix.strip():
        raise ConfigError(f"{origin}: profile {name!r}: a required prefix is empty")
    return RequiredPrefix(prefix=prefix, since=_day(r["since"], "required_prefixes since", origin),
                          noted_since=_day(r["noted_since"], "noted_since", origin) if "noted_since" in r else None,
                          paths=_str_list(r, "paths", origin, name), exempt=_str_list(r, "exempt", origin, name),
                          source=str(r.get("source", "")))


def _untagged(data: dict[str, Any], trees: list[str], origin: str, name: str) -> UntaggedPolicy | None:
    table = data.get("untagged")
    if table is None:
        legacy = data.get("settings", {}).get("untagged_tree") if isinstance(data.get("settings"), dict) else None
        table = {"tree": legacy} if legacy else None
    if table is None:
        return None
    if not isinstance(table, dict) or table.get("tree") not in trees:
        raise ConfigError(f"{origin}: profile {name!r}: [untagged] needs tree = one of its trees")
    signals = _str_list(table, "fixes_when", origin, name)
    unknown = [s for s in signals if s not in UNTAGGED_SIGNALS]
    if unknown:
        raise ConfigError(f"{origin}: profile {name!r}: [untagged] fixes_when names unknown signals "
                          f"{', '.join(unknown)} (known: {', '.join(UNTAGGED_SIGNALS)})")
    return UntaggedPolicy(str(table["tree"]), signals, str(table.get("source", "")))


def read_profile(name: str, data: dict[str, Any], origin: str) -> Profile:
    try:
        trees = tuple(_tree(t, origin) for t in data.get("trees", ()))
        names = [t.name for t in trees]
        for t in trees:
            if t.pair and t.pair not in names:
                raise ConfigError(f"{origin}: tree {t.name!r} pairs with unknown tree {t.pair!r}")
        rules = data.get("rules", {})
        settings = data.get("settings", {})
        if not isinstance(settings, dict) or not isinstance(rules, dict):
            raise ConfigError(f"{origin}: profile {name!r}: [settings] and [rules] must be tables")
        return Profile(
            name=name,
            description=data.get("description", ""),
            lists=tuple(a.lower() for a in _str_list(data, "lists", origin, name)),
            trees=trees,
            paths=_str_list(data, "paths", origin, name),
            excluded_paths=_str_list(data, "excluded_paths", origin, name),
            test_paths=_str_list(data, "test_paths", origin, name) if "test_paths" in data else DEFAULT_TEST_PATHS,
            docs_paths=_str_list(data, "docs_paths", origin, name) if "docs_paths" in data else DEFAULT_DOCS_PATHS,
            untagged_prefixes=_str_list(data, "untagged_prefixes", origin, name),
            tree_aliases=_aliases(data, names, origin, name),
            closures=tuple(_closure(c, names, origin, name) for c in data.get("closures", ())),
            subtrees=tuple(_subtree(t, names, origin, name) for t in data.get("subtrees", ())),
            required_prefixes=tuple(_required_prefix(r, origin, name) for r in data.get("required_prefixes", ())),
            untagged=_untagged(data, names, origin, name),
            select_by_files=bool(data.get("select_by_files", True)),
            separate_paths=_separate(data.get("separate_paths", _default_separate()), origin, name),
            severity=_severity(rules.get("severity", {}), origin, name),
            disabled=_str_list(rules, "disable", origin, name),
            settings=_settings(settings, origin, name),
            origin=origin,
            evidence=_evidence(data, origin, name),
            **_replies(data.get("replies", {}), origin, name),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{origin}: profile {name!r} is malformed ({exc})") from exc


# The settings the rules read as numbers or switches: checked here, so that a wrong type is this
# file's mistake (exit 2) and not a ValueError in a rule (exit 3). Others are the rules' own.
_WHOLE = ("max_patches", "cover_letter_min", "subject_max", "fix_size_limit")
_HOURS = ("repost_min_hours",)
_SWITCHES = ("fix_tree_requires_fixes", "pw_bot", "cc_from_trailers")
_SWITCH_OR_NOTE = ("subject_subsystem",)  # true, false, or "info": asked for, but only noted
SEVERITIES = ("error", "warning", "info")


def _settings(settings: dict[str, Any], origin: str, name: str) -> dict[str, Any]:
    for key, value in settings.items():
        if key in _WHOLE and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            expected = "a whole number of 0 or more"
        elif key in _HOURS and (isinstance(value, bool) or not isinstance(value, (int, float))
                                or not math.isfinite(value) or value < 0):  # nan and inf are TOML floats
            expected = "a number of hours, 0 or more"
        elif key in _SWITCHES and not isinstance(value, bool):
            expected = "true or false"
        elif key in _SWITCH_OR_NOTE and not isinstance(value, bool) and value != "info":
            expected = 'true, false or "info"'
        else:
            continue
        raise ConfigError(f"{origin}: profile {name!r}: settings.{key} must be {expected}, not {value!r}")
    return dict(settings)


def _severity(table: Any, origin: str, name: str) -> dict[str, str]:
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: profile {name!r}: rules.severity must map rule names to a severity")
    for rule, value in table.items():
        if value not in SEVERITIES:
            raise ConfigError(f"{origin}: profile {name!r}: rules.severity.{rule} must be one of "
                              f"{', '.join(map(repr, SEVERITIES))}, not {value!r}")
    return {str(k): v for k, v in table.items()}


def _evidence(data: dict[str, Any], origin: str, name: str) -> dict[str, str]:
    table = data.get("evidence", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{origin}: profile {name!r}: [evidence] must map settings to text")
    return {str(k): v for k, v in table.items()}


def _replies(table: Any, origin: str, name: str) -> dict[str, Any]:
    if not isinstance(table, dict) or not isinstance(table.get("forms", []), list):
        raise ConfigError(f"{origin}: profile {name!r}: [replies] must be a table, its forms a list of tables")
    from ...mail.reply_forms import load_forms

    forms = tuple(table.get("forms", ()))
    load_forms(forms, f"{origin}: profile {name!r}")  # a bad form is named when the profile is read
    return {"reply_forms": forms,
            "appliers": tuple(a.lower() for a in _str_list(table, "appliers", origin, name))}


@lru_cache(maxsize=1)
def _default_separate() -> tuple[dict[str, Any], ...]:
    """The kernel's groups (reviewtool/data/separate-paths.toml), for profiles that name none."""
    text = resources.files("reviewtool.data").joinpath("separate-paths.toml").read_text(encoding="utf-8")
    return tuple(tomllib.loads(text)["separate_paths"])


def _separate(groups: Any, origin: str, name: str) -> tuple[SeparatePaths, ...]:
    try:
        return tuple(SeparatePaths(str(g["name"]), tuple(str(p) for p in g["paths"]), str(g.get("tree", "its own tree")))
                     for g in groups)
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{origin}: profile {name!r}: separate_paths entries need name and paths ({exc})") from exc


def _closure(c: dict[str, Any], trees: list[str], origin: str, name: str) -> Closure:
    try:
        first, last = (d if isinstance(d, date) else date.fromisoformat(str(d)) for d in (c["first_day"], c["last_day"]))
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"{origin}: profile {name!r}: a closure needs first_day and last_day as dates ({exc})") from exc
    if c.get("tree") not in trees or last < first:
        raise ConfigError(f"{origin}: profile {name!r}: closure of {c.get('tree')!r} names no tree of the profile "
                          "or ends before it starts")
    return Closure(c["tree"], first, last, str(c.get("why", "announced closure")), str(c.get("source", "")))


def _aliases(data: dict[str, Any], trees: list[str], origin: str, name: str) -> dict[str, str]:
    aliases = data.get("tree_aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise ConfigError(f"{origin}: profile {name!r}: tree_aliases must map tags to tree names")
    unknown = sorted(v for v in aliases.values() if v not in trees)
    if unknown:
        raise ConfigError(f"{origin}: profile {name!r}: tree_aliases name unknown trees: " + ", ".join(unknown))
    return {k.lower(): v for k, v in aliases.items()}
