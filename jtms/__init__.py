"""Production side: the ``jtms`` CLI, the persistent memory and selective reconsolidation.

Every semantic decision is delegated to :mod:`theory`; this package adds persistence,
incrementality, serving and rendering. The one public API of a stored memory is
:class:`Memory`:

>>> import tempfile, os
>>> from jtms import Memory
>>> path = os.path.join(tempfile.mkdtemp(), "m.db")
>>> with Memory.create(path) as memory:
...     for evidence in ("a", "b"):
...         _ = memory.add_evidence(evidence)
...     _ = memory.add_claim("c", [["a"], ["b"]])          # two independent justifications
...     result = memory.audit(["a"], reason="assay A was contaminated")
...     sorted(result.retired), memory.is_active("c")      # c keeps its support from b
(['a'], True)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"
"""The release (pyproject.toml's version; tests/jtms/cli/test_provenance.py checks they agree)."""

# Loaded on first use, so that ``import jtms`` (and ``jtms --help``) stays cheap.
_EXPORTS = {
    "AuditResult": "jtms.memory.results",
    "Explanation": "jtms.memory.results",
    "Memory": "jtms.memory.memory",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jtms' has no attribute {name!r}")
