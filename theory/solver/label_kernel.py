"""The label algebra of :mod:`theory.solver.labels`, compiled (numba) on fixed-width bitsets.

Same definitions as the reference implementation in :mod:`theory.solver.labels`: the label of
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

The reference stays the cross-check (``tests/theory/test_label_kernel.py``), with SAT and brute
force.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numba
import numpy as np

from theory.model.bitops import popcount
from theory.model.index import SupportIndex

UNLIMITED = 1 << 62
"""A budget no query reaches."""

MULTIPLYING_LOOP_SHARE = 200
"""A cone with a support loop through a justification of two or more claims gets one
part in this many of the work budget: semi-naive evaluation re-forms that
justification's product for every set its members gain, which is where labels blow up,
and each unit of work there costs more time than elsewhere (many small products)."""

LOOP_WORK_PER_NODE = 2_000
"""A cone with a support loop gets at most this much work per node of the cone: where
labels answer such a cone they need little per node (long cycles and nested components
of ``python -m benchmarks.bench_justifications --loops`` stay well below it), while
layered graphs with back-edges are not answered within any budget, so every unit spent
on them delays the search that answers them."""

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
) -> Labels:
    """The labels of ``targets`` (node numbers) in one compiled pass over their cones.

    A component whose label exceeds ``max_sets`` (or whose product would form more than
    4 x ``max_sets`` sets), and every claim above it, gets :data:`OVER_SETS`; when the
    work exceeds ``max_work`` every target not reached gets :data:`OVER_WORK`.

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
    status, start, rows, bit_node, work = _run(
        np.asarray(targets, dtype=np.int64),
        flat.is_evidence,
        flat.just_start,
        flat.justs,
        flat.ante_start,
        flat.antes,
        int(min(max_sets, UNLIMITED)),
        int(min(max_work, UNLIMITED)),
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
    "components",
    "cone",
    "doubled",
    "flat_index",
    "labels",
    "offsets",
    "sets_of_ids",
]


