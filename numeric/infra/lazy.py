"""Modules imported on first use: `torch = lazy_module("torch")` at the top of a module that needs torch
only inside functions, so that importing it (for example to register claims) does not cost torch's import
(about 3 s on the 2-core machine)."""
from __future__ import annotations

import importlib
import sys


class LazyModule:
    """Stands for the module `name`; the first attribute access imports it (then a dict lookup per access)."""

    def __init__(self, name: str):
        self.__dict__["_name"] = name

    def _module(self):
        mod = sys.modules.get(self._name)
        return mod if mod is not None else importlib.import_module(self._name)

    def __getattr__(self, attr):
        return getattr(self._module(), attr)

    def __repr__(self):
        state = "imported" if self._name in sys.modules else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> LazyModule:
    return LazyModule(name)
