"""Counts and dates in words, as the learned evidence says them ("97% of 1,204", "2022-06..2022-11"), and the table of data/learn.toml."""

from __future__ import annotations

import tomllib
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    return tomllib.loads(resources.files("reviewtool.data").joinpath("learn.toml").read_text(encoding="utf-8"))


def share(part: int, whole: int) -> str:
    """"97% of 1,204"."""
    return f"{round(100 * part / whole) if whole else 0}% of {whole:,}"


def month(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m") if ts is not None else "?"


def day(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d") if ts is not None else "?"


def span(stamps: Iterable[float | None]) -> str:
    dates = sorted(t for t in stamps if t is not None)
    if not dates:
        return "undated"
    first, last = month(dates[0]), month(dates[-1])
    return first if first == last else f"{first}..{last}"


def top(counts: dict[str, int], n: int = 3) -> str:
    """"kvalo@kernel.org 304, kuba@kernel.org 14"."""
    return ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n])