# --- the compiled kernel ------------------------------------------------------------------
# Sets are rows of uint64 words.


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _minimize(sets: Any, n: int, work: Any) -> Any:
    """The antichain of minimal rows among ``sets[:n]``: rows in order of size, each kept
    unless a kept row is a subset of it (which also drops duplicates)."""
    words = sets.shape[1]
    if n <= 1:
        return sets[:n].copy()
    sizes = np.empty(n, dtype=np.int64)
    top = 0
    i: Any
    for i in range(n):
        c = 0
        for w in range(words):
            c += popcount(sets[i, w])
        sizes[i] = c
        if c > top:
            top = c
    first = np.zeros(top + 2, dtype=np.int64)  # counting sort by size
    for i in range(n):
        first[sizes[i] + 1] += 1
    for c in range(top + 1):
        first[c + 1] += first[c]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[first[sizes[i]]] = i
        first[sizes[i]] += 1
    out = np.empty((n, words), dtype=np.uint64)
    kept = 0
    tests = 0
    t: Any
    if words == 1:  # the common case, kept tight: one AND per test
        flat = out[:, 0]
        for i in order:
            if work[0] + tests > work[2]:
                work[0] += tests
                work[1] = 2
                return out[:0].copy()
            absent = ~sets[i, 0]
            t = 0
            while t < kept and flat[t] & absent:
                t += 1
            if t < kept:
                tests += t + 1
            else:
                tests += kept
                flat[kept] = sets[i, 0]
                kept += 1
        work[0] += tests
        return out[:kept].copy()
    # wide rows (a cone of more than 64 evidence items): a row can hold a kept row of its
    # own size only if the two are equal, so it is tested for subsets against the kept rows
    # of smaller sizes only, and for equality against those of its size with its
    # fingerprint (rows of one size are taken in fingerprint order); each test reads only
    # the words between the kept row's first and last non-zero ones. An antichain of 20,000
    # singletons over 20,000 items so costs no subset test (each tested against every kept
    # row, over all 313 words until the kept one's bit: past a minute)
    prints = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(0x9E3779B97F4A7C15)
        for w in range(words):
            h = (h ^ sets[i, w]) * np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
        prints[i] = h
    start = 0
    while start < n:  # each size class of ``order`` in fingerprint order
        end = start + 1
        while end < n and sizes[order[end]] == sizes[order[start]]:
            end += 1
        if end - start > 1:
            block = order[start:end].copy()
            by_print = np.argsort(prints[block])
            for k in range(end - start):
                order[start + k] = block[by_print[k]]
        start = end
    low = np.empty(n, dtype=np.int64)  # the kept rows' first and last non-zero words
    high = np.empty(n, dtype=np.int64)
    smaller = 0  # kept rows of a smaller size than the current row's
    run = 0  # kept rows from here on share the current row's size and fingerprint
    for k in range(n):
        i = order[k]
        if work[0] + tests > work[2]:
            work[0] += tests
            work[1] = 2
            return out[:0].copy()
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
            lowest, highest = words, -1
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
    return out[:kept].copy()


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _subset(antes: Any, s: int, e: int, t: int, f: int) -> bool:
    """Whether sorted antes[s:e] is a subset of sorted antes[t:f]."""
    k = t
    for i in range(s, e):
        x = antes[i]
        while k < f and antes[k] < x:
            k += 1
        if k == f or antes[k] != x:
            return False
        k += 1
    return True


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _product(cur: Any, other: Any, m: int, limit: int, work: Any) -> Any:
    """The minimal sets of {a | b : a in cur, b in other[:m]}; ``work[1] = 1`` (and no
    rows) when that would form more than ``limit`` sets."""
    p = cur.shape[0]
    words = cur.shape[1]
    if p * m > limit:
        work[1] = 1
        return cur[:0]
    if work[0] + p * m > work[2]:
        work[1] = 2  # out of work: stop before forming the sets, not after
        return cur[:0]
    product = np.empty((p * m, words), dtype=np.uint64)
    k = 0
    for x in range(p):
        for y in range(m):
            for w in range(words):
                product[k, w] = cur[x, w] | other[y, w]
            k += 1
    work[0] += p * m
    return _minimize(product, p * m, work)


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _justification(
    cur: Any,
    j: int,
    skip: int,
    ante_start: Any,
    antes: Any,
    local: Any,
    lab: Any,
    cnt: Any,
    limit: int,
    work: Any,
) -> Any:
    """``cur`` times the labels of justification j's antecedents other than local node
    ``skip`` (-1: none skipped)."""
    for r in range(ante_start[j], ante_start[j + 1]):
        y = local[antes[r]]
        if y == skip:
            continue
        if cnt[y] == 0:
            return cur[:0]
        cur = _product(cur, lab[y], cnt[y], limit, work)
        if work[1] or cur.shape[0] == 0:
            return cur[:0]
    return cur


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _evaluate(
    c: int,
    kept_start: Any,
    kept: Any,
    ante_start: Any,
    antes: Any,
    local: Any,
    lab: Any,
    cnt: Any,
    words: int,
    limit: int,
    work: Any,
) -> Any:
    """The label of local claim c from its antecedents' labels (``work[1] = 1`` when a
    product is over the budget)."""
    chunks = []
    total = 0
    for q in range(kept_start[c], kept_start[c + 1]):
        cur = _justification(
            np.zeros((1, words), dtype=np.uint64),
            kept[q],
            -1,
            ante_start,
            antes,
            local,
            lab,
            cnt,
            limit,
            work,
        )
        if work[1]:
            return cur
        if cur.shape[0]:
            chunks.append(cur)
            total += cur.shape[0]
    union = np.empty((total, words), dtype=np.uint64)
    k = 0
    for chunk in chunks:
        for x in range(chunk.shape[0]):
            for w in range(words):
                union[k, w] = chunk[x, w]
            k += 1
    return _minimize(union, total, work)


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _insert(lab: Any, cnt: Any, x: int, row: Any, work: Any) -> bool:
    """Add ``row`` to the antichain of local node x unless a member is a subset of it;
    drop the members it is a subset of. Whether it was added."""
    label = lab[x]
    n = cnt[x]
    words = row.shape[0]
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
    kept = 0
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
        grown[:kept] = label[:kept]
        lab[x] = grown
        label = grown
    for w in range(words):
        label[kept, w] = row[w]
    cnt[x] = kept + 1
    return True


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _grow_rows(rows: Any) -> Any:
    grown = np.empty((2 * rows.shape[0], rows.shape[1]), dtype=np.uint64)
    grown[: rows.shape[0]] = rows
    return grown


@numba.njit(cache=True, nogil=True, boundscheck=False)
def doubled(values: Any) -> Any:
    """A new int64 array of twice the length of ``values``, starting with them (the rest
    uninitialised): how the compiled kernels grow a buffer that is full."""
    grown = np.empty(2 * values.shape[0], dtype=np.int64)
    grown[: values.shape[0]] = values
    return grown


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _contains(lab: Any, cnt: Any, x: int, row: Any) -> bool:
    label = lab[x]
    words = row.shape[0]
    for t in range(cnt[x]):
        equal = True
        for w in range(words):
            if label[t, w] != row[w]:
                equal = False
                break
        if equal:
            return True
    return False


