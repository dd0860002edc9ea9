"""Profiles: a target project's trees and policies as data (TOML), never as `if` chains.

Shipped profiles live in reviewtool/profiles/*.toml. A repository may add or override profiles
in `.reviewtool.toml` (same schema, under `[profiles.NAME]`, optionally `extends = "netdev"`) and
name its default with a top-level `profile = "NAME"` or `git config reviewtool.profile NAME`.

Selection order: `--profile`; a subject tag naming one of a profile's trees (exact token:
`bpf-next/net` is not `net`; a former name or a sub-tree counts), unless the profile claims none
of the files and the profile that does reads the tag as one of its own trees (`[PATCH net-next]
ath11k: ...` is wireless's); the repository's default; the profile that most specifically claims
most of the files touched (longest path prefix, as in MAINTAINERS); the profile one of whose
trees is a remote of the repository (context/remotes.py); the first list address in
To/Cc that a profile claims (a profile with trees before one without: netdev@ in Cc beats LKML
in To); finally `generic`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError
from ..textdist import edit_distance
from .profile_specs import (UNTAGGED_SIGNALS, Closure, FormerName, RequiredPrefix, SeparatePaths, SubTree,  # noqa: F401
                            TreeReading, TreeSpec, UntaggedPolicy, _prefix_match)

TREE_KINDS = ("fixes", "development")
DEFAULT_TEST_PATHS = ("tools/testing/selftests/",)  # the kernel's layout, when a profile names none
DEFAULT_DOCS_PATHS = ("Documentation/", "MAINTAINERS", "CREDITS")


_MIN_SPELLING_LEN = 5  # `net` and `bpf` are too short to guess a misspelling of


@dataclass(frozen=True)
class Profile:
    name: str
    description: str = ""
    lists: tuple[str, ...] = ()  # list addresses that select this profile
    trees: tuple[TreeSpec, ...] = ()
    paths: tuple[str, ...] = ()  # path prefixes the project owns (tree tag expected)
    excluded_paths: tuple[str, ...] = ()
    test_paths: tuple[str, ...] = ()  # where tests live (test-only patches)
    docs_paths: tuple[str, ...] = ()  # documentation-only prefixes (and MAINTAINERS-like files)
    untagged_prefixes: tuple[str, ...] = ()  # subject summaries exempt from a tree tag ("can: ")
    tree_aliases: dict[str, str] = field(default_factory=dict)  # tag as people write it -> tree ("-next")
    closures: tuple[Closure, ...] = ()  # announced closures besides the merge window
    subtrees: tuple[SubTree, ...] = ()  # trees that feed the profile's trees (driver trees)
    required_prefixes: tuple[RequiredPrefix, ...] = ()  # summary prefixes the list requires
    untagged: UntaggedPolicy | None = None  # where untagged patches go (None: by their kind)
    select_by_files: bool = True  # its paths choose it (False: a project whose paths overlap the kernel's)
    separate_paths: tuple[SeparatePaths, ...] = ()  # files merged through their own trees (patch-spans-trees)
    severity: dict[str, str] = field(default_factory=dict)  # rule name -> severity override
    disabled: tuple[str, ...] = ()  # rules this project does not want
    settings: dict[str, Any] = field(default_factory=dict)  # max_patches, cover_letter_min, ...
    origin: str = ""  # where the profile was defined (shipped file or repository config)
    # `[evidence]`: where each setting came from, keyed by the setting ("trees.wireless-next",
    # "rules.severity.changelog-missing", "settings.max_patches"); `reviewtool profile learn`
    # writes the counts behind each, `reviewtool rules` shows them
    evidence: dict[str, str] = field(default_factory=dict)
    # [replies]: forms of the list's own bots (tables as in data/reply-forms.toml, tried first), and
    # who applies patches (addresses): their plain "Applied" or NAK settles a series
    reply_forms: tuple[dict[str, Any], ...] = ()
    appliers: tuple[str, ...] = ()

    def tree(self, tag: str | None) -> TreeSpec | None:
        for t in self.trees:
            if t.name == tag or (tag in t.tags):
                return t
        return None

    def exact_tree(self, tags: Iterable[str]) -> TreeSpec | None:
        """The first subject tag that names one of this profile's trees, matched exactly."""
        for tag in tags:
            spec = self.tree(tag)
            if spec:
                return spec
        return None

    def read_tree(self, tags: Iterable[str]) -> TreeReading | None:
        """The tree the subject means: an exact tag first, else a tag written in another case, an
        alias the profile lists, or a misspelling one edit away from a tree name."""
        tags = list(tags)
        spec = self.exact_tree(tags)
        if spec is not None:
            return TreeReading(spec, spec.name, "exact")
        for tag in tags:
            low = tag.lower()
            spec = self.tree(low)
            if spec is not None:
                return TreeReading(spec, tag, "case")
            former = self.tree_formerly(low)
            if former is not None:
                return TreeReading(former, tag, "former")
            sub = self.subtree(low)
            if sub is not None and self.tree(sub.feeds) is not None:
                return TreeReading(self.tree(sub.feeds), tag, "subtree")
            alias = self.tree(self.tree_aliases.get(low))
            if alias is not None:
                return TreeReading(alias, tag, "alias")
            near = [t for t in self.trees
                    if len(t.name) >= _MIN_SPELLING_LEN and edit_distance(low, t.name, at_most=1) == 1]
            if len(near) == 1:
                return TreeReading(near[0], tag, "spelling")
        return None

    def tree_formerly(self, name: str) -> TreeSpec | None:
        """The tree that was once called `name` (`wireless-drivers`: today's `wireless`)."""
        return next((t for t in self.trees for f in t.former_names if f.name == name), None)

    def subtree(self, name: str) -> SubTree | None:
        return next((s for s in self.subtrees if s.name == name), None)

    def tree_named(self, words: str) -> tuple[TreeSpec, SubTree | None] | None:
        """The profile tree a maintainer's words name ("wireless-next.git", "ath-next branch of
        ath.git", "wireless-drivers.git"), with the sub-tree it went through, if any."""
        low = words.lower().strip()
        tokens = [t.strip(".,;:()") for t in low.split()]
        for t in tokens:
            sub = self.subtree(t.removesuffix(".git"))
            if sub is not None and self.tree(sub.feeds) is not None:
                return self.tree(sub.feeds), sub
        for t in tokens:
            bare = t.removesuffix(".git").rsplit("/", 1)[-1]
            spec = self.tree(bare) or self.tree_formerly(bare) or next(
                (tr for tr in self.trees if tr.git and tr.git.lower() in (t, t.rsplit("/", 1)[-1])), None)
            if spec is not None:
                return spec, None
        return None

    def declared_tree(self, tags: Iterable[str]) -> TreeSpec | None:
        """The tree the subject tags mean (see read_tree)."""
        reading = self.read_tree(tags)
        return reading.spec if reading else None

    def series_tree(self, series) -> TreeSpec | None:
        """The tree the series' first mail names in its subject ([PATCH net 1/3]), if any."""
        first = series.first
        return self.declared_tree(first.subject.tags) if first else None

    def series_queue(self, series) -> SubTree | None:
        """The sub-tree the series' first mail names in its subject ([PATCH iwl-next]), if any."""
        first = series.first
        reading = self.read_tree(first.subject.tags) if first else None
        return self.subtree(reading.written.lower()) if reading is not None and reading.how == "subtree" else None

    def tree_for(self, kind: str, declared: TreeSpec | None = None) -> TreeSpec | None:
        """The tree of `kind` that goes with the declared one: itself, its pair, else the first."""
        if declared is not None:
            if declared.kind == kind:
                return declared
            paired = self.tree(declared.pair)
            if paired is not None and paired.kind == kind:
                return paired
        return next((t for t in self.trees if t.kind == kind), None)

    def closure_at(self, tree: str, when: datetime) -> Closure | None:
        """The announced closure of `tree` that covers `when`, if any."""
        return next((c for c in self.closures if c.tree == tree and c.covers(when)), None)

    def owns(self, path: str) -> bool:
        """A path the project maintains (a tree tag is expected on patches touching it)."""
        if any(path.startswith(p) for p in self.excluded_paths):
            return False
        return any(path.startswith(p) for p in self.paths)

    def is_test_path(self, path: str) -> bool:
        return any(path.startswith(p) for p in self.test_paths)

    def is_docs_path(self, path: str) -> bool:
        return any(path == p or path.startswith(p) for p in self.docs_paths)


def shipped_profiles() -> dict[str, Profile]:
    return dict(_shipped_profiles())  # a copy: load_profiles adds the repository's to it


@lru_cache(maxsize=1)
def _shipped_profiles() -> dict[str, Profile]:
    """Parsed once per process: triage reviews thousands of series with the same files."""
    from .profile_read import read_profile  # it reads tables into this module's types

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
    from .profile_read import read_profile

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
    from ..errors import RepositoryError
    from ..sources.gitbatch import GitRunner

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
