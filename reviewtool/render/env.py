"""The jinja2 environment and the filters that make mail-borne text safe for each output."""

from __future__ import annotations

import hashlib
import re
import textwrap
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a template is rendered: `--format json` never needs it
    import jinja2

# CSI/OSC escape sequences and other C0/C1 controls (keep tab and newline).
_ESCAPES_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Characters that start inline markup in CommonMark/GFM; mail text is only ever placed inline.
_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]|~])")
_MD_LINE_START_RE = re.compile(r"^(\s*(?:\d+)?)([#+\-=]|(?<=\d)[.)])")  # block markup at a line start


# Bidirectional controls (embeddings, overrides, isolates, marks): text that reads one way and
# is stored another ("Trojan Source", CVE-2021-42574). Shown as their code point, as GitHub
# reveals hidden bidirectional characters, instead of reordering what follows them.
_BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def strip_controls(value: object) -> str:
    """Mail text can carry terminal escapes and bidirectional controls; never let them reach a
    terminal or a report (JSON keeps the text as it is: it is data, not a view)."""
    text = _ESCAPES_RE.sub("", "" if value is None else str(value))
    return _BIDI_RE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text) if _BIDI_RE.search(text) else text


def rich_text(value: object) -> str:
    from rich.markup import escape

    return escape(strip_controls(value))


