"""The result types of a memory's operations: an audit, another write, an explanation.

They are plain frozen dataclasses, returned by :class:`jtms.memory.memory.Memory` and turned
into the CLI's ``--json`` and the MCP results by :mod:`jtms.views.payloads`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AuditResult:
    """An audit (or its dry run, ``audit_id`` None)."""

    audit_id: int | None
    roots: tuple[str, ...]
    retired: frozenset[str]  # active before, inactive after (roots included)
    region: int  # size of the support region the audit examined
    seconds: float  # planning + commit (+ applying), wall clock
    reason: str = ""
    reviewer: str | None = None
    _rederived: tuple[int, ...] = field(default=(), repr=False, compare=False)
    _ids: Sequence[str] = field(default=(), repr=False, compare=False)

    @property
    def rederived(self) -> frozenset[str]:
        """Claims that lost their support pointer but stay active, on another justification."""
        return frozenset(self._ids[n] for n in self._rederived)


@dataclass(frozen=True)
class Change:
    """A write other than an audit: the event id and the nodes it (re)activated."""

    event_id: int
    activated: frozenset[str]
    seconds: float
    added: int = 0


@dataclass(frozen=True)
class Step:
    """One step of a certificate: ``claim`` holds because all of ``antecedents`` do."""

    claim: str
    antecedents: tuple[str, ...]


@dataclass(frozen=True)
class Explanation:
    id: str
    kind: str
    active: bool
    text: str
    certificate: tuple[Step, ...] = ()  # active claim: a well-founded derivation
    evidence: tuple[str, ...] = ()  # the evidence the certificate rests on
    blocked_by: tuple[int, ...] = ()  # audits that invalidated this node itself
    withdrawn_by: int | None = None  # the event of its latest deactivation
    broken: tuple[
        tuple[tuple[str, ...], tuple[str, ...]], ...
    ] = ()  # (justification, inactive antecedents)
    kept_out_by: tuple[int, ...] = ()  # open audits that keep this inactive node out now
    erased_by: int | None = None  # the purge (an audit event) that erased its content

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "active": self.active,
            "text": self.text,
            "certificate": [
                {"claim": s.claim, "antecedents": list(s.antecedents)} for s in self.certificate
            ],
            "evidence": list(self.evidence),
            "blocked_by": list(self.blocked_by),
            "withdrawn_by": self.withdrawn_by,
            "broken_justifications": [
                {"antecedents": list(j), "inactive": list(i)} for j, i in self.broken
            ],
            "kept_out_by": list(self.kept_out_by),
            "erased_by": self.erased_by,
        }


@dataclass(frozen=True)
class PurgeResult:
    """``Memory.purge``: the node whose content was erased, the audit that retired it (its
    ``audit_id`` is the erasure's event) and whether the files were scrubbed of old copies."""

    id: str
    audit: AuditResult
    scrubbed: bool


__all__ = ["AuditResult", "Change", "Explanation", "PurgeResult", "Step"]
