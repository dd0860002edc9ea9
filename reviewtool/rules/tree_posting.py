"""How and when a series is posted: new threads for new versions, a day between versions, and a
cover letter fit to become the merge commit message."""

from __future__ import annotations

import re

from .registry import Hit, Severity, rule

_SHORTLOG_RE = re.compile(r"^\S.*\(\d+\):\s*$")
_NOT_FOR_MERGE_RE = re.compile(
    r"(not\s+(meant\s+|intended\s+)?(to\s+be\s+)?(for|in)\s+(the\s+)?merge(\s+commit)?|"
    r"(don'?t|do\s+not)\s+(include|put|keep|use)\s+(this|it|the\s+following)\s+(\w+\s+)?in\s+(the\s+)?merge|"
    r"(drop|strip|remove|ignore|cut)\s+(this|the\s+following|everything\s+below|below)\b.{0,40}\b(merg\w*|appl\w*)|"
    r"for\s+reviewers?\s+only|not\s+for\s+(the\s+)?(commit|changelog|git)\s+(message|log|history))", re.I)
_BENCH_HEAD_RE = re.compile(r"\b(benchmark\w*|perf stat|iperf3?|netperf|pktgen|neper|throughput|latency)\b", re.I)
# From the start of a run of digits, dots and commas only: from each digit in it, the run was read again.
_BENCH_LINE_RE = re.compile(r"(?<![\d.,])[.,]*\d[\d.,]*\s*(%|[kKMG]?pps|[KMG]i?bps|[KMG]bit/s|[KMG]?B/s|ops/s|req/s|tps|"
                            r"[nmu]s(ec)?|usecs?|cycles)\b")
_REPRO_RE = re.compile(r"^\s*(#include\s*<|int\s+main\s*\(|\$\s+\S|#\s+(ip|tc|nft|ethtool|bpftool|sysctl)\s|"
                       r"syz_\w+\(|r\d+\s*=\s*\w+\()")
_REPRO_HEAD_RE = re.compile(r"\b(reproducer|repro(duce)?\s*(steps|script|program)?:|to reproduce)\b", re.I)


@rule("new-version-in-reply", family="posting", severity="info",
      summary="A new version (v2+) was posted in reply to an older thread instead of a new one")
def new_version_in_reply(series, ctx):
    """Why: Patchwork and the CI pick up series from new threads; a v2 buried in the v1 thread is
    easy to miss, confuses b4 and patchwork about which version is current, and makes the thread
    unreadable. Link the previous version from the changelog instead. A note by default: most
    lists apply such postings (benchmarks/rule_table.txt: 15 of 427 wireless postings applied as
    posted). netdev documents the rule and its maintainers ask for it on the list, so its profile
    makes it a warning (3 of 48 applied netdev postings carry it, against the verdicts raising it).
    Source: maintainer-netdev ("Resending after review": "a new version ... as a separate thread");
    NIPA ml-agent threaded-warn.
    Bad:
      [PATCH net v2 0/2] ...   In-Reply-To: <v1 cover letter>
    Good:
      [PATCH net v2 0/2] ...   (new thread; "v1: https://lore.kernel.org/r/<v1 msgid>" in the changelog)
    """
    first = series.first
    if first is None or series.revision < 2 or not first.in_reply_to:
        return
    parent = next((m for e in series.earlier for m in e.all_mails if m.msgid == first.in_reply_to), None)
    evidence = [first.subject.raw, f"In-Reply-To: <{first.in_reply_to}>"]
    if parent is not None:
        evidence.append(f"which is v{parent.subject.revision}: {parent.subject.raw}")
    yield Hit(f"v{series.revision} was posted in reply to an earlier thread, not as a new thread",
              patch=first.counter, evidence=tuple(evidence),
              advice=f"Post v{series.revision + 1} (or a resend) as a new thread, without --in-reply-to, and put a "
                     f"link to the previous version in the changelog (v{series.revision - 1}: "
                     f"https://lore.kernel.org/r/<message-id>).")


@rule("repost-too-soon", family="posting", severity="warning",
      summary="A new version followed the previous one within the profile's minimum delay (24 h on netdev)")
