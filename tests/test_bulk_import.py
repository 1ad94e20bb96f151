"""The bulk import path: :meth:`GrowingIndex.extend_rows` and :meth:`SupportState.plan_import`
give what the item-by-item path gives (the same index; the least fixpoint, with sound,
well-founded pointers whose ranks are one above their antecedents')."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtms.memory.memory import Memory
from theory import strategies as jst
from theory.incremental import GrowingIndex, SupportState, justification_rows
from theory.structure import SupportStructure


def _renamed(structure: SupportStructure, prefix: str) -> SupportStructure:
    return SupportStructure.build(
        [prefix + e for e in structure.evidence],
        [prefix + c for c in structure.claims],
        [(prefix + j.claim, [prefix + a for a in j.antecedents]) for j in structure.justifications],
    )


def _adjacency(index: GrowingIndex) -> list:
    size = index.size
    return [
        [list(index.justs_of[n]) for n in range(size)],
        [list(index.watchers[n]) for n in range(size)],
        [list(index.consumers[n]) for n in range(size)],
        list(index.just_claim),
        list(index.just_antecedents),
        list(index.ids),
        bytes(index.is_evidence),
    ]


def _ranks_are_derivations(state: SupportState) -> None:
    index = state.index
    for n in range(index.size):
        if state.active[n] and not index.is_evidence[n]:
            below = [state.rank[a] for a in index.just_antecedents[state.support[n]]]
            assert state.rank[n] == 1 + max(below, default=0)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    jst.support_structures(cycles=True, max_evidence=5, max_claims=8),
    jst.support_structures(cycles=True, max_evidence=5, max_claims=8),
    st.booleans(),
    st.data(),
)
def test_a_bulk_extension_is_the_item_by_item_one(before, graph, one_by_one, data):
    """After an existing graph (its last node added one by one, or not), extend_rows gives
    the adjacency extend gives (justifications in any order: consumers keep their order of
    first use), and plan_import the fixpoint plan_extend gives."""
    graph = _renamed(graph, "new_")
    order = data.draw(st.permutations(range(len(graph.justifications))), label="order")
    built = []
    for bulk in (False, True):
        index = GrowingIndex.of(before)
        if one_by_one:
            index.add_node("late", True)  # a node in the appended lists, not the base
        state = SupportState(index)
        first, first_just = index.size, len(index.just_claim)
        ordered = sorted(graph.evidence) + sorted(graph.claims)
        number = {n: first + k for k, n in enumerate(ordered)}
        nodes = [(n, k < len(graph.evidence)) for k, n in enumerate(ordered)]
        claims, offsets, flat = justification_rows(graph, number)
        rows = [(claims[k], flat[offsets[k] : offsets[k + 1]]) for k in order]
        claims, offsets, flat = [c for c, _ in rows], [0], []
        for _, antecedents in rows:
            flat.extend(antecedents)
            offsets.append(len(flat))
        if bulk:
            index.extend_rows(nodes, claims, offsets, flat)
            plan = state.plan_import(first, first_just)
        else:
            index.extend(
                nodes,
                [(c, tuple(flat[a:b])) for c, a, b in zip(claims, offsets, offsets[1:])],
                canonical=True,
            )
            plan = state.plan_extend(seeds=range(first, index.size))
        state.apply(plan)
        assert state.verify() == []
        _ranks_are_derivations(state)
        built.append((_adjacency(index), bytes(state.active)))
    assert built[0] == built[1]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jst.support_structures(cycles=True, max_evidence=4, max_claims=6),
    jst.support_structures(cycles=True, max_evidence=4, max_claims=6),
)
def test_two_imports_and_an_audit_leave_a_sound_memory(tmp_path_factory, first, second):
    """Two imports into one memory (the second appended after the first's compressed
    rows), then an audit: the store's integrity checks (status = fixpoint, pointers sound,
    checkpoint = replay) pass, and a reopened memory agrees."""
    path = tmp_path_factory.mktemp("bulk") / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(_renamed(first, "a_"), source="one")
        memory.add_evidence("loose")
        memory.import_graph(_renamed(second, "b_"), source="two")
        evidence = sorted(_renamed(second, "b_").evidence)
        if evidence:
            memory.audit(evidence[:1], reason="check")
        assert memory.integrity_problems() == []
        active = memory.active_ids()
    with Memory.open(path) as memory:
        assert memory.active_ids() == active


@settings(max_examples=150)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=8), st.data())
def test_ranks_stay_derivation_depths_after_an_audit_and_its_reinstatement(structure, data):
    """Evidence re-activated by a reinstatement has rank 0 within the plan that re-activates
    it, so the claims re-derived on it get ranks one above their pointer's antecedents (they
    got 2^62 + 1: retraction orders its work by rank)."""
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    roots = sorted(index.numbers(data.draw(jst.audits(structure, min_size=1))))
    state.apply(state.plan_retract(roots))
    state.apply(state.plan_extend(unblock=roots))
    assert state.verify() == []
    _ranks_are_derivations(state)


@settings(max_examples=150)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=8), st.data())
def test_downstream_of_an_opened_memorys_arrays_is_the_walk(structure, data):
    """downstream_numbers on compressed rows held in arrays (a memory opened from its
    checkpoint: the numpy levels) equals the plain walk over the same index."""
    from array import array

    from theory.revision import downstream_numbers

    index = GrowingIndex.of(structure)
    offsets, flat = index.consumers.compressed()
    as_arrays = GrowingIndex.of(structure)
    as_arrays.consumers = type(index.consumers)(array("q", offsets), array("i", flat))
    roots = set(data.draw(st.sets(st.sampled_from(range(index.size)), min_size=1)))
    expected, seen, frontier = set(roots), set(roots), list(roots)
    while frontier:
        n = frontier.pop()
        for c in index.consumers[n]:
            if c not in seen:
                seen.add(c)
                frontier.append(c)
    assert downstream_numbers(as_arrays, roots) == seen == downstream_numbers(index, roots)
    assert expected <= seen
