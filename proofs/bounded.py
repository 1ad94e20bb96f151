"""Solve one bounded statement for one n with one solver: CaDiCaL (python-sat) or z3."""

from __future__ import annotations

import time

import z3
from pysat.solvers import Solver

from proofs.cnf_encoding import encode
from proofs.countermodel import decode
from proofs.results import SAT, UNKNOWN, UNSAT, ProofResult
from proofs.statements import has_ancestors
from proofs.statements import statement as lookup
from proofs.z3_bounded import Z3Encoding

SOLVERS = ("cadical", "z3", "glucose")
CADICAL = "cadical195"
SAT_ENGINES = {"cadical": CADICAL, "glucose": "glucose42"}  # python-sat names


def solve_cadical(
    name: str, n: int, symmetry: bool = False, engine: str = "cadical"
) -> ProofResult:
    """Solve the CNF with CaDiCaL (or, ``engine="glucose"``, with Glucose 4.2: a second SAT
    solver on the same clauses)."""
    spec = lookup(name)
    start, cpu = time.perf_counter(), time.process_time()
    encoding = encode(name, n, symmetry=symmetry)
    with Solver(name=SAT_ENGINES[engine], bootstrap_with=encoding.clauses) as solver:
        satisfiable = solver.solve()
        model = solver.get_model() if satisfiable else None
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    countermodel = None
    if model is not None:
        countermodel = decode(encoding.truth_table(model), n, encoding.ancestors(model))
    return ProofResult(
        statement=name,
        n=n,
        solver=engine,
        result=SAT if satisfiable else UNSAT,
        seconds=seconds,
        expected=SAT if spec.is_mutant else UNSAT,
        mutant=spec.is_mutant,
        cpu_seconds=cpu,
        symmetry=symmetry,
        countermodel=countermodel,
        details={"variables": encoding.nvars, "clauses": len(encoding.clauses)},
    )


def solve_z3(
    name: str, n: int, symmetry: bool = False, timeout_s: float | None = None
) -> ProofResult:
    spec = lookup(name)
    start, cpu = time.perf_counter(), time.process_time()
    encoding = Z3Encoding(name, n, symmetry=symmetry)
    solver = z3.SolverFor("QF_FD")
    if timeout_s:
        solver.set("timeout", int(timeout_s * 1000))
    solver.add(encoding.facts)
    answer = solver.check()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    result = SAT if answer == z3.sat else UNSAT if answer == z3.unsat else UNKNOWN
    countermodel = None
    if answer == z3.sat:
        model = solver.model()
        ancestors = encoding.ancestor_set(model) if has_ancestors(name) else None
        countermodel = decode(encoding.truth_table(model), n, ancestors)
    return ProofResult(
        statement=name,
        n=n,
        solver="z3",
        result=result,
        seconds=seconds,
        expected=SAT if spec.is_mutant else UNSAT,
        mutant=spec.is_mutant,
        symmetry=symmetry,
        cpu_seconds=cpu,
        countermodel=countermodel,
    )


def solve(name: str, n: int, solver: str, symmetry: bool = False) -> ProofResult:
    if solver == "cadical":
        return solve_cadical(name, n, symmetry)
    if solver == "z3":
        return solve_z3(name, n, symmetry)
    if solver == "glucose":
        return solve_cadical(name, n, symmetry, engine="glucose")
    raise ValueError(f"unknown solver {solver!r} (choose from {', '.join(SOLVERS)})")
