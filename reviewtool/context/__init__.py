"""What rules may know besides the series: the target project's profile, the git history of a
local repository, the time of review. Built once per review and passed down, read-only.

Capabilities ("repo", ...) name what a rule `needs`; when one is missing the rule is listed as
not checked with `why_not`, never run on a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from .profiles.profile import Profile


@dataclass(frozen=True)
class Context:
    profile: Profile
    history: Any = None  # context.history.repository.History when a repository is given
    calendar: Any = None  # context.calendar: release / merge-window dates
    maintainers: Any = None  # context.maintainers.lookup: MAINTAINERS sections and .mailmap
    classification: Any = None  # context.classify.series.Classification: per-patch fix/development verdicts
    reply_state: Any = None  # context.replies.settled.state_data: what the maintainers' replies settled
    reply_claims: tuple[dict[str, Any], ...] = ()  # replies stating a state their sender may not set
    reply_requests: tuple[dict[str, Any], ...] = ()  # what replies ask of the author (context/reply_acts)
    reply_approvals: tuple[dict[str, Any], ...] = ()  # appliers' reviews in words (context/reply_acts)
    rfc_lifted: dict[str, Any] | None = None  # the RFC tag taken off in the thread (context/reply_acts)
    # counter -> (profile name, lists, a path) of another profile that claims all of a patch's files
    foreign: Mapping[int, tuple[str, tuple[str, ...], str]] = field(default_factory=dict)
    now: datetime | None = None
    unavailable: Mapping[str, str] = field(default_factory=dict)  # capability -> why it is missing
    options: Mapping[str, Any] = field(default_factory=dict)  # command-line settings rules may read
    closers: tuple[Any, ...] = ()  # called once the review is done (e.g. stop git cat-file)

    def has(self, need: str) -> bool:
        if need == "repo":
            return self.history is not None
        return need not in self.unavailable

    def why_not(self, need: str) -> str:
        if need == "repo" and self.history is None:
            return self.unavailable.get("repo", "no repository given (use --repo PATH)")
        return self.unavailable.get(need, f"{need} not available")

    def declared_ref(self, series) -> Any:
        """The repository's TreeRef of the tree the series' subject names (None without one)."""
        spec = self.profile.series_tree(series)
        return self.history.tree(spec.name) if spec else None

    def setting(self, key: str, default: Any = None) -> Any:
        """A profile setting, overridden by a command-line option of the same name."""
        if key in self.options and self.options[key] is not None:
            return self.options[key]
        return self.profile.settings.get(key, default)
