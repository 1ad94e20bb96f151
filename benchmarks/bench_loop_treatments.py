"""Three treatments of support loops in the SAT search, measured against clingo on the loop
families: the experiment behind the section on support loops of docs/solver.md.

Run:  python -m benchmarks.bench_loop_treatments [--count 4] [--seed 31] [--timeout 10]
      python -m benchmarks.bench_loop_treatments --families held-out --count 1
      python -m benchmarks.bench_loop_treatments --fresh ...   (each goal in a new process)

Every treatment is the SAT search of :func:`theory.solver.justifications.search` (the same
completion of the claim's cone, the same compiled fixpoint and exchange step, the same
blocking clauses, CaDiCaL 1.9.5), without the label stage, with one way of keeping models
founded:

- ``lazy``: the completion; a model whose evidence does not hold the claim returns to
  Python, which learns "some evidence outside a maximal false set" and the loop formulas of
  the loops under it (the production lazy arm alone);
- ``ranked``: the completion with level rankings, every model founded (the production
  ranked arm alone);
- ``check``: the completion with an external propagator (python-sat's
  ``connect_propagator``, IPASIR-UP) whose ``check_model`` decides every full assignment
  inside CaDiCaL's search and, when the claim is unfounded, gives the same clauses as
  external clauses: the solver never returns an unfounded model;
- ``propagate``: ``check``, and on every partial assignment that falsified more evidence
  since the last look, unfounded-set propagation: the loop formulas of the claims that the
  evidence not yet false can no longer found (clasp's unfounded sets, over the evidence's
  assignment), and, when the claim itself is unfounded, the clause "some evidence outside a
  maximal false set" that the current assignment falsifies (a conflict at once).

``auto`` (``minimal_justifications(g, c)``: labels, then the two-arm portfolio) is measured
beside them. The harness is :mod:`benchmarks.bench_loop_families` (a worker process per
method, or ``--fresh``: every goal of every method in a new process, its first call timed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
from pysat.engines import Propagator
from pysat.solvers import Solver

import benchmarks.bench_loop_families as families
from theory.model.index import SupportIndex, index_of
from theory.model.structure import SupportStructure
from theory.solver.completion import SupportProgram
from theory.solver.cone_cnf import PREMISE, ConeCNF, cone_cnf, loop_cuts, ranked_cone_cnf
from theory.solver.cone_kernel import ConeOracle
from theory.solver.exchange import Exchange
from theory.solver.justifications import DEFAULT_SOLVER, _arm
from theory.solver.options import DEFAULTS, SolverOptions

TREATMENTS = ("lazy", "ranked", "check", "propagate")


class Unfounded(Propagator):  # type: ignore[misc]
    """The unfounded-set check of one cone's completion inside CaDiCaL (IPASIR-UP).

    Observes the evidence variables (1 .. E: evidence position p is variable p + 1).
    ``check_model`` accepts a full assignment whose evidence holds the claim in the least
    fixpoint, and otherwise queues "some evidence outside a maximal false set Y" (false under
    the assignment) and the loop formulas of the loops under Y. With ``partial``, every
    propagation round that falsified more evidence also asks the fixpoint of the evidence
    not yet false: the loop formulas of the loops it leaves unfounded are queued (once
    each), and when the claim is unfounded too, the outside clause of a maximal false set
    containing the false evidence (a conflict)."""

    def __init__(self, oracle: ConeOracle, cnf: ConeCNF, partial: bool) -> None:
        super().__init__()
        self.is_lazy = not partial
        self.oracle, self.cnf, self.partial = oracle, cnf, partial
        self.size = int(oracle.evidence.shape[0])
        self.false = np.zeros(self.size, dtype=bool)
        self.fixed = np.zeros(self.size, dtype=bool)
        self.trail: list[int] = []
        self.levels: list[int] = []
        self.dirty = True  # evidence falsified since the last look
        self.queue: list[list[int]] = []
        self.added: set[tuple[int, ...]] = set()
        self.checks = self.looks = 0

    # the assignment of the evidence
    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        if lit < 0:
            p = -lit - 1
            if fixed:
                self.fixed[p] = True
            if not self.false[p]:
                self.false[p] = True
                self.dirty = True
                if not fixed:
                    self.trail.append(p)

    def on_new_level(self) -> None:
        self.levels.append(len(self.trail))

    def on_backtrack(self, to: int) -> None:
        if to < len(self.levels):
            keep = self.levels[to]
            undone = self.trail[keep:]
            del self.trail[keep:]
            del self.levels[to:]
            for p in undone:
                if not self.fixed[p]:
                    self.false[p] = False

    # what is learnt
    def _queue_cuts(self, inside: np.ndarray) -> None:
        for clause in loop_cuts(self.cnf, self.oracle, self.oracle.evidence[inside]):
            key = tuple(clause)
            if key not in self.added:
                self.added.add(key)
                self.queue.append(clause)

    def _unfounded(self, present: np.ndarray) -> bool:
        """Queue what evidence positions ``present`` teach when the claim does not hold
        under them (and say so)."""
        kind, outside = self.oracle.kernel.examine(self.oracle.evidence[present])
        if kind:
            return False
        self.queue.append((np.asarray(outside) + 1).tolist())
        inside = np.ones(self.size, dtype=bool)
        inside[outside] = False
        self._queue_cuts(np.flatnonzero(inside))
        return True

    def check_model(self, model: list[int]) -> bool:
        self.checks += 1
        present = np.array([v - 1 for v in model if 0 < v <= self.size], dtype=np.int64)
        return not self._unfounded(present)

    def propagate(self) -> list[int]:
        if self.partial and self.dirty:
            self.dirty = False
            self.looks += 1
            possible = np.flatnonzero(~self.false)
            if not self._unfounded(possible):
                self._queue_cuts(possible)
        return []

    def decide(self) -> int:
        return 0

    def provide_reason(self, lit: int) -> list[int]:
        return []

    def has_clause(self) -> bool:
        return bool(self.queue)

    def add_clause(self) -> list[int]:
        return self.queue.pop()


def propagated(
    index: SupportIndex,
    oracle: ConeOracle,
    cnf: ConeCNF,
    partial: bool,
    options: SolverOptions = DEFAULTS,
) -> Iterator[frozenset[frozenset[str]]]:
    """The SAT search of :func:`theory.solver.justifications.search` with the loops kept out by
    :class:`Unfounded` inside CaDiCaL: every model it returns is founded, so each gives
    minimal justifications (the exchange step) and their blocking clauses. Yields the new
    sets after each model."""
    size = int(oracle.evidence.shape[0])
    exchange = Exchange(oracle, options.exchange_attempts)
    with Solver(name="cadical195") as solver:
        solver.configure({"minimize": 0, "shrink": 0})
        solver.append_formula(cnf.clauses(0, cnf.forward))
        solver.add_clause([cnf.root])
        solver.set_phases(list(range(-1, -cnf.variables - 1, -1)))
        engine = Unfounded(oracle, cnf, partial)
        solver.connect_propagator(engine)
        for variable in range(1, size + 1):
            solver.observe(variable)
        models = passed = 0
        while solver.solve():
            model = solver.get_model()[:size]
            present = np.array([v - 1 for v in model if v > 0], dtype=np.int64)
            true, flat, start = exchange.step_positions(present)
            models += 1
            if models == options.reverse_after:
                for clause in cnf.clauses(cnf.forward):
                    solver.add_clause(clause)
            if not true:  # the propagator accepted only founded models
                raise AssertionError("an unfounded model passed the propagator")
            literals = (-(flat + 1)).tolist()
            bounds = start.tolist()
            for i in range(len(bounds) - 1):
                solver.add_clause(literals[bounds[i] : bounds[i + 1]])
            yield exchange.named(index.ids, passed)
            passed = exchange.count
        solver.disconnect_propagator()


def treatment_search(
    structure: SupportStructure, claim: str, treatment: str, options: SolverOptions = DEFAULTS
) -> frozenset[frozenset[str]]:
    """Every minimal justification of ``claim`` by the SAT search alone, its support loops
    kept out by ``treatment`` (one of :data:`TREATMENTS`).

    >>> g = SupportStructure.build(["p", "q"], ["A", "B"],
    ...                            [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])])
    >>> [sorted(sorted(s) for s in treatment_search(g, "A", t)) for t in TREATMENTS]
    [[['p'], ['q']], [['p'], ['q']], [['p'], ['q']], [['p'], ['q']]]
    """
    index = index_of(structure)
    root = index.number[structure.require_claim(claim)]
    oracle = ConeOracle(index, root)
    cnf = cone_cnf(oracle, options)
    kept = oracle.shape[2]
    if (cnf.body[kept[0] : kept[1]] == PREMISE).any():
        return frozenset([frozenset()])
    found: set[frozenset[str]] = set()
    if treatment in ("check", "propagate"):
        for new in propagated(index, oracle, cnf, treatment == "propagate", options):
            found |= new
        return frozenset(found)
    if treatment == "ranked":
        program = SupportProgram.of(index, root)
        encoded = ranked_cone_cnf(oracle, index, root, program)
        if isinstance(encoded, bool):
            return frozenset([frozenset()]) if encoded else frozenset()
        steps = _arm(index, oracle, encoded, DEFAULT_SOLVER, False, options)
    elif treatment == "lazy":
        steps = _arm(index, oracle, cnf, DEFAULT_SOLVER, True, options)
    else:
        raise ValueError(f"unknown treatment {treatment!r}; one of {', '.join(TREATMENTS)}")
    for _, sets, _ in steps:
        found.update(sets)
    return frozenset(found)


FRESH_CHILD = """
import json, sys, time
started = time.perf_counter()
from theory.io.graphfile import parse_graph
from theory.solver.justifications import minimal_justifications
imported = time.perf_counter() - started
method, claim, document = json.loads(sys.stdin.read())
if method == "clingo":
    from benchmarks.peers import clingo_minimal_justifications as answer
