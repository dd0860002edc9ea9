"""Subject-line parsing: `[RFC PATCH net-next v3 2/7] subsys: summary` into tokens.

We parse subjects ourselves rather than through b4 so that tree tags are kept as exact tokens
(`bpf-next/net` is not `net`) and malformed counters are reported instead of guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# A reply's or forward's prefix as mail clients write it in their languages (Outlook's AW, SV, VS,
# Antw, Odp, RIF, YNT; Chinese clients' 回复, 答复, 回覆, 转发; Japanese 返信, Korean 회신, Russian
# Отв, Greek ΑΠ), before an ASCII or a full-width colon: a maintainer's "Odp: [PATCH]" answers the
# patch as "Re:" does. Short words a subsystem might be named (WG, ATS) are left out.
_REPLY_WORDS = ("re", "aw", "sv", "vs", "antw", "odp", "rif", "ynt", "fwd?",
                "\u56de\u590d", "\u7b54\u590d", "\u56de\u8986", "\u8f6c\u53d1", "\u8f49\u5bc4", "\u8fd4\u4fe1",
                "\ud68c\uc2e0", "\u043e\u0442\u0432", "\u03b1\u03c0")
_REPLY_RE = re.compile(rf"^\s*(({'|'.join(_REPLY_WORDS)})\s*(?:\[\d+\]\s*)?[:\uff1a]\s*)+", re.I)  # one blank run per gap
_BRACKET_RE = re.compile(r"^\s*\[([^\]]*)\]")
_VERSION_RE = re.compile(r"^v(\d{1,3})$", re.I)
_PATCH_VERSION_RE = re.compile(r"^(patch|rfc)v(\d{1,3})$", re.I)
_COUNTER_RE = re.compile(r"^(\d{1,4})/(\d{1,4})$")
_COUNTERISH_RE = re.compile(r"^[\d.]+/[\d.]+$")
_KEYWORDS = {"PATCH", "RFC", "RESEND", "PULL", "GIT", "NOT-FOR-MERGE"}
UNCLOSED = "the prefix bracket is never closed"
# A mailman list's subject prefix ("[Intel-wired-lan] [PATCH iwl-net]", "[lvc-project] [PATCH]"):
# one word before the bracket that holds PATCH. Kernel tree tags are lower case and never end so.
_LIST_PREFIX_RE = re.compile(r"[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+|[a-z0-9]+(?:-[a-z0-9]+)*-(?:devel|project|users|discuss)")


@dataclass(frozen=True)
class Subject:
    raw: str
    reply: bool = False
    brackets: tuple[str, ...] = ()  # each leading [...] group, as written
    tokens: tuple[str, ...] = ()  # all tokens of all groups
    is_patch: bool = False  # a PATCH / RFC / PULL keyword is present
    revision: int = 1
    revision_explicit: bool = False
    counter: int | None = None
    expected: int | None = None
    counter_text: str | None = None  # e.g. "03/10", kept for zero-padding checks
    rfc: bool = False
    resend: bool = False
    pull: bool = False
    tags: tuple[str, ...] = ()  # tokens that are not keywords, versions or counters
    summary: str = ""  # text after the brackets
    problems: tuple[str, ...] = ()  # what is malformed in the prefix
    list_prefix: str | None = None  # the list's own "[Intel-wired-lan]", not part of the patch's prefix

    @property
    def tree(self) -> str | None:
        """The first tag: `net`, `bpf-next`, `iproute2`, ... (the profile decides which are trees)."""
        return self.tags[0] if self.tags else None

    @property
    def subsystem(self) -> str | None:
        """`net: sched` from `net: sched: fix x`: every `word:` prefix before the description."""
        return ": ".join(w for w, _ in summary_prefixes(self.summary)) or None

    @property
    def description(self) -> str:
        """The summary without its `subsys: sub:` prefixes: what the patch says it does."""
        found = summary_prefixes(self.summary)
        return self.summary[found[-1][1]:] if found else self.summary


_PREFIX_END_RE = re.compile(r":[ \t]+")
_PREFIX_MAX = 40  # characters of one prefix, its colon included


@lru_cache(maxsize=16384)  # the revision linker asks twice for every patch of an archive
def summary_prefixes(summary: str) -> tuple[tuple[str, int], ...]:
    """The `subsystem:` prefixes a summary starts with, as written, each with where the text after
    it starts: `net: sched: fix x` -> (("net", 5), ("sched", 12)). A prefix is what comes before
    a colon and a blank: one word of at most 40 characters (`net/mlx5e`, `wifi:ath11k`,
    `ath9k_set_moredata()`); the first may be up to three words (`driver core`, `ct
    expectation`, `gprint, oprint`); none holds a quote (`Revert "net: x"` starts with none).
    Every stage reads prefixes here: the subject rules, the classifier, the revision linker and
    `profile learn`."""
    out: list[tuple[str, int]] = []
    at = 0
    for m in _PREFIX_END_RE.finditer(summary):
        word = summary[at:m.start()].rstrip()
        blanks = word.count(" ")
        if not word or m.start() + 1 - at > _PREFIX_MAX or '"' in word or blanks > (2 if not out else 0):
            break
        out.append((word, m.end()))
        at = m.end()
    return tuple(out)


def leading_prefixes(summary: str) -> list[str]:
    """`MAINTAINERS: wifi: ath: remove x` -> ["maintainers:", "wifi:", "ath:"], lower case (a
    revert: the quoted subject's)."""
    m = re.match(r'^(?:Revert|Reapply)\s+"(.*)', summary, re.I)
    return [w.lower() + ":" for w, _ in summary_prefixes(m.group(1) if m else summary)]


_TOKEN_SPLIT_RE = re.compile(r"[\s,]+")


def _tokens(group: str) -> list[str]:
    return [t for t in _TOKEN_SPLIT_RE.split(group.strip()) if t]


def is_reply_subject(raw: str) -> bool:
    """parse_subject(raw).reply, without the rest of the parse: thread grouping asks it of every
    mail of an archive, and most are replies, which it need not parse further. The pattern's
    blanks are any run of whitespace, so it reads the subject as it is, not folded to one line."""
    return _REPLY_RE.match(raw or "") is not None


def without_reply_prefix(raw: str) -> str:
    """The subject past its reply and forward prefixes ("Odp: Re: [PATCH] x" -> "[PATCH] x")."""
    m = _REPLY_RE.match(raw or "")
    return raw[m.end():] if m else raw


def parse_subject(raw: str, list_name: str | None = None) -> Subject:
    """`list_name`: the name of the list that delivered the mail (its List-Id's first label,
    list_name_of): a first bracket that is that name, before the PATCH bracket, is the list's
    prefix whatever its shape (`[LTP] [PATCH v2]` from ltp.lists.example.org)."""
    if list_name is not None:
        folded = _one_word_folded(list_name)
        if folded is not None and folded not in (raw or "").casefold():
            list_name = None  # not in the subject, so no bracket of it: one remembered parse for all callers
    return _parse_subject(raw, list_name)


@lru_cache(maxsize=256)
def _one_word_folded(name: str) -> str | None:
    """The name case-folded, when it holds no blank (a bracket of it is then a substring of the subject)."""
    return None if any(c.isspace() for c in name) else name.casefold()


@lru_cache(maxsize=8192)  # thread grouping, the adapter and rules parse the same subjects again and again
def _parse_subject(raw: str, list_name: str | None = None) -> Subject:
    raw = " ".join((raw or "").split())
    text = raw
    reply = False
    m = _REPLY_RE.match(text)
    if m:
        reply = True
        text = text[m.end():]
    brackets: list[str] = []
    while True:
        m = _BRACKET_RE.match(text)
        if not m:
            break
        brackets.append(m.group(1))
        text = text[m.end():]
    summary = text.strip()
    list_prefix = _list_prefix(brackets, list_name)
    if list_prefix is not None:
        brackets.pop(0)
    unclosed = False
    if not brackets and summary.startswith("[") and "]" not in summary:
        # `[PATCH v2 0/3 foo: bar`: read the prefix words up to the summary, so a garbled cover
        # letter keeps its version and counter (and the series does not seem to mix versions).
        words = summary[1:].split()
        n = 0
        while n < len(words) and ":" not in words[n] and (n or words[n].upper() in ("PATCH", "RFC")) \
                and (words[n].upper() in _KEYWORDS or _VERSION_RE.match(words[n]) or _COUNTER_RE.match(words[n])
                     or _PATCH_VERSION_RE.match(words[n]) or (n and words[n].islower() and n < 4)):
            n += 1
        if n:
            brackets, summary, unclosed = [" ".join(words[:n])], " ".join(words[n:]), True
    # Some tools put the project tag before [PATCH] without brackets is not handled: too ambiguous.
    tokens: list[str] = []
    for group in brackets:
        tokens.extend(_tokens(group))

    is_patch = rfc = resend = pull = False
    revision, revision_explicit = 1, False
    counter = expected = None
    counter_text = None
    tags: list[str] = []
    problems: list[str] = []
    for tok in tokens:
        up = tok.upper()
        if up in ("PATCH", "PATCHES"):
            is_patch = True
        elif up == "RFC":
            rfc = is_patch = True
        elif up == "RESEND":
            resend = True
        elif up in ("PULL", "GIT") or up.startswith("PULL"):
            pull = is_patch = True
        elif pvm := _PATCH_VERSION_RE.match(tok):
            is_patch = True
            rfc = rfc or pvm.group(1).upper() == "RFC"
            revision, revision_explicit = int(pvm.group(2)), True
        elif vm := _VERSION_RE.match(tok):
            revision, revision_explicit = int(vm.group(1)), True
        elif cm := _COUNTER_RE.match(tok):
            if counter is not None:
                problems.append(f"two counters in the prefix ({counter_text}, {tok})")
                continue
            counter, expected, counter_text = int(cm.group(1)), int(cm.group(2)), tok
            if counter > expected:
                problems.append(f"counter {tok} is beyond its total")
        elif _COUNTERISH_RE.match(tok):
            problems.append(f"counter '{tok}' is not of the form M/N")
        else:
            tags.append(tok)
    if is_patch and tokens and tokens[0].upper() not in _KEYWORDS and not brackets[0].upper().startswith(("PATCH", "RFC")):
        # `[iptables PATCH]` works but is not the kernel's form; say so, without guessing more.
        if any(t.upper() in ("PATCH", "RFC") for t in _tokens(brackets[0])):
            problems.append(f"'{tokens[0]}' placed before PATCH")
    if revision_explicit and revision < 1:
        problems.append("revision v0 does not exist")
    if unclosed:
        problems.append(UNCLOSED)
    return _subject(
        raw=raw,
        reply=reply,
        brackets=tuple(brackets),
        tokens=tuple(tokens),
        is_patch=is_patch,
        revision=max(revision, 1),
        revision_explicit=revision_explicit,
        counter=counter,
        expected=expected,
        counter_text=counter_text,
        rfc=rfc,
        resend=resend,
        pull=pull,
        tags=tuple(tags),
        summary=summary,
        problems=tuple(problems),
        list_prefix=list_prefix,
    )


_FIRST_BRACKET_RE = re.compile(r"\[([^\]\s]{1,100})\][ \t]*")


def past_list_tag(text: str) -> str | None:
    """The subject past a Mailman list's tag ("[Foo-devel] [ANNOUNCE] nftables 1.0.9", "[Foo-devel]
    FAILED: patch ..."), where the sender's own subject starts; None when it starts with no word
    shaped as a list's name (never a kernel tree tag)."""
    m = _FIRST_BRACKET_RE.match(text)
    return text[m.end():] if m and m.end() < len(text) and _LIST_PREFIX_RE.fullmatch(m.group(1)) else None


def _list_prefix(brackets: list[str], list_name: str | None = None) -> str | None:
    """The first bracket when it is a mailing list's prefix: one word shaped as list names are, or
    the name of the list that delivered it, followed by a bracket that holds PATCH, RFC or PULL."""
    first = brackets[0].strip() if brackets else ""
    if len(brackets) < 2 or not (_LIST_PREFIX_RE.fullmatch(first)
                                 or (list_name and first.casefold() == list_name.casefold())):
        return None
    if not any(t.upper() in _KEYWORDS or t.upper().startswith("PULL") for b in brackets[1:] for t in _tokens(b)):
        return None
    return brackets[0].strip()


_LIST_ID_RE = re.compile(r"<([A-Za-z0-9][A-Za-z0-9_-]{0,100})\.[^<>\s]{1,200}>")


@lru_cache(maxsize=256)  # an archive has a handful of List-Ids, asked for every patch of it
def list_name_of(list_id: str | None) -> str | None:
    """The list's name in a List-Id header ("Intel Wired ... <intel-wired-lan.osuosl.org>" ->
    "intel-wired-lan"; RFC 2919: a dotted id in angle brackets), or in a bare id as the index
    keeps it ("intel-wired-lan.osuosl.org")."""
    if not list_id:
        return None
    m = _LIST_ID_RE.search(list_id if "<" in list_id else f"<{list_id.strip()}>")
    return m.group(1) if m else None


def _subject(**fields) -> Subject:
    """Subject(**fields) with every field given, its state set in one step instead of the frozen
    dataclass's object.__setattr__ per field (half the cost of parsing a subject: a triage run
    parses an archive's thousands). tests/test_subject_fast.py holds it equal to Subject()."""
    made = _NEW(Subject)
    made.__dict__.update(fields)
    return made


_NEW = object.__new__


_BLANKS_RE = re.compile(r"\s+")


def normalized_summary(subject: Subject) -> str:
    """A key for matching the same patch or series across revisions."""
    return _BLANKS_RE.sub(" ", subject.summary.strip().lower())
