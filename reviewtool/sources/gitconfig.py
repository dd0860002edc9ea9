"""A repository's git configuration, read once (`git config -z --list`) and asked many times.

Lint reads the branch's settings, the sendemail recipients and reviewtool's own keys; one read
replaces a `git config --get...` process per question. Keys are as git prints them: section and
variable lowercased, a subsection (a branch name) as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GitConfig:
    entries: tuple[tuple[str, str | None], ...]  # (key, value) in git's order; None: a key without '='

    @classmethod
    def parse(cls, text: str) -> "GitConfig":
        out = []
        for item in text.split("\0"):
            if not item:
                continue
            key, sep, value = item.partition("\n")
            out.append((key, value if sep else None))
        return cls(tuple(out))

    @classmethod
    def read(cls, repo: Path) -> "GitConfig | None":
        """None when git cannot read it (the callers then ask git one key at a time)."""
        from .gitbatch import GitRunner

        res = GitRunner(repo).run(["config", "-z", "--list"], check=False)
        return cls.parse(res.out) if res.code == 0 else None

    def matching(self, pattern: str) -> list[tuple[str, str | None]]:
        """What `git config --get-regexp PATTERN` lists, in order."""
        rx = re.compile(pattern)
        return [(k, v) for k, v in self.entries if rx.search(k)]

    def last(self, key: str) -> str | None:
        """What `git config --get KEY` prints: the last value."""
        key = _canonical(key)
        found = None
        for k, v in self.entries:
            if k == key:
                found = v if v is not None else ""
        return found


def _canonical(key: str) -> str:
    """Section and variable names are case-insensitive, a subsection is not."""
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{sub}.{name.lower()}" if dot else f"{section.lower()}.{name.lower()}"


@dataclass(frozen=True)
class RepoFacts:
    """What a source already read of the repository, so the context does not ask git again."""

    config: GitConfig
    # `git rev-parse --is-bare-repository --is-shallow-repository --absolute-git-dir
    #  --git-path objects --git-path shallow --show-object-format`, as printed (see LAYOUT_ARGS)
    layout: tuple[str, ...] | None = None
    # Reads the context started early (context prefetch hooks), by name; taken by their stage.
    started: dict[str, Any] = field(default_factory=dict, compare=False)

    def take(self, name: str) -> Any:
        return self.started.pop(name, None)

    def close(self) -> None:
        """Finish what was started and not taken (a review that stopped early)."""
        while self.started:
            _, handle = self.started.popitem()
            (getattr(handle, "close", None) or handle.wait)()


LAYOUT_ARGS = ("--is-bare-repository", "--is-shallow-repository", "--absolute-git-dir", "--git-path", "objects",
               "--git-path", "shallow", "--show-object-format")
LAYOUT_LINES = 6
