"""The root-true completion of one claim's support cone as CNF with lazy loop formulas,
built by a compiled pass over a :class:`~theory.solver.cone_kernel.ConeOracle`
(:mod:`theory.solver.kernels`): the lazy arm's encoding of the SAT search of
:func:`theory.solver.justifications.minimal_justifications`, and the one place it is built
(the level-ranked encoding is :mod:`theory.solver.completion`'s).

Over the cone the oracle keeps (justifications containing another justification of the same
claim left out: they never change the least fixpoint, and every founded model still
satisfies every clause):

- ``h_n -> OR(bodies)`` for each claim n, a body being its one antecedent's literal or a
  variable ``b_j`` with ``b_j -> a`` for each antecedent a; a claim with a premise gets
  none (it holds whatever the evidence);
- for a claim outside every cyclic component (no loop clause names its bodies), when the
  product is at most ``distribute`` (:class:`~theory.solver.options.SolverOptions`), one clause per choice of an antecedent from each
  justification instead: no body variables, so a model costs the solver less;
- the loop formula of each cyclic component (``h_n -> s``, ``s -> OR`` of the bodies of
  its members' justifications with no antecedent in it), unless one of those is a premise;
- then, from clause ``forward`` on, the other direction: ``AND(antecedents) -> h_n`` and
  ``AND(antecedents) -> b_j`` for every kept justification. The least fixpoint satisfies
  them, so they cut no justification; with them the evidence alone fixes every acyclic
  claim, and a solver decides far fewer variables per model than over the root-true half
  alone, at the price of more clauses to load (``reverse_after`` of
  :class:`~theory.solver.options.SolverOptions`).

Variables: evidence position p of the oracle is variable p + 1, so a model's first E
literals are the evidence. The tests compare the enumeration it drives with the level-ranked
encoding's, with the unrolled circuit's and with brute force.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from theory.solver.cone_kernel import ConeOracle
from theory.solver.options import DEFAULTS, SolverOptions

PREMISE = -1
"""``body[k]`` of a justification with no antecedents (a constantly true body)."""
UNUSED = 0
"""``body[k]`` of a justification encoded without a body literal (distributed)."""


@dataclass(frozen=True)
class ConeCNF:
    """The clauses (``literals[start[i]:start[i + 1]]`` is clause i; those from ``forward``
    on are the completion's other direction), the literal of each local node of the cone
    (``holds``: evidence p is p + 1), of each kept justification's body (``body``;
    :data:`PREMISE`, :data:`UNUSED` or a literal) and of the root, and the number of
    variables."""

    literals: np.ndarray
    start: np.ndarray
    holds: np.ndarray
    body: np.ndarray
    root: int
    variables: int
    forward: int

    def clauses(self, first: int = 0, last: int | None = None) -> list[list[int]]:
        """Clauses ``first:last`` (all by default) as lists, for a solver."""
        last = len(self.start) - 1 if last is None else last
        bounds = self.start[first : last + 1].tolist()
        rows = self.literals[bounds[0] : bounds[-1]].tolist()
        base = bounds[0]
        return [rows[bounds[i] - base : bounds[i + 1] - base] for i in range(len(bounds) - 1)]


def cone_cnf(oracle: ConeOracle, options: SolverOptions = DEFAULTS) -> ConeCNF:
    """The root-true completion of the oracle's cone (see the module docstring).

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e", "f"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("b", ["e", "f"])])
    >>> index = index_of(g)
    >>> cnf = cone_cnf(ConeOracle(index, index.number["a"]))
    >>> cnf.variables, cnf.root > 2, cnf.forward   # e, f, a, b, b's body, the loop's s
    (6, True, 7)
    >>> cnf.clauses(cnf.forward)   # b -> a, a -> b, e and f -> b, e and f -> b's body
    [[-4, 3], [-3, 4], [-1, -2, 4], [-1, -2, 5]]
    """
    literals, start, holds, body, variables, forward = oracle.kernel.encode(options.distribute)
    return ConeCNF(
        literals, start, holds, body, int(holds[oracle.root]), int(variables), int(forward)
    )


def loop_cuts(cnf: ConeCNF, oracle: ConeOracle, present: Any) -> list[list[int]]:
    """The loop formula, over ``cnf``'s variables, of each loop of the claims a model could
    hold only through loops under the evidence ``present`` (node numbers;
    :meth:`~theory.solver.cone_kernel.ConeOracle.unfounded`): ``-h_u`` or some body from outside
    the loop, for each member u. Every founded model satisfies them; a model holding the
    root under ``present`` violates one, and they cut the same loop under any evidence.
    A loop with a premise outside it gets none (it is always supported)."""
    literals, start = oracle.kernel.loop_cut_arrays(
        np.asarray(present, dtype=np.int64), cnf.holds, cnf.body
    )
    rows = literals.tolist()
    bounds = start.tolist()
    return [rows[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def ranked_cone_cnf(
    oracle: ConeOracle, index: Any, root: int, program: Any = None
) -> ConeCNF | bool:
    """The root-true completion of the oracle's cone (of node ``root`` of ``index``) with level rankings instead of loop
    formulas (:mod:`theory.solver.ranking`, through :class:`theory.solver.completion.SupportProgram`), laid
    out as a :class:`ConeCNF` for the compiled solver: evidence position p is variable
    p + 1 as in :func:`cone_cnf`, and every clause is in the part before ``forward``.
    Every model is founded, so the search that runs it never meets a false model and never
    needs :func:`loop_cuts` (its ``holds`` and ``body`` are left :data:`UNUSED`: a false
    model would fail loudly there). True or False when the root is constant.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("b", ["e"])])
    >>> index = index_of(g)
    >>> cnf = ranked_cone_cnf(ConeOracle(index, index.number["a"]), index, index.number["a"])
    >>> cnf.forward == len(cnf.start) - 1, cnf.variables > 3
    (True, True)
    """
    from theory.solver.cnf import VariablePool
    from theory.solver.completion import SupportProgram

    if program is None:  # the caller may have built it already (to size the rankings)
        program = SupportProgram.of(index, root)
    pool = VariablePool()
    for node in oracle.evidence.tolist():  # position p -> variable p + 1
        pool.id(("x", node))
    number = index.number
    encoding, _ = program.encode(pool, lambda e: pool.id(("x", number[e])), positive=True)
    if isinstance(encoding.root, bool):
        return encoding.root
    clauses = encoding.clauses
    sizes = np.fromiter((len(c) for c in clauses), dtype=np.int64, count=len(clauses))
    start = np.zeros(len(clauses) + 1, dtype=np.int64)
    np.cumsum(sizes, out=start[1:])
    literals = np.fromiter((x for c in clauses for x in c), dtype=np.int64, count=int(start[-1]))
    unused = np.zeros(oracle.local_size, dtype=np.int64)
    return ConeCNF(
        literals,
        start,
        unused,
        np.zeros(oracle.just_size.shape[0], dtype=np.int64),
        int(encoding.root),
        int(pool.top),
        len(clauses),
    )


__all__ = [
    "PREMISE",
    "UNUSED",
    "ConeCNF",
    "cone_cnf",
    "loop_cuts",
    "ranked_cone_cnf",
]
