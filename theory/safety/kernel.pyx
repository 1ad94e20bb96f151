# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The verdicts of :func:`theory.safety.check.verdicts`, compiled ahead of time (Cython), one
block of evidence at a time.

Definitions (docs/design.md section 2): ``ancestors(c)`` is the least fixpoint of unions over
every justification in force, ``critical(c)`` the greatest fixpoint of AND over intact
justifications of OR over their antecedents, with "all" (no intact justification counted
yet) as the top. The interpreted definition stays only as the test oracle
(:func:`theory.testing.reference.reference_verdicts`, compared in ``tests/theory/test_safety.py``).
How it runs, so that memory is bounded by what is kept:

- Both fixpoints are bitwise: whether evidence ``e`` is in a node's set depends only on
  whether it is in the others'. So the evidence can be cut into ranges, each solved on
  its own within fixed buffers. Critical sets (small: inside every minimal justification)
  are solved for all the evidence at once (:func:`critical`), in ranges only when they do
  not fit; ancestors (large: most of the evidence, for a claim downstream of a big loop)
  one block at a time (:func:`ancestors`), each block as large as the last one's use says
  fits, then :func:`tally` counts. What survives is per node: the number of violations,
  the first few witnesses, and (while a claim has none) its critical evidence, which is
  its unique minimal justification when it stays safe.
- Ancestors are kept per strongly connected component (its members share them), as a
  sorted list while sparse and as bitset words when dense, read through one short row per
  component of its direct evidence and its predecessor components
  (:func:`component_inputs`, computed once); critical sets per claim as sorted lists.
- The order is computed once: the components of the claims through the justifications in
  force, in topological order, for the ancestors; and those through intact justifications
  between active claims, for the critical sets (a loop is solved with a worklist from the
  top).

Nodes are the numbers of any :class:`~theory.model.index.IndexView`; the bit of evidence ``e``
is ``bit_of[e]``, chosen by the caller (in id order, so the first witnesses are the
smallest ids). Arrays: int64 offsets and node numbers, uint8 flags, int32 set items, uint64
bitset words, as :func:`theory.safety.check.count_verdicts` builds them.
"""

from collections import namedtuple

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport qsort

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil


Order = namedtuple(
    "Order",
    "comp_nodes comp_start comp_of part_nodes part_start part_of succ_start succ",
)
Order.__doc__ = """Node orders for the two fixpoints (compressed components, topological order):
claims component by component (int32) with int64 starts and each claim's component (int32,
-1 for evidence), through the justifications in force (``comp_*``) and through intact
justifications between active claims (``part_*``), and the active claims whose intact
justification uses each node (``succ_start``, ``succ``)."""


cdef int _cmp_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0]
    cdef int32_t y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline void _sort32(int32_t[::1] values, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Sort ``values[lo:hi]`` in place (insertion sort when short, else qsort)."""
    cdef Py_ssize_t i, j
    cdef int32_t v
    if hi - lo <= 16:
        for i in range(lo + 1, hi):
            v = values[i]
            j = i
            while j > lo and values[j - 1] > v:
                values[j] = values[j - 1]
                j -= 1
            values[j] = v
    elif hi > lo:
        qsort(&values[lo], hi - lo, sizeof(int32_t), _cmp_int32)