@numba.njit(cache=True, nogil=True, boundscheck=False)
def cone(
    targets: Any, is_evidence: Any, just_start: Any, justs: Any, ante_start: Any, antes: Any
) -> Any:
    """The support cone of ``targets`` through the justifications that no other
    justification of the same claim subsumes (antecedents a subset of its own; of two
    equal ones the first is kept): ``(local, nodes, kept, kept_start)``, where ``nodes``
    lists the cone in discovery order (targets first), ``local[n]`` is n's position there
    (-1 outside the cone) and local node x's kept justifications are
    ``kept[kept_start[x]:kept_start[x + 1]]``. A subsumed justification holds only when the
    one it contains does, so the least fixpoint of every node of the cone is unchanged."""
    local = np.full(is_evidence.shape[0], -1, dtype=np.int64)
    nodes: list[int] = []
    for t in targets:
        if local[t] < 0:
            local[t] = len(nodes)
            nodes.append(t)
    kept = []
    kept_start = [0]
    i = 0
    while i < len(nodes):
        n = nodes[i]
        if not is_evidence[n]:
            for q in range(just_start[n], just_start[n + 1]):
                j = justs[q]
                s, e = ante_start[j], ante_start[j + 1]
                subsumed = False
                for q2 in range(just_start[n], just_start[n + 1]):
                    j2 = justs[q2]
                    if j2 == j:
                        continue
                    s2, e2 = ante_start[j2], ante_start[j2 + 1]
                    if (e2 - s2 < e - s or (e2 - s2 == e - s and j2 < j)) and _subset(
                        antes, s2, e2, s, e
                    ):
                        subsumed = True
                        break
                if subsumed:
                    continue
                kept.append(j)
                for r in range(s, e):
                    a = antes[r]
                    if local[a] < 0:
                        local[a] = len(nodes)
                        nodes.append(a)
        kept_start.append(len(kept))
        i += 1
    kept_a = np.array(kept, dtype=np.int64) if len(kept) else np.zeros(0, dtype=np.int64)
    return local, np.array(nodes, dtype=np.int64), kept_a, np.array(kept_start, dtype=np.int64)


@numba.njit(cache=True, nogil=True, boundscheck=False)
def offsets(start: Any) -> Any:
    """Turn per-row counts in ``start[1:]`` into row offsets (compressed rows), in place;
    returns a copy of the row starts, for filling the rows."""
    for x in range(start.shape[0] - 1):
        start[x + 1] += start[x]
    return start[:-1].copy()


