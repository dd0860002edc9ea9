"""The learned profile as TOML that reviewtool reads like a shipped profile, each setting with its
evidence as a comment above it (and in the `[evidence]` table, which `reviewtool rules --profile
FILE` shows). One project: the shipped form; several (BlueZ beside the kernel's Bluetooth trees):
one `[profiles.NAME]` table each, the first the file's default."""

from __future__ import annotations

import json
import re
import textwrap
import unicodedata
from datetime import date
from typing import Any

from .learned_profile import LearnedProfile

_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
WIDTH = 100


def _unseen(ch: str) -> bool:
    """A character a learned name may carry from a stranger's mail that TOML forbids raw (DEL, the
    C0 controls) or a terminal would act on (C1 controls, bidi overrides, zero-width format)."""
    return ch != "\t" and unicodedata.category(ch) in ("Cc", "Cf")


def escaped(text: str) -> str:
    """Such characters as TOML escapes: the value reads back as learned, and nothing acts on it."""
    return "".join(f"\\u{ord(c):04x}" if _unseen(c) and ord(c) <= 0xFFFF else
                   f"\\U{ord(c):08x}" if _unseen(c) else c for c in text)


def drop_unseen_names(lp: LearnedProfile) -> None:
    """Leave out every learned name (a tree, sub-tree, alias, list, applier, path) that carries a
    control or format character: no tree, list or address is named so, and a stranger's mail can
    be; each is said in the profile's "left out" notes."""
    def bad(text: Any) -> bool:
        return isinstance(text, str) and any(_unseen(c) for c in text)

    def said(what: str, name: str) -> None:
        lp.left_out.append(f"{what} {escaped(name)}: a name with control or format characters")

    for what, items in (("tree", lp.trees), ("sub-tree", lp.subtrees)):
        for t in [t for t in items if any(bad(v) for v in t.values() if not isinstance(v, (list, dict)))
                  or any(bad(x) for v in t.values() if isinstance(v, list) for x in v)]:
            items.remove(t)
            said(what, str(t.get("name")))
    for what, items in (("list", lp.lists), ("applier", lp.appliers), ("path", lp.paths)):
        for x in [x for x in items if bad(x)]:
            items.remove(x)
            said(what, x)
    for k in [k for k, v in lp.tree_aliases.items() if bad(k) or bad(v)]:
        said("tree alias", f"{k} = {lp.tree_aliases.pop(k)}")


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    return _quoted(str(v))


def _quoted(text: str) -> str:
    # json escapes the C0 controls TOML forbids; DEL and the rest are escaped here
    return escaped(json.dumps(text, ensure_ascii=False))


def key(k: str) -> str:
    return k if _BARE_KEY_RE.fullmatch(k) else _quoted(k)


def comment(text: str, indent: str = "") -> list[str]:
    """`text` as comment lines; a control or format character is written as its escape (a TOML
    comment may hold none, and a reader's terminal would act on it)."""
    shown = escaped(text)
    return [indent + "# " + line for line in textwrap.wrap(" ".join(shown.split()), WIDTH - 2 - len(indent))] if text else []


class _Out:
    def __init__(self, table_prefix: str):
        self.lines: list[str] = []
        self.prefix = table_prefix

    def blank(self) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def table(self, name: str, array: bool = False) -> None:
        self.blank()
        full = f"{self.prefix}{name}" if name else self.prefix.rstrip(".")
        self.lines.append(f"[[{full}]]" if array else f"[{full}]")

    def set(self, k: str, v: Any, why: str = "") -> None:
        self.lines += comment(why)
        self.lines.append(f"{key(k)} = {value(v)}")


SHORT = 160  # a setting's `source`, quoted in advice lines: its first clause, this long at most


def short_reason(evidence: str) -> str:
    """The reason a rule's advice may quote: the evidence's first clause (up to its first `;`),
    cut at a word to SHORT characters. The whole evidence stays in the comment above the setting
    and in [evidence], which `reviewtool rules --profile` shows."""
    first = evidence.split(";", 1)[0].strip()
    if len(first) <= SHORT:
        return first
    cut = first[:SHORT - 4].rsplit(" ", 1)[0].rstrip(",(")
    return cut + " ..."


