"""`reviewtool profile learn SOURCE... [-o PROFILE.toml]`: a list's profile, learned from its archive."""

from __future__ import annotations

import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from ..errors import EXIT_OK, InputError

app = typer.Typer(help="Profiles: learn one from a list's archive.", no_args_is_help=True)


@contextmanager
def _progress(show: bool) -> Iterator:
    """A rich progress display on stderr: mails read, then postings reviewed."""
    from ..learn.run import Progress

    if not show:
        yield Progress()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

    console = Console(stderr=True, force_terminal=True if not sys.stderr.isatty() else None)
    with Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
             console=console, transient=True) as bar:
        reading = bar.add_task("reading the archive", total=None)
        state = {}

        def reviews(total: int) -> None:
            bar.update(reading, visible=False)
            state["task"] = bar.add_task("reviewing applied and sent-back postings", total=total)

        yield Progress(mails=lambda: bar.advance(reading), reviews=reviews,
                       reviewed=lambda: bar.advance(state["task"]) if "task" in state else None)


def learn_command(
    sources: list[Path] = typer.Argument(None, help="The list's archive: mbox or maildir, gzip of either, "
                                                    "directories of mail files, a public-inbox inbox."),
    query: Optional[str] = typer.Option(None, "--query", help="A public-inbox search on the archive server "
                                                              "(full threads of every hit), as for triage."),
    lore_url: Optional[str] = typer.Option(None, "--lore-url", metavar="URL", help="The server for --query."),
    timeout: str = typer.Option("30s", "--timeout", help="Give up on the server after this long."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the profile here (default: stdout)."),
    name: Optional[str] = typer.Option(None, "--name", help="The profile's name (default: from the list address)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, max=64,
                             help="Processes reviewing postings (default: one a core, at most 8)."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                            help="Progress on stderr (default: when stderr is a terminal)."),
) -> int:
    """Learn a list's conventions from its archive and write them as a profile.

    From the maintainers' own replies it finds what was applied, to which tree and by whom, and
    what was sent back; from the applied postings it learns the trees and their kinds, the
    sub-trees feeding them, required subject prefixes, tree tags, sign-off and changelog use,
    series sizes, the merge window, the appliers, the list and its paths, and which findings the
    maintainers accept. Each setting carries its evidence as a comment; what has too little
    evidence is left out, and the file says so. Use it with `--profile FILE` (check, triage,
    lint) or as the repository's default (`git config reviewtool.profile FILE`).

    Exit codes: 0 the profile was written, 2 unusable input.
    """
    from ..learn.facts import default_workers
    from ..learn.run import learn

    if name is not None and not name.replace("-", "").replace("_", "").isalnum():
        raise InputError(f"--name {name!r}: use letters, digits, - and _")
    if not sources and query is None:
        raise InputError("nothing to learn from: give the list's archive, or --query")
    show = sys.stderr.isatty() if progress is None else progress
    with tempfile.TemporaryDirectory(prefix="reviewtool-learn-") as scratch, _progress(show) as tick:
        paths, labels = list(sources or ()), {}
        if query is not None:
            from ..sources.lore import FetchOptions, parse_duration
            from ..triage.inputs import search

            fetch = FetchOptions(lore_url=lore_url, quiet=True,
                                 timeout_s=parse_duration(timeout, "--timeout", positive=True))
            found = search(query, Path(scratch), fetch)
            paths.append(found)
            labels[found] = f"search {query!r}"
        result = learn(paths, Path(scratch), workers=jobs or default_workers(), name=name, progress=tick,
                       labels=labels)
    from ..render.env import strip_controls

    for line in result.limited + _limited_reviews(result.not_reviewed):  # said whatever the output
        print(f"reviewtool: {strip_controls(line)}", file=sys.stderr)
    if output is None:
        sys.stdout.write(result.text)
    else:
        from ..render.output import write_file

        write_file(output, [result.text])  # beside it, then renamed: a failed write keeps the old profile
        from ..learn.write import escaped

        names = escaped(", ".join(lp.name for lp in result.profiles))  # a name learned from mail acts on no terminal
        trees = sum(len(lp.trees) for lp in result.profiles)
        print(f"wrote {output}: profile {names}, {trees} trees, from {result.archive.messages:,} messages "
              f"({result.reviewed:,} postings reviewed)", file=sys.stderr)
    from ..learn.conventions import MIN_POSTINGS

    thin = [lp for lp in result.profiles if lp.left_out]
    applied = sum(lp.postings for lp in result.profiles)
    if thin and applied < MIN_POSTINGS:  # said on stderr too: such a profile is mostly the generic one
        print(f"reviewtool: learned from {applied:,} applied posting{'s' if applied != 1 else ''} (fewer than "
              f"{MIN_POSTINGS}): "
              f"{sum(len(lp.left_out) for lp in thin)} settings were left out for want of evidence and keep the "
              "generic profile's values (the file's header lists them)", file=sys.stderr)
    return EXIT_OK


def _limited_reviews(not_reviewed: list[str]) -> list[str]:
    """The line that says how many postings a limit kept from being reviewed (the header lists them)."""
    over = [r for r in not_reviewed if "(REVIEWTOOL_" in r]
    if not over:
        return []
    return [f"{len(over):,} posting{'s' if len(over) != 1 else ''} could not be reviewed for a limit "
            f"({over[0][:120]}{', ...' if len(over) > 1 else ''}); the profile's header counts them"]


EPILOG = """Examples:
  reviewtool profile learn linux-wireless.mbox.gz -o wireless.toml
  reviewtool profile learn ~/Mail/linux-bluetooth/ -o bt.toml --jobs 2

More: docs/profiles.md in reviewtool's source describes what is learned, from what, and
how much evidence each setting needs."""


app.command("learn", epilog=EPILOG)(learn_command)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="profile", epilog=EPILOG)
