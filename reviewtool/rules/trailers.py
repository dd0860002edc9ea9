"""Trailer syntax and pairing: Reported-by/Closes, addresses, duplicates, non-standard tags."""

from __future__ import annotations

import re
from datetime import date

from ..model.fixes import parse_fixes_value
from ..model.series import Trailer
from ..model.trailers import PERSON_TRAILERS, STANDARD_BY_TRAILERS, split_commit_message
from .ai import ai_patterns, assisted_by_example, is_ai_identity
from ..model.series import same_person
from ..textdist import edit_distance
from .registry import Hit, Severity, rule
from .trailerlib import REVIEW_KEYS, accepted_by_b4, corrected_line, replies_by_msgid, upstream_commit_line

REPORTED = ("reported-by", "reported-and-tested-by")
_SYZBOT_RE = re.compile(r"^syzbot\+([0-9a-f]{8,})@syzkaller\.appspotmail\.com$", re.I)
_ROBOT_ADDRESSES = ("lkp@intel.com",)


def _reported_runs(trailers: tuple[Trailer, ...]):
    """(first, last) indexes of each run of consecutive Reported-by trailers."""
    i = 0
    while i < len(trailers):
        if trailers[i].key in REPORTED:
            j = i
            while j + 1 < len(trailers) and trailers[j + 1].key in REPORTED:
                j += 1
            yield i, j
            i = j + 1
        else:
            i += 1


def _closes_lines(run: list[Trailer]) -> list[str]:
    """Closes: lines derivable from the reporters (syzbot's address carries the bug id)."""
    out = []
    for t in run:
        m = _SYZBOT_RE.match(t.person.email if t.person else "")
        if m:
            out.append(f"Closes: https://syzkaller.appspot.com/bug?extid={m.group(1)}")
    return out


@rule("reported-by-without-closes", family="trailers", severity="warning",
      summary="Reported-by is not immediately followed by Closes: with the report's URL")
def reported_by_without_closes(series, ctx):
    """Why: A Reported-by credits a bug report; the Closes: right after it links to that report so
    readers and bots (regzbot, syzbot) can follow the fix back. Consecutive Reported-by lines share
    one Closes:. A warning when a bot reported it (syzbot and the kernel test robot always publish
    the report and hand out the Closes: line); an info for a person's report, which may be
    private and then needs no link. Link: instead of Closes: is allowed when the patch fixes the
    report only in part, and a Closes: elsewhere in the block only needs moving: both are infos.
    Postings sent before checkpatch and submitting-patches asked for Closes: (v6.3-rc1,
    2023-03-05; setting `closes_since`) are not asked for it.
    Source: kernel submitting-patches ("Using Reported-by:, Tested-by:, Reviewed-by:, Suggested-by:
    and Fixes:"); checkpatch BAD_REPORTED_BY_LINK.
    Bad:
      Reported-by: Sam Tester <sam@example.com>
      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      Reported-by: Sam Tester <sam@example.com>
      Closes: https://lore.kernel.org/netdev/20261101.abc@example.com/
      Signed-off-by: Jane Developer <jane@example.org>
    """
    since = _day(ctx.setting("closes_since", "2023-03-05"))
    for p in series.patches:
        if upstream_commit_line(p):
            continue  # a stable backport keeps the upstream trailers as they are
        if since is not None and p.date is not None and p.date.date() < since:
            continue  # Closes: did not exist yet
        trailers = p.trailers
        closes_anywhere = [t for t in trailers if t.key == "closes"]
        for i, j in _reported_runs(trailers):
            run = list(trailers[i:j + 1])
            after = trailers[j + 1] if j + 1 < len(trailers) else None
            before = trailers[i - 1] if i > 0 else None
            if (after and after.key == "closes") or (before and before.key == "closes"):
                continue
            evidence = tuple(t.line for t in run) + ((after.line,) if after else ())
            if after and after.key in ("link", "buglink"):
                yield Hit("Reported-by is followed by Link: rather than Closes:", patch=p.counter,
                          evidence=evidence, severity=Severity.INFO,
                          advice="Keep Link: if the patch fixes the report only in part; if it fixes it, "
                                 "write `Closes:` with the same URL.")
            elif closes_anywhere:
                yield Hit("Reported-by and its Closes: are not next to each other", patch=p.counter,
                          evidence=evidence + (closes_anywhere[0].line,), severity=Severity.INFO,
                          advice=f"Move `{closes_anywhere[0].line}` to the line right after the Reported-by.")
            else:
                derived = _closes_lines(run)
                robot = any(t.person and (t.person.email.lower() in _ROBOT_ADDRESSES or
                                          t.person.email.lower().endswith("@syzkaller.appspotmail.com"))
                            for t in run)
                if derived:
                    advice = "Add, right after the Reported-by: " + "  ".join(f"`{c}`" for c in derived)
                elif robot:
                    advice = "Copy the `Closes:` line the robot gave in its report mail to right after the Reported-by."
                else:
                    advice = ("If the report is public (list mail, bugzilla), add `Closes: <URL of the "
                              "report>` right after the Reported-by; a private report needs nothing.")
                who = ", ".join(str(t.person) for t in run if t.person)
                yield Hit(f"Reported-by {who} has no Closes: pointing to the report", patch=p.counter,
                          evidence=evidence, advice=advice,
                          severity=None if derived or robot else Severity.INFO)


