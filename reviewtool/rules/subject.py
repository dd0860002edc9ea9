"""Subject lines: the `[PATCH ...]` prefix, the `subsystem:` prefix, the summary's length and the
cover letter's `[PATCH ... 0/N]` form."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.series import Patch, Series
from ..mail.subject import leading_prefixes
from ..model.subject import UNCLOSED
from .registry import Hit, Severity, rule

_PLACEHOLDER_RE = re.compile(r"\*\*\*\s*SUBJECT HERE\s*\*\*\*", re.I)
_REVERT_RE = re.compile(r"^(Revert|Reapply)\s+\"", re.I)
_COUNTERISH_RE = re.compile(r"(^|,)(v\d+|\d+/\d+)(,|$)", re.I)
_LENGTH_WARN = 100  # past this a summary is a sentence, not a subject; up to it maintainers let it pass
_FORMAT_ADVICE = ("Let git format-patch write the prefix (`git format-patch -v N --subject-prefix='PATCH tree'`) "
                  "or send with b4, which both produce `[PATCH tree vN M/N] subsystem: summary`.")


@dataclass(frozen=True)
class _Problem:
    kind: str  # "prefix" | "subsystem" | "length" | "order" | "cover"
    counter: int
    message: str
    evidence: tuple[str, ...]
    advice: str
    severity: Severity | None = None


def _prefix_problem(p: Patch) -> str | None:
    """Why the `[PATCH ...]` prefix is missing or garbled; None when it reads as a patch prefix."""
    s = p.subject
    if not s.raw.strip():
        return "the mail has no subject"
    if UNCLOSED in s.problems:
        return UNCLOSED
    if not s.brackets:
        if s.summary.startswith("[") and "]" not in s.summary:
            return UNCLOSED
        if re.search(r"\[\s*(PATCH|RFC)\b", s.summary, re.I):
            return "the [PATCH] prefix is not at the start of the subject"
        return "no [PATCH] prefix"
    if not s.is_patch:
        # patchwork writes its stored prefixes back comma-joined (`[net,v2,1/2]`) without PATCH:
        # that is the archive's rendering, not what the author sent.
        if any("," in b and _COUNTERISH_RE.search(b.replace(" ", "")) for b in s.brackets):
            return None
        return _NO_KEYWORD
    if not s.summary:
        return "nothing follows the prefix"
    if re.search(r"\[\s*(?:PATCH|RFC)\b[^\]]*\]", s.summary, re.I):
        return _INNER_PREFIX
    if s.summary.startswith(":"):
        return "a colon follows the prefix bracket"
    return None


_NO_KEYWORD = "no PATCH keyword in the prefix"
_INNER_PREFIX = "a second [PATCH ...] prefix sits inside the summary"


def _keyword_problem(p: Patch) -> _Problem:
    """`[net-next v4 1/2]`: b4, patchwork and NIPA still read it, so it is a note on the form."""
    return _Problem("prefix", p.counter, f"the prefix [{'] ['.join(p.subject.brackets)}] has no PATCH keyword",
                    (p.subject.raw,), _FORMAT_ADVICE, Severity.INFO)


def _tree_problem(p: Patch, ctx) -> _Problem | None:
    """A tree tag the profile reads, written in a form its tools may not (`-next`, `NET`, `net-nxt`),
    or a tree's former name used after the tree was renamed. Where the maintainers pick the tree
    themselves (the profile's `[untagged]` policy), the tag's form is a note."""
    profile = ctx.profile
    reading = profile.read_tree(p.subject.tags)
    if reading is None or reading.how in ("exact", "subtree"):
        return None
    picked = Severity.INFO if profile.untagged is not None else None
    if reading.how == "former":
        former = next(f for f in reading.spec.former_names if f.name == reading.written.lower())
        if former.until is None or p.date is None or p.date.date() <= former.until:
            return None  # the name of its time
        return _Problem("tree", p.counter, f"the tree tag '{reading.written}' is the former name of "
                        f"{reading.spec.name} (renamed after {former.until})", (p.subject.raw,),
                        f"Write `[PATCH {reading.spec.name} ...]`.", Severity.INFO)
    why = ("tree names are written in lower case" if reading.how == "case"
           else f"'{reading.written}' is not a {profile.name} tree name")
    return _Problem("tree", p.counter, f"the tree tag '{reading.written}' reads as {reading.spec.name}, but {why}",
                    (p.subject.raw,), f"Write `[PATCH {reading.spec.name} ...]`: patchwork and the CI match tree "
                                      "names exactly, and guess (or skip the series) otherwise.", picked)


def _required_prefix_problems(p: Patch, ctx) -> list[_Problem]:
    """A summary prefix the list requires (`wifi:` on linux-wireless), on a patch touching its paths."""
    out = []
    summary = p.subject.summary.strip()
    for rp in ctx.profile.required_prefixes:
        paths = rp.paths or ctx.profile.paths
        touched = [f.path for f in p.diff.files if any(f.path.startswith(x) for x in paths)]
        if not touched or summary.startswith(rp.exempt) or rp.prefix.lower() in leading_prefixes(summary):
            continue
        convention = rp.convention_at(p.date)
        if convention is None:
            continue
        since = (f"required since {rp.since}" if convention == "asked"
                 else f"added by the maintainers to every patch they apply since {rp.noted_since}, asked of "
                      f"posters since {rp.since}")
        out.append(_Problem("required", p.counter, f"the summary does not start with '{rp.prefix}', which "
                            f"{ctx.profile.name} patches carry ({since})", (p.subject.raw, touched[0]),
                            f"Start the summary with `{rp.prefix} `, before the driver or area: "
                            f"`{rp.prefix} {summary}`" + (f" (source: {rp.source})" if rp.source else "") + "."))
    return out


def _patch_problems(series: Series, p: Patch, ctx) -> list[_Problem]:
    s = p.subject
    out: list[_Problem] = []
    prefix = _prefix_problem(p)
    if prefix == _NO_KEYWORD:
        out.append(_keyword_problem(p))
        prefix = None
    elif prefix:
        message = prefix if not s.raw.strip() else f"garbled subject prefix: {prefix}"
        out.append(_Problem("prefix", p.counter, message, (s.raw,), _FORMAT_ADVICE))
    tree = _tree_problem(p, ctx)
    if tree is not None:
        out.append(tree)
    if not prefix:
        out += _required_prefix_problems(p, ctx)
    for problem in s.problems:
        m = re.match(r"'(.+)' placed before PATCH", problem)
        # `[iptables PATCH]`, `[qemu-web PATCH]` are accepted conventions of their lists; only a
        # tree of the target project's own (`[net-next PATCH]`) is out of place.
        # Unambiguous, and read right by patchwork and NIPA: a note, not a warning.
        if m and ctx.profile.tree(m.group(1)) and not ctx.profile.settings.get("tag_before_patch"):
            out.append(_Problem("order", p.counter, f"the tree tag '{m.group(1)}' is placed before PATCH",
                                (s.raw,), f"Write `[PATCH {m.group(1)} ...]`, the form the netdev and kernel "
                                          "documentation show.", Severity.INFO))
    summary = s.summary.strip()
    if not summary or prefix or s.pull:
        return out
    wanted = ctx.setting("subject_subsystem", True)  # true, false, or "info": a project where it is a habit
    if wanted and not s.subsystem and not _REVERT_RE.match(summary):
        out.append(_Problem("subsystem", p.counter, "the summary has no `subsystem:` prefix", (s.raw,),
                            "Start the summary with the area it changes, as earlier commits to the same files "
                            "do (`git log --oneline -- <file>`), e.g. `net: sched: fix ...`.",
                            Severity.INFO if wanted == "info" else None))
    limit = ctx.setting("subject_max")
    # A revert's summary is the reverted commit's, quoted: its length is not the author's choice.
    if limit and len(summary) > int(limit) and not _REVERT_RE.match(summary):
        out.append(_Problem("length", p.counter, f"the summary is {len(summary)} characters long; the "
                            f"{ctx.profile.name} limit is {limit}", (summary,),
                            "Shorten the summary to say what the patch does; details belong in the body.",
                            None if len(summary) > _LENGTH_WARN else Severity.INFO))
    return out


def _cover_problems(series: Series, cover: Patch, ctx) -> list[_Problem]:
    s = cover.subject
    prefix = _prefix_problem(cover) if not s.pull else None
    if prefix in (UNCLOSED, _INNER_PREFIX):
        return [_Problem("cover", 0, f"the cover letter's subject is garbled: {prefix}", (s.raw,), _FORMAT_ADVICE)]
    if s.pull or s.problems:  # a garbled counter is series-numbering's to report
        return []
    if s.counter == 0 and not s.is_patch and s.brackets:  # `[net-next v4 0/2]`: only the keyword is missing
        return [_keyword_problem(cover)] + [t for t in (_tree_problem(cover, ctx),) if t]
    if _PLACEHOLDER_RE.search(s.raw) or not s.summary.strip():
        return [_Problem("cover", 0, "the cover letter has no subject: it still reads "
                         f"{s.raw!r}", (s.raw,), "Write a one-line summary of the series into the "
                         "`[PATCH 0/N]` subject before sending.", Severity.ERROR)]
    if s.counter != 0 or not s.is_patch:
        want = f"[PATCH{' v%d' % series.revision if series.revision > 1 else ''} 0/{s.expected or series.expected}]"
        return [_Problem("cover", 0, f"the cover letter's subject is not of the form `{want} summary`",
                         (s.raw,), "Generate the cover letter with `git format-patch --cover-letter` (or b4 "
                                   f"send) so its subject reads `{want} <summary of the series>`.")]
    return [t for t in (_tree_problem(cover, ctx),) if t]


def _generic(message: str) -> str:
    """The message without the one bracket it quotes, so `[net-next v4 1/2]` and `2/2` read as one."""
    return re.sub(r"the prefix \[.*\] has", "the prefix has", message)


@rule("subject-format", family="subject", severity="warning",
      summary="Garbled [PATCH] prefix, no `subsystem:` prefix, a summary too long, or a bad cover subject")
def subject_format(series, ctx):
    """Why: The subject becomes the commit's one-line summary and is how maintainers, patchwork and
    `git log --oneline` find the change: the `[PATCH ...]` prefix routes it (tree, version,
    position), the `subsystem:` prefix says where it lands, and a long summary is cut everywhere.
    A cover letter is recognized by its `[PATCH 0/N]` subject.
    Source: kernel submitting-patches ("The canonical patch format"); checkpatch; NIPA series_format.
    Bad:
      [PATCH net-next 2/3]: Add the missing check to the frobnicator receive path for short packets
      [net-next PATCH] fix leak
    Good:
      [PATCH net-next 2/3] net: frob: drop short packets in the receive path
    """
    problems: list[_Problem] = []
    if series.cover is not None:
        problems += _cover_problems(series, series.cover, ctx)
    for p in series.patches:
        problems += _patch_problems(series, p, ctx)
    # One series-level note when every mail shares a prefix problem, instead of one per mail.
    for kind in ("prefix", "subsystem", "tree", "order", "required"):
        same = [x for x in problems if x.kind == kind]
        patches = [x for x in same if x.counter != 0]
        messages = {_generic(x.message) for x in same}
        if len(series.patches) > 1 and len(patches) == len(series.patches) and len(messages) == 1:
            problems = [x for x in problems if x not in same]
            yield Hit(f"{messages.pop()} (all {len(same)} {'mails' if len(same) > len(patches) else 'patches'})",
                      evidence=tuple(e for x in same for e in x.evidence)[:4], advice=same[0].advice,
                      severity=same[0].severity)
    for x in problems:
        yield Hit(x.message, patch=x.counter, evidence=x.evidence, advice=x.advice, severity=x.severity)
