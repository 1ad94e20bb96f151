"""Budget sweeps: grounded answers per rule and reader as the context budget tightens.

For each budget (and seed) a study runs with every rule's context under that budget, built
by the same support-aware selection (:func:`jtms.studies.rendering.render`). The sweep
reports, per study, the grounded count of every (rule, reader) column, and checks the
property the selection is for: at no budget does ``exact`` ground fewer answers than
``none`` with the careful reader (:attr:`SweepResult.violations`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jtms.studies.endpoints import StudyResult

# the endpoint of each study that counts grounded answers (one per reader: "<key>.<reader>")
ANSWER_ENDPOINTS = {
    "revisionpair": "decisions_grounded",
    "scimap": "grounded_answers",
    "diagnosis": "grounded",
    "heterogeneous": "decisions_grounded",
}


@dataclass
class SweepResult:
    study: str
    budgets: list[int]
    seeds: list[int]
    total: int | None
    series: dict[str, list[float]]  # "rule/reader" -> mean per budget
    violations: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "budgets": self.budgets,
            "seeds": self.seeds,
            "total": self.total,
            "series": self.series,
            "violations": self.violations,
        }


def sweep(
    study: str,
    budgets: Sequence[int],
    seeds: Sequence[int],
    run: Callable[..., StudyResult],
    **kwargs: Any,
) -> SweepResult:
    """Run ``run(study, seed=..., budget=..., **kwargs)`` over the grid; see the module doc."""
    prefix = ANSWER_ENDPOINTS[study] + "."
    per_column: dict[str, list[list[float]]] = {}
    violations: list[dict[str, Any]] = []
    total = None
    for b, budget in enumerate(budgets):
        for seed in seeds:
            result = run(study, seed=seed, budget=budget, **kwargs)
            for e in result.endpoints:
                if not e.key.startswith(prefix):
                    continue
                reader = e.key[len(prefix) :]
                total = e.total
                for rule, value in e.values.items():
                    rows = per_column.setdefault(f"{rule}/{reader}", [[] for _ in budgets])
                    rows[b].append(float(value))
                if (
                    reader == "careful"
                    and "exact" in e.values
                    and "none" in e.values
                    and e.values["exact"] < e.values["none"]
                ):
                    violations.append(
                        {
                            "budget": budget,
                            "seed": seed,
                            "exact": e.values["exact"],
                            "none": e.values["none"],
                        }
                    )
    series = {
        column: [round(statistics.fmean(xs), 3) if xs else 0.0 for xs in rows]
        for column, rows in per_column.items()
    }
    return SweepResult(study, list(budgets), list(seeds), total, series, violations)
