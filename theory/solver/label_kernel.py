"""The label algebra, compiled (:mod:`theory.solver.kernels`) on fixed-width bitsets.

Same definitions as the test oracle :mod:`theory.testing.labels`: the label of
evidence e is {{e}}; the label of a claim is the antichain of minimal sets of the union,
over its justifications, of the pairwise-union product of its antecedents' labels; a cyclic
component grows from empty labels to its least fixpoint, so support loops never justify
themselves. What differs is only how it runs:

- one compiled call per query does everything: the support cone, the strongly connected
  components, the labels; Python only flattens the index once (:func:`flat_index`, cached)
  and names the result;
- sets are rows of ``ceil(E / 64)`` 64-bit words over the E evidence of the cone;
- a cyclic component is solved semi-naively: each set a member gains is pushed once through
  the justifications that watch it (the reference re-evaluates whole members), smallest
  sets first, so that only sets of the least fixpoint's labels are pushed on;
- a justification of a claim whose antecedents include all of another justification's of
  the same claim is skipped: it can hold only when the smaller one holds, so it adds no
  minimal set (``root = y OR (y AND X)`` never computes the label of X);
- besides the label-size budget of the reference, a work budget (products formed plus
  subset tests) bounds the time a blow-up can take before the caller falls back to SAT.

The Python algebra of :mod:`theory.testing.labels` stays the cross-check
(``tests/theory/test_label_kernel.py``), with SAT and brute force; it never runs in production.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

import theory.solver.kernels as kernels
from theory.model.index import SupportIndex
from theory.solver.options import DEFAULTS, SolverOptions

UNLIMITED = 1 << 62
"""A budget no query reaches."""

OK, OVER_SETS, OVER_WORK = 0, 1, 2
"""Status of a target: its label, a label over the set budget on its way, or the work
budget spent before it was reached."""


@dataclass(frozen=True, eq=False)
class FlatIndex:
    """A :class:`~theory.model.index.SupportIndex` as flat arrays (compressed rows), for the kernel."""

    is_evidence: np.ndarray  # uint8 [size]
    just_start: (
        np.ndarray
    )  # int64 [size + 1]: node n's justifications are justs[just_start[n]:just_start[n + 1]]
    justs: np.ndarray  # int64: justification numbers grouped by claim
    ante_start: (
        np.ndarray
    )  # int64 [J + 1]: justification j's antecedents are antes[ante_start[j]:ante_start[j + 1]]
    antes: np.ndarray  # int64: antecedent node numbers, sorted within a justification


_FLAT: "weakref.WeakKeyDictionary[SupportIndex, FlatIndex]" = weakref.WeakKeyDictionary()


def flat_index(index: SupportIndex) -> FlatIndex:
    """The (cached) flat arrays of ``index``."""
    cached = _FLAT.get(index)
    if cached is None:
        size = index.size
        per_node = np.fromiter(map(len, index.justs_of), dtype=np.int64, count=size)
        just_start = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(per_node, out=just_start[1:])
        justs = np.fromiter(
            chain.from_iterable(index.justs_of), dtype=np.int64, count=int(just_start[-1])
        )
        antecedents = index.just_antecedents
        per_just = np.fromiter(map(len, antecedents), dtype=np.int64, count=len(antecedents))
        ante_start = np.zeros(len(antecedents) + 1, dtype=np.int64)
        np.cumsum(per_just, out=ante_start[1:])
        antes = np.fromiter(
            chain.from_iterable(antecedents), dtype=np.int64, count=int(ante_start[-1])
        )
        cached = FlatIndex(
            np.frombuffer(bytes(index.is_evidence), dtype=np.uint8),
            just_start,
            justs,
            ante_start,
            antes,
        )
        _FLAT[index] = cached
    return cached


@dataclass(frozen=True)
class Labels:
    """Labels of some targets: ``sets(k)`` is target k's label as evidence node numbers,
    or None when ``status[k]`` is not :data:`OK`."""

    status: np.ndarray  # per target
    start: np.ndarray  # per target + 1: its rows in `rows`
    rows: np.ndarray  # uint64 [sets, words]
    bit_node: np.ndarray  # bit position -> evidence node number
    work: int  # products formed plus subset tests

    def sets(self, k: int) -> list[list[int]] | None:
        if self.status[k] != OK:
            return None
        bit_node = self.bit_node
        result = []
        for row in self.rows[self.start[k] : self.start[k + 1]]:
            members = []
            for w, word in enumerate(row.tolist()):
                while word:
                    low = word & -word
                    members.append(int(bit_node[64 * w + low.bit_length() - 1]))
                    word ^= low
            result.append(members)
        return result


def labels(
    index: SupportIndex,
    targets: Sequence[int],
    max_sets: int = UNLIMITED,
    max_work: int = UNLIMITED,
    options: SolverOptions = DEFAULTS,
    max_formed: int | None = None,
) -> Labels:
    """The labels of ``targets`` (node numbers) in one compiled pass over their cones.

    A component whose label exceeds ``max_sets`` (or whose product would form more than
    ``max_formed`` sets, by default 4 x ``max_sets``), and every claim above it, gets
    :data:`OVER_SETS`; when the
    work exceeds ``max_work`` every target not reached gets :data:`OVER_WORK`. A cone with
    a support loop gets less work (``options.loop_work_per_node``,
    ``options.multiplying_loop_share``) when ``max_work`` is bounded.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e", "f"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("b", ["e"]),
    ...                                                     ("a", ["e", "f"])])
    >>> index = index_of(g)
    >>> found = labels(index, [index.number["a"]])
    >>> [sorted(index.ids[n] for n in s) for s in found.sets(0)]
    [['e']]
    """
    flat = flat_index(index)
    status, start, rows, bit_node, work = kernels.run_labels(
        np.asarray(targets, dtype=np.int64),
        flat.is_evidence,
        flat.just_start,
        flat.justs,
        flat.ante_start,
        flat.antes,
        int(min(max_sets, UNLIMITED)),
        int(min(max_work, UNLIMITED)),
        int(min(4 * max_sets if max_formed is None else max_formed, UNLIMITED)),
        options.loop_work_per_node,
        options.multiplying_loop_share,
    )
    return Labels(status, start, rows, bit_node, int(work))


def sets_of_ids(index: SupportIndex, found: Labels, k: int) -> frozenset[frozenset[str]] | None:
    """Target k's label as sets of ids, or None when it was not computed."""
    sets = found.sets(k)
    if sets is None:
        return None
    ids = index.ids
    return frozenset(frozenset(ids[n] for n in s) for s in sets)


__all__ = [
    "OK",
    "OVER_SETS",
    "OVER_WORK",
    "UNLIMITED",
    "FlatIndex",
    "Labels",
    "flat_index",
    "labels",
    "sets_of_ids",
]
