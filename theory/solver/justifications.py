"""The solver core: minimal justifications of a claim by SAT enumeration (python-sat).

The minimal justifications of claim c are the minimal evidence sets X with f_c(X) true
(its ATMS label). :func:`minimal_justifications` tries the compiled label algebra first
(:mod:`theory.solver.label_kernel`), then one compiled CDCL search (:mod:`theory.solver.cdcl`) over the
completion of the cone (built by a compiled pass, :mod:`theory.solver.cone_cnf`), the same
search that an incremental python-sat solver runs elsewhere: each model's evidence is decided
exactly by a compiled least fixpoint (:mod:`theory.solver.cone_kernel`) and the step taken on it
(:mod:`theory.solver.exchange`) shrinks a true one to a justification and learns the
justifications it finds by exchanging members of the found ones, so a model stands for
several (:data:`theory.solver.cdcl.ATTEMPTS` tries per model in the compiled solver); a false
model teaches a maximal false set and the loop formulas of that set's loops.
:meth:`JustificationEnumerator.all_minimal` is the same run over the Python encoding of
:mod:`theory.solver.completion`. The enumerator's
iterator (the solver loop, used with a limit) is a map-solver loop over the evidence
variables: find a model, block the supersets of its evidence set X (a true set once the
model is checked well-founded), ask for a model inside X, and repeat until UNSAT proves the
last X minimal (:meth:`JustificationEnumerator._minimal_in`): a few SAT calls per
justification. Either way the cost follows the size of the output.

f_c goes through the least fixpoint, so cycles never create a justification. The default
encoding is the completion of the support cone plus loop formulas, added lazily whenever a
model's root is not well-founded (:mod:`theory.solver.completion`): its size is linear in the
cone, whatever its loops. The unrolled circuit (:mod:`theory.solver.formula`, k Kleene rounds per
cyclic component of k claims) is kept as an independent oracle: ``encoding="unrolled"``,
or pass a :class:`~theory.solver.formula.Circuit` to the constructor.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from pysat.formula import IDPool
from pysat.solvers import Solver

from theory.model.errors import Undecided, count_argument
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.solver.cnf import Encoding, VariablePool, encode
from theory.solver.completion import ProgramCopy, SupportProgram
from theory.solver.formula import Circuit, SupportCircuit, compile_support
from theory.solver.labels import LABEL_BUDGET, UNBOUNDED, label_of
from theory.solver.portfolio import Arm, Portfolio, Step, restarted
from theory.solver.unfounded import ConeFixpoint

if TYPE_CHECKING:  # numpy is imported where the compiled path runs: a small query stays without it
    import numpy as np

BUILTIN = "builtin"
"""The solver name of the compiled search's own CDCL solver (:mod:`theory.solver.cdcl`)."""
DEFAULT_SOLVER = BUILTIN
"""The default ``solver``: the built-in compiled solver where the compiled search runs, and
:data:`LOOP_SOLVER` through python-sat for the solver loop (which needs a solver that
answers queries under assumptions, one call at a time)."""
LOOP_SOLVER = "cadical195"
"""The python-sat solver (CaDiCaL 1.9.5) of the solver loop when ``solver`` is
:data:`BUILTIN`. Any other name is that python-sat solver, wherever it runs: ``"cadical195"``
is CaDiCaL, never the built-in solver."""
STEP_CONFLICTS = 1_000
"""Conflicts one python-sat call may spend before it returns to the portfolio
(:mod:`theory.solver.portfolio`) to let another method have its turn; the next step resumes it."""
CALL_WORK_PER_VARIABLE = 4
"""Variables of the formula per unit of work charged for one python-sat call (a call
costs the round trip and the model, linear in the variables, besides its decisions)."""
CUT_WORK_PER_LITERAL = 10
"""Work charged per literal of the loop clauses a check adds (built in Python, then added
to the solver)."""
GROW_WORK_PER_STEP = 2
"""Work charged per step (a counter changed, a claim visited) of deciding a model's evidence
by the least fixpoint, growing a false one to a maximal false set and finding the loops under
it (:mod:`theory.solver.unfounded`), which run in Python."""
COMPILED_ENTRY = 400_000
"""Work after which the solver loops' portfolio also gives the compiled methods a turn, in
a process that has loaded them already (:func:`kernels_loaded`; loading them is never
charged to a small graph's query, since with numba's cache cold it takes about a minute):
on long cycles the solver loops' loop clauses cut little per model, while the compiled
labels answer at once."""
ENTRY_PER_CLAUSE = 25
"""Work charged to the level-ranked arm of the solver loop's portfolio per clause of its
rankings (:meth:`~theory.solver.completion.SupportProgram.ranking_size`) before its first turn, for
building them: its first step builds the whole encoding and its solver, which the portfolio
cannot interrupt. Building a clause in Python and adding it to python-sat costs a median 25
(seed 777) and 29 (seed 778) steps of the lazy loop (``python -m
benchmarks.bench_portfolio_units``, row ``ranked build``). Charged 8, the ranked arm spent
most of the CPU time of queries that the lazy loop answered."""
RANKED_ENTRY = 20_000
"""Work charged to the level-ranked arm of a portfolio before its first turn: it starts
once the lazy-loop arm has spent as much (about its first restart budget), so a query that
the usual method answers at once never builds the larger ranked encoding."""
RANKED_WORK_PER_CLAUSE = 1
"""Work a ranked arm of the compiled portfolio (:func:`_portfolio_search`) is charged per
clause of the level rankings (:meth:`~theory.solver.completion.SupportProgram.ranking_size`) for
building its encoding, when its turn first comes and before it builds: the build is one step
the portfolio cannot interrupt, and on a large cyclic cone it took longer than the lazy arm's
whole answer. A ranking clause costs a median 0.73 units of the compiled lazy search to build
(quartiles 0.29-1.44; ``python -m benchmarks.bench_portfolio_units --compiled``, seed 777)."""
COMPILED_FROM = 20_000
"""Graph size (nodes) from which ``minimal_justifications`` loads the compiled kernels into a
process that has not loaded them yet. Loading costs about 0.5 s once; below this size the
Python path answers a query in less (``jtms supports`` on a 10,000-claim cycle: 0.39 s in
all, the process's start included; ``python -m benchmarks.bench_justifications --loops``,
its ``cli_supports``), so a one-shot command stays fast, while a process that has loaded the
kernels uses them for every graph."""