def repost_too_soon(series, ctx):
    """Why: Reviewers in every time zone need a day to look at a version before the next one
    arrives; quick reposts split the discussion across versions and flood the list and the CI.
    Source: maintainer-netdev tl;dr ("don't repost your patches within one 24h period");
    NIPA ml-agent resubmit-warn.
    Bad:
      [PATCH net-next v2 0/3]  Mon 10:00      [PATCH net-next v3 0/3]  Mon 18:00
    Good:
      [PATCH net-next v2 0/3]  Mon 10:00      [PATCH net-next v3 0/3]  Wed 09:00
    """
    minimum = float(ctx.setting("repost_min_hours", 24) or 0)
    first = series.first
    dated = [e for e in series.earlier if e.first is not None and e.first.date is not None]
    if not minimum or first is None or first.date is None or not dated:
        return
    prev = dated[-1]
    hours = (first.date - prev.first.date).total_seconds() / 3600
    if 0 <= hours < minimum:
        yield Hit(f"v{series.revision} came {hours:.1f} h after v{prev.revision}; {ctx.profile.name} asks for at "
                  f"least {minimum:g} h between versions",
                  evidence=(f"v{prev.revision}: {prev.first.date.isoformat()}  {prev.first.subject.raw}",
                            f"v{series.revision}: {first.date.isoformat()}  {first.subject.raw}"),
                  advice=f"Wait at least {minimum:g} h after a posting before sending the next version, and answer "
                         "review comments in the thread meanwhile; say in the changelog what changed.")


def merge_text(cover) -> list[str]:
    """The cover letter lines that become the merge commit message: up to the shortlog."""
    out = []
    for line in cover.message.splitlines():
        if _SHORTLOG_RE.match(line):
            break
        out.append(line)
    return out


def _benchmark(lines: list[str]) -> list[str]:
    numbers = [line.strip() for line in lines if _BENCH_LINE_RE.search(line)]
    heading = any(_BENCH_HEAD_RE.search(line) for line in lines)
    return numbers if len(numbers) >= 3 or (heading and len(numbers) >= 2) else []


def _reproducer(lines: list[str]) -> list[str]:
    code = [line.strip() for line in lines if _REPRO_RE.match(line)]
    heading = any(_REPRO_HEAD_RE.search(line) for line in lines)
    return code if len(code) >= 3 or (heading and code) else []


@rule("cover-letter-merge-text", family="posting", severity="warning",
      summary="The cover letter holds text that must not become the merge commit message")
def cover_letter_merge_text(series, ctx):
    """Why: The maintainers merge a series with its cover letter as the merge commit message.
    Text marked "not for the merge commit", long benchmark output or reproducer programs end up in
    the history as they are; they belong in the patches (briefly), in a selftest, or in a reply.
    Source: netdev and bpf practice (series merged with the cover letter as message); maintainer
    reviews asking to trim cover letters.
    Bad:
      [PATCH net-next 0/3] ...
      (Not for the merge commit: I'm unsure about patch 2.)
      Before: 9.1 Mpps  After: 11.8 Mpps ... (40 lines of benchmark output)
    Good:
      [PATCH net-next 0/3] ...   what the series does and why, in a few paragraphs
    """
    cover = series.cover
    if cover is None:
        return
    lines = merge_text(cover)
    marked = [line.strip() for line in lines if _NOT_FOR_MERGE_RE.search(line)]
    if marked:
        yield Hit("the cover letter marks text as not meant for the merge commit, but the cover letter is "
                  "the merge commit message", patch=0, evidence=tuple(marked[:3]),
                  advice="Move reviewer-only remarks out of the cover letter's text: ask them in a reply to the "
                         "cover letter, or put them below the `---` line of the patch they concern.")
    bench = _benchmark(lines)
    if bench:
        yield Hit(f"the cover letter carries benchmark output ({len(bench)} lines of numbers) that would go into "
                  "the merge commit", patch=0, evidence=tuple(bench[:3]), severity=Severity.INFO,
                  advice="Summarize the result in a sentence or two (the commit message of the patch that brings "
                         "the gain is the place for the numbers) and leave the raw output to a reply or a link.")
    repro = _reproducer(lines)
    if repro:
        yield Hit("the cover letter carries a reproducer that would go into the merge commit", patch=0,
                  evidence=tuple(repro[:3]), severity=Severity.INFO,
                  advice="Turn the reproducer into a selftest in the series, or keep a short one (about 10 lines) "
                         "in the fix's own commit message.")
