"""The jinja2 environment and the filters that make mail-borne text safe for each output."""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from importlib import resources
from pathlib import Path

# CSI/OSC escape sequences and other C0/C1 controls (keep tab and newline).
_ESCAPES_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MD_SPECIAL_RE = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def strip_controls(value: object) -> str:
    """Mail text can carry terminal escapes; never let them reach a terminal or a report."""
    return _ESCAPES_RE.sub("", "" if value is None else str(value))


def rich_text(value: object) -> str:
    from rich.markup import escape

    return escape(strip_controls(value))


def md_text(value: object) -> str:
    """Markdown-escaped and HTML-escaped inline text."""
    text = strip_controls(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL_RE.sub(r"\\\1", text).replace("\n", " ")


def md_code(value: object) -> str:
    """Inline code span that cannot be broken out of."""
    text = strip_controls(value).replace("\n", " ")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"


def wrap(value: object, width: int = 72, prefix: str = "") -> str:
    out = []
    for para in strip_controls(value).split("\n"):
        out.extend(textwrap.wrap(para, width=width - len(prefix), break_long_words=False,
                                 break_on_hyphens=False) or [""])
    return "\n".join(prefix + line for line in out)


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

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_template_dir())), autoescape=autoescape,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(clean=strip_controls, r=rich_text, md=md_text, mdcode=md_code, wrap72=wrap)
    return env


def render_template(name: str, **data) -> str:
    return environment(name.endswith(".html.j2")).get_template(name).render(**data)
