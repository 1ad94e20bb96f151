"""A compiled conflict-driven clause-learning search (numba) for the one-search enumeration
of :func:`theory.solver.justifications.minimal_justifications`: the solver, the exchange step and
the clauses the step teaches in one compiled call, with no Python round trip per model.

The formula is a cone's completion (:func:`theory.solver.cone_cnf.cone_cnf`, both directions) and
the root. Each model's evidence goes to the exchange step
(:func:`theory.solver.exchange.exchange_step`): true, it teaches "not all of M" for every justification M
it found (the model's evidence shrunk, and those that :data:`ATTEMPTS` exchange tries
find after it); false, "some evidence
outside a maximal false set" F and the loop formulas of the loops that hold the root up
under F (:func:`theory.solver.cone_cnf.loop_cuts`): the outside
clause already cuts the model, and the loops of F, rather than those of the model's own
evidence, also cut the models that add evidence from outside F but still stand on such a
loop (fewer false models on graphs with many back-edges). The search does not
start again after a model: each new clause is attached to the trail as it stands, after
backjumping only as far as the clause needs (to be unit, or to leave two free literals),
so the next model reuses the decisions the last one shares with it. It ends, with every
justification found, when a clause is false at level 0.

The solver is a textbook one, small because its formulas are (hundreds of variables):
two watched literals per clause, kept as linked lists through the clauses with a blocking
literal per watch (the link and the blocker side by side in one array), except the
formula's two-literal clauses (four in ten of a completion's), which sit in one
implication list per literal, visited first; first-UIP learning with
local minimisation; VSIDS activities in a binary heap on large formulas; every decision
false (small models first), no restarts;
learnt clauses cleaned up from :data:`REDUCE_FROM` on (the clauses of the step and of the
formula stay). It is compiled rather than a call to a faster external solver because the
search is many small solves: over CaDiCaL through python-sat, the round trip per model
(solve, get the model, add the clauses) costs more than the faster propagation saves
(``python -m benchmarks.bench_justifications --loops`` compares the two). The tests check
it against that search and against brute force.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from theory.solver.cone_cnf import ConeCNF, loop_cut_arrays
from theory.solver.exchange import Exchange, exchange_step, row_positions
from theory.solver.label_kernel import doubled

DECISIONS, CONFLICTS, MODELS, STOPPED = range(4)
"""Indices of :func:`search`'s counts (``STOPPED``: 1 when the budget ran out first)."""
CONFLICT_WORK = 10
"""Work of one conflict in decisions, for :func:`search`'s budget (a conflict analyses and
learns, a decision only assigns and propagates)."""
ATTEMPTS = 64
"""Exchange attempts per model in the step of this solver's search (the ``attempts`` of the
:class:`~theory.solver.exchange.Exchange` that :func:`theory.solver.justifications.minimal_justifications`
hands it): after a true model, up to this many tries for more justifications without the
solver (and at most :data:`~theory.solver.exchange.PATIENCE` failed tries in a row). A model of a
cone's completion assigns every variable of the cone, so on cones of a few hundred variables
a model costs more than the tries: with none, the search took 5-20% longer on the case files,
the nested, dense and layered families and the held-out preferential and bipartite shapes,
and 0.1-0.3 ms less in all on the cycles and necklaces, where tries find little
(``python -m benchmarks.bench_exchange_attempts``, three draws; 16 and 64 within a few
percent of each other)."""
ACTIVITY_DECAY = 0.75
"""VSIDS decay per conflict. The search never restarts, so a fast decay keeps its
decisions on the variables of the last conflicts; the value is tuned on the layered graphs
of ``bench_justifications --loops`` and ``--held-out``, where the cases with the most
justifications depend on it most."""
REDUCE_FROM = 500
"""Learnt clauses kept before the first clean-up, which deletes the half of them with the
most decision levels (LBD) that are not reasons now; the bound grows by
:data:`REDUCE_GROWTH` after each."""
REDUCE_GROWTH = 1.1
HEAP_FROM = 4096
"""Variables from which decisions come from a binary heap of activities; below, a scan of
every variable is cheaper than keeping the heap through every backjump on the formulas
of a few hundred variables this search mostly gets.
A scan keeps the :data:`CANDIDATES` best free variables: until the next backjump no
variable becomes free and no activity changes, so the next decision is the first of them
still free, and the scan runs again only when none is."""
CANDIDATES = 8


