"""The least fixpoint of one claim's support cone, compiled (:mod:`theory.solver.kernels`):
the exact check a model search calls on every candidate evidence set.

:class:`ConeOracle` answers, for a set X of evidence, whether the claim holds in the least
fixpoint of X (the definition of :mod:`theory.semantics.fixpoint`, restricted to the cone: counters
per justification, a stack of held nodes, stopping as soon as the claim is held), and turns
the answer into the strongest clause a search can learn from it, in the same compiled call:

Justifications that contain another justification of the same claim are left out (they
never change the fixpoint, :func:`theory.solver.label_kernel.cone`).

- X true: shrink it greedily to a minimal true set M (drop each member whose removal keeps
  the claim held; the function is monotone, so the result is minimal). "Not all of M"
  blocks M and its supersets.
- X false: grow it greedily to a maximal false set Y (add each evidence item whose addition
  keeps the claim out). Every true set has a member outside Y: "some evidence outside Y".

The one-search enumerator of :mod:`theory.solver.justifications` is built on it; the tests check
it against :func:`theory.semantics.fixpoint.active_state` and brute force.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

import theory.solver.kernels as kernels
from theory.model.index import SupportIndex
from theory.solver.label_kernel import flat_index


class ConeOracle:
    """The support cone of node ``root`` laid out for :meth:`examine`.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e", "f", "g"], ["a", "b"],
    ...                            [("a", ["b"]), ("b", ["a"]), ("b", ["e", "f"]), ("a", ["g"])])
    >>> index = index_of(g)
    >>> oracle = ConeOracle(index, index.number["a"])
    >>> oracle.holds(index.numbers(["e", "f"])), oracle.holds(index.numbers(["e"]))
    (True, False)
    >>> true, found = oracle.examine(index.numbers(["e", "f", "g"]))
    >>> true, sorted(index.ids[n] for n in found)   # shrunk: minimal, {g} would be too
    (True, ['e', 'f'])
    >>> true, outside = oracle.examine(index.numbers(["e"]))
    >>> true, sorted(index.ids[n] for n in outside)  # {e} is maximal false: f or g is needed
    (False, ['f', 'g'])
    """

    def __init__(self, index: SupportIndex, root: int):
        flat = flat_index(index)
        (
            self.evidence,
            self.position,
            self.ev_local,
            self.premises,
            self.w_start,
            self.w_just,
            self.just_claim,
            self.just_size,
            self.nodes,
            self.kept,
            *shape,
        ) = kernels.prepare(
            int(root), flat.is_evidence, flat.just_start, flat.justs, flat.ante_start, flat.antes
        )
        self.root = 0
        """The root's local node (the cone lists it first)."""
        self.shape: tuple[np.ndarray, ...] = tuple(shape)
        """``(a_start, a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic)``: kept
        justification k's antecedents are local nodes ``a_local[a_start[k]:a_start[k + 1]]``,
        local node x's kept justifications ``kept_start[x]:kept_start[x + 1]``, and the cone's
        strongly connected components, antecedents first, with whether each is cyclic."""
        self.kernel = kernels.Cone(
            self.position,
            self.ev_local,
            self.premises,
            self.w_start,
            self.w_just,
            self.just_claim,
            self.just_size,
            *self.shape,
        )
        """The compiled least fixpoint over these arrays (its scratch buffers included)."""

    @property
    def local_size(self) -> int:
        """Nodes in the cone."""
        return int(self.w_start.shape[0] - 1)

    def holds(self, present: Iterable[int]) -> bool:
        """Whether the root is in the least fixpoint when exactly the evidence ``present``
        (node numbers; evidence outside the cone is ignored) is present."""
        return bool(self.kernel.holds(np.fromiter(present, dtype=np.int64)))

    def examine(self, present: Iterable[int]) -> tuple[bool, np.ndarray]:
        """``(True, M)``: the root holds under ``present``, and M (node numbers) is a minimal
        true subset of it; or ``(False, O)``: it does not, and O is the evidence of the cone
        outside a maximal false superset of it (some member of O is in every true set)."""
        kind, result = self.kernel.examine(np.fromiter(present, dtype=np.int64))
        return bool(kind), self.evidence[result]

    def unfounded(self, present: Iterable[int]) -> list[tuple[list[int], list[int]]]:
        """For evidence under which the root does not hold: the loops of the claims U that
        could still hold in a supported model (the greatest set of claims each with a
        justification whose antecedents are present or in the set) but not in the least
        fixpoint. One ``(members, external)`` per strongly connected component of U through
        the justifications inside U that is a loop: its claims (node numbers) and the
        justifications of its members with no antecedent in it (justification numbers).
        Every model of the least fixpoint holding a member holds one of those justifications
        (the loop formula); a model holding the root under ``present`` violates at least one."""
        loops = self.unfounded_local(present)
        return [
            (self.nodes[members].tolist(), self.kept[external].tolist())
            for members, external in loops
        ]

    def unfounded_local(self, present: Iterable[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`unfounded` in the cone's own numbering: local node and kept-justification
        indices (``nodes[x]``, ``kept[k]`` give the index's numbers)."""
        members, member_start, external, ext_start = self.kernel.unfounded_loops(
            np.fromiter(present, dtype=np.int64)
        )
        return [
            (
                members[member_start[i] : member_start[i + 1]],
                external[ext_start[i] : ext_start[i + 1]],
            )
            for i in range(len(member_start) - 1)
        ]


__all__ = ["ConeOracle"]
