"""Rule families: every module in this package other than the machinery registers its rules."""

from __future__ import annotations

import importlib
import pkgutil

_MACHINERY = {"registry", "runner", "labels"}
_LOADED = False


def load_all() -> None:
    """Import every family once (listing the package costs more than a small review's rules)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for mod in pkgutil.iter_modules(__path__):
        if mod.name not in _MACHINERY:
            importlib.import_module(f"{__name__}.{mod.name}")
