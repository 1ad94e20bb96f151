"""One world under every rule: the state each rule leaves and the context it would show.

:func:`revise` takes a world already imported into a production memory, applies each rule
to the audit and returns, per rule, what it retired, the active state after it and its
working contexts under the budget (:mod:`jtms.studies.rendering`, the same selection for
every rule): one with no question in view, and one per delayed question with its target in
focus. The engine's exact rule audits the memory itself; every other rule is a plain
function whose memory keeps its pre-audit certificates. :func:`clingo_active` is the
independent oracle (clingo's stable model after the audit) that every study checks the
states against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.memory.memory import Memory
from jtms.studies.readers import Question
from jtms.studies.rendering import MemoryView, certificates_of, engine_view, render, rule_view
from jtms.studies.rules import RuleFn, engine_exact, truth_active
from theory.model.structure import SupportStructure

ANSWERED_RULE: ContextVar[str | None] = ContextVar("answered_rule", default=None)
"""The rule whose context :meth:`Revised.context_for` compiled last: every study hands that
context straight to a reader (``reader(outcome.context_for(q), q)``), so an answerer (and the
CLI's ``--transcript``) can name the rule each of its calls answers for."""


@dataclass(frozen=True)
class Revised:
    """What one rule did to one world: its state, and the contexts it shows under ``budget``."""

    rule: str
    retired: frozenset[str]
    active: frozenset[str]
    view: MemoryView
    budget: int | None
    audit_seconds: float | None = None  # the engine's AuditResult.seconds (exact rule)
    _focused: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def context(self) -> str:
        """The working context with no question in view."""
        return render(self.view, self.budget)

    def context_for(self, question: Question) -> str:
        """The working context compiled for a delayed question (its target in focus)."""
        ANSWERED_RULE.set(self.rule)
        if question.target not in self._focused:
            self._focused[question.target] = render(self.view, self.budget, focus=question.target)
        return self._focused[question.target]


def revise(
    memory: Memory,
    structure: SupportStructure,
    audit: frozenset[str],
    rules: Mapping[str, RuleFn],
    budget: int | None,
    reason: str,
) -> dict[str, Revised]:
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
            result[name] = Revised(
                name, before - after, after, engine_view(memory, structure, reason), budget, seconds
            )
        else:
            retired = frozenset(rule(structure, audit)) if audit else frozenset()
            after = before - retired
            result[name] = Revised(
                name,
                retired,
                after,
                rule_view(structure, after, retired, certificates, reason),
                budget,
            )
    return result


def clingo_active(structure: SupportStructure, audit: Iterable[str]) -> frozenset[str]:
    """The active state after ``audit`` according to clingo (shares no code with theory)."""
    return frozenset(ClingoOracle(structure).active(frozenset(audit)))