def _day(value) -> date | None:
    try:
        return value if isinstance(value, date) else date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _malformed(t: Trailer) -> bool:
    """A person trailer the kernel knows, with an address that does not parse (a `Tweeted-by:` is
    nonstandard-trailer's, whatever follows it)."""
    return t.kind == "person" and t.key in PERSON_TRAILERS and t.address_problem is not None


# The certification chain: a sign-off must name a person who can be reached.
_DCO_KEYS = ("signed-off-by", "co-developed-by")


def _address_advice(t: Trailer, series) -> str:
    fixed = corrected_line(t, series)
    if fixed:
        return f"Write it as `{fixed}`."
    return f"Write it as `{t.name}: Full Name <user@example.org>` with the person's real address."


@rule("malformed-address", family="trailers", severity="error",
      summary="A trailer's e-mail address is malformed (in a patch, or in a reply trailer)")
def malformed_address(series, ctx):
    """Why: A trailer's address identifies the person in git history forever; an unparseable one
    (two '@', no domain dot, an archive-obfuscated `name@name@xxxxxxxxxx`, HTML-mail residue)
    cannot be used to reach or credit them. An error in a Signed-off-by or Co-developed-by of the
    patch (the DCO needs a person who can be reached; checkpatch: "Unrecognized email address");
    a warning in other trailers (a Reported-by with a missing `>` is corrected when applying) and
    for a reply trailer that b4 will apply as written.
    Reply Reviewed/Acked/Tested-by that b4 dropped are reported by review-trailer-dropped.
    Source: kernel submitting-patches ("Sign your work"); checkpatch BAD_SIGN_OFF; b4 does not
    validate addresses (reference b4-library.md).
    Bad:
      Reviewed-by: Rob Reviewer <rob@rob@example.net>
    Good:
      Reviewed-by: Rob Reviewer <rob@example.net>
    """
    for p in series.all_mails:
        for t in p.trailers:
            if _malformed(t):
                yield Hit(f"{t.name} address is malformed: {t.address_problem}", patch=p.counter,
                          evidence=(t.line,), advice=_address_advice(t, series),
                          severity=None if t.key in _DCO_KEYS and not p.is_cover else Severity.WARNING)
    replies = replies_by_msgid(series)
    for p in series.all_mails:
        for t in p.followup_trailers:
            if _malformed(t):
                reply = replies.get(t.source_msgid or "")
                yield Hit(f"{t.name} given in a reply has a malformed address: {t.address_problem}; "
                          "b4 will apply it as written", patch=p.counter, severity=Severity.WARNING,
                          evidence=(t.line, f"in reply <{t.source_msgid}>" +
                                    (f" from {reply.author}" if reply else "")),
                          advice=_address_advice(t, series) + " Correct it when applying the patch.")
    for r in series.replies:
        p = series.patch(r.counter) if r.counter is not None else None
        for t in r.trailers:
            if not _malformed(t) or t.key in REVIEW_KEYS or (p and accepted_by_b4(series, p, r, t)):
                continue
            yield Hit(f"{t.name} given in a reply has a malformed address: {t.address_problem}",
                      patch=r.counter, severity=Severity.WARNING,
                      evidence=(t.line, f"in reply <{r.msgid}> from {r.author}"),
                      advice=_address_advice(t, series) + " Add it by hand if it is meant for the patch.")


def _identity(t: Trailer) -> str:
    if t.key == "fixes":
        sha = parse_fixes_value(t.value)[0]
        if sha:
            return sha[:12]
    if t.person and t.person.email:
        return t.person.email.lower()
    return re.sub(r"\s+", " ", t.value).strip().casefold()


@rule("duplicate-trailer", family="trailers", severity="warning",
      summary="The same trailer appears twice in a patch")
