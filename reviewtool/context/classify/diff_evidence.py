"""What a patch's diff and trailers show: new work the diff adds, new test suites, Fixes tags,
reverts.

Pure functions over the model; context/classify/reading.py gathers them with the patch's words and
context/classify/kind.py weighs them. Every signal keeps the line that shows it, so a finding can
quote its evidence. (What the words mean is data: reviewtool/data/phrases.toml.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...model.fixes import fixes_lines, parse_fixes_value
from ...model.series import FileChange, Patch

_REVERT_RE = re.compile(r'^Revert\s+"', re.I)
_REVERTS_COMMIT_RE = re.compile(r"\bThis reverts commit ([0-9a-f]{7,64})", re.I)

_KCONFIG_RE = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
_MODPARAM_RE = re.compile(r"\bmodule_param(?:_named|_array|_cb|_string|_unsafe)?\s*\(\s*(\w+)")
_SYSCTL_RE = re.compile(r"\.procname\s*=\s*\"([^\"]+)\"")
_DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]{2,})\b")
_ENUM_RE = re.compile(r"^\s*([A-Z][A-Z0-9_]{2,})\s*(=[^,]*)?,?\s*(/\*.*)?$")
_POLICY_RE = re.compile(r"\[\s*([A-Z][A-Z0-9_]{2,})\s*\]\s*=\s*(\{\s*\.type\s*=\s*NLA_|NLA_POLICY_)")
_DEVICE_ID_RE = re.compile(r"\b(PCI_DEVICE\w*|PCI_VDEVICE|USB_DEVICE\w*|USB_VENDOR_AND_INTERFACE_INFO|"
                           r"SDIO_DEVICE\w*|MHI_\w*DEVICE\w*)\s*\(|\.compatible\s*=\s*\"([^\"]+)\"")
_TARGETS_RE = re.compile(r"^\s*TARGETS\s*\+?=\s*(\S+)")
_ATTR_NAME_RE = re.compile(r"(_A_|ATTR|^(IFLA|NFTA|TCA|RTA|NDA|NLA|CTA|NDTA|IFA|FRA|DEVLINK|ETHTOOL|NL80211)_)")
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Signal:
    """One reason to read a patch one way: what it is (for prose) and the line that shows it."""

    kind: str  # "new-file", "kconfig", "module-param", "uapi", "netlink-attr", "sysctl", "device-id", ...
    what: str  # generic phrase: "a new driver file", "a module parameter"
    evidence: str  # the line as written
    detail: str = ""  # the name: "drivers/net/foo.c", "ring_size"

    @property
    def reason(self) -> str:
        """The phrase with its name: 'a module parameter ring_size'."""
        return f"{self.what} {self.detail}".strip()


@dataclass(frozen=True)
class FixesTag:
    sha: str | None  # the hex as written (None when the line names no sha)
    line: str  # the whole line
    from_reply: bool = False  # given in a reply (b4 will pick it up)


def fixes_tags(patch: Patch) -> tuple[FixesTag, ...]:
    """Fixes lines anywhere in the commit message (also cut-off ones), then those given in replies."""
    out = [FixesTag(fl.sha.lower() if fl.sha else None, fl.line.strip()) for _, fl in fixes_lines(patch.message_lines)]
    written = {t.sha for t in out}
    for t in patch.followup_trailers:
        if t.key == "fixes":
            key = parse_fixes_value(t.value)[0]
            if key not in written:
                out.append(FixesTag(key, f"Fixes: {t.value}", from_reply=True))
    return tuple(out)


def reverted_commit(patch: Patch) -> str | None:
    """The sha a revert names ("This reverts commit X"), or "" for a revert subject without one."""
    m = _REVERTS_COMMIT_RE.search(patch.message)
    if m:
        return m.group(1)
    summary = patch.subject.summary
    return "" if _REVERT_RE.match(patch.subject.description) or _REVERT_RE.match(summary) else None


def _words(lines) -> set[str]:
    return {w for line in lines for w in _WORD_RE.findall(line)}


class _Added:
    """One file's added lines, joined once: a keyword test skips a regex loop on huge diffs."""

    def __init__(self, f: FileChange):
        self.file = f
        self.text = "\n".join(f.added_lines)
        self._removed: set[str] | None = None

    @property
    def removed_words(self) -> set[str]:
        if self._removed is None:
            self._removed = _words(self.file.removed_lines)
        return self._removed

    def new_names(self, rx: re.Pattern[str], keyword: str | None = None) -> list[tuple[str, str]]:
        """(name, line) for names on added lines that no removed line of the file mentions."""
        if keyword is not None and keyword not in self.text:
            return []
        out = []
        for line in self.file.added_lines:
            m = rx.search(line)
            if m and m.group(1) and m.group(1) not in self.removed_words:
                out.append((m.group(1), line.strip()))
        return out

    def device_ids(self) -> list[str]:
        if "DEVICE" not in self.text and ".compatible" not in self.text and "USB_VENDOR" not in self.text:
            return []
        removed = {r.strip() for r in self.file.removed_lines}
        return [line.strip() for line in self.file.added_lines
                if _DEVICE_ID_RE.search(line) and line.strip() not in removed]


