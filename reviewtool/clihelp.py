"""How `--help` reads at 80 columns: one-word metavars, docstrings and epilogs reflowed.

typer's rich help prints an option's type in a column of its own: `<text|markdown|json|email>`,
`<int range> [x>=1]` or `<list[str]>` made that column a third of an 80-column terminal and
wrapped every help text into a narrow strip, a few words a line. Each value option without a
metavar of its own gets a short one here (its choices move into its help), a flag none (it takes
no value), and paragraphs wrapped in the source are joined so that rich wraps them once.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import get_args, get_origin

_KEEP_LINE_RE = re.compile(r"^\s*(?:[-*\u2022]\s|\d+[.)]\s)|^\s{2,}\S")
# What the value is, where the option's name says what it does.
_NAMES = {"SELECT": "RULE", "IGNORE": "RULE", "TIMEOUT": "DURATION", "CACHE-TTL": "DURATION", "NOW": "TIME",
          "TREE": "NAME=REF", "LINK-BASE": "URL", "REPORT-URL": "URL", "PW-CONTEXT": "NAME"}
_MAX_CHOICES = 16  # choices this wide stay in the metavar (`json|checkpatch`); wider ones go to the help


def reflow(text: str | None) -> str | None:
    """A docstring's paragraphs as one line each, so the terminal wraps them evenly (a docstring
    wrapped at 100 columns, wrapped again at 80, leaves every other line short); list items and
    indented lines keep their own lines."""
    if not text:
        return text
    out = []
    for para in text.split("\n\n"):
        lines = para.splitlines()
        joined: list[str] = []
        for line in lines:
            if joined and line.strip() and not _KEEP_LINE_RE.match(line) and not _KEEP_LINE_RE.match(joined[-1]):
                joined[-1] = joined[-1].rstrip() + " " + line.strip()
            else:
                joined.append(line)
        out.append("\n".join(joined))
    return "\n\n".join(out)


def all_commands(command) -> list:
    out = [command]
    for sub in getattr(command, "commands", {}).values():
        out += all_commands(sub)
    return out


def shape(command) -> None:
    """Every command's help text, epilog and metavars as described above."""
    for cmd in all_commands(command):
        cmd.help = reflow(cmd.help)
        cmd.epilog = reflow(cmd.epilog)
        for param in cmd.params:
            if getattr(param, "is_flag", False):
                param.metavar = ""
                _negation_in_help(param)
            elif param.metavar is None and getattr(param, "type_descriptor", None) is not None:
                _short_metavar(param)
            if param.param_type_name == "argument":
                param.display_type_rich = lambda ctx: None  # `SOURCES <list[Path]>`: the name says it


def _negation_in_help(param) -> None:
    """`--progress/--no-progress`: rich gives the negation a column of its own, empty on every other
    row (a sixth of the width); it is said in the help instead, and still parsed."""
    if not param.secondary_opts:
        return
    help_text = (param.help or "").rstrip()
    param.help = f"{help_text} {' '.join(param.secondary_opts)}: the opposite.".lstrip()
    real = param.secondary_opts
    param.secondary_opts = []
    add_to_parser = param.add_to_parser

    def add_with_negation(parser, ctx):
        param.secondary_opts = real
        try:
            return add_to_parser(parser, ctx)
        finally:
            param.secondary_opts = []
    param.add_to_parser = add_with_negation


def _short_metavar(param) -> None:
    annotation = param.type_descriptor.annotation
    item = get_args(annotation)[0] if get_origin(annotation) is list and get_args(annotation) else annotation
    if param.param_type_name == "argument":
        param.metavar = param.name.upper()  # typer adds "..." to one taking several
        return
    name = max(param.opts, key=len).lstrip("-").upper()
    name = _NAMES.get(name, name)
    if isinstance(item, type) and issubclass(item, Enum):
        choices = [str(m.value) for m in item]
        if len("|".join(choices)) <= _MAX_CHOICES:
            param.metavar = "|".join(choices)
        else:
            param.metavar = name
            help_text = (param.help or "").rstrip().rstrip(".")
            param.help = f"{help_text + ': ' if help_text else ''}{', '.join(choices)}."
    elif item is int or item is float:
        param.metavar = "N"
    elif item is Path:
        param.metavar = "PATH"
    else:
        param.metavar = name
