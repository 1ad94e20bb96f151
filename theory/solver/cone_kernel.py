"""The least fixpoint of one claim's support cone, compiled (numba): the exact check a model
search calls on every candidate evidence set.

:class:`ConeOracle` answers, for a set X of evidence, whether the claim holds in the least
fixpoint of X (the definition of :mod:`theory.semantics.fixpoint`, restricted to the cone: counters
per justification, a stack of held nodes, stopping as soon as the claim is held), and turns
the answer into the strongest clause a search can learn from it, in the same compiled call:

Justifications that contain another justification of the same claim are left out (they
never change the fixpoint, :func:`theory.solver.label_kernel.cone`).

- X true: shrink it greedily to a minimal true set M (drop each member whose removal keeps
  the claim held; the function is monotone, so the result is minimal). "Not all of M"
  blocks M and its supersets.
- X false: grow it greedily to a maximal false set Y (add each evidence item whose addition
  keeps the claim out). Every true set has a member outside Y: "some evidence outside Y".

The one-search enumerator of :mod:`theory.solver.justifications` is built on it; the tests check
it against :func:`theory.semantics.fixpoint.active_state` and brute force.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numba
import numpy as np

from theory.model.index import SupportIndex
from theory.solver.label_kernel import components, cone, flat_index, offsets


class ConeOracle:
    """The support cone of node ``root`` laid out for :meth:`examine`.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e", "f", "g"], ["a", "b"],
    ...                            [("a", ["b"]), ("b", ["a"]), ("b", ["e", "f"]), ("a", ["g"])])
    >>> index = index_of(g)
    >>> oracle = ConeOracle(index, index.number["a"])
    >>> oracle.holds(index.numbers(["e", "f"])), oracle.holds(index.numbers(["e"]))
    (True, False)
    >>> true, found = oracle.examine(index.numbers(["e", "f", "g"]))
    >>> true, sorted(index.ids[n] for n in found)   # shrunk: minimal, {g} would be too
    (True, ['e', 'f'])
    >>> true, outside = oracle.examine(index.numbers(["e"]))
    >>> true, sorted(index.ids[n] for n in outside)  # {e} is maximal false: f or g is needed
    (False, ['f', 'g'])
    """

    def __init__(self, index: SupportIndex, root: int):
        flat = flat_index(index)
        (
            self.evidence,
            self.position,
            self.ev_local,
            self.premises,
            self.w_start,
            self.w_just,
            self.just_claim,
            self.just_size,
            self.root,
            self.nodes,
            self.kept,
            self.shape,
        ) = _prepare(
            int(root), flat.is_evidence, flat.just_start, flat.justs, flat.ante_start, flat.antes
        )
        self._scratch = (
            np.empty(self.just_size.shape[0], dtype=np.int64),
            np.zeros(self.local_size, dtype=np.int64),
            np.empty(self.local_size + 1, dtype=np.int64),
            np.zeros(self.evidence.shape[0], dtype=np.uint8),
        )

    @property
    def local_size(self) -> int:
        """Nodes in the cone."""
        return int(self.w_start.shape[0] - 1)

    def kernel_args(self) -> tuple[Any, ...]:
        return (
            self.position,
            *self.shape,
            self.ev_local,
            self.premises,
            self.w_start,
            self.w_just,
            self.just_claim,
            self.just_size,
            self.root,
        ) + self._scratch

    def holds(self, present: Iterable[int]) -> bool:
        """Whether the root is in the least fixpoint when exactly the evidence ``present``
        (node numbers; evidence outside the cone is ignored) is present."""
        return bool(_holds_of(np.fromiter(present, dtype=np.int64), *self.kernel_args()))

    def examine(self, present: Iterable[int]) -> tuple[bool, np.ndarray]:
        """``(True, M)``: the root holds under ``present``, and M (node numbers) is a minimal
        true subset of it; or ``(False, O)``: it does not, and O is the evidence of the cone
        outside a maximal false superset of it (some member of O is in every true set)."""
        kind, result = _examine(np.fromiter(present, dtype=np.int64), *self.kernel_args())
        return bool(kind), self.evidence[result]

    def unfounded(self, present: Iterable[int]) -> list[tuple[list[int], list[int]]]:
        """For evidence under which the root does not hold: the loops of the claims U that
        could still hold in a supported model (the greatest set of claims each with a
        justification whose antecedents are present or in the set) but not in the least
        fixpoint. One ``(members, external)`` per strongly connected component of U through
        the justifications inside U that is a loop: its claims (node numbers) and the
        justifications of its members with no antecedent in it (justification numbers).
        Every model of the least fixpoint holding a member holds one of those justifications
        (the loop formula); a model holding the root under ``present`` violates at least one."""
        loops = self.unfounded_local(present)
        return [
            (self.nodes[members].tolist(), self.kept[external].tolist())
            for members, external in loops
        ]

    def unfounded_local(self, present: Iterable[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`unfounded` in the cone's own numbering: local node and kept-justification
        indices (``nodes[x]``, ``kept[k]`` give the index's numbers)."""
        members, member_start, external, ext_start = unfounded_loops(
            np.fromiter(present, dtype=np.int64), *self.kernel_args()
        )
        return [
            (
                members[member_start[i] : member_start[i + 1]],
                external[ext_start[i] : ext_start[i + 1]],
            )
            for i in range(len(member_start) - 1)
        ]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _prepare(
    root: int, is_evidence: Any, just_start: Any, justs: Any, ante_start: Any, antes: Any
) -> Any:
    local, nodes, kept, kept_start = cone(
        np.array([root], dtype=np.int64), is_evidence, just_start, justs, ante_start, antes
    )
    count = nodes.shape[0]
    n_just = kept.shape[0]
    just_claim = np.empty(n_just, dtype=np.int64)
    just_size = np.empty(n_just, dtype=np.int64)
    w_start = np.zeros(count + 1, dtype=np.int64)
    premises_list = []
    for x in range(count):
        for k in range(kept_start[x], kept_start[x + 1]):
            j = kept[k]
            just_claim[k] = x
            just_size[k] = ante_start[j + 1] - ante_start[j]
            if just_size[k] == 0:
                premises_list.append(k)
            for r in range(ante_start[j], ante_start[j + 1]):
                w_start[local[antes[r]] + 1] += 1
    fill = offsets(w_start)
    w_just = np.empty(w_start[count], dtype=np.int64)
    for k in range(n_just):
        j = kept[k]
        for r in range(ante_start[j], ante_start[j + 1]):
            y = local[antes[r]]
            w_just[fill[y]] = k
            fill[y] += 1
    evidence_list = []
    ev_local_list = []
    for x in range(count):
        if is_evidence[nodes[x]]:
            evidence_list.append(nodes[x])
            ev_local_list.append(x)
    evidence = (
        np.array(evidence_list, dtype=np.int64)
        if len(evidence_list)
        else np.zeros(0, dtype=np.int64)
    )
    ev_local = (
        np.array(ev_local_list, dtype=np.int64)
        if len(ev_local_list)
        else np.zeros(0, dtype=np.int64)
    )
    premises = (
        np.array(premises_list, dtype=np.int64)
        if len(premises_list)
        else np.zeros(0, dtype=np.int64)
    )
    # node number -> evidence position (-1 for claims and nodes outside the cone)
    position = np.full(is_evidence.shape[0], -1, dtype=np.int64)
    for e in range(evidence.shape[0]):
        position[evidence[e]] = e
    a_start = np.zeros(n_just + 1, dtype=np.int64)
    for k in range(n_just):
        a_start[k + 1] = a_start[k] + just_size[k]
    a_local = np.empty(a_start[n_just], dtype=np.int64)
    for k in range(n_just):
        j = kept[k]
        for r in range(ante_start[j], ante_start[j + 1]):
            a_local[a_start[k] + r - ante_start[j]] = local[antes[r]]
    # the cone's strongly connected components through antecedents, antecedents first
    pred_start = np.zeros(count + 1, dtype=np.int64)
    for x in range(count):
        pred_start[x + 1] = pred_start[x] + a_start[kept_start[x + 1]] - a_start[kept_start[x]]
    preds = a_local  # a claim's justifications are contiguous, so are its antecedents
    comp_of, comp_nodes, comp_start = components(np.ones(count, dtype=np.uint8), pred_start, preds)
    cyclic = np.zeros(comp_start.shape[0] - 1, dtype=np.int64)
    for c in range(cyclic.shape[0]):
        x = comp_nodes[comp_start[c]]
        cyclic[c] = comp_start[c + 1] - comp_start[c] > 1
        for q in range(pred_start[x], pred_start[x + 1]):
            if preds[q] == x:
                cyclic[c] = 1
    shape = (a_start, a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic)
    return (
        evidence,
        position,
        ev_local,
        premises,
        w_start,
        w_just,
        just_claim,
        just_size,
        0,
        nodes,
        kept,
        shape,
    )


