"""What kind of mail starts a thread, when it is not a patch series for the list's queue.

    mail_kind(subject, sender) -> str | None

Stable review (AUTOSEL, the stable team's `[PATCH 6.6 012/150]`), the stable trees' notices
("FAILED: patch ... failed to apply to 6.6-stable tree"), linux-next merge notices, build and
test robots' reports and announcements are read by maintainers, but none of them is a series
waiting for them: triage lists them apart, by kind, with a count. None: a thread like any other.

The table is data: a kind, a pattern for the subject (searched from its start) and, where the
subject alone would be ambiguous, the senders (shell patterns) that send that kind.
"""

from __future__ import annotations

import fnmatch
import re
from email.utils import parseaddr

from .subject import parse_subject

KINDS = ("stable-review", "stable-notice", "merge-notice", "robot-report", "announcement")

# The stable team's own addresses: a `[PATCH 6.6 012/150]` from them is a review cycle, from anyone
# else a backport a maintainer asks for (still a patch).
_STABLE_TEAM = ("gregkh@linuxfoundation.org", "sashal@kernel.org")
_ROBOTS = ("lkp@intel.com", "syzbot+*@syzkaller.appspotmail.com", "syzbot@syzkaller.appspotmail.com")
_VERSION_TAG_RE = re.compile(r"\d+\.\d+(?:\.\d+)?(?:-stable)?")

# (kind, subject pattern, senders or None for anyone)
_TABLE: tuple[tuple[str, re.Pattern[str], tuple[str, ...] | None], ...] = (
    ("stable-notice", re.compile(r"(?:FAILED: )?patch \".{1,400}\" (?:failed to apply to|has been added to|"
                                 r"added to) \S{1,40}[- ]stable", re.I), None),
    ("merge-notice", re.compile(r"linux-next: (?:manual merge|build (?:failure|warning)|"
                                r"(?:duplicate|multiple) patch|Signed-off-by missing|Fixes tag|"
                                r"(?:the )?\S{1,40} tree)", re.I), None),
    ("robot-report", re.compile(r"\[[^\]]{1,200}\] BUILD (?:SUCCESS|REGRESSION)|\[syzbot\]", re.I), None),
    ("robot-report", re.compile(r"."), _ROBOTS),
    ("announcement", re.compile(r"\[ANNOUNCE\b", re.I), None),
)


def _sender_is(sender: str, patterns: tuple[str, ...]) -> bool:
    addr = parseaddr(sender or "")[1].lower()
    return any(fnmatch.fnmatchcase(addr, p) for p in patterns)


def mail_kind(subject: str, sender: str) -> str | None:
    """The kind of a thread's first mail (KINDS), or None: see the module docstring."""
    text = " ".join((subject or "").split())
    s = parse_subject(text)
    if s.reply:
        return None  # a reply starting a thread is the answer to a mail the archive lacks
    tags = [t.upper() for t in s.tags]
    if "AUTOSEL" in tags:
        return "stable-review"
    if s.is_patch and any(_VERSION_TAG_RE.fullmatch(t) for t in s.tags) and _sender_is(sender, _STABLE_TEAM):
        return "stable-review"
    for kind, pattern, senders in _TABLE:
        if senders is not None and s.is_patch:
            continue  # a robot's patch (coccinelle's fixes) is a patch like any other
        if pattern.match(text) and (senders is None or _sender_is(sender, senders)):
            return kind
    return None
