"""Profiles: a target project's trees and policies as data (TOML), never as `if` chains.

Shipped profiles live in reviewtool/profiles/*.toml. A repository may add or override profiles
in `.reviewtool.toml` (same schema, under `[profiles.NAME]`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError


@dataclass(frozen=True)
class TreeSpec:
    name: str  # the exact subject tag: net, net-next, bpf, ...
    kind: str  # "fixes" or "development"
    ref: str | None = None  # git ref that tracks this tree in a local repository
    pair: str | None = None  # the development tree for a fixes tree and vice versa


@dataclass(frozen=True)
class Profile:
    name: str
    description: str = ""
    lists: tuple[str, ...] = ()  # list addresses that select this profile
    trees: tuple[TreeSpec, ...] = ()
    paths: tuple[str, ...] = ()  # path prefixes the project owns (tree tag expected)
    excluded_paths: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # rule name -> severity override
    disabled: tuple[str, ...] = ()  # rules this project does not want
    settings: dict[str, Any] = field(default_factory=dict)  # max_patches, cover_letter_min, ...

    def tree(self, tag: str | None) -> TreeSpec | None:
        for t in self.trees:
            if t.name == tag:
                return t
        return None

    def declared_tree(self, tags: Iterable[str]) -> TreeSpec | None:
        """The first subject tag that names one of this profile's trees, matched exactly."""
        for tag in tags:
            spec = self.tree(tag)
            if spec:
                return spec
        return None


def _profile(name: str, data: dict[str, Any], origin: str) -> Profile:
    try:
        trees = tuple(TreeSpec(name=t["name"], kind=t.get("kind", "development"), ref=t.get("ref"),
                               pair=t.get("pair")) for t in data.get("trees", ()))
        for t in trees:
            if t.kind not in ("fixes", "development"):
                raise ConfigError(f"{origin}: tree {t.name!r} has kind {t.kind!r} (fixes or development)")
        rules = data.get("rules", {})
        return Profile(
            name=name,
            description=data.get("description", ""),
            lists=tuple(a.lower() for a in data.get("lists", ())),
            trees=trees,
            paths=tuple(data.get("paths", ())),
            excluded_paths=tuple(data.get("excluded_paths", ())),
            severity=dict(rules.get("severity", {})),
            disabled=tuple(rules.get("disable", ())),
            settings=dict(data.get("settings", {})),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{origin}: profile {name!r} is malformed ({exc})") from exc


def shipped_profiles() -> dict[str, Profile]:
    out = {}
    for entry in sorted(resources.files("reviewtool.profiles").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            out[data.get("name", entry.name[:-5])] = _profile(data.get("name", entry.name[:-5]), data, entry.name)
    return out


def load_profiles(repo: Path | None = None) -> dict[str, Profile]:
    """Shipped profiles, then the repository's `.reviewtool.toml` `[profiles.NAME]` tables."""
    profiles = shipped_profiles()
    if repo is not None:
        cfg = repo / ".reviewtool.toml"
        if cfg.is_file():
            try:
                data = tomllib.loads(cfg.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{cfg}: {exc}") from exc
            for name, table in data.get("profiles", {}).items():
                base = profiles.get(table.get("extends", name))
                merged = _merge(_as_data(base), table) if base else table
                profiles[name] = _profile(name, merged, str(cfg))
    return profiles


def _as_data(p: Profile) -> dict[str, Any]:
    return {"description": p.description, "lists": list(p.lists),
            "trees": [{"name": t.name, "kind": t.kind, "ref": t.ref, "pair": t.pair} for t in p.trees],
            "paths": list(p.paths), "excluded_paths": list(p.excluded_paths),
            "rules": {"severity": dict(p.severity), "disable": list(p.disabled)}, "settings": dict(p.settings)}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def select_profile(profiles: dict[str, Profile], *, name: str | None, tags: Iterable[str],
                   recipients: Iterable[str]) -> tuple[Profile, str]:
    """(profile, why it was chosen): --profile, else a subject tree tag, else a list address."""
    if name:
        if name not in profiles:
            raise ConfigError(f"unknown profile {name!r} (known: {', '.join(sorted(profiles))})")
        return profiles[name], "chosen with --profile"
    tags = list(tags)
    for p in profiles.values():
        spec = p.declared_tree(tags)
        if spec:
            return p, f"subject tag [{spec.name}]"
    rcpt = " ".join(recipients).lower()
    for p in profiles.values():
        for lst in p.lists:
            if lst in rcpt:
                return p, f"sent to {lst}"
    return profiles["generic"], "no tree tag or known list: generic rules"