def _new_names(f: FileChange, rx: re.Pattern[str]) -> list[tuple[str, str]]:
    return _Added(f).new_names(rx)


def diff_signals(patch: Patch, *, is_test, is_docs) -> list[Signal]:
    """What the diff adds that only new work adds, for files outside tests and docs."""
    out: list[Signal] = []
    for f in patch.diff.files:
        if is_test(f.path) or is_docs(f.path):
            continue
        base = f.path.rsplit("/", 1)[-1]
        added = _Added(f)
        if f.status == "added" and not base.startswith(("Kconfig", "Makefile")):
            where = "driver file" if f.path.startswith("drivers/") else "file"
            out.append(Signal("new-file", f"a new {where}", f"new file {f.path}", f.path))
        if base.startswith("Kconfig"):
            out += [Signal("kconfig", "a new Kconfig symbol", line, f"CONFIG_{n}")
                    for n, line in added.new_names(_KCONFIG_RE, "config")]
        out += [Signal("module-param", "a module parameter", line, n)
                for n, line in added.new_names(_MODPARAM_RE, "module_param")]
        out += [Signal("sysctl", "a new sysctl", line, n) for n, line in added.new_names(_SYSCTL_RE, "procname")]
        out += [Signal("netlink-attr", "a new netlink attribute", line, n)
                for n, line in added.new_names(_POLICY_RE, "NLA_")]
        out += [Signal("device-id", "a new device ID", line, f"({f.path})") for line in added.device_ids()]
        if f.path.startswith("include/uapi/"):
            for n, line in added.new_names(_DEFINE_RE, "define") + added.new_names(_ENUM_RE):
                kind, what = (("netlink-attr", "a new netlink attribute") if _ATTR_NAME_RE.search(n)
                              else ("uapi", "new uAPI"))
                out.append(Signal(kind, what, line, f"{n} ({f.path})"))
    return _dedupe(out)


def test_infra_signals(patch: Patch, *, is_test) -> list[Signal]:
    """New test suites (their own config or Makefile) and shared test libraries: development work."""
    out = []
    for f in patch.diff.files:
        if not is_test(f.path):
            continue
        base = f.path.rsplit("/", 1)[-1]
        parts = f.path.split("/")
        if f.status == "added" and base in ("config", "Makefile", "settings"):
            out.append(Signal("test-suite", "a new test suite", f"new file {f.path}", f.path.rsplit("/", 1)[0] + "/"))
        elif f.status == "added" and ("lib" in parts[:-1] or base.startswith("lib")):
            out.append(Signal("test-infra", "new test infrastructure", f"new file {f.path}", f.path))
        for n, line in _new_names(f, _TARGETS_RE):
            out.append(Signal("test-suite", "a new selftest target", line, n))
    return _dedupe(out)


def _dedupe(signals: list[Signal]) -> list[Signal]:
    seen, out = set(), []
    for s in signals:
        if s.reason not in seen:
            seen.add(s.reason)
            out.append(s)
    return out


_PLURALS = {"a new driver file": "new driver files", "a new file": "new files", "a new Kconfig symbol":
             "new Kconfig symbols", "a module parameter": "module parameters", "a new sysctl": "new sysctls",
             "a new netlink attribute": "new netlink attributes", "a new device ID": "new device IDs",
             "new uAPI": "new uAPI definitions", "a new test suite": "new test suites",
             "new test infrastructure": "pieces of new test infrastructure", "a new selftest target": "new selftest targets"}


def summarize(signals: list[Signal], limit: int = 3) -> str:
    """'a new driver file and a module parameter' (one phrase per kind, names left to the evidence)."""
    by_what: dict[str, list[Signal]] = {}
    for s in signals:
        by_what.setdefault(s.what, []).append(s)
    phrases = []
    for what, items in by_what.items():
        if len(items) == 1:
            phrases.append(what)
        else:
            plural = _PLURALS.get(what, what + "s")
            phrases.append(f"{len(items)} {plural.removeprefix('a ')}")
    phrases = phrases[:limit]
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]
