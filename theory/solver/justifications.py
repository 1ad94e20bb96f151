"""The solver core: the minimal justifications of a claim.

The minimal justifications of claim c are the minimal evidence sets X with f_c(X) true (its
ATMS label), f_c going through the least fixpoint, so support loops never create one.
:func:`minimal_justifications` takes one path, the same for every graph and every process:

1. the compiled label algebra (:mod:`theory.solver.label_kernel`) within a work budget
   (``label_work`` of :class:`~theory.solver.options.SolverOptions`): exact and fastest
   while labels stay small;
2. otherwise the SAT search (:func:`search`): a portfolio (:mod:`theory.solver.portfolio`) of
   two incremental python-sat solvers (CaDiCaL 1.9.5 by default) under one loop of
   model, check, learn. The "lazy" arm solves the completion of the claim's support cone
   (:mod:`theory.solver.cone_cnf`) and adds loop formulas when a model needs them; the
   "ranked" arm solves the completion with level rankings (:mod:`theory.solver.ranking`),
   whose every model is founded, and starts once the lazy arm has done
   ``ranked_entry`` work. Every model's evidence is decided exactly by the compiled least
   fixpoint (:mod:`theory.solver.cone_kernel`); a true one shrinks to a minimal
   justification and the exchange step (:mod:`theory.solver.exchange`) finds more from it,
   each blocked by "not all of M"; a false one grows to a maximal false set Y, and "some
   evidence outside Y" plus the loop formulas of the loops under Y are learnt. The run ends
   UNSAT when every minimal justification is blocked, so its cost follows the output.

Work is counted (decisions, conflicts, clauses), never timed, so the same call returns the
same sets in every process, under a ``limit`` too.

:class:`JustificationEnumerator` is the incremental solver loop over the encodings that are
exact as encoded: :mod:`theory.solver.completion` (level-ranked, for the checker's relevance
queries) and :mod:`theory.solver.formula` (the unrolled circuit, ``encoding="unrolled"``: an
independent oracle, and the encoding of nogoods' conjunctions).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np
from pysat.formula import IDPool
from pysat.solvers import Solver

from theory.model.canonical import smallest_first
from theory.model.errors import Undecided, count_argument
from theory.model.index import SupportIndex, index_of
from theory.model.structure import SupportStructure
from theory.solver.cnf import Encoding, VariablePool, encode
from theory.solver.completion import SupportProgram
from theory.solver.cone_cnf import PREMISE, ConeCNF, cone_cnf, ranked_cone_cnf
from theory.solver.cone_kernel import ConeOracle
from theory.solver.exchange import Exchange
from theory.solver.formula import Circuit, SupportCircuit, compile_support
from theory.solver.label_kernel import UNLIMITED, labels, sets_of_ids
from theory.solver.options import DEFAULTS, SolverOptions
from theory.solver.portfolio import Arm, Portfolio, Step

DEFAULT_SOLVER = "cadical195"
"""The python-sat solver of every search (CaDiCaL 1.9.5); ``solver=`` names another
(``"glucose4"``, ...)."""
ENCODINGS = ("completion", "unrolled")
METHODS = ("auto", "sat", "labels")


class _Unrolled:
    """The unrolled circuit behind the same interface as :class:`SupportProgram` (exact
    as encoded, so it never needs loop clauses)."""

    def __init__(self, circuit: Circuit, root: int):
        self.circuit, self.root = circuit, root
        self.variables = sorted(circuit.variables(root))

    def encode(
        self, pool: IDPool, inputs: Any, positive: bool = True, tag: str = "g"
    ) -> tuple[Encoding, None]:
        return encode(self.circuit, self.root, pool, inputs, positive=positive, tag=tag), None


def _solver_work(solver: Solver, before: dict[str, int] | None) -> tuple[int, dict[str, int]]:
    """The work of a python-sat call (its decisions and conflicts, and one for the call) from
    the solver's counts before it, and the counts now. Work, not time, interleaves the
    portfolio, so its order is the same on every machine."""
    after = solver.accum_stats() or {}
    start = before or {}
    decisions = after.get("decisions", 0) - start.get("decisions", 0)
    conflicts = after.get("conflicts", 0) - start.get("conflicts", 0)
    return decisions + conflicts + 1, after


def _limited(
    solver: Solver, assumptions: Sequence[int], options: SolverOptions = DEFAULTS
) -> Generator[int, None, bool]:
    """Solve in slices of ``step_conflicts`` conflicts, yielding the work of each slice
    (the solver keeps what it learnt, so the next slice resumes), and return the answer."""
    before = solver.accum_stats()
    while True:
        solver.conf_budget(options.step_conflicts)
        result = solver.solve_limited(assumptions=list(assumptions))
        work, before = _solver_work(solver, before)
        yield work
        if result is not None:
            return bool(result)


def _search_steps(
    solver: Solver,
    exchange: Exchange,
    cnf: ConeCNF,
    reverse: bool,
    options: SolverOptions,
) -> Iterator[int]:
    """The loop of one search: solve, decide the model's evidence (variable p + 1 is the
    oracle's evidence position p), learn the clauses of the exchange step, until UNSAT;
    the exchange then holds every justification. A false model's evidence grows to a
    maximal false set Y: "some evidence outside Y", and the loop formulas of the loops
    under Y (:func:`~theory.solver.cone_cnf.loop_cuts`, each loop of several members with
    its outside bodies written once, behind a new variable). ``reverse``: the completion's other
    direction is added after ``reverse_after`` models. Yields the work of each solver
    slice, so a portfolio can interleave it with the other arm."""
    oracle = exchange.oracle
    size = oracle.evidence.shape[0]
    add = solver.add_clause
    model_of = solver.get_model
    step = exchange.step_positions
    cut, holds, body, top = oracle.kernel.loop_cut_shared, cnf.holds, cnf.body, cnf.variables
    models = 0
    while (yield from _limited(solver, (), options)):
        model = model_of()[:size]
        present = np.array([v - 1 for v in model if v > 0], dtype=np.int64)
        true, flat, start = step(present)
        variables = flat + 1
        bounds = start.tolist()
        models += 1
        if reverse and models == options.reverse_after:
            for clause in cnf.clauses(cnf.forward):
                add(clause)
        if true:
            literals = (-variables).tolist()
            for i in range(len(bounds) - 1):
                add(literals[bounds[i] : bounds[i + 1]])
            continue
        add(variables.tolist())
        # the loops of the maximal false set (the outside clause already cuts the model),
        # each loop's outside bodies written once behind a new variable
        inside = np.ones(size, dtype=bool)
        inside[flat] = False
        cuts, bounds_of, top = cut(oracle.evidence[np.flatnonzero(inside)], holds, body, top)
        rows = cuts.tolist()
        bounds = bounds_of.tolist()
        for i in range(len(bounds) - 1):
            add(rows[bounds[i] : bounds[i + 1]])


def _arm(
    index: SupportIndex,
    oracle: ConeOracle,
    cnf: ConeCNF,
    solver_name: str,
    reverse: bool,
    options: SolverOptions,
    stats: dict[str, int] | None = None,
) -> Iterator[Step]:
    """One search over ``cnf`` on a python-sat solver as a portfolio arm: each step is one
    slice of solver work, passing on the justifications it found. ``stats``, when given,
    receives the counts of the search once it ends (added to what it holds)."""
    exchange = Exchange(oracle, options.exchange_attempts)
    with Solver(name=solver_name) as solver:
        if solver_name == "cadical195":
            # learnt-clause minimisation and shrinking cost more than they save on these
            # cones (a few conflicts per model)
            solver.configure({"minimize": 0, "shrink": 0})
        solver.append_formula(cnf.clauses(0, cnf.forward))
        solver.add_clause([cnf.root])
        solver.set_phases(list(range(-1, -cnf.variables - 1, -1)))  # small models first
        passed = 0
        for work in _search_steps(solver, exchange, cnf, reverse, options):
            new = exchange.named(index.ids, passed) if exchange.count > passed else ()
            passed = exchange.count
            yield work, tuple(new), False  # new sets passed on at once (for a limit)
        if stats is not None:
            counts = solver.accum_stats() or {}
            models, attempts, exchanged = exchange.tally.tolist()
            for key, value in (
                ("models", models),
                ("exchange_attempts", attempts),
                ("exchange_found", exchanged),
                ("decisions", counts.get("decisions", 0)),
                ("conflicts", counts.get("conflicts", 0)),
            ):
                stats[key] = stats.get(key, 0) + int(value)
    yield 0, (), True


def search(
    index: SupportIndex,
    root: int,
    solver: str = DEFAULT_SOLVER,
    limit: int | None = None,
    options: SolverOptions = DEFAULTS,
    winner: list[str] | None = None,
    stats: dict[str, int] | None = None,
) -> frozenset[frozenset[str]]:
    """Every minimal justification of node ``root`` (the first ``limit`` the portfolio
    passes on, with a limit) by the SAT search: the portfolio of the "lazy" arm (the
    completion with loop formulas learnt as models need them, fastest where few loops need
    cutting) and the "ranked" arm (level rankings: no loop formula, so no exponential number
    of them), which starts after ``ranked_entry`` work and is charged one unit per clause
    of its rankings before it builds them. The interleaving counts work, so the prefix
    under a ``limit`` is the same in every process. ``winner``, when given, receives the
    name of the arm that finished; ``stats``, the counts of the arm that finished (solver
    models, exchange attempts and the sets they found, decisions, conflicts).

    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["p", "q"], ["A", "B"],
    ...                            [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])])
    >>> index = index_of(g)
    >>> sorted(sorted(s) for s in search(index, index.number["A"]))
    [['p'], ['q']]
    """
    oracle = ConeOracle(index, root)
    cnf = cone_cnf(oracle, options)
    root_kept = oracle.shape[2]
    if (cnf.body[root_kept[0] : root_kept[1]] == PREMISE).any():
        return frozenset([frozenset()])

    def ranked() -> Iterator[Step]:
        # the build is one step the portfolio cannot interrupt: charge it first
        program = SupportProgram.of(index, root)
        yield program.ranking_size(), (), False
        encoded = ranked_cone_cnf(oracle, index, root, program)
        if isinstance(encoded, bool):  # cannot happen past the premise test; exact anyway
            yield 0, ((frozenset(),) if encoded else ()), True
            return
        yield from _arm(index, oracle, encoded, solver, False, options, stats)

    arms = [Arm("lazy", lambda: _arm(index, oracle, cnf, solver, True, options, stats))]
    if oracle.shape[6].any():  # no cyclic component: every model is founded, nothing to rank
        arms.append(Arm("ranked", ranked, entry=options.ranked_entry))
    portfolio = Portfolio(arms)
    found = frozenset(portfolio) if limit is None else frozenset(islice(portfolio, limit))
    if winner is not None and portfolio.winner is not None:
        winner.append(portfolio.winner)
    return found


def listing(
    index: SupportIndex,
    target: int,
    limit: int | None,
    solver: str = DEFAULT_SOLVER,
    label_sets: int = UNLIMITED,
    options: SolverOptions | None = None,
) -> tuple[frozenset[frozenset[str]], bool]:
    """The minimal justifications of node ``target`` stopped at ``limit`` sets (None: no
    limit), and whether the answer is complete: labels that finish within ``label_work``
    and ``label_sets`` give every set (so possibly more than ``limit``; complete);
    otherwise the SAT search's first ``limit`` sets, complete when it finished with fewer
    (at exactly ``limit`` sets it cannot tell). A claim can have tens of thousands of
    minimal justifications: the listing then costs what the first ``limit`` cost.
    ``options``: :data:`~theory.solver.options.DEFAULTS` when not given (looked up when
    called, so a test can set another default for the checker that calls this)."""
    options = DEFAULTS if options is None else options
    found = sets_of_ids(index, labels(index, [target], label_sets, options.label_work, options), 0)
    if found is not None:
        return found, True
    found = search(index, target, solver, limit=limit, options=options)
    return found, limit is None or len(found) < limit


def _as_steps(work: Generator[int, None, Any]) -> Generator[Step, None, Any]:
    """Each work count of ``work`` as a portfolio step that found nothing; returns what
    ``work`` returns."""
    while True:
        try:
            done = next(work)
        except StopIteration as end:
            return end.value
        yield done, (), False


@dataclass
class _Relevance:
    """The relevance solver of one enumerator: two copies of the encoding (see
    :meth:`JustificationEnumerator.relevance_witness`) and their roots."""

    solver: Solver
    selectors: dict[str, int]
    on: Any  # the root-true copy (a ProgramCopy, or None for an unrolled circuit)
    off: Any
    roots: tuple[int | bool, int | bool]


class JustificationEnumerator:
    """Minimal justifications, surviving justifications and relevance for one claim.

    ``source`` is a :class:`~theory.solver.completion.SupportProgram` (the default encoding, see
    :meth:`for_claim`) or a :class:`~theory.solver.formula.Circuit` with its ``root`` gate (the
    unrolled encoding). Both are exact as encoded (the program's root-true copy is
    level-ranked), so every model the solver returns is founded and the loop needs no loop
    check. ``ranked`` is accepted for callers that name it and must be True: the lazy
    encoding, which learns loop formulas as models need them, is the compiled search's
    (:func:`search`), built in one place (:mod:`theory.solver.cone_cnf`).
    """

    def __init__(
        self,
        source: "Circuit | SupportProgram",
        root: int | None = None,
        solver: str = DEFAULT_SOLVER,
        prefer_absent: bool = True,
        ranked: bool = True,
    ):
        if not ranked:
            raise ValueError(
                "the lazy encoding is the compiled search's (theory.solver.justifications.search)"
            )
        if isinstance(source, Circuit):
            if root is None:
                raise ValueError("a circuit needs its root gate")
            self.source: "SupportProgram | _Unrolled" = _Unrolled(source, root)
        else:
            self.source = source
        self.prefer_absent = prefer_absent
        self.solver_name = solver
        self.variables = self.source.variables
        self.pool = VariablePool()
        self.var = {e: self.pool.id(("x", e)) for e in self.variables}
        self._encoded: tuple[Encoding, Any] | None = None  # built on first use
        self._relevance: _Relevance | None = None
        self.conflicts = 0
        """Solver conflicts spent so far by queries given a ``conflicts`` budget."""

    @property
    def encoding(self) -> Encoding:
        """The clauses of ``f_c = 1`` (one copy, root true), built on first use: a check's
        relevance queries never need them, only their own two copies."""
        return self._encode()[0]

    @encoding.setter
    def encoding(self, value: Encoding) -> None:
        self._encoded = (value, self._encode()[1])

    @property
    def _copy(self) -> Any:
        return self._encode()[1]

    def _encode(self) -> tuple[Encoding, Any]:
        if self._encoded is None:
            self._encoded = self.source.encode(self.pool, self.var.__getitem__, positive=True)
        return self._encoded

    @classmethod
    def for_claim(
        cls,
        structure: SupportStructure,
        claim: str,
        compiled: SupportCircuit | None = None,
        solver: str = DEFAULT_SOLVER,
        encoding: str = "completion",
    ) -> "JustificationEnumerator":
        """The enumerator of ``claim``: completion + loop formulas by default, the unrolled
        circuit with ``encoding="unrolled"`` or when ``compiled`` is given."""
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r} (choose from {', '.join(ENCODINGS)})")
        structure.require_claim(claim)
        if compiled is None and encoding == "completion":
            index = index_of(structure)
            return cls(SupportProgram.of(index, index.number[claim]), solver=solver)
        compiled = compiled or compile_support(structure, [claim])
        return cls(compiled.circuit, compiled.root(claim), solver)

    # --- solving --------------------------------------------------------------------------
    def _solver(self) -> Solver | None:
        """A solver holding ``f_c = 1``, or None when f_c is constant."""
        if isinstance(self.encoding.root, bool):
            return None
        solver = Solver(name=self.solver_name, bootstrap_with=self.encoding.clauses)
        solver.add_clause([self.encoding.root])
        if self.prefer_absent:  # prefer small models: usually minimal already
            # every variable, not only evidence: a model then holds few claims
            solver.set_phases([-v for v in range(1, self.pool.top + 1)])
        return solver

    def _solve(
        self, solver: Solver, assumptions: Sequence[int] = (), conflicts: int | None = None
    ) -> list[int] | None:
        """A model under ``assumptions`` (founded: the encodings are exact), or None. With
        ``conflicts``, the call spends at most that many conflicts, then
        :class:`~theory.model.errors.Undecided` is raised."""
        spent = _Conflicts(solver, conflicts)
        try:
            return self._model(solver) if spent.solve(assumptions) else None
        finally:
            self.conflicts += spent.spent()

    def _model(self, solver: Solver) -> list[int]:
        """The solver's model over every variable of the pool: a variable that occurs in no
        clause yet (a claim held by a premise, say) is false, as the phases prefer."""
        model = solver.get_model()
        top = self.pool.top
        if len(model) < top:
            model.extend(range(-len(model) - 1, -top - 1, -1))
        return model

    def _minimal_in(self, solver: Solver, model: list[int]) -> frozenset[str]:
        """:meth:`_minimal_steps` to the end."""
        steps = self._minimal_steps(solver, model)
        while True:
            try:
                next(steps)
            except StopIteration as end:
                return end.value  # type: ignore[no-any-return]

    def _minimal_steps(
        self, solver: Solver, model: list[int]
    ) -> Generator[int, None, frozenset[str]]:
        """Shrink the model's evidence to a minimal justification; yields the work of each
        solver slice.

        Every model is founded (the encodings are exact), so its evidence X is true. X gets
        the clause "not all of X" for good: it blocks X and its supersets, none of which is
        a minimal justification other than X, and every strict subset of X satisfies it.
        Then a model with evidence inside X is asked for (assumptions: the evidence outside
        X absent): UNSAT means X is minimal, SAT gives a smaller true set. With the phases
        preferring absent evidence the first X is usually minimal already, so a
        justification costs one search and one UNSAT call."""
        var = self.var
        while True:
            yield 1
            found = [e for e, v in var.items() if model[v - 1] > 0]
            if not found:
                return frozenset()
            solver.add_clause([-var[e] for e in found])
            assumptions = [-v for v in var.values() if model[v - 1] < 0]
            if not (yield from _limited(solver, assumptions)):
                return frozenset(found)
            model = self._model(solver)

    def __iter__(self) -> Iterator[frozenset[str]]:
        """Yield every minimal justification exactly once (in no particular order)."""
        for _, sets, _ in self.steps():
            yield from sets

    def steps(self) -> Iterator[Step]:
        """The solver loop of :meth:`__iter__` as steps for a portfolio
        (:mod:`theory.solver.portfolio`): the work of each solver slice, with the justification it
        completed, if any."""
        if self.encoding.root is True:
            yield 0, (frozenset(),), True
            return
        solver = self._solver()
        if solver is None:
            return
        with solver:
            while True:
                answer = yield from _as_steps(_limited(solver, ()))
                if not answer:
                    return
                minimal = yield from _as_steps(self._minimal_steps(solver, self._model(solver)))
                yield 0, (minimal,), not minimal  # its supersets are blocked already
                if not minimal:  # the empty set: the claim holds on no evidence, the only
                    return  # minimal justification (and nothing blocks it to go on)

    def all_minimal(self) -> frozenset[frozenset[str]]:
        """Every minimal justification (the solver loop of :meth:`__iter__` to the end)."""
        return frozenset(self)

    def surviving(self, without: Iterable[str]) -> frozenset[str] | None:
        """A minimal justification avoiding every item of ``without``, or None, asked of
        this enumerator's encoding (the tests cross-check encodings with it). The check
        asks :meth:`ConeQueries.surviving`, which the least fixpoint answers in polynomial
        time."""
        without = frozenset(without)
        if self.encoding.root is True:
            return frozenset()
        solver = self._solver()
        if solver is None:
            return None
        with solver:
            assumptions = [-self.var[e] for e in sorted(without) if e in self.var]
            if solver.solve(assumptions=assumptions):
                return self._minimal_in(solver, self._model(solver))
            return None

    def is_relevant(self, item: str) -> bool:
        """Whether ``item`` lies in some minimal justification (:meth:`relevance_witness`)."""
        return self.relevance_witness(item) is not None

    def relevance_witness(
        self, item: str, conflicts: int | None = None, target: str | None = None
    ) -> frozenset[str] | None:
        """An X without ``item`` with f(X) false and f(X + item) true, or None when there is
        none: ``item`` lies in some minimal justification exactly when there is one.

        Deciding this is NP-hard, and some instances are hard in practice (graphs with
        large support loops, where clingo takes minutes too): with ``conflicts``, the query
        gives up after that many solver conflicts and raises
        :class:`~theory.model.errors.Undecided` (deterministic, unlike a time limit).

        ``target`` asks about another claim of the cone (f: its support function), on an
        enumerator of a :class:`~theory.solver.completion.SupportProgram`. The members of one
        strongly connected component share their cone, so one enumerator serves them all,
        and what its solver learns about the cone carries from claim to claim.

        One incremental solver holds two copies of the encoding sharing the evidence
        variables x: an "on" copy (root true) whose inputs are x OR s and an "off" copy
        (root false) whose inputs are x AND NOT s, where s are per-item selectors; a query
        assumes every other item's selector off, and the root of each copy. Both copies
        are exact as encoded, so a model answers the query as it stands.
        """
        # the one-item case of relevance_among: S is {item}, and Y the witness
        among = self.relevance_among([item], conflicts, target)
        return None if among is None else among[0]

    def relevance_among(
        self, items: Iterable[str], conflicts: int | None = None, target: str | None = None
    ) -> tuple[frozenset[str], frozenset[str]] | None:
        """Whether any of ``items`` lies in some minimal justification, in one query:
        ``(Y, S)`` with S a nonempty subset of ``items``, f(Y) false and f(Y + S) true, or
        None when none of them does. Adding S to Y one item at a time, f turns true at
        some item s, which is relevant, with the evidence before it as its witness (see
        :meth:`relevance_witness`; the least fixpoint finds s in polynomial time). Where
        some items are hard to decide alone, the solver proves the easiest one, and one
        UNSAT answer settles all the rest. ``conflicts`` and ``target`` as in
        :meth:`relevance_witness`."""
        chosen = sorted({e for e in items if e in self.var})
        if not chosen:
            return None
        asked = self._asked(target)
        if asked is None:
            return None
        relevance, roots = asked
        selectors = relevance.selectors
        # the selectors of the other items off; some chosen one is on in any model, since
        # with none on, both copies would see the same evidence, true in one, false in the other
        inside = set(chosen)
        assumptions = [-selectors[e] for e in self.variables if e not in inside] + roots
        question = (
            f"is {chosen[0]!r} relevant"
            if len(chosen) == 1
            else (f"is any of {len(chosen)} items relevant")
        )
        model = self._ask(relevance, assumptions, conflicts, question)
        if model is None:
            return None
        selected = frozenset(e for e in chosen if model[selectors[e] - 1] > 0)
        present = frozenset(e for e, v in self.var.items() if model[v - 1] > 0)
        return present - selected, selected

    def _ask(
        self, relevance: _Relevance, assumptions: list[int], conflicts: int | None, question: str
    ) -> list[int] | None:
        """One relevance query: a founded model under ``assumptions``, or None."""
        try:
            return self._solve(relevance.solver, assumptions, conflicts=conflicts)
        except Undecided:
            raise Undecided(question, conflicts or 0) from None

    def _asked(self, target: str | None) -> tuple[_Relevance, list[int]] | None:
        """The relevance solver (built on first use) and the assumptions "f_target true in
        the on copy, false in the off copy", or None when f is constant."""
        if self._relevance is None:
            self._relevance = self._relevance_solver()
        relevance = self._relevance
        on_copy, off_copy = relevance.on, relevance.off
        if target is None:
            if isinstance(self.encoding.root, bool):
                return None
            on_root, off_root = relevance.roots
        else:
            if not isinstance(self.source, SupportProgram):
                raise ValueError("a target other than the root needs a SupportProgram")
            number = self.source.index.number[target]
            if number not in on_copy.holds:
                raise ValueError(f"claim {target!r} is not in the cone")
            on_root, off_root = on_copy.holds[number], off_copy.holds[number]
        if on_root is False or off_root is True:
            return None
        return relevance, [lit for lit in (on_root, -off_root) if not isinstance(lit, bool)]

    def _relevance_solver(self) -> _Relevance:
        pool = self.pool
        selectors = {e: pool.id(("s", e)) for e in self.variables}
        on_input = {e: pool.id(("on-in", e)) for e in self.variables}
        off_input = {e: pool.id(("off-in", e)) for e in self.variables}
        on, on_copy = self.source.encode(pool, on_input.__getitem__, positive=True, tag="on")
        off, off_copy = self.source.encode(pool, off_input.__getitem__, positive=False, tag="off")
        clauses = on.clauses + off.clauses
        for e in self.variables:
            x, s = self.var[e], selectors[e]
            clauses.append([-on_input[e], x, s])  # on-input  <=  x OR s
            clauses.append([-x, s, off_input[e]])  # off-input >=  x AND NOT s
        # the roots are assumed per query (relevance_witness), so any claim can be one
        solver = Solver(name=self.solver_name, bootstrap_with=clauses)
        return _Relevance(solver, selectors, on_copy, off_copy, (on.root, off.root))

    def close(self) -> None:
        if self._relevance is not None:
            self._relevance.solver.delete()
        self._relevance = None