cdef inline Py_ssize_t _lower32(const int32_t[::1] values, Py_ssize_t lo, Py_ssize_t hi, int64_t key) noexcept nogil:
    """The first position in the sorted ``values[lo:hi]`` whose value is >= ``key``."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline int64_t _claim_antecedents(
    Py_ssize_t m, const uint8_t[::1] is_evidence, const int64_t[::1] just_start,
    const int64_t[::1] justs, const int64_t[::1] ante_start, const int64_t[::1] antes,
    const uint8_t[::1] use_just, const uint8_t[::1] node_ok, int32_t* out,
) noexcept nogil:
    """How many claims are among the antecedents of node ``m``'s usable justifications
    (repeats kept; none unless ``m`` is a usable claim), written from ``out[0]`` on unless
    ``out`` is NULL."""
    cdef int64_t count = 0, j, a
    cdef Py_ssize_t k, p
    if not node_ok[m] or is_evidence[m]:
        return 0
    for k in range(just_start[m], just_start[m + 1]):
        j = justs[k]
        if use_just[j]:
            for p in range(ante_start[j], ante_start[j + 1]):
                a = antes[p]
                if node_ok[a] and not is_evidence[a]:
                    if out != NULL:
                        out[count] = <int32_t>a
                    count += 1
    return count


def _predecessors(
    Py_ssize_t size,
    const uint8_t[::1] is_evidence,
    const int64_t[::1] just_start,
    const int64_t[::1] justs,
    const int64_t[::1] ante_start,
    const int64_t[::1] antes,
    const uint8_t[::1] use_just,
    const uint8_t[::1] node_ok,
):
    """Claim -> the claims among the antecedents of its usable justifications (repeats kept)."""
    start_arr = np.zeros(size + 1, dtype=np.int64)
    cdef int64_t[::1] start = start_arr
    cdef Py_ssize_t m
    with nogil:
        for m in range(size):
            start[m + 1] = start[m] + _claim_antecedents(
                m, is_evidence, just_start, justs, ante_start, antes, use_just, node_ok, NULL
            )
    pred_arr = np.empty(start[size], dtype=np.int32)
    cdef int32_t[::1] pred = pred_arr
    if start[size] == 0:
        return start_arr, pred_arr
    with nogil:
        for m in range(size):
            _claim_antecedents(
                m, is_evidence, just_start, justs, ante_start, antes, use_just, node_ok,
                &pred[start[m]] if start[m] < start[size] else NULL,
            )
    return start_arr, pred_arr


def _tarjan(
    Py_ssize_t size,
    const uint8_t[::1] is_evidence,
    const uint8_t[::1] node_ok,
    const int64_t[::1] pred_start,
    const int32_t[::1] pred,
):
    """Strongly connected components of the usable claims, antecedents first (iterative Tarjan)."""
    number_arr = np.full(size, -1, dtype=np.int64)
    low_arr = np.zeros(size, dtype=np.int64)
    on_stack_arr = np.zeros(size, dtype=np.uint8)
    stack_arr = np.empty(size, dtype=np.int32)
    work_node_arr = np.empty(size, dtype=np.int32)
    work_ptr_arr = np.empty(size, dtype=np.int64)
    nodes_arr = np.empty(size, dtype=np.int32)
    starts_arr = np.empty(size + 1, dtype=np.int64)
    comp_of_arr = np.full(size, -1, dtype=np.int32)
    cdef int64_t[::1] number = number_arr, low = low_arr, work_ptr = work_ptr_arr, starts = starts_arr
    cdef uint8_t[::1] on_stack = on_stack_arr
    cdef int32_t[::1] stack = stack_arr, work_node = work_node_arr, nodes = nodes_arr
    cdef int32_t[::1] comp_of = comp_of_arr
    cdef int64_t counter = 0, p
    cdef Py_ssize_t sp = 0, filled = 0, components = 0, wp, root
    cdef int32_t v, w, u
    with nogil:
        starts[0] = 0
        for root in range(size):
            if not node_ok[root] or is_evidence[root] or number[root] != -1:
                continue
            number[root] = counter
            low[root] = counter
            counter += 1
            stack[sp] = <int32_t>root
            sp += 1
            on_stack[root] = 1
            work_node[0] = <int32_t>root
            work_ptr[0] = pred_start[root]
            wp = 1
            while wp > 0:
                v = work_node[wp - 1]
                p = work_ptr[wp - 1]
                if p < pred_start[v + 1]:
                    work_ptr[wp - 1] = p + 1
                    w = pred[p]
                    if number[w] == -1:
                        number[w] = counter
                        low[w] = counter
                        counter += 1
                        stack[sp] = w
                        sp += 1
                        on_stack[w] = 1
                        work_node[wp] = w
                        work_ptr[wp] = pred_start[w]
                        wp += 1
                    elif on_stack[w] and number[w] < low[v]:
                        low[v] = number[w]
                    continue
                wp -= 1
                if wp > 0:
                    u = work_node[wp - 1]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == number[v]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = 0
                        nodes[filled] = w
                        comp_of[w] = <int32_t>components
                        filled += 1
                        if w == v:
                            break
                    components += 1
                    starts[components] = filled
    return nodes_arr[:filled].copy(), starts_arr[: components + 1].copy(), comp_of_arr


def _successors(Py_ssize_t size, const int64_t[::1] pred_start, const int32_t[::1] pred):
    """The reverse of a predecessor list (a pair repeats as often as it does there)."""
    start_arr = np.zeros(size + 1, dtype=np.int64)
    cdef int64_t[::1] start = start_arr
    cdef Py_ssize_t m, n, p
    cdef int32_t a
    with nogil:
        for m in range(size):
            for p in range(pred_start[m], pred_start[m + 1]):
                start[pred[p] + 1] += 1
        for n in range(size):
            start[n + 1] += start[n]
    fill_arr = start_arr[:size].copy()
    cdef int64_t[::1] fill = fill_arr
    succ_arr = np.empty(start[size], dtype=np.int32)
    cdef int32_t[::1] succ = succ_arr
    with nogil:
        for m in range(size):
            for p in range(pred_start[m], pred_start[m + 1]):
                a = pred[p]
                succ[fill[a]] = <int32_t>m
                fill[a] += 1
    return start_arr, succ_arr


def _intact(
    const int64_t[::1] just_start,
    const int64_t[::1] justs,
    const int64_t[::1] ante_start,
    const int64_t[::1] antes,
    const uint8_t[::1] kept,
    const uint8_t[::1] active,
):
    """Justifications in force whose claim and antecedents are all active."""
    result_arr = np.zeros(ante_start.shape[0] - 1, dtype=np.uint8)
    cdef uint8_t[::1] result = result_arr
    cdef Py_ssize_t m, k, p
    cdef int64_t j
    cdef bint ok
    with nogil:
        for m in range(just_start.shape[0] - 1):
            if not active[m]:
                continue
            for k in range(just_start[m], just_start[m + 1]):
                j = justs[k]
                if not kept[j]:
                    continue
                ok = True
                for p in range(ante_start[j], ante_start[j + 1]):
                    if not active[antes[p]]:
                        ok = False
                        break
                if ok:
                    result[j] = 1
    return result_arr


def order(is_evidence, just_start, justs, ante_start, antes, kept, active):
    """The component orders (:class:`Order`) of the graph whose justifications in force are
    ``kept`` (uint8 per justification), ``active`` the least fixpoint (uint8 per node)."""
    size = len(is_evidence)
    everything = np.ones(size, dtype=np.uint8)
    pred_start, pred = _predecessors(
        size, is_evidence, just_start, justs, ante_start, antes, kept, everything
    )
    comp_nodes, comp_start, comp_of = _tarjan(size, is_evidence, everything, pred_start, pred)
    del pred_start, pred
    intact = _intact(just_start, justs, ante_start, antes, kept, active)
    pred_start, pred = _predecessors(
        size, is_evidence, just_start, justs, ante_start, antes, intact, active
    )
    part_nodes, part_start, part_of = _tarjan(size, is_evidence, active, pred_start, pred)
    succ_start, succ = _successors(size, pred_start, pred)
    return Order(comp_nodes, comp_start, comp_of, part_nodes, part_start, part_of, succ_start, succ)


def component_inputs(
    const int64_t[::1] bit_of,
    const int64_t[::1] row_of,
    const int64_t[::1] just_start,
    const int64_t[::1] justs,
    const int64_t[::1] ante_start,
    const int64_t[::1] antes,
    const uint8_t[::1] kept,
    const int32_t[::1] comp_nodes,
    const int64_t[::1] comp_start,
    const int32_t[::1] comp_of,
):
    """Per component (compressed rows): the bits of the evidence among the antecedents of
    its members' justifications in force, sorted and distinct, and the other components
    among them, distinct. Computed once, so that each block of evidence reads one short row
    per component instead of every justification of every member."""
    cdef Py_ssize_t components = comp_start.shape[0] - 1
    cdef Py_ssize_t size = row_of.shape[0]
    seen_arr = np.full(size, -1, dtype=np.int64)  # node -> the last component that listed it
    seen_comp_arr = np.full(components + 1, -1, dtype=np.int64)
    ev_start_arr = np.zeros(components + 1, dtype=np.int64)
    pc_start_arr = np.zeros(components + 1, dtype=np.int64)
    bits_arr = np.empty(max(1, antes.shape[0]), dtype=np.int32)
    preds_arr = np.empty(max(1, antes.shape[0]), dtype=np.int32)
    cdef int64_t[::1] seen = seen_arr, seen_comp = seen_comp_arr
    cdef int64_t[::1] ev_start = ev_start_arr, pc_start = pc_start_arr
    cdef int32_t[::1] bits = bits_arr, preds = preds_arr
    cdef Py_ssize_t n_bits = 0, n_preds = 0, c, q, k, p, first
    cdef int64_t m, j, a
    cdef int32_t ca
    with nogil:
        for c in range(components):
            first = n_bits
            for q in range(comp_start[c], comp_start[c + 1]):
                m = comp_nodes[q]
                for k in range(just_start[m], just_start[m + 1]):
                    j = justs[k]
                    if not kept[j]:
                        continue
                    for p in range(ante_start[j], ante_start[j + 1]):
                        a = antes[p]
                        if row_of[a] < 0:
                            if seen[a] != c:
                                seen[a] = c
                                bits[n_bits] = <int32_t>bit_of[a]
                                n_bits += 1
                            continue
                        ca = comp_of[a]
                        if ca != c and seen_comp[ca] != c:
                            seen_comp[ca] = c
                            preds[n_preds] = ca
                            n_preds += 1
            _sort32(bits, first, n_bits)
            ev_start[c + 1] = n_bits
            pc_start[c + 1] = n_preds
    return ev_start_arr, bits_arr[:n_bits].copy(), pc_start_arr, preds_arr[:n_preds].copy()


cdef Py_ssize_t _update(
    int64_t m,
    int64_t lo_bit,
    int64_t hi_bit,
    const int64_t[::1] bit_of,
    const int64_t[::1] row_of,
    const int64_t[::1] just_start,
    const int64_t[::1] justs,
    const int64_t[::1] ante_start,
    const int64_t[::1] antes,
    const uint8_t[::1] kept,
    const uint8_t[::1] active,
    int32_t[::1] crit_items,
    int64_t[::1] crit_start,
    int64_t[::1] crit_len,
    uint8_t[::1] top,
    int64_t[::1] mark,
    int64_t* epoch,
    int32_t[::1] res,
    int32_t[::1] tmp,
) noexcept nogil:
    """``res[:n]`` = AND over intact justifications of OR over antecedents; returns n, or -1
    when no justification counts (an antecedent at the top leaves the AND as it is): the top."""
    cdef Py_ssize_t found = -1, size, i, kept_size, k, p, t
    cdef int64_t j, a, r, b, stamp
    cdef int32_t x
    cdef bint broken
    for k in range(just_start[m], just_start[m + 1]):
        j = justs[k]
        if not kept[j]:
            continue
        epoch[0] += 1
        stamp = epoch[0]
        size = 0
        broken = False
        for p in range(ante_start[j], ante_start[j + 1]):
            a = antes[p]
            if not active[a] or top[a]:
                broken = True
                break
            r = row_of[a]
            if r < 0:  # evidence: critical(e) = {e}
                b = bit_of[a]
                if lo_bit <= b < hi_bit and mark[b - lo_bit] != stamp:
                    mark[b - lo_bit] = stamp
                    tmp[size] = <int32_t>(b - lo_bit)
                    size += 1
            else:
                for t in range(crit_start[r], crit_start[r] + crit_len[r]):
                    x = crit_items[t]
                    if mark[x] != stamp:
                        mark[x] = stamp
                        tmp[size] = x
                        size += 1
        if broken:
            continue
        if found < 0:
            for i in range(size):
                res[i] = tmp[i]
            found = size
        else:  # intersect: keep the members of res that tmp has (marked with this stamp)
            kept_size = 0
            for i in range(found):
                if mark[res[i]] == stamp:
                    res[kept_size] = res[i]
                    kept_size += 1
            found = kept_size
    return found


def critical(
    int64_t lo_bit,
    int64_t hi_bit,
    const int64_t[::1] bit_of,
    const int64_t[::1] row_of,
    const int64_t[::1] just_start,
    const int64_t[::1] justs,
    const int64_t[::1] ante_start,
    const int64_t[::1] antes,
    const uint8_t[::1] kept,
    const uint8_t[::1] active,
    const int32_t[::1] part_nodes,
    const int64_t[::1] part_start,
    const int32_t[::1] part_of,
    const int64_t[::1] succ_start,
    const int32_t[::1] succ,
    int32_t[::1] crit_items,
    int64_t[::1] crit_start,
    int64_t[::1] crit_len,
    uint8_t[::1] top,
) -> bool:
    """The critical sets of the evidence bits ``lo_bit .. hi_bit - 1``: per claim (``row_of``)
    a sorted list of bit offsets (from ``lo_bit``) in ``crit_items`` at ``crit_start``,
    ``crit_len`` long; ``top[m]`` set where no intact justification counts. Each part (a
    component through intact justifications) is a greatest fixpoint, solved with a
    worklist from the top. False when ``crit_items`` is too small (nothing else is valid)."""
    cdef Py_ssize_t size = row_of.shape[0]
    cdef int64_t span = hi_bit - lo_bit
    mark_arr = np.full(max(1, span), -1, dtype=np.int64)
    res_arr = np.empty(max(1, span), dtype=np.int32)
    tmp_arr = np.empty(max(1, span), dtype=np.int32)
    queue_arr = np.empty(max(1, part_nodes.shape[0]), dtype=np.int32)
    queued_arr = np.zeros(size, dtype=np.uint8)
    cdef int64_t[::1] mark = mark_arr
    cdef int32_t[::1] res = res_arr, tmp = tmp_arr, queue = queue_arr
    cdef uint8_t[::1] queued = queued_arr
    cdef int64_t epoch = 0
    cdef Py_ssize_t rows = crit_items.shape[0], fill = 0
    cdef Py_ssize_t part, lo, hi, q, length, head, pending, found, i, tail, p
    cdef int64_t m, r
    cdef int32_t d
    cdef bint fitted = True
    with nogil:
        for part in range(part_start.shape[0] - 1):
            lo = part_start[part]
            hi = part_start[part + 1]
            # a greatest fixpoint: every member starts at the top and only shrinks, so a new
            # value is a subset of the old one (it fits its place, and is equal iff as long)
            for q in range(lo, hi):
                m = part_nodes[q]
                top[m] = 1
                queue[q - lo] = <int32_t>m
                queued[m] = 1
            length = hi - lo
            head = 0
            pending = length
            while pending > 0:
                m = queue[head]
                head += 1
                if head == length:
                    head = 0
                pending -= 1
                queued[m] = 0
                found = _update(
                    m, lo_bit, hi_bit, bit_of, row_of, just_start, justs, ante_start, antes,
                    kept, active, crit_items, crit_start, crit_len, top, mark, &epoch, res, tmp,
                )
                if found < 0:
                    continue  # still the top, unchanged
                r = row_of[m]
                if top[m] == 0 and found == crit_len[r]:
                    continue
                if top[m] == 1 or found > crit_len[r]:
                    if fill + found > rows:
                        fitted = False
                        break
                    crit_start[r] = fill
                    fill += found
                top[m] = 0
                for i in range(found):
                    crit_items[crit_start[r] + i] = res[i]
                crit_len[r] = found
                for p in range(succ_start[m], succ_start[m + 1]):
                    d = succ[p]
                    if queued[d] == 0 and part_of[d] == part:
                        queued[d] = 1
                        tail = head + pending
                        if tail >= length:
                            tail -= length
                        queue[tail] = d
                        pending += 1
            if not fitted:
                break
        if fitted:
            for m in range(size):
                r = row_of[m]
                if r >= 0 and active[m] and not top[m] and crit_len[r] > 1:
                    _sort32(crit_items, crit_start[r], crit_start[r] + crit_len[r])
    return fitted


def bitset(const int32_t[:] items):
    """The int whose set bits are ``items`` (evidence numbers, in any order): a sparse
    ancestor set of :func:`ancestors` as :func:`theory.safety.check.verdicts` holds it. One
    byte per eight numbers up to the largest, as wide as the int it becomes, so the cost is
    the items' count plus the int's size.

    >>> import numpy as np
    >>> bitset(np.array([0, 3, 9], dtype=np.int32)) == 0b1000001001
    True
    """
    cdef Py_ssize_t i, n = items.shape[0]
    cdef int32_t top = 0, x
    cdef bytearray marks
    cdef unsigned char* bits
    for i in range(n):
        if items[i] > top:
            top = items[i]
    marks = bytearray((top >> 3) + 1)
    bits = marks
    for i in range(n):
        x = items[i]
        bits[x >> 3] |= <unsigned char>(1 << (x & 7))
    return int.from_bytes(marks, "little")


def ancestors(
    int64_t lo_bit,
    int64_t hi_bit,
    const int64_t[::1] ev_start,
    const int32_t[::1] ev_bits,
    const int64_t[::1] pc_start,
    const int32_t[::1] pcomps,
    int32_t[::1] pool_items,
    uint64_t[::1] pool_words,
    uint8_t[::1] dense,
    int64_t[::1] anc_start,
    int64_t[::1] anc_len,
):
    """The ancestors of every component in the evidence bits ``lo_bit .. hi_bit - 1``.

    A set is a sorted list of bit offsets (from ``lo_bit``) while it holds at most one in 32
    of the block's bits, else ``ceil(span / 64)`` bitset words. ``pool_items`` (int32) and
    ``pool_words`` (uint64) are two views of one buffer: lists fill it from the bottom,
    words from the top, so the block's resident size is at most that buffer whatever the
    mix. Returns (components done, bytes used): all of them, or the number that fitted
    when the buffer was too small (nothing is then valid).
    """
    cdef Py_ssize_t components = ev_start.shape[0] - 1
    cdef int64_t span = hi_bit - lo_bit
    cdef Py_ssize_t words = (span + 63) >> 6
    acc_arr = np.zeros(max(1, words), dtype=np.uint64)  # the union being formed, as a bitmap
    items_arr = np.empty(max(1, span), dtype=np.int32)  # its members while it is sparse
    cdef uint64_t[::1] acc = acc_arr
    cdef int32_t[::1] items = items_arr
    cdef Py_ssize_t total_words = pool_words.shape[0]
    cdef Py_ssize_t fill = 0  # int32 items from the bottom
    cdef Py_ssize_t dense_fill = 0  # words from the top
    cdef Py_ssize_t c, n_items, i, row_lo, row_hi, p, w, t, base
    cdef int64_t total
    cdef int32_t x, ca
    cdef uint64_t bit
    cdef bint is_dense
    cdef Py_ssize_t done = components
    with nogil:
        for c in range(components):
            dense[c] = 0
            n_items = 0
            is_dense = False
            row_lo = ev_start[c]
            row_hi = ev_start[c + 1]
            i = _lower32(ev_bits, row_lo, row_hi, lo_bit)
            while i < row_hi and ev_bits[i] < hi_bit:
                x = <int32_t>(ev_bits[i] - lo_bit)
                acc[x >> 6] |= (<uint64_t>1) << (x & 63)
                items[n_items] = x
                n_items += 1
                i += 1
            for p in range(pc_start[c], pc_start[c + 1]):
                ca = pcomps[p]
                if anc_len[ca] == 0:
                    continue
                if dense[ca]:
                    is_dense = True
                    base = anc_start[ca]
                    for w in range(words):
                        acc[w] |= pool_words[base + w]
                    continue
                for t in range(anc_start[ca], anc_start[ca] + anc_len[ca]):
                    x = pool_items[t]
                    bit = (<uint64_t>1) << (x & 63)
                    if not (acc[x >> 6] & bit):
                        acc[x >> 6] |= bit
                        if not is_dense:
                            items[n_items] = x
                            n_items += 1
            if not is_dense and n_items * 32 <= span:  # sparse: a sorted list, the bitmap cleared
                if 4 * (fill + n_items) > 8 * (total_words - dense_fill):
                    done = c
                    break
                for i in range(n_items):
                    x = items[i]
                    acc[x >> 6] = 0
                    pool_items[fill + i] = x
                _sort32(pool_items, fill, fill + n_items)
                anc_start[c] = fill
                anc_len[c] = n_items
                fill += n_items
            else:  # dense: the bitmap's words
                if 4 * fill > 8 * (total_words - dense_fill - words):
                    done = c
                    break
                dense_fill += words
                base = total_words - dense_fill
                total = 0
                for w in range(words):
                    pool_words[base + w] = acc[w]
                    total += __builtin_popcountll(acc[w])
                    acc[w] = 0
                dense[c] = 1
                anc_start[c] = base
                anc_len[c] = total
    return done, 4 * fill + 8 * dense_fill


def tally(
    int64_t lo_bit,
    int64_t hi_bit,
    int64_t crit_lo,
    const int64_t[::1] row_of,
    const uint8_t[::1] active,
    const int32_t[::1] comp_of,
    const int32_t[::1] crit_items,
    const int64_t[::1] crit_start,
    const int64_t[::1] crit_len,
    const uint8_t[::1] top,
    const int32_t[::1] pool_items,
    const uint64_t[::1] pool_words,
    const uint8_t[::1] dense,
    const int64_t[::1] anc_start,
    const int64_t[::1] anc_len,
    int64_t[::1] count,
    int32_t[:, ::1] examples,
    int32_t[::1] listed,
) -> None:
    """Add each active claim's violations in the bits ``lo_bit .. hi_bit - 1`` (its
    ancestors there that are not critical; critical offsets are from ``crit_lo``) to
    ``count``, and its first witnesses (bit numbers) to ``examples``."""
    cdef Py_ssize_t size = row_of.shape[0]
    cdef int64_t span = hi_bit - lo_bit
    cdef Py_ssize_t words = (span + 63) >> 6
    mark_arr = np.full(max(1, span), -1, dtype=np.int64)
    cdef int64_t[::1] mark = mark_arr
    cdef Py_ssize_t cap = examples.shape[1]
    cdef int64_t stamp = 0, shared, r, x, base, first, last, a, b, t, i, lo, hi, w
    cdef Py_ssize_t m
    cdef int32_t c
    cdef uint64_t v, lowest
    with nogil:
        for m in range(size):
            r = row_of[m]
            if r < 0 or not active[m] or top[m]:
                continue
            c = comp_of[m]
            if anc_len[c] == 0:
                continue
            stamp += 1
            shared = 0
            # the claim's critical bits in this block: a slice of its sorted list
            first = crit_start[r]
            last = first + crit_len[r]
            a = _lower32(crit_items, first, last, lo_bit - crit_lo)
            b = _lower32(crit_items, first, last, hi_bit - crit_lo)
            if dense[c]:
                base = anc_start[c]
                for t in range(a, b):
                    x = crit_items[t] + crit_lo - lo_bit
                    mark[x] = stamp
                    if pool_words[base + (x >> 6)] & ((<uint64_t>1) << (x & 63)):
                        shared += 1
                count[m] += anc_len[c] - shared
                w = 0
                while listed[m] < cap and w < words:
                    v = pool_words[base + w]
                    while v and listed[m] < cap:
                        lowest = v & (~v + 1)
                        x = 64 * w + __builtin_ctzll(v)
                        if mark[x] != stamp:
                            examples[m, listed[m]] = <int32_t>(lo_bit + x)
                            listed[m] += 1
                        v ^= lowest
                    w += 1
            else:
                lo = anc_start[c]
                hi = lo + anc_len[c]
                for t in range(a, b):
                    x = crit_items[t] + crit_lo - lo_bit
                    mark[x] = stamp
                    i = _lower32(pool_items, lo, hi, x)
                    if i < hi and pool_items[i] == x:
                        shared += 1
                count[m] += (hi - lo) - shared
                i = lo
                while listed[m] < cap and i < hi:
                    x = pool_items[i]
                    if mark[x] != stamp:
                        examples[m, listed[m]] = <int32_t>(lo_bit + x)
                        listed[m] += 1
                    i += 1


def critical_pairs(
    int64_t crit_lo,
    const int64_t[::1] row_of,
    const uint8_t[::1] active,
    const uint8_t[::1] top,
    const int32_t[::1] crit_items,
    const int64_t[::1] crit_start,
    const int64_t[::1] crit_len,
    const int64_t[::1] count,
):
    """The (claim, bit) pairs of the critical evidence of the claims with no violation so
    far (their unique minimal justification while they stay safe), claims in node order."""
    cdef Py_ssize_t size = row_of.shape[0], m, k = 0
    cdef int64_t pairs = 0, r, t
    for m in range(size):
        r = row_of[m]
        if r >= 0 and active[m] and not top[m] and count[m] == 0:
            pairs += crit_len[r]
    claim_arr = np.empty(pairs, dtype=np.int32)
    bits_arr = np.empty(pairs, dtype=np.int64)
    cdef int32_t[::1] claim_of = claim_arr
    cdef int64_t[::1] critical_bits = bits_arr
    with nogil:
        for m in range(size):
            r = row_of[m]
            if r < 0 or not active[m] or top[m] or count[m] != 0:
                continue
            for t in range(crit_start[r], crit_start[r] + crit_len[r]):
                claim_of[k] = <int32_t>m
                critical_bits[k] = crit_lo + crit_items[t]
                k += 1
    return claim_arr, bits_arr
