"""Error types and the exit codes they map to: the only place exit codes are decided."""

from __future__ import annotations

EXIT_OK = 0  # no error-level findings
EXIT_FINDINGS = 1  # error-level findings
EXIT_INPUT = 2  # the input could not be read or used


class ReviewtoolError(Exception):
    """An error that ends the command with a one-line message on stderr."""

    exit_code = EXIT_INPUT

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return text or self.__class__.__name__


class InputError(ReviewtoolError):
    """The input could not be read or holds nothing reviewable."""


class FetchError(InputError):
    """A thread could not be fetched from the archive server."""


class RepositoryError(InputError):
    """The repository given with --repo cannot be used."""


class ConfigError(InputError):
    """A profile or configuration file is invalid."""


class LimitError(InputError):
    """Input over a resource limit (limits.py). `what` says which limit without saying where the
    input is, so that triage can keep it with the review of the same bytes."""

    def __init__(self, where: str, what: str):
        super().__init__(f"{where}: {what}" if where else what)
        self.what = what
