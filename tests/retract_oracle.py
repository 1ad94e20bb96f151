"""The test oracle of the audit planner (:mod:`jtms.engine.retract_kernel`, the one
implementation the memory runs): the same rule transcribed in Python, from the definitions of
:meth:`jtms.engine.incremental.SupportState.plan_retract`. Never chosen at run time;
``tests/jtms/memory/test_retract_kernel.py`` compares whole plans, node for node and in order."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from heapq import heapify, heappop, heappush
from typing import Any

from jtms.engine.incremental import Ints, Plan, SupportState
from theory.model.index import (
    all_arrays,
    array_view,
    distinct_sorted,
    first_occurrences,
    gathered_rows,
)
from theory.semantics.fixpoint import rederive

SMALL_LEVEL = 64
"""Claims of one rank below which :func:`_retract_by_ranks` visits claim by claim rather
than in array operations (the plan is the same either way)."""


def reference_plan(state: SupportState, roots: tuple[int, ...]) -> Plan:
    """The plan of :meth:`SupportState.plan_retract` for distinct ``roots``, in Python: a rank
    at a time in array operations on flat rows (:func:`_retract_by_ranks`), claim by claim
    otherwise (:func:`_retract_visit`, the same statuses, some pointers may differ)."""
    index = state.index
    active, rank = state.active, state.rank
    justs_of, watchers, just_claim = index.justs_of, index.watchers, index.just_claim
    offsets, flat = index.just_antecedents.offsets, index.just_antecedents.flat
    root_set = set(roots)
    region = state.support_region(roots)
    # usable[a]: an antecedent a new justification may rest on now: active outside Z, or
    # switched already (one byte a node: the test of each antecedent is an index, and of
    # a whole justification one pass in C)
    usable = bytearray(active)
    for n in region:
        usable[n] = 0
    # compressed rows (a memory opened from a checkpoint or built by an import): slices
    # instead of a method call per node, and whole ranks at a time in array operations
    j_rows, w_rows = justs_of.rows(), watchers.rows()
    if (
        j_rows is not None
        and w_rows is not None
        and all_arrays(*j_rows, *w_rows, offsets, flat, just_claim)
    ):
        out, switched, moved, visited = _retract_by_ranks(
            roots, state, usable, j_rows, w_rows, (offsets, flat)
        )
    else:
        out, switched, visited = _retract_visit(state, roots, usable)
        moved = _switched_ranks(switched, rank, offsets, flat)
    after = bytearray(active)
    for n in out:
        after[n] = 0
    derived = rederive(index, after, [n for n in out if n not in root_set])
    # each rank the plan assigns is 1 + the largest of its pointer's antecedents' after
    # the plan: a switched claim's first (``moved``), then the re-derived ones, which may
    # rest on switched claims. Claims that keep their pointer keep their rank
    # (docs/memory.md)
    supports, ranks = state._supports_in_order(after, derived, moved)
    supports.update(switched)
    ranks.update(moved)
    deactivated = tuple(n for n in out if not after[n])
    return Plan(
        blocked=roots,
        region=len(region),
        visited=visited,
        deactivated=deactivated,
        supports=supports,
        ranks=ranks,
    )


def _retract_visit(
    state: SupportState, roots: tuple[int, ...], usable: bytearray
) -> tuple[list[int], dict[int, int], int]:
    """Phase 1 of :meth:`SupportState.plan_retract` claim by claim: the claims visited, lowest rank
    first, that go out, those that switch (claim: justification, in the order of
    switching) and how many were visited. ``usable`` is updated as claims switch."""
    index = state.index
    active, support, rank = state.active, state.support, state.rank
    justs_of = index.justs_of
    offsets, flat = index.just_antecedents.offsets, index.just_antecedents.flat
    can_use = usable.__getitem__
    root_set = set(roots)
    heap = [(rank[r], r) for r in roots if active[r]]
    heapify(heap)
    queued = {r for _, r in heap}
    out: list[int] = []
    switched: dict[int, int] = {}
    visited = 0
    while heap:
        c = heappop(heap)[1]
        visited += 1
        if c not in root_set:
            j = _first_usable(justs_of[c], support[c], offsets, flat, can_use)
            if j is not None:
                switched[c] = j
                usable[c] = 1
                continue
        out.append(c)
        for d in state.dependents_of(c):
            if d not in queued:
                queued.add(d)
                heappush(heap, (rank[d], d))
    return out, switched, visited


def _first_usable(
    justs: Iterable[int],
    current: int,
    offsets: Sequence[int],
    flat: Sequence[int],
    can_use: Callable[[int], int],
) -> int | None:
    """The first of ``justs`` other than the pointer ``current`` whose antecedents are all
    usable (phase 1 of :meth:`SupportState.plan_retract`), or None."""
    for j in justs:
        if j != current and all(map(can_use, flat[offsets[j] : offsets[j + 1]])):
            return j
    return None


def _rank_on(
    j: int, offsets: Sequence[int], flat: Sequence[int], rank_of: Callable[[int], int]
) -> int:
    """The rank a claim takes on justification ``j``: 1 + the largest rank of its antecedents
    (``rank_of``, ranks after the switches before it; 1 for no antecedent)."""
    return 1 + max(map(rank_of, flat[offsets[j] : offsets[j + 1]]), default=0)


def _switched_ranks(
    switched: Mapping[int, int], rank: Sequence[int], offsets: Sequence[int], flat: Sequence[int]
) -> dict[int, int]:
    """The new rank of each switched claim (``switched``: claim -> justification, in the
    order of switching, so its antecedents are outside ``Z`` or switched before it)."""
    moved: dict[int, int] = {}
    for c, j in switched.items():
        moved[c] = _rank_on(j, offsets, flat, lambda a: moved.get(a, rank[a]))
    return moved


def _retract_by_ranks(
    roots: tuple[int, ...],
    state: SupportState,
    usable: bytearray,
    justs: tuple[Ints, Ints],
    watchers: tuple[Ints, Ints],
    antecedents: tuple[Ints, Ints],
) -> tuple[list[int], dict[int, int], dict[int, int], int]:
    """Phase 1 of :meth:`SupportState.plan_retract` over compressed rows, a rank at a time
    (:func:`_retract_visit` claim by claim): the claims queued at the lowest
    rank pending are visited together. Each non-root one switches to its first
    justification (other than its pointer) whose antecedents are all usable *before* this
    rank, so a switch rests on claims outside ``Z`` or switched at a lower rank (a
    well-founded order, as claim by claim); the others go out and queue their pointer
    dependents. A claim that a same-rank switch would have let switch goes out instead and
    phase 2 re-derives it: the plan's statuses are the same, some pointers differ.

    An audit's region spans a few ranks (7 to 10 in ``bench_memory``'s graphs), so this is
    a few dozen array operations where the visit claim by claim costs microseconds a claim;
    a rank of fewer than :data:`SMALL_LEVEL` claims (a chain) is visited claim by claim.
    """
    import numpy as np

    index = state.index
    active, support, rank, pointer = state.active, state.support, state.rank, state.pointer
    j_offsets, j_flat = justs
    w_offsets, w_flat = watchers
    a_offsets, a_flat = antecedents
    just_claim = index.just_claim
    j_offs, j_items, w_offs, w_items, a_offs, a_items, claim_of = map(
        array_view, (j_offsets, j_flat, w_offsets, w_flat, a_offsets, a_flat, just_claim)
    )
    support_np, rank_np, pointer_np, usable_np = map(array_view, (support, rank, pointer, usable))
    size = len(active)
    queued = bytearray(size)
    queued_np = array_view(queued)
    is_root = bytearray(size)
    pending: dict[int, list[int]] = {}
    for r in roots:
        is_root[r] = 1
        if active[r] and not queued[r]:
            queued[r] = 1
            pending.setdefault(rank[r], []).append(r)
    levels = list(pending)
    heapify(levels)
    out: list[int] = []
    switched: dict[int, int] = {}
    moved: dict[int, int] = {}  # the new rank of each switched claim
    new_rank = array("q", rank)  # ranks as this plan leaves them (a copy, ~1 MB at 100k)
    new_rank_np = array_view(new_rank)
    visited = 0
    can_use = usable.__getitem__

    def queue(claims: Any) -> None:
        """Queue the claims of an array of distinct claims not queued yet, by rank."""
        queued_np[claims] = 1
        ranks_of = rank_np[claims]
        for value in distinct_sorted(ranks_of).tolist():
            found = claims[ranks_of == value].tolist()
            waiting = pending.get(value)
            if waiting is None:
                pending[value] = found
                heappush(levels, value)
            else:
                waiting += found

    while levels:
        level = sorted(pending.pop(heappop(levels)))
        visited += len(level)
        if len(level) < SMALL_LEVEL:
            turned = []
            for c in level:
                if not is_root[c]:
                    justs_here = j_flat[j_offsets[c] : j_offsets[c + 1]]
                    j = _first_usable(justs_here, support[c], a_offsets, a_flat, can_use)
                    if j is not None:
                        turned.append((c, j))
            for c, j in turned:  # usable from the next rank on
                moved[c] = new_rank[c] = _rank_on(j, a_offsets, a_flat, new_rank.__getitem__)
                switched[c] = j
                usable[c] = 1
            going = [c for c in level if not usable[c]]  # level claims are in Z: 0 unless turned
            out += going
            dependents = {d for c in going for d in state.dependents_of(c) if not queued[d]}
            if dependents:
                queue(np.array(sorted(dependents), dtype=np.int64))
            continue
        claims = np.array(level, dtype=np.int64)
        roots_here = array_view(is_root)[claims] != 0
        candidates = claims[~roots_here]
        justs_found, counts = gathered_rows(j_offs, j_items, candidates)
        owner = np.repeat(candidates, counts)
        other = justs_found != support_np[owner]
        justs_found, owner = justs_found[other], owner[other]
        ants, sizes = gathered_rows(a_offs, a_items, justs_found)
        unusable = np.repeat(np.arange(len(justs_found)), sizes)[usable_np[ants] == 0]
        fine = np.bincount(unusable, minlength=len(justs_found)) == 0
        justs_found, owner = justs_found[fine], owner[fine]
        first = first_occurrences(owner, size)  # each claim's first usable justification
        turned_claims, turned_justs = owner[first], justs_found[first]
        if len(turned_claims):
            # 1 + the largest rank of the antecedents (outside Z, or switched below)
            ants, sizes = gathered_rows(a_offs, a_items, turned_justs)
            # (a 0 after the last row: an empty justification may come last; it ranks 1)
            below = np.append(new_rank_np[ants], 0)
            levels_of = np.maximum.reduceat(below, np.cumsum(sizes) - sizes) + 1
            levels_of[sizes == 0] = 1
            new_rank_np[turned_claims] = levels_of
            moved.update(zip(turned_claims.tolist(), levels_of.tolist()))
            switched.update(zip(turned_claims.tolist(), turned_justs.tolist()))
            usable_np[turned_claims] = 1
        going_np = claims[usable_np[claims] == 0]  # level claims are in Z: 0 unless turned
        out += going_np.tolist()
        using, _ = gathered_rows(w_offs, w_items, going_np)
        dependents_np = claim_of[using[pointer_np[using] != 0]]
        dependents_np = distinct_sorted(dependents_np[queued_np[dependents_np] == 0])
        if len(dependents_np):
            queue(dependents_np.astype(np.int64))
    return out, switched, moved, visited
