"""Profiles: a target project's trees and policies as data (TOML), never as `if` chains.

Shipped profiles live in reviewtool/profiles/*.toml. A repository may add or override profiles
in `.reviewtool.toml` (same schema, under `[profiles.NAME]`, optionally `extends = "netdev"`) and
name its default with a top-level `profile = "NAME"` or `git config reviewtool.profile NAME`.

Selection order: `--profile`; a subject tag naming one of a profile's trees (exact token:
`bpf-next/net` is not `net`; a former name or a sub-tree counts), unless the profile claims none
of the files and the profile that does reads the tag as one of its own trees (`[PATCH net-next]
ath11k: ...` is wireless's); the repository's default; the profile that most specifically claims
most of the files touched (longest path prefix, as in MAINTAINERS); the first list address in
To/Cc that a profile claims (a profile with trees before one without: netdev@ in Cc beats LKML
in To); finally `generic`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError
from ..textdist import edit_distance

TREE_KINDS = ("fixes", "development")
DEFAULT_TEST_PATHS = ("tools/testing/selftests/",)  # the kernel's layout, when a profile names none
DEFAULT_DOCS_PATHS = ("Documentation/", "MAINTAINERS", "CREDITS")


@dataclass(frozen=True)
class TreeSpec:
    name: str  # the exact subject tag: net, net-next, bpf, ...
    kind: str  # "fixes" or "development"
    ref: str | None = None  # git ref that tracks this tree in a local repository
    pair: str | None = None  # the development tree for a fixes tree and vice versa
    closed_in_merge_window: bool = False  # takes no new work between vX.Y and vX.(Y+1)-rc1
    former_names: tuple["FormerName", ...] = ()  # names it had before (subjects and replies of that time)
    git: str | None = None  # the repository as the maintainers' replies name it ("wireless-next.git")
    source: str = ""  # where its policy is written down


@dataclass(frozen=True)
class FormerName:
    """A name a tree had until a date: `[PATCH wireless-drivers]` meant today's `wireless`."""

    name: str
    until: date | None = None  # the last day it was the tree's name (None: not known)
    source: str = ""


@dataclass(frozen=True)
class SubTree:
    """A tree that feeds one of the profile's trees: its maintainers apply a driver family's patches
    and send them on by pull request (ath.git's ath-next feeds wireless-next)."""

    name: str  # as subjects and replies write it: "ath-next"
    feeds: str  # the profile tree it is pulled into
    git: str | None = None  # the repository, as replies name it: "ath.git"
    paths: tuple[str, ...] = ()  # what it takes (prefixes); empty: whatever the fed tree takes
    source: str = ""


UNTAGGED_SIGNALS = ("maintainers", "build-break", "regression")


@dataclass(frozen=True)
class UntaggedPolicy:
    """What a patch without a tree tag means on a list whose maintainers pick the tree: it goes to
    `tree`, unless it shows one of `fixes_when` (then the fixes tree takes it)."""

    tree: str
    fixes_when: tuple[str, ...] = ()  # of UNTAGGED_SIGNALS
    source: str = ""


@dataclass(frozen=True)
class RequiredPrefix:
    """A summary prefix the list requires on patches touching its paths ("wifi:" on linux-wireless).

    From `since` a missing prefix is a warning; between `noted_since` and `since` (the maintainers
    added it when applying, before they asked posters for it) it is a note."""

    prefix: str
    since: date
    noted_since: date | None = None
    paths: tuple[str, ...] = ()  # empty: the profile's own paths
    exempt: tuple[str, ...] = ()  # summaries that keep their own convention ("dt-bindings:")
    source: str = ""

    def severity_at(self, when: datetime | None) -> str | None:
        """"warning", "info" or None (not yet a convention) for a posting sent at `when`."""
        if when is None:
            return "warning"
        day = (when.astimezone(timezone.utc) if when.tzinfo else when).date()
        if day >= self.since:
            return "warning"
        if self.noted_since is not None and day >= self.noted_since:
            return "info"
        return None


@dataclass(frozen=True)
class Closure:
    """A closure of a tree the maintainers announced outside the merge window (netdev's end-of-year
    break), as UTC days, both included."""

    tree: str
    first_day: date
    last_day: date
    why: str
    source: str = ""

    def covers(self, when: datetime) -> bool:
        day = (when.astimezone(timezone.utc) if when.tzinfo else when).date()
        return self.first_day <= day <= self.last_day


