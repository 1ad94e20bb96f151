"""New minimal justifications from found ones by exchange, compiled (numba): the step the
one-search enumerator of :mod:`theory.solver.justifications` takes on each model.

A model's evidence X is decided by the least fixpoint of the cone
(:class:`~theory.solver.cone_kernel.ConeOracle`): true, it shrinks to a minimal true set M (a set
of fewer than 64 that is minimal already, as the compiled solver's models nearly always
are, is recognised by one pass of 64-lane fixpoints: the set and the set less each
member); false, it grows to a maximal false set. After a true model the step keeps going
without the solver (when given attempts: the compiled solver gives it none,
:data:`theory.solver.cdcl.ATTEMPTS`): for a found set M and a member e of it, the pool P = all the cone's evidence less
e, less one member of every set found so far that P still contains (so P contains no found
set). If the claim holds in the least fixpoint of P, the minimal subset P shrinks to is a
justification not found before: it is inside P, and every found set is not. Pools are
built and decided up to 64 at once; one that contains a set found earlier in its own batch
loses a member of that set and is decided again, so no shrink is spent on a set already
found. Every set found this way is expanded in turn, within an attempt budget per model.
The solver then learns them all at once ("not all of M" for each), so a model stands for
many justifications instead of one. Exactness does not depend on the heuristic: the solver's
search still ends only when every justification is blocked.

Found sets are rows of 64-bit words (any number of words), kept across steps in
:class:`Exchange`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from theory.model.bitops import popcount
from theory.solver.cone_kernel import (
    ConeOracle,
    fixpoints,
    grow_false,
    root_holds,
    shrink_true,
    without_each,
)

ATTEMPTS = 256
"""Exchange attempts (one per member of each new set, breadth first) within one step, before
the step hands back to the solver."""
PATIENCE = 16
"""Failed exchange attempts in a row after which the step hands back to the solver: late in
an enumeration most pools hold no new justification, and the solver is the better search."""


class Exchange:
    """The found sets of one enumeration, and the step that decides a model and expands it.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["p", "q", "r", "s"], ["a", "b", "root"],
    ...     [("a", ["p"]), ("a", ["q"]), ("b", ["r"]), ("b", ["s"]), ("root", ["a", "b"])])
    >>> index = index_of(g)
    >>> exchange = Exchange(ConeOracle(index, index.number["root"]))
    >>> true, new = exchange.step(index.numbers(["p", "q", "r", "s"]))
    >>> true, len(new)          # one model: all four justifications
    (True, 4)
    >>> sorted(sorted(index.ids[n] for n in m) for m in exchange.found())
    [['p', 'r'], ['p', 's'], ['q', 'r'], ['q', 's']]
    """

    def __init__(self, oracle: ConeOracle, attempts: int = ATTEMPTS, patience: int = PATIENCE):
        self.oracle = oracle
        self.attempts = attempts
        self.patience = patience
        self.words = max(1, (oracle.evidence.shape[0] + 63) // 64)
        self.rows = np.zeros((16, self.words), dtype=np.uint64)
        self.cols = np.zeros((oracle.evidence.shape[0], 1), dtype=np.uint64)
        self.count = 0
        self.freq = np.zeros(
            oracle.evidence.shape[0], dtype=np.int64
        )  # found sets holding each item
        self.tally = np.zeros(
            3, dtype=np.int64
        )  # models decided, exchange attempts, sets they found

    def step(self, present: Any) -> tuple[bool, list[np.ndarray]]:
        """Decide the evidence ``present`` (node numbers): ``(True, [M, ...])``, the new
        justifications (node numbers; the first is a minimal subset of ``present``), or
        ``(False, [O])``: O the evidence outside a maximal false superset of ``present``
        (some member of O is in every true set)."""
        positions = self.oracle.position[np.asarray(present, dtype=np.int64)]
        true, flat, start = self.step_positions(positions[positions >= 0])
        chosen = self.oracle.evidence[flat]
        return true, [chosen[start[i] : start[i + 1]] for i in range(start.shape[0] - 1)]

    def step_positions(self, present: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
        """:meth:`step` on evidence positions of the cone (``oracle.evidence[p]`` is the node
        of position p), the sets flattened: set i is ``flat[start[i]:start[i + 1]]``."""
        kind, self.rows, self.cols, self.count, flat, start = exchange_step(
            present,
            self.rows,
            self.cols,
            self.count,
            self.freq,
            self.tally,
            self.attempts,
            self.patience,
            *self.oracle.kernel_args()[1:],
        )
        return bool(kind), flat, start

    def found(self) -> list[np.ndarray]:
        """Every justification found so far (node numbers)."""
        flat, start = row_positions(self.rows, 0, self.count)
        chosen = self.oracle.evidence[flat]
        return [chosen[start[i] : start[i + 1]] for i in range(self.count)]

    def named(self, ids: Sequence[str]) -> frozenset[frozenset[str]]:
        """Every justification found so far, each as the ids of its evidence (``ids[n]``
        names node n): what :meth:`found` gives, named in one pass over one flat list
        instead of one array per set (half the time on hundreds of sets)."""
        flat, start = row_positions(self.rows, 0, self.count)
        names = [ids[n] for n in self.oracle.evidence[flat].tolist()]
        bounds = start.tolist()
        return frozenset([frozenset(names[bounds[i] : bounds[i + 1]]) for i in range(self.count)])


@numba.njit(cache=True, nogil=True, boundscheck=False)
def row_positions(rows: Any, first: int, last: int) -> Any:
    """Rows ``first:last`` of found sets as evidence positions, flattened: set i is
    ``flat[start[i]:start[i + 1]]``; returns ``(flat, start)``."""
    start = np.zeros(last - first + 1, dtype=np.int64)
    for r in range(first, last):
        c = 0
        for w in range(rows.shape[1]):
            c += popcount(rows[r, w])
        start[r - first + 1] = start[r - first] + c
    flat = np.empty(start[last - first], dtype=np.int64)
    i = 0
    for r in range(first, last):
        for w in range(rows.shape[1]):
            bits = rows[r, w]
            while bits:
                low = bits & (~bits + np.uint64(1))
                flat[i] = 64 * w + popcount(low - np.uint64(1))
                i += 1
                bits ^= low
    return flat, start


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _append(rows: Any, cols: Any, count: int, mask: Any, freq: Any) -> Any:
    """Add the set in ``mask`` as row ``count``; ``cols[e]`` is the bitset of the rows
    holding e."""
    if count == rows.shape[0]:
        grown = np.zeros((2 * rows.shape[0], rows.shape[1]), dtype=np.uint64)
        grown[:count] = rows
        rows = grown
    if count >> 6 >= cols.shape[1]:
        wider = np.zeros((cols.shape[0], 2 * cols.shape[1]), dtype=np.uint64)
        wider[:, : cols.shape[1]] = cols
        cols = wider
    rows[count, :] = 0
    for e in range(mask.shape[0]):
        if mask[e]:
            rows[count, e >> 6] |= np.uint64(1) << np.uint64(e & 63)
            cols[e, count >> 6] |= np.uint64(1) << np.uint64(count & 63)
            freq[e] += 1
    return rows, cols


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _most_found(row: Any, avoid: Any, freq: Any) -> int:
    """The member of ``row`` in the most found sets (``freq``), among those outside
    ``avoid`` if there are any (``avoid`` = ``row`` itself: among all); -1 for none."""
    chosen = -1
    for outside in (True, False):
        for w in range(row.shape[0]):
            bits = row[w] & ~avoid[w] if outside else row[w]
            while bits:
                low = bits & (~bits + np.uint64(1))
                x = 64 * w + popcount(low - np.uint64(1))
                if chosen < 0 or freq[x] > freq[chosen]:
                    chosen = x
                bits ^= low
        if chosen >= 0:
            return chosen
    return chosen


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _pool(
    pool: Any, e: int, full: Any, parent: Any, rows: Any, cols: Any, count: int, freq: Any, hit: Any
) -> None:
    """All the evidence less e, less one member of every found set still inside: ``hit``
    marks the rows that miss a member (those holding e, then those holding each member
    dropped); the member dropped is one outside the parent where there is one, in the most
    found sets (so that few members cut them all)."""
    pool[:] = full
    pool[e >> 6] &= ~(np.uint64(1) << np.uint64(e & 63))
    spans = (count + 63) >> 6
    hit[:spans] = cols[e, :spans]
    while True:
        q = -1
        for w in range(spans):
            valid = (
                np.uint64(0xFFFFFFFFFFFFFFFF)
                if count - 64 * w >= 64
                else (np.uint64(1) << np.uint64(count - 64 * w)) - np.uint64(1)
            )
            free = ~hit[w] & valid
            if free:
                q = 64 * w + popcount((free & (~free + np.uint64(1))) - np.uint64(1))
                break
        if q < 0:
            return
        chosen = _most_found(rows[q], parent, freq)
        pool[chosen >> 6] &= ~(np.uint64(1) << np.uint64(chosen & 63))
        for w in range(spans):
            hit[w] |= cols[chosen, w]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def exchange_step(
    present: Any,
    rows: Any,
    cols: Any,
    count: int,
    freq: Any,
    tally: Any,
    attempts: int,
    patience: int,
    a_start: Any,
    a_local: Any,
    claim_kept: Any,
    comp_of: Any,
    comp_nodes: Any,
    comp_start: Any,
    cyclic: Any,
    ev_local: Any,
    premises: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    just_size: Any,
    root: int,
    missing: Any,
    held: Any,
    stack: Any,
    mask: Any,
) -> Any:
    """The compiled :meth:`Exchange.step_positions`: decide the evidence positions
    ``present`` against the cone (the arguments after ``patience`` are
    :meth:`~theory.solver.cone_kernel.ConeOracle.kernel_args` less its first), then exchange
    from every new set within ``attempts``. Returns ``(kind, rows, cols, count, flat,
    start)``: kind 1 with the new sets flattened, or 0 with the one set of positions
    outside a maximal false superset; the found sets' rows and columns, grown as needed."""
    shape = (a_start, a_local, claim_kept, comp_of, comp_nodes, comp_start, cyclic)
    args = (ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack)
    n = mask.shape[0]
    tally[0] += 1
    mask[:] = 0
    for p in present:
        mask[p] = 1
    word = np.zeros(held.shape[0], dtype=np.uint64)
    queued = np.zeros(held.shape[0], dtype=np.uint8)
    m = present.shape[0]
    minimal = False
    if 0 < m < 64:
        # a model of the compiled solver is nearly always a minimal true set already: one
        # pass of 64-lane fixpoints decides the set (lane m) and the set less each member
        # (lane i) at once, where holding and shrinking would take a fixpoint and a pass
        held_in = without_each(
            mask,
            present,
            m,
            shape,
            ev_local,
            w_start,
            w_just,
            just_claim,
            root,
            word,
            queued,
            stack,
        )
        minimal = held_in == np.uint64(1) << np.uint64(m)
    if not minimal:
        if not root_holds(mask, *args):
            grow_false(mask, *args)
            outside = np.nonzero(mask == 0)[0]
            return 0, rows, cols, count, outside, np.array([0, outside.shape[0]], dtype=np.int64)
        shrink_true(mask, shape, *args)
    first = count
    rows, cols = _append(rows, cols, count, mask, freq)
    count += 1
    if attempts <= 0 or patience <= 0:
        flat, start = row_positions(rows, first, count)
        return 1, rows, cols, count, flat, start
    words = rows.shape[1]
    full = np.empty(words, dtype=np.uint64)
    for w in range(words):
        left = n - 64 * w
        full[w] = (
            np.uint64(0xFFFFFFFFFFFFFFFF)
            if left >= 64
            else (np.uint64(1) << np.uint64(left)) - np.uint64(1)
        )
    pools = np.empty((64, words), dtype=np.uint64)
    hit = np.zeros(cols.shape[1], dtype=np.uint64)
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
                if parent[member >> 6] & (np.uint64(1) << np.uint64(member & 63)):
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
        bits = (
            np.uint64(0xFFFFFFFFFFFFFFFF)
            if m == 64
            else (np.uint64(1) << np.uint64(m)) - np.uint64(1)
        )
        word[:] = 0
        for x in range(n):
            v = np.uint64(0)
            for i in range(m):  # without a branch: whether pool i holds x is data
                v |= ((pools[i, x >> 6] >> np.uint64(x & 63)) & np.uint64(1)) << np.uint64(i)
            word[ev_local[x]] = v
        fixpoints(word, bits, shape, w_start, w_just, just_claim, queued, stack)
        good = word[root]
        batch_first = count
        for i in range(m):
            budget -= 1
            tally[1] += 1
            if not good & (np.uint64(1) << np.uint64(i)):
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
                pools[i, chosen >> 6] &= ~(np.uint64(1) << np.uint64(chosen & 63))
            for x in range(n):
                mask[x] = (pools[i, x >> 6] >> np.uint64(x & 63)) & np.uint64(1)
            if not root_holds(mask, *args):  # also records the derivation the shrink starts from
                misses += 1
                continue
            shrink_true(mask, shape, *args)
            rows, cols = _append(rows, cols, count, mask, freq)
            count += 1
            tally[2] += 1
            misses = 0
            if hit.shape[0] < cols.shape[1]:
                hit = np.zeros(cols.shape[1], dtype=np.uint64)
    flat, start = row_positions(rows, first, count)
    return 1, rows, cols, count, flat, start


__all__ = ["ATTEMPTS", "Exchange", "exchange_step", "row_positions"]
