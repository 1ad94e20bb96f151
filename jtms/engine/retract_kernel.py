"""The retraction plan of :meth:`jtms.engine.incremental.SupportState.plan_retract`, compiled (numba).

Same rule, same plan, node for node: the support region Z of the roots, then phase 1 a rank
at a time (each claim of the lowest pending rank that lost its pointer switches to its first
other justification whose antecedents were usable before this rank, or goes out and queues
its pointer dependents), then phase 2, the counting re-derivation of
:func:`theory.semantics.fixpoint.rederive` from the rest of the memory, then a pointer for each
re-derived claim consistent with the derivation order (:meth:`SupportState._supports_in_order`).
What differs is only how it runs: one compiled call over the flat rows of the index and the
state's flat arrays, one byte of marks per node, no Python object per node visited. The
Python rule stays the reference (``tests/jtms/memory/test_retract_kernel.py`` compares whole plans).

Loading numba and this module costs about half a second, which a one-shot command does not
repay: :mod:`jtms.engine.incremental` loads it once a process has spent
:data:`jtms.engine.incremental.PLANNER_AFTER_S` planning in Python (or when asked to:
:func:`jtms.engine.incremental.load_compiled_planner`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from theory.model.index import array_view

IN_Z, QUEUED, ROOT, TURNED, OUT, DERIVED = 1, 2, 4, 8, 16, 32
"""Bits of the per-node marks: in the support region; queued in phase 1; a root; switched
to another justification (usable from the next rank on); out after phase 1; re-derived."""

NO_RANK = 1 << 62


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _push(heap: Any, count: int, key: int) -> int:
    i = count
    heap[i] = key
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = key
    return count + 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _pop(heap: Any, count: int) -> int:
    """Remove the smallest key (the caller reads ``heap[0]`` first); the new count."""
    count -= 1
    last = heap[count]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= count:
            break
        if child + 1 < count and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[i] = heap[child]
        i = child
    if count > 0:
        heap[i] = last
    return count


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _usable(active: Any, marks: Any, a: int) -> bool:
    """Phase 1: active outside Z, or switched at a lower rank."""
    m = marks[a]
    return (active[a] != 0 and (m & IN_Z) == 0) or (m & TURNED) != 0


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _after(active: Any, marks: Any, a: int) -> bool:
    """Phase 2: active and not out, or re-derived."""
    m = marks[a]
    return (active[a] != 0 and (m & OUT) == 0) or (m & DERIVED) != 0


@numba.njit(cache=True, nogil=True, boundscheck=False)
def plan_arrays(
    roots: Any,
    active: Any,
    support: Any,
    rank: Any,
    pointer: Any,
    is_evidence: Any,
    j_offs: Any,
    j_items: Any,
    w_offs: Any,
    w_items: Any,
    a_offs: Any,
    a_items: Any,
    just_claim: Any,
) -> Any:
    """The plan's parts as arrays: the retired nodes (in the order they went out), the
    switched claims with their justifications and new ranks (in the order of switching),
    the re-derived claims with their pointers and ranks (in derivation order), the size of
    Z and the number of claims visited. ``roots`` are distinct."""
    size = active.shape[0]
    marks = np.zeros(size, np.uint8)
    # Z: the roots and every claim whose pointer passes through them
    region = np.empty(size, np.int64)
    in_region = 0
    for r in roots:
        marks[r] |= ROOT
        if (marks[r] & IN_Z) == 0:
            marks[r] |= IN_Z
            region[in_region] = r
            in_region += 1
    k = 0
    while k < in_region:
        n = region[k]
        k += 1
        for p in range(w_offs[n], w_offs[n + 1]):
            j = w_items[p]
            if pointer[j] != 0:
                c = just_claim[j]
                if (marks[c] & IN_Z) == 0:
                    marks[c] |= IN_Z
                    region[in_region] = c
                    in_region += 1
    # phase 1, a rank at a time: keys rank * size + claim, so a rank pops in claim order
    heap = np.empty(size, np.int64)
    queued = 0
    for r in roots:
        if active[r] != 0 and (marks[r] & QUEUED) == 0:
            marks[r] |= QUEUED
            queued = _push(heap, queued, rank[r] * size + r)
    level = np.empty(size, np.int64)
    turned_claims = np.empty(size, np.int64)
    turned_justs = np.empty(size, np.int64)
    turned_ranks = np.empty(size, np.int64)
    moved = np.empty(size, np.int64)  # the new rank of a TURNED node
    out = np.empty(size, np.int64)
    turned = 0
    went = 0
    visited = 0
    while queued > 0:
        current = heap[0] // size
        in_level = 0
        while queued > 0 and heap[0] // size == current:
            level[in_level] = heap[0] - current * size
            in_level += 1
            queued = _pop(heap, queued)
        visited += in_level
        first_turned = turned
        for i in range(in_level):
            c = level[i]
            if (marks[c] & ROOT) != 0:
                continue
            pointer_of_c = support[c]
            for p in range(j_offs[c], j_offs[c + 1]):
                j = j_items[p]
                if j == pointer_of_c:
                    continue
                fine = True
                for q in range(a_offs[j], a_offs[j + 1]):
                    if not _usable(active, marks, a_items[q]):
                        fine = False
                        break
                if fine:
                    turned_claims[turned] = c
                    turned_justs[turned] = j
                    turned += 1
                    break
        for t in range(first_turned, turned):  # usable from the next rank on
            c = turned_claims[t]
            j = turned_justs[t]
            highest = 0
            for q in range(a_offs[j], a_offs[j + 1]):
                a = a_items[q]
                below = moved[a] if (marks[a] & TURNED) != 0 else rank[a]
                if below > highest:
                    highest = below
            moved[c] = highest + 1
            turned_ranks[t] = highest + 1
            marks[c] |= TURNED
        for i in range(in_level):
            c = level[i]
            if (marks[c] & TURNED) != 0:
                continue
            marks[c] |= OUT
            out[went] = c
            went += 1
            for p in range(w_offs[c], w_offs[c + 1]):
                j = w_items[p]
                if pointer[j] != 0:
                    d = just_claim[j]
                    if (marks[d] & QUEUED) == 0:
                        marks[d] |= QUEUED
                        queued = _push(heap, queued, rank[d] * size + d)
    # phase 2: count each justification's antecedents missing after phase 1 (one more than
    # the count, so 0 means "not a region claim's"), derive the complete ones, count down
    left = np.zeros(just_claim.shape[0], np.int32)
    counted = np.empty(just_claim.shape[0], np.int64)
    in_counted = 0
    for k in range(went):
        n = out[k]
        if (marks[n] & ROOT) != 0:
            continue
        for p in range(j_offs[n], j_offs[n + 1]):
            j = j_items[p]
            missing = 0
            for q in range(a_offs[j], a_offs[j + 1]):
                if not _after(active, marks, a_items[q]):
                    missing += 1
            left[j] = missing + 1
            counted[in_counted] = j
            in_counted += 1
    stack = np.empty(size, np.int64)
    derived = np.empty(size, np.int64)
    on_stack = 0
    in_derived = 0
    for k in range(in_counted):
        j = counted[k]
        c = just_claim[j]
        if left[j] == 1 and not _after(active, marks, c):
            marks[c] |= DERIVED
            stack[on_stack] = c
            on_stack += 1
            derived[in_derived] = c
            in_derived += 1
    while on_stack > 0:
        on_stack -= 1
        n = stack[on_stack]
        for p in range(w_offs[n], w_offs[n + 1]):
            j = w_items[p]
            value = left[j]
            if value >= 2:
                left[j] = value - 1
                if value == 2:
                    c = just_claim[j]
                    if not _after(active, marks, c):
                        marks[c] |= DERIVED
                        stack[on_stack] = c
                        on_stack += 1
                        derived[in_derived] = c
                        in_derived += 1
    # a pointer for each re-derived claim: its justification of least rank resting on
    # nodes active after the plan, re-derived ones only when derived before it
    position = stack  # reused: the position of each derived node
    for i in range(in_derived):
        position[derived[i]] = i
    pointers = np.empty(in_derived, np.int64)
    ranks = np.empty(in_derived, np.int64)
    for i in range(in_derived):
        c = derived[i]
        best = -1
        best_rank = NO_RANK
        for p in range(j_offs[c], j_offs[c + 1]):
            j = j_items[p]
            here = 1
            fine = True
            for q in range(a_offs[j], a_offs[j + 1]):
                a = a_items[q]
                m = marks[a]
                if (m & DERIVED) != 0:
                    at = position[a]
                    if at >= i:
                        fine = False
                        break
                    below = 1 + ranks[at]
                elif active[a] == 0 or (m & OUT) != 0:
                    fine = False
                    break
                elif is_evidence[a] != 0:
                    below = 1
                elif (m & TURNED) != 0:
                    below = 1 + moved[a]
                else:
                    below = 1 + rank[a]
                if below > here:
                    here = below
            if fine and (best == -1 or here < best_rank):
                best = j
                best_rank = here
        if best == -1:
            raise AssertionError("no well-founded justification for a re-derived claim")
        pointers[i] = best
        ranks[i] = best_rank
    retired = np.empty(went, np.int64)
    in_retired = 0
    for k in range(went):
        n = out[k]
        if (marks[n] & DERIVED) == 0:
            retired[in_retired] = n
            in_retired += 1
    return (
        retired[:in_retired].copy(),
        turned_claims[:turned].copy(),
        turned_justs[:turned].copy(),
        turned_ranks[:turned].copy(),
        derived[:in_derived].copy(),
        pointers,
        ranks,
        in_region,
        visited,
    )


def plan_retract(
    roots: tuple[int, ...],
    active: bytearray,
    support: Any,
    rank: Any,
    pointer: bytearray,
    is_evidence: bytearray,
    justs: tuple[Any, Any],
    watchers: tuple[Any, Any],
    antecedents: tuple[Any, Any],
    just_claim: Any,
) -> tuple[tuple[int, ...], Any, Any, Any, int, int]:
    """The retired nodes; the claims given a new pointer (int64: re-derived ones first, in
    derivation order, then switched ones, in the order of switching), their pointers and
    their ranks; the size of Z and the claims visited, for distinct ``roots`` over flat
    ``array`` rows (offsets, items)."""
    (
        retired,
        switched,
        switched_justs,
        switched_ranks,
        derived,
        pointers,
        ranks,
        region,
        visited,
    ) = plan_arrays(
        np.asarray(roots, dtype=np.int64),
        *map(array_view, (active, support, rank, pointer, is_evidence)),
        *map(array_view, (*justs, *watchers, *antecedents, just_claim)),
    )
    return (
        tuple(retired.tolist()),
        np.concatenate((derived, switched)),
        np.concatenate((pointers, switched_justs)),
        np.concatenate((ranks, switched_ranks)),
        int(region),
        int(visited),
    )


__all__ = ["plan_arrays", "plan_retract"]
