"""Our own trailer parser.

b4 silently drops reply trailers whose address it cannot parse (e.g. archive-obfuscated
`name@name@xxxxxxxxxx`); we keep every trailer-looking line, with what is wrong with it, so rules
can report instead of lose it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .series import Person, Trailer

# Trailers that name a person (value is `Name <address>`).
PERSON_TRAILERS = {
    "signed-off-by", "co-developed-by", "reviewed-by", "acked-by", "tested-by", "reported-by",
    "suggested-by", "originally-by", "reported-and-tested-by", "requested-by", "cc",
    "co-authored-by", "helped-by", "mentored-by", "debugged-by", "bisected-by", "analyzed-by",
}
# Trailers whose value is not a person.
UTILITY_TRAILERS = {
    "fixes", "link", "closes", "assisted-by", "change-id", "message-id", "bug", "buglink",
    "base-commit", "prerequisite-patch-id", "prerequisite-change-id", "prerequisite-message-id",
}
# What the kernel documents (submitting-patches, checkpatch's signature list).
STANDARD_BY_TRAILERS = (
    "Signed-off-by", "Co-developed-by", "Acked-by", "Tested-by", "Reviewed-by", "Reported-by",
    "Suggested-by", "Assisted-by",
)
REVIEW_TRAILERS = ("reviewed-by", "acked-by", "tested-by")

TRAILER_LINE_RE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\s*:\s?(?P<value>.*)$")
_ANGLE_RE = re.compile(r"^(?P<name>[^<>]*)<(?P<addr>[^<>]*)>(?P<rest>.*)$")  # the name is stripped after
_MAILTO_RE = re.compile(r"<mailto:[^<>]*>", re.I)
_ADDR_RE = re.compile(r"^[^@\s<>(),;:\"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$")


def trailer_kind(name: str) -> str:
    key = name.lower()
    if key in UTILITY_TRAILERS:  # first: Assisted-by ends in -by but names a tool, not a person
        return "utility"
    if key in PERSON_TRAILERS or key.endswith("-by"):
        return "person"
    return "unknown"


_MASKED_RE = re.compile(r"@x{6,}$", re.I)


def address_problem(addr: str) -> str | None:
    """Why `addr` is not a usable e-mail address, or None when it is."""
    if not addr:
        return "no address"
    if _MASKED_RE.search(addr):
        return "archive-obfuscated: the domain was replaced by x's"
    if addr.count("@") > 1:
        return "more than one '@' (an archive-obfuscated or mistyped address)"
    if "@" not in addr:
        return "no '@' in the address"
    if not _ADDR_RE.match(addr):
        domain = addr.rsplit("@", 1)[1]
        if "." not in domain:
            return "the domain has no dot"
        return "characters not allowed in an address"
    return None


def parse_person(value: str) -> tuple[Person | None, str | None]:
    """`Name <addr> # comment` -> (Person, problem). The person is kept even when malformed."""
    value = value.strip()
    if _MAILTO_RE.search(value):
        # An HTML mail client turned the address into a link; b4 strips the residue from reply
        # trailers, but in a commit message it would reach git as written.
        stripped = _MAILTO_RE.sub("", value)
        if "@" not in stripped:  # `Name <mailto:addr>`: the link is all there is
            stripped = _MAILTO_RE.sub(lambda m: "<" + m.group(0)[8:-1] + ">", value)
        person, problem = parse_person(stripped)
        return person, problem or "HTML-mail residue '<mailto:...>' inside the address"
    m = _ANGLE_RE.match(value)
    if m:
        name = m.group("name").strip().strip('"').strip()
        addr = m.group("addr").strip()
        rest = m.group("rest").strip()
        problem = address_problem(addr)
        if problem is None and rest and not rest.startswith(("#", "(", "[")):
            problem = f"unexpected text after the address: {rest!r}"
        return Person(name, addr), problem
    if "<" in value or ">" in value:
        return Person(value, ""), "unbalanced angle brackets"
    bare = value.split("#", 1)[0].strip()
    if "@" in bare and " " not in bare:
        return Person("", bare), address_problem(bare)
    return Person(value, ""), "no e-mail address"


def make_trailer(name: str, value: str, line: str, lineno: int = 0, *, source_msgid: str | None = None,
                 source_from: Person | None = None) -> Trailer:
    kind = trailer_kind(name)
    person = problem = None
    if kind == "person":
        person, problem = parse_person(value)
    return Trailer(name=name, value=value.strip(), line=line, lineno=lineno, kind=kind, person=person,
                   address_problem=problem, source_msgid=source_msgid, source_from=source_from)


def is_trailer_line(line: str) -> bool:
    m = TRAILER_LINE_RE.match(line)
    return bool(m) and (m.group("name").lower() in PERSON_TRAILERS | UTILITY_TRAILERS
                        or m.group("name").lower().endswith("-by"))


@dataclass(frozen=True)
class MessageParts:
    """A commit message (text above '---') cut into its parts."""

    inbody_headers: tuple[tuple[str, str], ...]  # From:/Subject:/Date: at the top
    prose: str  # the description
    trailers: tuple[Trailer, ...]
    block_problems: tuple[str, ...]  # what is wrong with the layout of the trailer block
    lines: tuple[str, ...]  # every line above '---'
    malformed_keys: tuple[tuple[int, str], ...] = ()  # (line number, line): `Reported-and-tested by: Name <a@b>`


# A person trailer whose key has a space for a hyphen: a trailer its author meant, that no tool reads.
_SPACED_KEY_RE = re.compile(r"^\s*[A-Za-z]+(?:-[A-Za-z]+)*(?: [A-Za-z]+)+(?:-[A-Za-z]+)*\s*:\s*\S.*<[^<>@\s]+@[^<>\s]+>")


def _paragraphs(lines: list[str]) -> list[list[tuple[int, str]]]:
    paras: list[list[tuple[int, str]]] = []
    cur: list[tuple[int, str]] = []
    for i, line in enumerate(lines, 1):
        if line.strip():
            cur.append((i, line))
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


@lru_cache(maxsize=1024)  # the assembly and several rules cut the same message; the parts are immutable
def split_commit_message(text: str) -> MessageParts:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # In-body headers: `From:`/`Subject:`/`Date:` lines at the very top, ended by a blank line.
    headers: list[tuple[str, str]] = []
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    i = start
    while i < len(lines) and re.match(r"^(From|Subject|Date):\s", lines[i]):
        k, v = lines[i].split(":", 1)
        headers.append((k, v.strip()))
        i += 1
    if headers and (i >= len(lines) or not lines[i].strip()):
        start = i
    else:
        headers = []
    body = lines[start:]
    offset = start
    paras = _paragraphs(body)

    trailers: list[Trailer] = []
    problems: list[str] = []
    malformed: list[tuple[int, str]] = []
    prose_paras = paras
    if paras:
        last = paras[-1]
        hits = [is_trailer_line(l) for _, l in last]
        if any(hits):
            prose_paras = paras[:-1]
            for (n, line), hit in zip(last, hits):
                if hit:
                    m = TRAILER_LINE_RE.match(line)
                    trailers.append(make_trailer(m.group("name"), m.group("value"), line, n + offset))
                elif line.startswith((" ", "\t")) or line.lstrip().startswith(("[", "#")):
                    continue  # continuation, `[ handler: note ]` or `# comment`: tolerated
                elif TRAILER_LINE_RE.match(line) and " " not in line.split(":", 1)[0]:
                    m = TRAILER_LINE_RE.match(line)
                    trailers.append(make_trailer(m.group("name"), m.group("value"), line, n + offset))
                elif _SPACED_KEY_RE.match(line) and line.split(":", 1)[0].strip().lower().endswith(" by"):
                    malformed.append((n + offset, line.strip()))  # nonstandard-trailer reports it
                else:
                    problems.append(f"line {n + offset} is prose inside the trailer block: {line.strip()[:80]!r}")
            # Known trailers stranded in an earlier paragraph: a blank line split the block.
            for para in prose_paras[::-1]:
                if all(is_trailer_line(l) for _, l in para):
                    for n, line in para:
                        m = TRAILER_LINE_RE.match(line)
                        trailers.append(make_trailer(m.group("name"), m.group("value"), line, n + offset))
                    problems.append(
                        f"line {para[0][0] + offset} starts trailers cut off from the trailer block by a blank line: "
                        f"{para[0][1].strip()[:80]!r}")
                    prose_paras = prose_paras[:-1]
                else:
                    break
    trailers.sort(key=lambda t: t.lineno)
    prose = "\n\n".join("\n".join(l for _, l in p) for p in prose_paras)
    return MessageParts(tuple(headers), prose, tuple(trailers), tuple(problems), tuple(lines), tuple(malformed))


# b4 joins a trailer wrapped by the reviewer's mail client before it reads the lines (its
# find_trailers: "Signed-off-by: Long Name" over "<email@example.com>", a Fixes subject over two
# lines); so do we, for a trailer line and the line after it.
_ADDRESS_LINE_RE = re.compile(r"<[^>]+>")
_OPEN_FIXES_RE = re.compile(r"\S+:\s+[\da-f]+\s+\([^)]+")


def _wrapped(value: str, line: str, nxt: str) -> str | None:
    """`line` joined with the line after it, where b4 joins them: an address alone on the next
    line after a value with none, or a Fixes subject whose parenthesis closes on the next line."""
    if "<" not in value and _ADDRESS_LINE_RE.fullmatch(nxt):
        return f"{line} {nxt}"
    if "(" in line and ")" in nxt and _OPEN_FIXES_RE.fullmatch(line):
        return f"{line} {nxt.strip()}"
    return None


def find_reply_trailers(body: str, *, source_msgid: str | None = None,
                        source_from: Person | None = None) -> tuple[Trailer, ...]:
    """Trailer lines a reviewer wrote in a reply (quoted text skipped), valid or not; a trailer
    wrapped onto the next line is read joined, as b4 reads it."""
    found = []
    lines = body.replace("\r", "").split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith(">"):
            continue
        stripped = line.strip()
        m = TRAILER_LINE_RE.match(stripped)
        if not m:
            continue
        name = m.group("name")
        if name.lower() in PERSON_TRAILERS - {"cc"} or name.lower() == "fixes":
            if n < len(lines) and (joined := _wrapped(m.group("value"), stripped, lines[n])) is not None:
                stripped = joined
                m = TRAILER_LINE_RE.match(stripped)
            found.append(make_trailer(name, m.group("value"), stripped, n, source_msgid=source_msgid,
                                      source_from=source_from))
    return tuple(found)
