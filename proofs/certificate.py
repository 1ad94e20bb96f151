"""DRUP certificates: CaDiCaL logs its refutation, an independent checker replays it.

Checkers (both from PyPI, neither shares code with CaDiCaL or with this package):

- ``dratify``: forward DRAT/DRUP checker in pure Python (every lemma is RUP/RAT-checked).
- ``drup``: a checker extracted from verified Why3 code (slow: use it for small n).

The CNF handed to the checker is the very clause list given to the solver, written as DIMACS.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pysat.solvers import Solver

from proofs.cnf_encoding import encode
from proofs.results import SAT, UNSAT, ProofResult
from proofs.statements import statement as lookup

CHECKERS = ("dratify", "drup")


class CheckerMissing(RuntimeError):
    """The requested proof checker is not installed."""


@dataclass(frozen=True)
class Check:
    checker: str
    valid: bool
    seconds: float
    lemmas: int


def dimacs(nvars: int, clauses: list[list[int]]) -> str:
    lines = [f"p cnf {nvars} {len(clauses)}"]
    lines += [" ".join(map(str, clause)) + " 0" for clause in clauses]
    return "\n".join(lines) + "\n"


def check(formula: str, proof: str, checker: str = "dratify") -> Check:
    """Replay a text DRUP proof against a DIMACS formula with an independent checker."""
    lemmas = sum(1 for line in proof.splitlines() if line and not line.startswith("d"))
    start = time.perf_counter()
    if checker == "dratify":
        try:
            import dratify
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise CheckerMissing("pip install dratify") from error
        outcome = dratify.check_proof(dratify.parse_dimacs(formula), proof)
        valid = bool(outcome.ok and outcome.reached_empty)
    elif checker == "drup":
        try:
            import drup
        except ImportError as error:  # pragma: no cover
            raise CheckerMissing("pip install drup") from error
        valid = drup.check_proof_from_strings(formula, proof).outcome == drup.Outcome.VALID
    else:
        raise ValueError(f"unknown checker {checker!r} (choose from {', '.join(CHECKERS)})")
    return Check(checker, valid, time.perf_counter() - start, lemmas)


def certify(
    name: str,
    n: int,
    checker: str = "dratify",
    symmetry: bool = False,
    directory: Path | None = None,
) -> ProofResult:
    """Solve with CaDiCaL logging DRUP, check the proof; result is UNSAT only if it checks."""
    spec = lookup(name)
    if spec.is_mutant:
        raise ValueError("mutants are SAT: there is no refutation to certify")
    start, cpu = time.perf_counter(), time.process_time()
    encoding = encode(name, n, symmetry=symmetry)
    with Solver(name="cadical195", bootstrap_with=encoding.clauses, with_proof=True) as solver:
        satisfiable = solver.solve()
        proof = "" if satisfiable else "\n".join(solver.get_proof()) + "\n"
    solved, solved_cpu = time.perf_counter() - start, time.process_time() - cpu
    formula = dimacs(encoding.nvars, encoding.clauses)
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        stem = f"{name}-n{n}{'-sym' if symmetry else ''}"
        (directory / f"{stem}.cnf").write_text(formula)
        (directory / f"{stem}.drup").write_text(proof)
    if satisfiable:
        return ProofResult(
            name, n, f"cadical+{checker}", SAT, solved, symmetry=symmetry, certificate="none: SAT"
        )
    check_cpu = time.process_time()
    verdict = check(formula, proof, checker)
    check_cpu = time.process_time() - check_cpu
    return ProofResult(
        statement=name,
        n=n,
        solver=f"cadical+{checker}",
        result=UNSAT if verdict.valid else "UNCHECKED",
        seconds=solved + verdict.seconds,
        cpu_seconds=solved_cpu + check_cpu,
        symmetry=symmetry,
        certificate=f"DRUP {'checked' if verdict.valid else 'REJECTED'} by {checker}",
        details={
            "lemmas": verdict.lemmas,
            "solve_seconds": round(solved, 4),
            "check_seconds": round(verdict.seconds, 4),
            "solve_cpu_seconds": round(solved_cpu, 4),
            "check_cpu_seconds": round(check_cpu, 4),
        },
    )
