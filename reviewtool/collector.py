"""Pausing Python's cyclic garbage collector around loops that build many objects and no cycles.

Each collection walks the objects made since the last one (and, every so often, all of them).
Decoding a store's row of 28,000 mails makes some 200,000 objects, none in a cycle: the
collections it set off were 40% of its time on the four-year archive, and found nothing.
"""

from __future__ import annotations

import functools
import gc
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)


class paused:
    """No automatic collection inside the block or decorated function (it resumes after, as it was).
    A class, not a contextlib generator: a decorated function is called once per file of a
    maildir, and contextlib's machinery was a twentieth of a warm run over 28,000 of them."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self._was:
            gc.enable()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            if not gc.isenabled():
                return fn(*args, **kwargs)
            gc.disable()
            try:
                return fn(*args, **kwargs)
            finally:
                gc.enable()
        return inner  # type: ignore[return-value]


def settle() -> None:
    """Take every object made so far out of the collector's reach (gc.freeze) until unsettle():
    an archive's index and grouping live as long as the run, and each full collection after them
    walked them all again (50 ms a time on the four-year archive). Their memory is still freed
    when the last reference goes; only a cycle among them waits for unsettle()."""
    gc.freeze()


def unsettle() -> None:
    """Give what settle() froze back to the collector (the run is over: a process that goes on,
    a test runner say, collects its cycles again)."""
    gc.unfreeze()