@numba.njit(cache=True, nogil=True, boundscheck=False)
def components(member: Any, pred_start: Any, preds: Any) -> Any:
    """Strongly connected components (Tarjan, iterative) of the nodes x with ``member[x]``,
    edges into x from ``preds[pred_start[x]:pred_start[x + 1]]`` (members only), in
    topological order (a component after those it depends on): ``(comp_of, comp_nodes,
    comp_start)``, component c being ``comp_nodes[comp_start[c]:comp_start[c + 1]]``."""
    count = member.shape[0]
    number = np.full(count, -1, dtype=np.int64)
    low = np.zeros(count, dtype=np.int64)
    on_stack = np.zeros(count, dtype=np.uint8)
    stack = np.empty(count, dtype=np.int64)
    depth = 0
    call_node = np.empty(count, dtype=np.int64)
    call_edge = np.empty(count, dtype=np.int64)
    comp_of = np.full(count, -1, dtype=np.int64)
    comp_nodes = np.empty(count, dtype=np.int64)
    comp_start_list = [0]
    filled = 0
    counter = 0
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
                component = len(comp_start_list) - 1
                while True:
                    depth -= 1
                    w = stack[depth]
                    on_stack[w] = 0
                    comp_of[w] = component
                    comp_nodes[filled] = w
                    filled += 1
                    if w == v:
                        break
                comp_start_list.append(filled)
    return comp_of, comp_nodes, np.array(comp_start_list, dtype=np.int64)


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _run(
    targets: Any,
    is_evidence: Any,
    just_start: Any,
    justs: Any,
    ante_start: Any,
    antes: Any,
    max_sets: int,
    max_work: int,
) -> Any:
    # 1. the cone through the justifications no other justification of the claim subsumes
    local, nodes, kept_a, kept_s = cone(targets, is_evidence, just_start, justs, ante_start, antes)
    count = nodes.shape[0]
    # 2. evidence bits
    bit_node_list: list[int] = []
    bit = np.full(count, -1, dtype=np.int64)
    for x in range(count):
        if is_evidence[nodes[x]]:
            bit[x] = len(bit_node_list)
            bit_node_list.append(nodes[x])
    evidence = len(bit_node_list)
    words = max(1, (evidence + 63) // 64)
    # 3. predecessors among claims, then Tarjan (iterative; predecessors first)
    pred_start = np.zeros(count + 1, dtype=np.int64)
    preds_list = []
    pred_just = []  # the justification of each predecessor edge
    for x in range(count):
        if bit[x] < 0:
            for q in range(kept_s[x], kept_s[x + 1]):
                j = kept_a[q]
                for r in range(ante_start[j], ante_start[j + 1]):
                    y = local[antes[r]]
                    if bit[y] < 0:
                        preds_list.append(y)
                        pred_just.append(j)
        pred_start[x + 1] = len(preds_list)
    preds = np.array(preds_list, dtype=np.int64) if len(preds_list) else np.zeros(0, dtype=np.int64)
    comp_of, comp_nodes, comp_start = components(bit < 0, pred_start, preds)
    # a loop that multiplies claims' labels (a justification of a member with two claim
    # antecedents) re-forms its products for every set a member gains: the budget shrinks
    if max_work < (1 << 60):
        for x in range(count):
            if bit[x] >= 0:
                continue
            c = comp_of[x]
            looped = comp_start[c + 1] - comp_start[c] > 1
            for q in range(pred_start[x], pred_start[x + 1]):
                looped = looped or preds[q] == x
            if not looped:
                continue
            max_work = min(max_work, LOOP_WORK_PER_NODE * count)
            heavy = False
            for q in range(kept_s[x], kept_s[x + 1]):
                j = kept_a[q]
                inside = 0  # claim antecedents
                for r in range(ante_start[j], ante_start[j + 1]):
                    if bit[local[antes[r]]] < 0:
                        inside += 1
                heavy = heavy or inside >= 2
            if heavy:
                max_work = max_work // MULTIPLYING_LOOP_SHARE
                break
    # watchers: (claim, justification) per antecedent claim; the loops below follow those
    # inside the component
    pred_j = np.array(pred_just, dtype=np.int64) if len(pred_just) else np.zeros(0, dtype=np.int64)
    watch_start = np.zeros(count + 1, dtype=np.int64)
    for q in range(preds.shape[0]):
        watch_start[preds[q] + 1] += 1
    fill = offsets(watch_start)
    watch_claim = np.empty(preds.shape[0], dtype=np.int64)
    watch_just = np.empty(preds.shape[0], dtype=np.int64)
    for x in range(count):
        for q in range(pred_start[x], pred_start[x + 1]):
            y = preds[q]
            watch_claim[fill[y]] = x
            watch_just[fill[y]] = pred_j[q]
            fill[y] += 1
    # 4. labels, component by component
    limit = 4 * max_sets if max_sets < (1 << 60) else max_sets
    work = np.zeros(3, dtype=np.int64)  # [work, 1 over the set budget / 2 out of work, budget]
    work[2] = max_work
    lab = []
    cnt = np.zeros(count, dtype=np.int64)
    for x in range(count):
        if bit[x] >= 0:
            row = np.zeros((1, words), dtype=np.uint64)
            row[0, bit[x] // 64] = np.uint64(1) << np.uint64(bit[x] % 64)
            lab.append(row)
            cnt[x] = 1
        else:
            lab.append(np.zeros((0, words), dtype=np.uint64))
    over = np.zeros(count, dtype=np.uint8)  # 1: over the set budget (or above such a claim)
    # the buckets of a loop's events by set size (one pair of arrays for every component:
    # each loop below leaves them empty)
    bucket_head = np.full(evidence + 2, -1, dtype=np.int64)
    bucket_tail = np.full(evidence + 2, -1, dtype=np.int64)
    done = np.zeros(count, dtype=np.uint8)
    spent = False
    for component in range(len(comp_start) - 1):
        if work[0] > max_work:
            break
        first, last = comp_start[component], comp_start[component + 1]
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
                    x, kept_s, kept_a, ante_start, antes, local, lab, cnt, words, limit, work
                )
                if work[1] == 2:
                    break
                cnt[x] = lab[x].shape[0]
                bad = work[1] != 0 or cnt[x] > max_sets
            else:
                # semi-naive: seed each member from its justifications with no antecedent in
                # the component, then push every set a member gains through the
                # justifications that watch it, with the other antecedents' current labels.
                # The seeds are the watchers of one first event: the empty set (event node -1)
                seed_claim_list = []
                seed_just_list = []
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
                            seed_claim_list.append(x)
                            seed_just_list.append(j)
                seed_claim = np.array(seed_claim_list, dtype=np.int64)
                seed_just = np.array(seed_just_list, dtype=np.int64)
                # Events leave in order of their sets' sizes (a bucket queue, first in first
                # out within a size): a product is never smaller than the set that forms it,
                # so when a set of size s leaves, every set smaller than s has been formed,
                # and a set still in its member's label then is a minimal set of the least
                # fixpoint. Only those are pushed on: a set later replaced by a smaller one
                # never forms products (in arrival order, chains with several ways in formed
                # thousands of such sets per member).
                events = np.zeros((16, words), dtype=np.uint64)
                event_node = np.full(16, -1, dtype=np.int64)
                event_next = np.full(16, -1, dtype=np.int64)
                bucket_head[0] = bucket_tail[0] = 0  # the first event: the empty set
                size, tail = 0, 1
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
                    row = events[head].copy()
                    if a >= 0:
                        if not _contains(lab, cnt, a, row):
                            continue  # a smaller set replaced it; that one's event covers it
                        claims, justs_of_a, lo, hi = (
                            watch_claim,
                            watch_just,
                            watch_start[a],
                            watch_start[a + 1],
                        )
                    else:
                        claims, justs_of_a, lo, hi = seed_claim, seed_just, 0, seed_claim.shape[0]
                    for q in range(lo, hi):
                        x = claims[q]
                        if comp_of[x] != component:
                            continue  # a claim above the component: evaluated later, once
                        found = _justification(
                            row.reshape((1, words)),
                            justs_of_a[q],
                            a,
                            ante_start,
                            antes,
                            local,
                            lab,
                            cnt,
                            limit,
                            work,
                        )
                        if work[1] == 2:
                            spent = True
                            break
                        if work[1]:
                            bad = True
                            break
                        for t in range(found.shape[0]):
                            if _insert(lab, cnt, x, found[t], work):
                                if cnt[x] > max_sets:
                                    bad = True
                                if tail == events.shape[0]:
                                    events = _grow_rows(events)
                                    event_node = doubled(event_node)
                                    event_next = doubled(event_next)
                                events[tail] = found[t]
                                event_node[tail] = x
                                event_next[tail] = -1
                                grown = 0
                                for w in range(words):
                                    grown += popcount(found[t, w])
                                if bucket_tail[grown] < 0:
                                    bucket_head[grown] = tail
                                else:
                                    event_next[bucket_tail[grown]] = tail
                                bucket_tail[grown] = tail
                                # a product holds the set that formed it, so grown >= size;
                                # the min keeps the queue exact even were it not
                                size = min(size, grown)
                                tail += 1
                        if bad:
                            break
                    if spent:
                        break
                if spent:
                    break
                for b in range(size, evidence + 1):  # left early (over the set budget)
                    bucket_head[b] = bucket_tail[b] = -1
                for z in range(first, last):
                    x = comp_nodes[z]
                    lab[x] = lab[x][: cnt[x]].copy()
        work[1] = 0
        for z in range(first, last):
            x = comp_nodes[z]
            done[x] = 1
            if bad:
                over[x] = 1
    # 5. the targets' labels
    status = np.zeros(len(targets), dtype=np.int64)
    start = np.zeros(len(targets) + 1, dtype=np.int64)
    total = 0
    for k in range(len(targets)):
        x = local[targets[k]]
        if bit[x] < 0 and not done[x]:
            status[k] = OVER_WORK
        elif over[x]:
            status[k] = OVER_SETS
        else:
            total += lab[x].shape[0]
        start[k + 1] = total
    rows = np.empty((total, words), dtype=np.uint64)
    r = 0
    for k in range(len(targets)):
        if status[k] == OK:
            x = local[targets[k]]
            for y in range(lab[x].shape[0]):
                for w in range(words):
                    rows[r, w] = lab[x][y, w]
                r += 1
    bit_node = np.array(bit_node_list, dtype=np.int64) if evidence else np.zeros(0, dtype=np.int64)
    return status, start, rows, bit_node, work[0]