def kernels_loaded() -> bool:
    """Whether this process has loaded the compiled kernels (:mod:`theory.solver.label_kernel`,
    :mod:`theory.solver.cdcl`). Loading them costs a process about 0.5 s with numba's cache warm
    and about a minute with it cold (a fresh installation), so the Python paths hand a
    graph to them only when they are loaded already or the graph is large
    (:data:`COMPILED_FROM`)."""
    return "theory.solver.label_kernel" in sys.modules


LABEL_WORK = 4_000_000
"""Work (products formed plus subset tests) the compiled label algebra may spend on one
query before ``method="auto"`` hands it to the SAT core: a few milliseconds, so a label
blow-up costs little, while a cone whose labels stay within it is answered far faster
than by any search. It is checked before each product and minimisation is formed, and a
cone with a support loop gets at most :data:`theory.solver.label_kernel.LOOP_WORK_PER_NODE` per
node, and one with a loop through a justification of two or more claims a 200th of it
(:data:`theory.solver.label_kernel.MULTIPLYING_LOOP_SHARE`: that is where labels blow up). ``python
-m benchmarks.bench_justifications --loops`` reports the time of the attempt; compare
budgets with ``--label-work N``."""
REVERSE_AFTER = 64
"""Models of the one search after which its solver also gets the other direction of the
completion (:class:`theory.solver.cone_cnf.ConeCNF`, clauses from ``forward`` on): fewer
decisions per model from then on, for more clauses to load, which only a long enumeration
repays (tuned on ``python -m benchmarks.bench_justifications --loops``, whose column "one
search, CaDiCaL" times it). The compiled solver of :mod:`theory.solver.cdcl` takes them from the
start."""
ENCODINGS = ("completion", "unrolled")


class _Unrolled:
    """The unrolled circuit behind the same interface as :class:`SupportProgram` (exact
    as encoded, so it never needs loop clauses)."""

    def __init__(self, circuit: Circuit, root: int):
        self.circuit, self.root = circuit, root
        self.variables = sorted(circuit.variables(root))

    def encode(
        self, pool: IDPool, inputs: Any, positive: bool = True, tag: str = "g", ranked: bool = False
    ) -> tuple[Encoding, None]:
        return encode(self.circuit, self.root, pool, inputs, positive=positive, tag=tag), None

    def loop_clauses(self, pool: IDPool, copy: None, model: Sequence[int]) -> list[list[int]]:
        return []


def _solver_work(
    solver: Solver, before: dict[str, int] | None, variables: int
) -> tuple[int, dict[str, int]]:
    """The work of a python-sat call (decisions, :data:`theory.solver.cdcl.CONFLICT_WORK` per
    conflict, and the round trip) from the solver's counts before it, and the counts now."""
    after = solver.accum_stats() or {}
    start = before or {}
    decisions = after.get("decisions", 0) - start.get("decisions", 0)
    conflicts = after.get("conflicts", 0) - start.get("conflicts", 0)
    return decisions + 10 * conflicts + 1 + variables // CALL_WORK_PER_VARIABLE, after


def _limited(
    solver: Solver, assumptions: Sequence[int], variables: int
) -> Generator[int, None, bool]:
    """Solve in slices of :data:`STEP_CONFLICTS` conflicts, yielding the work of each slice
    (the solver keeps what it learnt, so the next slice resumes), and return the answer."""
    before = solver.accum_stats()
    while True:
        solver.conf_budget(STEP_CONFLICTS)
        result = solver.solve_limited(assumptions=list(assumptions))
        work, before = _solver_work(solver, before, variables)
        yield work
        if result is not None:
            return bool(result)


def _one_search(
    solver: Solver,
    exchange: Any,
    size: int,
    position_of_var: np.ndarray | None,
    var_of_position: np.ndarray | None,
    cuts: Any,
    later: tuple[int, Any] | None = None,
) -> None:
    """:func:`_one_search_steps` to the end."""
    for _ in _one_search_steps(
        solver, exchange, size, position_of_var, var_of_position, cuts, later
    ):
        pass


