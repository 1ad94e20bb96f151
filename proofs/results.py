"""Typed results shared by the bounded and the general proofs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

UNSAT = "UNSAT"
SAT = "SAT"
UNKNOWN = "UNKNOWN"
VACUOUS = "VACUOUS"
"""An UNSAT answer whose query has no model even without its negated goal (a general proof
step that would hold for the wrong reason): never a proof."""


@dataclass(frozen=True)
class Countermodel:
    """A decoded SAT answer: a support structure (graph document) and a witness audit."""

    graph: dict[str, Any]
    minimal_justifications: list[list[str]]
    ancestors: list[str]
    witness_audit: list[str] | None
    note: str

    def summary(self) -> str:
        parts = ["c <- " + " | ".join("{" + ",".join(s) + "}" for s in self.minimal_justifications)]
        if self.ancestors != sorted({e for s in self.minimal_justifications for e in s}):
            parts.append("ancestors {" + ",".join(self.ancestors) + "}")
        if self.witness_audit is not None:
            parts.append("disagreeing audit {" + ",".join(self.witness_audit) + "}")
        if self.note:
            parts.append(self.note)
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ProofResult:
    """One solver's answer to one statement (or mutant) for one n (None: general proof)."""

    statement: str
    n: int | None
    solver: str
    result: str
    seconds: float
    expected: str = UNSAT
    cpu_seconds: float | None = None
    mutant: bool = False
    symmetry: bool = False
    countermodel: Countermodel | None = None
    certificate: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """A proof holds when UNSAT; a mutant is *refuted* (non-vacuity) when SAT."""
        return self.result == self.expected

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "n": self.n,
            "solver": self.solver,
            "result": self.result,
            "expected": self.expected,
            "ok": self.ok,
            "mutant": self.mutant,
            "symmetry": self.symmetry,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": None if self.cpu_seconds is None else round(self.cpu_seconds, 4),
            "certificate": self.certificate,
            "countermodel": None if self.countermodel is None else self.countermodel.to_dict(),
            **({"details": self.details} if self.details else {}),
        }


@dataclass(frozen=True)
class Disagreement:
    """Independent solvers gave different answers to one bounded statement at one n: one of
    the two encodings (or a solver) is wrong, so neither answer can be trusted."""

    statement: str
    n: int | None
    answers: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "n": self.n, "answers": dict(self.answers)}


def disagreement(results: Sequence[ProofResult]) -> Disagreement | None:
    """The solvers' answers to one statement and n, if they are not all the same.

    >>> a = ProofResult("boundary", 3, "cadical", UNSAT, 0.1)
    >>> b = ProofResult("boundary", 3, "z3", SAT, 0.2)
    >>> disagreement([a, a]) is None
    True
    >>> disagreement([a, b]).answers
    {'cadical': 'UNSAT', 'z3': 'SAT'}
    """
    questions = {(r.statement, r.n, r.symmetry) for r in results}
    if len(questions) > 1:
        raise ValueError(
            f"answers to different questions cannot disagree: {sorted(questions, key=str)}"
        )
    answers = {r.solver: r.result for r in results}
    if len(set(answers.values())) <= 1:
        return None
    first = results[0]
    return Disagreement(first.statement, first.n, answers)
