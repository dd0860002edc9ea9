"""The table of reply forms (reviewtool/data/reply-forms.toml): what a maintainer's reply looks
like when it says a patch was applied, or sets its state. Data, so that a profile can add the
forms of its own list's bots and habits (`[[replies.forms]]`, tried before the shipped ones).

`load_forms(extra)` gives the shipped forms after `extra` (tables with the same keys as the
file), each checked and compiled once; a bad table raises ConfigError naming it.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

from ..errors import ConfigError
from ..foreign_regex import unsafe

STATES = ("applied", "changes-requested", "superseded", "rejected", "deferred", "not-applicable", "nak")
LISTS = ("commit-lines", "korg-summary", "b4-summary", "pw-list")
TRUSTS = ("form", "applier", "thread")
REASONS = ("above", "around")
_KEYS = {"name", "line", "state", "states", "by", "list", "trust", "reason", "alone", "needs_list", "ignore_case",
         "hint", "senders", "below_signature", "lead", "tree_below"}


@dataclass(frozen=True, eq=False)  # compared by identity: forms are compiled once and shared
class ReplyForm:
    name: str
    line: re.Pattern[str]
    state: str | None = None  # None: the `state` group's word, mapped through `states`
    states: dict[str, str] = field(default_factory=dict)
    by: re.Pattern[str] | None = None
    tree_below: re.Pattern[str] | None = None  # the next line of the reply's own, when `line` names no tree
    list: str | None = None
    trust: str = "form"
    reason: str | None = None
    alone: bool = False
    needs_list: bool = False
    hints: tuple[str, ...] = ()  # words (lower case) of which every line this form matches holds one
    # the addresses (shell patterns, lower case) a form of trust "form" proves itself from: a bot's
    # wording from any other sender is that sender's own words, and counts only from an applier
    senders: tuple[str, ...] = ()
    below_signature: bool = False  # the line may stand below the "-- " line (netdev's "-- \npw-bot: cr")
    lead: bool = False  # the line may also be the one clause of substance a paragraph opens with
    origin: str = ""

    def trust_from(self, sender: str) -> str:
        """The form's trust for a reply from `sender`: "applier" when the form names its senders
        and `sender` is not one of them."""
        if self.senders and not any(fnmatch.fnmatchcase(sender.lower(), s) for s in self.senders):
            return "applier"
        return self.trust

    def state_of(self, word: str | None) -> str | None:
        """The state this form sets, given the `state` group's word; None for a word the table
        maps to "" (a state nobody acts on) or does not know."""
        if self.state:
            return self.state
        return self.states.get((word or "").strip()) or None


def _compile(pattern: Any, flags: int, what: str, whole: bool = False) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{what} must be a non-empty regular expression")
    # a profile's form may come from a cloned repository's .reviewtool.toml: nothing in it may
    # take exponential time on a reply (foreign_regex.py; the shipped forms pass the same test)
    why = unsafe(pattern, flags)
    if why:
        raise ConfigError(f"{what}: {why} can take exponential time on a long reply line; write it without one")
    try:
        # (?<![ \t]): a blank run is entered from its start only, so that a search (not only the
        # fullmatch a reply is read with) stays linear in a line of blanks
        if whole:  # only ever the whole text: anchored, so that even a search is tried at one place
            return re.compile(rf"\A[ \t]*(?:{pattern})[ \t]*\Z", flags)
        return re.compile(rf"(?<![ \t])[ \t]*(?:{pattern})[ \t]*", flags)
    except re.error as exc:
        raise ConfigError(f"{what} is not a valid regular expression ({exc})") from exc


def _form(t: Any, origin: str) -> ReplyForm:
    if not isinstance(t, dict) or not isinstance(t.get("name"), str):
        raise ConfigError(f"{origin}: a reply form needs a name")
    what = f"{origin}: reply form {t['name']!r}"
    unknown = sorted(set(t) - _KEYS)
    if unknown:
        raise ConfigError(f"{what}: unknown keys {', '.join(unknown)}")
    states = t.get("states", {})
    if not isinstance(states, dict) or any(v and v not in STATES for v in states.values()):
        raise ConfigError(f"{what}: states must map words to one of {', '.join(STATES)} (or \"\")")
    state = t.get("state")
    if (state is None) == (not states) or (state is not None and state not in STATES):
        raise ConfigError(f"{what}: give `state` (one of {', '.join(STATES)}) or `states`, not both")
    for key, allowed in (("list", LISTS), ("trust", TRUSTS), ("reason", REASONS)):
        if t.get(key) is not None and t[key] not in allowed:
            raise ConfigError(f"{what}: {key} must be one of {', '.join(allowed)}")
    flags = re.I if t.get("ignore_case") else 0
    line = _compile(t.get("line"), flags, f"{what}: line")
    if states and "state" not in line.groupindex:
        raise ConfigError(f"{what}: a form with `states` needs a (?P<state>...) group in its line")
    return ReplyForm(name=t["name"], line=line, state=state, states={str(k): str(v) for k, v in states.items()},
                     by=_compile(t["by"], flags, f"{what}: by") if "by" in t else None, list=t.get("list"),
                     tree_below=_compile(t["tree_below"], flags, f"{what}: tree_below") if "tree_below" in t else None,
                     trust=t.get("trust", "form"), reason=t.get("reason"), alone=bool(t.get("alone")),
                     needs_list=bool(t.get("needs_list")), hints=_hints(t.get("hint", ()), what),
                     senders=_senders(t.get("senders", ()), what), below_signature=bool(t.get("below_signature")),
                     lead=bool(t.get("lead")), origin=origin)


def _senders(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and "@" in v for v in value):
        raise ConfigError(f"{what}: senders must be a list of addresses (shell patterns allowed)")
    return tuple(v.lower() for v in value)


@lru_cache(maxsize=1)
def _shipped_table() -> dict[str, Any]:
    return tomllib.loads(resources.files("reviewtool.data").joinpath("reply-forms.toml").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def shipped_forms() -> tuple[ReplyForm, ...]:
    return tuple(_form(t, "reply-forms.toml") for t in _shipped_table()["forms"])


@lru_cache(maxsize=1)
def courtesy() -> re.Pattern[str]:
    """The table's `courtesy`: a clause or sentence that carries no act ("Thanks for explaining",
    "Good catch", "Sure."), which a `lead` form reads past."""
    return _compile(_shipped_table()["courtesy"], re.I, "reply-forms.toml: courtesy", whole=True)


def _hints(value: Any, what: str) -> tuple[str, ...]:
    words = [value] if isinstance(value, str) else value
    if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) and w for w in words):
        raise ConfigError(f"{what}: hint must be a word or a list of words")
    return tuple(w.lower() for w in words)


def hints(forms: tuple[ReplyForm, ...]) -> tuple[str, ...] | None:
    """The words (lower case) of which a line must hold one for some form to match it, or None
    when a form gives no `hint` (then every line is tried)."""
    if any(not f.hints for f in forms):
        return None
    return tuple(sorted({w for f in forms for w in f.hints}))


def load_forms(extra: Iterable[dict[str, Any]] = (), origin: str = "profile") -> tuple[ReplyForm, ...]:
    """A profile's own forms (tables as in reply-forms.toml), then the shipped ones."""
    return tuple(_form(t, origin) for t in extra) + shipped_forms()