def _one_search_steps(
    solver: Solver,
    exchange: Any,
    size: int,
    position_of_var: np.ndarray | None,
    var_of_position: np.ndarray | None,
    cuts: Any,
    later: tuple[int, Any] | None = None,
    width: int = 0,
) -> Iterator[int]:
    """The loop of the one-search enumeration: solve, decide the model's evidence (the
    first ``size`` variables; ``position_of_var[v - 1]`` is variable v's evidence position
    in the exchange's oracle, -1 for evidence it leaves out; None for both maps when
    variable p + 1 is position p), learn the clauses of the step, until UNSAT; the
    exchange holds every justification after (:meth:`~theory.solver.exchange.Exchange.named`).
    ``cuts(positions)`` gives the loop clauses of the maximal false set a false model's
    evidence grows to; ``later = (k, clauses)``: ``clauses()`` is added after the k-th
    model. Yields the work of each solver slice (:func:`_limited`; ``width``: the
    formula's variables), so a portfolio can interleave it with other methods."""
    import numpy as np

    add = solver.add_clause
    model_of = solver.get_model
    step = exchange.step_positions
    models = 0
    after = -1 if later is None else later[0]
    while (yield from _limited(solver, (), width)):
        model = model_of()[:size]
        if len(model) < size:  # variables in no clause yet are false
            model.extend(range(-len(model) - 1, -size - 1, -1))
        if position_of_var is None:
            present = np.array([v - 1 for v in model if v > 0], dtype=np.int64)
        else:
            present = position_of_var[
                (np.array(model, dtype=np.int64) > 0) & (position_of_var >= 0)
            ]
        true, flat, start = step(present)
        variables = flat + 1 if var_of_position is None else var_of_position[flat]
        bounds = start.tolist()
        models += 1
        if models == after:
            for clause in later[1]():  # type: ignore[index]
                add(clause)
        if true:
            literals = (-variables).tolist()
            for i in range(len(bounds) - 1):
                add(literals[bounds[i] : bounds[i + 1]])
            continue
        add(variables.tolist())
        # the loops of the maximal false set (the outside clause already cuts the model)
        inside = np.ones(exchange.oracle.evidence.shape[0], dtype=bool)
        inside[flat] = False
        for clause in cuts(np.flatnonzero(inside)):
            add(clause)


def _compiled_search(
    index: Any, root: int, solver_name: str | None = None, stats: dict[str, int] | None = None
) -> frozenset[frozenset[str]]:
    """:meth:`JustificationEnumerator.all_minimal` with the encoding built by a compiled
    pass over the cone (:mod:`theory.solver.cone_cnf`) instead of :class:`SupportProgram`, and
    by default the compiled solver of :mod:`theory.solver.cdcl` (every model, step and clause in
    one compiled call, the step with :data:`theory.solver.cdcl.ATTEMPTS` exchange tries per model);
    ``solver_name`` runs the same search over that python-sat solver
    instead (the completion's other direction added after :data:`REVERSE_AFTER` models).
    ``stats``, when given, receives the counts of the run (models decided, exchange
    attempts, sets they found, and the solver's decisions and conflicts), for the
    benchmarks."""
    from theory.solver.cone_cnf import PREMISE, cone_cnf, loop_cuts
    from theory.solver.cone_kernel import ConeOracle
    from theory.solver.exchange import Exchange

    oracle = ConeOracle(index, root)
    cnf = cone_cnf(oracle)
    root_kept = oracle.shape[2]
    if (cnf.body[root_kept[0] : root_kept[1]] == PREMISE).any():
        return frozenset([frozenset()])
    counters: dict[str, int]
    if solver_name is None or solver_name == BUILTIN:
        from theory.solver.cdcl import ATTEMPTS, CONFLICTS, DECISIONS, search

        exchange = Exchange(oracle, attempts=ATTEMPTS)
        counts = search(cnf, exchange)
        counters = {"decisions": int(counts[DECISIONS]), "conflicts": int(counts[CONFLICTS])}
    else:
        exchange = Exchange(oracle)
        with Solver(name=solver_name) as solver:
            if solver_name == "cadical195":
                # learnt-clause minimisation and shrinking cost more than they save on these
                # small cones (a few conflicts per model)
                solver.configure({"minimize": 0, "shrink": 0})
            solver.append_formula(cnf.clauses(0, cnf.forward))
            solver.add_clause([cnf.root])
            solver.set_phases(list(range(-1, -cnf.variables - 1, -1)))  # small models first
            _one_search(
                solver,
                exchange,
                oracle.evidence.shape[0],
                None,
                None,
                lambda present: loop_cuts(cnf, oracle, oracle.evidence[present]),
                later=(REVERSE_AFTER, lambda: cnf.clauses(cnf.forward)),
            )
            counters = solver.accum_stats()
    if stats is not None:
        models, attempts, exchanged = exchange.tally.tolist()
        stats.update(
            models=models, exchange_attempts=attempts, exchange_found=exchanged, **counters
        )
    return exchange.named(index.ids)


def _cdcl_arm(index: Any, oracle: Any, cnf: Any, limit: int | None = None) -> Iterator[Step]:
    """The compiled search of :mod:`theory.solver.cdcl` over ``cnf`` as a portfolio arm, restarted
    with a doubled budget each time it runs out (:func:`theory.solver.portfolio.restarted`). The
    runs share one :class:`~theory.solver.exchange.Exchange`: a run starts with the sets the runs
    before it found blocked, so only the solver's learnt clauses are thrown away. With a
    ``limit``, a run also stops once the sets found number that many (a step then ends with
    at least ``limit`` sets, which is all a caller stopping there takes)."""
    from theory.solver.cdcl import ATTEMPTS, CONFLICT_WORK, CONFLICTS, DECISIONS, STOPPED, search
    from theory.solver.exchange import Exchange

    exchange = Exchange(oracle, attempts=ATTEMPTS)

    def attempt(budget: int) -> tuple[bool, int, Iterable[frozenset[str]]]:
        counts = search(cnf, exchange, budget=budget, limit=-1 if limit is None else limit)
        finished = not counts[STOPPED]
        return (
            finished,
            int(counts[DECISIONS] + CONFLICT_WORK * counts[CONFLICTS]),
            exchange.named(index.ids),
        )

    return restarted(attempt)


