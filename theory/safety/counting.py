"""The counting boundary (Theorem 2): when does Datalog's Counting agree with exact revision?

Counting (:func:`theory.semantics.revision.counting`) retires a claim when none of its
justifications has all its antecedents still active, repeated until nothing changes: the
greatest supported subset ``counting_R`` of the state before the audit, less the audit.
Exact revision keeps the least fixpoint ``alive_R``. Always ``alive_R ⊆ counting_R``. An
active claim c is *counting-safe* for the audits drawn from the items D (the evidence, the
claims, or every node: :func:`theory.safety.check.audited_items`) when for every R ⊆ D
counting retires c iff exact does.

Theorem 2: c is counting-safe iff there is no *witness* (R, L): R ⊆ D, L a set of claims
with c ∈ L, every member of L active before the audit, outside R and outside ``alive_R``,
with a justification whose antecedents each lie in L or in ``alive_R``. (No witness => safe:
``L = counting_R \\ alive_R`` would be one; a witness => unsafe: ``L ∪ alive_R`` is supported,
so counting keeps c while exact retires it.) Every such L holds a support loop, which a
witness names. Corollary: a claim none of whose active ancestors (itself included) lies on a
cycle of claims is counting-safe for every D. Counting-safety and influence-safety are
incomparable (``c <- m; m <- c; m <- e`` is influence-safe and counting-unsafe; ``c <- a;
c <- b`` the other way round).

The decision, per claim, is a SAT query (coNP-hard in general) over the active subgraph:
variables ``a_x`` (x audited), ``k_v`` (v kept: a supported set) and ``t_v`` (a closed set
containing ``alive_R``), queried under the assumptions ``k_c, not t_c``. Claims behind no
loop skip it (the corollary); the others share one incremental CaDiCaL solver per region
(weakly connected part of their active ancestors), which is asked for any claim of the
region still open at once: each model settles every claim of its ``L``, one UNSAT answer
all the claims left. A witness's audit is then shrunk greedily, in id order, to a minimal
one (removing an item keeps c in ``counting_R``, which only grows: only ``c ∉ alive_R`` is
tested), so one call gives the same witness every time.

Audits of claims (``audits="claims"``/``"all"``) are audits of the gates of
:func:`theory.safety.check.gated`, as for influence-safety.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from theory.model.canonical import sorted_ids
from theory.model.errors import InputError
from theory.model.index import IndexView, gathered_rows, index_of
from theory.model.structure import SupportStructure, id_list
from theory.safety.check import AUDITS, audited_items, flat_justifications, gated, ungate
from theory.semantics.fixpoint import active_numbers, base_active
from theory.semantics.revision import counting_retired_numbers, exact_retired_numbers
from theory.solver.justifications import DEFAULT_SOLVER
from theory.solver.options import DEFAULTS

SOLVER = DEFAULT_SOLVER
"""The python-sat solver of the queries (CaDiCaL 1.9.5, the solver core's)."""
PIECE = DEFAULTS.step_conflicts
"""The conflicts of one piece of a query, between which the clock and the budget are read
(:attr:`theory.solver.options.SolverOptions.step_conflicts`)."""
COUNTING_CONFLICTS = DEFAULTS.counting_conflicts
"""Solver conflicts the queries of one region may spend together
(``counting_verdicts(conflicts=)``, ``jtms check --counting-budget``): the claims a region
leaves open past it are undecided
(:attr:`theory.solver.options.SolverOptions.counting_conflicts`)."""
COUNTING_REGION_LARGEST = DEFAULTS.counting_region
"""The most nodes (claims behind a loop and their intact ancestors, weakly connected) one
solver is built for (``counting_verdicts(largest=)``): the claims of a larger region are
undecided (a million-claim memory whose loops join most of it into one region: its encoding
alone would take more time and memory than the influence check's limits)."""


@dataclass(frozen=True)
class CountingWitness:
    """An audit under which counting keeps a claim that exact revision retires.

    ``audit`` is R (items of the audited kind), ``kept`` the set L of Theorem 2 (claims that
    keep each other's justifications intact, none of them active after exact revision of
    R), ``loop`` a cycle of claims inside L reached from the claim, in cycle order: each
    member has a justification, intact under counting, naming the next (the last names the
    first).
    """

    audit: frozenset[str]
    loop: tuple[str, ...]
    kept: frozenset[str]

    def to_dict(self) -> dict[str, Any]:
        """The ``counting_witness`` of ``jtms check --json``: ``audit`` and ``kept`` sorted,
        ``loop`` in cycle order."""
        return {
            "audit": sorted_ids(self.audit),
            "loop": list(self.loop),
            "kept": sorted_ids(self.kept),
        }


@dataclass(frozen=True)
class CountingVerdict:
    """Whether counting agrees with exact revision on ``claim`` for every audit (``safe``;
    None when a deadline left it undecided), and a witness when it does not."""

    claim: str
    safe: bool | None
    witness: CountingWitness | None

    def to_dict(self) -> dict[str, Any]:
        """The keys ``counting_safe`` and ``counting_witness`` of ``jtms check --json``."""
        return {
            "counting_safe": self.safe,
            "counting_witness": None if self.witness is None else self.witness.to_dict(),
        }


def loop_flags(index: IndexView, active: bytes | bytearray, kept: Any = None) -> tuple[Any, Any]:
    """Per node (numpy uint8): whether it is an active claim on a cycle of claims through
    intact justifications (all antecedents active), and whether it is an active claim with
    such a claim among its intact ancestors or itself (*behind a loop*): only those can be
    counting-unsafe (the corollary of Theorem 2). ``kept`` (uint8 per justification): the
    justifications in force (default all). Linear in the graph (the compiled components of
    :mod:`theory.safety.kernel`).

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> from theory.semantics.fixpoint import base_active
    >>> g = SupportStructure.build(["e"], ["c", "m", "d"],
    ...     [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("d", ["e"])])
    >>> on, behind = loop_flags(index_of(g), base_active(g))
    >>> [index_of(g).ids[n] for n in behind.nonzero()[0]]
    ['c', 'm']
    """
    import numpy as np

    from theory.safety import kernel

    size = index.size
    is_evidence = np.frombuffer(bytes(index.is_evidence[:size]), dtype=np.uint8)
    flags = np.frombuffer(bytes(active[:size]), dtype=np.uint8)
    just_start, justs, ante_start, antes = flat_justifications(index)
    if kept is None:
        kept = np.ones(len(ante_start) - 1, dtype=np.uint8)
    order = kernel.order(is_evidence, just_start, justs, ante_start, antes, kept, flags)
    del just_start, justs, ante_start, antes
    sizes = np.diff(order.part_start)
    on_loop = np.zeros(size, dtype=np.uint8)
    big = np.flatnonzero(sizes > 1)
    if len(big):
        members, _ = gathered_rows(order.part_start, order.part_nodes, big)
        on_loop[members] = 1
    # a single claim with an intact justification naming itself
    lengths = np.diff(order.succ_start)
    owner = np.repeat(np.arange(size, dtype=np.int64), lengths)
    on_loop[owner[order.succ == owner]] = 1
    behind = on_loop.copy()
    frontier = np.flatnonzero(on_loop)
    while frontier.size:  # forward along intact justifications, a level at a time
        reached, _ = gathered_rows(order.succ_start, order.succ, frontier)
        reached = np.unique(reached)
        reached = reached[behind[reached] == 0]
        behind[reached] = 1
        frontier = reached
    return on_loop, behind


def _intact_justifications(index: IndexView, active: bytes | bytearray, n: int) -> list[int]:
    """The justifications of ``n`` whose antecedents are all active."""
    antecedents = index.just_antecedents
    return [j for j in index.justs_of[n] if all(active[a] for a in antecedents[j])]


def _cone(index: IndexView, active: bytes | bytearray, roots: Iterable[int]) -> set[int]:
    """``roots`` and their ancestors through intact justifications."""
    seen = set(roots)
    stack = list(seen)
    antecedents = index.just_antecedents
    while stack:
        n = stack.pop()
        for j in _intact_justifications(index, active, n):
            for a in antecedents[j]:
                if a not in seen:
                    seen.add(a)
                    stack.append(a)
    return seen


PACKED = DEFAULTS.counting_region // 4
"""The nodes of the weakly connected parts :func:`_regions` packs into one solver."""


def _components(index: IndexView, active: bytes | bytearray) -> Any:
    """Per node (numpy int64), a label shared by exactly the nodes of its weakly connected
    part of the graph of intact justifications (antecedent - claim edges, active nodes):
    the least node number of the part, by label propagation with pointer jumping (array
    operations over the edges, a few passes on graphs of small diameter)."""
    import numpy as np

    size = index.size
    just_start, justs, ante_start, antes = flat_justifications(index)
    del just_start, justs
    flags = np.frombuffer(bytes(active[:size]), dtype=np.uint8)
    owner = np.repeat(np.arange(len(ante_start) - 1, dtype=np.int64), np.diff(ante_start))
    claim_of = np.asarray(index.just_claim[: len(ante_start) - 1], dtype=np.int64)
    broken = np.bincount(owner, weights=1 - flags[antes], minlength=len(ante_start) - 1)
    intact = (broken == 0) & (flags[claim_of] == 1)
    keep = intact[owner]
    u, v = claim_of[owner[keep]], antes[keep]
    labels = np.arange(size, dtype=np.int64)
    while True:
        low = np.minimum(labels[u], labels[v])
        before = labels.copy()
        np.minimum.at(labels, u, low)
        np.minimum.at(labels, v, low)
        labels = labels[labels]
        if np.array_equal(labels, before):
            return labels


def _regions(
    index: IndexView, active: bytes | bytearray, claims: Sequence[int], largest: int | None
) -> list[tuple[list[int], list[int] | None]]:
    """``claims`` grouped by the weakly connected parts of the graph of intact
    justifications, each group in the given order, groups by their first claim, each with
    the intact ancestors of its claims (ascending), or None when its part has more than
    ``largest`` nodes (its claims are then left undecided, no ancestor computed)."""
    import numpy as np

    labels = _components(index, active)
    sizes = np.bincount(labels[np.frombuffer(bytes(active[: index.size]), dtype=np.uint8) == 1])
    groups: dict[int, list[int]] = {}
    for c in claims:
        groups.setdefault(int(labels[c]), []).append(c)
    # parts too large are left undecided; the others are packed, in order, into solvers of
    # up to PACKED nodes (independent parts share a solver, whose models then settle claims
    # of several parts at once: a memory of many small loops needs few solvers and models)
    result: list[tuple[list[int], list[int] | None]] = []
    packed: list[int] = []
    packed_size = 0
    for label, group in groups.items():
        size = int(sizes[label])
        if largest is not None and size > largest:
            result.append((group, None))
            continue
        if packed and packed_size + size > PACKED:
            result.append((packed, sorted(_cone(index, active, packed))))
            packed, packed_size = [], 0
        packed += group
        packed_size += size
    if packed:
        result.append((packed, sorted(_cone(index, active, packed))))
    return result


class _Region:
    """The SAT encoding of Theorem 2 over the intact ancestors of some claims, on one
    incremental solver: ``a_e`` (evidence e audited), ``k_v`` (claim v kept), ``s_j``
    (justification j keeps its claim), ``t_v`` (claim v in the closed set)."""

    def __init__(self, index: IndexView, active: bytes | bytearray, nodes: Sequence[int]):
        from pysat.solvers import Solver

        self.index = index
        is_evidence = index.is_evidence
        antecedents = index.just_antecedents
        count = 0
        self.audit: dict[int, int] = {}
        self.keep: dict[int, int] = {}
        self.closed: dict[int, int] = {}
        for n in nodes:
            if is_evidence[n]:
                count += 1
                self.audit[n] = count
            else:
                self.keep[n] = count + 1
                self.closed[n] = count + 2
                count += 2
        clauses: list[list[int]] = []
        for v in self.keep:
            selectors = []
            for j in _intact_justifications(index, active, v):
                count += 1
                selectors.append(count)
                missing = [self.closed[v]]  # closure: every antecedent available => t_v
                for b in antecedents[j]:
                    if is_evidence[b]:
                        clauses.append([-count, -self.audit[b]])
                        missing.append(self.audit[b])
                    else:
                        clauses.append([-count, self.keep[b]])
                        missing.append(-self.closed[b])
                clauses.append(missing)
            clauses.append([-self.keep[v], *selectors])
        self.variables = count
        self.solver = Solver(name=SOLVER, bootstrap_with=clauses)
        self.solver.set_phases(
            [-v for v in self.audit.values()]
            + list(self.keep.values())
            + [-v for v in self.closed.values()]
        )

    def new_variable(self) -> int:
        self.variables += 1
        return self.variables

    def conflicts(self) -> int:
        return int(self.solver.accum_stats().get("conflicts", 0))

    def some_unsafe(
        self, claims: Sequence[int], deadline: float | None, budget: int | None
    ) -> tuple[bool | None, set[int]]:
        """``(False, R)``: an audit R (evidence numbers) under which counting keeps one of
        ``claims`` and exact revision retires it; ``(True, set())`` when there is none (all
        of them are safe); ``(None, set())`` when the deadline passed or the solver spent
        ``budget`` conflicts (in all its queries) first."""
        solver = self.solver
        switch = self.new_variable()
        choices = []
        for c in claims:
            q = self.new_variable()
            choices.append(q)
            solver.add_clause([-q, self.keep[c]])
            solver.add_clause([-q, -self.closed[c]])
        solver.add_clause([-switch, *choices])
        solver.set_phases(choices)
        try:
            while True:
                if deadline is None and budget is None:
                    answer = solver.solve(assumptions=[switch])
                else:
                    left = None if budget is None else budget - self.conflicts()
                    if (deadline is not None and time.monotonic() > deadline) or (
                        left is not None and left <= 0
                    ):
                        return None, set()
                    solver.conf_budget(PIECE if left is None else min(PIECE, left))
                    answer = solver.solve_limited(assumptions=[switch])
                    if answer is None:
                        continue
                if not answer:
                    return True, set()
                model = solver.get_model()
                assert model is not None
                return False, {e for e, var in self.audit.items() if model[var - 1] > 0}
        finally:
            solver.add_clause([-switch])  # this query's clauses off for good

    def close(self) -> None:
        self.solver.delete()


def _kept_unfounded(index: IndexView, active: bytes | bytearray, audit: Iterable[int]) -> set[int]:
    """``counting_R \\ alive_R`` less the audit: the claims counting keeps and exact revision
    retires under ``audit`` (the rules of :mod:`theory.semantics.revision`)."""
    audit = set(audit)
    exact = exact_retired_numbers(index, active, audit)
    return exact - counting_retired_numbers(index, active, audit) - audit


def _cone_graph(index: IndexView, active: bytes | bytearray, claim: int) -> SupportStructure:
    """The claim's intact ancestors with their intact justifications, as a graph of its own:
    what exact and counting revision do to a node depends only on its ancestors, so the
    witness is computed there, at the cost of the cone rather than of the graph."""
    ids, is_evidence, antecedents = index.ids, index.is_evidence, index.just_antecedents
    cone = _cone(index, active, [claim])
    justifications = [
        (ids[n], [ids[a] for a in antecedents[j]])
        for n in sorted(cone)
        if not is_evidence[n]
        for j in _intact_justifications(index, active, n)
    ]
    evidence = [ids[n] for n in sorted(cone) if is_evidence[n]]
    return SupportStructure.build(
        evidence, [ids[n] for n in sorted(cone) if not is_evidence[n]], justifications
    )


def _shrunk(index: IndexView, claim: int, audit: Sequence[int]) -> list[int]:
    """A minimal audit within ``audit`` (evidence numbers, every one an ancestor of ``claim``)
    under which exact revision retires ``claim``: each item, in id order, is given back
    (its consequences derived forward, stopping at the claim) and stays given back unless
    that derives the claim. Counting keeps the claim under every part of an audit it keeps
    it under, so only the exact side is searched; the result is checked by
    :func:`~theory.semantics.revision.exact_retired_numbers`."""
    audited = set(audit)
    alive = active_numbers(index, blocked=audited)
    assert not alive[claim]
    antecedents, just_claim, watchers = index.just_antecedents, index.just_claim, index.watchers
    missing = [sum(1 for a in antecedents[j] if not alive[a]) for j in range(len(just_claim))]
    for x in sorted(audit, key=index.ids.__getitem__):
        trail: list[int] = [x]  # nodes made alive; each justification counted down, negated
        alive[x] = 1
        stack = [x]
        derived = False
        while stack and not derived:
            n = stack.pop()
            for j in watchers[n]:
                missing[j] -= 1
                trail.append(-1 - j)
                if missing[j] == 0 and not alive[just_claim[j]]:
                    v = just_claim[j]
                    alive[v] = 1
                    trail.append(v)
                    stack.append(v)
                    if v == claim:
                        derived = True
                        break
        if derived:  # the claim needs x audited: undone
            for step in reversed(trail):
                if step < 0:
                    missing[-1 - step] += 1
                else:
                    alive[step] = 0
        else:
            audited.discard(x)
    return sorted(audited, key=index.ids.__getitem__)


def _witness(
    index: IndexView,
    active: bytes | bytearray,
    claim: int,
    audit: Iterable[int],
    deadline: float | None,
) -> tuple[list[str], list[str], set[str]]:
    """(audit, loop, kept) ids for an unsafe ``claim``, from an audit that counting keeps it
    under and exact revision retires it under, computed on the claim's cone
    (:func:`_cone_graph`); the audit shrunk (:func:`_shrunk`) unless the deadline passed.
    ``kept``: the claims that counting keeps and exact revision retires, that the claim's
    justifications reach through one another (L of Theorem 2, as small as it comes)."""
    cone = _cone_graph(index, active, claim)
    local = index_of(cone)
    before = base_active(cone)
    c = local.number[index.ids[claim]]
    items = [local.number[index.ids[n]] for n in audit if index.ids[n] in local.number]
    if deadline is None or time.monotonic() <= deadline:
        items = _shrunk(local, c, items)
    retired = exact_retired_numbers(local, before, items)
    keeps = retired - counting_retired_numbers(local, before, items) - set(items)
    assert c in keeps, "not a witness audit"

    def holds(a: int) -> bool:
        return a in keeps or (bool(before[a]) and a not in retired)

    def inside(node: int) -> list[int]:
        """The kept antecedents of the first justification of ``node`` that holds."""
        for j in local.justs_of[node]:
            antecedents = local.just_antecedents[j]
            if all(holds(a) for a in antecedents):
                found = [a for a in antecedents if a in keeps]
                if found:
                    return found
        raise AssertionError("a kept claim with no justification that holds inside")

    kept = {c}
    stack = [c]
    while stack:  # what the claim's holding justifications reach among the kept
        node = stack.pop()
        for j in local.justs_of[node]:
            antecedents = local.just_antecedents[j]
            if all(holds(a) for a in antecedents):
                for a in antecedents:
                    if a in keeps and a not in kept:
                        kept.add(a)
                        stack.append(a)
    path: list[int] = []
    position: dict[int, int] = {}
    node = c
    while node not in position:
        position[node] = len(path)
        path.append(node)
        node = min(inside(node))
    ids = local.ids
    return (
        [ungate(ids[n]) for n in items],
        [ids[n] for n in path[position[node] :]],
        {ids[n] for n in kept},
    )


def _decide(
    index: IndexView,
    active: bytes | bytearray,
    claims: Sequence[int],
    deadline: float | None,
    conflicts: int | None,
    largest: int | None,
) -> tuple[dict[int, list[int] | None], set[int]]:
    """The SAT decision for ``claims`` (active, behind a loop): claim -> an audit it is
    unsafe under (evidence numbers) or None (safe), and the claims left undecided."""
    start: dict[int, list[int] | None] = {}
    undecided: set[int] = set()
    for group, nodes in _regions(index, active, claims, largest) if claims else []:
        late = deadline is not None and time.monotonic() > deadline
        if late or nodes is None:
            undecided.update(group)
            continue
        region = _Region(index, active, nodes)
        try:
            pending = list(group)
            while pending:
                safe, found = region.some_unsafe(pending, deadline, conflicts)
                if safe is None:
                    undecided.update(pending)
                    break
                if safe:
                    start.update(dict.fromkeys(pending))
                    break
                kept = _kept_unfounded(index, active, found)
                audit = sorted(found)
                for c in pending:
                    if c in kept:
                        start[c] = audit
                assert any(c in kept for c in pending), "a model that keeps no open claim"
                pending = [c for c in pending if c not in kept]
        finally:
            region.close()
    return start, undecided


def counting_verdicts(
    structure: SupportStructure,
    *,
    audits: str = "evidence",
    claims: Iterable[str] | None = None,
    deadline: float | None = None,
    blocked: Iterable[str] = (),
    witnesses: bool = True,
    conflicts: int | None = COUNTING_CONFLICTS,
    largest: int | None = COUNTING_REGION_LARGEST,
) -> dict[str, CountingVerdict]:
    """Decide counting-safety (Theorem 2) for every claim, or the given ones, with witnesses.

    Parameters
    ----------
    structure : SupportStructure
        The graph.
    audits : {"evidence", "claims", "all"}
        The items audits are drawn from (:func:`theory.safety.check.audited_items`).
    claims : iterable of str, optional
        The claims to decide (default every claim, by id).
    deadline : float, optional
        A ``time.monotonic()`` value: claims whose SAT query is not answered by then are
        undecided (``safe`` None); a witness found after it is not shrunk.
    blocked : iterable of str
        Nodes that audits in force keep out (a stored memory): decided for the graph as it
        stands under them (:meth:`~theory.model.structure.SupportStructure.under_audit`).
    witnesses : bool
        Whether unsafe claims get their witness (else ``witness`` None: verdicts only).
    conflicts : int, optional
        Solver conflicts each region's queries may spend (:data:`COUNTING_CONFLICTS`; None:
        no limit); the claims it leaves open are undecided.
    largest : int, optional
        The most nodes of a region a solver is built for
        (:data:`COUNTING_REGION_LARGEST`; None: no limit); a larger region's claims are
        undecided.

    Returns
    -------
    dict of str to CountingVerdict
        By claim, in the order decided (the given order, else by id). An inactive claim is
        safe (neither rule retires it); a claim behind no support loop is safe without a
        query (the corollary).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])])
    >>> verdict = counting_verdicts(g)["c"]
    >>> verdict.safe, verdict.witness.to_dict()
    (False, {'audit': ['e'], 'loop': ['c', 'm'], 'kept': ['c', 'm']})
    >>> counting_verdicts(SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])]))
    {'c': CountingVerdict(claim='c', safe=True, witness=None)}
    """
    if audits not in AUDITS:
        raise InputError(f"unknown audits {audits!r} (choose from {', '.join(AUDITS)})")
    original = structure.under_audit(blocked)
    wanted = (
        sorted(original.claims)
        if claims is None
        else [original.require_claim(c) for c in id_list(claims, "claim")]
    )
    graph = gated(original, audits)
    index = index_of(graph)
    active = base_active(graph)
    _, behind = loop_flags(index, active)
    numbers = [index.number[c] for c in wanted]
    open_claims = [n for n in dict.fromkeys(numbers) if active[n] and behind[n]]
    start, undecided = _decide(index, active, open_claims, deadline, conflicts, largest)
    result: dict[str, CountingVerdict] = {}
    for claim, n in zip(wanted, numbers):
        if n in undecided:
            result[claim] = CountingVerdict(claim, None, None)
            continue
        unsafe_under = start.get(n)
        if unsafe_under is None:
            result[claim] = CountingVerdict(claim, True, None)
            continue
        if not witnesses:
            result[claim] = CountingVerdict(claim, False, None)
            continue
        items, loop, members = _witness(index, active, n, unsafe_under, deadline)
        witness = CountingWitness(frozenset(items), tuple(loop), frozenset(members))
        result[claim] = CountingVerdict(claim, False, witness)
    return result


class CountingTally:
    """Counting verdicts without witnesses over node numbers (``jtms check --summary``):
    1 safe, 0 unsafe, -1 undecided per node (int8), for the claims asked."""

    def __init__(self, verdict: Any, claims: Any) -> None:
        self.verdict = verdict
        self.claims = claims  # node numbers asked, numpy int64

    def of(self, n: int) -> bool | None:
        """The verdict on node ``n``: True (safe), False, or None (undecided)."""
        value = int(self.verdict[n])
        return None if value < 0 else bool(value)

    def totals(self) -> dict[str, int]:
        """``counting_unsafe`` and ``counting_undecided`` among the claims asked."""
        asked = self.verdict[self.claims]
        return {
            "counting_unsafe": int((asked == 0).sum()),
            "counting_undecided": int((asked < 0).sum()),
        }

    @property
    def safe(self) -> bool | None:
        """Whether every claim asked is safe (None: none unsafe, some undecided)."""
        totals = self.totals()
        if totals["counting_unsafe"]:
            return False
        return None if totals["counting_undecided"] else True


def counting_tally(
    index: IndexView,
    active: bytes | bytearray,
    claims: Sequence[int] | None = None,
    *,
    deadline: float | None = None,
    conflicts: int | None = COUNTING_CONFLICTS,
    largest: int | None = COUNTING_REGION_LARGEST,
) -> CountingTally:
    """The verdicts of :func:`counting_verdicts` (audits of evidence, no witness) on an index
    and its active state (a stored memory's, the audits in force leaving their nodes
    inactive), for ``claims`` (node numbers; default every claim): what
    ``jtms check --summary`` counts. The corollary decides the claims behind no loop in
    array operations over the compiled components; the rest go to the solvers.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> from theory.semantics.fixpoint import base_active
    >>> g = SupportStructure.build(["e", "f"], ["c", "m", "d"],
    ...     [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("d", ["f"])])
    >>> tally = counting_tally(index_of(g), base_active(g))
    >>> tally.totals(), tally.safe
    ({'counting_unsafe': 2, 'counting_undecided': 0}, False)
    """
    import numpy as np

    size = index.size
    is_evidence = np.frombuffer(bytes(index.is_evidence[:size]), dtype=np.uint8)
    asked = (
        np.flatnonzero(is_evidence == 0)
        if claims is None
        else np.asarray(list(claims), dtype=np.int64)
    )
    _, behind = loop_flags(index, active)
    flags = np.frombuffer(bytes(active[:size]), dtype=np.uint8)
    verdict = np.ones(size, dtype=np.int8)
    wanted = np.zeros(size, dtype=bool)
    wanted[asked] = True
    open_claims = np.flatnonzero(wanted & (behind == 1) & (flags == 1)).tolist()
    start, undecided = _decide(index, active, open_claims, deadline, conflicts, largest)
    for n, audit in start.items():
        if audit is not None:
            verdict[n] = 0
    for n in undecided:
        verdict[n] = -1
    return CountingTally(verdict, asked)


def witness_holds(
    structure: SupportStructure,
    claim: str,
    witness: CountingWitness,
    *,
    audits: str = "evidence",
    blocked: Iterable[str] = (),
) -> bool:
    """Whether ``witness`` meets Theorem 2's conditions for ``claim``, checked directly on
    the graph (no SAT, no gates): its audit R is drawn from the items of ``audits``;
    ``claim`` is in ``kept`` (L); every member of L is a claim active before the audit, not
    in R, not active after exact revision of R, with a justification whose antecedents each
    lie in L or are active after it; ``loop`` is a cycle of distinct members of L, each with
    such a justification naming the next (the last the first).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])])
    >>> witness_holds(g, "c", CountingWitness(frozenset({"e"}), ("c", "m"), frozenset({"c", "m"})))
    True
    >>> witness_holds(g, "c", CountingWitness(frozenset(), ("c", "m"), frozenset({"c", "m"})))
    False
    """
    graph = structure.under_audit(blocked)
    audit, kept, loop = witness.audit, witness.kept, witness.loop
    if not audit <= audited_items(graph, audits) or claim not in kept:
        return False
    if not kept <= graph.claims or not set(loop) <= kept or len(set(loop)) != len(loop) or not loop:
        return False
    index = index_of(graph)
    before = base_active(graph)
    after = active_numbers(index, blocked=index.numbers(audit))
    number = index.number

    def available(node: str) -> bool:
        return node in kept or bool(after[number[node]])

    def supported(node: str, through: str | None) -> bool:
        return any(
            all(available(a) for a in j.antecedents)
            and (through is None or through in j.antecedents)
            for j in graph.justifications_of.get(node, ())
        )

    for node in kept:
        n = number[node]
        if not before[n] or node in audit or after[n] or not supported(node, None):
            return False
    return all(supported(node, loop[(k + 1) % len(loop)]) for k, node in enumerate(loop))


__all__ = [
    "COUNTING_CONFLICTS",
    "COUNTING_REGION_LARGEST",
    "CountingTally",
    "CountingVerdict",
    "CountingWitness",
    "counting_tally",
    "counting_verdicts",
    "loop_flags",
    "witness_holds",
]
