"""The verdicts of :func:`theory.safety.check.verdicts`, compiled (numba), one block of evidence at a time.

Same definitions as the reference in :mod:`theory.safety.check` (which stays the cross-check,
``tests/theory/test_safety.py``): ``ancestors(c)`` is the least fixpoint of unions over every
justification in force, ``critical(c)`` the greatest fixpoint of AND over intact
justifications of OR over their antecedents, with "all" (no intact justification counted
yet) as the top. What differs is only how it runs, so that memory is bounded by what is kept:

- Both fixpoints are bitwise: whether evidence ``e`` is in a node's set depends only on
  whether it is in the others'. So the evidence can be cut into ranges, each solved on
  its own within fixed buffers. Critical sets (small: inside every minimal justification)
  are solved for all the evidence at once (:func:`critical`), in ranges only when they do
  not fit; ancestors (large: most of the evidence, for a claim downstream of a big loop)
  one block at a time (:func:`ancestors`), each block as large as the last one's use says
  fits, then :func:`tally` counts. What survives is per node: the number of violations,
  the first few witnesses, and (while a claim has none) its critical evidence, which is
  its unique minimal justification when it stays safe. The reference holds an integer
  bitset of up to E bits per node.
- Ancestors are kept per strongly connected component (its members share them), as a
  sorted list while sparse and as bitset words when dense, read through one short row per
  component of its direct evidence and its predecessor components
  (:func:`component_inputs`, computed once); critical sets per claim as sorted lists.
- The order is computed once: the components of the claims through the justifications in
  force, in topological order, for the ancestors; and those through intact justifications
  between active claims, for the critical sets (a loop is solved with a worklist from the
  top, as :func:`theory.model.graphalgo.solve_component` does).

Nodes are the numbers of any :class:`~theory.model.index.IndexView`; the bit of evidence ``e``
is ``bit_of[e]``, chosen by the caller (in id order, so the first witnesses are the
smallest ids).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from theory.model.bitops import popcount


@dataclass(frozen=True)
class Order:
    """Node orders for the two fixpoints (compressed components, topological order)."""

    comp_nodes: np.ndarray  # int32: claims, component by component
    comp_start: np.ndarray  # int64 [components + 1]
    comp_of: np.ndarray  # int32 [size]: component of a claim, -1 for evidence
    part_nodes: np.ndarray  # int32: active claims, part by part (intact justifications)
    part_start: np.ndarray  # int64 [parts + 1]
    part_of: np.ndarray  # int32 [size]: part of an active claim, -1 otherwise
    succ_start: np.ndarray  # int64 [size + 1]: active claims whose intact justification uses n
    succ: np.ndarray  # int32


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _predecessors(
    size: int,
    is_evidence: np.ndarray,
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    use_just: np.ndarray,
    node_ok: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Claim -> the claims among the antecedents of its usable justifications (repeats kept)."""
    start = np.zeros(size + 1, dtype=np.int64)
    for m in range(size):
        count = 0
        if node_ok[m] and not is_evidence[m]:
            for k in range(just_start[m], just_start[m + 1]):
                j = justs[k]
                if use_just[j]:
                    for p in range(ante_start[j], ante_start[j + 1]):
                        a = antes[p]
                        if node_ok[a] and not is_evidence[a]:
                            count += 1
        start[m + 1] = start[m] + count
    pred = np.empty(start[size], dtype=np.int32)
    for m in range(size):
        q = start[m]
        if node_ok[m] and not is_evidence[m]:
            for k in range(just_start[m], just_start[m + 1]):
                j = justs[k]
                if use_just[j]:
                    for p in range(ante_start[j], ante_start[j + 1]):
                        a = antes[p]
                        if node_ok[a] and not is_evidence[a]:
                            pred[q] = a
                            q += 1
    return start, pred


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _tarjan(
    size: int,
    is_evidence: np.ndarray,
    node_ok: np.ndarray,
    pred_start: np.ndarray,
    pred: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strongly connected components of the usable claims, antecedents first (iterative Tarjan)."""
    number = np.full(size, -1, dtype=np.int64)
    low = np.zeros(size, dtype=np.int64)
    on_stack = np.zeros(size, dtype=np.uint8)
    stack = np.empty(size, dtype=np.int32)
    work_node = np.empty(size, dtype=np.int32)
    work_ptr = np.empty(size, dtype=np.int64)
    nodes = np.empty(size, dtype=np.int32)
    starts = np.empty(size + 1, dtype=np.int64)
    comp_of = np.full(size, -1, dtype=np.int32)
    counter = 0
    sp = 0
    filled = 0
    components = 0
    starts[0] = 0
    for root in range(size):
        if not node_ok[root] or is_evidence[root] or number[root] != -1:
            continue
        number[root] = low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = 1
        work_node[0] = root
        work_ptr[0] = pred_start[root]
        wp = 1
        while wp > 0:
            v = work_node[wp - 1]
            p = work_ptr[wp - 1]
            if p < pred_start[v + 1]:
                work_ptr[wp - 1] = p + 1
                w = pred[p]
                if number[w] == -1:
                    number[w] = low[w] = counter
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
                    comp_of[w] = components
                    filled += 1
                    if w == v:
                        break
                components += 1
                starts[components] = filled
    return nodes[:filled].copy(), starts[: components + 1].copy(), comp_of


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _successors(
    size: int, pred_start: np.ndarray, pred: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The reverse of a predecessor list (a pair repeats as often as it does there)."""
    start = np.zeros(size + 1, dtype=np.int64)
    for m in range(size):
        for p in range(pred_start[m], pred_start[m + 1]):
            start[pred[p] + 1] += 1
    for n in range(size):
        start[n + 1] += start[n]
    fill = start[:size].copy()
    succ = np.empty(start[size], dtype=np.int32)
    for m in range(size):
        for p in range(pred_start[m], pred_start[m + 1]):
            a = pred[p]
            succ[fill[a]] = m
            fill[a] += 1
    return start, succ


def order(
    is_evidence: np.ndarray,
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    kept: np.ndarray,
    active: np.ndarray,
) -> Order:
    """The component orders of the graph whose justifications in force are ``kept``."""
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


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _intact(
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    kept: np.ndarray,
    active: np.ndarray,
) -> np.ndarray:
    """Justifications in force whose claim and antecedents are all active."""
    result = np.zeros(len(ante_start) - 1, dtype=np.uint8)
    for m in range(len(just_start) - 1):
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
    return result


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _update(
    m: int,
    lo_bit: int,
    hi_bit: int,
    bit_of: np.ndarray,
    row_of: np.ndarray,
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    kept: np.ndarray,
    active: np.ndarray,
    crit_items: np.ndarray,
    crit_start: np.ndarray,
    crit_len: np.ndarray,
    top: np.ndarray,
    mark: np.ndarray,
    epoch: np.ndarray,
    res: np.ndarray,
    tmp: np.ndarray,
) -> int:
    """``res[:n]`` = AND over intact justifications of OR over antecedents; returns n, or -1
    when no justification counts (an antecedent at the top leaves the AND as it is): the top."""
    found = -1
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
                    tmp[size] = b - lo_bit
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


@numba.njit(cache=True, nogil=True, boundscheck=False)
def component_inputs(
    bit_of: np.ndarray,
    row_of: np.ndarray,
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    kept: np.ndarray,
    comp_nodes: np.ndarray,
    comp_start: np.ndarray,
    comp_of: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per component (compressed rows): the bits of the evidence among the antecedents of
    its members' justifications in force, sorted and distinct, and the other components
    among them, distinct. Computed once, so that each block of evidence reads one short row
    per component instead of every justification of every member."""
    components = comp_start.shape[0] - 1
    size = row_of.shape[0]
    seen = np.full(size, -1, dtype=np.int64)  # node -> the last component that listed it
    seen_comp = np.full(components + 1, -1, dtype=np.int64)
    ev_start = np.zeros(components + 1, dtype=np.int64)
    pc_start = np.zeros(components + 1, dtype=np.int64)
    bits = np.empty(max(1, antes.shape[0]), dtype=np.int32)
    preds = np.empty(max(1, antes.shape[0]), dtype=np.int32)
    n_bits = 0
    n_preds = 0
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
                            bits[n_bits] = bit_of[a]
                            n_bits += 1
                        continue
                    ca = comp_of[a]
                    if ca != c and seen_comp[ca] != c:
                        seen_comp[ca] = c
                        preds[n_preds] = ca
                        n_preds += 1
        bits[first:n_bits].sort()
        ev_start[c + 1] = n_bits
        pc_start[c + 1] = n_preds
    return ev_start, bits[:n_bits].copy(), pc_start, preds[:n_preds].copy()


@numba.njit(cache=True, nogil=True, boundscheck=False)
def critical(
    lo_bit: int,
    hi_bit: int,
    bit_of: np.ndarray,
    row_of: np.ndarray,
    just_start: np.ndarray,
    justs: np.ndarray,
    ante_start: np.ndarray,
    antes: np.ndarray,
    kept: np.ndarray,
    active: np.ndarray,
    part_nodes: np.ndarray,
    part_start: np.ndarray,
    part_of: np.ndarray,
    succ_start: np.ndarray,
    succ: np.ndarray,
    crit_items: np.ndarray,
    crit_start: np.ndarray,
    crit_len: np.ndarray,
    top: np.ndarray,
) -> bool:
    """The critical sets of the evidence bits ``lo_bit .. hi_bit - 1``: per claim (``row_of``)
    a sorted list of bit offsets (from ``lo_bit``) in ``crit_items`` at ``crit_start``,
    ``crit_len`` long; ``top[m]`` set where no intact justification counts. Each part (a
    component through intact justifications) is a greatest fixpoint, solved with a
    worklist from the top. False when ``crit_items`` is too small (nothing else is valid)."""
    size = row_of.shape[0]
    span = hi_bit - lo_bit
    mark = np.full(max(1, span), -1, dtype=np.int64)
    epoch = np.zeros(1, dtype=np.int64)
    rows = crit_items.shape[0]
    fill = 0
    res = np.empty(max(1, span), dtype=np.int32)
    tmp = np.empty(max(1, span), dtype=np.int32)
    queue = np.empty(max(1, part_nodes.shape[0]), dtype=np.int32)
    queued = np.zeros(size, dtype=np.uint8)
    for part in range(part_start.shape[0] - 1):
        lo, hi = part_start[part], part_start[part + 1]
        # a greatest fixpoint: every member starts at the top and only shrinks, so a new
        # value is a subset of the old one (it fits its place, and is equal iff as long)
        for q in range(lo, hi):
            m = part_nodes[q]
            top[m] = 1
            queue[q - lo] = m
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
                m,
                lo_bit,
                hi_bit,
                bit_of,
                row_of,
                just_start,
                justs,
                ante_start,
                antes,
                kept,
                active,
                crit_items,
                crit_start,
                crit_len,
                top,
                mark,
                epoch,
                res,
                tmp,
            )
            if found < 0:
                continue  # still the top, unchanged
            r = row_of[m]
            if top[m] == 0 and found == crit_len[r]:
                continue
            if top[m] == 1 or found > crit_len[r]:
                if fill + found > rows:
                    return False
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
    for m in range(size):
        r = row_of[m]
        if r >= 0 and active[m] and not top[m] and crit_len[r] > 1:
            crit_items[crit_start[r] : crit_start[r] + crit_len[r]].sort()
    return True


@numba.njit(cache=True, nogil=True, boundscheck=False)
def ancestors(
    lo_bit: int,
    hi_bit: int,
    ev_start: np.ndarray,
    ev_bits: np.ndarray,
    pc_start: np.ndarray,
    pcomps: np.ndarray,
    pool_items: np.ndarray,
    pool_words: np.ndarray,
    dense: np.ndarray,
    anc_start: np.ndarray,
    anc_len: np.ndarray,
) -> tuple[int, int]:
    """The ancestors of every component in the evidence bits ``lo_bit .. hi_bit - 1``.

    A set is a sorted list of bit offsets (from ``lo_bit``) while it holds at most one in 32
    of the block's bits, else ``ceil(span / 64)`` bitset words. ``pool_items`` (int32) and
    ``pool_words`` (uint64) are two views of one buffer: lists fill it from the bottom,
    words from the top, so the block's resident size is at most that buffer whatever the
    mix. Returns (components done, bytes used): all of them, or the number that fitted
    when the buffer was too small (nothing is then valid).
    """
    components = ev_start.shape[0] - 1
    span = hi_bit - lo_bit
    words = (span + 63) >> 6
    acc = np.zeros(max(1, words), dtype=np.uint64)  # the union being formed, as a bitmap
    items = np.empty(max(1, span), dtype=np.int32)  # its members while it is sparse
    total_words = pool_words.shape[0]
    fill = 0  # int32 items from the bottom
    dense_fill = 0  # words from the top
    for c in range(components):
        dense[c] = 0
        n_items = 0
        is_dense = False
        row_lo, row_hi = ev_start[c], ev_start[c + 1]
        i = row_lo + np.searchsorted(ev_bits[row_lo:row_hi], lo_bit)
        while i < row_hi and ev_bits[i] < hi_bit:
            x = ev_bits[i] - lo_bit
            acc[x >> 6] |= np.uint64(1) << np.uint64(x & 63)
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
                bit = np.uint64(1) << np.uint64(x & 63)
                if not acc[x >> 6] & bit:
                    acc[x >> 6] |= bit
                    if not is_dense:
                        items[n_items] = x
                        n_items += 1
        if not is_dense and n_items * 32 <= span:  # sparse: a sorted list, the bitmap cleared
            if 4 * (fill + n_items) > 8 * (total_words - dense_fill):
                return c, 4 * fill + 8 * dense_fill
            for i in range(n_items):
                x = items[i]
                acc[x >> 6] = 0
                pool_items[fill + i] = x
            pool_items[fill : fill + n_items].sort()
            anc_start[c] = fill
            anc_len[c] = n_items
            fill += n_items
        else:  # dense: the bitmap's words
            if 4 * fill > 8 * (total_words - dense_fill - words):
                return c, 4 * fill + 8 * dense_fill
            dense_fill += words
            base = total_words - dense_fill
            total = 0
            for w in range(words):
                pool_words[base + w] = acc[w]
                total += popcount(acc[w])
                acc[w] = 0
            dense[c] = 1
            anc_start[c] = base
            anc_len[c] = total
    return components, 4 * fill + 8 * dense_fill


@numba.njit(cache=True, nogil=True, boundscheck=False)
def tally(
    lo_bit: int,
    hi_bit: int,
    crit_lo: int,
    row_of: np.ndarray,
    active: np.ndarray,
    comp_of: np.ndarray,
    crit_items: np.ndarray,
    crit_start: np.ndarray,
    crit_len: np.ndarray,
    top: np.ndarray,
    pool_items: np.ndarray,
    pool_words: np.ndarray,
    dense: np.ndarray,
    anc_start: np.ndarray,
    anc_len: np.ndarray,
    count: np.ndarray,
    examples: np.ndarray,
    listed: np.ndarray,
) -> None:
    """Add each active claim's violations in the bits ``lo_bit .. hi_bit - 1`` (its
    ancestors there that are not critical; critical offsets are from ``crit_lo``) to
    ``count``, and its first witnesses (bit numbers) to ``examples``."""
    size = row_of.shape[0]
    span = hi_bit - lo_bit
    words = (span + 63) >> 6
    mark = np.full(max(1, span), -1, dtype=np.int64)
    cap = examples.shape[1]
    stamp = 0
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
        a = first + np.searchsorted(crit_items[first:last], lo_bit - crit_lo)
        b = first + np.searchsorted(crit_items[first:last], hi_bit - crit_lo)
        if dense[c]:
            base = anc_start[c]
            for t in range(a, b):
                x = crit_items[t] + crit_lo - lo_bit
                mark[x] = stamp
                if pool_words[base + (x >> 6)] & (np.uint64(1) << np.uint64(x & 63)):
                    shared += 1
            count[m] += anc_len[c] - shared
            w = 0
            while listed[m] < cap and w < words:
                v = pool_words[base + w]
                while v and listed[m] < cap:
                    low = v & (~v + np.uint64(1))
                    x = 64 * w + popcount(low - np.uint64(1))
                    if mark[x] != stamp:
                        examples[m, listed[m]] = lo_bit + x
                        listed[m] += 1
                    v ^= low
                w += 1
        else:
            found = pool_items[anc_start[c] : anc_start[c] + anc_len[c]]
            for t in range(a, b):
                x = crit_items[t] + crit_lo - lo_bit
                mark[x] = stamp
                i = np.searchsorted(found, x)
                if i < found.shape[0] and found[i] == x:
                    shared += 1
            count[m] += found.shape[0] - shared
            i = 0
            while listed[m] < cap and i < found.shape[0]:
                x = found[i]
                if mark[x] != stamp:
                    examples[m, listed[m]] = lo_bit + x
                    listed[m] += 1
                i += 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def critical_pairs(
    crit_lo: int,
    row_of: np.ndarray,
    active: np.ndarray,
    top: np.ndarray,
    crit_items: np.ndarray,
    crit_start: np.ndarray,
    crit_len: np.ndarray,
    count: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The (claim, bit) pairs of the critical evidence of the claims with no violation so
    far (their unique minimal justification while they stay safe), claims in node order."""
    size = row_of.shape[0]
    pairs = 0
    for m in range(size):
        r = row_of[m]
        if r >= 0 and active[m] and not top[m] and count[m] == 0:
            pairs += crit_len[r]
    claim_of = np.empty(pairs, dtype=np.int32)
    critical_bits = np.empty(pairs, dtype=np.int64)
    k = 0
    for m in range(size):
        r = row_of[m]
        if r < 0 or not active[m] or top[m] or count[m] != 0:
            continue
        for t in range(crit_start[r], crit_start[r] + crit_len[r]):
            claim_of[k] = m
            critical_bits[k] = crit_lo + crit_items[t]
            k += 1
    return claim_of, critical_bits
