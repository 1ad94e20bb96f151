"""Acting on a diagnosis in a stored memory: audit the chosen one, with a reason naming the
contradictions it resolves (``jtms diagnose --db --apply N``, ``jtms review --apply``).

The contradictions and the ranked diagnoses come from :meth:`Memory.diagnose`
(:mod:`theory.semantics.diagnosis`); this module only chooses, audits and reports.

>>> from jtms.memory.contradictions import review_contradictions                        # doctest: +SKIP
>>> found = review_contradictions(memory, apply=True)                       # doctest: +SKIP
>>> found.applied.audit.retired                                             # doctest: +SKIP
frozenset({'assay', 'inert'})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from theory.model.errors import InputError
from theory.semantics.diagnosis import DiagnosisReport

if TYPE_CHECKING:  # pragma: no cover
    from jtms.memory.memory import Memory
    from jtms.memory.results import AuditResult


@dataclass(frozen=True)
class Applied:
    """The audit of the ``number``-th diagnosis: its reason and what it retired."""

    number: int
    reason: str
    audit: "AuditResult"

    def to_dict(self) -> dict[str, Any]:
        return {
            "diagnosis": self.number,
            "audit_id": self.audit.audit_id,
            "invalidate": sorted(self.audit.roots),
            "retired": sorted(self.audit.retired),
            "reason": self.reason,
        }


def apply_diagnosis(
    memory: "Memory", report: DiagnosisReport, number: int, reviewer: str = "jtms-diagnose"
) -> Applied:
    """Audit the ``number``-th diagnosis of ``report`` (1 = the cheapest) with a reason naming
    the contradictions it resolves. Bad input (nothing active, no such diagnosis) raises
    :class:`InputError` before anything is written."""
    if not report.active:
        raise InputError(
            "--apply: no nogood is active, there is nothing to diagnose", source=memory.path
        )
    if number > len(report.diagnoses):
        shown = len(report.diagnoses)
        what = "no diagnosis over evidence" if not shown else f"only {shown} diagnosis(es)"
        raise InputError(f"--apply {number}: there is {what}", source=memory.path)
    chosen = report.diagnoses[number - 1]
    resolved = [c.nogood.id for c in report.active if c.diagnosable]
    reason = (
        f"diagnosis {number} of contradiction(s) {', '.join(resolved)}: invalidate "
        f"{', '.join(sorted(chosen.invalidate))} (dry run: retires {chosen.retired_claims} "
        f"claim(s))"
    )
    audit = memory.audit(sorted(chosen.invalidate), reason=reason[:2000], reviewer=reviewer)
    return Applied(number, reason, audit)


@dataclass(frozen=True)
class ContradictionReview:
    """What ``jtms review`` adds: the contradictions, the cheapest diagnosis, its audit."""

    report: DiagnosisReport
    applied: Applied | None = None

    @property
    def proposed(self) -> dict[str, Any] | None:
        listed = self.report.to_dict()["diagnoses"]
        return listed[0] if listed else None

    def to_dict(self) -> dict[str, Any]:
        payload = self.report.to_dict()
        return {
            "contradictions": [c for c in payload["contradictions"] if c["active"]],
            "undiagnosable": payload["undiagnosable"],
            "proposed_diagnosis": self.proposed,
            "diagnosis_audit": self.applied.to_dict() if self.applied else None,
        }


def review_contradictions(
    memory: "Memory", apply: bool = False, reviewer: str = "jtms-review"
) -> ContradictionReview:
    """The active contradictions of ``memory`` and the cheapest diagnosis; audited when
    ``apply`` and there is one."""
    from jtms.memory.limits import MAX_REVIEWER, check_text

    reviewer = check_text(reviewer, "reviewer", MAX_REVIEWER)
    report = memory.diagnose(limit=1)
    applied = None
    if apply and report.diagnoses:
        applied = apply_diagnosis(memory, report, 1, reviewer)
    return ContradictionReview(report, applied)


__all__ = ["Applied", "ContradictionReview", "apply_diagnosis", "review_contradictions"]
