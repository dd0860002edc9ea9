"""A profile: a target project's trees and policies as plain data, read from TOML (read.py) and
asked by the rules (which tree a tag names, which paths the project owns), never as `if` chains."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable

from ...textdist import edit_distance
from .parts import Closure, RequiredPrefix, SeparatePaths, SubTree, TreeReading, TreeSpec, UntaggedPolicy

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
        # startswith takes a tuple of prefixes: one C call where a generator cost a frame per prefix
        # (tuple() returns a tuple as it is, and takes a list a test built).
        if path.startswith(tuple(self.excluded_paths)):
            return False
        return path.startswith(tuple(self.paths))

    def is_test_path(self, path: str) -> bool:
        return path.startswith(tuple(self.test_paths))

    def is_docs_path(self, path: str) -> bool:
        return path.startswith(tuple(self.docs_paths))  # a path equal to an entry starts with it
