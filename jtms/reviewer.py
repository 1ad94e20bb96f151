"""The reviewer: re-execute recorded calculations, nominate discrepancies, run the audit.

Evidence may record an executed calculation: a sympy expression and the value it gave
(``expression``/``value`` in the graph file, ``--expression``/``--value`` on
``jtms add-evidence``). :func:`review` re-executes every recorded calculation of evidence
that is not already invalidated, through :mod:`jtms.safe_expr` (parsed against a
whitelist, never with ``sympify``). Each disagreement is a discrepancy and an audit root;
all of them are invalidated in one audit (the loop without an oracle root: discrepancy,
diagnosis, reactivation, reconsolidation). Calculations that cannot be re-executed safely
are reported as refused and are not audited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jtms.reconsolidation import AuditResult, Memory
from jtms.safe_expr import UnsafeExpression, parse_expression, same_value


@dataclass(frozen=True)
class Discrepancy:
    id: str
    expression: str
    recorded: str
    recomputed: str | None
    problem: str


@dataclass
class ReviewReport:
    checked: int = 0
    discrepancies: list[Discrepancy] = field(default_factory=list)
    refused: list[Discrepancy] = field(default_factory=list)
    audit: AuditResult | None = None

    def as_dict(self) -> dict[str, Any]:
        def row(d: Discrepancy) -> dict[str, Any]:
            return {"id": d.id, "expression": d.expression, "recorded": d.recorded,
                    "recomputed": d.recomputed, "problem": d.problem}

        return {
            "checked": self.checked,
            "discrepancies": [row(d) for d in self.discrepancies],
            "refused": [row(d) for d in self.refused],
            "audit_id": self.audit.audit_id if self.audit else None,
            "retired": sorted(self.audit.retired) if self.audit else [],
        }


def recheck(node_id: str, expression: str, recorded: str) -> Discrepancy | None:
    """None when the calculation reproduces its recorded value; else what is wrong."""
    try:
        value = parse_expression(expression)
    except UnsafeExpression as error:
        return Discrepancy(node_id, expression, recorded, None, f"refused: {error.problem}")
    try:
        expected = parse_expression(recorded)
    except UnsafeExpression as error:
        return Discrepancy(node_id, expression, recorded, str(value),
                           f"recorded value is not a number: {error.problem}")
    if not value.is_number:
        return Discrepancy(node_id, expression, recorded, str(value), "does not evaluate to a number")
    if same_value(value, expected):
        return None
    shown = str(value) if value.is_Rational else str(value.evalf(15))
    return Discrepancy(node_id, expression, recorded, shown,
                       f"recomputed {shown}, recorded {recorded}")


def review(memory: Memory, reviewer: str = "jtms-review", dry_run: bool = False) -> ReviewReport:
    report = ReviewReport()
    with memory.snapshot():  # one consistent read; the audit below plans on the latest state
        blocked = memory.blocked_ids()
        rows = memory.calculations()
    for node_id, expression, recorded in rows:
        if node_id in blocked:
            continue
        report.checked += 1
        problem = recheck(node_id, expression, recorded)
        if problem is None:
            continue
        if problem.problem.startswith("refused"):
            report.refused.append(problem)
        else:
            report.discrepancies.append(problem)
    if report.discrepancies and not dry_run:
        reason = "review: " + "; ".join(
            f"{d.id}: {d.expression} = {d.recomputed}, recorded {d.recorded}" for d in report.discrepancies)
        report.audit = memory.audit([d.id for d in report.discrepancies], reason=reason[:2000],
                                    reviewer=reviewer)
    return report
