"""Helpers shared by the trailer-rule tests: real corpus mail, edited where a test needs a bad case."""

from __future__ import annotations

from pathlib import Path

from conftest import CORPUS

MY_FAMILIES = ("signoff", "trailers", "ai", "review")


def hits(res, rule: str, patch="any") -> list[dict]:
    return [f for f in res.json["findings"] if f["rule"] == rule and (patch == "any" or f["patch"] == patch)]


def edited_corpus(tmp_path: Path, name: str, *replacements: tuple[str, str]) -> Path:
    """A copy of a real corpus thread with exact text replaced (each replacement must apply)."""
    text = (CORPUS / name).read_text(encoding="utf-8", errors="surrogateescape")
    for old, new in replacements:
        assert old in text, f"{old!r} not in {name}"
        text = text.replace(old, new)
    out = tmp_path / Path(name).name
    out.write_text(text, encoding="utf-8", errors="surrogateescape")
    return out