@numba.njit(cache=True, nogil=True, boundscheck=False)
def root_holds(
    mask: Any,
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
) -> bool:
    """Whether the root is held in the least fixpoint of the evidence marked in ``mask``.

    ``held`` records the derivation: 0 for a node not held, -1 for present evidence, k + 1
    for a claim first held through its justification k (:func:`_support` reads it)."""
    if mask.shape[0] == 0 and premises.shape[0] == 0:
        return False
    for j in range(just_size.shape[0]):
        missing[j] = just_size[j]
    held[:] = 0
    top = 0
    for k in premises:
        c = just_claim[k]
        if not held[c]:
            held[c] = k + 1
            if c == root:
                return True
            stack[top] = c
            top += 1
    for e in range(mask.shape[0]):  # without a branch: which evidence is present is data
        x = ev_local[e]
        present: Any = np.int64(mask[e])  # int64 in numba (a uint8 would make top unsigned)
        held[x] = -present
        stack[top] = x
        top += present
    return _derive(
        top, stack, missing, held, w_start, w_just, just_claim, root, False, stack, stack
    )[0]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _derive(
    top: int,
    stack: Any,
    missing: Any,
    held: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    root: int,
    log: bool,
    node_log: Any,
    just_log: Any,
) -> Any:
    """Derive from the nodes ``stack[:top]`` (held already): each justification all of whose
    antecedents are held holds its claim, until the root is held or nothing is left.
    Returns whether the root came in and, with ``log``, how many claims it held (listed in
    ``node_log``) and how many counts of ``missing`` it took down (``just_log``)."""
    nodes = 0
    justs = 0
    while top:
        top -= 1
        a = stack[top]
        for q in range(w_start[a], w_start[a + 1]):
            k = w_just[q]
            missing[k] -= 1
            if log:
                just_log[justs] = k
                justs += 1
            if missing[k] == 0:
                c = just_claim[k]
                if not held[c]:
                    held[c] = k + 1
                    if log:
                        node_log[nodes] = c
                        nodes += 1
                    if c == root:
                        return True, nodes, justs
                    stack[top] = c
                    top += 1
    return False, nodes, justs


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _mask_of(present: Any, position: Any, mask: Any) -> None:
    """Mark the cone evidence among ``present`` (node numbers) in ``mask``."""
    mask[:] = 0
    for n in present:
        if position[n] >= 0:
            mask[position[n]] = 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _holds_of(
    present: Any,
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
) -> bool:
    _mask_of(present, position, mask)
    return root_holds(
        mask, ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack
    )


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _support(
    held: Any, root: int, shape: Any, ev_local: Any, stack: Any, seen: Any, mask: Any
) -> None:
    """Keep in ``mask`` only the evidence of the derivation of the root that the last
    :func:`root_holds` recorded in ``held`` (a true subset: the derivation stands on it)."""
    a_start, a_local = shape[0], shape[1]
    seen[:] = 0
    seen[root] = 1
    stack[0] = root
    top = 1
    while top:
        top -= 1
        k = held[stack[top]] - 1
        if k < 0:
            continue  # evidence
        for r in range(a_start[k], a_start[k + 1]):
            y = a_local[r]
            if not seen[y]:
                seen[y] = 1
                stack[top] = y
                top += 1
    for e in range(mask.shape[0]):
        mask[e] = seen[ev_local[e]]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def fixpoints(
    word: Any,
    full: Any,
    shape: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    queued: Any,
    stack: Any,
) -> None:
    """Up to 64 least fixpoints at once: bit i of ``word[x]`` is node x in fixpoint i. The
    evidence words are given; every claim's is computed (``full`` has the m bits in use).
    Each bit is its own monotone system; components are taken antecedents first, so an
    acyclic claim is evaluated once and a cyclic component grows from nothing by a worklist
    inside it. ``queued`` must be all zero (and is left so).

    A justification's word is the AND of all its antecedents' words, with no early exit
    once it is zero: whether it is zero is data, and the branches an early exit
    mispredicts cost more than the loads it saves (``bench_search_revisions`` compares such
    variants of the one search on the held-out graphs of ``bench_justifications``)."""
    a_start, a_local, kept_start, comp_of, comp_nodes, comp_start, cyclic = shape
    for c in range(comp_start.shape[0] - 1):
        top = 0
        for z in range(comp_start[c], comp_start[c + 1]):
            x = comp_nodes[z]
            if kept_start[x] == kept_start[x + 1]:
                continue  # evidence (its word is given), or a claim with no justification
            value = np.uint64(0)
            for k in range(kept_start[x], kept_start[x + 1]):
                v = full
                for r in range(a_start[k], a_start[k + 1]):
                    v &= word[a_local[r]]
                value |= v
            word[x] = value
            if cyclic[c] and value:
                queued[x] = 1
                stack[top] = x
                top += 1
        while top:
            top -= 1
            y = stack[top]
            queued[y] = 0
            for q in range(w_start[y], w_start[y + 1]):
                k = w_just[q]
                x = just_claim[k]
                if comp_of[x] != c:
                    continue
                v = full
                for r in range(a_start[k], a_start[k + 1]):
                    v &= word[a_local[r]]
                grown = word[x] | v
                if grown != word[x]:
                    word[x] = grown
                    if not queued[x]:
                        queued[x] = 1
                        stack[top] = x
                        top += 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def without_each(
    mask: Any,
    tried: Any,
    m: int,
    shape: Any,
    ev_local: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    root: int,
    word: Any,
    queued: Any,
    stack: Any,
) -> Any:
    """The root in the least fixpoints of ``mask`` less each of ``tried[:m]`` (m <= 64
    positions, all in ``mask``), in one pass of :func:`fixpoints`: bit i of the result is
    set when the root is in that of ``mask`` less ``tried[i]``, and bit m (when m < 64)
    when it is in that of ``mask`` itself."""
    lanes = min(m + 1, 64)
    full = (
        np.uint64(0xFFFFFFFFFFFFFFFF)
        if lanes == 64
        else (np.uint64(1) << np.uint64(lanes)) - np.uint64(1)
    )
    word[:] = 0
    for e in range(mask.shape[0]):
        word[ev_local[e]] = full & (np.uint64(0) - np.uint64(mask[e]))
    for i in range(m):
        word[ev_local[tried[i]]] &= ~(np.uint64(1) << np.uint64(i))
    fixpoints(word, full, shape, w_start, w_just, just_claim, queued, stack)
    return word[root] & full


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _critical(
    mask: Any,
    tried: Any,
    m: int,
    shape: Any,
    ev_local: Any,
    premises: Any,
    w_start: Any,
    w_just: Any,
    just_claim: Any,
    just_size: Any,
    root: int,
    word: Any,
    queued: Any,
    stack: Any,
) -> Any:
    """Which of the evidence ``tried[:m]`` (m <= 64 positions, all in ``mask``) the root
    needs: bit i of the result is set when the root is not in the least fixpoint of
    ``mask`` less ``tried[i]`` (:func:`without_each`)."""
    full = (
        np.uint64(0xFFFFFFFFFFFFFFFF) if m == 64 else (np.uint64(1) << np.uint64(m)) - np.uint64(1)
    )
    return (
        ~without_each(
            mask, tried, m, shape, ev_local, w_start, w_just, just_claim, root, word, queued, stack
        )
        & full
    )


