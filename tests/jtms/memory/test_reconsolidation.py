"""Property tests: the stored memory equals theory's exact revision, after any sequence of
audits, reinstatements and additions, on random graphs with and without cycles."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtms.engine.incremental import GrowingIndex, SupportState, state_of
from jtms.memory.memory import Memory, load_structure
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import exact
from theory.testing import strategies as jst


def _blocked(open_audits: dict[int, list[str]]) -> list[str]:
    return [r for roots in open_audits.values() for r in roots]


@pytest.mark.slow
@settings(max_examples=300)
@given(data=st.data(), cycles=st.booleans())
def test_support_state_matches_fixpoint_under_audits_and_reinstatements(data, cycles):
    structure = data.draw(jst.support_structures(cycles=cycles, max_evidence=5, max_claims=8))
    state = state_of(structure)
    assert state.verify() == []
    index = state.index
    open_audits: list[list[int]] = []
    blocked: list[str] = []
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        if open_audits and data.draw(st.booleans(), label="reinstate"):
            roots = open_audits.pop(data.draw(st.integers(0, len(open_audits) - 1)))
            state.apply(state.plan_extend(unblock=roots))
            for name in (index.ids[n] for n in roots):
                blocked.remove(name)
        else:
            audit = sorted(data.draw(jst.audits(structure, min_size=1), label="audit"))
            before = active_state(structure, blocked)
            plan = state.plan_retract(index.numbers(audit))
            after = active_state(structure, blocked + audit)
            assert index.names(plan.deactivated) == before - after
            if not blocked:
                assert index.names(plan.deactivated) == exact(structure, frozenset(audit))
            state.apply(plan)
            open_audits.append(index.numbers(audit))
            blocked += audit
        assert state.verify() == []
        assert index.names(n for n in range(index.size) if state.active[n]) == active_state(
            structure, blocked
        )


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), cycles=st.booleans())
def test_stored_memory_equals_exact_revision(memory_location, data, cycles):
    """On each backend (``memory_location``: a fresh memory per example)."""
    structure = data.draw(jst.support_structures(cycles=cycles, max_evidence=4, max_claims=6))
    path = memory_location()
    memory = Memory.create(path, durability="off")
    memory.import_graph(structure)
    open_audits: dict[int, list[str]] = {}
    evidence, claims = set(structure.evidence), set(structure.claims)
    pairs = [(j.claim, sorted(j.antecedents)) for j in structure.justifications]
    for step in range(data.draw(st.integers(1, 6), label="steps")):
        current = SupportStructure.build(evidence, claims, pairs)
        action = data.draw(st.sampled_from(["audit", "audit", "reinstate", "add"]), label="action")
        if action == "reinstate" and open_audits:
            audit_id = data.draw(st.sampled_from(sorted(open_audits)), label="which")
            before = active_state(current, _blocked(open_audits))
            change = memory.reinstate(audit_id)
            del open_audits[audit_id]
            assert change.activated == active_state(current, _blocked(open_audits)) - before
        elif action == "add":
            pool = sorted(evidence | claims)
            new = f"n{step}"
            if data.draw(st.booleans(), label="evidence"):
                memory.add_evidence(new)
                evidence.add(new)
            else:
                justifications = data.draw(
                    st.lists(
                        st.lists(st.sampled_from(pool + [new]), max_size=3, unique=True), max_size=2
                    ),
                    label="justifications",
                )
                memory.add_claim(new, justifications)
                claims.add(new)
                pairs.extend((new, j) for j in justifications)
        else:
            audit = sorted(data.draw(jst.audits(current, min_size=1), label="audit"))
            blocked = _blocked(open_audits)
            result = memory.audit(audit, reason="property test")
            expected = active_state(current, blocked) - active_state(current, blocked + audit)
            assert result.retired == expected
            if not blocked:
                assert result.retired == exact(current, frozenset(audit))
            open_audits[result.audit_id] = audit
        current = SupportStructure.build(evidence, claims, pairs)
        assert memory.active_ids() == active_state(current, _blocked(open_audits))
    # the audits named as keeping each inactive node out are open, and reinstating them
    # (all of them) brings it back; a node that any reinstatement could bring back names some
    everything = active_state(current)
    for node in sorted(set(structure.nodes) | evidence | claims):
        if node in memory.active_ids():
            continue
        named = memory.explain(node).kept_out_by
        assert set(named) <= set(open_audits)
        rest = {a: r for a, r in open_audits.items() if a not in named}
        assert (node in active_state(current, _blocked(rest))) == bool(named)
        assert bool(named) == (node in everything)
    memory.close()
    # a fresh process view (reopen) agrees, and the store passes its integrity check
    with Memory.open(path) as reopened:
        assert reopened.active_ids() == active_state(current, _blocked(open_audits))
        assert reopened.integrity_problems() == []
    assert active_state(load_structure(path)) == active_state(current, _blocked(open_audits))


def test_audit_touches_only_the_support_region():
    """A chain behind one evidence item and a large unrelated part: the audit visits the chain."""
    index = GrowingIndex()
    for i in range(1000):
        index.add_node(f"e{i}", True)
    for i in range(1000):
        c = index.add_node(f"c{i}", False)
        index.add_justification(c, [i])
    head = index.add_node("d0", False)
    index.add_justification(head, [0])
    previous = head
    for k in range(1, 5):
        node = index.add_node(f"d{k}", False)
        index.add_justification(node, [previous])
        previous = node
    state = SupportState(index)
    plan = state.plan_retract([0])
    assert plan.region == 7  # e0, c0, d0..d4
    assert index.names(plan.deactivated) == {"e0", "c0", "d0", "d1", "d2", "d3", "d4"}


def test_support_loop_is_not_kept_alive(memory_location):
    """a <- e; a <- b; b <- a: auditing e retires both (a loop is no support)."""
    structure = SupportStructure.build(
        ["e"], ["a", "b"], [("a", ["e"]), ("a", ["b"]), ("b", ["a"])]
    )
    with Memory.create(memory_location()) as memory:
        memory.import_graph(structure)
        result = memory.audit(["e"], reason="loop")
        assert result.retired == {"e", "a", "b"}
        assert memory.active_ids() == frozenset()


def test_reinstate_brings_back_exactly_what_the_audit_withdrew(memory_location):
    structure = SupportStructure.build(
        ["e1", "e2", "e3"],
        ["a", "b", "c"],
        [("a", ["e1"]), ("a", ["e2"]), ("b", ["a", "e3"]), ("c", ["e1"])],
    )
    with Memory.create(memory_location()) as memory:
        memory.import_graph(structure)
        first = memory.audit(["e1"], reason="r1")
        assert first.retired == {"e1", "c"}
        assert first.rederived == {"a"}  # a switches to e2; b, resting on a, is not visited
        second = memory.audit(["e3"], reason="r2")
        assert second.retired == {"e3", "b"}
        back = memory.reinstate(first.audit_id)
        assert back.activated == {"e1", "c"}
        assert memory.active_ids() == {"e1", "e2", "a", "c"}
        assert memory.integrity_problems() == []


@pytest.mark.slow
@pytest.mark.parametrize("cycles", [False, True])
def test_pointer_derivations_are_certificates(memory_location, cycles):
    """explain() returns a well-founded derivation whose evidence is active, for every claim."""
    from hypothesis import find

    structure = find(
        jst.support_structures(cycles=cycles, min_claims=5, max_claims=8),
        lambda s: len(active_state(s)) > 6,
    )
    with Memory.create(memory_location()) as memory:
        memory.import_graph(structure)
        active = memory.active_ids()
        for claim in sorted(structure.claims & active):
            explanation = memory.explain(claim)
            derived = set(structure.evidence & active)
            for step in explanation.certificate:
                assert set(step.antecedents) <= derived
                assert frozenset(step.antecedents) in {
                    j.antecedents for j in structure.justifications_of[step.claim]
                }
                derived.add(step.claim)
            assert claim in derived


def test_withdrawn_names_the_audits_that_keep_a_claim_out_now(tmp_path, capsys):
    """d <- a AND b. Audit 7 (a) withdraws d, audit 8 (b) too; reinstating 7 leaves d out
    because of 8: explain, the withdrawn list and the context name audit 8, not 7."""
    import json

    from jtms.cli import main

    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(
            {
                "nodes": [
                    {"id": "a", "kind": "evidence"},
                    {"id": "b", "kind": "evidence"},
                    {"id": "d", "kind": "claim", "text": "the finding"},
                    {"id": "u", "kind": "claim", "text": "its use"},
                ],
                "justifications": [
                    {"claim": "d", "antecedents": ["a", "b"]},
                    {"claim": "u", "antecedents": ["d"]},
                ],
            }
        )
        first = memory.audit(["a"], reason="assay a contaminated")
        second = memory.audit(["b"], reason="assay b mislabelled")
        memory.reinstate(first.audit_id)
        explanation = memory.explain("d")
        assert explanation.withdrawn_by == first.audit_id
        assert explanation.kept_out_by == (second.audit_id,)
        assert memory.explain("u").kept_out_by == (second.audit_id,)  # through d
        assert memory.explain("a").active and memory.explain("b").kept_out_by == (second.audit_id,)
        (item,) = [w for w in memory.withdrawn() if w["id"] == "d"]
        assert item["audit"] == second.audit_id and item["audits"] == [second.audit_id]
        assert item["reason"] == "assay b mislabelled"
        text = memory.context(400).text
        assert f"d (audit {second.audit_id}: assay b mislabelled)" in text
        assert "contaminated" not in text
    capsys.readouterr()
    assert main(["explain", "d", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kept_out_by"] == [second.audit_id]
    assert main(["explain", "d", "--db", str(path)]) == 0
    assert f"kept out now by audit(s) {second.audit_id}" in capsys.readouterr().out


@pytest.mark.slow
@settings(max_examples=200)
@given(
    base=st.lists(st.lists(st.integers(0, 9), max_size=3), max_size=8),
    added=st.integers(0, 3),
    items=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 9)), max_size=8),
)
def test_adjacency_with_a_compressed_base_round_trips(base, added, items):
    """jtms.engine.incremental.Adjacency: a compressed base, items added later and nodes added
    after it read back as plain lists, and compress back to the same thing (checkpoints)."""
    from jtms.engine.incremental import Adjacency

    offsets, flat = [0], []
    for row in base:
        flat += row
        offsets.append(len(flat))
    adjacency = Adjacency(offsets, flat)
    adjacency.add_nodes(added)
    expected = [list(row) for row in base] + [[] for _ in range(added)]
    for node, item in items:
        if node < len(expected):
            adjacency.add(node, item)
            expected[node].append(item)
    assert [adjacency[n] for n in range(len(adjacency))] == expected
    again = Adjacency(*adjacency.compressed())
    assert [again[n] for n in range(len(again))] == expected


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cycles=st.booleans())
def test_kept_of_a_dry_run_is_what_stays_intact_after_the_audit(data, cycles):
    """``Memory.kept(roots, retired=preview.retired)`` before an audit names exactly the claims
    the audit then keeps, each with a justification intact after it (the support pointer
    before it may be one the audit breaks); the audit payload reports it unchanged."""
    from jtms.views import payloads

    structure = data.draw(jst.support_structures(cycles=cycles, max_evidence=5, max_claims=8))
    roots = sorted(data.draw(jst.audits(structure, min_size=1), label="audit"))
    with Memory.create(":memory:", durability="off") as memory:
        memory.import_graph(structure)
        preview = memory.preview(roots)
        dry = memory.kept(roots, retired=preview.retired)
        assert payloads.audit_payload(memory, roots, preview, dry_run=True)["kept"] == [
            {"id": claim, "surviving_justification": list(ants)} for claim, ants in dry
        ]
        memory.audit(roots, reason="r")
        after = memory.active_ids()
        assert [claim for claim, _ in dry] == [claim for claim, _ in memory.kept(roots)]
        justifications = structure.justifications_of
        for claim, ants in dry:
            assert claim in after and set(ants) <= after
            assert frozenset(ants) in {j.antecedents for j in justifications[claim]}
        assert memory.kept(roots, retired=preview.retired) == memory.kept(roots)


def test_kept_of_a_dry_run_corrects_a_pointer_the_audit_breaks():
    with Memory.create(":memory:", durability="off") as memory:
        memory.add_evidence("e1")
        memory.add_evidence("e2")
        memory.add_claim("c", [["e1"], ["e2"]])
        memory.add_claim("d", [["c", "e1"], ["c"]])
        assert memory.kept(["e1"]) == [("c", ("e1",)), ("d", ("c", "e1"))]  # the pointers now
        retired = memory.preview(["e1"]).retired
        assert memory.kept(["e1"], retired=retired) == [("c", ("e2",)), ("d", ("c",))]
        with pytest.raises(Exception, match="no justification of it survives"):
            memory.kept(["e1"], retired={"e1", "e2"})


def test_kept_page_is_a_window_of_kept(memory_location):
    """``kept_page`` names only one page, and it is exactly that window of ``kept`` (real
    audits and dry runs), with the full count."""
    claims = [f"c{i:02d}" for i in range(30)]
    pairs = [(c, ["e0", "e1"] if i % 3 else ["e0"]) for i, c in enumerate(claims)]
    pairs += [(c, ["e1"]) for c in claims[::2]]  # a second justification: kept after e0 goes
    structure = SupportStructure.build(["e0", "e1"], claims, pairs)
    with Memory.create(memory_location()) as memory:
        memory.import_graph(structure)
        preview = memory.preview(["e0"])
        full = memory.kept(["e0"], retired=preview.retired)
        assert full and len(full) < len(claims)
        for offset, limit in [(0, None), (0, 3), (2, 4), (len(full) - 1, 5), (len(full), 2)]:
            window = full[offset:] if limit is None else full[offset : offset + limit]
            assert memory.kept_page(["e0"], preview.retired, offset, limit) == (len(full), window)
        memory.audit(["e0"], reason="test")
        assert memory.kept_page(["e0"], offset=1, limit=2) == (len(full), full[1:3])


def _audited_state(
    data: st.DataObject, cycles: bool, *, max_evidence: int, max_claims: int, min_audits: int
) -> SupportState:
    """A random graph's state after ``min_audits`` to 3 random audits (pointers moved)."""
    structure = data.draw(
        jst.support_structures(cycles=cycles, max_evidence=max_evidence, max_claims=max_claims)
    )
    state = state_of(structure)
    for _ in range(data.draw(st.integers(min_audits, 3), label="audits")):
        audit = sorted(data.draw(jst.audits(structure, min_size=1), label="audit"))
        state.apply(state.plan_retract(state.index.numbers(audit)))
    return state


