"""b4 prep's own data: the cover-letter commit or branch description and its tracking JSON.

Pure text functions, kept apart from gitrange.py (which runs git): they mirror b4's
load_cover() and the `--- b4-submit-tracking ---` block so lint builds the cover letter b4 send
would.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

B4_MARKER = "--- b4-submit-tracking ---"


@dataclass(frozen=True)
class Cover:
    subject: str
    body: str
    origin: str  # "b4 prep cover commit <sha>" | "branch.<name>.description"
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    change_id: str | None = None
    prerequisites: tuple[str, ...] = ()


def b4_cover_text(message: str) -> tuple[str, dict]:
    """b4's load_cover(strip_comments=True): text above the marker, '#' lines dropped; tracking JSON."""
    text, _, magic = message.partition(B4_MARKER)
    tracking: dict = {}
    if "{" in magic:
        try:
            tracking = json.loads("{" + magic.split("{", 1)[1])
        except ValueError:
            tracking = {}
    text = re.sub(r"^#.*$", "", text, flags=re.M)
    text = re.sub(r"^>(#.*)$", r"\1", text, flags=re.M)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip(), tracking


def cover_from_text(text: str, origin: str, tracking: dict) -> Cover | None:
    """First line is the subject, the rest the body; `To:`/`Cc:` trailers are recipients (b4)."""
    lines = text.strip().splitlines()
    if not lines or not lines[0].strip():
        return None
    subject = re.sub(r"^(\[[^\]]*\]\s*)+", "", lines[0].strip())  # b4 keeps its own prefixes apart
    body_lines, to, cc = [], [], []
    for line in lines[1:]:
        m = re.match(r"^(To|Cc):\s*(.+)$", line, re.I)
        if m:
            (to if m.group(1).lower() == "to" else cc).append(m.group(2).strip())
        else:
            body_lines.append(line)
    series = tracking.get("series", {}) if isinstance(tracking, dict) else {}
    prereqs = tuple(f"prerequisite-{p}" for p in series.get("prerequisites", ()) if isinstance(p, str)
                    and not p.startswith("base-commit:"))
    return Cover(subject=subject, body="\n".join(body_lines).strip(), origin=origin, to=tuple(to), cc=tuple(cc),
                 change_id=series.get("change-id"), prerequisites=prereqs)


def json_object(text: str) -> dict:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def tracking_prefixes(tracking: dict) -> tuple[tuple[str, ...], int | None]:
    series = tracking.get("series", {}) if isinstance(tracking, dict) else {}
    prefixes = tuple(p for p in series.get("prefixes", ()) if isinstance(p, str))
    revision = series.get("revision") if isinstance(series.get("revision"), int) else None
    return prefixes, revision
