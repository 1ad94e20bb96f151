"""Endpoints and results of a study, and their summary over seeds.

An :class:`Endpoint` has one value per column (a rule, or a rule read by one reader) and,
where one is stated, the value the exact rule must reach. ``construction`` marks an
endpoint whose value cannot vary: it is fixed by how the worlds are built (for example
"every AND world defeats ``none``"), so it checks the construction and the code, and is
not a result. :func:`summarize` gives mean, min and max of every value over seeds.

>>> e = Endpoint("k", "worlds repaired", {"exact": 4, "none": 2}, total=4, expected={"exact": 4})
>>> e.ok("exact"), e.ok("none")
(True, True)
>>> r = summarize([StudyResult("s", ["exact", "none"], [e], seed=1)])
>>> r.endpoints[0].values["none"]
{'mean': 2.0, 'min': 2, 'max': 2}
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Endpoint:
    """One reported endpoint: a value per rule and, where one is stated, the expected value."""

    key: str
    label: str
    values: dict[str, Any]
    total: int | None = None
    expected: dict[str, Any] = field(default_factory=dict)
    construction: bool = False

    def ok(self, rule: str) -> bool:
        return rule not in self.expected or self.values.get(rule) == self.expected[rule]

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "total": self.total,
            "construction_check": self.construction,
            "values": self.values,
            "expected": self.expected,
            "ok": {r: self.ok(r) for r in self.values},
        }


@dataclass
class StudyResult:
    name: str
    rules: list[str]
    endpoints: list[Endpoint]
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    seed: int | None = None
    budget: int | None = None

    def endpoint(self, key: str) -> Endpoint:
        return next(e for e in self.endpoints if e.key == key)

    def failures(self, rule: str = "exact") -> list[str]:
        return [e.key for e in self.endpoints if rule in e.values and not e.ok(rule)]

    def as_dict(self) -> dict[str, Any]:
        return {
            "study": self.name,
            "rules": self.rules,
            "seed": self.seed,
            "budget": self.budget,
            "endpoints": [e.as_dict() for e in self.endpoints],
            "failures": self.failures(),
            "details": self.details,
            "seconds": round(self.seconds, 4),
        }


@dataclass
class SeedSummary:
    """One study over several seeds: per endpoint and column, mean, min and max."""

    name: str
    rules: list[str]
    seeds: list[int]
    endpoints: list[Endpoint]  # values: column -> {"mean", "min", "max"}
    failures: dict[int, list[str]]  # seed -> failing endpoints of the exact rule
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "study": self.name,
            "rules": self.rules,
            "seeds": self.seeds,
            "endpoints": [e.as_dict() for e in self.endpoints],
            "failures": {str(k): v for k, v in self.failures.items()},
            "seconds": round(self.seconds, 4),
        }


def summarize(results: Sequence[StudyResult]) -> SeedSummary:
    """Mean, min and max of every endpoint value over ``results`` (one per seed)."""
    first = results[0]
    endpoints = []
    for k, e in enumerate(first.endpoints):
        values: dict[str, Any] = {}
        for column in e.values:
            xs = [r.endpoints[k].values.get(column) for r in results]
            numbers = [x for x in xs if isinstance(x, (int, float))]
            if numbers:
                values[column] = {
                    "mean": round(statistics.fmean(numbers), 3),
                    "min": min(numbers),
                    "max": max(numbers),
                }
        endpoints.append(Endpoint(e.key, e.label, values, e.total, {}, e.construction))
    failures = {
        r.seed if r.seed is not None else i: r.failures()
        for i, r in enumerate(results)
        if r.failures()
    }
    return SeedSummary(
        first.name,
        first.rules,
        [r.seed for r in results if r.seed is not None],
        endpoints,
        failures,
        sum(r.seconds for r in results),
    )