def _pysat_arm(
    index: Any, oracle: Any, cnf: Any, solver_name: str, reverse: bool
) -> Iterator[Step]:
    """The one search over a python-sat solver as a portfolio arm (resumable: each step is
    one slice of solver work); ``reverse`` adds the completion's other direction after
    :data:`REVERSE_AFTER` models (a ranked encoding has none)."""
    from theory.solver.cone_cnf import loop_cuts
    from theory.solver.exchange import Exchange

    exchange = Exchange(oracle)
    with Solver(name=solver_name) as solver:
        if solver_name == "cadical195":
            solver.configure({"minimize": 0, "shrink": 0})
        solver.append_formula(cnf.clauses(0, cnf.forward))
        solver.add_clause([cnf.root])
        solver.set_phases(list(range(-1, -cnf.variables - 1, -1)))  # small models first
        later = (REVERSE_AFTER, lambda: cnf.clauses(cnf.forward)) if reverse else None
        for work in _one_search_steps(
            solver,
            exchange,
            oracle.evidence.shape[0],
            None,
            None,
            lambda present: loop_cuts(cnf, oracle, oracle.evidence[present]),
            later=later,
            width=cnf.variables,
        ):
            yield work, (), False
    yield 0, tuple(exchange.named(index.ids)), True


def _portfolio_search(
    index: Any,
    root: int,
    solver_name: str = BUILTIN,
    winner: list[str] | None = None,
    limit: int | None = None,
) -> frozenset[frozenset[str]]:
    """Every minimal justification of node ``root`` by a portfolio (:mod:`theory.solver.portfolio`)
    of the compiled one search over the completion with lazy loop formulas ("lazy") and
    over the level-ranked completion ("ranked", :func:`theory.solver.cone_cnf.ranked_cone_cnf`),
    each on the built-in solver (:mod:`theory.solver.cdcl`, restarted with doubled budgets) and,
    the ranked one, on CaDiCaL through python-sat; with another ``solver_name``, both over
    that python-sat solver. The lazy arm is the fastest where loops are few to cut; the
    ranked ones never need a loop formula, so a graph whose loops would take the lazy arm
    exponentially many models costs at most about three times the ranked arm's work.
    ``winner``, when given, receives the name of the arm that finished. With a ``limit``,
    the first ``limit`` sets the portfolio passes on (a reproducible prefix: the
    interleaving counts work, not time), so a claim with very many minimal justifications
    costs what its first ones cost."""
    from theory.solver.cone_cnf import PREMISE, cone_cnf, ranked_cone_cnf
    from theory.solver.cone_kernel import ConeOracle

    oracle = ConeOracle(index, root)
    cnf = cone_cnf(oracle)
    root_kept = oracle.shape[2]
    if (cnf.body[root_kept[0] : root_kept[1]] == PREMISE).any():
        return frozenset([frozenset()])
    ranked: list[Any] = []  # the ranked encoding, once built
    programs: list[SupportProgram] = []  # its program, once sized

    def program() -> SupportProgram:
        if not programs:
            programs.append(SupportProgram.of(index, root))
        return programs[0]

    def ranked_cnf() -> Any:
        if not ranked:
            ranked.append(ranked_cone_cnf(oracle, index, root, program()))
        return ranked[0]

    def ranked_arm(run: Callable[[Any], Iterator[Step]]) -> Iterator[Step]:
        if not ranked:  # the build is one step the portfolio cannot interrupt: charge it first
            yield program().ranking_size() * RANKED_WORK_PER_CLAUSE, (), False
        encoded = ranked_cnf()
        if isinstance(encoded, bool):  # cannot happen past the premise test; exact anyway
            yield 0, ((frozenset(),) if encoded else ()), True
            return
        yield from run(encoded)

    if solver_name == BUILTIN:
        arms = [
            Arm("lazy", lambda: _cdcl_arm(index, oracle, cnf, limit)),
            Arm(
                "ranked",
                lambda: ranked_arm(lambda c: _cdcl_arm(index, oracle, c, limit)),
                entry=RANKED_ENTRY,
            ),
            Arm(
                "ranked-cadical",
                lambda: ranked_arm(lambda c: _pysat_arm(index, oracle, c, LOOP_SOLVER, False)),
                entry=2 * RANKED_ENTRY,
            ),
        ]
    else:
        arms = [
            Arm("lazy", lambda: _pysat_arm(index, oracle, cnf, solver_name, True)),
            Arm(
                "ranked",
                lambda: ranked_arm(lambda c: _pysat_arm(index, oracle, c, solver_name, False)),
                entry=RANKED_ENTRY,
            ),
        ]
    portfolio = Portfolio(arms)
    found = frozenset(portfolio) if limit is None else frozenset(islice(portfolio, limit))
    if winner is not None and portfolio.winner is not None:
        winner.append(portfolio.winner)
    return found


def _loop_cuts(
    oracle: Any, program: SupportProgram, pool: IDPool, copy: ProgramCopy, present: Sequence[int]
) -> list[list[int]]:
    """The loop formula of each loop of the claims a model could hold only through loops
    under the evidence ``present`` (:meth:`~theory.solver.cone_kernel.ConeOracle.unfounded`), as
    clauses over the copy's variables: valid for every founded model, and unlike the
    evidence clause they cut the same loop under any evidence."""
    return _loop_formulas(oracle.unfounded(present), program, pool, copy)