elif method == "auto":
    answer = minimal_justifications
else:
    from benchmarks.bench_loop_treatments import treatment_search
    answer = lambda g, c: treatment_search(g, c, method)
structure = parse_graph(document)
started = time.process_time()
found = answer(structure, claim)
seconds = time.process_time() - started
print(json.dumps([seconds, imported, sorted(sorted(s) for s in found)]))
"""
"""A fresh process's query of one treatment (or ``auto``, or clingo)."""


def _register() -> None:
    """The treatments as methods of :mod:`benchmarks.bench_loop_families`'s harness."""
    for name in TREATMENTS:
        families.METHODS[name] = lambda g, c, name=name: treatment_search(g, c, name)
    families.FRESH_CHILD = FRESH_CHILD


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--methods", default="auto," + ",".join(TREATMENTS))
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--families", choices=("benchmark", "held-out"), default="benchmark")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    _register()
    methods = [m for m in args.methods.split(",") if m]
    if any(m not in families.METHODS or m == "clingo" for m in methods):
        parser.error(f"--methods names of auto, {', '.join(TREATMENTS)}")
    if not args.fresh:
        families.warm()
    rows = families.run(
        args.count,
        args.seed,
        args.timeout,
        methods,
        held_out=args.families == "held-out",
        repeat=args.repeat,
        fresh=args.fresh,
    )
    table = families.summary(rows, methods)
    if args.json:
        json.dump({"summary": table, "goals": rows}, sys.stdout, indent=2)
        print()
    else:
        families.print_summary(table, args.timeout)


if __name__ == "__main__":
    main()


__all__: list[Any] = ["TREATMENTS", "Unfounded", "propagated", "treatment_search"]
