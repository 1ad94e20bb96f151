"""Optional engines (clingo, Dask) are extras: a missing one is bad input, not a traceback.

>>> from theory.model.optional import import_optional
>>> import_optional("json", "core").__name__
'json'
>>> import_optional("no_such_engine_xyz", "clingo")
Traceback (most recent call last):
...
theory.model.optional.MissingDependency: no_such_engine_xyz is not installed: pip install 'jtms-revision[clingo]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from theory.model.errors import InputError


class MissingDependency(InputError):
    """An optional package is needed for this command (exit 2, one line naming the extra)."""


def import_optional(module: str, extra: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependency` naming the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingDependency(
            f"{top} is not installed: pip install 'jtms-revision[{extra}]'"
        ) from None


__all__ = ["MissingDependency", "import_optional"]