def search(
    cnf: ConeCNF,
    exchange: Exchange,
    reduce_from: int = REDUCE_FROM,
    budget: int = -1,
    limit: int = -1,
) -> np.ndarray:
    """Enumerate every minimal justification of the exchange's cone into ``exchange``
    (:meth:`~theory.solver.exchange.Exchange.found` lists them after); returns the counts
    ``[decisions, conflicts, models, stopped]``. The sets ``exchange`` holds already (an
    earlier run's that ran out of budget) are blocked from the start ("not all of M", as the
    step teaches), so a run after a stopped one resumes the enumeration instead of finding
    them again. ``reduce_from``: learnt clauses kept before the
    first clean-up (:data:`REDUCE_FROM`). ``budget`` (work: decisions plus
    :data:`CONFLICT_WORK` per conflict; negative: none) stops the search before a decision
    past it, with ``stopped`` 1 and only some justifications found: the lazy loop formulas
    can need a number of models exponential in the cone, and a caller with other methods
    (:mod:`theory.solver.portfolio`) must be able to hand the query on. ``limit`` (negative: none)
    stops it the same way once ``exchange`` holds that many sets (a caller that lists the
    first few of a claim with thousands).

    The root must have no premise (its only minimal justification would be the empty set,
    which the caller answers without a search).

    >>> from theory import SupportStructure
    >>> from theory.solver.cone_cnf import cone_cnf
    >>> from theory.solver.cone_kernel import ConeOracle
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["p", "q", "r", "s"], ["a", "b", "root"],
    ...     [("a", ["p"]), ("a", ["q"]), ("b", ["r"]), ("b", ["s"]), ("root", ["a", "b"])])
    >>> index = index_of(g)
    >>> oracle = ConeOracle(index, index.number["root"])
    >>> exchange = Exchange(oracle)
    >>> counts = search(cone_cnf(oracle), exchange)
    >>> sorted(sorted(index.ids[n] for n in m) for m in exchange.found())
    [['p', 'r'], ['p', 's'], ['q', 'r'], ['q', 's']]
    >>> int(counts[MODELS])       # one model; the exchange step found the other three
    1
    """
    oracle = exchange.oracle
    counts = np.zeros(4, dtype=np.int64)
    exchange.rows, exchange.cols, exchange.count = _search(  # type: ignore[call-arg]
        cnf.variables,
        cnf.literals,
        cnf.start,
        cnf.root,
        cnf.holds,
        cnf.body,
        oracle.evidence,
        exchange.rows,
        exchange.cols,
        exchange.count,
        exchange.freq,
        exchange.tally,
        exchange.attempts,
        exchange.patience,
        *oracle.kernel_args(),
        counts,
        max(2, reduce_from),
        budget,
        limit,
    )
    return counts


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _room(
    lits: Any, c_start: Any, c_size: Any, wat: Any, clauses: int, used: int, width: int
) -> Any:
    """The clause arrays, grown so that one more clause of ``width`` literals fits
    (``wat``: two watches per clause, each its next watch and its blocker)."""
    while used + width > lits.shape[0]:
        lits = doubled(lits)
    if 4 * (clauses + 1) > wat.shape[0]:
        c_start = doubled(c_start)
        c_size = doubled(c_size)
        wat = doubled(wat)
    return lits, c_start, c_size, wat


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _store(
    source: Any,
    bounds: Any,
    sign: int,
    lits: Any,
    c_start: Any,
    c_size: Any,
    wat: Any,
    clauses: int,
    used: int,
) -> Any:
    """Store clauses ``source[bounds[i]:bounds[i + 1]]`` (not yet watched): evidence
    positions as the literals of their variables, negated (``sign`` -1) or not (1), or
    literals as they are (``sign`` 0)."""
    for g in range(bounds.shape[0] - 1):
        width = bounds[g + 1] - bounds[g]
        lits, c_start, c_size, wat = _room(lits, c_start, c_size, wat, clauses, used, width)
        for z in range(width):
            x = source[bounds[g] + z]
            lits[used + z] = x if sign == 0 else sign * (x + 1)
        c_start[clauses] = used
        c_size[clauses] = width
        clauses += 1
        used += width
    return lits, c_start, c_size, wat, clauses, used


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _link(c: int, first: int, second: int, head: Any, wat: Any, V: int) -> None:
    """Watch clause c on its literals ``first`` and ``second`` (each the other's blocker)."""
    wat[4 * c] = head[first + V]  # watch 2c: link, blocker
    wat[4 * c + 1] = second
    head[first + V] = 2 * c
    wat[4 * c + 2] = head[second + V]  # watch 2c + 1
    wat[4 * c + 3] = first
    head[second + V] = 2 * c + 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _assign(
    lit: int, at: int, why: int, lv: Any, level: Any, reason: Any, trail: Any, n_trail: int, V: int
) -> int:
    """Make ``lit`` true at level ``at`` with reason clause ``why`` (-1: none); returns the
    new trail length."""
    lv[lit + V] = 1
    lv[V - lit] = -1
    level[abs(lit)] = at
    reason[abs(lit)] = why
    trail[n_trail] = lit
    return n_trail + 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _candidates(lv: Any, activity: Any, V: int, cand: Any, cand_activity: Any) -> int:
    """The free variables of most activity, at most ``cand.shape[0]`` of them, into ``cand``
    best first (the lower variable first among equals, as a scan for the best one picks);
    returns how many."""
    k = cand.shape[0]
    n = 0
    for v in range(1, V + 1):
        if lv[v + V] != 0:
            continue
        a = activity[v]
        if n == k and a <= cand_activity[k - 1]:
            continue
        i = n if n < k else k - 1
        while i > 0 and cand_activity[i - 1] < a:
            cand[i] = cand[i - 1]
            cand_activity[i] = cand_activity[i - 1]
            i -= 1
        cand[i] = v
        cand_activity[i] = a
        if n < k:
            n += 1
    return n


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _up(heap: Any, pos: Any, activity: Any, i: int) -> None:
    v = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        if activity[heap[parent]] >= activity[v]:
            break
        heap[i] = heap[parent]
        pos[heap[i]] = i
        i = parent
    heap[i] = v
    pos[v] = i


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _down(heap: Any, pos: Any, activity: Any, size: int, i: int) -> None:
    v = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and activity[heap[child + 1]] > activity[heap[child]]:
            child += 1
        if activity[heap[child]] <= activity[v]:
            break
        heap[i] = heap[child]
        pos[heap[i]] = i
        i = child
    heap[i] = v
    pos[v] = i


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _insert(heap: Any, pos: Any, activity: Any, size: int, v: int) -> int:
    """Put variable v in the decision heap (if it is not there); returns the new size."""
    if pos[v] >= 0:
        return size
    heap[size] = v
    pos[v] = size
    _up(heap, pos, activity, size)
    return size + 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _backjump(
    to: int,
    trail: Any,
    trail_lim: Any,
    n_trail: int,
    lv: Any,
    reason: Any,
    heap: Any,
    pos: Any,
    activity: Any,
    size: int,
    V: int,
) -> Any:
    """Undo every assignment above decision level ``to``: the new trail length and heap
    size (the heap is in use from :data:`HEAP_FROM` variables)."""
    first = trail_lim[to + 1]
    for t in range(first, n_trail):
        q = trail[t]
        lv[q + V] = 0
        lv[V - q] = 0
        reason[abs(q)] = -1
        if V >= HEAP_FROM:
            size = _insert(heap, pos, activity, size, abs(q))
    return first, size


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _reduce(
    learnt_of: Any,
    lbd_of: Any,
    n_learnts: int,
    trail: Any,
    n_trail: int,
    reason: Any,
    lits: Any,
    c_start: Any,
    c_size: Any,
    clauses: int,
    pending: int,
    pending_end: int,
    head: Any,
    wat: Any,
    V: int,
    binaries: int,
) -> int:
    """Delete half of the learnt clauses, those with the most decision levels (the older
    first among equals), except the reasons of the trail and those of two levels or
    fewer, and watch every clause left again; returns how many learnt clauses are left."""
    locked = np.zeros(clauses, dtype=np.uint8)
    for t in range(n_trail):
        r = reason[abs(trail[t])]
        if r >= 0:
            locked[r] = 1
    order = np.argsort(-lbd_of[:n_learnts], kind="mergesort")
    doomed = np.zeros(clauses, dtype=np.uint8)
    deleted = 0
    for z in order:
        if deleted >= n_learnts // 2 or lbd_of[z] <= 2:
            break
        c = learnt_of[z]
        if not locked[c]:
            doomed[c] = 1
            c_size[c] = 0
            deleted += 1
    left = 0
    for z in range(n_learnts):
        if not doomed[learnt_of[z]]:
            learnt_of[left] = learnt_of[z]
            lbd_of[left] = lbd_of[z]
            left += 1
    head[:] = -1
    for c in range(binaries, clauses):
        if c_size[c] >= 2 and (c < pending or c >= pending_end):
            _link(c, lits[c_start[c]], lits[c_start[c] + 1], head, wat, V)
    return left


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _search(
    variables: int,
    cnf_lits: Any,
    cnf_start: Any,
    root_lit: int,
    holds: Any,
    body: Any,
    evidence: Any,
    rows: Any,
    cols: Any,
    count: int,
    freq: Any,
    tally: Any,
    attempts: int,
    patience: int,
    position: Any,
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
    counts: Any,
    reduce_from: int,
    budget: int,
    limit: int,
) -> Any:
    V = variables
    size = evidence.shape[0]  # evidence position p is variable p + 1
    lv = np.zeros(2 * V + 1, dtype=np.int8)  # lv[lit + V]: 1 true, -1 false, 0 free
    level = np.zeros(V + 1, dtype=np.int64)
    reason = np.full(V + 1, -1, dtype=np.int64)
    trail = np.empty(V + 1, dtype=np.int64)
    trail_lim = np.zeros(V + 2, dtype=np.int64)
    seen = np.zeros(V + 1, dtype=np.uint8)
    activity = np.zeros(V + 1, dtype=np.float64)
    use_heap = V >= HEAP_FROM
    heap = np.empty(V if use_heap else 0, dtype=np.int64)
    pos = np.full(V + 1, -1, dtype=np.int64)
    heap_size = 0
    if use_heap:
        for v in range(1, V + 1):
            heap_size = _insert(heap, pos, activity, heap_size, v)
    head = np.full(2 * V + 1, -1, dtype=np.int64)  # head[lit + V]: the first watch of lit
    inc = 1.0
    n_trail = 0
    qhead = 0
    dl = 0
    capacity = cnf_start.shape[0] + 64
    lits = np.empty(2 * cnf_lits.shape[0] + 256, dtype=np.int64)
    c_start = np.empty(capacity, dtype=np.int64)
    c_size = np.empty(capacity, dtype=np.int64)
    # watch 2c + s is on clause c's literal s: wat[2 * (2c + s)] is the next watch of that
    # literal, wat[2 * (2c + s) + 1] its blocker (side by side: one cache line for both)
    wat = np.empty(4 * capacity, dtype=np.int64)
    clauses = 0
    used = 0
    buffer = np.empty(max(V + 2, cnf_start.shape[0]), dtype=np.int64)
    learnt = np.empty(V + 2, dtype=np.int64)
    present = np.empty(size, dtype=np.int64)
    # the formula and the root, at level 0: its two-literal clauses first (clauses
    # [0, binaries), kept in implication lists instead of watches), then the rest
    n_input = cnf_start.shape[0] - 1
    binaries = 0
    for two in (True, False):
        for i in range(n_input + 1):
            width = 1
            if i < n_input:
                width = cnf_start[i + 1] - cnf_start[i]
                if (width == 2) != two:
                    continue
                if width > buffer.shape[0]:
                    buffer = np.empty(width, dtype=np.int64)
                buffer[:width] = cnf_lits[cnf_start[i] : cnf_start[i + 1]]
            elif two:
                continue
            else:
                buffer[0] = root_lit
            w = 0
            satisfied = False
            for t in range(width):
                value = lv[buffer[t] + V]
                if value == 1:
                    satisfied = True
                    break
                if value == 0:
                    buffer[w] = buffer[t]
                    w += 1
            if satisfied:
                continue
            if w == 0:
                return rows, cols, count  # no model at all
            if w == 1:
                n_trail = _assign(buffer[0], 0, -1, lv, level, reason, trail, n_trail, V)
                continue
            lits, c_start, c_size, wat = _room(lits, c_start, c_size, wat, clauses, used, w)
            lits[used : used + w] = buffer[:w]
            c_start[clauses] = used
            c_size[clauses] = w
            if not two:
                _link(clauses, buffer[0], buffer[1], head, wat, V)
            clauses += 1
            used += w
        if two:
            binaries = clauses
    # implication lists: bin_other[bin_start[lit + V]:bin_start[lit + V + 1]] are the
    # literals implied when lit is false (bin_clause: their clauses, the reasons)
    bin_start = np.zeros(2 * V + 2, dtype=np.int64)
    for c in range(binaries):
        bin_start[lits[c_start[c]] + V + 1] += 1
        bin_start[lits[c_start[c] + 1] + V + 1] += 1
    for k in range(2 * V + 1):
        bin_start[k + 1] += bin_start[k]
    bin_other = np.empty(2 * binaries, dtype=np.int64)
    bin_clause = np.empty(2 * binaries, dtype=np.int64)
    fill = bin_start[:-1].copy()
    for c in range(binaries):
        for s in range(2):
            a = lits[c_start[c] + s]
            bin_other[fill[a + V]] = lits[c_start[c] + 1 - s]
            bin_clause[fill[a + V]] = c
            fill[a + V] += 1
    # learnt clauses: their indices and decision-level counts (LBD), for the clean-up
    learnt_of = np.empty(1024, dtype=np.int64)
    lbd_of = np.empty(1024, dtype=np.int64)
    n_learnts = 0
    keep_learnts = reduce_from
    stamp = np.zeros(V + 2, dtype=np.int64)
    stamps = 0
    pending = clauses  # clauses [pending, pending_end) are stored but not attached yet
    if count > 0:  # sets an earlier run found (it ran out of budget): "not all of M" each
        found_flat, found_start = row_positions(rows, 0, count)
        lits, c_start, c_size, wat, clauses, used = _store(
            found_flat, found_start, -1, lits, c_start, c_size, wat, clauses, used
        )
    pending_end = clauses
    conflict = -1
    # the best free variables of the last scan (cand[next_cand:n_cand] still to try); a
    # backjump empties them
    cand = np.empty(CANDIDATES, dtype=np.int64)
    cand_activity = np.empty(CANDIDATES, dtype=np.float64)
    n_cand = 0
    next_cand = 0
    while True:
        # unit propagation over the watches of each literal made false
        while conflict < 0 and qhead < n_trail:
            false_lit = -trail[qhead]
            qhead += 1
            for z in range(bin_start[false_lit + V], bin_start[false_lit + V + 1]):
                other = bin_other[z]
                value = lv[other + V]
                if value == 1:
                    continue
                if value == -1:
                    conflict = bin_clause[z]
                    break
                n_trail = _assign(other, dl, bin_clause[z], lv, level, reason, trail, n_trail, V)
            if conflict >= 0:
                break
            prev = -1
            node = head[false_lit + V]
            while node != -1:
                following = wat[2 * node]
                if lv[wat[2 * node + 1] + V] == 1:
                    prev = node
                    node = following
                    continue
                c = node >> 1
                s = node & 1
                b = c_start[c]
                other = lits[b + 1 - s]
                if lv[other + V] == 1:
                    wat[2 * node + 1] = other
                    prev = node
                    node = following
                    continue
                moved = False
                for k in range(b + 2, b + c_size[c]):
                    q = lits[k]
                    if lv[q + V] != -1:
                        lits[k] = false_lit
                        lits[b + s] = q
                        if prev == -1:
                            head[false_lit + V] = following
                        else:
                            wat[2 * prev] = following
                        wat[2 * node] = head[q + V]
                        head[q + V] = node
                        wat[2 * node + 1] = other
                        moved = True
                        break
                if moved:
                    node = following
                    continue
                if lv[other + V] == -1:
                    conflict = c
                    break
                n_trail = _assign(other, dl, c, lv, level, reason, trail, n_trail, V)
                prev = node
                node = following
        if conflict >= 0:
            counts[1] += 1
            if dl == 0:
                break
            # first UIP: resolve the current level's literals away, newest first
            path = 0
            n_learnt = 1
            t = n_trail - 1
            c = conflict
            implied = 0
            p = 0
            while True:
                for z in range(c_start[c], c_start[c] + c_size[c]):
                    q = lits[z]
                    v = abs(q)
                    if v == implied or seen[v] or level[v] == 0:
                        continue
                    seen[v] = 1
                    activity[v] += inc
                    if pos[v] >= 0:
                        _up(heap, pos, activity, pos[v])
                    if level[v] >= dl:
                        path += 1
                    else:
                        learnt[n_learnt] = q
                        n_learnt += 1
                while not seen[abs(trail[t])]:
                    t -= 1
                p = trail[t]
                t -= 1
                implied = abs(p)
                c = reason[implied]
                seen[implied] = 0
                path -= 1
                if path == 0:
                    break
            learnt[0] = -p
            inc *= 1.0 / ACTIVITY_DECAY
            if inc > 1e100:
                for u in range(V + 1):
                    activity[u] *= 1e-100
                inc *= 1e-100
            # local minimisation: a literal whose reason's other literals are all in the
            # clause (or of level 0) is implied by them
            for z in range(1, n_learnt):
                v = abs(learnt[z])
                r = reason[v]
                keep = r < 0
                if not keep:
                    for y in range(c_start[r], c_start[r] + c_size[r]):
                        u = abs(lits[y])
                        if u != v and not seen[u] and level[u] > 0:
                            keep = True
                            break
                buffer[z] = keep
            for z in range(1, n_learnt):
                seen[abs(learnt[z])] = 0
            w = 1
            for z in range(1, n_learnt):
                if buffer[z]:
                    learnt[w] = learnt[z]
                    w += 1
            n_learnt = w
            # bump the variables of the reasons of the clause's literals too (CaDiCaL's
            # bumpreason): they took part in the conflict one step back
            for z in range(1, n_learnt):
                r = reason[abs(learnt[z])]
                if r < 0:
                    continue
                for y in range(c_start[r], c_start[r] + c_size[r]):
                    u = abs(lits[y])
                    if level[u] > 0:
                        activity[u] += inc
                        if pos[u] >= 0:
                            _up(heap, pos, activity, pos[u])
            back = 0
            if n_learnt > 1:
                best = 1
                for z in range(2, n_learnt):
                    if level[abs(learnt[z])] > level[abs(learnt[best])]:
                        best = z
                q = learnt[1]
                learnt[1] = learnt[best]
                learnt[best] = q
                back = level[abs(learnt[1])]
            n_trail, heap_size = _backjump(
                back, trail, trail_lim, n_trail, lv, reason, heap, pos, activity, heap_size, V
            )
            n_cand = 0
            qhead = n_trail
            dl = back
            n_trail = _assign(
                learnt[0], dl, clauses if n_learnt > 1 else -1, lv, level, reason, trail, n_trail, V
            )
            if n_learnt > 1:
                lits, c_start, c_size, wat = _room(
                    lits, c_start, c_size, wat, clauses, used, n_learnt
                )
                lits[used : used + n_learnt] = learnt[:n_learnt]
                c_start[clauses] = used
                c_size[clauses] = n_learnt
                _link(clauses, learnt[0], learnt[1], head, wat, V)
                stamps += 1
                lbd = 0
                for z in range(n_learnt):
                    at = level[abs(learnt[z])]
                    if stamp[at] != stamps:
                        stamp[at] = stamps
                        lbd += 1
                if n_learnts == learnt_of.shape[0]:
                    learnt_of = doubled(learnt_of)
                    lbd_of = doubled(lbd_of)
                learnt_of[n_learnts] = clauses
                lbd_of[n_learnts] = lbd
                n_learnts += 1
                clauses += 1
                used += n_learnt
            conflict = -1
            if n_learnts >= keep_learnts:
                n_learnts = _reduce(
                    learnt_of,
                    lbd_of,
                    n_learnts,
                    trail,
                    n_trail,
                    reason,
                    lits,
                    c_start,
                    c_size,
                    clauses,
                    pending,
                    pending_end,
                    head,
                    wat,
                    V,
                    binaries,
                )
                keep_learnts = max(keep_learnts + 1, int(keep_learnts * REDUCE_GROWTH))
            continue
        if pending < pending_end:
            # attach one clause of the last step to the propagated trail: free or true
            # literals first, then false ones by level, backjumping as far as it needs
            c = pending
            pending += 1
            width = c_size[c]
            if width == 0:
                break  # the empty clause: no model is left
            b = c_start[c]
            for slot in range(min(2, width)):
                best = b + slot
                for z in range(b + slot + 1, b + width):
                    if lv[lits[best] + V] == -1 and (
                        lv[lits[z] + V] != -1 or level[abs(lits[z])] > level[abs(lits[best])]
                    ):
                        best = z
                q = lits[b + slot]
                lits[b + slot] = lits[best]
                lits[best] = q
            single = width == 1
            v0 = lv[lits[b] + V]
            v1 = -1 if single else lv[lits[b + 1] + V]
            l0 = level[abs(lits[b])]
            l1 = 0 if single else level[abs(lits[b + 1])]
            back = dl
            assign = False
            if v0 == -1:  # false: unit below its last literal, or two free above
                if l0 == 0:
                    break
                if single or l1 < l0:
                    back = l1
                    assign = True
                else:
                    back = l0 - 1
            elif v1 == -1:  # one literal not false: unit (true too late counts)
                if v0 == 0:
                    assign = True
                    if single:
                        back = 0
                elif single:  # true: it belongs at level 0 (if not there already)
                    if l0 > 0:
                        back = 0
                        assign = True
                elif l0 > l1:
                    back = l1
                    assign = True
            if back < dl:
                n_trail, heap_size = _backjump(
                    back, trail, trail_lim, n_trail, lv, reason, heap, pos, activity, heap_size, V
                )
                n_cand = 0
                qhead = n_trail
                dl = back
            if not single:
                _link(c, lits[b], lits[b + 1], head, wat, V)
            if assign:
                n_trail = _assign(
                    lits[b], dl, -1 if single else c, lv, level, reason, trail, n_trail, V
                )
            continue
        # decide: the free variable of most activity, false
        best = 0
        if not use_heap:
            while next_cand < n_cand and lv[cand[next_cand] + V] != 0:
                next_cand += 1
            if next_cand >= n_cand:
                n_cand = _candidates(lv, activity, V, cand, cand_activity)
                next_cand = 0
            if n_cand > 0:
                best = cand[next_cand]
        while use_heap and heap_size > 0:
            v = heap[0]
            heap_size -= 1
            pos[v] = -1
            if heap_size > 0:
                heap[0] = heap[heap_size]
                pos[heap[0]] = 0
                _down(heap, pos, activity, heap_size, 0)
            if lv[v + V] == 0:
                best = v
                break
        if best != 0:
            if (budget >= 0 and counts[0] + CONFLICT_WORK * counts[1] >= budget) or (
                0 <= limit <= count
            ):
                counts[3] = 1  # out of budget: what was found is a part of the answer
                break
            counts[0] += 1
            dl += 1
            trail_lim[dl] = n_trail
            n_trail = _assign(-best, dl, -1, lv, level, reason, trail, n_trail, V)
            continue
        # a model: the exchange step decides its evidence; store the clauses it teaches
        if n_trail != V:
            raise AssertionError("a model's trail holds a variable twice")
        counts[2] += 1
        m = 0
        for v in range(1, size + 1):
            if lv[v + V] == 1:
                present[m] = v - 1
                m += 1
        kind, rows, cols, count, flat, start = exchange_step(
            present[:m],
            rows,
            cols,
            count,
            freq,
            tally,
            attempts,
            patience,
            a_start,
            a_local,
            claim_kept,
            comp_of,
            comp_nodes,
            comp_start,
            cyclic,
            ev_local,
            premises,
            w_start,
            w_just,
            just_claim,
            just_size,
            root,
            missing,
            held,
            stack,
            mask,
        )
        pending = clauses
        if kind:  # "not all of M" for each set found
            lits, c_start, c_size, wat, clauses, used = _store(
                flat, start, -1, lits, c_start, c_size, wat, clauses, used
            )
        else:  # "some evidence outside", and the loop formulas of the maximal false set
            lits, c_start, c_size, wat, clauses, used = _store(
                flat, start, 1, lits, c_start, c_size, wat, clauses, used
            )
            inside = np.ones(size, dtype=np.uint8)
            for z in range(flat.shape[0]):
                inside[flat[z]] = 0
            grown = np.nonzero(inside)[0]
            cut, cut_start = loop_cut_arrays(
                evidence[grown],
                holds,
                body,
                position,
                a_start,
                a_local,
                claim_kept,
                comp_of,
                comp_nodes,
                comp_start,
                cyclic,
                ev_local,
                premises,
                w_start,
                w_just,
                just_claim,
                just_size,
                root,
                missing,
                held,
                stack,
                mask,
            )
            lits, c_start, c_size, wat, clauses, used = _store(
                cut, cut_start, 0, lits, c_start, c_size, wat, clauses, used
            )
        pending_end = clauses
    return rows, cols, count


__all__ = ["ATTEMPTS", "CONFLICTS", "CONFLICT_WORK", "DECISIONS", "MODELS", "STOPPED", "search"]