def minimal_justifications(
    structure: SupportStructure,
    claim: str,
    limit: int | None = None,
    solver: str = DEFAULT_SOLVER,
    method: str = "auto",
    label_budget: int | None = None,
    encoding: str = "completion",
    options: SolverOptions = DEFAULTS,
) -> frozenset[frozenset[str]]:
    """The minimal justifications of ``claim`` (at most ``limit`` of them when given).

    They are the minimal true sets of the claim's support function through the least
    fixpoint (its ATMS label), so support loops never create one. The same call returns
    the same sets in every process, whatever it did before, under a ``limit`` too.

    Parameters
    ----------
    structure : SupportStructure
    claim : str
    limit : int, optional
        Stop after this many: the first ``limit`` in the search's order, or, when the
        labels answer, the first ``limit`` smallest first (then by ids).
    solver : str
        The python-sat solver of the SAT search (CaDiCaL 1.9.5 by default).
    method : {"auto", "sat", "labels"}
        ``"labels"``: the compiled label algebra alone, with no budget. ``"sat"``: the SAT
        search alone (:func:`search`). ``"auto"`` (the default): labels within
        ``options.label_work``, then the SAT search; labels are the fastest while they stay
        small, and the search is output-sensitive where they blow up. All are exact.
    label_budget : int, optional
        With ``"auto"``, also hand a claim to SAT as soon as a label on its way holds more
        than this many sets (0 always uses SAT).
    encoding : {"completion", "unrolled"}
        The SAT encoding of the least fixpoint: the completion of the cone with loop
        formulas and level rankings (the default) or the unrolled circuit (a test oracle).
    options : SolverOptions
        The tuning knobs (:mod:`theory.solver.options`).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["p", "q"], ["A", "B"],
    ...                            [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])])
    >>> sorted(sorted(s) for s in minimal_justifications(g, "A"))
    [['p'], ['q']]
    """
    count_argument(limit, "limit")
    count_argument(label_budget, "label_budget")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r} (choose from {', '.join(ENCODINGS)})")
    index = index_of(structure)
    target = index.number[structure.require_claim(claim)]
    if method != "sat":
        if method == "labels":
            found = labels(index, [target])
        else:
            sets = UNLIMITED if label_budget is None else label_budget
            found = labels(index, [target], sets, options.label_work, options)
        result = sets_of_ids(index, found, 0)
        if result is not None:
            if limit is None or len(result) <= limit:
                return result
            return frozenset(smallest_first(result)[:limit])
    if encoding == "completion":
        return search(index, target, solver, limit, options)
    enumerator = JustificationEnumerator.for_claim(
        structure, claim, solver=solver, encoding=encoding
    )
    return frozenset(islice(enumerator, limit))


