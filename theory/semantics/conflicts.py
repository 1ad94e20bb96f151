"""Contradictions: when a nogood is active, and its conflict sets.

A nogood is a set of nodes that must not all be active together (docs/design.md section 2). It
is *active* (a contradiction) when all its nodes are active. Its *conflict sets* are the
minimal evidence sets under which all its nodes are active: the minimal true sets of the
conjunction of their support functions, f_N(X) = AND over n in N of f_n(X). They come from
the solver core: the conjunction is one more AND gate on the hash-consed circuit of
:func:`theory.solver.formula.compile_support` (which unrolls support loops to the least fixpoint,
so a loop never creates a conflict), enumerated by
:class:`theory.solver.justifications.JustificationEnumerator`.

In a stored memory the audits in force count: blocked nodes are inactive whatever the
evidence (:meth:`SupportStructure.under_audit`), so a conflict set never uses them, and a
nogood naming one is not active.

>>> from theory import SupportStructure
>>> from theory.semantics.conflicts import conflict_sets
>>> g = SupportStructure.build(
...     evidence=["a", "b", "c"], claims=["x", "y"],
...     justifications=[("x", ["a"]), ("x", ["b"]), ("y", ["b", "c"])])
>>> sorted(sorted(s) for s in conflict_sets(g, ["x", "y"]))
[['b', 'c']]
>>> sorted(sorted(s) for s in conflict_sets(g, ["x", "y"], blocked=["b"]))
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

from theory.model.canonical import smallest_first
from theory.model.structure import Kind, Nogood, SupportStructure
from theory.semantics.fixpoint import active_state
from theory.solver.formula import Circuit, compile_support
from theory.solver.justifications import JustificationEnumerator

CONFLICTS_LISTED = 64
"""Conflict sets :func:`contradictions` lists per nogood by default: the conjunction of a few
claims' support functions can have millions of minimal true sets (on an agent memory with
support loops, two claims with tens of thousands of minimal justifications each), and the
diagnoses do not need them (:func:`theory.semantics.diagnosis.diagnoses` encodes such a nogood's
support circuit instead)."""


@dataclass(frozen=True)
class Contradiction:
    """A nogood, whether it is active, and its conflict sets (empty when it is not active);
    ``conflicts_complete`` is false when the listing stopped at its cap (the sets listed are
    then the smallest of those found, and some exist beyond them)."""

    nogood: Nogood
    active: bool
    conflicts: frozenset[frozenset[str]]
    conflicts_complete: bool = True

    @property
    def diagnosable(self) -> bool:
        """False when a conflict set is empty: its nodes hold without any evidence (premises),
        so no invalidation of evidence resolves it."""
        return frozenset() not in self.conflicts


def nogood_circuit(
    structure: SupportStructure, node_sets: Sequence[Iterable[str]]
) -> tuple[Circuit, list[int]]:
    """One support circuit (:func:`theory.solver.formula.compile_support`) with a root per node set
    N: the gate of f_N(X) = AND over n in N of f_n(X), true exactly when all of N is active."""
    wanted = [structure.require(nodes) for nodes in node_sets]
    everything = frozenset().union(*wanted)
    compiled = compile_support(
        structure, sorted(n for n in everything if structure.kind(n) is Kind.CLAIM)
    )
    circuit = compiled.circuit
    roots = []
    for nodes in wanted:
        gates = [compiled.root(c) for c in sorted(nodes) if structure.kind(c) is Kind.CLAIM]
        gates += [circuit.var(e) for e in sorted(nodes) if structure.kind(e) is Kind.EVIDENCE]
        roots.append(circuit.and_(gates))
    return circuit, roots


def conflict_enumerator(
    structure: SupportStructure, nodes: Iterable[str]
) -> JustificationEnumerator:
    """The SAT enumerator of the minimal true sets of AND over ``nodes`` of their support."""
    circuit, (root,) = nogood_circuit(structure, [nodes])
    return JustificationEnumerator(circuit, root)


def conflict_sets(
    structure: SupportStructure,
    nodes: Iterable[str],
    blocked: Iterable[str] = (),
    limit: int | None = None,
) -> frozenset[frozenset[str]]:
    """The minimal evidence sets under which every node of ``nodes`` is active.

    ``blocked`` nodes are forced inactive (the audits in force). Empty when the nodes can
    never be active together; ``{frozenset()}`` when they are active without evidence.
    """
    blocked_ids = structure.require(blocked)
    wanted = structure.require(nodes)
    if wanted & blocked_ids:
        return frozenset()
    enumerator = conflict_enumerator(structure.under_audit(blocked_ids), wanted)
    return frozenset(islice(enumerator, limit))


def contradictions(
    structure: SupportStructure,
    nogoods: Iterable[Nogood] | None = None,
    blocked: Iterable[str] = (),
    progress: Callable[[int], None] | None = None,
    max_listed: int | None = CONFLICTS_LISTED,
) -> tuple[Contradiction, ...]:
    """Every nogood (default: the structure's own) with its activity and conflict sets.

    Activity is read off the least fixpoint; an inactive nogood has no conflict set (the
    support functions are monotone and every present evidence item is already on). Sorted
    by nogood id. ``progress(1)`` is called after each nogood. At most ``max_listed``
    conflict sets are listed per nogood (None: all); the enumeration stops one past them.
    """
    if max_listed is not None and max_listed < 1:
        raise ValueError(f"max_listed must be at least 1 (or None: all), not {max_listed}")
    chosen = structure.nogoods if nogoods is None else tuple(nogoods)
    blocked_ids = structure.require(blocked)
    reduced = structure.under_audit(blocked_ids)
    active = active_state(structure, blocked=blocked_ids)
    result = []
    for nogood in sorted(chosen, key=lambda n: n.id):
        nodes = structure.require(nogood.nodes)
        is_active = nodes <= active
        conflicts: frozenset[frozenset[str]] = frozenset()
        complete = True
        if is_active:
            cap = None if max_listed is None else max_listed + 1
            found = list(islice(conflict_enumerator(reduced, nodes), cap))
            complete = max_listed is None or len(found) <= max_listed
            if not complete:  # the smallest of those found
                found = smallest_first(found)[:max_listed]
            conflicts = frozenset(found)
        result.append(Contradiction(nogood, is_active, conflicts, complete))
        if progress is not None:
            progress(1)
    return tuple(result)
