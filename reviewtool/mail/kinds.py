"""What kind of mail starts a thread, when it is not a patch series for the list's queue.

    mail_kind(subject, sender, date) -> str | None

Stable review (AUTOSEL, the stable team's `[PATCH 6.6 012/150]`), backports for the stable trees
(`[PATCH -stable,5.10]`, `[PATCH 6.6.y]`, or `[PATCH 5.4]` posted after v5.4 was released: the
stable team takes them, not the list's maintainers), the stable trees' notices
("FAILED: patch ... failed to apply to 6.6-stable tree"), linux-next merge notices, build and
test robots' reports and announcements are read by maintainers, but none of them is a series
waiting for them: triage lists them apart, by kind, with a count. None: a thread like any other.

The table is data: a kind, a pattern for the subject (searched from its start, or from past a
Mailman list's tag: "[Foo-devel] linux-next: manual merge ...") and, where the subject alone
would be ambiguous, the senders (shell patterns) that send that kind.
"""

from __future__ import annotations

import fnmatch
import re
from datetime import date as Day, datetime, timezone
from functools import lru_cache
from importlib import resources

from .headers import mailbox
from .subject import parse_subject, past_list_tag

KINDS = ("stable-review", "stable-backport", "stable-notice", "merge-notice", "robot-report", "announcement")

# The stable team's own addresses: a `[PATCH 6.6 012/150]` from them is a review cycle, from anyone
# else a backport a maintainer asks for (still a patch).
_STABLE_TEAM = ("gregkh@linuxfoundation.org", "sashal@kernel.org")
_ROBOTS = ("lkp@intel.com", "syzbot+*@syzkaller.appspotmail.com", "syzbot@syzkaller.appspotmail.com")
_VERSION_TAG_RE = re.compile(r"\d+\.\d+(?:\.\d+)?(?:-stable)?")
# A tag that names a stable tree outright: "-stable", "stable", "6.6.y", "5.10-stable".
_STABLE_TAG_RE = re.compile(r"-?stable|\d+\.\d+\.y|\d+\.\d+(?:\.\d+)?-stable", re.I)
_RELEASE_TAG_RE = re.compile(r"(\d{1,2})\.(\d{1,3})(?:\.\d+)?")

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
    addr = mailbox(sender)[1].lower()
    return any(fnmatch.fnmatchcase(addr, p) for p in patterns)


def is_robot(sender: str) -> bool:
    """The sender is a known robot's own address (the kernel test robot, syzbot)."""
    return _sender_is(sender, _ROBOTS)


@lru_cache(maxsize=1)  # package data: read once per process
def _releases() -> dict[tuple[int, int], Day]:
    """{(major, minor): release day} from the release column of the shipped table (the calendar,
    context/calendar.py, reads all of it)."""
    out = {}
    text = resources.files("reviewtool.data").joinpath("kernel-releases.tsv").read_text(encoding="utf-8")
    for line in text.splitlines()[1:]:
        cols = line.split("\t")
        m = _RELEASE_TAG_RE.fullmatch(cols[0].strip())
        if m and len(cols) > 1 and re.fullmatch(r"\d{4}-\d\d-\d\d", cols[1].strip()):
            out[(int(m.group(1)), int(m.group(2)))] = Day.fromisoformat(cols[1].strip())
    return out


def _released_by(tag: str, when: float) -> bool:
    """Whether the kernel version a tag names ("5.4", "5.15.3") was released before `when`: then a
    patch for it is a backport (a version older than the table's first was released long ago)."""
    m = _RELEASE_TAG_RE.fullmatch(tag)
    table = _releases()
    if m is None or not table:
        return False
    version = (int(m.group(1)), int(m.group(2)))
    day = table.get(version)
    if day is None:
        return 3 <= version[0] and version < min(table)  # 3.x and later: a kernel, not 1.2
    return day < datetime.fromtimestamp(when, timezone.utc).date()


def _backport(tags: tuple[str, ...], when: float | None) -> bool:
    return any(_STABLE_TAG_RE.fullmatch(t) for t in tags) or (
        when is not None and any(_released_by(t, when) for t in tags))


def mail_kind(subject: str, sender: str, date: float | None = None) -> str | None:
    """The kind of a thread's first mail (KINDS), or None: see the module docstring. `date` (POSIX
    time) tells a backport ([PATCH 5.4] after v5.4) from a fix for the coming release ([PATCH 6.0]
    during 6.0-rc)."""
    text = " ".join((subject or "").split())
    s = parse_subject(text)
    if s.reply:
        return None  # a reply starting a thread is the answer to a mail the archive lacks
    tags = [t.upper() for t in s.tags]
    if "AUTOSEL" in tags:
        return "stable-review"
    if s.is_patch and any(_VERSION_TAG_RE.fullmatch(t) for t in s.tags) and _sender_is(sender, _STABLE_TEAM):
        return "stable-review"
    if s.is_patch and _backport(s.tags, date):
        return "stable-backport"
    texts = (text,) if (past := past_list_tag(text)) is None else (text, past)
    for kind, pattern, senders in _TABLE:
        if senders is not None and s.is_patch:
            continue  # a robot's patch (coccinelle's fixes) is a patch like any other
        if any(pattern.match(t) for t in texts) and (senders is None or _sender_is(sender, senders)):
            return kind
    return None