def _loop_formulas(
    loops: Iterable[tuple[list[int], list[int]]],
    program: SupportProgram,
    pool: IDPool,
    copy: ProgramCopy,
) -> list[list[int]]:
    """The loop formula of each (members, external justifications) loop over the copy's
    variables, in clauses linear in the loop's size
    (:meth:`~theory.solver.completion.SupportProgram.loop_formula_clauses`); none for a loop with
    an external justification that always holds."""
    holds, body = copy.holds, copy.body
    clauses: list[list[int]] = []
    for members, external in loops:
        bodies = [body.get(j, False) for j in external]
        if any(b is True for b in bodies):
            continue
        lits: list[int] = [b for b in bodies if b is not False]  # type: ignore[misc]
        held = [u for u in members if u in holds]
        if held:
            clauses.extend(program.loop_formula_clauses(pool, copy, held, lits))
    return clauses


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
    unrolled encoding).
    """

    def __init__(
        self,
        source: "Circuit | SupportProgram",
        root: int | None = None,
        solver: str = DEFAULT_SOLVER,
        prefer_absent: bool = True,
        ranked: bool = False,
    ):
        if isinstance(source, Circuit):
            if root is None:
                raise ValueError("a circuit needs its root gate")
            self.source: "SupportProgram | _Unrolled" = _Unrolled(source, root)
        else:
            self.source = source
        self.prefer_absent = prefer_absent
        self.solver_name = LOOP_SOLVER if solver == BUILTIN else solver
        self.variables = self.source.variables
        self.pool = VariablePool()
        self.var = {e: self.pool.id(("x", e)) for e in self.variables}
        self.ranked = ranked
        self._encoded: tuple[Encoding, Any] | None = None  # built on first use
        self._relevance: _Relevance | None = None
        self.conflicts = 0
        """Solver conflicts spent so far by queries given a ``conflicts`` budget."""
        # a false model's evidence grows to a maximal false set (theory.solver.unfounded), as the
        # compiled search does: its cuts reach every model inside that set
        self._cone: ConeFixpoint | None = None
        if isinstance(self.source, SupportProgram) and not ranked:
            self._cone = ConeFixpoint(self.source)
            number = self.source.index.number
            self._var_of_number = {number[e]: v for e, v in self.var.items()}

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
            self._encoded = self.source.encode(
                self.pool, self.var.__getitem__, positive=True, ranked=self.ranked
            )
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
            # every variable, not only evidence: a model then holds few claims, which keeps
            # the well-foundedness check of theory.solver.completion small
            solver.set_phases([-v for v in range(1, self.pool.top + 1)])
        return solver

    def _solve(
        self,
        solver: Solver,
        assumptions: Sequence[int] = (),
        copy: Any = None,
        conflicts: int | None = None,
    ) -> list[int] | None:
        """A model whose root is well-founded, or None: solve, and while the model's root is
        held up only by a support loop, add the loop clauses that cut it and solve again.
        With ``conflicts``, the calls together spend at most that many conflicts, then
        :class:`~theory.model.errors.Undecided` is raised."""
        copy = self._copy if copy is None else copy
        spent = _Conflicts(solver, conflicts)
        try:
            while spent.solve(assumptions):
                model = self._model(solver)
                cuts = self.source.loop_clauses(self.pool, copy, model)
                if not cuts:
                    return model
                for clause in cuts:
                    solver.add_clause(clause)
            return None
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

    def _minimal_in(self, solver: Solver, model: list[int]) -> frozenset[str] | None:
        """:meth:`_minimal_steps` to the end."""
        steps = self._minimal_steps(solver, model)
        while True:
            try:
                next(steps)
            except StopIteration as end:
                return end.value  # type: ignore[no-any-return]

    def _minimal_steps(
        self, solver: Solver, model: list[int]
    ) -> Generator[int, None, frozenset[str] | None]:
        """Shrink the model's evidence to a minimal justification, or None when its
        evidence is false before any true set was met (the clauses that cut it are added
        to ``solver``); yields the work of each solver slice.

        Every model's evidence X is decided by the least fixpoint (:mod:`theory.solver.unfounded`;
        on a ranked encoding every model is founded): a false X grows to a maximal false
        set Y, and "some evidence outside Y" and the loop formulas of the loops under Y are
        added, which cut every model inside Y at once. A true X (even in a model that a
        loop holds up) gets the clause "not all of X" for good: it blocks
        X and its supersets, none of which is a minimal justification other than X, and
        every strict subset of X satisfies it. Then a model with evidence inside X is asked
        for (assumptions: the evidence outside X absent): UNSAT means X is minimal (a
        smaller true set has a founded model, which no clause added here excludes), SAT
        gives a smaller set to check. No selector variables, no retired clauses; with the
        phases preferring absent evidence the first X is usually minimal already, so a
        justification costs one search and one UNSAT call."""
        var = self.var
        bound: list[int] | None = None  # assumptions of the last true set met
        last: list[str] = []
        cone = self._cone
        while True:
            if cone is not None:
                # the least fixpoint decides the model's evidence, as in the compiled search:
                # a false one grows to a maximal false set, whose cuts reach every model in it
                before = cone.work
                present = [e for e, v in self._var_of_number.items() if model[v - 1] > 0]
                maximal = cone.grow(present)
                true = maximal is None
                cuts = [] if maximal is None else self._grown_cuts(maximal)
                yield GROW_WORK_PER_STEP * (cone.work - before) + (
                    CUT_WORK_PER_LITERAL * sum(map(len, cuts))
                )
            else:  # a ranked copy or the unrolled circuit: every model is founded
                cuts, true = [], True
            for clause in cuts:
                solver.add_clause(clause)
            if not true:
                if bound is None:
                    return None
                assumptions = bound
            else:
                found = [e for e, v in var.items() if model[v - 1] > 0]
                if not found:
                    return frozenset()
                solver.add_clause([-var[e] for e in found])
                assumptions = bound = [-v for v in var.values() if model[v - 1] < 0]
                last = found
            if not (yield from _limited(solver, assumptions, self.pool.top)):
                return frozenset(last)
            model = self._model(solver)

    def _grown_cuts(self, grown: frozenset[int]) -> list[list[int]]:
        """For a maximal false set Y (evidence node numbers,
        :meth:`~theory.solver.unfounded.ConeFixpoint.grow`): "some evidence outside Y", and the
        loop formula of each loop of the claims Y could hold only through loops."""
        cone = self._cone
        assert cone is not None and isinstance(self._copy, ProgramCopy)
        var_of = self._var_of_number
        outside = [var_of[e] for e in cone.evidence if e not in grown]
        if not outside:  # the roots hold under no evidence: no model is founded
            return [[-self.encoding.root]] if isinstance(self.encoding.root, int) else []
        assert isinstance(self.source, SupportProgram)
        loops = cone.unfounded(grown)
        return [outside, *_loop_formulas(loops, self.source, self.pool, self._copy)]

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
                answer = yield from _as_steps(_limited(solver, (), self.pool.top))
                if not answer:
                    return
                minimal = yield from _as_steps(self._minimal_steps(solver, self._model(solver)))
                if minimal is None:
                    continue  # cut a self-supporting loop; search again
                yield 0, (minimal,), not minimal  # its supersets are blocked already
                if not minimal:  # the empty set: the claim holds on no evidence, the only
                    return  # minimal justification (and nothing blocks it to go on)

    def all_minimal(self) -> frozenset[frozenset[str]]:
        """Every minimal justification, in one incremental solver run with a compiled step
        per model (:class:`~theory.solver.exchange.Exchange`), where :meth:`__iter__` makes a few
        solver calls per justification.

        Each model's evidence X is decided exactly by the least fixpoint of the cone
        (:class:`~theory.solver.cone_kernel.ConeOracle`), whatever the encoding lets through. X
        true: it shrinks to a minimal M, new (X satisfies every clause added so far, so it
        contains no set found before), and the step goes on to exchange members of the sets
        it finds for others, each new set learnt as "not all of M". X false: grown to a
        maximal false Y, "some evidence outside Y" (which cuts the model), plus the loop
        formula of each loop of the claims Y could hold only through loops
        (:meth:`~theory.solver.cone_kernel.ConeOracle.unfounded`), which cuts that loop under any
        evidence. The run ends UNSAT when every minimal justification is blocked."""
        if self.encoding.root is True:
            return frozenset([frozenset()])
        solver = self._solver()
        if solver is None:
            return frozenset()
        if not isinstance(self.source, SupportProgram) or len(self.source.roots) != 1:
            solver.delete()
            return frozenset(self)
        import numpy as np

        from theory.solver.cone_kernel import ConeOracle
        from theory.solver.exchange import Exchange

        index = self.source.index
        oracle = ConeOracle(index, self.source.roots[0])
        exchange = Exchange(oracle)
        evidence = list(self.var)  # their variables are 1..E, in this order (__init__)
        size = len(evidence)
        if list(self.var.values()) != list(range(1, size + 1)):
            raise AssertionError("the evidence variables are not the first of the pool")
        # var v -> the oracle's evidence position, -1 for evidence only in justifications
        # the oracle leaves out (subsumed ones: no minimal justification needs it)
        position_of_var = oracle.position[
            np.array([index.number[e] for e in evidence], dtype=np.int64)
        ]
        var_of_position = np.zeros(oracle.evidence.shape[0], dtype=np.int64)
        relevant = position_of_var >= 0
        var_of_position[position_of_var[relevant]] = np.arange(1, size + 1)[relevant]
        copy = self._copy if isinstance(self._copy, ProgramCopy) else None
        program = self.source if isinstance(self.source, SupportProgram) else None

        def cuts(present: np.ndarray) -> list[list[int]]:
            return (
                []
                if copy is None or program is None
                else _loop_cuts(oracle, program, self.pool, copy, oracle.evidence[present].tolist())
            )

        with solver:
            _one_search(solver, exchange, size, position_of_var, var_of_position, cuts)
        return exchange.named(index.ids)

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
            while solver.solve(assumptions=assumptions):
                minimal = self._minimal_in(solver, self._model(solver))
                if minimal is not None:
                    return minimal
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

        ``target`` asks about another claim of the cone (f: its support function), on a
        ranked enumerator of a :class:`~theory.solver.completion.SupportProgram`. The members of one
        strongly connected component share their cone, so one enumerator serves them all,
        and what its solver learns about the cone carries from claim to claim.

        One incremental solver holds two copies of the encoding sharing the evidence
        variables x: an "on" copy (root true) whose inputs are x OR s and an "off" copy
        (root false) whose inputs are x AND NOT s, where s are per-item selectors; a query
        assumes every other item's selector off, and the root of each copy. Only the
        "on" copy can need loop clauses (never on a ranked encoding).
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
            return self._solve(
                relevance.solver, assumptions, copy=relevance.on, conflicts=conflicts
            )
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
            if not (self.ranked and isinstance(self.source, SupportProgram)):
                raise ValueError("a target other than the root needs a ranked SupportProgram")
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
        on, on_copy = self.source.encode(
            pool, on_input.__getitem__, positive=True, tag="on", ranked=self.ranked
        )
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
    compiled: bool | None = None,
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
    solver : str
        The python-sat solver of the SAT paths. With the default, the compiled one
        search (no ``limit``) runs its own compiled solver instead (:mod:`theory.solver.cdcl`,
        no Python round trip per model); another name runs it over that solver.
    method : {"auto", "sat", "labels"}
        ``"labels"``: the label algebra, compiled (:mod:`theory.solver.label_kernel`, one call
        computes the cone, its components and the labels). ``"sat"``: the solver core, one
        search over the encoding with a compiled exact check of every model
        (:meth:`JustificationEnumerator.all_minimal`). ``"auto"`` (the default): labels
        within a work budget (:data:`LABEL_WORK`, about 1-1.5 ms), then SAT; labels are the
        fastest while they stay small, and SAT is output-sensitive where they blow up.
        All are exact.
    label_budget : int, optional
        With ``"auto"``, also hand a claim to SAT as soon as a label on its way holds more
        than this many sets (0 always uses SAT).
    encoding : {"completion", "unrolled"}
        The SAT encoding of the least fixpoint: completion plus lazy loop formulas (the
        default, linear in the cone) or the unrolled circuit (the test oracle).
    compiled : bool, optional
        Use the compiled kernels (True) or the Python label algebra and the SAT core's
        solver loop (False). By default the kernels run once the graph has
        :data:`COMPILED_FROM` nodes or they are loaded already: loading them costs a
        process about 0.5 s once, more than a small graph's whole query.

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
    if method not in ("auto", "sat", "labels"):
        raise ValueError(f"unknown method {method!r}")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r} (choose from {', '.join(ENCODINGS)})")
    index = index_of(structure)
    target = index.number[structure.require_claim(claim)]
    if compiled is None:
        compiled = index.size >= COMPILED_FROM or kernels_loaded()
    if not compiled:
        return _minimal_interpreted(structure, claim, limit, solver, method, label_budget, encoding)
    if method != "sat" and limit is None:
        from theory.solver.label_kernel import UNLIMITED, labels, sets_of_ids

        if method == "labels":
            found = labels(index, [target])
        else:
            found = labels(
                index,
                [target],
                max_sets=UNLIMITED if label_budget is None else label_budget,
                max_work=LABEL_WORK,
            )
        result = sets_of_ids(index, found, 0)
        if result is not None:
            return result
    if encoding == "completion":
        if limit is None:
            return _portfolio_search(index, target, solver)
        return frozenset(islice(enumerate_minimal(SupportProgram.of(index, target), solver), limit))
    enumerator = JustificationEnumerator.for_claim(
        structure, claim, solver=solver, encoding=encoding
    )
    if limit is not None:
        return frozenset(islice(enumerator, limit))
    return enumerator.all_minimal()


def compiled_answer(
    index: Any, target: int, solver: str = DEFAULT_SOLVER
) -> frozenset[frozenset[str]]:
    """The compiled default: labels within :data:`LABEL_WORK`, then :func:`_portfolio_search`."""
    return compiled_listing(index, target, None, solver)[0]


def compiled_listing(
    index: Any, target: int, limit: int | None, solver: str = DEFAULT_SOLVER
) -> tuple[frozenset[frozenset[str]], bool]:
    """:func:`compiled_answer` stopped at ``limit`` sets (None: no limit), and whether the
    answer is complete. Labels that finish within :data:`LABEL_WORK` give every set (so
    possibly more than ``limit``, complete); otherwise the portfolio's first ``limit``
    sets, complete when it finished with fewer (at exactly ``limit`` sets it cannot tell).
    A claim can have tens of thousands of minimal justifications (``jtms check`` on an agent
    memory with support loops lists 64 of them): the listing then costs what the first
    ``limit`` cost, not what all of them do."""
    from theory.solver.label_kernel import labels, sets_of_ids

    found = sets_of_ids(index, labels(index, [target], max_work=LABEL_WORK), 0)
    if found is not None:
        return found, True
    found = _portfolio_search(index, target, solver, limit=limit)
    return found, limit is None or len(found) < limit


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
    answers in polynomial time: by the compiled oracle of :mod:`theory.solver.cone_kernel` (it
    loads the kernels), or with ``compiled=False`` by its Python counterpart
    (:class:`theory.solver.unfounded.ConeFixpoint`), which answers alike.

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

    def __init__(
        self,
        index: Any,
        target: int,
        *,
        compiled: bool = True,
        program: SupportProgram | None = None,
    ):
        self.oracle: Any
        if compiled:
            from theory.solver.cone_kernel import ConeOracle

            self.oracle = ConeOracle(index, target)
        else:
            self.oracle = ConeFixpoint(program or SupportProgram.of(index, target))
        self.number, self.ids = index.number, index.ids

    def _names(self, numbers: Any) -> frozenset[str]:
        """Names of node numbers: an array from the compiled oracle, a set from Python's."""
        return frozenset(map(self.ids.__getitem__, _listed(numbers)))

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
        return self._minimal([x for x in _listed(self.oracle.evidence) if x not in absent])