class _Conflicts:
    """One query's conflict budget over the solver calls it makes (None: no budget)."""

    def __init__(self, solver: Solver, budget: int | None):
        self.solver = solver
        self.budget = budget
        self.start = 0 if budget is None else self._total()

    def _total(self) -> int:
        return int(self.solver.accum_stats().get("conflicts", 0))

    def spent(self) -> int:
        """Conflicts spent since the start (0 without a budget: not counted)."""
        return 0 if self.budget is None else self._total() - self.start

    def solve(self, assumptions: Sequence[int]) -> bool:
        if self.budget is None:
            return bool(self.solver.solve(assumptions=list(assumptions)))
        left = self.budget - self.spent()
        if left <= 0:
            raise Undecided("query", self.budget)
        self.solver.conf_budget(left)
        try:
            answer = self.solver.solve_limited(assumptions=list(assumptions))
        except NotImplementedError:  # a solver without budgets (lingeling): no limit
            return bool(self.solver.solve(assumptions=list(assumptions)))
        if answer is None:
            raise Undecided("query", self.budget)
        return bool(answer)


class ConeQueries:
    """Questions about the support function f of node ``target`` that the least fixpoint
    answers in polynomial time, by the compiled oracle of :mod:`theory.solver.cone_kernel`.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["a", "b", "r"], ["c"], [("c", ["a"]), ("c", ["b", "r"])])
    >>> index = index_of(g)
    >>> cone = ConeQueries(index, index.number["c"])
    >>> sorted(cone.outside(["b"]))   # {b} is maximal false: a or r makes c hold
    ['a', 'r']
    >>> cone.outside(["b", "r"])      # f({b, r}) is true: nothing to grow
    frozenset()
    >>> sorted(cone.surviving(["a"])), cone.surviving(["a", "b"])
    (['b', 'r'], None)
    """

    def __init__(self, index: SupportIndex, target: int):
        self.oracle = ConeOracle(index, target)
        self.number, self.ids = index.number, index.ids

    def _names(self, numbers: Any) -> frozenset[str]:
        """Names of node numbers (an array of the oracle's)."""
        return frozenset(map(self.ids.__getitem__, numbers.tolist()))

    def outside(self, present: Iterable[str]) -> frozenset[str]:
        """Relevance in bulk: for evidence X with f(X) false, the evidence outside a maximal
        false superset Y of X. Each such item e lies in some minimal justification: f(Y) is
        false and f(Y + e) true, so a minimal true subset of Y + e holds e. A grow from
        nothing, or from a :meth:`JustificationEnumerator.relevance_witness`, settles many
        items at once. Empty when f(X) is true."""
        number = self.number
        true, found = self.oracle.examine(number[e] for e in present)
        return frozenset() if true else self._names(found)

    def holds(self, present: Iterable[str]) -> bool:
        """f(present)."""
        return bool(self.oracle.holds([self.number[e] for e in present]))

    def turning_item(self, base: Iterable[str], added: Iterable[str]) -> tuple[str, frozenset[str]]:
        """For f(base) false and f(base + added) true: the item of ``added`` at which f turns
        true when they join ``base`` one at a time (in id order), and the evidence before
        it. That item is relevant, with that evidence as its witness."""
        current = set(base)
        for e in sorted(added):
            if self.holds(current | {e}):
                return e, frozenset(current)
            current.add(e)
        raise ValueError("f(base + added) is false")

    def minimal_within(self, present: Iterable[str]) -> frozenset[str] | None:
        """A minimal justification inside ``present`` (the least fixpoint shrinks it), or
        None when f(present) is false. For a relevance witness X of e, the one inside
        X + e holds e, and every item of it is relevant too."""
        return self._minimal([self.number[e] for e in present])

    def _minimal(self, present: list[int]) -> frozenset[str] | None:
        true, found = self.oracle.examine(present)
        return self._names(found) if true else None

    def surviving(self, without: Iterable[str]) -> frozenset[str] | None:
        """A minimal justification avoiding every item of ``without`` (the least fixpoint
        shrinks the cone's other evidence to a minimal true set), or None when there is
        none."""
        absent = {self.number.get(e) for e in without}
        return self._minimal([x for x in self.oracle.evidence.tolist() if x not in absent])
