"""`reviewtool lint [REVRANGE]`: review your own commits before you send them.

Builds the series `git format-patch --cover-letter --base` would write (sources/gitrange.py) and
runs every rule with the repository as context, so "this is not net material" is heard before
sending. Exit 1 on error-level findings: it can gate `git send-email` (sendemail-validate hook),
`b4 send` or a pre-push hook. The repository is only read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import InputError, ReviewtoolError
from .check import Format

# The stages are imported when the command runs: every command is registered on each start.
if TYPE_CHECKING:
    from ..review import Review, ReviewOptions
    from ..sources.gitrange import RangeMails, RangeRequest

LINT_SKIP_RULES = ("does-not-apply",)


def lint_review(repo: Path, request: RangeRequest, options: ReviewOptions, *,
                checkpatch: bool = False) -> tuple[Review, RangeMails | None]:
    """Review the series of `request` (a range, a b4 prep branch, or a directory of patches)."""
    from ..model.own import OwnSeriesBuilder
    from ..review import load_series_from_path, prefetch_context
    from ..sources.gitrange import range_mails

    directory = Path(request.revrange) if request.revrange and Path(request.revrange).is_dir() else None
    if directory is not None:
        series, mails = load_series_from_path(directory, options), None
        return _lint_series(repo, series, None, directory, options, checkpatch)
    builder = OwnSeriesBuilder()
    facts = []
    try:
        mails = range_mails(repo, request, on_message=builder.add,
                            on_facts=lambda f: (facts.append(f), prefetch_context(repo, f)))
        return _lint_series(repo, builder.series(mails.label), mails, None, options, checkpatch)
    finally:
        for f in facts:
            f.close()


def _lint_series(repo: Path, series, mails: RangeMails | None, directory: Path | None, options: ReviewOptions,
                 checkpatch: bool) -> tuple[Review, RangeMails | None]:
    from ..render.env import for_author
    from ..review import review_series

    # Commits sit on their base by construction: applying them again there proves nothing.
    options = replace(options, ignore=options.ignore + LINT_SKIP_RULES)
    settings = {**options.settings, "cc_from_trailers": True, "audience": "author",
                "recipients_command": mails.recipients_command if mails else None,
                "upstream_head": mails.upstream if mails else None,
                "routed_recipients": routed_lists(repo, series)}
    review = review_series(series, replace(options, settings=settings,
                                           repo_facts=mails.facts if mails else options.repo_facts))
    findings, not_checked = list(review.findings), list(review.not_checked)
    if checkpatch:
        from ..checkpatch import run_checkpatch

        raw = _raw_patches(series, mails, directory)
        found, missing = run_checkpatch(repo, raw)
        findings.extend(found)
        not_checked.extend(missing)
    if mails is not None:  # each finding names the commit that carries it
        findings = [replace(f, commit=f.commit or mails.commit_of(f.patch)) for f in findings]
    # lint speaks to the author: a step only the applier can take ("when applying") is left out
    findings = [replace(f, advice=for_author(f.advice)) if f.advice else f for f in findings]
    findings.sort(key=lambda f: (f.patch is not None, f.patch or 0, f.severity.rank, f.rule))
    extras: dict[str, Any] = {}
    if mails is not None:
        extras["lint"] = {"range": mails.label, "base": mails.base, "tip": mails.tip, "commits": list(mails.commits),
                          "to": list(mails.to), "cc": list(mails.cc),
                          "cover_letter": mails.cover.origin if mails.cover else None}
    notes = tuple(mails.notes if mails else ()) + review.context_notes
    return replace(review, findings=tuple(findings), not_checked=tuple(not_checked), context_notes=notes,
                   extras={**review.extras, **extras}), mails


def routed_lists(repo: Path, series) -> tuple[str, ...]:
    """The list addresses MAINTAINERS names for the series' files, in get_maintainer's order:
    where b4 prep --auto-to-cc would send it, so the profile is chosen as `check` chooses it
    for the mail once sent."""
    from ..context.maintainers.lookup import load_maintainers

    try:
        maintainers = load_maintainers(repo)
    except (OSError, ReviewtoolError):  # an unreadable MAINTAINERS only means no routing hint
        return ()
    if maintainers is None:
        return ()
    paths = sorted({f.path for p in series.patches for f in p.diff.files if not f.unsafe_path})
    return tuple(dict.fromkeys(r.address.lower() for r in maintainers.recipients(paths) if r.kind == "list"))


def _raw_patches(series, mails: RangeMails | None, directory: Path | None) -> list[tuple[int, bytes]]:
    """The patch mails as bytes, for checkpatch (the cover letter is not a patch)."""
    from ..sources.files import load_messages
    from .b4_check import patch_mails

    return patch_mails(list(mails.messages) if mails is not None else load_messages(directory))


def lint(
    revrange: Optional[str] = typer.Argument(None, metavar="[REVRANGE]",
                                             help="Commits to lint: A..B, a revision (X means X..HEAD), a b4 prep "
                                                  "branch, or a directory of format-patch files. Default: the b4 "
                                                  "prep branch you are on, else @{upstream}..HEAD."),
    repo: Optional[Path] = typer.Option(None, "--repo", metavar="PATH",
                                        help="The repository (default: the current directory)."),
    to: list[str] = typer.Option([], "--to", metavar="ADDR", help="A To: recipient you will send to (repeatable)."),
    cc: list[str] = typer.Option([], "--cc", metavar="ADDR", help="A Cc: recipient you will send to (repeatable)."),
    prefix: list[str] = typer.Option([], "--prefix", metavar="TAG",
                                     help="Subject tag, as in [PATCH net]: --prefix net (repeatable; default: b4 "
                                          "prep's prefixes, then format.subjectPrefix)."),
    reroll: Optional[int] = typer.Option(None, "--reroll-count", "-v", min=1, help="The revision: [PATCH vN]."),
    rfc: bool = typer.Option(False, "--rfc", help="Lint as [RFC PATCH]."),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", readable=False, help="Write to this file."),
    profile: Optional[str] = typer.Option(None, "--profile", "-p", help="Target project profile."),
    select: list[str] = typer.Option([], "--select", help="Only these rules or families."),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip these rules or families."),
    max_patches: Optional[int] = typer.Option(None, "--max-patches", min=1, help="series-too-long threshold."),
    tree: list[str] = typer.Option([], "--tree", metavar="NAME=REF", help="The ref tracking a tree (repeatable)."),
    checkpatch: bool = typer.Option(False, "--checkpatch",
                                    help="Also run the repository's scripts/checkpatch.pl on each patch."),
    suggest: bool = typer.Option(False, "--suggest",
                                 help="Print corrected trailer lines as a patch to the commit messages "
                                      "(nothing is changed)."),
) -> int:
    """Lint your own commits as the series you are about to send.

    Exit codes: 0 no error-level findings, 1 error-level findings (use it to gate git send-email, b4 send
    or a pre-push hook), 2 unusable repository or range.
    """
    from ..context.history.options import repo_or_default, tree_overrides
    from ..render import render_review
    from ..render.env import render_template
    from ..render.output import emit
    from ..review import ReviewOptions
    from ..sources.gitrange import RangeRequest

    path = repo_or_default(repo)
    if path is None:
        raise InputError("not inside a git repository: run in one or use --repo PATH")
    request = RangeRequest(revrange=revrange, prefixes=tuple(prefix), revision=reroll, rfc=rfc, to=tuple(to),
                           cc=tuple(cc))
    options = ReviewOptions(profile=profile, repo=path, trees=tree_overrides(tree), select=tuple(select),
                            ignore=tuple(ignore), settings={"max_patches": max_patches})
    review, mails = lint_review(path, request, options, checkpatch=checkpatch)
    if suggest:
        data = suggestion_data(path, mails)
        if fmt.value == "json":
            review = replace(review, extras={**review.extras, "suggestions": data})
        else:
            emit(render_template("suggest.text.j2", s=data), "plain", output)
            return review.exit_code
    emit(render_review(review, fmt.value), fmt.value, output)
    return review.exit_code


def suggestion_data(repo: Path, mails: RangeMails | None) -> dict[str, Any]:
    """The --suggest patch as data: one entry per commit whose trailers can be corrected."""
    if mails is None:
        raise InputError("--suggest works on commits (a range or a b4 prep branch), not on a directory of patches")
    from ..context.history.repository import History
    from ..suggest import message_fixes

    hist = History.open(repo)
    try:
        resolved = hist.resolve(mails.commits)  # one cat-file batch for every commit
        fixes = message_fixes([r.commit for r in resolved.values() if r.commit is not None], hist)
    finally:
        hist.close()
    return {"range": mails.label, "base": mails.base, "commits": len(mails.commits),
            "fixes": [{"commit": f.commit, "subject": f.subject, "reasons": list(f.reasons), "diff": list(f.diff)}
                      for f in fixes]}


EPILOG = """Examples:
  reviewtool lint             # the b4 prep branch, else @{upstream}..HEAD
  reviewtool lint origin/main..HEAD --prefix net -v 2
  reviewtool lint --suggest   # corrected trailers, as a patch

More: `reviewtool rules` lists every rule; docs/lint.md in reviewtool's source describes
the hook and CI set-ups."""


def register(app: typer.Typer) -> None:
    app.command("lint", epilog=EPILOG)(lint)
