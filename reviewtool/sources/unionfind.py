"""Disjoint sets over message-ids: how mails are grouped into threads (In-Reply-To/References)."""

from __future__ import annotations


class DisjointSets:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        p = parent.get(x)
        if p is None:
            parent[x] = x
            return x
        while p != x:
            g = parent[p]
            parent[x] = g  # path halving: chains of 10,000 replies stay cheap
            x, p = g, parent[g]
        return x

    def join(self, a: str, others) -> None:
        """union(a, o) for each of `others`: `a`'s root stays the root, so it is found once."""
        ra, find, parent = self.find(a), self.find, self.parent
        for o in others:
            ro = find(o)
            if ro != ra:
                parent[ro] = ra

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
