"""git's .mailmap, read as git reads it: the names and addresses recipients are reported under."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mailmap:
    """git's .mailmap: (name, address) as committed -> (name, address) to use."""

    by_email: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    by_name_email: dict[tuple[str, str], tuple[str | None, str | None]] = field(default_factory=dict)

    def canonical(self, name: str, address: str) -> tuple[str, str]:
        key = address.lower()
        hit = self.by_name_email.get((name.casefold(), key)) or self.by_email.get(key)
        if not hit:
            return name, address
        return hit[0] or name, hit[1] or address

    def address(self, address: str) -> str:
        return self.canonical("", address)[1].lower()


# Names are stripped after the match: a lazy name before `\s*` tried every split of a long run of spaces.
_MAILMAP_RE = re.compile(r"^(?P<n1>[^<]*)<(?P<e1>[^>]*)>(?:(?P<n2>[^<]*)<(?P<e2>[^>]*)>)?\s*$")


def parse_mailmap(text: str) -> Mailmap:
    by_email: dict[str, tuple[str | None, str | None]] = {}
    by_name_email: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        m = _MAILMAP_RE.match(line) if line else None
        if not m:
            continue
        n1, e1, n2, e2 = (m.group("n1") or "").strip(), m.group("e1").strip(), (m.group("n2") or "").strip(), m.group("e2")
        if e2 is None:  # "Proper Name <commit@email>": only the name changes
            by_email.setdefault(e1.lower(), (n1 or None, None))
        elif n2:  # "Proper Name <proper@email> Commit Name <commit@email>"
            by_name_email[(n2.casefold(), e2.strip().lower())] = (n1 or None, e1 or None)
        else:
            by_email[e2.strip().lower()] = (n1 or None, e1 or None)
    return Mailmap(by_email, by_name_email)
