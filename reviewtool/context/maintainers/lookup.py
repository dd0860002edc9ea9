"""MAINTAINERS and .mailmap: who must see a patch, matched the way scripts/get_maintainer.pl does.

get_maintainer v0.26 semantics we keep (kernel-rules.md §11):
- F/X values are globs turned into regexes by escaping `.`, `*` -> `.*`, `?` -> `.`; they match
  from the start of the path with no end anchor; a pattern not ending in `/` only matches paths
  with the same number of slashes; an existing directory gets a trailing `/`.
- X is checked first and drops the whole section for that file; N is an unanchored regex on the
  path; K is a regex on the mail text before the diff and on its +/- lines.
- Sections are ranked by pattern depth, most specific first; the depth of the last matching F line
  of a section counts. Subscriber-only lists are left out; "THE REST" (F: * and */) is left out
  too, since get_maintainer drops its maintainer and NIPA ignores its list.
- No git fallback (`--nogit --nogit-fallback`, as b4's auto-to-cc runs it): the signers of recent
  commits are a guess, and silence beats a guess.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from ...errors import RepositoryError
from .mailmap import Mailmap, parse_mailmap
from .file_format import Recipient, Section, parse_maintainers
from .patterns import ALWAYS, Lazy
from ...regexlit import TextIndex, required_any

STAGE_ORDER = 60

def _pattern_matches(path: str, pattern: str, rx: Any) -> bool:
    if not rx.match(path):
        return False
    return pattern.endswith("/") or path.count("/") == pattern.count("/")


@dataclass(frozen=True)
class Maintainers:
    """The parsed MAINTAINERS of one tree, with a first-path-component index for speed."""

    sections: tuple[Section, ...]
    mailmap: Mailmap = field(default_factory=Mailmap)
    origin: str = "MAINTAINERS"
    whole_tree: tuple[int, ...] = ()  # sections for every file (Section.whole_tree), when no catch-all
    _index: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)  # per-path answers, keyword regex

    @classmethod
    def build(cls, sections: tuple[Section, ...], mailmap: Mailmap | None = None,
              origin: str = "MAINTAINERS") -> "Maintainers":
        index: dict[str, set[int]] = {}
        for i, s in enumerate(sections):
            for pat in s.files:
                index.setdefault(_literal_directories(pat), set()).add(i)
            if s.has_regexes:
                index.setdefault("N", set()).add(i)  # N: regexes: see _n_candidates
        whole = () if any(s.catch_all for s in sections) else tuple(i for i, s in enumerate(sections)
                                                                     if s.whole_tree)
        return cls(sections, mailmap or Mailmap(), origin, whole, {k: tuple(sorted(v)) for k, v in index.items()})

    def sections_for_file(self, path: str) -> list[tuple[Section, int]]:
        """(section, depth) for one path, most specific first, as get_maintainer ranks them."""
        key = ("file", path)
        if key not in self._memo:  # a series touches the same files again and again
            self._memo[key] = self._sections_for_file(path)
        return self._memo[key]

    def _sections_for_file(self, path: str) -> list[tuple[Section, int]]:
        # A pattern can only match below the literal directories it starts with: the path's own
        # directories (a, a/b, a/b/c for a/b/c/f.c) name every section that may hold it.
        parts = path.split("/")[:-1]
        found_in = {"*"} | {"/".join(parts[:k]) for k in range(1, len(parts) + 1)}
        candidates = sorted(set().union(*(self._index.get(key, ()) for key in found_in)) | self._n_candidates(path))
        found: list[tuple[Section, int]] = []
        for i in candidates:
            s = self.sections[i]
            if any(_pattern_matches(path, pat, rx) for pat, rx in s.excludes):
                continue
            depth = None
            for kind, pat, rx, d in s.matchers:  # the last matching F or N line decides, as in get_maintainer
                if (kind == "F" and _pattern_matches(path, pat, rx)) or \
                        (kind == "N" and self._n_may_match(rx, path) and rx.search(path)):
                    depth = d
            if depth is not None:
                found.append((s, depth))
        found.sort(key=lambda sd: (-sd[1], sd[0].order))
        return found + [(self.sections[i], -2) for i in self.whole_tree]  # the least specific of all

    def _n_candidates(self, path: str) -> set[int]:
        """Sections with N: regexes that may match `path`: a regex whose every match contains one
        of a few texts (regexlit) is only tried on paths holding one of them."""
        if "n-index" not in self._memo:
            always, exact, folded = set(), [], []
            for i in self._index.get("N", ()):
                reqs = [self._n_requirement(rx) for kind, _, rx, _ in self.sections[i].matchers if kind == "N"]
                if None in reqs:
                    always.add(i)
                    continue
                for texts, ignore_case in reqs:
                    (folded if ignore_case else exact).extend((t, i) for t in texts)
            self._memo["n-index"] = (always, TextIndex(exact), TextIndex(folded), {i for _, i in folded})
        always, exact, folded, folded_sections = self._memo["n-index"]
        found = always | exact.found(path)
        return found | (folded.found(path.lower()) if path.isascii() else folded_sections)

    def _n_requirement(self, rx) -> tuple[tuple[str, ...], bool] | None:
        key = ("requires", rx.pattern, rx.flags)
        if key not in self._memo:
            self._memo[key] = required_any(rx.pattern, rx.flags)
        return self._memo[key]

    def _n_may_match(self, rx, path: str) -> bool:
        req = self._n_requirement(rx)
        return req is None or _may_contain(req, path, path.lower() if path.isascii() else None)

    def sections_for_text(self, lines: Iterable[str]) -> list[Section]:
        """Sections whose K: keyword matches any of the lines (mail text and +/- diff lines)."""
        keyed = self._keyword_index()
        if keyed is None:
            return []
        always, exact, folded = keyed
        text = list(lines)
        joined = "\n".join(text)
        lowered = joined.lower() if joined.isascii() else None  # case-free tests hold for ASCII only
        # Cheapest first: the texts keywords need (each tested once, as a substring), then one
        # search over all lines (multi-line mode: whatever matches a line matches there too), and
        # the exact per-line test only for the few sections still in.
        live: dict[int, list] = {}
        for i, rx in always:
            live.setdefault(i, []).append(rx)
        for t, pairs in exact.items():
            if t in joined:
                for i, rx in pairs:
                    live.setdefault(i, []).append(rx)
        for t, pairs in folded.items():
            if lowered is None or t in lowered:
                for i, rx in pairs:
                    live.setdefault(i, []).append(rx)
        hits: list[Section] = []
        for i in sorted(live):
            rxs = list(dict.fromkeys(live[i]))
            if any(self._multiline(rx).search(joined) for rx in rxs) and \
                    any(rx.search(line) for rx in rxs for line in text):
                hits.append(self.sections[i])
        return hits

    def _keyword_index(self):
        """K: keywords filed under the texts their matches need (regexlit): (always tried,
        {text: [(section, keyword)]}, the same for case-free texts), or None without keywords."""
        if "keyed" not in self._memo:
            always, exact, folded = [], {}, {}
            for i, s in enumerate(self.sections):
                for rx in s.keywords:
                    req = required_any(rx.pattern, re.VERBOSE)
                    if req is None:
                        always.append((i, rx))
                        continue
                    for t in req[0]:
                        (folded if req[1] else exact).setdefault(t, []).append((i, rx))
            self._memo["keyed"] = (always, exact, folded) if (always or exact or folded) else None
        return self._memo["keyed"]

    def _multiline(self, rx) -> "Lazy | re.Pattern[str]":
        key = ("multiline", rx.pattern)
        if key not in self._memo:
            # \A, \Z and negative lookarounds (which see the newline next to a line) read a line
            # differently once lines are joined: those sections keep the per-line test alone.
            plain = not any(t in rx.pattern for t in ("\\A", "\\Z", "\\z", "(?!", "(?<!"))
            self._memo[key] = Lazy(rx.pattern, re.VERBOSE | re.MULTILINE) if plain else ALWAYS
        return self._memo[key]

    def recipients(self, paths: Iterable[str], text_lines: Iterable[str] = (),
                   repositories: Iterable[str] = ()) -> list[Recipient]:
        """Maintainers, reviewers and lists for the files (and keyword matches), de-duplicated by
        address (after .mailmap), people first and lists after, as get_maintainer prints them.
        `repositories` ("iproute2-next.git") are where the patch goes: a whole-tree section that
        names its tree (T:) adds its people only for that tree, its lists always."""
        repositories = frozenset(repositories)
        chosen = [(s, path) for path in sorted(set(paths))  # get_maintainer sorts the file names
                  for s, _ in self.sections_for_file(path)]
        chosen += [(s, "keyword") for s in self.sections_for_text(text_lines)]
        people: list[Recipient] = []
        lists: list[Recipient] = []
        seen_people: set[str] = set()
        seen_lists: set[str] = set()
        for s, why in chosen:
            for r, keys in self._entries(s, why):
                if r.kind != "list" and s.whole_tree and s.repositories and not repositories & set(s.repositories):
                    continue
                out, seen = (lists, seen_lists) if r.kind == "list" else (people, seen_people)
                # One entry per person: get_maintainer drops a second address under an already seen name.
                if not keys & seen:
                    seen.update(keys)
                    out.append(r)
        # A list address that is also a person's (`R: NXP Linux Team <linux-imx@nxp.com>`) is named once.
        people_addresses = {r.address.lower() for r in people}
        return people + [r for r in lists if r.address.lower() not in people_addresses]

    def _entries(self, s: Section, why: str) -> tuple[tuple[Recipient, frozenset[str]], ...]:
        """The section's people and lists as recipients selected by `why`, each with the keys that
        de-duplicate it (after .mailmap). Memoized: every patch touching the file asks again."""
        key = ("entries", s.order, why)
        if key not in self._memo:
            out = []
            if not s.catch_all:
                out += [self._recipient(p.name, p.email, "maintainer", s.role, s.title, why) for p in s.maintainers]
                out += [self._recipient(p.name, p.email, "reviewer", "reviewer", s.title, why) for p in s.reviewers]
                out += [self._recipient("", addr, "list", role, s.title, why) for addr, role in s.lists
                        if role != "subscribers-only"]
            self._memo[key] = tuple(out)
        return self._memo[key]

    def _recipient(self, name: str, addr: str, kind: str, role: str, title: str,
                   why: str) -> tuple[Recipient, frozenset[str]]:
        name, addr = self.mailmap.canonical(name, addr)
        keys = frozenset({addr.lower()} | ({"name:" + name.casefold()} if name else set()))
        return Recipient(address=addr, name=name, kind=kind, role=role, section=title, reason=why), keys


def _may_contain(req: tuple[tuple[str, ...], bool], joined: str, lowered: str | None) -> bool:
    """False only when the text lacks every text one of the keyword's matches must contain."""
    texts, ignore_case = req
    if ignore_case:
        return lowered is None or any(t in lowered for t in texts)
    return any(t in joined for t in texts)