@numba.njit(cache=True, nogil=True, boundscheck=False)
def shrink_true(
    mask: Any,
    shape: Any,
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
) -> None:
    """Shrink ``mask``, just found true by :func:`root_holds`, to a minimal true subset. First
    only the evidence of the recorded derivation is kept; then :func:`_critical` tests up
    to 64 members at once: those the root needs stay needed in every subset, and the
    others are dropped one by one where the root still holds without them (one fixpoint
    each, keeping only the new derivation's evidence), kept where it does not, so every
    member left is needed."""
    count = held.shape[0]
    seen = np.zeros(count, dtype=np.uint8)
    queued = np.zeros(count, dtype=np.uint8)
    word = np.zeros(count, dtype=np.uint64)
    needed = np.zeros(mask.shape[0], dtype=np.uint8)
    tried = np.empty(64, dtype=np.int64)
    args = (ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack)
    _support(held, root, shape, ev_local, stack, seen, mask)
    while True:
        m = 0
        for e in range(mask.shape[0]):
            if mask[e] and not needed[e]:
                tried[m] = e
                m += 1
                if m == 64:
                    break
        if m == 0:
            return
        bits = _critical(
            mask,
            tried,
            m,
            shape,
            ev_local,
            premises,
            w_start,
            w_just,
            just_claim,
            just_size,
            root,
            word,
            queued,
            stack,
        )
        for i in range(m):
            if bits & (np.uint64(1) << np.uint64(i)):
                needed[tried[i]] = 1
        for i in range(m):
            e = tried[i]
            if needed[e] or not mask[e]:
                continue
            mask[e] = 0
            if root_holds(mask, *args):
                _support(held, root, shape, ev_local, stack, seen, mask)
            else:
                mask[e] = 1
                needed[e] = 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def _examine(
    present: Any,
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
) -> Any:
    shape = (a_start, a_local, claim_kept, comp_of, comp_nodes, comp_start, cyclic)
    _mask_of(present, position, mask)
    args = (ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack)
    if root_holds(mask, *args):
        shrink_true(mask, shape, *args)
        return 1, np.nonzero(mask)[0]
    grow_false(mask, *args)
    return 0, np.nonzero(mask == 0)[0]