def _listed(numbers: Any) -> Any:
    """Node numbers as Python ints: a numpy array's (the compiled oracle's) as a list, any
    other collection as it is (numpy is not imported on the interpreted path)."""
    return numbers.tolist() if hasattr(numbers, "tolist") else numbers


def _compiled_steps(program: SupportProgram, solver: str) -> Iterator[Step]:
    """:func:`compiled_answer` as one portfolio step: it loads the kernels, which a
    one-shot process pays for only when the solver loops have spent :data:`COMPILED_ENTRY`
    without finishing."""
    yield 0, tuple(compiled_answer(program.index, program.roots[0], solver)), True


def _label_steps(program: SupportProgram) -> Iterator[Step]:
    """The Python label algebra (:func:`theory.solver.labels.all_labels`) on the cone of
    ``program``'s one root as a portfolio arm: run afresh under a budget of sets formed
    (shared out over the cone's claims), doubled after each run that exceeds it
    (:func:`theory.solver.portfolio.restarted`), each set formed :data:`LABEL_UNIT` units of work
    (about the CPU time of that many steps of the solver loops)."""
    from theory.solver.labels import UNBOUNDED, all_labels

    root = program.roots[0]
    index = program.index

    def attempt(budget: int) -> tuple[bool, int, Iterable[frozenset[str]]]:
        formed: list[int] = []
        per_member = max(1, budget // max(1, len(program.claims)))
        label = all_labels(index, [root], UNBOUNDED, per_member, formed=formed)[root]
        if label is None:
            return False, LABEL_UNIT * sum(formed), ()
        return True, LABEL_UNIT * sum(formed), [index.names_of_bits(bits) for bits in label]

    return restarted(attempt, first=LABEL_FIRST)


LABEL_UNIT = 8
"""Work the label arm of :func:`enumerate_minimal` is charged per set it forms: the portfolio
balances work, so a unit must cost about the same CPU time in every arm. Charged 8, a unit of
the label arm costs a median 0.86 lazy-loop steps (quartiles 0.35-1.58) in ``python -m
benchmarks.bench_portfolio_units`` (seed 777, a draw no other benchmark uses). Charged 1,
the label arm took most of the time of queries that a solver loop answered (on the
loop-family benchmark, seed 0, 17 goals of the interpreted path over 10x clingo, against 7-9
charged 8), and charged 3 or 5 the case files and nested loops took longer than charged 8
(seeds 0-2)."""

LABEL_ENTRY = RANKED_ENTRY
"""Work charged to the label arm of :func:`enumerate_minimal` before its first turn: its
first use imports numpy (about 0.1 s), which a query that the lazy loop answers at once
should not pay."""
LABEL_FIRST = 50_000
"""Sets formed that the label arm of :func:`enumerate_minimal` may spend on its first run
(a few milliseconds of array work): labels that stay small are then answered before any
solver is built."""


def enumerate_minimal(
    program: SupportProgram,
    solver: str = DEFAULT_SOLVER,
    winner: list[str] | None = None,
    labels: bool = True,
    costs: dict[str, tuple[int, float]] | None = None,
    balance: str = "work",
) -> Iterator[frozenset[str]]:
    """The minimal justifications of ``program``'s roots, each once, by a portfolio
    (:mod:`theory.solver.portfolio`) of two solver loops (:meth:`JustificationEnumerator.steps`):
    over the completion with lazy loop formulas ("lazy", the fastest where few loops need
    cutting) and over the level-ranked completion ("ranked", :mod:`theory.solver.ranking`: no loop
    formula, so no exponential number of them), which starts once the lazy one has done
    about the work of building its rankings; on one root, also the Python label algebra
    ("labels", :func:`_label_steps`, unless ``labels`` is false: exact and fastest while
    labels stay small, restarted under doubled budgets where they blow up; it starts after
    :data:`LABEL_ENTRY`) and the compiled
    methods (:func:`_compiled_steps`, after :data:`COMPILED_ENTRY`). Any prefix of it is a
    valid answer under a ``limit``, and the order is reproducible (work counts, not clock
    time). ``winner``, when given, receives the name of the arm that finished; ``costs``,
    each arm's work (its entry charge included) and the CPU seconds it took (what calibrates
    :data:`LABEL_UNIT`: ``benchmarks/bench_portfolio_units.py``). ``balance="time"`` gives
    each step to the arm that has used the least CPU time instead of the least work, and
    ``balance="both"`` to the one with the least of the larger of the two
    (:class:`~theory.solver.portfolio.Portfolio`): a bound in time on any graph, for a caller that
    takes every answer, since the order of the answers is then no longer reproducible."""
    arms = [Arm("lazy", lambda: JustificationEnumerator(program, solver=solver).steps())]
    if labels and len(program.roots) == 1:
        arms.append(Arm("labels", lambda: _label_steps(program), entry=LABEL_ENTRY))
    if program.cyclic:
        arms.append(
            Arm(
                "ranked",
                lambda: JustificationEnumerator(program, solver=solver, ranked=True).steps(),
                entry=ENTRY_PER_CLAUSE * program.ranking_size(),
            )
        )
        if len(program.roots) == 1 and kernels_loaded():
            arms.append(
                Arm("compiled", lambda: _compiled_steps(program, solver), entry=COMPILED_ENTRY)
            )
    portfolio = Portfolio(arms, balance=balance)
    yield from portfolio
    if winner is not None and portfolio.winner is not None:
        winner.append(portfolio.winner)
    if costs is not None:
        costs.update((a.name, (a.work, a.seconds)) for a in arms if a.steps is not None)


def _minimal_interpreted(
    structure: SupportStructure,
    claim: str,
    limit: int | None,
    solver: str,
    method: str,
    label_budget: int | None,
    encoding: str,
) -> frozenset[frozenset[str]]:
    """:func:`minimal_justifications` without the compiled kernels: with ``"auto"``, the
    portfolio of :func:`enumerate_minimal` (the Python label algebra of :mod:`theory.solver.labels`
    and the SAT core's solver loops); with a ``label_budget``, the labels within it first;
    ``"labels"`` and ``"sat"`` run that method alone."""
    budget = LABEL_BUDGET if label_budget is None else label_budget
    if method != "labels" and encoding == "completion":
        index = index_of(structure)
        program = SupportProgram.of(index, index.number[claim])
        # "auto": the labels are an arm of the portfolio (under a label_budget, only after
        # they stayed within it, as the compiled path does)
        # Every answer: each step goes to the arm with the least of the larger of its work
        # and its CPU time (balance="both"), so an arm whose units cost more than they are
        # calibrated to is held to its share of time: what a unit costs differs between the
        # arms by 20x-55x on some graphs (the ranked loop's against the lazy loop's, where
        # hundreds of wide bodies sit in one loop: balanced by work alone, the ranked arm
        # took 10.7 of 13.2 s that the lazy loop answered in 1.7 s), while an arm whose
        # units are cheap (the labels') gets no more turns than its work allows (balanced by
        # time alone, the loop families took twice as long). Under a limit (a prefix that
        # must be the same in every process) the arms share work.
        if method == "sat" or limit is not None or label_budget is None:
            found = enumerate_minimal(
                program,
                solver,
                labels=method == "auto",
                balance="both" if limit is None else "work",
            )
            return frozenset(islice(found, limit))
        label = label_of(structure, claim, budget=budget) if budget > 0 else None
        if label is not None:
            return label
        return frozenset(enumerate_minimal(program, solver, labels=False, balance="both"))
    if method != "sat" and limit is None:
        found_label = label_of(structure, claim, budget=budget if method == "auto" else UNBOUNDED)
        if found_label is not None:
            return found_label
    enumerator = JustificationEnumerator.for_claim(
        structure, claim, solver=solver, encoding=encoding
    )
    return frozenset(islice(enumerator, limit))
