"""How a finding names the patches it speaks of."""

from __future__ import annotations

from ..model.series import Series


def patch_label(series: Series, counter: int | None) -> str:
    if counter is None:
        return "the series"
    if counter == 0:
        return "the cover letter"
    return f"patch {counter}/{series.expected}"


def counters_text(counters) -> str:
    return ", ".join(str(c) for c in counters)
