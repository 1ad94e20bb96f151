"""The root-true completion of one claim's support cone as CNF, built by a compiled pass
over a :class:`~theory.solver.cone_kernel.ConeOracle` (numba): the encoding of
:class:`theory.solver.completion.SupportProgram` (``positive=True``), without its Python set-up,
for the one-search enumeration of :func:`theory.solver.justifications.minimal_justifications`.

Same clauses as there, over the cone the oracle keeps (justifications containing another
justification of the same claim left out: they never change the least fixpoint, and every
founded model still satisfies every clause):

- ``h_n -> OR(bodies)`` for each claim n, a body being its one antecedent's literal or a
  variable ``b_j`` with ``b_j -> a`` for each antecedent a; a claim with a premise gets
  none (it holds whatever the evidence);
- for a claim outside every cyclic component (no loop clause names its bodies), when the
  product is at most :data:`DISTRIBUTE`, one clause per choice of an antecedent from each
  justification instead: no body variables, so a model costs the solver less;
- the loop formula of each cyclic component (``h_n -> s``, ``s -> OR`` of the bodies of
  its members' justifications with no antecedent in it), unless one of those is a premise;
- then, from clause ``forward`` on, the other direction: ``AND(antecedents) -> h_n`` and
  ``AND(antecedents) -> b_j`` for every kept justification. The least fixpoint satisfies
  them, so they cut no justification; with them the evidence alone fixes every acyclic
  claim, and a solver decides far fewer variables per model than over the root-true half
  alone, at the price of more clauses to load (:data:`theory.solver.justifications.REVERSE_AFTER`).

Variables: evidence position p of the oracle is variable p + 1, so a model's first E
literals are the evidence. The tests compare it with :mod:`theory.solver.completion` through the
enumeration it drives, and with brute force.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from theory.solver.cone_kernel import ConeOracle, unfounded_loops
from theory.solver.label_kernel import doubled

DISTRIBUTE = 16
"""Most clauses spent on one acyclic claim's ``h -> OR(bodies)`` without body variables
(one per choice of an antecedent from each justification)."""
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


def cone_cnf(oracle: ConeOracle) -> ConeCNF:
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
    (a_start, a_local, claim_kept, comp_of, comp_nodes, comp_start, cyclic) = oracle.shape
    literals, start, holds, body, variables, forward = _encode(
        oracle.ev_local,
        a_start,
        a_local,
        claim_kept,
        comp_of,
        comp_nodes,
        comp_start,
        cyclic,
        DISTRIBUTE,
    )
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
    literals, start = loop_cut_arrays(
        np.asarray(present, dtype=np.int64), cnf.holds, cnf.body, *oracle.kernel_args()
    )
    rows = literals.tolist()
    bounds = start.tolist()
    return [rows[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def loop_cut_arrays(
    present: Any,
    holds: Any,
    body: Any,
    position: Any,
    a_start: Any,
    a_local: Any,
    kept_start: Any,
    comp_of: Any,
    comp_nodes: Any,
    comp_start: Any,
    cyclic: Any,
    ev_local: Any,
    premises: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    just_size: Any,
    root: int,
    missing: Any,
    held: Any,
    stack: Any,
    mask: Any,
) -> Any:
    """:func:`loop_cuts`, flattened: clause i is ``literals[start[i]:start[i + 1]]``."""
    members, member_start, external, ext_start = unfounded_loops(
        present,
        position,
        a_start,
        a_local,
        kept_start,
        comp_of,
        comp_nodes,
        comp_start,
        cyclic,
        ev_local,
        premises,
        w_start,
        w_just,
        just_claim,
        just_size,
        root,
        missing,
        held,
        stack,
        mask,
    )
    literals = np.empty(max(16, members.shape[0] * (1 + external.shape[0])), dtype=np.int64)
    start = np.zeros(members.shape[0] + 1, dtype=np.int64)
    clauses = 0
    used = 0
    for g in range(member_start.shape[0] - 1):
        supported = False
        for z in range(ext_start[g], ext_start[g + 1]):
            if body[external[z]] == PREMISE:
                supported = True
            if body[external[z]] == UNUSED:
                raise AssertionError("a loop names a justification encoded without a body")
        if supported:
            continue
        for y in range(member_start[g], member_start[g + 1]):
            literals[used] = -holds[members[y]]
            used += 1
            for z in range(ext_start[g], ext_start[g + 1]):
                literals[used] = body[external[z]]
                used += 1
            clauses += 1
            start[clauses] = used
    return literals[:used].copy(), start[: clauses + 1].copy()


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _clause(literals: Any, start: Any, count: int, used: int, clause: Any, size: int) -> Any:
    while used + size > literals.shape[0]:
        literals = doubled(literals)
    if count + 2 > start.shape[0]:
        start = doubled(start)
    literals[used : used + size] = clause[:size]
    start[count + 1] = used + size
    return literals, start, count + 1, used + size


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _encode(
    ev_local: Any,
    a_start: Any,
    a_local: Any,
    claim_kept: Any,
    comp_of: Any,
    comp_nodes: Any,
    comp_start: Any,
    cyclic: Any,
    distribute: int,
) -> Any:
    count = claim_kept.shape[0] - 1
    n_just = a_start.shape[0] - 1
    holds = np.zeros(count, dtype=np.int64)
    for p in range(ev_local.shape[0]):
        holds[ev_local[p]] = p + 1
    top = ev_local.shape[0]
    evidence = holds.copy()
    for x in range(count):
        if evidence[x] == 0:
            top += 1
            holds[x] = top
    body = np.zeros(n_just, dtype=np.int64)
    literals = np.empty(1024, dtype=np.int64)
    start = np.zeros(256, dtype=np.int64)
    clauses = 0
    used = 0
    clause = np.empty(max(16, count + n_just + 2), dtype=np.int64)
    choice = np.zeros(64, dtype=np.int64)
    for x in range(count):
        if evidence[x]:
            continue
        h = holds[x]
        first, last = claim_kept[x], claim_kept[x + 1]
        premise = False
        product = 1
        for k in range(first, last):
            size = a_start[k + 1] - a_start[k]
            if size == 0:
                premise = True
            elif product <= distribute:
                product *= size
        if not premise and not cyclic[comp_of[x]] and product <= distribute and last - first <= 64:
            # one clause per choice of an antecedent from each justification
            for i in range(last - first):
                choice[i] = 0
            while True:
                size = 0
                clause[size] = -h
                size += 1
                for i in range(last - first):
                    lit = holds[a_local[a_start[first + i] + choice[i]]]
                    duplicate = False
                    for t in range(1, size):
                        if clause[t] == lit:
                            duplicate = True
                            break
                    if not duplicate:
                        clause[size] = lit
                        size += 1
                literals, start, clauses, used = _clause(
                    literals, start, clauses, used, clause, size
                )
                i = 0
                while i < last - first:
                    choice[i] += 1
                    if choice[i] < a_start[first + i + 1] - a_start[first + i]:
                        break
                    choice[i] = 0
                    i += 1
                if i == last - first:
                    break
            continue
        for k in range(first, last):
            size = a_start[k + 1] - a_start[k]
            if size == 0:
                body[k] = PREMISE
            elif size == 1:
                body[k] = holds[a_local[a_start[k]]]
            else:
                top += 1
                body[k] = top
                for r in range(a_start[k], a_start[k + 1]):
                    clause[0] = -top
                    clause[1] = holds[a_local[r]]
                    literals, start, clauses, used = _clause(
                        literals, start, clauses, used, clause, 2
                    )
        if not premise:
            size = 0
            clause[size] = -h
            size += 1
            for k in range(first, last):
                clause[size] = body[k]
                size += 1
            literals, start, clauses, used = _clause(literals, start, clauses, used, clause, size)
    # the loop formula of each cyclic component
    for c in range(comp_start.shape[0] - 1):
        if not cyclic[c]:
            continue
        size = 1
        supported = False
        for z in range(comp_start[c], comp_start[c + 1]):
            x = comp_nodes[z]
            for k in range(claim_kept[x], claim_kept[x + 1]):
                internal = False
                for r in range(a_start[k], a_start[k + 1]):
                    if comp_of[a_local[r]] == c:
                        internal = True
                        break
                if internal:
                    continue
                if body[k] == PREMISE:
                    supported = True
                clause[size] = body[k]
                size += 1
        if supported:
            continue
        members = comp_start[c + 1] - comp_start[c]
        if members == 1:
            clause[0] = -holds[comp_nodes[comp_start[c]]]
            literals, start, clauses, used = _clause(literals, start, clauses, used, clause, size)
            continue
        top += 1
        clause[0] = -top
        literals, start, clauses, used = _clause(literals, start, clauses, used, clause, size)
        for z in range(comp_start[c], comp_start[c + 1]):
            clause[0] = -holds[comp_nodes[z]]
            clause[1] = top
            literals, start, clauses, used = _clause(literals, start, clauses, used, clause, 2)
    forward = clauses
    # then the other direction: a justification whose antecedents hold makes its claim (and its
    # body) hold, so the evidence alone fixes every acyclic claim and the solver decides
    # little more than the evidence
    for x in range(count):
        if evidence[x]:
            continue
        for k in range(claim_kept[x], claim_kept[x + 1]):
            size = 0
            for r in range(a_start[k], a_start[k + 1]):
                clause[size] = -holds[a_local[r]]
                size += 1
            clause[size] = holds[x]
            literals, start, clauses, used = _clause(
                literals, start, clauses, used, clause, size + 1
            )
            if body[k] > 0 and size > 1:
                clause[size] = body[k]
                literals, start, clauses, used = _clause(
                    literals, start, clauses, used, clause, size + 1
                )
    return literals[:used].copy(), start[: clauses + 1].copy(), holds, body, top, forward


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
    encoding, _ = program.encode(
        pool, lambda e: pool.id(("x", number[e])), positive=True, ranked=True
    )
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
    "DISTRIBUTE",
    "PREMISE",
    "UNUSED",
    "ConeCNF",
    "cone_cnf",
    "loop_cut_arrays",
    "loop_cuts",
    "ranked_cone_cnf",
]
