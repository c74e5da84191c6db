"""Deprecation shims for the module paths that moved in the house-plan layout (issue 25), kept for one release.

A shim module sets ``__getattr__ = forward(__name__, new, ...)``: each name read from the old path warns with a
DeprecationWarning and is taken from the new module, imported on first use (so a shim imports nothing upward
at import time)."""
from __future__ import annotations

import importlib
import warnings


def forward(old: str, *new: str):
    """A module ``__getattr__`` that forwards ``old``'s names to the first module of ``new`` that has them (one old
    module may have been split in two), with a DeprecationWarning naming it."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        for target in new:
            module = importlib.import_module(target)
            if hasattr(module, name):
                warnings.warn(f"{old} is deprecated: import {name} from {target}", DeprecationWarning, stacklevel=2)
                return getattr(module, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return __getattr__
