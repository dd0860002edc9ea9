"""Git history of a local repository, asked in batches: what the series claims about history.

Public API (rules and other context stages use only this; they never run git themselves):

    hist = ctx.history                       # None when no repository was given
    hist.resolve(["abc123def456", ...])      # {query: Resolution(status, sha, subject, author, ...)}
    hist.commit(sha) / hist.author(sha)      # one resolved commit / its author (Person)
    hist.contains(ref, shas)                 # {sha: bool}: sha is an ancestor of (or equal to) ref
    hist.trees_containing(shas)              # {sha: ("net-next",)}: configured trees holding each sha
    hist.first_tags(shas)                    # {sha: "v6.1-rc1" | None}: first release tag containing it
    hist.tree_refs / hist.tree(name)         # {tree: TreeRef(name, ref, sha, source)}
    hist.resolve_ref("net-next/main")        # full sha of a ref, tree name or sha, or None
    hist.head                                # the repository's HEAD commit (None when unborn)
    hist.is_shallow, hist.is_bare
    hist.count_between(old, new)             # commits in `new` not in `old` ("how far behind")
    hist.commits(revrange, grep=..., paths=...)  # [Commit] of a range, newest first
    hist.reachable_pairs(pairs, within=range)    # {(target, commit): bool}, one walk for all pairs
    hist.subjects_touching(paths, ref, limit)    # [(sha, subject, files)] of recent commits on paths
    hist.prefetch_subjects_touching(ref)     # start that log now, read it later (rules' prefetch hook)
    hist.patch_ids(revrange, paths) / hist.patch_ids_of(diffs)   # git patch-id --stable, batched
    hist.apply_series(base, diffs)           # context.history.apply.ApplyResult (scratch index, never yours)

Every method answers many commits with a fixed number of git processes (one cat-file --batch for
all objects, one name-rev pass, one walk per tree) and never changes the user's repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from ...errors import RepositoryError
from ...model.series import Person
from ...sources.gitconfig import LAYOUT_ARGS, LAYOUT_LINES, GitConfig, RepoFacts
from ...sources.gitbatch import CatFile, GitRunner, ScratchRepo
from .ranges import RangeQueries
from .remotes import remotes_of, tree_refs_wanted
from .values import Commit, Resolution, TreeRef, parse_commit, tag_of

_HEX_RE = re.compile(r"^[0-9a-fA-F]{4,64}$")
_FULL_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # SHA-1 or SHA-256
CONFIG_TREE_PREFIX = "reviewtool.tree."  # git config reviewtool.tree.<name> = <ref>
_TREE_KEYS = r"^(reviewtool\.tree\.|remote\..+\.url$)"
NAME_REV_ARGS_MAX = 256  # up to this many commits, name-rev gets them as arguments (see first_tags)


class History(RangeQueries):
    """A read-only view of one repository's history; open with History.open(path)."""

    def __init__(self, runner: GitRunner, *, git_dir: Path, objects_dir: Path, is_bare: bool,
                 is_shallow: bool, trees: dict[str, TreeRef], release_pattern: str = "v[0-9]*",
                 object_format: str = "sha1", shallow_file: Path | None = None):
        self.runner = runner
        self.object_format = object_format  # "sha1" or "sha256": the scratch repository must match
        self.path = runner.repo
        self.git_dir = git_dir
        self.objects_dir = objects_dir
        self.is_bare = is_bare
        self.is_shallow = is_shallow
        # The shallow boundary lives in the common directory: a linked worktree's git_dir has none.
        self.shallow_file = shallow_file or git_dir / "shallow"
        self.release_pattern = release_pattern
        self.catfile = CatFile(runner)
        self._trees = trees
        self._scratch: ScratchRepo | None = None
        self._apply_scratch: ScratchRepo | None = None
        self._resolved: dict[str, Resolution] = {}
        self._contains: dict[tuple[str, str], bool] = {}
        self._tags: dict[str, str | None] = {}
        self._pairs: dict[tuple[str, str], bool] = {}  # (target, commit) -> strict ancestor
        self._walks: dict = {}  # git commands running in the background (ranges.background)
        self._pending_contains: dict = {}  # (base, shas) -> ScratchRepo.start_merged_into()
        self._pending_tags: dict = {}  # shas -> started name-rev (prefetch_first_tags)
        self.memo: dict = {}  # per-review results rules share (e.g. the Fixes claims of a series)

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, trees: Sequence[Any] = (), overrides: dict[str, str] | None = None,
             release_pattern: str = "v[0-9]*", git: str = "git", facts: RepoFacts | None = None) -> "History":
        """Open the repository at `path` (work tree, bare repository or linked worktree).

        `trees` are the profile's TreeSpecs (name, kind, ref); a ref is overridden by git config
        `reviewtool.tree.<name>` and then by `overrides` (--tree NAME=REF). `facts` is what lint
        already read of the repository. Raises RepositoryError when `path` is not a git repository.
        """
        path = Path(path)
        if not path.is_dir():
            raise RepositoryError(f"{path}: no such directory (--repo)")
        runner = GitRunner(path, git=git)
        layout = facts.layout if facts is not None else None
        if layout is None:
            res = runner.run(["rev-parse", *LAYOUT_ARGS], check=False)
            if res.code != 0:
                raise RepositoryError(f"{path}: not a git repository (--repo)")
            layout = tuple(res.out.splitlines()[:LAYOUT_LINES])
        bare, shallow, git_dir, objects, shallow_file, object_format = layout
        objects_path = Path(objects) if os.path.isabs(objects) else path / objects
        shallow_path = Path(shallow_file) if os.path.isabs(shallow_file) else path / shallow_file
        if facts is None:  # the tree refs and the remotes that may hold the trees
            config = GitConfig.parse(runner.run(["config", "-z", "--get-regexp", _TREE_KEYS], check=False).out)
        else:
            config = facts.config
        specs, alternatives = tree_refs_wanted(trees, config.matching(r"^reviewtool\.tree\."), overrides,
                                               remotes_of(config))
        hist = cls(runner, git_dir=Path(git_dir), objects_dir=objects_path, is_bare=bare == "true",
                   is_shallow=shallow == "true", trees=specs, release_pattern=release_pattern,
                   # git before 2.29 echoes the option it does not know: SHA-1 then
                   object_format=object_format.strip() if object_format.strip() in ("sha1", "sha256") else "sha1",
                   shallow_file=shallow_path)
        early = facts.take("cat-file") if facts is not None else None
        if early is not None:  # started by prefetch() while the series was read
            hist.catfile = early
        hist._resolve_tree_refs(alternatives)
        return hist

    def _resolve_tree_refs(self, alternatives: dict[str, tuple[str, ...]]) -> None:
        """Each tree's ref as configured, or the first of its remote's refs that exists."""
        names = list(self._trees)
        wanted = {n: alternatives.get(n) or (self._trees[n].ref,) for n in names}
        queries = [f"{ref}^{{commit}}" for n in names for ref in wanted[n]] + ["HEAD^{commit}"]
        safe = [q if " " not in q and q.strip() == q and q else "invalid^{commit}" for q in queries]
        entries = iter(self.catfile.query(safe))
        for name in names:
            t = self._trees[name]
            found = [(ref, e.sha) for ref, e in zip(wanted[name], [next(entries) for _ in wanted[name]])
                     if e.status == "found"]
            ref, sha = found[0] if found else (t.ref, None)
            self._trees[name] = TreeRef(t.name, ref, t.source, sha, t.kind)
        last = next(entries)
        self._head = last.sha if last.status == "found" else None

    def close(self) -> None:
        """Wait for background git commands, stop the cat-file process, remove the scratch repository."""
        for pending in (*self._walks.values(), *self._pending_contains.values(), *self._pending_tags.values()):
            pending.wait()
        self.catfile.close()
        for scratch in (self._scratch, self._apply_scratch):
            if scratch is not None:
                scratch.close()
        self._scratch = self._apply_scratch = None

    @property
    def scratch(self) -> ScratchRepo:
        if self._scratch is None:
            self._scratch = ScratchRepo(self.runner, self.objects_dir, self.shallow_file if self.is_shallow else None,
                                        self.object_format)
        return self._scratch

    @property
    def apply_scratch(self) -> ScratchRepo:
        """A scratch repository that borrows nothing: patches are applied there, with the blobs
        they need copied in (context.history.apply), so no object write can touch the user's."""
        if self._apply_scratch is None:
            self._apply_scratch = ScratchRepo(self.runner, None, None, self.object_format)
        return self._apply_scratch

    # -- trees -----------------------------------------------------------------------------------

    @property
    def tree_refs(self) -> dict[str, TreeRef]:
        """Configured trees (profile, then git config, then --tree), with what each ref resolves to."""
        return dict(self._trees)

    def tree(self, name: str | None) -> TreeRef | None:
        return self._trees.get(name) if name else None

    @property
    def head(self) -> str | None:
        return self._head

    # -- objects ---------------------------------------------------------------------------------

    def resolve(self, shas: Iterable[str]) -> dict[str, Resolution]:
        """Resolve abbreviated or full shas (as written in mails) to commits, all at once.

        status "found": one commit matches; "ambiguous": several commits match (candidates lists
        them, ask for more digits); "unknown": nothing matches (or the text is not hex);
        "not-a-commit": the sha names a blob or tree. Keys are the queries lower-cased.
        """
        wanted = []
        for s in shas:
            q = (s or "").strip().lower()
            if q not in self._resolved and q not in wanted:
                wanted.append(q)
        hexes = [q for q in wanted if _HEX_RE.match(q)]
        for q in wanted:
            if q not in hexes:
                self._resolved[q] = Resolution(q, "unknown")
        if hexes:
            self._resolve_hex(hexes)
        return {(s or "").strip().lower(): self._resolved[(s or "").strip().lower()] for s in shas}

    def _resolve_hex(self, queries: list[str]) -> None:
        first = self.catfile.query(queries)
        peel = [e.query for e in first if e.status == "ambiguous" or (e.status == "found" and e.kind == "tag")]
        peeled = {e.query[: -len("^{commit}")]: e for e in self.catfile.query([q + "^{commit}" for q in peel])}
        ambiguous = []
        for e in first:
            if e.query in peeled:
                p = peeled[e.query]
                if p.status == "found":
                    self._resolved[e.query] = Resolution(e.query, "found", parse_commit(p.sha, p.content))
                elif e.status == "ambiguous":
                    ambiguous.append(e.query)
                else:
                    self._resolved[e.query] = Resolution(e.query, "not-a-commit", kind="tag")
            elif e.status == "found" and e.kind == "commit":
                self._resolved[e.query] = Resolution(e.query, "found", parse_commit(e.sha, e.content))
            elif e.status == "found":
                self._resolved[e.query] = Resolution(e.query, "not-a-commit", kind=e.kind)
            else:
                self._resolved[e.query] = Resolution(e.query, "unknown")
        if ambiguous:
            self._resolve_ambiguous(ambiguous)

    def _resolve_ambiguous(self, queries: list[str]) -> None:
        # Rare: one rev-parse for all of them, then the candidates' commits through cat-file.
        out = self.runner.run(["rev-parse"] + [f"--disambiguate={q}" for q in queries], check=False).out
        full = [line for line in out.splitlines() if _FULL_RE.match(line)]
        commits = {e.sha: parse_commit(e.sha, e.content) for e in self.catfile.query(full)
                   if e.status == "found" and e.kind == "commit"}
        for q in queries:
            cands = tuple(sorted((c for s, c in commits.items() if s.startswith(q)), key=lambda c: c.sha))
            self._resolved[q] = Resolution(q, "ambiguous", candidates=cands)

    def commit(self, sha: str) -> Commit | None:
        """The commit `sha` names, or None."""
        return self.resolve([sha])[sha.strip().lower()].commit

    def author(self, sha: str) -> Person | None:
        """Author of the commit `sha` names (for Cc of blamed authors), or None."""
        c = self.commit(sha)
        return c.author if c else None

    # -- ancestry --------------------------------------------------------------------------------

    def contains(self, ref: str, shas: Iterable[str]) -> dict[str, bool]:
        """{sha: True when sha is an ancestor of, or equal to, `ref`}, one walk for all shas.

        `ref` is a ref name, a tree name from tree_refs, or a sha. Unresolvable shas or ref give
        False. Shas may be abbreviated; keys are as given.
        """
        shas = list(shas)
        base, full, todo = self._contains_query(ref, shas)
        if base is None:
            return {s: False for s in shas}
        if todo:
            pending = next((k for k in self._pending_contains if k[0] == base and set(todo) <= set(k[1])), None)
            asked = pending[1] if pending else todo
            merged = (self._pending_contains.pop(pending).result() if pending
                      else self.scratch.merged_into(base, todo))
            for f in asked:  # a started walk may have answered for more shas than asked now
                self._contains[(base, f)] = f in merged
        return {s: bool(f) and self._contains[(base, f)] for s, f in full.items()}

    def prefetch_contains(self, ref: str, shas: Iterable[str]) -> None:
        """Start the walk contains(ref, shas) will read, so it runs while other checks work."""
        base, _, todo = self._contains_query(ref, list(shas))
        if base is not None and todo and (base, tuple(todo)) not in self._pending_contains:
            self._pending_contains[(base, tuple(todo))] = self.scratch.start_merged_into(base, todo)

    def _contains_query(self, ref: str, shas: list[str]) -> tuple[str | None, dict[str, str | None], list[str]]:
        tree = self._trees.get(ref)
        base = tree.sha if tree else self._full(ref)
        if base is None:
            return None, {}, []
        full = {s: self._full(s) for s in shas}
        return base, full, sorted({f for f in full.values() if f and (base, f) not in self._contains})

    def trees_containing(self, shas: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """{sha: names of the configured trees whose head contains it}; one walk per tree."""
        shas = list(shas)
        out: dict[str, list[str]] = {s: [] for s in shas}
        for name, t in self._trees.items():
            if t.sha is None:
                continue
            for s, inside in self.contains(name, shas).items():
                if inside:
                    out[s].append(name)
        return {s: tuple(v) for s, v in out.items()}

    def prefetch_trees_containing(self, shas: Iterable[str]) -> None:
        shas = list(shas)
        for name, t in self._trees.items():
            if t.sha is not None:
                self.prefetch_contains(name, shas)

    def count_between(self, old: str, new: str) -> int | None:
        """How many commits `new` has that `old` lacks (`git rev-list --count old..new`)."""
        a, b = self._full(old) or self._tree_sha(old), self._full(new) or self._tree_sha(new)
        if not a or not b:
            return None
        res = self.runner.run(["rev-list", "--count", f"{a}..{b}"], check=False)
        return int(res.out.strip()) if res.code == 0 and res.out.strip().isdigit() else None

    def first_tags(self, shas: Iterable[str]) -> dict[str, str | None]:
        """{sha: first release tag containing it ("v6.1-rc1"), or None}: one name-rev pass.

        Release tags match the profile's `release_tag_pattern` (default v[0-9]*); name-rev prefers
        the oldest tag, which is what `git describe --contains` reports.
        """
        shas = list(shas)
        full = {s: self._full(s) for s in shas}
        todo = sorted({f for f in full.values() if f and f not in self._tags})
        base = self._name_rev_args()
        if todo and len(todo) <= NAME_REV_ARGS_MAX:
            # As arguments, name-rev stops walking below the oldest commit asked about (fast on
            # a kernel); from stdin it names the whole history, which only pays for many commits.
            pending = self._pending_tags.pop(tuple(todo), None)
            res = pending.result() if pending else self.runner.run(base + todo, check=False)
        elif todo:
            res = self.runner.run(base + ["--annotate-stdin"], input="".join(f + "\n" for f in todo), check=False)
            if res.code != 0:  # git before 2.40 spells it --stdin
                res = self.runner.run(base + ["--stdin"], input="".join(f + "\n" for f in todo), check=False)
        if todo:
            wanted = set(todo)
            for line in res.out.splitlines():
                sha, _, name = line.partition(" ")
                if sha in wanted:
                    self._tags[sha] = tag_of(name) if name else None
            for f in todo:
                self._tags.setdefault(f, None)
        return {s: (self._tags.get(f) if f else None) for s, f in full.items()}

    def prefetch_first_tags(self, shas: Iterable[str]) -> None:
        """Start the name-rev first_tags(shas) will read (when it takes arguments)."""
        todo = tuple(sorted({f for s in shas if (f := self._full(s)) and f not in self._tags}))
        if todo and len(todo) <= NAME_REV_ARGS_MAX and todo not in self._pending_tags:
            self._pending_tags[todo] = self.runner.start(self._name_rev_args() + list(todo))

    def _name_rev_args(self) -> list[str]:
        return ["name-rev", "--tags", f"--refs=refs/tags/{self.release_pattern}"]

    def resolve_ref(self, name: str) -> str | None:
        """The full commit sha a ref name, tree name or sha stands for, or None."""
        return self._tree_sha(name) or self._full(name)

    def _full(self, name: str | None) -> str | None:
        if not name:
            return None
        if _FULL_RE.match(name):
            return name
        if _HEX_RE.match(name):
            return self.resolve([name])[name.lower()].sha
        entry = self.catfile.query([f"{name}^{{commit}}"])[0] if " " not in name else None
        return entry.sha if entry is not None and entry.status == "found" else None

    def _tree_sha(self, name: str) -> str | None:
        t = self._trees.get(name)
        return t.sha if t else None
