"""The solver core: minimal justifications of a claim by SAT enumeration (python-sat).

The minimal justifications of claim c are the minimal evidence sets X with f_c(X) true
(its ATMS label). The enumerator is a map-solver loop over the evidence variables of the
CNF of f_c: find a model, shrink it to a minimal true set with further SAT calls (each
asks for a strictly smaller true subset), report it, and block all its supersets. Each
minimal justification costs a few SAT calls, so the cost follows the size of the output.
Because f_c is compiled through the least fixpoint, cycles never create a justification.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from pysat.formula import IDPool
from pysat.solvers import Solver

from theory.cnf import encode
from theory.formula import Circuit, SupportCircuit, compile_support
from theory.labels import LABEL_BUDGET, UNBOUNDED, label_of
from theory.structure import SupportStructure

DEFAULT_SOLVER = "cadical195"


class JustificationEnumerator:
    """Minimal justifications, surviving justifications and relevance for one claim."""

    def __init__(self, circuit: Circuit, root: int, solver: str = DEFAULT_SOLVER, prefer_absent: bool = True):
        self.circuit = circuit
        self.prefer_absent = prefer_absent
        self.root = root
        self.solver_name = solver
        self.variables = sorted(circuit.variables(root))
        self.pool = IDPool()
        self.var = {e: self.pool.id(("x", e)) for e in self.variables}
        self.encoding = encode(circuit, root, self.pool, self.var.__getitem__, positive=True)
        self._relevance = None

    @classmethod
    def for_claim(
        cls,
        structure: SupportStructure,
        claim: str,
        compiled: SupportCircuit | None = None,
        solver: str = DEFAULT_SOLVER,
    ) -> "JustificationEnumerator":
        compiled = compiled or compile_support(structure, [claim])
        structure.require_claim(claim)
        return cls(compiled.circuit, compiled.root(claim), solver)

    # --- solving --------------------------------------------------------------------------
    def _solver(self) -> Solver | None:
        """A solver holding ``f_c = 1``, or None when f_c is constant."""
        if isinstance(self.encoding.root, bool):
            return None
        solver = Solver(name=self.solver_name, bootstrap_with=self.encoding.clauses)
        solver.add_clause([self.encoding.root])
        if self.prefer_absent:  # prefer small models: usually minimal already
            solver.set_phases([-v for v in self.var.values()])
        return solver

    def _true_evidence(self, model: list[int]) -> set[str]:
        return {e for e, v in self.var.items() if model[v - 1] > 0}

    def _shrink(self, solver: Solver, found: set[str], fixed_off: Iterable[str] = ()) -> frozenset[str]:
        """Shrink a true set to a minimal one by asking for a strictly smaller true subset.

        The request is a clause guarded by a fresh selector, retired after the call. With
        the solver's phases set to prefer absent evidence, models are usually minimal
        already, so this is typically one UNSAT call per justification.
        """
        off = [-self.var[e] for e in fixed_off if e in self.var]
        while found:
            selector = self.pool.id(("shrink", len(self.pool.obj2id)))
            solver.add_clause([-selector] + [-self.var[e] for e in found])
            assumptions = [selector] + [-self.var[e] for e in self.variables if e not in found] + off
            smaller = solver.solve(assumptions=assumptions)
            model = solver.get_model() if smaller else None
            solver.add_clause([-selector])
            if not smaller:
                break
            found = self._true_evidence(model)
        return frozenset(found)

    def __iter__(self) -> Iterator[frozenset[str]]:
        """Yield every minimal justification exactly once (in no particular order)."""
        if self.encoding.root is True:
            yield frozenset()
            return
        solver = self._solver()
        if solver is None:
            return
        with solver:
            while solver.solve():
                minimal = self._shrink(solver, self._true_evidence(solver.get_model()))
                yield minimal
                if not minimal:
                    return
                solver.add_clause([-self.var[e] for e in sorted(minimal)])

    def surviving(self, without: Iterable[str]) -> frozenset[str] | None:
        """A minimal justification avoiding every item of ``without``, or None."""
        without = frozenset(without)
        if self.encoding.root is True:
            return frozenset()
        solver = self._solver()
        if solver is None:
            return None
        with solver:
            assumptions = [-self.var[e] for e in sorted(without) if e in self.var]
            if not solver.solve(assumptions=assumptions):
                return None
            return self._shrink(solver, self._true_evidence(solver.get_model()), without)

    def is_relevant(self, item: str) -> bool:
        """Whether ``item`` lies in some minimal justification.

        Exactly when some X without ``item`` has f(X) false and f(X + item) true. One
        incremental solver per claim holds two copies of the circuit sharing the evidence
        variables x: an "on" copy (root true) whose inputs are x OR s and an "off" copy (root
        false) whose inputs are x AND NOT s, where s are per-item selectors; a query assumes
        the selector of ``item`` and no other.
        """
        if item not in self.var or isinstance(self.encoding.root, bool):
            return False
        if self._relevance is None:
            self._relevance = self._relevance_solver()
        solver, selectors = self._relevance
        if solver is None:
            return False
        assumptions = [selectors[e] if e == item else -selectors[e] for e in self.variables]
        return solver.solve(assumptions=assumptions)

    def _relevance_solver(self):
        pool = self.pool
        selectors = {e: pool.id(("s", e)) for e in self.variables}
        on_input = {e: pool.id(("on-in", e)) for e in self.variables}
        off_input = {e: pool.id(("off-in", e)) for e in self.variables}
        on = encode(self.circuit, self.root, pool, on_input.__getitem__, positive=True, tag="on")
        off = encode(self.circuit, self.root, pool, off_input.__getitem__, positive=False, tag="off")
        if on.root is False or off.root is True:
            return None, selectors
        clauses = on.clauses + off.clauses
        for e in self.variables:
            x, s = self.var[e], selectors[e]
            clauses.append([-on_input[e], x, s])    # on-input  <=  x OR s
            clauses.append([-x, s, off_input[e]])   # off-input >=  x AND NOT s
        solver = Solver(name=self.solver_name, bootstrap_with=clauses)
        if on.root is not True:
            solver.add_clause([on.root])
        if off.root is not False:
            solver.add_clause([-off.root])
        return solver, selectors

    def close(self) -> None:
        if self._relevance is not None and self._relevance[0] is not None:
            self._relevance[0].delete()
        self._relevance = None


def minimal_justifications(
    structure: SupportStructure,
    claim: str,
    limit: int | None = None,
    solver: str = DEFAULT_SOLVER,
    method: str = "auto",
    label_budget: int = LABEL_BUDGET,
) -> frozenset[frozenset[str]]:
    """The minimal justifications of ``claim`` (at most ``limit`` of them when given).

    They are the minimal true sets of the claim's support function through the least
    fixpoint (its ATMS label), so support loops never create one.

    Parameters
    ----------
    structure : SupportStructure
    claim : str
    limit : int, optional
        Stop after this many (SAT enumeration order).
    method : {"auto", "sat", "labels"}
        ``"sat"`` (the solver core), ``"labels"`` (bottom-up antichain algebra,
        :mod:`theory.labels`), or ``"auto"``: labels while every intermediate label stays
        within ``label_budget`` sets (cheap small cases), SAT otherwise. All are exact.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["p", "q"], ["A", "B"],
    ...                            [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])])
    >>> sorted(sorted(s) for s in minimal_justifications(g, "A"))
    [['p'], ['q']]
    """
    if method not in ("auto", "sat", "labels"):
        raise ValueError(f"unknown method {method!r}")
    if method != "sat" and limit is None:
        labels = label_of(structure, claim, budget=label_budget if method == "auto" else UNBOUNDED)
        if labels is not None:
            return labels
    enumerator = JustificationEnumerator.for_claim(structure, claim, solver=solver)
    return frozenset(islice(enumerator, limit))
