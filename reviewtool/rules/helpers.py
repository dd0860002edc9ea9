"""Small shared helpers for rule modules."""

from __future__ import annotations

from ..model.series import Patch, Person, Series, is_pull_request, same_person  # noqa: F401 (rules import them from here)
from ..textdist import edit_distance  # noqa: F401 (rules import it from here)


def patch_label(series: Series, counter: int | None) -> str:
    if counter is None:
        return "the series"
    if counter == 0:
        return "the cover letter"
    return f"patch {counter}/{series.expected}"


def declared_ref(series: Series, ctx):
    """The repository's TreeRef of the tree the subject names (None without one)."""
    spec = ctx.profile.series_tree(series)
    return ctx.history.tree(spec.name) if spec else None


def counters_text(counters) -> str:
    return ", ".join(str(c) for c in counters)


def prose_lines(patch: Patch) -> list[tuple[int, str]]:
    """(line number, text) of the commit message lines that are not trailers or in-body headers."""
    trailer_lines = {t.lineno for t in patch.trailers}
    out = []
    for n, line in enumerate(patch.message_lines, 1):
        if n in trailer_lines:
            continue
        out.append((n, line))
    return out



