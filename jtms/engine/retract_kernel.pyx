# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The retraction plan of :meth:`jtms.engine.incremental.SupportState.plan_retract`, compiled
ahead of time (Cython): the one implementation of the audit planner.

The rule: the support region Z of the roots, then phase 1 a rank at a time (each claim of the
lowest pending rank that lost its pointer switches to its first other justification whose
antecedents were usable before this rank, or goes out and queues its pointer dependents),
then phase 2, the counting re-derivation of :func:`theory.semantics.fixpoint.rederive` from
the rest of the memory, then a pointer for each re-derived claim consistent with the
derivation order (as :meth:`SupportState._supports_in_order` gives one). One call over the flat
rows of the index and the state's flat arrays, one byte of marks per node, no Python object
per node visited. A transcription in Python stays only as the test oracle
(``tests/retract_oracle.py``, compared plan for plan in ``tests/jtms/memory/test_retract_kernel.py``).
"""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t

from theory.model.index import array_view

IN_Z, QUEUED, ROOT, TURNED, OUT, DERIVED = 1, 2, 4, 8, 16, 32
"""Bits of the per-node marks: in the support region; queued in phase 1; a root; switched
to another justification (usable from the next rank on); out after phase 1; re-derived."""

cdef enum:
    C_IN_Z = 1
    C_QUEUED = 2
    C_ROOT = 4
    C_TURNED = 8
    C_OUT = 16
    C_DERIVED = 32

cdef int64_t C_NO_RANK = (<int64_t>1) << 62
NO_RANK = 1 << 62


cdef inline Py_ssize_t _push(int64_t[::1] heap, Py_ssize_t count, int64_t key) noexcept nogil:
    cdef Py_ssize_t i = count, parent
    heap[i] = key
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = key
    return count + 1


cdef inline Py_ssize_t _pop(int64_t[::1] heap, Py_ssize_t count) noexcept nogil:
    """Remove the smallest key (the caller reads ``heap[0]`` first); the new count."""
    cdef Py_ssize_t i = 0, child
    cdef int64_t last
    count -= 1
    last = heap[count]
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


cdef inline bint _usable(const uint8_t[::1] active, const uint8_t[::1] marks, int64_t a) noexcept nogil:
    """Phase 1: active outside Z, or switched at a lower rank."""
    cdef uint8_t m = marks[a]
    return (active[a] != 0 and (m & C_IN_Z) == 0) or (m & C_TURNED) != 0


cdef inline bint _after(const uint8_t[::1] active, const uint8_t[::1] marks, int64_t a) noexcept nogil:
    """Phase 2: active and not out, or re-derived."""
    cdef uint8_t m = marks[a]
    return (active[a] != 0 and (m & C_OUT) == 0) or (m & C_DERIVED) != 0


def plan_arrays(
    const int64_t[::1] roots,
    const uint8_t[::1] active,
    const int64_t[::1] support,
    const int64_t[::1] rank,
    const uint8_t[::1] pointer,
    const uint8_t[::1] is_evidence,
    const int32_t[::1] j_offs,
    const int32_t[::1] j_items,
    const int32_t[::1] w_offs,
    const int32_t[::1] w_items,
    const int32_t[::1] a_offs,
    const int32_t[::1] a_items,
    const int32_t[::1] just_claim,
):
    """The plan's parts as arrays: the retired nodes (in the order they went out), the
    switched claims with their justifications and new ranks (in the order of switching),
    the re-derived claims with their pointers and ranks (in derivation order), the size of
    Z and the number of claims visited. ``roots`` are distinct."""
    cdef Py_ssize_t size = active.shape[0]
    cdef Py_ssize_t justs = just_claim.shape[0]
    marks_arr = np.zeros(size, np.uint8)
    region_arr = np.empty(size, np.int64)
    heap_arr = np.empty(size, np.int64)
    level_arr = np.empty(size, np.int64)
    turned_claims_arr = np.empty(size, np.int64)
    turned_justs_arr = np.empty(size, np.int64)
    turned_ranks_arr = np.empty(size, np.int64)
    moved_arr = np.empty(size, np.int64)  # the new rank of a TURNED node
    out_arr = np.empty(size, np.int64)
    left_arr = np.zeros(justs, np.int32)
    counted_arr = np.empty(justs, np.int64)
    stack_arr = np.empty(size, np.int64)
    derived_arr = np.empty(size, np.int64)
    cdef uint8_t[::1] marks = marks_arr
    cdef int64_t[::1] region = region_arr, heap = heap_arr, level = level_arr
    cdef int64_t[::1] turned_claims = turned_claims_arr, turned_justs = turned_justs_arr
    cdef int64_t[::1] turned_ranks = turned_ranks_arr, moved = moved_arr, out = out_arr
    cdef int32_t[::1] left = left_arr
    cdef int64_t[::1] counted = counted_arr, stack = stack_arr, derived = derived_arr
    cdef Py_ssize_t in_region = 0, k = 0, queued = 0, turned = 0, went = 0, visited = 0
    cdef Py_ssize_t in_level, first_turned, i, t, p, q, in_counted = 0, on_stack = 0
    cdef Py_ssize_t in_derived = 0, n_roots = roots.shape[0], ri
    cdef int64_t n, r, j, c, d, a, current, pointer_of_c, highest, below, missing
    cdef int32_t value
    cdef bint fine
    with nogil:
        # Z: the roots and every claim whose pointer passes through them
        for ri in range(n_roots):
            r = roots[ri]
            marks[r] |= C_ROOT
            if (marks[r] & C_IN_Z) == 0:
                marks[r] |= C_IN_Z
                region[in_region] = r
                in_region += 1
        while k < in_region:
            n = region[k]
            k += 1
            for p in range(w_offs[n], w_offs[n + 1]):
                j = w_items[p]
                if pointer[j] != 0:
                    c = just_claim[j]
                    if (marks[c] & C_IN_Z) == 0:
                        marks[c] |= C_IN_Z
                        region[in_region] = c
                        in_region += 1
        # phase 1, a rank at a time: keys rank * size + claim, so a rank pops in claim order
        for ri in range(n_roots):
            r = roots[ri]
            if active[r] != 0 and (marks[r] & C_QUEUED) == 0:
                marks[r] |= C_QUEUED
                queued = _push(heap, queued, rank[r] * size + r)
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
                if (marks[c] & C_ROOT) != 0:
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
                    below = moved[a] if (marks[a] & C_TURNED) != 0 else rank[a]
                    if below > highest:
                        highest = below
                moved[c] = highest + 1
                turned_ranks[t] = highest + 1
                marks[c] |= C_TURNED
            for i in range(in_level):
                c = level[i]
                if (marks[c] & C_TURNED) != 0:
                    continue
                marks[c] |= C_OUT
                out[went] = c
                went += 1
                for p in range(w_offs[c], w_offs[c + 1]):
                    j = w_items[p]
                    if pointer[j] != 0:
                        d = just_claim[j]
                        if (marks[d] & C_QUEUED) == 0:
                            marks[d] |= C_QUEUED
                            queued = _push(heap, queued, rank[d] * size + d)
        # phase 2: count each justification's antecedents missing after phase 1 (one more
        # than the count, so 0 means "not a region claim's"), derive the complete ones,
        # count down
        for k in range(went):
            n = out[k]
            if (marks[n] & C_ROOT) != 0:
                continue
            for p in range(j_offs[n], j_offs[n + 1]):
                j = j_items[p]
                missing = 0
                for q in range(a_offs[j], a_offs[j + 1]):
                    if not _after(active, marks, a_items[q]):
                        missing += 1
                left[j] = <int32_t>(missing + 1)
                counted[in_counted] = j
                in_counted += 1
        for k in range(in_counted):
            j = counted[k]
            c = just_claim[j]
            if left[j] == 1 and not _after(active, marks, c):
                marks[c] |= C_DERIVED
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
                            marks[c] |= C_DERIVED
                            stack[on_stack] = c
                            on_stack += 1
                            derived[in_derived] = c
                            in_derived += 1
    # a pointer for each re-derived claim: its justification of least rank resting on
    # nodes active after the plan, re-derived ones only when derived before it
    pointers_arr = np.empty(in_derived, np.int64)
    ranks_arr = np.empty(in_derived, np.int64)
    retired_arr = np.empty(went, np.int64)
    cdef int64_t[::1] pointers = pointers_arr, ranks = ranks_arr, retired = retired_arr
    cdef int64_t[::1] position = stack  # reused: the position of each derived node
    cdef int64_t best, best_rank, here, at
    cdef uint8_t m
    cdef Py_ssize_t in_retired = 0
    cdef bint founded = True
    with nogil:
        for i in range(in_derived):
            position[derived[i]] = i
        for i in range(in_derived):
            c = derived[i]
            best = -1
            best_rank = C_NO_RANK
            for p in range(j_offs[c], j_offs[c + 1]):
                j = j_items[p]
                here = 1
                fine = True
                for q in range(a_offs[j], a_offs[j + 1]):
                    a = a_items[q]
                    m = marks[a]
                    if (m & C_DERIVED) != 0:
                        at = position[a]
                        if at >= i:
                            fine = False
                            break
                        below = 1 + ranks[at]
                    elif active[a] == 0 or (m & C_OUT) != 0:
                        fine = False
                        break
                    elif is_evidence[a] != 0:
                        below = 1
                    elif (m & C_TURNED) != 0:
                        below = 1 + moved[a]
                    else:
                        below = 1 + rank[a]
                    if below > here:
                        here = below
                if fine and (best == -1 or here < best_rank):
                    best = j
                    best_rank = here
            if best == -1:
                founded = False
                break
            pointers[i] = best
            ranks[i] = best_rank
        for k in range(went):
            n = out[k]
            if (marks[n] & C_DERIVED) == 0:
                retired[in_retired] = n
                in_retired += 1
    if not founded:  # pragma: no cover - the counting derivation is well-founded
        raise AssertionError("no well-founded justification for a re-derived claim")
    return (
        retired_arr[:in_retired].copy(),
        turned_claims_arr[:turned].copy(),
        turned_justs_arr[:turned].copy(),
        turned_ranks_arr[:turned].copy(),
        derived_arr[:in_derived].copy(),
        pointers_arr,
        ranks_arr,
        in_region,
        visited,
    )


def plan_retract(
    roots,
    active,
    support,
    rank,
    pointer,
    is_evidence,
    justs,
    watchers,
    antecedents,
    just_claim,
):
    """The retired nodes; the claims given a new pointer (int64: re-derived ones first, in
    derivation order, then switched ones, in the order of switching), their pointers and
    their ranks; the size of Z and the claims visited, for distinct ``roots`` over flat
    ``array`` rows (offsets, items: ``array("i")``), ``support`` and ``rank`` as
    ``array("q")`` and the flags as ``bytearray``."""
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
        array_view(active),
        np.asarray(array_view(support), dtype=np.int64),
        np.asarray(array_view(rank), dtype=np.int64),
        array_view(pointer),
        array_view(is_evidence),
        *(
            np.asarray(array_view(rows), dtype=np.int32)  # a view: the rows are array("i")
            for rows in (*justs, *watchers, *antecedents, just_claim)
        ),
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