@dataclass(frozen=True)
class SeparatePaths:
    """Files that reach mainline through a tree of their own (devicetree sources, bindings)."""

    name: str
    paths: tuple[str, ...]  # prefixes; `*` is one path component
    tree: str  # where they go, in words

    def matches(self, path: str) -> bool:
        return any(_prefix_match(pattern, path) for pattern in self.paths)


def _prefix_match(pattern: str, path: str) -> bool:
    parts, have = pattern.rstrip("/").split("/"), path.split("/")
    return len(have) > len(parts) and all(p == "*" or p == h for p, h in zip(parts, have))


@dataclass(frozen=True)
class TreeReading:
    """The tree a subject tag names, and how it was written: "exact", "case" (`NET-NEXT`),
    "alias" (a form the profile lists, `-next`) or "spelling" (one edit away, `net-nxt`)."""

    spec: TreeSpec
    written: str
    how: str


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
            if t.name == tag:
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
            near = [t for t in self.trees if len(t.name) >= _MIN_SPELLING_LEN and edit_distance(low, t.name) == 1]
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
                    git=t.get("git"), source=str(t.get("source", "")))
    if spec.kind not in TREE_KINDS:
        raise ConfigError(f"{origin}: tree {spec.name!r} has kind {spec.kind!r} (fixes or development)")
    return spec


def _subtree(t: dict[str, Any], trees: list[str], origin: str, name: str) -> SubTree:
    sub = SubTree(name=str(t["name"]).lower(), feeds=str(t["feeds"]), git=t.get("git"),
                  paths=_str_list(t, "paths", origin, name), source=str(t.get("source", "")))
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


def _profile(name: str, data: dict[str, Any], origin: str) -> Profile:
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
            severity={k: str(v) for k, v in rules.get("severity", {}).items()},
            disabled=_str_list(rules, "disable", origin, name),
            settings=dict(settings),
            origin=origin,
            evidence=_evidence(data, origin, name),
            **_replies(data.get("replies", {}), origin, name),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{origin}: profile {name!r} is malformed ({exc})") from exc