def _literal_directories(pattern: str) -> str:
    """The directories a converted F: pattern starts with, as written ("drivers/net" for
    `drivers/net/`, `drivers/net/foo*` and `drivers/net/foo.c`: a pattern has no end anchor, so
    its last component may match a longer name), or "*" when its first one has a wildcard."""
    literal = []
    for part in pattern.split("/")[:-1]:
        if re.search(r"[.*?\[\](){}|+^$\\]", part.replace(r"\.", "")):
            break
        literal.append(part.replace(r"\.", "."))
    return "/".join(literal) or "*"


# --- loading from a repository -------------------------------------------------------------------

def _read_tree_file(repo: Path, name: str) -> str | None:
    """The file from the work tree, else from HEAD (bare repositories); never writes anything."""
    path = repo / name
    if path.is_file():
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    from ...sources.gitbatch import GitRunner

    try:
        res = GitRunner(repo).run(["cat-file", "blob", f"HEAD:{name}"], check=False, binary=True)
    except RepositoryError:
        return None
    return res.out.decode("utf-8", "replace") if res.code == 0 else None


_WILDCARD_RE = re.compile(r"[*?\[\]\\]")


@lru_cache(maxsize=8)
def _load_cached(repo: str, stamp: tuple[Any, ...]) -> Maintainers | None:
    from . import cache

    root = Path(repo)
    text = _read_tree_file(root, "MAINTAINERS")
    if text is None:
        return None
    mailmap_text = _read_tree_file(root, ".mailmap") or ""
    kept = cache.load(root, text, mailmap_text)
    if isinstance(kept, Maintainers):
        return kept
    top = str(root)
    answers: dict[str, bool] = {}  # path -> is a directory, for the cache to check next time

    def is_dir(pattern: str) -> bool:  # asked for each of the kernel's ~5,000 plain F:/X: paths
        plain = pattern.replace(r"\.", ".")
        if _WILDCARD_RE.search(plain):
            return False
        answers[plain] = os.path.isdir(os.path.join(top, plain))
        return answers[plain]

    built = Maintainers.build(parse_maintainers(text, is_dir), parse_mailmap(mailmap_text),
                              origin=str(root / "MAINTAINERS"))
    cache.store(root, text, mailmap_text, answers, built)
    return built


def load_maintainers(repo: Path) -> Maintainers | None:
    """The repository's MAINTAINERS (cached per file version within a process), or None."""
    stamp: tuple[Any, ...] = ()
    for name in ("MAINTAINERS", ".mailmap"):
        try:
            st = (repo / name).stat()
            stamp += (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp += (None,)
    return _load_cached(str(repo.resolve()), stamp)


def context_stage(series, options, fields: dict[str, Any]) -> None:
    """Fill fields["maintainers"] from the repository's MAINTAINERS file, or say why not."""
    repo = getattr(options, "repo", None)
    if repo is None:
        fields["unavailable"]["maintainers"] = "no repository given, so no MAINTAINERS file (use --repo PATH)"
        return
    maintainers = load_maintainers(Path(repo))
    if maintainers is None:
        fields["unavailable"]["maintainers"] = f"{repo} has no MAINTAINERS file"
        return
    fields["maintainers"] = maintainers
