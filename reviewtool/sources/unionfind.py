"""Disjoint sets over message-ids: how mails are grouped into threads (In-Reply-To/References)."""

from __future__ import annotations


class DisjointSets:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]  # path halving: chains of 10,000 replies stay cheap
            x = parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
