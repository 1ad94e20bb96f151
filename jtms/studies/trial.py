"""One world under every rule: the state each rule leaves and the context it would show.

:func:`revise` takes a world already imported into a production memory, applies each rule
to the audit and returns, per rule, what it retired, the active state after it and its
working context under the budget (:mod:`jtms.studies.rendering`, the same selection for
every rule). The engine's exact rule audits the memory itself; every other rule is a plain
function whose memory keeps its pre-audit certificates. :func:`clingo_active` is the
independent oracle (clingo's stable model after the audit) that every study checks the
states against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from theory.structure import SupportStructure

from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.reconsolidation import Memory
from jtms.studies.rendering import certificates_of, engine_view, render, rule_view
from jtms.studies.rules import RuleFn, engine_exact, truth_active


@dataclass(frozen=True)
class Revised:
    """What one rule did to one world."""

    rule: str
    retired: frozenset[str]
    active: frozenset[str]
    context: str
    audit_seconds: float | None = None     # the engine's AuditResult.seconds (exact rule)


def revise(memory: Memory, structure: SupportStructure, audit: frozenset[str],
           rules: Mapping[str, RuleFn], budget: int | None, reason: str) -> dict[str, Revised]:
    """Every rule applied to ``audit`` on the world in ``memory`` (imported, not yet audited)."""
    before = truth_active(structure, ())
    certificates = certificates_of(memory, sorted(structure.claims))
    result: dict[str, Revised] = {}
    for name, rule in rules.items():
        if rule is engine_exact:
            seconds = None
            if audit:
                outcome = memory.audit(sorted(audit), reason=reason)
                seconds = outcome.seconds
            after = memory.active_ids()
            context = render(engine_view(memory, structure, reason), budget)
            result[name] = Revised(name, before - after, after, context, seconds)
        else:
            retired = frozenset(rule(structure, audit)) if audit else frozenset()
            after = before - retired
            context = render(rule_view(structure, after, retired, certificates, reason), budget)
            result[name] = Revised(name, retired, after, context)
    return result


def clingo_active(structure: SupportStructure, audit: Iterable[str]) -> frozenset[str]:
    """The active state after ``audit`` according to clingo (shares no code with theory)."""
    return frozenset(ClingoOracle(structure).active(frozenset(audit)))
