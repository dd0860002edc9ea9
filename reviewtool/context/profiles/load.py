"""The profiles a review can use: the shipped ones (reviewtool/profiles/*.toml), then a
repository's own. A repository may add or override profiles in `.reviewtool.toml` (same schema,
under `[profiles.NAME]`, optionally `extends = "netdev"`) and name its default with a top-level
`profile = "NAME"` or `git config reviewtool.profile NAME`. Which one reviews a series: select.py.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .profile import Profile

def shipped_profiles() -> dict[str, Profile]:
    return dict(_shipped_profiles())  # a copy: load_profiles adds the repository's to it


@lru_cache(maxsize=1)
def _shipped_profiles() -> dict[str, Profile]:
    """Parsed once per process: triage reviews thousands of series with the same files."""
    from .read import read_profile  # it reads tables into this module's types

    out = {}
    for entry in sorted(resources.files("reviewtool.profiles").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            name = data.get("name", entry.name[:-5])
            out[name] = read_profile(name, data, entry.name)
    return out


def _repo_config(repo: Path) -> dict[str, Any]:
    cfg = repo / ".reviewtool.toml"
    if not cfg.is_file():
        return {}
    try:
        return tomllib.loads(cfg.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{cfg}: {exc}") from exc
    except ValueError as exc:  # tomllib converts every digit of an integer: past 4,300 it raises
        raise ConfigError(f"{cfg}: a value is not one TOML can hold ({' '.join(str(exc).split())[:80]})") from exc
    except RecursionError as exc:
        raise ConfigError(f"{cfg}: arrays or tables nest too deeply") from exc
    except OSError as exc:
        raise ConfigError(f"{cfg}: cannot read ({exc.strerror or exc})") from exc


def load_profiles(repo: Path | None = None) -> dict[str, Profile]:
    """Shipped profiles, then the repository's `.reviewtool.toml` `[profiles.NAME]` tables."""
    from .read import read_profile

    profiles = shipped_profiles()
    if repo is not None:
        origin = str(repo / ".reviewtool.toml")
        for name, table in _repo_config(repo).get("profiles", {}).items():
            if not isinstance(table, dict):
                raise ConfigError(f"{origin}: [profiles.{name}] must be a table")
            parent = table.get("extends", name)
            base = profiles.get(parent)
            if "extends" in table and base is None:
                raise ConfigError(f"{origin}: profile {name!r} extends unknown profile {parent!r}")
            merged = _merge(_as_data(base), table) if base else table
            profiles[name] = read_profile(name, merged, origin)
    return profiles


def repo_default_profile(repo: Path | None, config: Any = None) -> tuple[str, str] | None:
    """(name, where it was set) from `git config reviewtool.profile`, else `.reviewtool.toml`.
    `config` is the repository's sources.gitconfig.GitConfig when it was already read."""
    if repo is None:
        return None
    from ...errors import RepositoryError
    from ...sources.gitbatch import GitRunner

    if config is not None:
        value = (config.last("reviewtool.profile") or "").strip()
    else:
        try:
            res = GitRunner(repo).run(["config", "--get", "reviewtool.profile"], check=False)
            value = res.out.strip() if res.code == 0 else ""
        except RepositoryError:
            value = ""
    if value:
        return value, "git config reviewtool.profile"
    value = _repo_config(repo).get("profile")
    if isinstance(value, str) and value:
        return value, ".reviewtool.toml profile"
    return None


def _as_data(p: Profile) -> dict[str, Any]:
    return {"description": p.description, "lists": list(p.lists),
            "trees": [{"name": t.name, "kind": t.kind, "ref": t.ref, "pair": t.pair,
                       "closed_in_merge_window": t.closed_in_merge_window, "git": t.git, "source": t.source,
                       "former_names": [{"name": f.name, "source": f.source} | ({"until": f.until} if f.until else {})
                                        for f in t.former_names]} for t in p.trees],
            "subtrees": [{"name": s.name, "feeds": s.feeds, "git": s.git, "paths": list(s.paths), "source": s.source,
                          "closed_in_merge_window": s.closed_in_merge_window}
                         for s in p.subtrees],
            "required_prefixes": [{"prefix": r.prefix, "since": r.since, "paths": list(r.paths),
                                   "exempt": list(r.exempt), "source": r.source}
                                  | ({"noted_since": r.noted_since} if r.noted_since else {})
                                  for r in p.required_prefixes],
            "paths": list(p.paths), "excluded_paths": list(p.excluded_paths),
            "test_paths": list(p.test_paths), "docs_paths": list(p.docs_paths),
            "untagged_prefixes": list(p.untagged_prefixes), "tree_aliases": dict(p.tree_aliases),
            "select_by_files": p.select_by_files,
            "closures": [{"tree": c.tree, "first_day": c.first_day, "last_day": c.last_day, "why": c.why,
                          "source": c.source} for c in p.closures],
            "separate_paths": [{"name": g.name, "paths": list(g.paths), "tree": g.tree} for g in p.separate_paths],
            "rules": {"severity": dict(p.severity), "disable": list(p.disabled)}, "settings": dict(p.settings),
            "evidence": dict(p.evidence),
            "replies": {"forms": list(p.reply_forms), "appliers": list(p.appliers)},
            **({"untagged": {"tree": p.untagged.tree, "fixes_when": list(p.untagged.fixes_when),
                             "source": p.untagged.source}} if p.untagged else {})}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if k == "extends":
            continue
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out