@pytest.mark.slow
@settings(max_examples=300)
@given(data=st.data(), cycles=st.booleans())
def test_support_region_on_flat_arrays_equals_the_list_walk(data, cycles):
    """The numpy walk over a checkpoint's flat arrays and the walk over adjacency lists give
    the same region, without repeats, after random audits have moved the pointers."""
    from array import array

    from jtms.engine.incremental import _region_of_arrays

    state = _audited_state(data, cycles, max_evidence=6, max_claims=12, min_audits=0)
    index = state.index
    offsets, flat = index.watchers.compressed()
    roots = data.draw(
        st.lists(st.integers(0, index.size - 1), min_size=1, max_size=4), label="roots"
    )
    listed = state.region_walk(roots)
    assert set(listed) == set(state.support_region(roots))
    flat_walk = _region_of_arrays(
        roots, array("i", offsets), array("q", flat), array("i", index.just_claim), state.pointer
    )
    assert len(flat_walk) == len(set(flat_walk)) and set(flat_walk) == set(listed)
    assert len(listed) == len(set(listed))


def test_audits_of_a_memory_opened_from_its_checkpoint_are_exact(tmp_path):
    """Reopened from the checkpoint of its import (flat arrays: the numpy region walk), a
    memory retires what the exact revision retires."""
    import random

    rng = random.Random(5)
    evidence = [f"e{k}" for k in range(400)]
    claims = [f"c{k}" for k in range(3000)]
    pool = evidence + claims
    pairs = [
        (c, sorted({pool[rng.randrange(len(pool))] for _ in range(rng.randint(1, 3))}))
        for c in claims
        for _ in range(rng.randint(1, 2))
    ]
    structure = SupportStructure.build(evidence, claims, pairs)
    path = tmp_path / "m.db"
    with Memory.create(path, durability="off") as memory:
        memory.import_graph(structure)
        memory.checkpoint()
    with Memory.open(path) as memory:
        memory.active_ids()
        rows = memory._loaded.index.watchers.rows()  # type: ignore[union-attr]
        assert rows is not None and not isinstance(rows[0], list)  # the checkpoint's arrays
        for _ in range(5):
            audit = rng.sample(evidence, 20)
            result = memory.audit(audit, reason="r")
            assert result.retired == exact(structure, frozenset(audit))
            memory.reinstate(result.audit_id)