def duplicate_trailer(series, ctx):
    """Why: A repeated trailer is a copy-and-paste or tooling slip (b4 and git interpret-trailers
    add lines that were already there). A Signed-off-by repeated after someone else's is not
    reported: a patch that went back and forth records each hand-over.
    Source: checkpatch BAD_SIGN_OFF ("Duplicate signature").
    Bad:
      Reviewed-by: Rob Reviewer <rob@example.net>
      Reviewed-by: Rob Reviewer <rob@example.net>
    Good:
      Reviewed-by: Rob Reviewer <rob@example.net>
    """
    for p in series.patches:
        if upstream_commit_line(p):
            continue
        seen: dict[tuple[str, str], int] = {}
        for i, t in enumerate(p.trailers):
            key = (t.key, _identity(t))
            if key not in seen:
                seen[key] = i
                continue
            first = p.trailers[seen[key]]
            between = p.trailers[seen[key] + 1:i]
            if t.key == "signed-off-by" and any(b.key == "signed-off-by" and not same_person(b.person, t.person)
                                                for b in between):
                continue
            yield Hit(f"{t.name} repeated (lines {first.lineno} and {t.lineno})", patch=p.counter,
                      evidence=(first.line, t.line), advice=f"Remove the second `{t.line}`.")


def _style_problems(t: Trailer) -> list[str]:
    m = re.match(r"^(\S+?)(\s*):(\s*)", t.line)
    if not m:
        return []
    problems = []
    if m.group(2):
        problems.append("space before the colon")
    if m.group(3) != " ":
        problems.append("use exactly one space after the colon")
    return problems


def _suggestion(t: Trailer, standard: dict[str, str], ctx) -> tuple[str, str]:
    """(problem, concrete replacement) for a non-standard *-by tag."""
    value = t.value
    if t.key == "co-authored-by":
        if is_ai_identity(t.person, ai_patterns(ctx)):
            return "Co-authored-by is not a kernel tag, and an AI tool is credited with Assisted-by", \
                f"`{assisted_by_example(ctx, 'Claude' if 'anthropic' in value.lower() else None)}`"
        return "Co-authored-by is not a kernel tag", f"`Co-developed-by: {value}` followed by `Signed-off-by: {value}`"
    if t.key == "reported-and-tested-by":
        return ("Reported-and-tested-by joins two standard tags in one (discouraged; applied as it is)",
                f"`Reported-by: {value}` and `Tested-by: {value}`")
    best = min(standard.values(), key=lambda s: edit_distance(s, t.name, at_most=2))
    if edit_distance(best, t.name, at_most=2) <= 2:
        return f"non-standard tag {t.name}", f"`{best}: {value}`"
    return (f"non-standard tag {t.name}",
            "one of " + ", ".join(standard.values()) + ", or credit the person in the commit message")


@rule("nonstandard-trailer", family="trailers", severity="warning",
      summary="A *-by trailer outside the standard list, or written in the wrong case or spacing")
def nonstandard_trailer(series, ctx):
    """Why: Tools (b4, git interpret-trailers, patchwork, the stable scripts) and people search for
    the standard tags spelled exactly; `Signed-Off-By` or `Co-authored-by` is missed or
    misread. Extra accepted tags come from the profile setting `extra_by_trailers`.
    Source: kernel submitting-patches; checkpatch BAD_SIGN_OFF ("Non-standard signature",
    "'Signed-off-by:' is the preferred signature form", "Use a single space after").
    Bad:
      Signed-Off-By: Jane Developer <jane@example.org>
      Co-authored-by: Ruowen Qin <ruqin@example.com>
    Good:
      Signed-off-by: Jane Developer <jane@example.org>
      Co-developed-by: Ruowen Qin <ruqin@example.com>
      Signed-off-by: Ruowen Qin <ruqin@example.com>
    """
    names = list(STANDARD_BY_TRAILERS) + list(ctx.setting("extra_by_trailers", ()) or ())
    standard = {n.lower(): n for n in names}
    for p in series.patches:
        if upstream_commit_line(p):
            continue
        for lineno, line in split_commit_message("\n".join(p.message_lines)).malformed_keys:
            key = line.split(":", 1)[0].strip()
            fixed = key.replace(" ", "-")
            yield Hit(f"line {lineno}: '{key}:' is not a trailer (a key has no spaces), so no tool reads it",
                      patch=p.counter, evidence=(line,),
                      advice=f"Write `{fixed}:`" + (" (better: separate Reported-by: and Tested-by: lines)"
                                                     if "-and-" in fixed.lower() else "") + ".")
        for t in p.trailers:
            if not t.key.endswith("-by"):
                continue
            style = _style_problems(t)
            if t.key not in standard:
                problem, instead = _suggestion(t, standard, ctx)
                # Two standard tags joined, well formed: tools read both halves (a note).
                joined = all(part + "-by" in standard for part in t.key[:-3].split("-and-")) and "-and-" in t.key
                yield Hit(problem, patch=p.counter, evidence=(t.line,), advice=f"Use {instead} instead.",
                          severity=Severity.INFO if joined else None)
                continue
            canonical = standard[t.key]
            if t.name != canonical:
                style.insert(0, f"write {canonical}, not {t.name}")
            if style:
                yield Hit(f"{t.name}: " + "; ".join(style), patch=p.counter, evidence=(t.line,),
                          advice=f"Write `{canonical}: {t.value}`.")
