"""The reviewer: re-execute recorded calculations, nominate discrepancies, run the audit.

Evidence may record an executed calculation: a sympy expression and the value it gave
(``expression``/``value`` in the graph file, ``--expression``/``--value`` on
``jtms add-evidence``). :func:`review` re-executes every recorded calculation of evidence
that is not already invalidated: each is checked statically against the whitelist and size
bounds of :mod:`jtms.calc.safe_expr` (never ``sympify``), then evaluated and compared
(:mod:`jtms.calc.quantities`: units, tolerance) in a worker process under a time limit
(:mod:`jtms.calc.sandbox`). Each disagreement is a discrepancy and an audit root; all of them are
invalidated in one audit (the loop without an oracle root: discrepancy, diagnosis,
reactivation, reconsolidation). A calculation that cannot be evaluated within the limits is
reported as refused, with its reason, and is not audited; it never stops the others from
being checked.

>>> from jtms.calc.quantities import Tolerance
>>> [o.status for o in recheck_all([("6*7", "41"), ("10/3", "3.3333")], Tolerance())]
['discrepancy', 'ok']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jtms.calc.quantities import Outcome, Tolerance, compare, prepare, warm_up
from jtms.calc.safe_expr import UnsafeExpression, check_expression
from jtms.calc.sandbox import DEFAULT_TIME_LIMIT, CallResult, Sandbox

if TYPE_CHECKING:  # pragma: no cover
    from jtms.memory.memory import Memory
    from jtms.memory.results import AuditResult

REASON_LIMIT = 2000  # characters of the audit reason listing the discrepancies


@dataclass(frozen=True)
class Discrepancy:
    """One calculation that did not reproduce (or could not be evaluated), and why."""

    id: str
    expression: str
    recorded: str
    recomputed: str | None
    problem: str
    difference: str | None = None
    allowed: str | None = None


@dataclass
class ReviewReport:
    checked: int = 0
    discrepancies: list[Discrepancy] = field(default_factory=list)
    refused: list[Discrepancy] = field(default_factory=list)
    audit: "AuditResult | None" = None
    tolerance: Tolerance = field(default_factory=Tolerance)
    time_limit: float = DEFAULT_TIME_LIMIT
    workers: int = 0
    event: int = 0  # the event whose calculations were re-executed (0: not known)

    def as_dict(self) -> dict[str, Any]:
        def row(d: Discrepancy) -> dict[str, Any]:
            return {
                "id": d.id,
                "expression": d.expression,
                "recorded": d.recorded,
                "recomputed": d.recomputed,
                "problem": d.problem,
                "difference": d.difference,
                "allowed": d.allowed,
            }

        return {
            "checked": self.checked,
            "discrepancies": [row(d) for d in self.discrepancies],
            "refused": [row(d) for d in self.refused],
            "audit_id": self.audit.audit_id if self.audit else None,
            "retired": sorted(self.audit.retired) if self.audit else [],
            "tolerance": self.tolerance.as_dict(),
            "time_limit_s": self.time_limit,
        }


def recheck_all(
    calculations: Sequence[tuple[str, str]],
    tolerance: Tolerance,
    time_limit: float = DEFAULT_TIME_LIMIT,
    workers: int | None = None,
) -> list[Outcome]:
    """The :class:`Outcome` of each ``(expression, recorded)``, evaluated in worker processes."""
    outcomes: list[Outcome | None] = [_statically_refused(e, r) for e, r in calculations]
    runnable = [k for k, outcome in enumerate(outcomes) if outcome is None]
    if runnable:
        prepare()  # the workers fork with sympy already imported
        with Sandbox(
            compare,
            workers=workers,
            time_limit=time_limit,
            initializer=warm_up,
            preload=["jtms.calc.quantities", "sympy.physics.units.systems.si"],
        ) as sandbox:
            results = sandbox.map([(*calculations[k], tolerance) for k in runnable])
        for k, result in zip(runnable, results):
            outcomes[k] = _outcome(result)
    return [o for o in outcomes if o is not None]


def _statically_refused(expression: str, recorded: str) -> Outcome | None:
    """The refusal of a calculation outside the bounds (checked here: no process needed)."""
    for which, text in (("expression", expression), ("recorded value", recorded)):
        try:
            check_expression(text)
        except UnsafeExpression as error:
            return Outcome("refused", problem=f"refused: {which}: {error.problem}")
    return None


def _outcome(result: CallResult) -> Outcome:
    if result.status == "ok":
        assert isinstance(result.value, Outcome)
        return result.value
    if result.status == "timeout":
        return Outcome("refused", problem=f"refused: evaluation {result.reason}")
    return Outcome("refused", problem=f"refused: evaluation failed ({result.reason})")


def recheck(
    node_id: str, expression: str, recorded: str, tolerance: Tolerance | None = None
) -> Discrepancy | None:
    """None when one calculation reproduces its recorded value; else what is wrong."""
    outcome = recheck_all([(expression, recorded)], tolerance or Tolerance())[0]
    return None if outcome.status == "ok" else _row(node_id, expression, recorded, outcome)


def _row(node_id: str, expression: str, recorded: str, outcome: Outcome) -> Discrepancy:
    return Discrepancy(
        node_id,
        expression,
        recorded,
        outcome.recomputed,
        outcome.problem,
        outcome.difference,
        outcome.allowed,
    )


def review(
    memory: "Memory",
    reviewer: str = "jtms-review",
    dry_run: bool = False,
    tolerance: Tolerance | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> ReviewReport:
    """Re-execute every recorded calculation of intact evidence; audit the discrepancies."""
    from jtms.memory.limits import MAX_REVIEWER, MAX_TIME_LIMIT, check_seconds, check_text

    reviewer = check_text(reviewer, "reviewer", MAX_REVIEWER)
    time_limit = check_seconds(time_limit, "time_limit", MAX_TIME_LIMIT, positive=True)
    report = ReviewReport(tolerance=tolerance or Tolerance(), time_limit=time_limit)
    with memory.snapshot():  # one consistent read; the audit below plans on the latest state
        report.event = memory.as_of_event or memory.last_event
        blocked = memory.blocked_ids()
        rows = memory.calculations()
    rows = [(node_id, str(e), str(v)) for node_id, e, v in rows if node_id not in blocked]
    outcomes = recheck_all([(e, v) for _, e, v in rows], report.tolerance, time_limit)
    report.checked = len(rows)
    for (node_id, expression, recorded), outcome in zip(rows, outcomes):
        if outcome.status == "refused":
            report.refused.append(_row(node_id, expression, recorded, outcome))
        elif outcome.status == "discrepancy":
            report.discrepancies.append(_row(node_id, expression, recorded, outcome))
    if not dry_run:
        audit_discrepancies(memory, report, reviewer)
    return report


def audit_discrepancies(
    memory: "Memory", report: ReviewReport, reviewer: str = "jtms-review"
) -> ReviewReport:
    """Audit the discrepancies a (dry-run) ``report`` found, in one audit whose reason lists
    them (none: nothing is written); ``report.audit`` is then that audit. The re-execution
    and the audit are apart, so a server can re-execute on a snapshot and hold the write
    lock only for the audit."""
    if report.discrepancies:
        reason = "review: " + "; ".join(
            f"{d.id}: {d.expression[:80]} = {d.recomputed}, recorded {d.recorded[:80]}"
            for d in report.discrepancies
        )
        report.audit = memory.audit(
            [d.id for d in report.discrepancies], reason=reason[:REASON_LIMIT], reviewer=reviewer
        )
    return report
