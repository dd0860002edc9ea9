"""What one maintainer's reply says became of the patches it answers: a pure reading of ONE mail.

API (no b4, no git, no profile; the caller decides what the reply answers and whom to trust):

    read_reply(msg, forms=None) -> ReplyAction | None
        msg: an email.message.Message (any policy) or the mail's bytes.
    read_reply_text(*, sender, date, subject, body, msgid=None, in_reply_to=None,
                    references=(), forms=None) -> ReplyAction | None
        the same from the parts: sender as the From header writes it, date as a datetime or
        the Date header's text, body as text (quoted lines are dropped here).

`forms` is a tuple of reply_forms.ReplyForm (reply_forms.load_forms(profile_forms)); None: the
shipped table, reviewtool/data/reply-forms.toml. The first form matching a line of the reply's
own text (quoted lines and the signature dropped) decides; where none does, a `lead` form may
match the one clause of substance a paragraph opens with (reply_lead.lead_clause: "Good catch,
applied, thanks." reads "applied"); None when no form matches.

ReplyAction (frozen):
    state        applied | changes-requested | superseded | rejected | deferred |
                 not-applicable | nak
    form         the form's name in the table ("pwcli-applied", "korg-patchwork-bot", "b4-ty",
                 "pw-bot", "plain-applied", "nak", ...)
    trust        "form": the wording proves itself; "applier": counts only when `by` applies
                 patches for the tree (profile data, MAINTAINERS M:); "thread": anyone in the thread
    by           Address of who acted: the bot's "by NAME:" line, a Nacked-by, else the sender
    sender       Address of the mail's From
    date         aware datetime of the Date header, or None
    msgid, in_reply_to, references   the mail's ids (in_reply_to: In-Reply-To, else the last
                 References entry): the caller ties the reply to the patch it answers
    tree_words   the tree as the reply writes it ("wireless-next.git", "ath-next branch of
                 ath.git", "netdev/net-next.git", "powerpc/next"), or None
    branch       the branch it names ("ath-next", "master"), or None
    repo         the repository's name without owner and ".git" ("ath", "net-next"), or None;
                 mapping it to a profile's tree is the profile's business
    patches      tuple of reply_lists.PatchRef (counter and total when written, subject, commit,
                 applied) for the patches the reply names, or None: it settles every patch of
                 the mail it answers (the whole series when that is the cover letter)
    commits      the commit ids the reply gives, in order
    count        N of "N patches applied/set to ...", when written
    reason       the maintainer's words that go with the state (above "Patch set to ...", around
                 a NAK, above a pw-bot command), or None; `reason_line` is its first line
    evidence     the line that matched, as written (for a lead clause: its sentence)
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Sequence

from ..bounded import number
from .footer import strip_list_footer
from .headers import mailbox
from .message import own_parts
from .quoting import original_offset
from .reply_forms import ReplyForm, hints, shipped_forms
from .reply_lead import lead_clause, paragraphs_of
from .reply_lists import PARSERS, PatchRef

__all__ = ["Address", "PatchRef", "ReplyAction", "read_reply", "read_reply_text", "tree_parts"]

_SIGNATURE_RE = re.compile(r"--[ \t]?")
_ATTRIBUTION_RE = re.compile(r".*\b(?:wrote|writes):\s*")
_GREETING_RE = re.compile(r"(?:Hello|Hi|Hey)\b[^.]{0,40}[:,]?\s*", re.I)
_IDS_RE = re.compile(r"<([^<>\s]+)>")
# The longest line a reply form is tried on. The forms' lines on the shared stretches are under 70
# characters; a profile's form (foreign_regex.py lets through what is at worst polynomial) never
# sees a longer line than this.
MAX_FORM_LINE = 1000


@dataclass(frozen=True)
class Address:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>" if self.name and self.email else self.email or self.name


@dataclass(frozen=True)
class ReplyAction:
    state: str
    form: str
    trust: str
    by: Address
    sender: Address
    date: datetime | None
    msgid: str | None
    in_reply_to: str | None
    references: tuple[str, ...]
    tree_words: str | None
    branch: str | None
    repo: str | None
    patches: tuple[PatchRef, ...] | None
    commits: tuple[str, ...]
    count: int | None
    reason: str | None
    evidence: str

    @property
    def reason_line(self) -> str | None:
        return self.reason.split("\n", 1)[0] if self.reason else None

    @property
    def needs_applier(self) -> bool:
        return self.trust == "applier"


def address(text: str | None) -> Address:
    return _address(text or "")


@lru_cache(maxsize=4096)
def _address(text: str) -> Address:
    """One read per distinct text (a series' recipients are read for every review: 12,000 reads
    of a few hundred addresses on a half-year stretch); Address is immutable."""
    name, addr = mailbox(text)
    return Address(name=name.strip(), email=addr.strip().lower())


def _date(value: datetime | str | None) -> datetime | None:
    if isinstance(value, datetime) or value is None:
        return value if value is None or value.tzinfo else value.replace(tzinfo=timezone.utc)
    try:
        d = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


# From a word's start only (the leftmost match starts there anyway): from every character of a
# long word, \S+ read the rest of it again.
_GIT_RE = re.compile(r"(?<!\S)(?:\S*/)?([^/\s]+?)\.git\b")
_BRANCH_OF_RE = re.compile(r"(?<!\S)(\S+) branch of (\S+)")
_TREE_WORD_RE = re.compile(r"(?<!\s)\s+(?:tree|branch|repo(?:sitory)?)$", re.I)


def _paren_at_end(text: str) -> tuple[int, str] | None:
    """(start, inside) of a final `(...)` (only blanks after it, no `)` inside), as a search for
    an opening bracket, no closing one, a closing one and blanks to the end finds it; read from
    the end (that regex tried every `(` of the text)."""
    t = text.rstrip()
    if not t.endswith(")"):
        return None
    start = t.find("(", t.rfind(")", 0, len(t) - 1) + 1, len(t) - 1)
    if start < 0 or start + 1 == len(t) - 1:
        return None
    return start, t[start + 1:-1]


def tree_parts(words: str | None) -> tuple[str | None, str | None]:
    """(repo, branch) of a tree as a reply writes it: "ath-next branch of ath.git" is
    ("ath", "ath-next"), "netdev/net-next.git (master)" ("net-next", "master"), a URL with
    "spi.git for-next" ("spi", "for-next"), "the net-next tree" ("net-next", None)."""
    if not words:
        return None, None
    text = words.strip().rstrip(".,!:")
    branch = None
    m = _BRANCH_OF_RE.search(text)
    if m:
        branch, text = m.group(1), m.group(2)
    p = _paren_at_end(text)
    if p:
        branch, text = branch or p[1].strip(), text[:p[0]].strip()
    g = _GIT_RE.search(text)
    if g:
        rest = text[g.end():].split()
        return g.group(1), branch or (rest[0] if rest else None)
    text = re.sub(r"^(?:the|my)\s+", "", text, flags=re.I)
    text = _TREE_WORD_RE.sub("", text)
    return (text or None), branch


def _own_lines(body: str) -> tuple[list[str], list[bool], int]:
    """The body's lines, for each whether it is quoted, and where the signature starts (the
    lines from there on are read only by forms that stand below it)."""
    lines = body.split("\n")
    end = next((i for i, line in enumerate(lines) if _SIGNATURE_RE.fullmatch(line)), len(lines))
    # ">From " is an mbox's escape of a line starting "From ", not a quote
    quoted = [line.lstrip().startswith(">") and not line.startswith(">From ") for line in lines]
    if (at := original_offset(body)) is not None:  # a top-posted reply's copy of the answered mail
        original = body.count("\n", 0, at)
        quoted[original:] = [True] * (len(lines) - original)
    return lines, quoted, end


def _alone(lines: list[str], quoted: list[bool], i: int) -> bool:
    def gap(j: int) -> bool:
        return j < 0 or j >= len(lines) or quoted[j] or not lines[j].strip()
    return gap(i - 1) and gap(i + 1)


def _words(lines: Sequence[str]) -> str | None:
    """The reply's own words among `lines`: without attributions ("X wrote:"), a greeting, or
    blank lines at the ends; None when nothing is left."""
    kept: list[str] = []
    for line in lines:
        if _ATTRIBUTION_RE.fullmatch(line):
            if kept and kept[-1].startswith("On "):  # "On <date>, <name>" wrapped before "<addr> wrote:"
                kept.pop()
            continue
        kept.append(line.rstrip())
    while kept and (not kept[0].strip() or _GREETING_RE.fullmatch(kept[0])):
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    text = "\n".join(kept).strip()
    return re.sub(r"\n{3,}", "\n\n", text) or None


def _reason(form: ReplyForm, own: list[str], i: int) -> str | None:
    if form.reason is None:
        return None
    above = _words(own[:i])
    if above or form.reason == "above":
        return above
    return _words(own[i + 1:])


def _match(form: ReplyForm, lines: list[str], quoted: list[bool], i: int):
    if len(lines[i]) > MAX_FORM_LINE:
        return None
    m = form.line.fullmatch(lines[i])
    if m is None or (form.alone and not _alone(lines, quoted, i)):
        return None
    state = form.state_of(m.groupdict().get("state"))
    if state is None:
        return None
    own_after = [line for line, q in zip(lines[i + 1:], quoted[i + 1:]) if not q]
    patches = PARSERS[form.list](own_after) if form.list else []
    if form.needs_list and not patches:
        return None
    return m, state, own_after, patches


def _tree_below(form: ReplyForm, own_after: list[str]) -> str | None:
    if form.tree_below is None:
        return None
    nxt = next((line for line in own_after if line.strip()), "")
    m = form.tree_below.fullmatch(nxt) if len(nxt) <= MAX_FORM_LINE else None
    return m.group("tree") if m and "tree" in m.groupdict() else None


def _by(form: ReplyForm, m: re.Match, own_after: list[str], sender: Address) -> Address:
    named = m.groupdict().get("by")
    if not named and form.by is not None:
        nxt = next((line for line in own_after if line.strip()), "")
        bm = form.by.fullmatch(nxt) if len(nxt) <= MAX_FORM_LINE else None
        named = bm.group("by") if bm else None
    return address(named) if named and "@" in named else sender


def read_reply_text(*, sender: str, date: datetime | str | None, subject: str = "", body: str,
                    msgid: str | None = None, in_reply_to: str | None = None,
                    references: Sequence[str] = (), forms: Sequence[ReplyForm] | None = None) -> ReplyAction | None:
    """The action the reply states, or None; see the module docstring."""
    del subject  # part of the API: forms match the body; a later form may read it
    forms = shipped_forms() if forms is None else tuple(forms)
    text = strip_list_footer((body or "").replace("\r\n", "\n").replace("\r", "\n"))
    words = hints(forms)
    if words is not None:
        low = text.lower()
        if not any(w in low for w in words):
            return None
    every, quoted, end = _own_lines(text)
    below = [f for f in forms if f.below_signature]
    lines = every[:end]
    who = address(sender)
    refs = tuple(references)

    def action(form: ReplyForm, m: re.Match, state: str, own_after: list[str], patches: list, at: int,
               evidence: str) -> ReplyAction:
        groups = m.groupdict()
        tree_words = (groups.get("tree") or _tree_below(form, own_after) or "").strip().rstrip(".,!:") or None
        repo, branch = tree_parts(tree_words)
        trust = form.trust_from(who.email)
        # a "by NAME" line (a bot's, a Nacked-by) names who acted only in the bot's own mail:
        # anyone else's words are their own, and the applier check is on their From
        by = _by(form, m, own_after, who) if trust == "form" else who
        own = [line for line, q in zip(lines, quoted) if not q]
        return ReplyAction(
            state=state, form=form.name, trust=trust, by=by, sender=who,
            date=_date(date), msgid=msgid, in_reply_to=in_reply_to or (refs[-1] if refs else None),
            references=refs, tree_words=tree_words, branch=groups.get("branch") or branch, repo=repo,
            patches=tuple(patches) or None,
            commits=tuple(p.commit for p in patches if p.commit) or tuple(filter(None, [groups.get("commit")])),
            count=number(groups["count"]) if groups.get("count") else None,  # bounded: "9" * 5000 is no count
            reason=_reason(form, own, _own_index(quoted, at)), evidence=evidence)

    leads = [f for f in forms if f.lead]
    lead_hints = hints(tuple(leads)) if leads else ()
    hinted: list[int] = []  # own lines above the signature holding a lead form's hint
    for i in range(len(every)):
        if quoted[i] or (i >= end and not below):
            continue
        low = every[i].lower()
        if words is not None and not any(w in low for w in words):
            continue
        if i < end and (lead_hints is None or any(w in low for w in lead_hints)):
            hinted.append(i)
        for form in forms if i < end else below:
            if form.hints and not any(w in low for w in form.hints):
                continue
            hit = _match(form, every if i >= end else lines, quoted, i)
            if hit is not None:
                m, state, own_after, patches = hit
                return action(form, m, state, own_after, patches, min(i, end), every[i].strip())
    for start, stop in paragraphs_of(lines, quoted, hinted):
        lead = lead_clause(" ".join(lines[start:stop]))
        if lead is None or len(lead[0]) > MAX_FORM_LINE:
            continue
        clause, sentence = lead
        low = clause.lower()
        for form in leads:
            m = form.line.fullmatch(clause) if not form.hints or any(w in low for w in form.hints) else None
            state = form.state_of(m.groupdict().get("state")) if m else None
            if state is not None and not form.list:
                own_after = [line for line, q in zip(lines[stop:], quoted[stop:]) if not q]
                return action(form, m, state, own_after, [], start, sentence)
    return None


def _own_index(quoted: list[bool], i: int) -> int:
    return sum(1 for q in quoted[:i] if not q)


def _text_body(msg: Message) -> str:
    """The first text/plain part of its own (own_parts), decoded (the whole payload of a non-MIME
    mail); "" for a mail the email package cannot decode (a charset parameter holding a NUL raised
    ValueError)."""
    try:
        return _first_text(msg)
    except (ValueError, LookupError, TypeError, AttributeError, RecursionError):
        return ""


def _first_text(msg: Message) -> str:
    for part in own_parts(msg):  # a mail it forwards is someone else's words
        if part.get_content_type() != "text/plain":
            continue
        raw = part.get_payload()
        cte = str(part.get("Content-Transfer-Encoding", "") or "").strip().lower()
        if isinstance(raw, str) and cte in ("", "7bit", "8bit", "binary"):
            return raw  # nothing to decode: the text as parsed
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            try:
                return payload.decode(part.get_content_charset() or "utf-8", "replace")
            except LookupError:  # a charset Python does not know
                return payload.decode("utf-8", "replace")
        return str(part.get_payload() or "")
    return ""


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
        return str(value) if value is not None else ""
    except Exception:  # noqa: BLE001 - the email package raises many types on hostile headers
        return ""


def read_reply(msg: Message | bytes, forms: Sequence[ReplyForm] | None = None) -> ReplyAction | None:
    """read_reply_text of a parsed mail (or its bytes)."""
    if isinstance(msg, (bytes, bytearray)):
        msg = email.message_from_bytes(bytes(msg), policy=email.policy.default)
    ids = lambda name: _IDS_RE.findall(_header(msg, name))  # noqa: E731
    irt = ids("In-Reply-To")
    mid = ids("Message-ID")
    return read_reply_text(sender=_header(msg, "From"), date=_header(msg, "Date") or None,
                           subject=_header(msg, "Subject"), body=_text_body(msg),
                           msgid=mid[0] if mid else None, in_reply_to=irt[0] if irt else None,
                           references=tuple(ids("References")), forms=forms)
