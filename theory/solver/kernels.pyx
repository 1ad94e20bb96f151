# cython: language_level=3
"""The compiled kernels of the solver core (Cython over typed memoryviews, built when the
package is installed): the label algebra on bitsets, the least fixpoint of one claim's
support cone with its shrink and grow, the exchange step, and the completion of a cone as
CNF. The Python classes that hold their arrays are in :mod:`theory.solver.label_kernel`,
:mod:`theory.solver.cone_kernel`, :mod:`theory.solver.exchange` and
:mod:`theory.solver.cone_cnf`; this module only computes.

Sets of evidence are rows of 64-bit words. Every loop here runs on typed locals and
memoryviews; Python objects appear only where a buffer is allocated or grown and where a
label (a list of row arrays, one per node of a cone) is looked up.
"""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t

ctypedef int64_t i64
ctypedef uint64_t u64
ctypedef uint8_t u8

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

cdef u64 ALL = 0xFFFFFFFFFFFFFFFF

OK = 0
OVER_SETS = 1
OVER_WORK = 2
PREMISE = -1
UNUSED = 0


cdef inline i64 popc(u64 x) noexcept nogil:
    return __builtin_popcountll(x)


cdef inline i64 lowbit(u64 x) noexcept nogil:
    return __builtin_ctzll(x)


cdef inline u64 lanes(i64 m) noexcept nogil:
    """The low ``m`` bits set (all 64 for m >= 64)."""
    if m >= 64:
        return ALL
    return ((<u64>1) << m) - 1


def doubled(values):
    """A new int64 array of twice the length of ``values``, starting with them."""
    grown = np.empty(2 * values.shape[0], dtype=np.int64)
    grown[: values.shape[0]] = values
    return grown


# --- the label algebra ----------------------------------------------------------------------


def minimize(sets, Py_ssize_t n, i64[::1] work):
    """The antichain of minimal rows among ``sets[:n]`` (uint64 rows): rows in order of
    size, each kept unless a kept row is a subset of it (which also drops duplicates).
    ``work = [spent, status, budget]``: the subset tests are added to ``spent``; past the
    budget ``status`` becomes 2 and no rows are returned."""
    return _minimize(sets, n, work)


cdef object _minimize(object sets_obj, Py_ssize_t n, i64[::1] work):
    cdef u64[:, :] sets = sets_obj
    cdef Py_ssize_t words = sets.shape[1]
    if n <= 1:
        return np.array(sets_obj[:n], dtype=np.uint64)
    sizes_obj = np.empty(n, dtype=np.int64)
    cdef i64[::1] sizes = sizes_obj
    cdef i64 top = 0, c, tests = 0
    cdef Py_ssize_t i, w, t, k, kept = 0
    for i in range(n):
        c = 0
        for w in range(words):
            c += popc(sets[i, w])
        sizes[i] = c
        if c > top:
            top = c
    cdef i64[::1] first = np.zeros(top + 2, dtype=np.int64)  # counting sort by size
    for i in range(n):
        first[sizes[i] + 1] += 1
    for c in range(top + 1):
        first[c + 1] += first[c]
    order_obj = np.empty(n, dtype=np.int64)
    cdef i64[::1] order = order_obj
    for i in range(n):
        order[first[sizes[i]]] = i
        first[sizes[i]] += 1
    out_obj = np.empty((n, words), dtype=np.uint64)
    cdef u64[:, ::1] out = out_obj
    cdef u64 absent
    if words == 1:  # the common case, kept tight: one AND per test
        for k in range(n):
            i = order[k]
            if work[0] + tests > work[2]:
                work[0] += tests
                work[1] = 2
                return out_obj[:0].copy()
            absent = ~sets[i, 0]
            t = 0
            while t < kept and out[t, 0] & absent:
                t += 1
            if t < kept:
                tests += t + 1
            else:
                tests += kept
                out[kept, 0] = sets[i, 0]
                kept += 1
        work[0] += tests
        return out_obj[:kept].copy()
    # wide rows: a row can hold a kept row of its own size only if the two are equal, so it
    # is tested for subsets against the kept rows of smaller sizes only, and for equality
    # against those of its size with its fingerprint (rows of one size are taken in
    # fingerprint order); each test reads only the words between the kept row's first and
    # last non-zero ones
    prints_obj = np.empty(n, dtype=np.uint64)
    cdef u64[::1] prints = prints_obj
    cdef u64 h
    for i in range(n):
        h = 0x9E3779B97F4A7C15
        for w in range(words):
            h = (h ^ sets[i, w]) * <u64>0xBF58476D1CE4E5B9
            h ^= h >> 31
        prints[i] = h
    cdef Py_ssize_t start = 0, end
    while start < n:  # each size class of ``order`` in fingerprint order
        end = start + 1
        while end < n and sizes[order[end]] == sizes[order[start]]:
            end += 1
        if end - start > 1:
            block = order_obj[start:end].copy()
            by_print = np.argsort(prints_obj[block], kind="stable")
            order_obj[start:end] = block[by_print]
        start = end
    cdef i64[::1] low = np.empty(n, dtype=np.int64)
    cdef i64[::1] high = np.empty(n, dtype=np.int64)
    cdef Py_ssize_t smaller = 0, run = 0, lowest, highest
    cdef bint dominated, inside, same
    for k in range(n):
        i = order[k]
        if work[0] + tests > work[2]:
            work[0] += tests
            work[1] = 2
            return out_obj[:0].copy()
        if k == 0 or sizes[i] != sizes[order[k - 1]]:
            smaller = kept
            run = kept
        elif prints[i] != prints[order[k - 1]]:
            run = kept
        dominated = False
        for t in range(smaller):
            inside = True
            for w in range(low[t], high[t] + 1):
                if out[t, w] & ~sets[i, w]:
                    inside = False
                    break
            if inside:
                dominated = True
                tests += t + 1
                break
        if not dominated:
            tests += smaller
            for t in range(run, kept):  # same size and fingerprint: a duplicate?
                tests += 1
                same = True
                for w in range(words):
                    if out[t, w] != sets[i, w]:
                        same = False
                        break
                if same:
                    dominated = True
                    break
        if not dominated:
            lowest = words
            highest = -1
            for w in range(words):
                out[kept, w] = sets[i, w]
                if sets[i, w]:
                    if lowest == words:
                        lowest = w
                    highest = w
            low[kept] = lowest if lowest < words else 0
            high[kept] = highest
            kept += 1
    work[0] += tests
    return out_obj[:kept].copy()


cdef bint _subset(const i64[:] antes, i64 s, i64 e, i64 t, i64 f) noexcept:
    """Whether sorted antes[s:e] is a subset of sorted antes[t:f]."""
    cdef i64 k = t, i, x
    for i in range(s, e):
        x = antes[i]
        while k < f and antes[k] < x:
            k += 1
        if k == f or antes[k] != x:
            return False
        k += 1
    return True


cdef object _product(object cur_obj, object other_obj, i64 m, i64 limit, i64[::1] work):
    """The minimal sets of {a | b : a in cur, b in other[:m]}; ``work[1] = 1`` (and no rows)
    when that would form more than ``limit`` sets."""
    cdef u64[:, :] cur = cur_obj
    cdef u64[:, :] other = other_obj
    cdef i64 p = cur.shape[0]
    cdef Py_ssize_t words = cur.shape[1]
    if p * m > limit:
        work[1] = 1
        return cur_obj[:0]
    if work[0] + p * m > work[2]:
        work[1] = 2  # out of work: stop before forming the sets, not after
        return cur_obj[:0]
    product_obj = np.empty((p * m, words), dtype=np.uint64)
    cdef u64[:, ::1] product = product_obj
    cdef Py_ssize_t x, y, w, k = 0
    for x in range(p):
        for y in range(m):
            for w in range(words):
                product[k, w] = cur[x, w] | other[y, w]
            k += 1
    work[0] += p * m
    return _minimize(product_obj, p * m, work)


