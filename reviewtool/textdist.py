"""Edit distance between short words: tree tags, trailer names."""

from __future__ import annotations


def edit_distance(a: str, b: str, at_most: int | None = None) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`, ignoring case.
    With `at_most`, any distance over it is answered as at_most + 1 without the table: words whose
    lengths differ by more cannot be that close (a 100 KB subject tag is compared in no time)."""
    if at_most is not None and abs(len(a) - len(b)) > at_most:
        return at_most + 1
    a, b = a.lower(), b.lower()
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]
