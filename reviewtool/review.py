"""The one orchestration: input -> messages -> series -> context -> rules -> Review."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from .context import Context
from .context.profiles.select import foreign_patches, select_profile
from .context.profiles.profile import Profile
from .context.profiles.load import load_profiles
from .errors import EXIT_FINDINGS, EXIT_OK
from .model.series import Series
from .options import ReviewOptions  # noqa: F401 - where the commands have always found it
from .rules.registry import Finding, NotChecked, Severity
from .rules.runner import run_rules, selected_rules


@dataclass(frozen=True)
class Review:
    series: Series
    profile: Profile
    profile_reason: str
    findings: tuple[Finding, ...]
    not_checked: tuple[NotChecked, ...]
    rules_run: tuple[str, ...]
    context_notes: tuple[str, ...] = ()  # what the context could not do (e.g. shallow clone)
    extras: dict[str, Any] = field(default_factory=dict)  # stage-specific data for renderers
    verdict: Any = None  # verdict.Verdict: status, next step, per-patch classification
    reply_state: dict[str, Any] | None = None  # what the maintainers settled (context/reply_state.state_data)
    reply_claims: tuple[dict[str, Any], ...] = ()  # what others claimed and could not settle (context/reply_state)
    reply_requests: tuple[dict[str, Any], ...] = ()  # changes asked for, the author's withdrawal (context/reply_acts)
    reply_approvals: tuple[dict[str, Any], ...] = ()  # appliers' reviews in words (context/reply_acts)
    rfc_lifted: dict[str, Any] | None = None  # the reply that took the RFC tag off (context/reply_acts)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def exit_code(self) -> int:
        return EXIT_FINDINGS if self.count(Severity.ERROR) else EXIT_OK

    @property
    def tree(self) -> str | None:
        """The tree the subject names, when the profile knows that tag as one of its trees
        (`net` in [PATCH net 1/3]; AUTOSEL or 5.10 are tags, not trees)."""
        spec = self.profile.series_tree(self.series)
        return spec.name if spec else None

    def findings_for(self, counter: int | None) -> list[Finding]:
        return [f for f in self.findings if f.patch == counter]


@lru_cache(maxsize=1)  # the package's modules do not change while we run; triage asks per series
def context_stages() -> list[Callable[[Series, ReviewOptions, dict[str, Any]], None]]:
    """Every module in reviewtool/context/ (and its rooms) that defines `context_stage(series, options, fields)`,
    in the order of their STAGE_ORDER. A stage fills Context fields (`fields["history"] = ...`),
    records what it could not provide in `fields["unavailable"][capability] = why`, and appends
    human notes to `fields["notes"]`; closers it needs run after the review go to `fields["closers"]`."""
    import importlib
    import pkgutil

    from . import context as ctx_pkg

    stages = []
    for mod in pkgutil.walk_packages(ctx_pkg.__path__, prefix=f"{ctx_pkg.__name__}."):  # the rooms too
        module = importlib.import_module(mod.name)
        if hasattr(module, "context_stage"):
            stages.append((getattr(module, "STAGE_ORDER", 50), mod.name, module.context_stage))
    return [fn for _, _, fn in sorted(stages)]


def prefetch_context(repo: Path, facts: Any) -> None:
    """Let every context module with a `prefetch(repo, facts)` start the repository reads its
    stage will make, so they run while the series is still being read (lint: while git
    format-patch writes). What a stage does not take, facts.close() finishes."""
    import importlib
    import pkgutil

    from . import context as ctx_pkg

    for mod in pkgutil.walk_packages(ctx_pkg.__path__, prefix=f"{ctx_pkg.__name__}."):
        module = importlib.import_module(mod.name)
        if hasattr(module, "prefetch") and hasattr(module, "context_stage"):
            module.prefetch(repo, facts)


def load_series(source: str, options: ReviewOptions, fetch: Any = None) -> Series:
    """A local path is read as mail; a message-id or archive URL is fetched (sources/lore.py,
    `fetch` is its FetchOptions); anything else is reported as a missing file."""
    from .sources.lore import FetchOptions, parse_ref

    fetch = fetch or FetchOptions()
    path = Path(source)
    ref = None if path.exists() else parse_ref(source)
    if ref is not None:
        return fetch_series(ref, options, fetch)
    if fetch.latest:
        from .errors import InputError

        raise InputError(f"{source}: --latest needs a message-id or archive URL to search from, not a file")
    return load_series_from_path(path, options)


def load_series_from_path(path: Path, options: ReviewOptions) -> Series:
    from .model.b4adapter import build_series
    from .model.own import plain_series
    from .mail.headers import message_id_of
    from .sources.files import load_messages, parse_mails
    from .conversation.posting import select_posting
    from .conversation.narrow import narrow
    from .sources.threads import heads_of, series_outside, skipped_note

    narrowed = narrow(path, options.msgid)
    msgs = parse_mails(narrowed.raws) if narrowed is not None else load_messages(path)
    selected = select_posting(msgs, options.msgid, str(path))
    plain = plain_series(selected, source=str(path)) if options.revision is None else None
    series = plain or build_series(selected, revision=options.revision, source=str(path))
    limited = narrowed.notes if narrowed is not None else ()  # check says them on stderr too
    if options.msgid:
        return replace(series, notes=series.notes + limited) if limited else series
    # Which other series the input holds: the mails parsed, and those narrowing left out.
    chosen = {message_id_of(m) for m in selected}
    heads = heads_of(msgs) + (narrowed.outside if narrowed is not None else [])
    notes = limited + tuple(n for n in (skipped_note(series_outside(heads, chosen)),) if n)
    return replace(series, notes=series.notes + notes) if notes else series


def fetch_series(ref, review_options: ReviewOptions, options) -> Series:
    """Fetch the thread of `ref` (a sources.lore.MessageRef; `options` its FetchOptions) and build
    its series exactly as for a local file."""
    import dataclasses

    from .errors import InputError
    from .mail.headers import header, message_id_of
    from .mail.subject import parse_subject
    from .model.b4adapter import build_series
    from .sources.b4fetch import b4_midmask
    from .sources.lore import (ThreadCache, add_newer_revisions, git_config_loreurl, load_thread, message_url,
                               newest_revision, select_server)
    from .conversation.posting import select_posting

    if options.offline and options.latest:
        raise InputError("--latest searches the server for newer revisions; it cannot be used with --offline")
    server = select_server(ref, options, git_config_loreurl, b4_midmask)
    msgs, notes = load_thread(ref, server, options, ThreadCache())
    url = message_url(server.base, ref.msgid)
    asked = next(m for m in msgs if message_id_of(m) == ref.msgid)
    asked_subject = parse_subject(header(asked, "Subject"))
    given = select_posting(msgs, review_options.msgid or ref.msgid, url)
    selected = given
    if options.latest:
        msgs, latest_notes = add_newer_revisions(msgs, server, options)
        notes += latest_notes
        selected = select_posting(msgs, review_options.msgid, url) if len(msgs) > len(given) else given
    series = build_series(selected, revision=review_options.revision, source=url)
    if not asked_subject.is_patch or asked_subject.reply:
        notes.append(f"<{ref.msgid}> is a reply ({header(asked, 'Subject')[:80]!r}), not a patch; "
                     f"reviewed the series it belongs to, <{series.msgid}>")
    if options.latest:
        old = newest_revision(given)
        if series.revision > old:
            notes.append(f"--latest: reviewed v{series.revision} <{series.msgid}>, the newest revision "
                         f"found on {server.base}; the message given belongs to v{old}")
        elif not any(n.startswith("--latest") for n in notes):
            notes.append(f"--latest: no revision newer than v{old} found on {server.base}")
    return dataclasses.replace(series, notes=series.notes + tuple(notes)) if notes else series


def build_context(series: Series, options: ReviewOptions) -> tuple[Context, str, tuple[str, ...]]:
    from .context.profiles.file import choose

    config = options.repo_facts.config if options.repo_facts else None
    choice = choose(load_profiles(options.repo), options.profile, options.repo, config)
    first = series.first
    sent = (first.to + first.cc) if first else ()
    # lint: where MAINTAINERS routes the files (b4 prep --auto-to-cc would send there), after
    # the recipients already configured
    routed = tuple(options.settings.get("routed_recipients") or ())
    profile, reason = select_profile(choice.profiles, name=choice.name,
                                     tags=first.subject.tags if first else (), recipients=sent + routed,
                                     repo=options.repo, paths=[f.path for p in series.patches for f in p.diff.files],
                                     config=config, default=choice.default)
    reason = choice.reason(reason)
    address = reason.removeprefix("sent to ") if reason.startswith("sent to ") else None
    if address and address in {a.lower() for a in routed} and not any(address in a.lower() for a in sent):
        reason = f"MAINTAINERS lists {address} for the files (b4 prep --auto-to-cc would send there)"
    fields: dict[str, Any] = {"profile": profile, "unavailable": {}, "notes": [], "closers": [],
                              "foreign": foreign_patches(choice.profiles, profile, series)}
    for stage in context_stages():
        stage(series, options, fields)
    notes = tuple(fields.pop("notes"))
    closers = fields.pop("closers")
    ctx = Context(now=options.now or datetime.now(timezone.utc), options=options.settings, closers=tuple(closers),
                  **fields)
    return ctx, reason, notes


def review_series(series: Series, options: ReviewOptions) -> Review:
    ctx, reason, notes = build_context(series, options)
    try:
        rules = selected_rules(ctx, options.select, options.ignore)
        findings, not_checked = run_rules(series, ctx, rules)
    finally:
        for close in ctx.closers:
            close()
    from .verdict import series_verdict
    from .settled_verdict import from_findings

    state = ctx.reply_state or from_findings(series, findings)
    if state is not None and state["form"] == "already-applied":
        spec = ctx.profile.series_tree(series)
        state = {**state, "tree": spec.name if spec else None}
    return Review(series=series, profile=ctx.profile, profile_reason=reason, findings=tuple(findings),
                  not_checked=tuple(not_checked), rules_run=tuple(r.name for r in rules),
                  context_notes=notes,
                  verdict=series_verdict(series, findings, ctx.classification, state, ctx.reply_requests,
                                         ctx.rfc_lifted, for_author=options.settings.get("audience") == "author"),
                  reply_state=state, reply_claims=ctx.reply_claims, reply_requests=ctx.reply_requests,
                  reply_approvals=ctx.reply_approvals, rfc_lifted=ctx.rfc_lifted)