cdef object _justification(
    object cur,
    i64 j,
    i64 skip,
    const i64[:] ante_start,
    const i64[:] antes,
    i64[::1] local,
    list lab,
    i64[::1] cnt,
    i64 limit,
    i64[::1] work,
    i64[::1] bit,
    object single,
):
    """``cur`` times the labels of justification j's antecedents other than local node
    ``skip`` (-1: none skipped). An evidence antecedent's label {{e}} is written into the
    one row ``single`` (all zero) for its product and cleared after, so that no evidence
    holds a row of its own (a row per evidence is E * E / 8 bytes)."""
    cdef i64 r, y
    cdef u64[:, ::1] one = single
    for r in range(ante_start[j], ante_start[j + 1]):
        y = local[antes[r]]
        if y == skip:
            continue
        if bit[y] >= 0:
            one[0, bit[y] // 64] = (<u64>1) << (bit[y] % 64)
            cur = _product(cur, single, 1, limit, work)
            one[0, bit[y] // 64] = 0
        elif cnt[y] == 0:
            return cur[:0]
        else:
            cur = _product(cur, lab[y], cnt[y], limit, work)
        if work[1] or cur.shape[0] == 0:
            return cur[:0]
    return cur


cdef object _evaluate(
    i64 c,
    i64[::1] kept_start,
    i64[::1] kept,
    const i64[:] ante_start,
    const i64[:] antes,
    i64[::1] local,
    list lab,
    i64[::1] cnt,
    Py_ssize_t words,
    i64 limit,
    i64[::1] work,
    i64[::1] bit,
    object single,
):
    """The label of local claim c from its antecedents' labels (``work[1] = 1`` when a
    product is over the budget)."""
    chunks = []
    cdef i64 q
    for q in range(kept_start[c], kept_start[c + 1]):
        cur = _justification(
            np.zeros((1, words), dtype=np.uint64),
            kept[q], -1, ante_start, antes, local, lab, cnt, limit, work, bit, single,
        )
        if work[1]:
            return cur
        if cur.shape[0]:
            chunks.append(cur)
    if not chunks:
        return np.zeros((0, words), dtype=np.uint64)
    union = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
    return _minimize(union, union.shape[0], work)


cdef bint _insert(list lab, i64[::1] cnt, i64 x, u64[:] row, i64[::1] work):
    """Add ``row`` to the antichain of local node x unless a member is a subset of it; drop
    the members it is a subset of. Whether it was added."""
    label_obj = lab[x]
    cdef u64[:, ::1] label = label_obj
    cdef i64 n = cnt[x], t, kept = 0
    cdef Py_ssize_t words = row.shape[0], w
    cdef bint inside, covers
    for t in range(n):
        inside = True
        for w in range(words):
            if label[t, w] & ~row[w]:
                inside = False
                break
        if inside:
            work[0] += t + 1
            return False
    work[0] += 2 * n
    for t in range(n):
        covers = True
        for w in range(words):
            if row[w] & ~label[t, w]:
                covers = False
                break
        if not covers:
            if kept != t:
                for w in range(words):
                    label[kept, w] = label[t, w]
            kept += 1
    if kept == label.shape[0]:
        grown = np.empty((2 * kept + 4, words), dtype=np.uint64)
        grown[:kept] = label_obj[:kept]
        lab[x] = grown
        label = grown
    for w in range(words):
        label[kept, w] = row[w]
    cnt[x] = kept + 1
    return True


cdef bint _contains(list lab, i64[::1] cnt, i64 x, u64[:] row):
    cdef u64[:, ::1] label = lab[x]
    cdef Py_ssize_t words = row.shape[0], w
    cdef i64 t
    cdef bint equal
    for t in range(cnt[x]):
        equal = True
        for w in range(words):
            if label[t, w] != row[w]:
                equal = False
                break
        if equal:
            return True
    return False


def cone(
    const i64[:] targets,
    const u8[:] is_evidence,
    const i64[:] just_start,
    const i64[:] justs,
    const i64[:] ante_start,
    const i64[:] antes,
):
    """The support cone of ``targets`` through the justifications that no other
    justification of the same claim subsumes (antecedents a subset of its own; of two equal
    ones the first is kept): ``(local, nodes, kept, kept_start)``, where ``nodes`` lists the
    cone in discovery order (targets first), ``local[n]`` is n's position there (-1 outside
    the cone) and local node x's kept justifications are
    ``kept[kept_start[x]:kept_start[x + 1]]``. A subsumed justification holds only when the
    one it contains does, so the least fixpoint of every node of the cone is unchanged."""
    cdef Py_ssize_t size = is_evidence.shape[0]
    local_obj = np.full(size, -1, dtype=np.int64)
    cdef i64[::1] local = local_obj
    nodes_obj = np.empty(size, dtype=np.int64)
    cdef i64[::1] nodes = nodes_obj
    kept_obj = np.empty(justs.shape[0], dtype=np.int64)
    cdef i64[::1] kept = kept_obj
    kept_start_obj = np.empty(size + 1, dtype=np.int64)
    cdef i64[::1] kept_start = kept_start_obj
    cdef i64 count = 0, n_kept = 0, i = 0, n, q, q2, j, j2, s, e, s2, e2, r, a, t
    cdef bint subsumed
    kept_start[0] = 0
    for t in range(targets.shape[0]):
        if local[targets[t]] < 0:
            local[targets[t]] = count
            nodes[count] = targets[t]
            count += 1
    while i < count:
        n = nodes[i]
        if not is_evidence[n]:
            for q in range(just_start[n], just_start[n + 1]):
                j = justs[q]
                s = ante_start[j]
                e = ante_start[j + 1]
                subsumed = False
                for q2 in range(just_start[n], just_start[n + 1]):
                    j2 = justs[q2]
                    if j2 == j:
                        continue
                    s2 = ante_start[j2]
                    e2 = ante_start[j2 + 1]
                    if (e2 - s2 < e - s or (e2 - s2 == e - s and j2 < j)) and _subset(
                        antes, s2, e2, s, e
                    ):
                        subsumed = True
                        break
                if subsumed:
                    continue
                kept[n_kept] = j
                n_kept += 1
                for r in range(s, e):
                    a = antes[r]
                    if local[a] < 0:
                        local[a] = count
                        nodes[count] = a
                        count += 1
        i += 1
        kept_start[i] = n_kept
    return local_obj, nodes_obj[:count].copy(), kept_obj[:n_kept].copy(), kept_start_obj[: count + 1].copy()


def offsets(i64[::1] start):
    """Turn per-row counts in ``start[1:]`` into row offsets (compressed rows), in place;
    returns a copy of the row starts, for filling the rows."""
    cdef Py_ssize_t x
    for x in range(start.shape[0] - 1):
        start[x + 1] += start[x]
    return np.array(start[: start.shape[0] - 1], dtype=np.int64)


def components(const u8[:] member, const i64[:] pred_start, const i64[:] preds):
    """Strongly connected components (Tarjan, iterative) of the nodes x with ``member[x]``,
    edges into x from ``preds[pred_start[x]:pred_start[x + 1]]`` (members only), in
    topological order (a component after those it depends on): ``(comp_of, comp_nodes,
    comp_start)``, component c being ``comp_nodes[comp_start[c]:comp_start[c + 1]]``."""
    cdef Py_ssize_t count = member.shape[0]
    cdef i64[::1] number = np.full(count, -1, dtype=np.int64)
    cdef i64[::1] low = np.zeros(count, dtype=np.int64)
    cdef u8[::1] on_stack = np.zeros(count, dtype=np.uint8)
    cdef i64[::1] stack = np.empty(count, dtype=np.int64)
    cdef i64[::1] call_node = np.empty(count, dtype=np.int64)
    cdef i64[::1] call_edge = np.empty(count, dtype=np.int64)
    comp_of_obj = np.full(count, -1, dtype=np.int64)
    cdef i64[::1] comp_of = comp_of_obj
    comp_nodes_obj = np.empty(count, dtype=np.int64)
    cdef i64[::1] comp_nodes = comp_nodes_obj
    comp_start_obj = np.empty(count + 1, dtype=np.int64)
    cdef i64[::1] comp_start = comp_start_obj
    cdef i64 depth = 0, filled = 0, counter = 0, components_found = 0
    cdef i64 root, top, pending, v, w, parent
    cdef bint advanced
    comp_start[0] = 0
    for root in range(count):
        if not member[root] or number[root] >= 0:
            continue
        top = -1
        pending = root  # the next node to visit
        while True:
            if pending >= 0:
                number[pending] = counter
                low[pending] = counter
                counter += 1
                stack[depth] = pending
                depth += 1
                on_stack[pending] = 1
                top += 1
                call_node[top] = pending
                call_edge[top] = pred_start[pending]
                pending = -1
            if top < 0:
                break
            v = call_node[top]
            advanced = False
            while call_edge[top] < pred_start[v + 1]:
                w = preds[call_edge[top]]
                call_edge[top] += 1
                if number[w] < 0:
                    pending = w
                    advanced = True
                    break
                if on_stack[w] and number[w] < low[v]:
                    low[v] = number[w]
            if advanced:
                continue
            top -= 1
            if top >= 0:
                parent = call_node[top]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] == number[v]:
                while True:
                    depth -= 1
                    w = stack[depth]
                    on_stack[w] = 0
                    comp_of[w] = components_found
                    comp_nodes[filled] = w
                    filled += 1
                    if w == v:
                        break
                components_found += 1
                comp_start[components_found] = filled
    return comp_of_obj, comp_nodes_obj, comp_start_obj[: components_found + 1].copy()


def run_labels(
    const i64[:] targets,
    const u8[:] is_evidence,
    const i64[:] just_start,
    const i64[:] justs,
    const i64[:] ante_start,
    const i64[:] antes,
    i64 max_sets,
    i64 max_work,
    i64 max_formed,
    i64 loop_work_per_node,
    i64 multiplying_loop_share,
):
    """The labels of ``targets`` (node numbers) in one pass over their cones:
    ``(status, start, rows, bit_node, work)`` as :class:`theory.solver.label_kernel.Labels`
    holds them. A product that would form more than ``max_formed`` sets puts its claim over
    the set budget. A cone with a support loop gets at most ``loop_work_per_node`` work per
    node, and one with a loop through a justification of two or more claims a
    ``multiplying_loop_share``-th of that."""
    # 1. the cone through the justifications no other justification of the claim subsumes
    local_obj, nodes_obj, kept_obj, kept_s_obj = cone(
        targets, is_evidence, just_start, justs, ante_start, antes
    )
    cdef i64[::1] local = local_obj
    cdef i64[::1] nodes = nodes_obj
    cdef i64[::1] kept_a = kept_obj
    cdef i64[::1] kept_s = kept_s_obj
    cdef Py_ssize_t count = nodes.shape[0]
    cdef i64 x, y, q, j, r, c, z, k, t, b
    # 2. evidence bits
    bit_node_obj = np.empty(count, dtype=np.int64)
    cdef i64[::1] bit_node = bit_node_obj
    bit_obj = np.full(count, -1, dtype=np.int64)
    cdef i64[::1] bit = bit_obj
    cdef i64 evidence = 0
    for x in range(count):
        if is_evidence[nodes[x]]:
            bit[x] = evidence
            bit_node[evidence] = nodes[x]
            evidence += 1
    cdef Py_ssize_t words = max(1, (evidence + 63) // 64)
    # 3. predecessors among claims, then Tarjan (iterative; predecessors first)
    pred_start_obj = np.zeros(count + 1, dtype=np.int64)
    cdef i64[::1] pred_start = pred_start_obj
    preds_obj = np.empty(antes.shape[0], dtype=np.int64)
    cdef i64[::1] preds = preds_obj
    cdef i64[::1] pred_j = np.empty(antes.shape[0], dtype=np.int64)
    cdef i64 n_preds = 0
    for x in range(count):
        if bit[x] < 0:
            for q in range(kept_s[x], kept_s[x + 1]):
                j = kept_a[q]
                for r in range(ante_start[j], ante_start[j + 1]):
                    y = local[antes[r]]
                    if bit[y] < 0:
                        preds[n_preds] = y
                        pred_j[n_preds] = j
                        n_preds += 1
        pred_start[x + 1] = n_preds
    claim_mask = (bit_obj < 0).astype(np.uint8)
    comp_of_obj, comp_nodes_obj, comp_start_obj = components(
        claim_mask, pred_start_obj, preds_obj[:n_preds]
    )
    cdef i64[::1] comp_of = comp_of_obj
    cdef i64[::1] comp_nodes = comp_nodes_obj
    cdef i64[::1] comp_start = comp_start_obj
    cdef bint looped, heavy, bad, spent = False, internal
    cdef i64 inside
    # a loop that multiplies claims' labels (a justification of a member with two claim
    # antecedents) re-forms its products for every set a member gains: the budget shrinks
    if max_work < (<i64>1 << 60):
        for x in range(count):
            if bit[x] >= 0:
                continue
            c = comp_of[x]
            looped = comp_start[c + 1] - comp_start[c] > 1
            for q in range(pred_start[x], pred_start[x + 1]):
                looped = looped or preds[q] == x
            if not looped:
                continue
            max_work = min(max_work, loop_work_per_node * count)
            heavy = False
            for q in range(kept_s[x], kept_s[x + 1]):
                j = kept_a[q]
                inside = 0  # claim antecedents
                for r in range(ante_start[j], ante_start[j + 1]):
                    if bit[local[antes[r]]] < 0:
                        inside += 1
                heavy = heavy or inside >= 2
            if heavy:
                max_work = max_work // multiplying_loop_share
                break
    # watchers: (claim, justification) per antecedent claim
    watch_start_obj = np.zeros(count + 1, dtype=np.int64)
    cdef i64[::1] watch_start = watch_start_obj
    for q in range(n_preds):
        watch_start[preds[q] + 1] += 1
    cdef i64[::1] fill = offsets(watch_start_obj)
    cdef i64[::1] watch_claim = np.empty(n_preds, dtype=np.int64)
    cdef i64[::1] watch_just = np.empty(n_preds, dtype=np.int64)
    for x in range(count):
        for q in range(pred_start[x], pred_start[x + 1]):
            y = preds[q]
            watch_claim[fill[y]] = x
            watch_just[fill[y]] = pred_j[q]
            fill[y] += 1
    # 4. labels, component by component
    cdef i64 limit = max_formed
    work_obj = np.zeros(3, dtype=np.int64)  # [work, 1 over the set budget / 2 out of work, budget]
    cdef i64[::1] work = work_obj
    work[2] = max_work
    # a label's rows are held only while something still reads them: an evidence label
    # {{e}} is formed where it is multiplied (`single`); a claim's rows go once the last
    # claim above it outside its component is done (`readers`), unless it is a target
    # with its label, and at once when it is over the set budget (nothing reads those)
    cdef list lab = []
    cnt_obj = np.zeros(count, dtype=np.int64)
    cdef i64[::1] cnt = cnt_obj
    none_obj = np.zeros((0, words), dtype=np.uint64)
    single = np.zeros((1, words), dtype=np.uint64)
    for x in range(count):
        lab.append(none_obj)
        if bit[x] >= 0:
            cnt[x] = 1
    cdef Py_ssize_t n_targets = targets.shape[0]
    cdef u8[::1] wanted = np.zeros(count, dtype=np.uint8)
    for k in range(n_targets):
        wanted[local[targets[k]]] = 1
    cdef i64[::1] readers = np.zeros(count, dtype=np.int64)
    for x in range(count):
        for q in range(pred_start[x], pred_start[x + 1]):
            if comp_of[preds[q]] != comp_of[x]:
                readers[preds[q]] += 1
    cdef u8[::1] over = np.zeros(count, dtype=np.uint8)
    cdef i64[::1] bucket_head = np.full(evidence + 2, -1, dtype=np.int64)
    cdef i64[::1] bucket_tail = np.full(evidence + 2, -1, dtype=np.int64)
    cdef u8[::1] done = np.zeros(count, dtype=np.uint8)
    cdef i64[::1] seed_claim
    cdef i64[::1] seed_just
    cdef i64[::1] claims_v
    cdef i64[::1] justs_v
    cdef i64[::1] event_bits
    cdef i64[::1] event_start
    cdef u64[:, ::1] popped
    cdef u64 word
    cdef i64 p
    cdef i64[::1] event_node
    cdef i64[::1] event_next
    cdef u64[:, ::1] found_v
    cdef i64 first, last, n_seeds, size, tail, head, a, lo, hi, grown, component
    cdef Py_ssize_t w
    for component in range(comp_start.shape[0] - 1):
        if work[0] > max_work:
            break
        first = comp_start[component]
        last = comp_start[component + 1]
        bad = False
        for z in range(first, last):
            x = comp_nodes[z]
            for q in range(pred_start[x], pred_start[x + 1]):
                if over[preds[q]]:
                    bad = True
        if not bad:
            x = comp_nodes[first]
            looped = last - first > 1
            for q in range(pred_start[x], pred_start[x + 1]):
                looped = looped or preds[q] == x
            if not looped:
                lab[x] = _evaluate(
                    x, kept_s, kept_a, ante_start, antes, local, lab, cnt, words, limit, work,
                    bit, single,
                )
                if work[1] == 2:
                    break
                cnt[x] = lab[x].shape[0]
                bad = work[1] != 0 or cnt[x] > max_sets
            else:
                # semi-naive: seed each member from its justifications with no antecedent in
                # the component, then push every set a member gains through the
                # justifications that watch it, with the other antecedents' current labels.
                # The seeds are the watchers of one first event: the empty set (node -1)
                seed_claim_obj = np.empty(kept_a.shape[0], dtype=np.int64)
                seed_just_obj = np.empty(kept_a.shape[0], dtype=np.int64)
                seed_claim = seed_claim_obj
                seed_just = seed_just_obj
                n_seeds = 0
                for z in range(first, last):
                    x = comp_nodes[z]
                    for q in range(kept_s[x], kept_s[x + 1]):
                        j = kept_a[q]
                        internal = False
                        for r in range(ante_start[j], ante_start[j + 1]):
                            y = local[antes[r]]
                            if bit[y] < 0 and comp_of[y] == component:
                                internal = True
                                break
                        if not internal:
                            seed_claim[n_seeds] = x
                            seed_just[n_seeds] = j
                            n_seeds += 1
                # Events leave in order of their sets' sizes (a bucket queue, first in first
                # out within a size): a product is never smaller than the set that forms it,
                # so when a set of size s leaves, every set smaller than s has been formed,
                # and a set still in its member's label then is a minimal set of the least
                # fixpoint. Only those are pushed on.
                # an event's set is kept as its bit positions (event_bits[event_start[i]:
                # event_start[i + 1]]), not as a row: the sets a loop grows are small, and a
                # row takes E / 8 bytes
                event_bits_obj = np.empty(64, dtype=np.int64)
                event_bits = event_bits_obj
                event_start_obj = np.zeros(17, dtype=np.int64)
                event_start = event_start_obj
                event_node_obj = np.full(16, -1, dtype=np.int64)
                event_node = event_node_obj
                event_next_obj = np.full(16, -1, dtype=np.int64)
                event_next = event_next_obj
                bucket_head[0] = 0  # the first event: the empty set
                bucket_tail[0] = 0
                size = 0
                tail = 1
                while not bad:
                    if work[0] > max_work:
                        spent = True
                        break
                    while size <= evidence and bucket_head[size] < 0:
                        size += 1
                    if size > evidence:
                        break
                    head = bucket_head[size]
                    bucket_head[size] = event_next[head]
                    if bucket_head[size] < 0:
                        bucket_tail[size] = -1
                    a = event_node[head]
                    row = np.zeros((1, words), dtype=np.uint64)
                    popped = row
                    for p in range(event_start[head], event_start[head + 1]):
                        popped[0, event_bits[p] // 64] |= (<u64>1) << (event_bits[p] % 64)
                    if a >= 0:
                        if not _contains(lab, cnt, a, row[0]):
                            continue  # a smaller set replaced it; that one's event covers it
                        claims_v = watch_claim
                        justs_v = watch_just
                        lo = watch_start[a]
                        hi = watch_start[a + 1]
                    else:
                        claims_v = seed_claim
                        justs_v = seed_just
                        lo = 0
                        hi = n_seeds
                    for q in range(lo, hi):
                        x = claims_v[q]
                        if comp_of[x] != component:
                            continue  # a claim above the component: evaluated later, once
                        found = _justification(
                            row, justs_v[q], a, ante_start, antes, local, lab, cnt, limit, work,
                            bit, single,
                        )
                        if work[1] == 2:
                            spent = True
                            break
                        if work[1]:
                            bad = True
                            break
                        found_v = np.ascontiguousarray(found)
                        for t in range(found_v.shape[0]):
                            if _insert(lab, cnt, x, found_v[t], work):
                                if cnt[x] > max_sets:
                                    bad = True
                                if tail == event_node.shape[0]:
                                    event_start_obj = doubled(event_start_obj)
                                    event_start = event_start_obj
                                    event_node_obj = doubled(event_node_obj)
                                    event_node = event_node_obj
                                    event_next_obj = doubled(event_next_obj)
                                    event_next = event_next_obj
                                grown = 0
                                for w in range(words):
                                    grown += popc(found_v[t, w])
                                p = event_start[tail]
                                if p + grown > event_bits.shape[0]:
                                    event_bits_obj = doubled(event_bits_obj)
                                    while p + grown > event_bits_obj.shape[0]:
                                        event_bits_obj = doubled(event_bits_obj)
                                    event_bits = event_bits_obj
                                for w in range(words):
                                    word = found_v[t, w]
                                    while word:
                                        event_bits[p] = 64 * w + lowbit(word)
                                        word &= word - 1
                                        p += 1
                                event_start[tail + 1] = p
                                event_node[tail] = x
                                event_next[tail] = -1
                                if bucket_tail[grown] < 0:
                                    bucket_head[grown] = tail
                                else:
                                    event_next[bucket_tail[grown]] = tail
                                bucket_tail[grown] = tail
                                # a product holds the set that formed it, so grown >= size;
                                # the min keeps the queue exact even were it not
                                if grown < size:
                                    size = grown
                                tail += 1
                        if bad:
                            break
                    if spent:
                        break
                if spent:
                    break
                for b in range(size, evidence + 1):  # left early (over the set budget)
                    bucket_head[b] = -1
                    bucket_tail[b] = -1
                for z in range(first, last):
                    x = comp_nodes[z]
                    lab[x] = lab[x][: cnt[x]].copy()
        work[1] = 0
        for z in range(first, last):
            x = comp_nodes[z]
            done[x] = 1
            if bad:
                over[x] = 1
                lab[x] = none_obj
            for q in range(pred_start[x], pred_start[x + 1]):
                y = preds[q]
                if comp_of[y] != component:
                    readers[y] -= 1
                    if readers[y] == 0 and not wanted[y]:
                        lab[y] = none_obj
    # 5. the targets' labels
    status_obj = np.zeros(n_targets, dtype=np.int64)
    cdef i64[::1] status = status_obj
    start_obj = np.zeros(n_targets + 1, dtype=np.int64)
    cdef i64[::1] start = start_obj
    cdef i64 total = 0
    for k in range(n_targets):
        x = local[targets[k]]
        if bit[x] < 0 and not done[x]:
            status[k] = OVER_WORK
        elif over[x]:
            status[k] = OVER_SETS
        else:
            total += cnt[x] if bit[x] < 0 else 1
        start[k + 1] = total
    rows = np.zeros((total, words), dtype=np.uint64)
    for k in range(n_targets):
        if status[k] == OK:
            x = local[targets[k]]
            if bit[x] >= 0:
                rows[start[k], bit[x] // 64] = (<u64>1) << (bit[x] % 64)
            else:
                rows[start[k] : start[k + 1]] = lab[x][: cnt[x]]
    return status_obj, start_obj, rows, bit_node_obj[:evidence].copy(), work[0]


# --- the least fixpoint of one claim's support cone ------------------------------------------


def prepare(
    i64 root,
    const u8[:] is_evidence,
    const i64[:] just_start,
    const i64[:] justs,
    const i64[:] ante_start,
    const i64[:] antes,
):
    """The support cone of node ``root`` laid out for :class:`Cone`: ``(evidence, position,
    ev_local, premises, w_start, w_just, just_claim, just_size, nodes, kept, a_start,
    a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic)``."""
    local_obj, nodes_obj, kept_obj, kept_start_obj = cone(
        np.array([root], dtype=np.int64), is_evidence, just_start, justs, ante_start, antes
    )
    cdef i64[::1] local = local_obj
    cdef i64[::1] nodes = nodes_obj
    cdef i64[::1] kept = kept_obj
    cdef i64[::1] kept_start = kept_start_obj
    cdef Py_ssize_t count = nodes.shape[0], n_just = kept.shape[0]
    just_claim_obj = np.empty(n_just, dtype=np.int64)
    cdef i64[::1] just_claim = just_claim_obj
    just_size_obj = np.empty(n_just, dtype=np.int64)
    cdef i64[::1] just_size = just_size_obj
    w_start_obj = np.zeros(count + 1, dtype=np.int64)
    cdef i64[::1] w_start = w_start_obj
    premises_obj = np.empty(n_just, dtype=np.int64)
    cdef i64[::1] premises = premises_obj
    cdef i64 n_premises = 0, x, k, j, r, y, e, c, q
    for x in range(count):
        for k in range(kept_start[x], kept_start[x + 1]):
            j = kept[k]
            just_claim[k] = x
            just_size[k] = ante_start[j + 1] - ante_start[j]
            if just_size[k] == 0:
                premises[n_premises] = k
                n_premises += 1
            for r in range(ante_start[j], ante_start[j + 1]):
                w_start[local[antes[r]] + 1] += 1
    cdef i64[::1] fill = offsets(w_start_obj)
    w_just_obj = np.empty(w_start[count], dtype=np.int64)
    cdef i64[::1] w_just = w_just_obj
    for k in range(n_just):
        j = kept[k]
        for r in range(ante_start[j], ante_start[j + 1]):
            y = local[antes[r]]
            w_just[fill[y]] = k
            fill[y] += 1
    evidence_obj = np.empty(count, dtype=np.int64)
    cdef i64[::1] evidence = evidence_obj
    ev_local_obj = np.empty(count, dtype=np.int64)
    cdef i64[::1] ev_local = ev_local_obj
    cdef i64 n_evidence = 0
    for x in range(count):
        if is_evidence[nodes[x]]:
            evidence[n_evidence] = nodes[x]
            ev_local[n_evidence] = x
            n_evidence += 1
    # node number -> evidence position (-1 for claims and nodes outside the cone)
    position_obj = np.full(is_evidence.shape[0], -1, dtype=np.int64)
    cdef i64[::1] position = position_obj
    for e in range(n_evidence):
        position[evidence[e]] = e
    a_start_obj = np.zeros(n_just + 1, dtype=np.int64)
    cdef i64[::1] a_start = a_start_obj
    for k in range(n_just):
        a_start[k + 1] = a_start[k] + just_size[k]
    a_local_obj = np.empty(a_start[n_just], dtype=np.int64)
    cdef i64[::1] a_local = a_local_obj
    for k in range(n_just):
        j = kept[k]
        for r in range(ante_start[j], ante_start[j + 1]):
            a_local[a_start[k] + r - ante_start[j]] = local[antes[r]]
    # the cone's strongly connected components through antecedents, antecedents first
    pred_start_obj = np.zeros(count + 1, dtype=np.int64)
    cdef i64[::1] pred_start = pred_start_obj
    for x in range(count):
        pred_start[x + 1] = pred_start[x] + a_start[kept_start[x + 1]] - a_start[kept_start[x]]
    # a claim's justifications are contiguous, so are its antecedents
    comp_of_obj, comp_nodes_obj, comp_start_obj = components(
        np.ones(count, dtype=np.uint8), pred_start_obj, a_local_obj
    )
    cdef i64[::1] comp_nodes = comp_nodes_obj
    cdef i64[::1] comp_start = comp_start_obj
    cyclic_obj = np.zeros(comp_start.shape[0] - 1, dtype=np.int64)
    cdef i64[::1] cyclic = cyclic_obj
    for c in range(cyclic.shape[0]):
        x = comp_nodes[comp_start[c]]
        cyclic[c] = comp_start[c + 1] - comp_start[c] > 1
        for q in range(pred_start[x], pred_start[x + 1]):
            if a_local[q] == x:
                cyclic[c] = 1
    return (
        evidence_obj[:n_evidence].copy(),
        position_obj,
        ev_local_obj[:n_evidence].copy(),
        premises_obj[:n_premises].copy(),
        w_start_obj,
        w_just_obj,
        just_claim_obj,
        just_size_obj,
        nodes_obj,
        kept_obj,
        a_start_obj,
        a_local_obj,
        kept_start_obj,
        comp_of_obj,
        comp_nodes_obj,
        comp_start_obj,
        cyclic_obj,
    )


cdef bint _premise_outside(const i64[:] body, i64[::1] external, i64 begin, i64 end) except -1:
    """Whether one of a loop's outside justifications ``external[begin:end]`` is a premise's
    (the loop is then always supported: no loop formula); every one must have a body."""
    cdef bint found = False
    cdef i64 z
    for z in range(begin, end):
        if body[external[z]] == PREMISE:
            found = True
        if body[external[z]] == UNUSED:
            raise AssertionError("a loop names a justification encoded without a body")
    return found


cdef class Cone:
    """The arrays of one claim's support cone (:func:`prepare`, root at local node 0) as
    typed views, with the scratch buffers of the least fixpoint: what every cone kernel
    below runs on."""

    cdef i64[::1] position, ev_local, premises, w_start, w_just, just_claim, just_size
    cdef i64[::1] a_start, a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic
    cdef i64[::1] missing, held, stack, node_log, just_log
    cdef u8[::1] mask, seen, queued, needed
    cdef u64[::1] word
    cdef i64 root, count, n_evidence
    cdef i64 logged_nodes, logged_justs

    def __init__(
        self, position, ev_local, premises, w_start, w_just, just_claim, just_size,
        a_start, a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic,
    ):
        self.position = position
        self.ev_local = ev_local
        self.premises = premises
        self.w_start = w_start
        self.w_just = w_just
        self.just_claim = just_claim
        self.just_size = just_size
        self.a_start = a_start
        self.a_local = a_local
        self.kept_start = kept_start
        self.comp_of = comp_of
        self.comp_nodes = comp_nodes
        self.comp_start = comp_start
        self.cyclic = cyclic
        self.root = 0
        self.count = self.w_start.shape[0] - 1
        self.n_evidence = self.ev_local.shape[0]
        self.missing = np.empty(self.just_size.shape[0], dtype=np.int64)
        self.held = np.zeros(self.count, dtype=np.int64)
        self.stack = np.empty(self.count + 1, dtype=np.int64)
        self.node_log = np.empty(self.count + 1, dtype=np.int64)
        self.just_log = np.empty(self.w_just.shape[0] + 1, dtype=np.int64)
        self.mask = np.zeros(self.n_evidence, dtype=np.uint8)
        self.seen = np.zeros(self.count, dtype=np.uint8)
        self.queued = np.zeros(self.count, dtype=np.uint8)
        self.needed = np.zeros(self.n_evidence, dtype=np.uint8)
        self.word = np.zeros(self.count, dtype=np.uint64)

    # -- the least fixpoint --

    cdef bint root_holds(self, u8[::1] mask) noexcept:
        """Whether the root is held in the least fixpoint of the evidence marked in
        ``mask``. ``held`` records the derivation: 0 for a node not held, -1 for present
        evidence, k + 1 for a claim first held through its justification k."""
        cdef i64 j, k, c, e, x, top = 0, present
        if mask.shape[0] == 0 and self.premises.shape[0] == 0:
            return False
        for j in range(self.just_size.shape[0]):
            self.missing[j] = self.just_size[j]
        self.held[:] = 0
        for j in range(self.premises.shape[0]):
            k = self.premises[j]
            c = self.just_claim[k]
            if not self.held[c]:
                self.held[c] = k + 1
                if c == self.root:
                    return True
                self.stack[top] = c
                top += 1
        for e in range(mask.shape[0]):  # without a branch: which evidence is present is data
            x = self.ev_local[e]
            present = mask[e]
            self.held[x] = -present
            self.stack[top] = x
            top += present
        return self.derive(top, False) >= 0

    cdef i64 derive(self, i64 top, bint log) noexcept:
        """Derive from the nodes ``stack[:top]`` (held already): each justification all of
        whose antecedents are held holds its claim, until the root is held or nothing is
        left. Returns -1 when the root did not come in, else 0; with ``log`` the claims it
        held are listed in ``node_log`` and the counts it took down in ``just_log``, their
        numbers in ``self._logged``."""
        cdef i64 nodes = 0, justs = 0, a, q, k, c
        while top:
            top -= 1
            a = self.stack[top]
            for q in range(self.w_start[a], self.w_start[a + 1]):
                k = self.w_just[q]
                self.missing[k] -= 1
                if log:
                    self.just_log[justs] = k
                    justs += 1
                if self.missing[k] == 0:
                    c = self.just_claim[k]
                    if not self.held[c]:
                        self.held[c] = k + 1
                        if log:
                            self.node_log[nodes] = c
                            nodes += 1
                        if c == self.root:
                            self.logged_nodes = nodes
                            self.logged_justs = justs
                            return 0
                        self.stack[top] = c
                        top += 1
        self.logged_nodes = nodes
        self.logged_justs = justs
        return -1

    cdef void mask_of(self, const i64[:] present) noexcept:
        """Mark the cone evidence among ``present`` (node numbers) in ``mask``."""
        cdef Py_ssize_t i
        cdef i64 p
        self.mask[:] = 0
        for i in range(present.shape[0]):
            p = self.position[present[i]]
            if p >= 0:
                self.mask[p] = 1

    cdef void support(self, u8[::1] mask) noexcept:
        """Keep in ``mask`` only the evidence of the derivation of the root that the last
        :meth:`root_holds` recorded in ``held`` (a true subset: the derivation stands on it)."""
        cdef i64 top = 1, k, r, y, e
        self.seen[:] = 0
        self.seen[self.root] = 1
        self.stack[0] = self.root
        while top:
            top -= 1
            k = self.held[self.stack[top]] - 1
            if k < 0:
                continue  # evidence
            for r in range(self.a_start[k], self.a_start[k + 1]):
                y = self.a_local[r]
                if not self.seen[y]:
                    self.seen[y] = 1
                    self.stack[top] = y
                    top += 1
        for e in range(mask.shape[0]):
            mask[e] = self.seen[self.ev_local[e]]

    cdef void fixpoints(self, u64 full) noexcept:
        """Up to 64 least fixpoints at once: bit i of ``word[x]`` is node x in fixpoint i.
        The evidence words are given; every claim's is computed (``full`` has the bits in
        use). Components are taken antecedents first, so an acyclic claim is evaluated once
        and a cyclic component grows from nothing by a worklist inside it. ``queued`` must
        be all zero (and is left so). A justification's word is the AND of all its
        antecedents' words, with no early exit: whether it is zero is data."""
        cdef i64 c, z, x, k, r, q, y, top
        cdef u64 value, v, grown
        cdef u64[::1] word = self.word
        for c in range(self.comp_start.shape[0] - 1):
            top = 0
            for z in range(self.comp_start[c], self.comp_start[c + 1]):
                x = self.comp_nodes[z]
                if self.kept_start[x] == self.kept_start[x + 1]:
                    continue  # evidence (its word is given), or a claim with no justification
                value = 0
                for k in range(self.kept_start[x], self.kept_start[x + 1]):
                    v = full
                    for r in range(self.a_start[k], self.a_start[k + 1]):
                        v &= word[self.a_local[r]]
                    value |= v
                word[x] = value
                if self.cyclic[c] and value:
                    self.queued[x] = 1
                    self.stack[top] = x
                    top += 1
            while top:
                top -= 1
                y = self.stack[top]
                self.queued[y] = 0
                for q in range(self.w_start[y], self.w_start[y + 1]):
                    k = self.w_just[q]
                    x = self.just_claim[k]
                    if self.comp_of[x] != c:
                        continue
                    v = full
                    for r in range(self.a_start[k], self.a_start[k + 1]):
                        v &= word[self.a_local[r]]
                    grown = word[x] | v
                    if grown != word[x]:
                        word[x] = grown
                        if not self.queued[x]:
                            self.queued[x] = 1
                            self.stack[top] = x
                            top += 1

    cdef u64 without_each(self, u8[::1] mask, i64[::1] tried, i64 m) noexcept:
        """The root in the least fixpoints of ``mask`` less each of ``tried[:m]`` (m <= 64
        positions, all in ``mask``), in one pass of :meth:`fixpoints`: bit i of the result is
        set when the root is in that of ``mask`` less ``tried[i]``, and bit m (when m < 64)
        when it is in that of ``mask`` itself."""
        cdef u64 full = lanes(m + 1)
        cdef i64 e, i
        self.word[:] = 0
        for e in range(mask.shape[0]):
            self.word[self.ev_local[e]] = full & (<u64>0 - <u64>mask[e])
        for i in range(m):
            self.word[self.ev_local[tried[i]]] &= ~((<u64>1) << i)
        self.fixpoints(full)
        return self.word[self.root] & full

    cdef u64 critical(self, u8[::1] mask, i64[::1] tried, i64 m) noexcept:
        """Which of the evidence ``tried[:m]`` (m <= 64 positions, all in ``mask``) the root
        needs: bit i set when the root is not in the least fixpoint of ``mask`` less
        ``tried[i]``."""
        return ~self.without_each(mask, tried, m) & lanes(m)

    cdef void shrink_true(self, u8[::1] mask) noexcept:
        """Shrink ``mask``, just found true by :meth:`root_holds`, to a minimal true subset.
        First only the evidence of the recorded derivation is kept; then :meth:`critical`
        tests up to 64 members at once: those the root needs stay needed in every subset,
        and the others are dropped one by one where the root still holds without them (one
        fixpoint each, keeping only the new derivation's evidence), kept where it does not,
        so every member left is needed."""
        cdef i64 tried_buffer[64]
        cdef i64[::1] tried = tried_buffer
        cdef i64 m, e, i
        cdef u64 bits
        self.needed[:] = 0
        self.support(mask)
        while True:
            m = 0
            for e in range(mask.shape[0]):
                if mask[e] and not self.needed[e]:
                    tried[m] = e
                    m += 1
                    if m == 64:
                        break
            if m == 0:
                return
            bits = self.critical(mask, tried, m)
            for i in range(m):
                if bits & ((<u64>1) << i):
                    self.needed[tried[i]] = 1
            for i in range(m):
                e = tried[i]
                if self.needed[e] or not mask[e]:
                    continue
                mask[e] = 0
                if self.root_holds(mask):
                    self.support(mask)
                else:
                    mask[e] = 1
                    self.needed[e] = 1

    cdef void grow_false(self, u8[::1] mask) noexcept:
        """Grow ``mask``, false, to a maximal false superset: add each evidence item in turn
        whose addition keeps the root out. The least fixpoint of the mask is computed once
        and then extended by each item (what the item adds is logged, and undone when the
        root comes in), so an item costs what it derives rather than a fixpoint from
        nothing."""
        cdef i64 e, x, z
        self.root_holds(mask)
        for e in range(mask.shape[0]):
            if mask[e]:
                continue
            x = self.ev_local[e]
            self.held[x] = -1
            self.stack[0] = x
            if self.derive(1, True) >= 0:
                for z in range(self.logged_justs):
                    self.missing[self.just_log[z]] += 1
                for z in range(self.logged_nodes):
                    self.held[self.node_log[z]] = 0
                self.held[x] = 0
            else:
                mask[e] = 1

    # -- the Python entries --

    def holds(self, const i64[:] present):
        """Whether the root holds when exactly the evidence ``present`` (node numbers) is."""
        self.mask_of(present)
        return bool(self.root_holds(self.mask))

    def examine(self, const i64[:] present):
        """``(1, positions of a minimal true subset)`` or ``(0, positions outside a maximal
        false superset)`` of the evidence ``present`` (node numbers)."""
        self.mask_of(present)
        mask = np.asarray(self.mask)
        if self.root_holds(self.mask):
            self.shrink_true(self.mask)
            return 1, np.flatnonzero(mask)
        self.grow_false(self.mask)
        return 0, np.flatnonzero(mask == 0)

    def critical_of(self, u8[::1] mask, i64[::1] tried, i64 m):
        """:meth:`critical` on an explicit mask (for the tests)."""
        return int(self.critical(mask, tried, m))

    def unfounded_loops(self, const i64[:] present):
        """For evidence under which the root does not hold: ``(members, member_start,
        external, ext_start)``, loop i being ``members[member_start[i]:member_start[i +
        1]]`` (local nodes) and its outside justifications
        ``external[ext_start[i]:ext_start[i + 1]]`` (kept-justification indices)."""
        cdef i64 count = self.count, n_just = self.just_size.shape[0]
        cdef i64 x, e, q, k, c, top = 0, y, z, first, last
        cdef bint looped
        self.mask_of(present)
        self.held[:] = 0
        self.root_holds(self.mask)
        cdef u8[::1] evidence = np.zeros(count, dtype=np.uint8)
        for e in range(self.ev_local.shape[0]):
            evidence[self.ev_local[e]] = 1 if self.mask[e] else 2  # 1 present, 2 absent
        cdef i64[::1] bad = np.zeros(n_just, dtype=np.int64)
        for x in range(count):
            if evidence[x] == 2:
                for q in range(self.w_start[x], self.w_start[x + 1]):
                    bad[self.w_just[q]] += 1
        cdef u8[::1] alive = np.zeros(count, dtype=np.uint8)
        cdef i64[::1] live = np.zeros(count, dtype=np.int64)
        for x in range(count):
            if evidence[x] == 0:
                alive[x] = 1
                for k in range(self.kept_start[x], self.kept_start[x + 1]):
                    if bad[k] == 0:
                        live[x] += 1
                if live[x] == 0:
                    alive[x] = 0
                    self.stack[top] = x
                    top += 1
        while top:  # the greatest supported set: drop claims left with no available one
            top -= 1
            c = self.stack[top]
            for q in range(self.w_start[c], self.w_start[c + 1]):
                k = self.w_just[q]
                bad[k] += 1
                if bad[k] == 1:
                    x = self.just_claim[k]
                    live[x] -= 1
                    if live[x] == 0 and alive[x]:
                        alive[x] = 0
                        self.stack[top] = x
                        top += 1
        in_u_obj = np.zeros(count, dtype=np.uint8)
        cdef u8[::1] in_u = in_u_obj
        for x in range(count):
            if alive[x] and not self.held[x]:
                in_u[x] = 1
        # the loops of U: its strongly connected components through justifications inside U
        pred_start_obj = np.zeros(count + 1, dtype=np.int64)
        cdef i64[::1] pred_start = pred_start_obj
        for y in range(count):
            if in_u[y]:
                for q in range(self.w_start[y], self.w_start[y + 1]):
                    if in_u[self.just_claim[self.w_just[q]]]:
                        pred_start[self.just_claim[self.w_just[q]] + 1] += 1
        cdef i64[::1] fill = offsets(pred_start_obj)
        preds_obj = np.empty(pred_start[count], dtype=np.int64)
        cdef i64[::1] preds = preds_obj
        for y in range(count):
            if in_u[y]:
                for q in range(self.w_start[y], self.w_start[y + 1]):
                    x = self.just_claim[self.w_just[q]]
                    if in_u[x]:
                        preds[fill[x]] = y
                        fill[x] += 1
        comp_of_obj, comp_nodes_obj, comp_start_obj = components(
            in_u_obj, pred_start_obj, preds_obj
        )
        cdef i64[::1] comp_of = comp_of_obj
        cdef i64[::1] comp_nodes = comp_nodes_obj
        cdef i64[::1] comp_start = comp_start_obj
        cdef i64[::1] stamp = np.zeros(n_just, dtype=np.int64)
        cdef i64 n_comps = comp_start.shape[0] - 1
        members_obj = np.empty(count, dtype=np.int64)
        cdef i64[::1] members = members_obj
        loop_start_obj = np.zeros(n_comps + 1, dtype=np.int64)
        cdef i64[::1] loop_start = loop_start_obj
        external_obj = np.empty(n_just, dtype=np.int64)
        cdef i64[::1] external = external_obj
        ext_start_obj = np.zeros(n_comps + 1, dtype=np.int64)
        cdef i64[::1] ext_start = ext_start_obj
        cdef i64 loops = 0, n_members = 0, n_external = 0
        for c in range(n_comps):
            first = comp_start[c]
            last = comp_start[c + 1]
            x = comp_nodes[first]
            looped = last - first > 1
            for q in range(pred_start[x], pred_start[x + 1]):
                looped = looped or preds[q] == x
            if not looped:
                continue
            for z in range(first, last):
                y = comp_nodes[z]
                for q in range(self.w_start[y], self.w_start[y + 1]):
                    if comp_of[self.just_claim[self.w_just[q]]] == c:
                        stamp[self.w_just[q]] = c + 1
            for z in range(first, last):
                y = comp_nodes[z]
                members[n_members] = y
                n_members += 1
                for k in range(self.kept_start[y], self.kept_start[y + 1]):
                    if stamp[k] != c + 1:
                        external[n_external] = k
                        n_external += 1
            loops += 1
            loop_start[loops] = n_members
            ext_start[loops] = n_external
        return (
            members_obj[:n_members].copy(),
            loop_start_obj[: loops + 1].copy(),
            external_obj[:n_external].copy(),
            ext_start_obj[: loops + 1].copy(),
        )

    def loop_cut_arrays(self, const i64[:] present, const i64[:] holds, const i64[:] body):
        """The loop formulas of :meth:`unfounded_loops` over a :func:`encode` encoding's
        literals (``holds`` per local node, ``body`` per kept justification), flattened:
        clause i is ``literals[start[i]:start[i + 1]]``."""
        members_obj, member_start_obj, external_obj, ext_start_obj = self.unfounded_loops(present)
        cdef i64[::1] members = members_obj
        cdef i64[::1] member_start = member_start_obj
        cdef i64[::1] external = external_obj
        cdef i64[::1] ext_start = ext_start_obj
        literals_obj = np.empty(
            max(16, members.shape[0] * (1 + external.shape[0])), dtype=np.int64
        )
        cdef i64[::1] literals = literals_obj
        start_obj = np.zeros(members.shape[0] + 1, dtype=np.int64)
        cdef i64[::1] start = start_obj
        cdef i64 clauses = 0, used = 0, g, z, y
        for g in range(member_start.shape[0] - 1):
            if _premise_outside(body, external, ext_start[g], ext_start[g + 1]):
                continue
            for y in range(member_start[g], member_start[g + 1]):
                literals[used] = -holds[members[y]]
                used += 1
                for z in range(ext_start[g], ext_start[g + 1]):
                    literals[used] = body[external[z]]
                    used += 1
                clauses += 1
                start[clauses] = used
        return literals_obj[:used].copy(), start_obj[: clauses + 1].copy()

    def loop_cut_shared(
        self, const i64[:] present, const i64[:] holds, const i64[:] body, i64 top
    ):
        """:meth:`loop_cut_arrays` with the outside bodies of a loop of m > 1 members written
        once: a new variable s (``top + 1``, ``top + 2``, ... in turn) with ``-s or
        bodies`` and ``-h_u or s`` for each member u, m + x + 1 + m literals for a loop with x
        outside bodies instead of m (x + 1), and the same unit propagation. Returns
        ``(literals, start, top)``, ``top`` the last variable used."""
        members_obj, member_start_obj, external_obj, ext_start_obj = self.unfounded_loops(present)
        cdef i64[::1] members = members_obj
        cdef i64[::1] member_start = member_start_obj
        cdef i64[::1] external = external_obj
        cdef i64[::1] ext_start = ext_start_obj
        cdef i64 loops = member_start.shape[0] - 1
        literals_obj = np.empty(
            max(16, 3 * members.shape[0] + loops + external.shape[0]), dtype=np.int64
        )
        cdef i64[::1] literals = literals_obj
        start_obj = np.zeros(members.shape[0] + loops + 1, dtype=np.int64)
        cdef i64[::1] start = start_obj
        cdef i64 clauses = 0, used = 0, g, z, y, s
        for g in range(loops):
            if _premise_outside(body, external, ext_start[g], ext_start[g + 1]):
                continue
            if member_start[g + 1] - member_start[g] == 1:
                literals[used] = -holds[members[member_start[g]]]
                used += 1
            else:
                top += 1
                s = top
                for y in range(member_start[g], member_start[g + 1]):
                    literals[used] = -holds[members[y]]
                    literals[used + 1] = s
                    used += 2
                    clauses += 1
                    start[clauses] = used
                literals[used] = -s
                used += 1
            for z in range(ext_start[g], ext_start[g + 1]):
                literals[used] = body[external[z]]
                used += 1
            clauses += 1
            start[clauses] = used
        return literals_obj[:used].copy(), start_obj[: clauses + 1].copy(), top

    def encode(self, i64 distribute):
        """The root-true completion of the cone as CNF (:func:`theory.solver.cone_cnf.cone_cnf`):
        ``(literals, start, holds, body, variables, forward)``."""
        return _encode(self, distribute)

    def exchange_step(
        self, const i64[:] present, rows, cols, i64 count, i64[::1] freq, i64[::1] tally,
        i64 attempts, i64 patience,
    ):
        """:meth:`theory.solver.exchange.Exchange.step_positions`: decide the evidence
        positions ``present``, then exchange from every new set within ``attempts``.
        Returns ``(kind, rows, cols, count, flat, start)``."""
        return _exchange_step(self, present, rows, cols, count, freq, tally, attempts, patience)


# --- the completion of a cone as CNF -------------------------------------------------------


cdef class _Clauses:
    """A growing flat list of clauses."""

    cdef object literals_obj, start_obj
    cdef i64[::1] literals, start
    cdef i64 count, used

    def __init__(self):
        self.literals_obj = np.empty(1024, dtype=np.int64)
        self.start_obj = np.zeros(256, dtype=np.int64)
        self.literals = self.literals_obj
        self.start = self.start_obj
        self.count = 0
        self.used = 0

    cdef void add(self, i64[::1] clause, i64 size):
        cdef i64 i
        while self.used + size > self.literals.shape[0]:
            self.literals_obj = doubled(self.literals_obj)
            self.literals = self.literals_obj
        if self.count + 2 > self.start.shape[0]:
            self.start_obj = doubled(self.start_obj)
            self.start = self.start_obj
        for i in range(size):
            self.literals[self.used + i] = clause[i]
        self.used += size
        self.count += 1
        self.start[self.count] = self.used


cdef object _encode(Cone cone, i64 distribute):
    cdef i64 count = cone.kept_start.shape[0] - 1
    cdef i64 n_just = cone.a_start.shape[0] - 1
    holds_obj = np.zeros(count, dtype=np.int64)
    cdef i64[::1] holds = holds_obj
    cdef i64 p, x, top, h, first, last, k, size, product, i, lit, t, c, z, r, members
    cdef bint premise, duplicate, supported, internal
    for p in range(cone.ev_local.shape[0]):
        holds[cone.ev_local[p]] = p + 1
    top = cone.ev_local.shape[0]
    cdef i64[::1] evidence = holds_obj.copy()
    for x in range(count):
        if evidence[x] == 0:
            top += 1
            holds[x] = top
    body_obj = np.zeros(n_just, dtype=np.int64)
    cdef i64[::1] body = body_obj
    cdef _Clauses out = _Clauses()
    cdef i64[::1] clause = np.empty(max(16, count + n_just + 2), dtype=np.int64)
    cdef i64[::1] choice = np.zeros(64, dtype=np.int64)
    cdef i64[::1] a_start = cone.a_start
    cdef i64[::1] a_local = cone.a_local
    cdef i64[::1] claim_kept = cone.kept_start
    cdef i64[::1] comp_of = cone.comp_of
    cdef i64[::1] comp_nodes = cone.comp_nodes
    cdef i64[::1] comp_start = cone.comp_start
    cdef i64[::1] cyclic = cone.cyclic
    for x in range(count):
        if evidence[x]:
            continue
        h = holds[x]
        first = claim_kept[x]
        last = claim_kept[x + 1]
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
                out.add(clause, size)
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
                    out.add(clause, 2)
        if not premise:
            size = 0
            clause[size] = -h
            size += 1
            for k in range(first, last):
                clause[size] = body[k]
                size += 1
            out.add(clause, size)
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
            out.add(clause, size)
            continue
        top += 1
        clause[0] = -top
        out.add(clause, size)
        for z in range(comp_start[c], comp_start[c + 1]):
            clause[0] = -holds[comp_nodes[z]]
            clause[1] = top
            out.add(clause, 2)
    cdef i64 forward = out.count
    # then the other direction: a justification whose antecedents hold makes its claim (and
    # its body) hold, so the evidence alone fixes every acyclic claim
    for x in range(count):
        if evidence[x]:
            continue
        for k in range(claim_kept[x], claim_kept[x + 1]):
            size = 0
            for r in range(a_start[k], a_start[k + 1]):
                clause[size] = -holds[a_local[r]]
                size += 1
            clause[size] = holds[x]
            out.add(clause, size + 1)
            if body[k] > 0 and size > 1:
                clause[size] = body[k]
                out.add(clause, size + 1)
    return (
        out.literals_obj[: out.used].copy(),
        out.start_obj[: out.count + 1].copy(),
        holds_obj,
        body_obj,
        top,
        forward,
    )


# --- exchange ---------------------------------------------------------------------------------


def row_positions(rows_obj, i64 first, i64 last):
    """Rows ``first:last`` of found sets as evidence positions, flattened: set i is
    ``flat[start[i]:start[i + 1]]``; returns ``(flat, start)``."""
    cdef u64[:, ::1] rows = rows_obj
    start_obj = np.zeros(last - first + 1, dtype=np.int64)
    cdef i64[::1] start = start_obj
    cdef i64 r, c, i = 0
    cdef Py_ssize_t w
    cdef u64 bits
    for r in range(first, last):
        c = 0
        for w in range(rows.shape[1]):
            c += popc(rows[r, w])
        start[r - first + 1] = start[r - first] + c
    flat_obj = np.empty(start[last - first], dtype=np.int64)
    cdef i64[::1] flat = flat_obj
    for r in range(first, last):
        for w in range(rows.shape[1]):
            bits = rows[r, w]
            while bits:
                flat[i] = 64 * w + lowbit(bits)
                i += 1
                bits &= bits - 1
    return flat_obj, start_obj


cdef i64 _most_found(u64[::1] row, u64[::1] avoid, i64[::1] freq) noexcept:
    """The member of ``row`` in the most found sets (``freq``), among those outside
    ``avoid`` if there are any (``avoid`` = ``row`` itself: among all); -1 for none."""
    cdef i64 chosen = -1, x
    cdef int outside
    cdef Py_ssize_t w
    cdef u64 bits
    for outside in range(1, -1, -1):
        for w in range(row.shape[0]):
            bits = row[w] & ~avoid[w] if outside else row[w]
            while bits:
                x = 64 * w + lowbit(bits)
                if chosen < 0 or freq[x] > freq[chosen]:
                    chosen = x
                bits &= bits - 1
        if chosen >= 0:
            return chosen
    return chosen


cdef void _pool(
    u64[::1] pool, i64 e, u64[::1] full, u64[::1] parent, u64[:, ::1] rows, u64[:, ::1] cols,
    i64 count, i64[::1] freq, u64[::1] hit,
) noexcept:
    """All the evidence less e, less one member of every found set still inside: ``hit``
    marks the rows that miss a member (those holding e, then those holding each member
    dropped); the member dropped is one outside the parent where there is one, in the most
    found sets (so that few members cut them all)."""
    cdef Py_ssize_t w
    cdef i64 spans = (count + 63) >> 6, q, chosen
    cdef u64 free
    for w in range(pool.shape[0]):
        pool[w] = full[w]
    pool[e >> 6] &= ~((<u64>1) << (e & 63))
    for w in range(spans):
        hit[w] = cols[e, w]
    while True:
        q = -1
        for w in range(spans):
            free = ~hit[w] & lanes(count - 64 * w)
            if free:
                q = 64 * w + lowbit(free)
                break
        if q < 0:
            return
        chosen = _most_found(rows[q], parent, freq)
        pool[chosen >> 6] &= ~((<u64>1) << (chosen & 63))
        for w in range(spans):
            hit[w] |= cols[chosen, w]


cdef object _append(object rows_obj, object cols_obj, i64 count, u8[::1] mask, i64[::1] freq):
    """Add the set in ``mask`` as row ``count``; ``cols[e]`` is the bitset of the rows
    holding e."""
    if count == rows_obj.shape[0]:
        grown = np.zeros((2 * rows_obj.shape[0], rows_obj.shape[1]), dtype=np.uint64)
        grown[:count] = rows_obj
        rows_obj = grown
    if count >> 6 >= cols_obj.shape[1]:
        wider = np.zeros((cols_obj.shape[0], 2 * cols_obj.shape[1]), dtype=np.uint64)
        wider[:, : cols_obj.shape[1]] = cols_obj
        cols_obj = wider
    cdef u64[:, ::1] rows = rows_obj
    cdef u64[:, ::1] cols = cols_obj
    cdef Py_ssize_t w, e
    for w in range(rows.shape[1]):
        rows[count, w] = 0
    for e in range(mask.shape[0]):
        if mask[e]:
            rows[count, e >> 6] |= (<u64>1) << (e & 63)
            cols[e, count >> 6] |= (<u64>1) << (count & 63)
            freq[e] += 1
    return rows_obj, cols_obj


cdef object _exchange_step(
    Cone cone, const i64[:] present, object rows_obj, object cols_obj, i64 count,
    i64[::1] freq, i64[::1] tally, i64 attempts, i64 patience,
):
    cdef u8[::1] mask = cone.mask
    cdef Py_ssize_t n = mask.shape[0]
    cdef i64 m = present.shape[0], i, x, r, chosen, e, member, head, budget, misses, first
    cdef i64 batch_first
    cdef Py_ssize_t w, p
    cdef bint minimal = False, inside
    cdef u64 held_in, bits, good, v
    tally[0] += 1
    mask[:] = 0
    for p in range(m):
        mask[present[p]] = 1
    cdef i64[::1] tried
    if 0 < m < 64:
        # a minimal true set is recognised by one pass of 64-lane fixpoints: the set (lane
        # m) and the set less each member (lane i) at once
        tried = np.array(present, dtype=np.int64)
        held_in = cone.without_each(mask, tried, m)
        minimal = held_in == (<u64>1) << m
    if not minimal:
        if not cone.root_holds(mask):
            cone.grow_false(mask)
            outside = np.flatnonzero(np.asarray(mask) == 0)
            return 0, rows_obj, cols_obj, count, outside, np.array([0, outside.shape[0]], dtype=np.int64)
        cone.shrink_true(mask)
    first = count
    rows_obj, cols_obj = _append(rows_obj, cols_obj, count, mask, freq)
    count += 1
    if attempts <= 0 or patience <= 0:
        flat, start = row_positions(rows_obj, first, count)
        return 1, rows_obj, cols_obj, count, flat, start
    cdef Py_ssize_t words = rows_obj.shape[1]
    cdef u64[::1] full = np.empty(words, dtype=np.uint64)
    for w in range(words):
        full[w] = lanes(n - 64 * w)
    cdef u64[:, ::1] pools = np.empty((64, words), dtype=np.uint64)
    hit_obj = np.zeros(cols_obj.shape[1], dtype=np.uint64)
    cdef u64[::1] hit = hit_obj
    cdef u64[:, ::1] rows = rows_obj
    cdef u64[:, ::1] cols = cols_obj
    cdef u64[::1] parent
    cdef u64[::1] word = cone.word
    head = count - 1  # the set whose members are being exchanged
    member = 0  # the next of its members
    budget = attempts
    misses = 0
    while budget > 0 and misses < patience:
        # up to 64 pools, from the members of the sets in queue order
        m = 0
        while m < 64 and m < budget and head < count:
            parent = rows[head]
            e = -1
            while member < n:
                if parent[member >> 6] & ((<u64>1) << (member & 63)):
                    e = member
                    member += 1
                    break
                member += 1
            if e < 0:
                head += 1
                member = 0
                continue
            _pool(pools[m], e, full, parent, rows, cols, count, freq, hit)
            m += 1
        if m == 0:
            break
        # one pass decides all m pools: bit i of an evidence word is pool i holding it
        bits = lanes(m)
        word[:] = 0
        for x in range(n):
            v = 0
            for i in range(m):  # without a branch: whether pool i holds x is data
                v |= ((pools[i, x >> 6] >> (x & 63)) & 1) << i
            word[cone.ev_local[x]] = v
        cone.fixpoints(bits)
        good = word[cone.root]
        batch_first = count
        for i in range(m):
            budget -= 1
            tally[1] += 1
            if not good & ((<u64>1) << i):
                misses += 1
                continue
            # the pool holds no set found before the batch; each set the batch found inside
            # it loses its most frequent member, so whatever the pool shrinks to is new
            for r in range(batch_first, count):
                inside = True
                for w in range(words):
                    if rows[r, w] & ~pools[i, w]:
                        inside = False
                        break
                if not inside:
                    continue
                chosen = _most_found(rows[r], rows[r], freq)
                pools[i, chosen >> 6] &= ~((<u64>1) << (chosen & 63))
            for x in range(n):
                mask[x] = (pools[i, x >> 6] >> (x & 63)) & 1
            if not cone.root_holds(mask):  # also records the derivation the shrink starts from
                misses += 1
                continue
            cone.shrink_true(mask)
            rows_obj, cols_obj = _append(rows_obj, cols_obj, count, mask, freq)
            rows = rows_obj
            cols = cols_obj
            count += 1
            tally[2] += 1
            misses = 0
            if hit.shape[0] < cols.shape[1]:
                hit_obj = np.zeros(cols.shape[1], dtype=np.uint64)
                hit = hit_obj
    flat, start = row_positions(rows_obj, first, count)
    return 1, rows_obj, cols_obj, count, flat, start
