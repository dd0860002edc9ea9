"""Rule families: every module in this package other than the machinery registers its rules."""

from __future__ import annotations

import importlib
import pkgutil

_MACHINERY = {"registry", "runner", "helpers"}


def load_all() -> None:
    for mod in pkgutil.iter_modules(__path__):
        if mod.name not in _MACHINERY:
            importlib.import_module(f"{__name__}.{mod.name}")