def _source(out: _Out, lp: LearnedProfile, setting: str, evidence: str) -> None:
    """`source = <short reason>` of a setting a rule's advice quotes (a required prefix; where
    untagged patches go), the whole evidence in [evidence] when the reason is shorter."""
    reason = short_reason(evidence)
    if reason != evidence:
        lp.evidence.setdefault(setting, evidence)
    out.set("source", reason)


def _profile(out: _Out, lp: LearnedProfile, top_level: bool) -> None:
    if not top_level:
        out.table("")  # [profiles.NAME]
    if top_level:
        out.set("name", lp.name)
    out.set("description", lp.description)
    if lp.lists:
        out.set("lists", lp.lists, lp.evidence.get("lists", ""))
    if lp.paths:
        out.set("paths", lp.paths, lp.evidence.get("paths", ""))
    out.set("select_by_files", lp.select_by_files, lp.evidence.get("select_by_files", ""))
    for t in lp.trees:
        out.table("trees", array=True)
        out.lines += comment(t["source"])
        for k in ("name", "kind", "pair", "git", "tags"):
            if t.get(k) is not None:
                out.set(k, t[k])
        if "closed_in_merge_window" in t:
            out.set("closed_in_merge_window", t["closed_in_merge_window"],
                    lp.evidence.get(f"trees.{t['name']}.closed_in_merge_window", ""))
        out.set("source", t["source"])
    for s in lp.subtrees:
        out.table("subtrees", array=True)
        out.lines += comment(s["source"])
        for k in ("name", "feeds", "git", "paths"):
            if s.get(k) is not None:
                out.set(k, s[k])
        if "closed_in_merge_window" in s:
            out.set("closed_in_merge_window", s["closed_in_merge_window"],
                    lp.evidence.get(f"subtrees.{s['name']}.closed_in_merge_window", ""))
        out.set("source", s["source"])
    for r in lp.required_prefixes:
        out.table("required_prefixes", array=True)
        out.lines += comment(r["source"])
        for k in ("prefix", "since", "noted_since", "paths", "exempt"):
            if r.get(k) is not None:
                out.set(k, r[k])
        _source(out, lp, f"required_prefixes.{r['prefix']}", r["source"])
    if lp.tree_aliases:
        out.table("tree_aliases")
        for tag, tree in lp.tree_aliases.items():
            out.set(tag, tree, lp.evidence.get(f"tree_aliases.{tag}", ""))
    if lp.untagged is not None:
        out.table("untagged")
        out.lines += comment(lp.untagged["source"])
        out.set("tree", lp.untagged["tree"])
        out.set("fixes_when", lp.untagged["fixes_when"], lp.evidence.get("untagged.fixes_when", ""))
        _source(out, lp, "untagged", lp.untagged["source"])
    out.table("rules")
    for name in lp.disable:
        out.lines += comment(f"{name}: {lp.evidence.get(f'rules.disable.{name}', '')}")
    out.set("disable", lp.disable)
    out.table("rules.severity")
    for name, sev in lp.severity.items():
        out.set(name, sev, lp.evidence.get(f"rules.severity.{name}", ""))
    out.table("settings")
    for name, v in lp.settings.items():
        out.set(name, v, lp.evidence.get(f"settings.{name}", "not learned: the generic default"))
    if lp.appliers:
        out.table("replies")
        out.set("appliers", lp.appliers, lp.evidence.get("replies.appliers", ""))
    out.table("evidence")
    out.lines += comment("Where each setting came from, as `reviewtool rules --profile FILE` shows it.")
    for k, why in lp.evidence.items():
        out.set(k, why)


def render(profiles: list[LearnedProfile], header: list[str]) -> str:
    """The TOML text of the learned profiles (the first is the default), under `header` lines."""
    lines = [ln for text in header for ln in comment(text)] or []
    for lp in profiles:
        for what, items in (("Left out for want of evidence", lp.left_out),
                            ("What the maintainers sent back", lp.objections)):
            if items:
                lines.append(f"#\n# {lp.name}: {what}:")
                lines += [ln for item in items for ln in comment("- " + item)]
    top = len(profiles) == 1
    if not top:
        lines += ["", f"profile = {value(profiles[0].name)}"]
    for lp in profiles:
        out = _Out("" if top else f"profiles.{key(lp.name)}.")
        lines.append("")
        _profile(out, lp, top)
        lines += out.lines
    return "\n".join(lines) + "\n"
