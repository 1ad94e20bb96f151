"""The active state: the least fixpoint of the justifications (well-founded support).

A node is active iff it is evidence that is not blocked, or a claim with a justification
whose antecedents are all active, *derived in finitely many steps*. Claims that only support
each other in a loop are therefore not active (Doyle's JTMS semantics). This module is the
one place that decides activity; everything else (revision rules, formulas, the production
engine) calls it.

The algorithm is the linear-time counter propagation of Dowling and Gallier: each
justification counts its antecedents not yet active and fires when the count reaches zero.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Iterable
from typing import Any

from theory.model.index import IndexView, all_arrays, array_view, gathered_rows, index_of
from theory.model.structure import SupportStructure


def active_numbers(
    index: IndexView,
    blocked: Collection[int] = (),
    evidence_off: Collection[int] = (),
) -> bytearray:
    """Least fixpoint over node numbers; returns a 0/1 flag per node.

    ``blocked`` nodes (evidence or claims) are forced inactive; ``evidence_off`` evidence
    is simply absent. Both are sets of node numbers.
    """
    size = index.size
    active = bytearray(size)
    forbidden = bytearray(size)
    for n in blocked:
        forbidden[n] = 1
    for n in evidence_off:
        forbidden[n] = 1
    missing = [len(a) for a in index.just_antecedents]
    just_claim = index.just_claim
    watchers = index.watchers
    stack: list[int] = []
    is_evidence = index.is_evidence
    for n in range(size):
        if is_evidence[n] and not forbidden[n]:
            active[n] = 1
            stack.append(n)
    for j, count in enumerate(missing):
        if count == 0:
            c = just_claim[j]
            if not active[c] and not forbidden[c]:
                active[c] = 1
                stack.append(c)
    while stack:
        n = stack.pop()
        for j in watchers[n]:
            missing[j] -= 1
            if missing[j] == 0:
                c = just_claim[j]
                if not active[c] and not forbidden[c]:
                    active[c] = 1
                    stack.append(c)
    return active


_BASE: "weakref.WeakKeyDictionary[SupportStructure, bytes]" = weakref.WeakKeyDictionary()


def base_active(structure: SupportStructure) -> bytes:
    """Flags of the state before any audit: all evidence present, nothing blocked.

    Cached per structure (structures are immutable), so the rules, ``revise`` and the
    checker share one fixpoint computation instead of recomputing it per call.
    """
    flags = _BASE.get(structure)
    if flags is None:
        flags = bytes(active_numbers(index_of(structure)))
        _BASE[structure] = flags
    return flags


def active_state(
    structure: SupportStructure,
    blocked: Iterable[str] = (),
    evidence: Iterable[str] | None = None,
) -> frozenset[str]:
    """The active node ids: the least fixpoint (well-founded support, docs/design.md section 2).

    Parameters
    ----------
    structure : SupportStructure
    blocked : iterable of str
        Ids forced inactive (an audit).
    evidence : iterable of str, optional
        The evidence ids that are present (the rest is absent); default all.

    Unknown ids raise :class:`~theory.model.errors.GraphError`.

    Examples
    --------
    A support loop does not keep itself alive:

    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["p"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"])])
    >>> sorted(active_state(g))
    ['A', 'B', 'p']
    >>> sorted(active_state(g, blocked=["p"]))
    []
    """
    index = index_of(structure)
    blocked_ids = structure.require(blocked)
    if not blocked_ids and evidence is None:
        return frozenset(index.ids[n] for n, flag in enumerate(base_active(structure)) if flag)
    off: list[int] = []
    if evidence is not None:
        present = structure.require(evidence)
        off = [index.number[e] for e in structure.evidence - present]
    flags = active_numbers(index, index.numbers(blocked_ids), off)
    ids = index.ids
    return frozenset(ids[n] for n, flag in enumerate(flags) if flag)


ARRAY_COUNTS_FROM = 64
"""Region claims from which :func:`rederive` counts in array operations when the index
holds flat arrays (below, a Python loop over a few slices is cheaper than the arrays' fixed
cost); the counters then go in a dict sized by the region, unless it is a large one."""


def rederive(index: IndexView, active: bytearray, region: Iterable[int]) -> list[int]:
    """Bounded re-derivation: which nodes of ``region`` the rest of ``active`` supports.

    Precondition: every active node outside ``region`` is well-founded without the region
    (for instance, ``region`` is every node whose derivation passed through a retracted
    node). Region nodes must be flagged inactive in ``active`` on entry, and nodes that
    are forced inactive (audited) must not be in the region. Returns the region
    claims that are re-derived (flagging them active in place): the least fixpoint with the
    outside as base, so a loop inside the region never keeps itself alive. Cost is linear
    in the region and its justifications, independent of the rest of the graph; a region
    of at least an eighth of the index (an import) counts in flat lists over the index
    instead of a dict (same counting, same result and order).
    """
    region = list(region)
    return _rederive(index, active, region, flat_counts=8 * len(region) >= len(active))


def flat_justification_rows(index: IndexView) -> tuple[Any, Any, Any, Any] | None:
    """The justifications of each node and the antecedents of each justification as flat
    ``array`` rows (offsets, items), when the index holds them so (a memory's index built
    by an import into a new memory, or opened from a checkpoint); else None."""
    rows = getattr(index.justs_of, "rows", None)
    compressed = getattr(index.just_antecedents, "compressed", None)
    if rows is None or compressed is None:
        return None
    justs, antecedents = rows(), compressed()
    if justs is None or not all_arrays(*justs, *antecedents):
        return None
    return (*justs, *antecedents)


def _counts_of_arrays(
    active: bytearray,
    region: list[int],
    justs_offsets: Any,
    justs_flat: Any,
    offsets: Any,
    flat: Any,
    count: int | None,
) -> tuple[list[int] | dict[int, int], list[int]]:
    """The counting of :func:`_rederive` in array operations: the justifications of the
    region's claims in order, and for each its antecedents not flagged in ``active`` (a
    list of ``count`` counters, zero for every other justification; with ``count`` None, a
    dict of the region's justifications only, sized by the region)."""
    import numpy as np

    flags = array_view(active)
    counted, _ = gathered_rows(
        array_view(justs_offsets), array_view(justs_flat), np.asarray(region, dtype=np.int64)
    )
    counted = counted.astype(np.int64)
    antecedents, lengths = gathered_rows(array_view(offsets), array_view(flat), counted)
    summed = np.zeros(len(antecedents) + 1, dtype=np.int64)
    np.cumsum(flags[antecedents], out=summed[1:])
    ends = np.cumsum(lengths)
    left = lengths - (summed[ends] - summed[ends - lengths])
    del flags  # the bytearray may grow again once no view holds its buffer
    justs = counted.tolist()
    if count is None:
        return dict(zip(justs, left.tolist())), justs
    missing = np.zeros(count, dtype=np.int64)
    missing[counted] = left
    return missing.tolist(), justs


def _rederive(
    index: IndexView, active: bytearray, region: list[int], flat_counts: bool
) -> list[int]:
    """The counting of :func:`rederive`: per justification of a region claim, its inactive
    antecedents; claims whose count reaches zero are derived, and each derived claim counts
    down the justifications it is an antecedent of. ``flat_counts``: the counters in one list
    indexed by justification (a large region: an import), else in a dict sized by the region;
    the same counting either way, so the same result and order."""
    just_antecedents = index.just_antecedents
    just_claim = index.just_claim
    justs_of = index.justs_of
    missing: dict[int, int] | list[int] = [0] * len(just_claim) if flat_counts else {}
    counted: list[int] = []  # the region claims' justifications, in counting order
    compressed = getattr(just_antecedents, "compressed", None)
    many = getattr(justs_of, "many", None)
    rows = (
        flat_justification_rows(index) if flat_counts or len(region) >= ARRAY_COUNTS_FROM else None
    )
    if rows is not None:  # flat arrays (an import, or opened from a checkpoint): in numpy
        missing, counted = _counts_of_arrays(
            active, region, *rows, len(just_claim) if flat_counts else None
        )
    elif compressed is not None and many is not None:  # a growing index: slices, no tuples
        offsets, flat = compressed()
        is_active = active.__getitem__
        for justs in many(region):
            for j in justs:
                row = flat[offsets[j] : offsets[j + 1]]
                missing[j] = len(row) - sum(map(is_active, row))
                counted.append(j)
    else:
        for n in region:
            for j in justs_of[n]:
                antecedents = just_antecedents[j]
                missing[j] = len(antecedents) - sum([1 for a in antecedents if active[a]])
                counted.append(j)
    stack: list[int] = []
    for j in counted:
        c = just_claim[j]
        if missing[j] == 0 and not active[c]:
            active[c] = 1
            stack.append(c)
    derived = list(stack)
    left_of = missing.get if isinstance(missing, dict) else missing.__getitem__
    watchers = index.watchers
    rows = getattr(watchers, "rows", None)
    compressed_rows = rows() if rows is not None else None
    if compressed_rows is not None:  # a growing index's compressed adjacency: slices
        w_offsets, w_flat = compressed_rows
    while stack:
        n = stack.pop()
        for j in (
            watchers[n] if compressed_rows is None else w_flat[w_offsets[n] : w_offsets[n + 1]]
        ):
            left = left_of(j)
            if left:  # None or 0: not a region claim's, or complete already
                missing[j] = left - 1
                if left == 1:
                    c = just_claim[j]  # a region claim: only theirs are counted
                    if not active[c]:
                        active[c] = 1
                        stack.append(c)
                        derived.append(c)
    return derived
