"""Recipients: the people and lists MAINTAINERS names for the touched files, and the authors of the
commits that Fixes tags blame, must see the patch.

`check` compares with the mail's own To/Cc/From (what was sent). `lint` compares with what is
configured to be sent (--to/--cc, sendemail.to/cc, b4 prep's cover To:/Cc:, and the trailers git
send-email and b4 send copy) and prints the arguments to add.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..mail.headers import mailboxes
from ..model.series import Patch
from .labels import counters_text
from .registry import Hit, Severity, rule

# NIPA's cc_maintainers ignores LKML: every patch may go there, none has to.
DEFAULT_OPTIONAL = ("linux-kernel@vger.kernel.org",)


@dataclass(frozen=True)
class Expected:
    address: str  # canonical (mailmap), as the advice should print it
    display: str  # "Name <address>" or the list address
    kind: str  # "maintainer" | "reviewer" | "list" | "blamed"
    why: str  # "maintainer: NETWORKING [GENERAL] (net/core/dev.c)" / "author of 1234567890ab (...)"


def _keyword_text(patch: Patch) -> list[str]:
    """What get_maintainer matches K: against: the mail text before the diff and the +/- lines."""
    lines = [patch.subject.raw, *patch.message_lines, *patch.notes.splitlines()]
    for f in patch.diff.files:
        lines.extend("+" + line for line in f.added_lines)
        lines.extend("-" + line for line in f.removed_lines)
    return lines


def _paths(patch: Patch) -> list[str]:
    out = []
    for f in patch.diff.files:
        if not f.unsafe_path:
            out.append(f.path)
            if f.old_path and f.old_path != f.path:
                out.append(f.old_path)
    return out


def _blamed(series, ctx) -> dict[int, list[Expected]]:
    """Per patch counter: the authors of the commits its Fixes tags name (resolved in one batch)."""
    if ctx.history is None:
        return {}
    from .fixes import claims, short

    mailmap = ctx.maintainers.mailmap
    out: dict[int, list[Expected]] = {}
    for c in claims(series, ctx):
        if c.res.status != "found" or not c.res.author or not c.res.author.email:
            continue
        name, addr = mailmap.canonical(c.res.author.name, c.res.author.email)
        display = f"{name} <{addr}>" if name else addr
        out.setdefault(c.patch.counter, []).append(
            Expected(addr, display, "blamed", f'author of {short(c.res.sha)} ("{c.res.subject}"), which {c.fix.line} '
                                             "blames"))
    return out


def _repositories(patch: Patch, ctx) -> tuple[str, ...]:
    """The repository ("iproute2-next.git") of the tree the patch goes to, when its profile names it."""
    pc = ctx.classification.of(patch.counter) if ctx.classification is not None else None
    spec = ctx.profile.tree(pc.tree) if pc is not None and pc.tree else None
    return (spec.git,) if spec is not None and spec.git else ()


def optional_addresses(ctx) -> set[str]:
    return {a.lower() for a in ctx.setting("cc_optional", DEFAULT_OPTIONAL) or ()}


def expected_for(patch: Patch, ctx, blamed: list[Expected], optional: set[str]) -> list[Expected]:
    """Everyone MAINTAINERS names for the patch (people first, then lists), then blamed authors,
    except the `optional` addresses (optional_addresses)."""
    out: list[Expected] = []
    seen: set[str] = set()
    for r in ctx.maintainers.recipients(_paths(patch), _keyword_text(patch), _repositories(patch, ctx)):
        if r.address.lower() in optional or r.address.lower() in seen:
            continue
        seen.add(r.address.lower())
        out.append(Expected(r.address, str(r), r.kind, f"{r.role}: {r.section} ({r.reason})"))
    for b in blamed:
        if b.address.lower() not in seen:
            seen.add(b.address.lower())
            out.append(b)
    return out


def present_for(patch: Patch, ctx, from_trailers: bool) -> set[str]:
    """Canonical addresses the patch goes to: To, Cc, From and the author (and, for lint, the
    trailers git send-email and b4 send copy)."""
    mailmap = ctx.maintainers.mailmap
    values = list(patch.to) + list(patch.cc)
    found = {addr for _, addr in mailboxes(values) if "@" in addr}
    found |= {p.email for p in (patch.sender, patch.author) if p and p.email}
    if from_trailers:
        found |= {t.person.email for t in patch.trailers if t.person and t.person.email and not t.address_problem}
    return {mailmap.address(a) for a in found}


def _severity(missing: list[Expected], expected: list[Expected], present: set[str]) -> Severity:
    """NIPA cc_maintainers: fail on a missing blamed author; fail on missing maintainers unless more
    than one expected address was reached; otherwise (reviewers, lists) a warning."""
    if any(m.kind == "blamed" for m in missing):
        return Severity.ERROR
    reached = sum(1 for e in expected if e.address.lower() in present)
    if any(m.kind == "maintainer" for m in missing) and reached <= 1:
        return Severity.ERROR
    return Severity.WARNING


def send_arguments(missing: list[Expected]) -> str:
    """`--to` for maintainers, `--cc` for reviewers, lists and blamed authors (as b4's auto-to-cc)."""
    args = []
    for m in missing:
        flag = "--to" if m.kind == "maintainer" else "--cc"
        args.append(f"{flag}='{m.display}'" if " " in m.display else f"{flag}={m.display}")
    return " ".join(args)


@rule("cc-missing", family="recipients", severity="warning", needs=("maintainers",),
      summary="Maintainers, reviewers, lists or blamed authors the patch must reach are not among its recipients")
def cc_missing(series, ctx):
    """Why: A patch only gets reviewed and merged when the people responsible for the code see it:
    the maintainers, reviewers and lists MAINTAINERS names for the touched files, and the author of
    the commit a Fixes tag blames (who knows the code best and must hear about the bug). netdev's
    CI fails a patch that misses a blamed author or most maintainers.
    Source: submitting-patches ("Select the recipients for your patch", scripts/get_maintainer.pl);
    NIPA cc_maintainers (get_maintainer, plus Fixes blame); kernel-rules CC-MISSING.
    Bad:
      To: netdev@vger.kernel.org              (touches drivers/net/ethernet/intel/e1000e/,
      Fixes: 1234567890ab ("e1000e: ...")      maintainers and the blamed author not copied)
    Good:
      To: Tony Nguyen <anthony.l.nguyen@intel.com>, ...
      Cc: intel-wired-lan@lists.osuosl.org, netdev@vger.kernel.org, <author of 1234567890ab>
    """
    lint = bool(ctx.setting("cc_from_trailers"))
    if lint and ctx.setting("recipients_command"):
        return  # chosen at send time by sendemail.toCmd/ccCmd: nothing to compare with here
    blamed = _blamed(series, ctx)
    optional = optional_addresses(ctx)
    union: dict[str, tuple[Expected, list[int]]] = {}
    worst = Severity.WARNING
    alike: dict[tuple, tuple[list[Expected], int, Severity, list[int]]] = {}  # the same people missed
    for patch in series.patches:
        expected = expected_for(patch, ctx, blamed.get(patch.counter, []), optional)
        if not expected:
            continue
        present = present_for(patch, ctx, lint)
        missing = [e for e in expected if e.address.lower() not in present]
        if not missing:
            continue
        severity = _severity(missing, expected, present)
        if lint:
            if severity is Severity.ERROR and (patch.to or patch.cc):
                worst = Severity.ERROR  # recipients are configured and still miss the essential ones
            for m in missing:
                union.setdefault(m.address.lower(), (m, []))[1].append(patch.counter)
            continue
        key = (tuple(sorted(m.address.lower() for m in missing)), len(expected), severity)
        alike.setdefault(key, (missing, len(expected), severity, []))[3].append(patch.counter)
    for missing, expected_n, severity, counters in alike.values():
        # Patches that miss the same people are told once, for the series.
        where = "" if len(counters) == 1 else (
            " on every patch" if len(counters) == len(series.patches) else f" on patches {counters_text(counters)}")
        yield Hit(f"{len(missing)} of {expected_n} expected recipient(s) not copied{where}: "
                  + ", ".join(m.display for m in missing),
                  patch=counters[0] if len(counters) == 1 else None, severity=severity,
                  evidence=tuple(f"{m.display} — {m.why}" for m in missing),
                  advice="Copy them when you send the next revision: add " + send_arguments(missing)
                         + " to git send-email (or run `b4 prep --auto-to-cc`).")
    if lint and union:
        items = [m for m, _ in union.values()]
        total = len(series.patches)
        evidence = tuple(f"{m.display} — {m.why}" + (f" (patches {counters_text(c)})" if len(c) < total else "")
                         for m, c in union.values())
        configured = "configured" if any(p.to or p.cc for p in series.patches) else "not configured yet"
        yield Hit(f"recipients {configured}: {len(items)} address(es) MAINTAINERS or Fixes blame name are missing",
                  severity=worst, evidence=evidence,
                  advice="Send with: git send-email " + send_arguments(items) + " ... (or put them in the b4 prep "
                         "cover letter as To:/Cc: lines, e.g. with `b4 prep --auto-to-cc`).")
