"""Numbers read from mail, bounded.

A count in a subject, a diffstat, a hunk header, a tag name or a sentence is written by whoever
sent the mail. `int()` of 4,301 digits raises, and a range built from "patches 1-10000000" holds
ten million numbers; neither may depend on what a stranger writes. Every number the package reads
from mail goes through `number()`: a value over its limit is no value at all (ignored, no error),
and the digits are never converted when there are more of them than the limit has.
"""

from __future__ import annotations

MAX_COUNT = 999_999_999  # more than any count a mail or a repository can mean


def number(text: str | bytes | None, limit: int = MAX_COUNT) -> int | None:
    """The value of `text` (ASCII digits) when it is at most `limit`, else None."""
    if text is None:
        return None
    digits = text.decode("ascii", "replace") if isinstance(text, bytes) else text
    if not digits.isascii() or not digits.isdigit():
        return None
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(limit)):
        return None
    value = int(digits)
    return value if value <= limit else None


def numbers_in_range(first: int, last: int, limit: int) -> range:
    """first..last (inclusive) clipped to 1..limit: a range named in prose, capped to the series'
    own size without holding anything in proportion to the numbers."""
    return range(max(first, 1), min(last, limit) + 1)
