"""Extra implementations checked by the differential campaign, next to ``theory``.

A :class:`Backend` opens a :class:`Session` on one graph; the campaign asks the session for
the active state under an audit (``active``) and replays audit/reinstatement sequences on it
step by step (``apply``), comparing every answer with clingo.

- :class:`FunctionBackend` wraps any ``f(structure, blocked) -> active ids`` (for instance
  your own engine: ``jtms fuzz --differential --backend mypkg.engine:active_after``).
- :func:`engine_backend` is the hook for the persistent ``jtms`` engine of issue 5. It is
  resolved at run time; while the engine is not on this branch it reports why it was skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from theory.strategies import AUDIT, AuditStep
from theory.structure import SupportStructure


class Session(Protocol):
    name: str

    def active(self, blocked: frozenset[str]) -> frozenset[str]:
        """The active state with exactly ``blocked`` audited (independent of earlier calls)."""

    def apply(self, step: AuditStep) -> frozenset[str]:
        """Apply one step of a sequence (incrementally, if the backend can) -> active state."""

    def close(self) -> None: ...


class Backend(Protocol):
    name: str

    def open(self, structure: SupportStructure) -> Session: ...


@dataclass
class _FunctionSession:
    name: str
    function: Callable[[SupportStructure, frozenset[str]], frozenset[str]]
    structure: SupportStructure
    blocked: frozenset[str] = frozenset()

    def active(self, blocked: frozenset[str]) -> frozenset[str]:
        return frozenset(self.function(self.structure, frozenset(blocked)))

    def apply(self, step: AuditStep) -> frozenset[str]:
        self.blocked = self.blocked | step.ids if step.action == AUDIT else self.blocked - step.ids
        return self.active(self.blocked)

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class FunctionBackend:
    """A backend from a function ``(structure, blocked) -> active node ids``."""

    name: str
    function: Callable[[SupportStructure, frozenset[str]], frozenset[str]]

    def open(self, structure: SupportStructure) -> Session:
        return _FunctionSession(self.name, self.function, structure)


# --- the jtms engine hook (issue 5) ----------------------------------------------------

ENGINE_MODULE = "jtms.memory"
"""Where the hook looks for the engine. Expected API (issue 5): ``Memory.open(":memory:")``
or a path, ``import_graph(structure)``, ``audit(roots, reason=...) -> audit id``,
``reinstate(audit_id)``, ``active_ids() -> set``. Adjust :func:`engine_backend` when the
engine lands on main."""


def engine_backend() -> tuple[Backend | None, str]:
    """(backend, "") if the production engine is importable, else (None, why it is skipped)."""
    import importlib

    try:
        module = importlib.import_module(ENGINE_MODULE)
    except ImportError:
        return None, f"jtms engine (issue 5) not on this branch: no module {ENGINE_MODULE}"
    factory = getattr(module, "fuzz_backend", None)
    if factory is None:
        return None, f"{ENGINE_MODULE} has no fuzz_backend() adapter yet"
    return factory(), ""
