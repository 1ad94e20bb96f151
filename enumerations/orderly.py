"""One memory graph per isomorphism class, generated directly (orderly generation).

The labelled graphs of a family ``(E, C, J)`` (:class:`enumerations.graphs.GraphFamily`) are
the sets of at most ``J`` candidate justifications, a candidate being its index in
``family.candidates()``. The group ``G = S_E x S_C`` (permute the evidence, permute the
claims) acts on candidates, hence on graphs; two graphs are isomorphic iff one is the image
of the other, and every verdict of the checker and of the brute force is invariant under it.

**Canonical form.** Write a graph of ``m`` justifications as its candidate indices in
increasing order, ``s1 < s2 < ... < sm``, and compare graphs of one size lexicographically.
A graph is *canonical* iff it is the least of its orbit: no ``g`` in ``G`` maps it to a
lexicographically smaller graph. Each class has exactly one canonical member.

**Orderly generation (Read, Faradzev).** If ``S`` is canonical, so is ``S`` without its
largest element ``sm``. Proof: say some ``g`` maps ``T = S - {sm}`` to a smaller graph
``T'``, first differing at position ``i`` with ``t'_i < s_i``. The ``i`` smallest elements of
``g(S) = T' + {g(sm)}`` are element by element at most those of ``T'``, so ``g(S)`` is smaller
than ``S`` at or before position ``i``, and ``S`` is not canonical. Hence every canonical graph
of size ``m`` arises exactly once as a canonical graph of size ``m - 1`` extended by one
candidate above its largest, and the generator keeps the extensions that are canonical:
level by level, no labelled graph is listed and nothing but the classes of the level below
is stored. The work per class is one test over the ``|G|`` permutations (36 for 3 + 3 nodes,
576 for 4 + 4), in a compiled loop that gives up on a child at the first permutation that
makes it smaller. The same test counts the automorphisms (the ``g`` that fix the graph), so
each class comes with its size ``|G| / |Aut|``, the number of labelled graphs in it.

Checked against the labelled walk (:func:`enumerations.graphs.iso_classes`: same classes,
same sizes) on small families, and against Burnside's count (:mod:`enumerations.burnside`,
a separate program) on every family it is run on.
"""

from __future__ import annotations

import numpy as np

from enumerations._orderly import extend_rows  # the compiled loop (built at install)

# the permutation maps of a family: row g is the candidate index each candidate goes to
Maps = np.ndarray


def extend(parents: np.ndarray, maps: Maps) -> tuple[np.ndarray, np.ndarray]:
    """The canonical children of canonical ``parents`` (rows of sorted candidate indices,
    all of one size): their rows (one longer, sorted) and automorphism counts."""
    parents = np.ascontiguousarray(parents, dtype=np.int32)
    depth = parents.shape[1]
    K = maps.shape[1]
    last = parents[:, depth - 1] if depth else np.full(len(parents), -1, dtype=np.int32)
    capacity = int((K - 1 - last.astype(np.int64)).sum())
    rows = np.empty((capacity, depth + 1), dtype=np.int32)
    aut = np.empty(capacity, dtype=np.int64)
    count = extend_rows(parents, np.ascontiguousarray(maps, dtype=np.int32), rows, aut)
    return rows[:count], aut[:count]


def class_sizes(automorphisms: np.ndarray, order: int) -> np.ndarray:
    """``|G| / |Aut|`` per class: the labelled graphs in it. The automorphisms of a graph
    form a subgroup, so their number divides ``|G|`` (Lagrange); a count that does not is a
    broken canonical test (a permutation skipped, say), reported as an AssertionError
    rather than rounded away."""
    automorphisms = np.asarray(automorphisms, dtype=np.int64)
    if np.any(automorphisms < 1) or np.any(order % np.maximum(automorphisms, 1)):
        raise AssertionError(
            "an automorphism count does not divide the group order: "
            "the canonical test is not over a group"
        )
    return order // automorphisms


def levels(maps: Maps, max_justifications: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The canonical graphs of every size 0 .. J: per size, (rows, automorphism counts)."""
    G = maps.shape[0]
    current = np.zeros((1, 0), dtype=np.int32)
    result = [(current, np.array([G], dtype=np.int64))]  # the empty graph: fixed by all of G
    for _ in range(max_justifications):
        current, aut = extend(current, maps)
        result.append((current, aut))
        if not len(current):
            break
    while len(result) <= max_justifications:
        result.append((np.zeros((0, len(result)), dtype=np.int32), np.zeros(0, dtype=np.int64)))
    return result


def is_canonical(row: np.ndarray, maps: Maps) -> bool:
    """Whether the sorted row is the lexicographically least graph of its orbit (plain
    numpy, for tests and spot checks)."""
    images = np.sort(maps[:, np.asarray(row, dtype=np.int64)], axis=1)
    return bool(min(tuple(r) for r in images.tolist()) == tuple(int(x) for x in row))


__all__ = ["class_sizes", "extend", "is_canonical", "levels"]