def _evidence(data: dict[str, Any], origin: str, name: str) -> dict[str, str]:
    table = data.get("evidence", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{origin}: profile {name!r}: [evidence] must map settings to text")
    return {str(k): v for k, v in table.items()}


def _replies(table: Any, origin: str, name: str) -> dict[str, Any]:
    if not isinstance(table, dict) or not isinstance(table.get("forms", []), list):
        raise ConfigError(f"{origin}: profile {name!r}: [replies] must be a table, its forms a list of tables")
    from ..mail.reply_forms import load_forms

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


def shipped_profiles() -> dict[str, Profile]:
    return dict(_shipped_profiles())  # a copy: load_profiles adds the repository's to it


@lru_cache(maxsize=1)
def _shipped_profiles() -> dict[str, Profile]:
    """Parsed once per process: triage reviews thousands of series with the same files."""
    out = {}
    for entry in sorted(resources.files("reviewtool.profiles").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            name = data.get("name", entry.name[:-5])
            out[name] = _profile(name, data, entry.name)
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
            profiles[name] = _profile(name, merged, origin)
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
            "subtrees": [{"name": s.name, "feeds": s.feeds, "git": s.git, "paths": list(s.paths), "source": s.source}
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


def _addresses(recipients: Iterable[str]) -> list[str]:
    """Bare lower-case addresses in the order they were written (To before Cc)."""
    from email.utils import getaddresses

    return [addr.lower() for _, addr in getaddresses(list(recipients)) if addr]


def _claim(p: Profile, path: str) -> int:
    """How specifically `p` claims `path`: the length of its longest matching prefix (0: not at all)."""
    if any(path.startswith(x) for x in p.excluded_paths):
        return 0
    return max((len(x) for x in p.paths if path.startswith(x)), default=0)


def file_owner(profiles: dict[str, Profile], paths: Iterable[str]) -> tuple[Profile, str] | None:
    """(profile, an example path) of the profile with trees that most specifically claims more than
    half of the files a series touches, documentation aside (like MAINTAINERS, the longest prefix wins)."""
    paths = [x for x in dict.fromkeys(paths) if x]
    code = [x for x in paths if not any(x.startswith(d) or x == d for d in DEFAULT_DOCS_PATHS)] or paths
    if not code:
        return None
    tally: dict[str, list[str]] = {}
    for path in code:
        best = max(((_claim(p, path), p.name) for p in profiles.values() if p.trees and p.select_by_files),
                   default=(0, ""))
        if best[0]:
            tally.setdefault(best[1], []).append(path)
    if not tally:
        return None
    name, owned = max(tally.items(), key=lambda kv: len(kv[1]))
    return (profiles[name], owned[0]) if len(owned) * 2 > len(code) else None


def foreign_patches(profiles: dict[str, Profile], chosen: Profile, series) -> dict[int, tuple[str, tuple[str, ...], str]]:
    """Patches of a series whose files another profile claims, the series' own profile none of them
    (a wireless driver patch inside a tree-wide series sent to another subsystem): counter ->
    (that profile, its lists, a path)."""
    from ..model.series import is_pull_request

    out = {}
    if len(series.patches) < 2 or is_pull_request(series):  # a pull request carries what its trees took
        return out
    for p in series.patches:
        paths = [f.path for f in p.diff.files if not chosen.is_test_path(f.path) and not chosen.is_docs_path(f.path)]
        if not paths:
            continue  # tests and documentation travel with their series
        owner = file_owner(profiles, paths)
        if owner is not None and owner[0].name != chosen.name and not any(_claim(chosen, x) for x in paths):
            out[p.counter] = (owner[0].name, owner[0].lists, owner[1])
    return out


def _tag_reading(p: Profile, tags: list[str]) -> TreeReading | None:
    """The tree a subject tag names in `p` as it is (in any case), was, or is fed by (no aliases,
    no misspellings: `-next` names no project)."""
    spec = p.exact_tree(tags)
    if spec is not None:
        return TreeReading(spec, spec.name, "exact")
    reading = p.read_tree(tags)
    return reading if reading is not None and reading.how in ("former", "subtree", "case") else None


_FROM_REPO: Any = object()


def select_profile(profiles: dict[str, Profile], *, name: str | None, tags: Iterable[str],
                   recipients: Iterable[str], repo: Path | None = None, config: Any = None,
                   paths: Iterable[str] = (), default: Any = _FROM_REPO) -> tuple[Profile, str]:
    """(profile, why it was chosen); see the module docstring for the order. `default`, when
    given, is the (name, where it was set) that stands for the repository's default (a profile
    file the caller has read: context/profile_file.py)."""
    if name:
        if name not in profiles:
            raise ConfigError(f"unknown profile {name!r} (known: {', '.join(sorted(profiles))})")
        return profiles[name], "chosen with --profile"
    tags = list(tags)
    owner = file_owner(profiles, paths)
    for p in profiles.values():
        reading = _tag_reading(p, tags)
        if reading is None:
            continue
        # `[PATCH net-next] ath11k: ...`: the files are wireless's, netdev excludes them, and the
        # wireless maintainers read the tag as their own development tree.
        if owner is not None and owner[0] is not p and not any(_claim(p, x) for x in paths):
            theirs = owner[0].read_tree(tags)
            if theirs is not None:
                return owner[0], (f"the files it touches are {owner[0].name}'s ({owner[1]}); its subject tag "
                                  f"[{theirs.written}] reads there as {theirs.spec.name}")
        return p, f"subject tag [{reading.written}]"
    default = repo_default_profile(repo, config) if default is _FROM_REPO else default
    if default is not None:
        if default[0] not in profiles:
            raise ConfigError(f"{default[1]} names unknown profile {default[0]!r} "
                              f"(known: {', '.join(sorted(profiles))})")
        return profiles[default[0]], f"repository default ({default[1]})"
    if owner is not None:
        return owner[0], f"the files it touches are {owner[0].name}'s ({owner[1]})"
    # A subsystem's list says more than LKML, which is Cc'd on nearly everything: the first
    # address (To before Cc) that a profile with trees claims wins over an earlier LKML.
    claimed = sorted(((addr, p) for addr in _addresses(recipients) for p in profiles.values() if addr in p.lists),
                     key=lambda c: not c[1].trees)
    if claimed:
        return claimed[0][1], f"sent to {claimed[0][0]}"
    return profiles["generic"], "no tree tag, known files or known list: generic rules"
