"""Extra implementations checked by the differential campaign, next to ``theory``.

A :class:`EngineUnderTest` opens a :class:`Session` on one graph; the campaign asks the session for
the active state under an audit (``active``) and replays audit/reinstatement sequences on it
step by step (``apply``), comparing every answer with clingo.

- :class:`FunctionBackend` wraps any ``f(structure, blocked) -> active ids`` (for instance
  your own engine: ``jtms fuzz --differential --backend mypkg.engine:active_after``).
- :func:`engine_backend`: the persistent ``jtms`` engine (``jtms.memory.memory.Memory``),
  which every campaign checks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from theory.model.structure import SupportStructure
from theory.testing.strategies import AUDIT, AuditStep


class BackendError(RuntimeError):
    """A function backend raised instead of answering (one-line message, exit 2 in the CLI)."""


class Session(Protocol):
    @property
    def name(self) -> str: ...

    def active(self, blocked: frozenset[str]) -> frozenset[str]:
        """The active state with exactly ``blocked`` audited (independent of earlier calls)."""

    def apply(self, step: AuditStep) -> frozenset[str]:
        """Apply one step of a sequence (incrementally, if the backend can) -> active state."""

    def close(self) -> None: ...


class EngineUnderTest(Protocol):
    @property
    def name(self) -> str: ...

    def open(self, structure: SupportStructure) -> Session: ...


@dataclass
class _FunctionSession:
    name: str
    function: Callable[[SupportStructure, frozenset[str]], frozenset[str]]
    structure: SupportStructure
    blocked: frozenset[str] = frozenset()

    def active(self, blocked: frozenset[str]) -> frozenset[str]:
        try:  # on a copy: a backend that changes its graph must not change the campaign's
            got = frozenset(self.function(copy.deepcopy(self.structure), frozenset(blocked)))
        except (Exception, SystemExit) as error:  # sys.exit() in a backend is no pass
            raise BackendError(
                f"--backend {self.name!r} raised {error.__class__.__name__}: {error}"
            ) from error
        strange = [item for item in got if not isinstance(item, str)]
        if strange:
            raise BackendError(
                f"--backend {self.name!r} returned {len(strange)} item(s) that are not ids "
                f"(strings), e.g. {repr(strange[0])[:60]}"
            )
        return got

    def apply(self, step: AuditStep) -> frozenset[str]:
        self.blocked = step.apply(self.blocked)
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


# --- the jtms engine ------------------------------------------------------------------


class _EngineSession:
    """The production engine on one graph, in an in-memory SQLite store.

    Single audits go through ``Memory.preview`` (the engine's retraction plan, nothing
    written); sequences go through real ``audit``/``reinstate`` transactions. The engine
    reinstates whole audits, so reinstating part of an audit's roots is done as: reinstate
    the audit, then audit the roots that stay blocked again.
    """

    name = "jtms-engine"

    def __init__(self, memory_class: Any, structure: SupportStructure):
        self.memory = memory_class.create(":memory:", durability="off")
        self.memory.import_graph(structure, source="<fuzz>")
        self.base = self.memory.active_ids()
        self.open_audits: dict[int, frozenset[str]] = {}

    def active(self, blocked: frozenset[str]) -> frozenset[str]:
        if self.open_audits:
            raise RuntimeError("active() is for the base state; a sequence is in progress")
        if not blocked:
            return self.memory.active_ids()
        return self.base - self.memory.preview(sorted(blocked)).retired

    def apply(self, step: AuditStep) -> frozenset[str]:
        if step.action == AUDIT:
            result = self.memory.audit(sorted(step.ids), reason="fuzz")
            self.open_audits[result.audit_id] = frozenset(step.ids)
        else:
            for audit_id, roots in sorted(self.open_audits.items()):
                if roots & step.ids:
                    self.memory.reinstate(audit_id, reason="fuzz")
                    del self.open_audits[audit_id]
                    keep = roots - step.ids
                    if keep:
                        result = self.memory.audit(
                            sorted(keep), reason="fuzz (partial reinstatement)"
                        )
                        self.open_audits[result.audit_id] = keep
        return self.memory.active_ids()

    def close(self) -> None:
        self.memory.close()


@dataclass(frozen=True)
class EngineBackend:
    memory_class: type
    name: str = "jtms-engine"

    def open(self, structure: SupportStructure) -> Session:
        return _EngineSession(self.memory_class, structure)


def engine_backend() -> EngineUnderTest:
    """The production engine, ``jtms.memory.memory.Memory``, as a campaign backend."""
    from jtms.memory.memory import Memory  # deferred: the fuzzer imports no SQLite until asked

    return EngineBackend(Memory)