@pytest.mark.slow
@settings(max_examples=200)
@given(data=st.data(), cycles=st.booleans())
def test_blocking_labels_are_the_blocking_roots_of_every_inactive_node(data, cycles):
    """The one-pass form equals :meth:`SupportState.blocking_roots` node by node, with audited
    claims, support loops and nodes that no block keeps out (a loop with no base)."""
    state = _audited_state(data, cycles, max_evidence=5, max_claims=8, min_audits=1)
    index = state.index
    labels = {n: frozenset({n}) for n in state.blocks}
    expected = {n: roots for n in range(index.size) if (roots := state.blocking_roots(n))}
    assert state.blocking_labels(labels) == expected


@pytest.mark.slow
def test_withdrawn_of_a_long_chain_is_linear(tmp_path):
    """An audit of e0 withdraws the chain e0 -> c1 -> ... -> c8000. The withdrawn list (and the
    context, which starts from it) asked each claim for its blocking roots, one walk up the
    chain each: minutes (quadratic); one pass over the inactive part now."""
    import time

    n = 8000
    graph = {
        "nodes": [{"id": "e0", "kind": "evidence"}]
        + [{"id": f"c{i}", "kind": "claim"} for i in range(1, n + 1)],
        "justifications": [
            {"claim": f"c{i}", "antecedents": ["e0" if i == 1 else f"c{i - 1}"]}
            for i in range(1, n + 1)
        ],
    }
    with Memory.create(tmp_path / "m.db") as memory:
        memory.import_graph(graph)
        audit = memory.audit(["e0"], reason="retracted")
        started = time.perf_counter()
        withdrawn = memory.withdrawn()
        memory.context(400)
        assert time.perf_counter() - started < 15
    assert len(withdrawn) == n + 1
    assert all(item["audits"] == [audit.audit_id] for item in withdrawn)
