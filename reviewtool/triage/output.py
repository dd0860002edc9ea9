"""Writing a triage report as it is rendered: chunk by chunk, never the whole text at once.

The text format carries rich markup: on a terminal it is printed by rich, into a file it is
written plain. Markup never spans lines in the templates, so whole lines are converted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator


def render_chunks(template: str, **data: Any) -> Iterator[str]:
    """A template's output as jinja2 generates it (same environment as every other renderer)."""
    from ..render.env import environment

    return environment(template.endswith(".html.j2")).get_template(template).generate(**data)


def _lines(chunks: Iterable[str]) -> Iterator[str]:
    """Complete lines (with their newline), gathered from arbitrary chunks."""
    pending = ""
    for chunk in chunks:
        pending += chunk
        if "\n" in pending:
            done, _, pending = pending.rpartition("\n")
            yield done + "\n"
    if pending:
        yield pending


def write_report(chunks: Iterable[str], fmt: str, output: Path | None) -> None:
    from ..render.output import printable, write_file, write_stdout

    chunks = (printable(c) for c in chunks)
    if output is None:
        write_stdout(_lines(chunks) if fmt == "text" else chunks, fmt)
        return
    if fmt == "text":
        from rich.text import Text

        chunks = (Text.from_markup(lines).plain for lines in _lines(chunks))
    write_file(output, chunks)  # a temporary file renamed onto `output`: a failed write keeps the old one