@numba.njit(cache=True, nogil=True, boundscheck=False)
def grow_false(
    mask: Any,
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
) -> None:
    """Grow ``mask``, false, to a maximal false superset: add each evidence item in turn
    whose addition keeps the root out. The least fixpoint of the mask is computed once and
    then extended by each item (what the item adds is logged, and undone when the root
    comes in), so an item costs what it derives rather than a fixpoint from nothing."""
    root_holds(
        mask, ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack
    )
    node_log = np.empty(held.shape[0], dtype=np.int64)
    just_log = np.empty(w_just.shape[0], dtype=np.int64)
    for e in range(mask.shape[0]):
        if mask[e]:
            continue
        x = ev_local[e]
        held[x] = -1
        stack[0] = x
        reached, nodes, justs = _derive(
            1, stack, missing, held, w_start, w_just, just_claim, root, True, node_log, just_log
        )
        if reached:
            for z in range(justs):
                missing[just_log[z]] += 1
            for z in range(nodes):
                held[node_log[z]] = 0
            held[x] = 0
        else:
            mask[e] = 1


@numba.njit(cache=True, nogil=True, boundscheck=False)
def unfounded_loops(
    present: Any,
    position: Any,
    a_start: Any,
    a_local: Any,
    kept_start: Any,
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
    """The compiled :meth:`ConeOracle.unfounded_local`: ``(members, member_start,
    external, ext_start)``, loop i being ``members[member_start[i]:member_start[i + 1]]``
    and its outside justifications ``external[ext_start[i]:ext_start[i + 1]]``."""
    _mask_of(present, position, mask)
    held[:] = 0
    root_holds(
        mask, ev_local, premises, w_start, w_just, just_claim, just_size, root, missing, held, stack
    )
    count = w_start.shape[0] - 1
    evidence = np.zeros(count, dtype=np.uint8)
    for e in range(ev_local.shape[0]):
        evidence[ev_local[e]] = 1 if mask[e] else 2  # 1 present, 2 absent
    bad = np.zeros(just_size.shape[0], dtype=np.int64)  # unavailable antecedents per justification
    for x in range(count):
        if evidence[x] == 2:
            for q in range(w_start[x], w_start[x + 1]):
                bad[w_just[q]] += 1
    alive = np.zeros(count, dtype=np.uint8)
    live = np.zeros(count, dtype=np.int64)  # available justifications per claim
    top = 0
    for x in range(count):
        if evidence[x] == 0:
            alive[x] = 1
            for k in range(kept_start[x], kept_start[x + 1]):
                if bad[k] == 0:
                    live[x] += 1
            if live[x] == 0:
                alive[x] = 0
                stack[top] = x
                top += 1
    while top:  # the greatest supported set: drop claims left with no available justification
        top -= 1
        c = stack[top]
        for q in range(w_start[c], w_start[c + 1]):
            k = w_just[q]
            bad[k] += 1
            if bad[k] == 1:
                x = just_claim[k]
                live[x] -= 1
                if live[x] == 0 and alive[x]:
                    alive[x] = 0
                    stack[top] = x
                    top += 1
    in_u = np.zeros(count, dtype=np.uint8)
    for x in range(count):
        if alive[x] and not held[x]:
            in_u[x] = 1
    # the loops of U: its strongly connected components through justifications inside U
    pred_start = np.zeros(count + 1, dtype=np.int64)
    for y in range(count):
        if in_u[y]:
            for q in range(w_start[y], w_start[y + 1]):
                if in_u[just_claim[w_just[q]]]:
                    pred_start[just_claim[w_just[q]] + 1] += 1
    fill = offsets(pred_start)
    preds = np.empty(pred_start[count], dtype=np.int64)
    for y in range(count):
        if in_u[y]:
            for q in range(w_start[y], w_start[y + 1]):
                x = just_claim[w_just[q]]
                if in_u[x]:
                    preds[fill[x]] = y
                    fill[x] += 1
    comp_of, comp_nodes, comp_start = components(in_u, pred_start, preds)
    stamp = np.zeros(
        just_size.shape[0], dtype=np.int64
    )  # c + 1: justification with an antecedent in loop c
    loop_start = [0]
    loop_members: list[int] = []
    ext_start = [0]
    external: list[int] = []
    for c in range(comp_start.shape[0] - 1):
        first, last = comp_start[c], comp_start[c + 1]
        x = comp_nodes[first]
        looped = last - first > 1
        for q in range(pred_start[x], pred_start[x + 1]):
            looped = looped or preds[q] == x
        if not looped:
            continue
        for z in range(first, last):
            y = comp_nodes[z]
            for q in range(w_start[y], w_start[y + 1]):
                if comp_of[just_claim[w_just[q]]] == c:
                    stamp[w_just[q]] = c + 1
        for z in range(first, last):
            y = comp_nodes[z]
            loop_members.append(y)
            for k in range(kept_start[y], kept_start[y + 1]):
                if stamp[k] != c + 1:
                    external.append(k)
        loop_start.append(len(loop_members))
        ext_start.append(len(external))
    return (
        np.array(loop_members, dtype=np.int64),
        np.array(loop_start, dtype=np.int64),
        np.array(external, dtype=np.int64),
        np.array(ext_start, dtype=np.int64),
    )


__all__ = [
    "ConeOracle",
    "fixpoints",
    "grow_false",
    "root_holds",
    "shrink_true",
    "unfounded_loops",
    "without_each",
]
