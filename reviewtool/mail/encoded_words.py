"""RFC 2047 encoded words in a header value ("=?utf-8?q?f=C3=B6o?="), decoded in one linear pass.

    decode_words(value) -> str

The email package's parsers take time and memory that grow faster than the header (a Subject of
20,000 encoded words: 8 s and gigabytes): every unstructured header and the header index read
through this one decoder instead. It reads as the email package shows the value: whitespace
between two encoded words is dropped, adjacent words of one charset decode as one byte string
(a character split across them survives), `_` in Q encoding is a space, an unknown charset is
read as ASCII. Past MAX_WORDS encoded words the rest of the value is kept as written.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

MAX_WORDS = 1000  # real mail: a few dozen at most (a long subject in a CJK script)
_WORD_RE = re.compile(r"=\?([^?\s]{1,40})\?([bBqQ])\?([^?]*)\?=")
_Q_ESCAPE_RE = re.compile(rb"=([0-9A-Fa-f]{2})")
_NOT_BASE64_RE = re.compile(rb"[^A-Za-z0-9+/]+")


def _charset(name: str) -> str:
    try:
        return codecs.lookup(name.split("*", 1)[0]).name  # "utf-8*en": RFC 2231's language suffix
    except LookupError:
        return "ascii"


def _bytes(kind: str, text: str) -> bytes | None:
    # A word may hold 8-bit bytes (as surrogates, or U+FFFD where an index read them as UTF-8):
    # Q keeps them as bytes and base64 skips them, as the email package does.
    data = text.encode("utf-8", "surrogateescape")
    if kind in "bB":
        data = _NOT_BASE64_RE.sub(b"", data)
        try:
            return base64.b64decode(data + b"=" * (-len(data) % 4))
        except (binascii.Error, ValueError):
            return None
    return _Q_ESCAPE_RE.sub(lambda m: bytes([int(m.group(1), 16)]), data.replace(b"_", b" "))


def decode_words(value: str, cap: int = MAX_WORDS) -> str:
    """`value` with its encoded words decoded (an unfolded value: its other whitespace kept)."""
    if "=?" not in value:
        return value
    out: list[str] = []
    run, run_charset = b"", None  # adjacent words of one charset, decoded together
    pos = 0
    for n, m in enumerate(_WORD_RE.finditer(value), 1):
        if n > cap:
            break
        charset, raw = _charset(m.group(1)), _bytes(m.group(2), m.group(3))
        if raw is None:
            continue  # not decodable: it stays as written
        between = value[pos:m.start()]
        if run_charset is not None and not between.strip() and charset == run_charset:
            run += raw
        else:
            if run_charset is not None:
                out.append(run.decode(run_charset, "replace"))
            if run_charset is None or between.strip():
                out.append(between)  # the text before the word (whitespace between two words goes)
            run, run_charset = raw, charset
        pos = m.end()
    if run_charset is not None:
        out.append(run.decode(run_charset, "replace"))
    out.append(value[pos:])
    return "".join(out)


def end_of_words(value: str, count: int) -> int | None:
    """Where the `count`th encoded word of `value` ends, or None when it holds fewer."""
    for n, m in enumerate(_WORD_RE.finditer(value), 1):
        if n == count:
            return m.end()
    return None