def md_text(value: object) -> str:
    """Markdown-escaped and HTML-escaped inline text: no link, image, emphasis, code span, table
    cell break or HTML tag can come out of mail-borne text."""
    text = strip_controls(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = " ".join(_MD_SPECIAL_RE.sub(r"\\\1", text).split("\n"))
    return _MD_LINE_START_RE.sub(lambda m: m.group(1) + "\\" + m.group(2), text, count=1)


def md_code(value: object, table: bool = False) -> str:
    """Inline code span that cannot be broken out of (in a table cell, `|` is escaped too)."""
    text = strip_controls(value).replace("\n", " ")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    if table:
        text = text.replace("|", "\\|")
    return f"{fence} {text} {fence}"


_CODE_SPAN_RE = re.compile(r"`[^`\n]+`")


def md_prose(value: object) -> str:
    """Like md_text, but a `code span` stays one (for our own prose, such as a rule's Why: a span
    without backticks or newlines inside cannot open any other markup). Not for table cells."""
    text = strip_controls(value)
    out, pos = [], 0
    for m in _CODE_SPAN_RE.finditer(text):
        out += [md_text(text[pos:m.start()]) if pos < m.start() else "", m.group(0)]
        pos = m.end()
    out.append(md_text(text[pos:]) if pos < len(text) else "")
    return "".join(out)
_NBSP = "\u00a0"


def wrap(value: object, width: int = 72, prefix: str = "") -> str:
    """Reflow prose to `width` columns; a word longer than the line (a URL) is left whole, and a
    `code span` (a trailer line to paste, a command) is never split across lines."""
    out = []
    for para in strip_controls(value).split("\n"):
        # Spaces inside code spans become no-break spaces for textwrap, then spaces again.
        para = _CODE_SPAN_RE.sub(lambda m: m.group(0).replace(" ", _NBSP), para)
        lines = textwrap.wrap(para, width=width - len(prefix), break_long_words=False,
                              break_on_hyphens=False) or [""]
        out.extend(line.replace(_NBSP, " ") for line in lines)
    return "\n".join(prefix + line if line else prefix.rstrip() for line in out)


def quote(value: object) -> str:
    """Quote lines as a mail reply does (`> `), verbatim: code must not be re-wrapped."""
    lines = strip_controls(value).replace("\r", "").split("\n")
    return "\n".join(f"> {line}".rstrip() if line.strip() else ">" for line in lines)


def sentence(value: object) -> str:
    """A finding's message as a sentence: capital first letter (unless it is an identifier such
    as `base-commit` or `foo_open()`), final full stop."""
    text = strip_controls(value).strip()
    if not text:
        return text
    if re.match(r"[a-z]+(\s|:|$)", text):
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?:" else text + "."


def md_block(value: object, indent: str = "") -> str:
    """A fenced code block (its fence longer than any backtick run inside), for multi-line text."""
    text = strip_controls(value).replace("\r", "")
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return "\n".join(indent + line if line else "" for line in [fence, *text.split("\n"), fence])


def by_reason(not_checked: list[str]) -> list[tuple[str, list[str]]]:
    """`rule: why` entries grouped as (why, [rules]), in first-seen order: ten history checks
    skipped for want of a repository make one line, not ten."""
    groups: dict[str, list[str]] = {}
    for entry in not_checked:
        rule, _, why = str(entry).partition(": ")
        groups.setdefault(why, []).append(rule)
    return list(groups.items())


# Advice sentences addressed to whoever applies the patch ("Correct it when applying", "review it
# yourself"): a reply to the author leaves them out, the author cannot act on them.
_APPLIER_WORDS_RE = re.compile(r"\b(?:when applying|while applying|before applying|review it yourself|"
                               r"review the code yourself|pick up the reply trailers)\b", re.I)
_SENTENCE_BREAK_RE = re.compile(r"(?<=\.)\s+")


def for_author(value: object) -> str:
    """Advice as the author should read it: the sentences meant for the applier taken out."""
    return " ".join(part for part in _SENTENCE_BREAK_RE.split(str(value).strip())
                    if not _APPLIER_WORDS_RE.search(part))


def mail_header(value: object, name: str, width: int = 72) -> str:
    """`Name: value` folded at `width` columns (RFC 5322), non-ASCII text RFC 2047-encoded."""
    import email.policy

    text = " ".join(strip_controls(value).split())
    if text.isascii():  # fold at spaces, never between the name and the first word
        words = text.split(" ")
        lines = [f"{name}: {words[0]}"]
        for word in words[1:]:
            if len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(" " + word)
        return "\n".join(lines)
    policy = email.policy.SMTP.clone(max_line_length=width, linesep="\n", refold_source="all")
    try:
        return policy.fold(name, text).rstrip("\n")
    except Exception:  # an unparsable address list: fold it as plain text
        lines = textwrap.wrap(f"{name}: {text}", width=width, subsequent_indent=" ",
                              break_long_words=False, break_on_hyphens=False)
        return "\n".join(lines)


def _template_dir() -> Path:
    try:
        path = Path(str(resources.files("reviewtool.templates")))
        if (path / "check.text.j2").is_file():
            return path
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parents[2] / "templates"  # a source checkout


@lru_cache(maxsize=None)
def environment(autoescape: bool = False) -> "jinja2.Environment":
    import jinja2  # only when a template is rendered: `--format json` never needs it

    def finalize(value):
        # Every `{{ }}` of every template: control characters and terminal escapes never pass,
        # whatever filter the template author remembered (Markup is ours, already safe).
        if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
            return strip_controls(value)
        return value

    import markupsafe

    options = dict(autoescape=autoescape, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_template_dir())), undefined=jinja2.StrictUndefined,
                             finalize=finalize, bytecode_cache=_code_cache(jinja2, options), **options)
    env.filters.update(clean=strip_controls, r=rich_text, md=md_text, mdprose=md_prose, mdcode=md_code,
                       wrap72=wrap, quote=quote, sentence=sentence, mail_header=mail_header, mdblock=md_block,
                       by_reason=by_reason, for_author=for_author)
    return env


def _code_cache(jinja2, options: dict) -> "jinja2.BytecodeCache | None":
    """Compiled templates under $XDG_CACHE_HOME/reviewtool/templates/: compiling check.text.j2
    cost each text report about 40 ms, loading it under 1. jinja2 keys an entry by template
    name and a checksum of its source, and drops entries of another jinja2 or Python; the
    directory is per set of options, which change the compiled code too. A cache that cannot be
    read or written is skipped: the template is compiled as before."""

    class Cache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # a damaged entry: compile again (and overwrite it)
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    from .. import cachedir

    tag = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()[:12]
    directory = cachedir.root("templates") / tag
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return Cache(str(directory))


def render_template(name: str, **data) -> str:
    return environment(name.endswith(".html.j2")).get_template(name).render(**data)
