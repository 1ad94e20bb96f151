"""The counting boundary (Theorem 2, :mod:`theory.safety.counting`) against the brute force:
for every audit drawn from the items, counting and exact revision compared on every claim."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theory import SupportStructure, counting, exact
from theory.model.index import index_of
from theory.safety.check import audited_items, check_structure
from theory.safety.counting import (
    CountingWitness,
    counting_tally,
    counting_verdicts,
    loop_flags,
    witness_holds,
)
from theory.semantics.fixpoint import base_active
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_counting_disagreements

AUDITS = ("evidence", "claims", "all")
# graphs with support loops of two or more claims (planted by the strategy), small enough
# that every audit of evidence and claims together is tried
LOOPY = jst.support_structures(cycles=True, max_evidence=3, max_claims=5)


def _agrees_with_brute_force(structure: SupportStructure, audits: str) -> None:
    items = audited_items(structure, audits)
    unsafe = brute_force_counting_disagreements(structure, items)
    verdicts = counting_verdicts(structure, audits=audits)
    assert list(verdicts) == sorted(structure.claims)
    for claim, verdict in verdicts.items():
        assert verdict.safe is (claim not in unsafe), (claim, audits)
        if verdict.safe:
            assert verdict.witness is None
            continue
        witness = verdict.witness
        assert witness is not None
        assert witness_holds(structure, claim, witness, audits=audits)
        # it reproduces: counting keeps the claim, exact revision retires it
        assert claim in exact(structure, witness.audit)
        assert claim not in counting(structure, witness.audit)
        assert witness.loop and set(witness.loop) <= witness.kept
        # the audit is minimal: without any one of its items exact revision keeps the claim
        for item in witness.audit:
            assert claim not in exact(structure, witness.audit - {item})
        assert witness.audit in unsafe[claim] or any(a < witness.audit for a in unsafe[claim])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LOOPY)
def test_verdicts_and_witnesses_against_the_brute_force_for_audits_of_evidence(structure):
    _agrees_with_brute_force(structure, "evidence")


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LOOPY, st.sampled_from(AUDITS))
def test_verdicts_and_witnesses_against_the_brute_force(structure, audits):
    _agrees_with_brute_force(structure, audits)


def test_a_loop_behind_a_claim_found_for_each_kind_of_audit():
    # c <- m; m <- c; m <- e; d <- c, f; the loop keeps c (and d) once e is audited
    g = SupportStructure.build(
        ["e", "f"], ["c", "d", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("d", ["c", "f"])]
    )
    for audits in AUDITS:
        _agrees_with_brute_force(g, audits)
    verdicts = counting_verdicts(g)
    assert verdicts["d"].witness is not None
    assert verdicts["d"].witness.to_dict() == {
        "audit": ["e"],
        "loop": ["c", "m"],
        "kept": ["c", "d", "m"],
    }
    # audits of claims: e is a premise, so m stays derived unless m itself is audited, and
    # then the loop is broken
    claims = counting_verdicts(g, audits="claims")
    assert all(v.safe for v in claims.values())


def test_the_incomparability_examples():
    # c <- m; m <- c; m <- e: influence-safe (unique minimal justification {e}, its evidence
    # ancestors) and counting-unsafe (audit {e}, loop [c, m])
    g = SupportStructure.build(["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])])
    influence = {r.id: r.influence_safe for r in check_structure(g).claims}
    verdict = counting_verdicts(g)["c"]
    assert influence["c"] and verdict.safe is False
    assert verdict.witness == CountingWitness(frozenset({"e"}), ("c", "m"), frozenset({"c", "m"}))
    # c <- a; c <- b: counting-safe, influence-unsafe
    h = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    assert not check_structure(h).influence_safe
    assert counting_verdicts(h)["c"].safe is True


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jst.support_structures(cycles=True, max_evidence=4, max_claims=6))
def test_the_corollary_a_claim_behind_no_loop_is_safe(structure):
    index = index_of(structure)
    _, behind = loop_flags(index, base_active(structure))
    unsafe = brute_force_counting_disagreements(structure, structure.nodes)
    for claim in structure.claims:
        if not behind[index.number[claim]]:
            assert claim not in unsafe  # for every kind of audit at once


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jst.support_structures(cycles=False, max_evidence=4, max_claims=6))
def test_without_loops_every_claim_is_safe_and_nothing_is_behind_a_loop(structure):
    _, behind = loop_flags(index_of(structure), base_active(structure))
    assert not behind.any()
    assert all(v.safe for v in counting_verdicts(structure, audits="all").values())


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LOOPY, st.sampled_from(AUDITS))
def test_the_same_call_gives_the_same_witnesses(structure, audits):
    assert counting_verdicts(structure, audits=audits) == counting_verdicts(
        structure, audits=audits
    )


def test_a_self_loop_is_a_loop():
    g = SupportStructure.build(["e"], ["c"], [("c", ["c"]), ("c", ["e"])])
    verdict = counting_verdicts(g)["c"]
    assert verdict.witness is not None and verdict.witness.loop == ("c",)
    assert witness_holds(g, "c", verdict.witness)


def test_blocked_nodes_decide_the_graph_under_the_audits_in_force():
    g = SupportStructure.build(
        ["e", "f"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("c", ["f"])]
    )
    assert counting_verdicts(g)["c"].safe is False  # audit {e, f}
    under = counting_verdicts(g, blocked={"f"})
    assert under == counting_verdicts(g.under_audit({"f"}))
    assert under["c"].witness is not None and under["c"].witness.audit == {"e"}
    assert witness_holds(g, "c", under["c"].witness, blocked={"f"})


def test_a_deadline_leaves_the_loops_undecided_and_the_rest_decided():
    g = SupportStructure.build(
        ["e", "f"], ["c", "m", "d"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("d", ["f"])]
    )
    verdicts = counting_verdicts(g, deadline=time.monotonic() - 1)
    assert verdicts["c"].safe is None and verdicts["m"].safe is None
    assert verdicts["c"].witness is None
    assert verdicts["d"].safe is True  # behind no loop: the corollary, no query


def test_inactive_claims_are_safe_and_claims_can_be_chosen():
    # x <- y; y <- x: a loop with no outside support is never active
    g = SupportStructure.build(["e"], ["x", "y", "c"], [("x", ["y"]), ("y", ["x"]), ("c", ["e"])])
    verdicts = counting_verdicts(g, claims=["y", "c"])
    assert list(verdicts) == ["y", "c"]
    assert verdicts["y"].safe is True and verdicts["c"].safe is True


@pytest.mark.parametrize(
    "witness",
    [
        CountingWitness(frozenset({"e"}), ("c", "m"), frozenset({"c"})),  # m not kept
        CountingWitness(frozenset({"e"}), ("m", "c", "m"), frozenset({"c", "m"})),  # repeats
        CountingWitness(frozenset({"e"}), ("c",), frozenset({"c", "m"})),  # c names no c
        CountingWitness(frozenset({"m"}), ("c", "m"), frozenset({"c", "m"})),  # m audited
        CountingWitness(frozenset({"e"}), (), frozenset({"c", "m"})),  # no loop
        CountingWitness(frozenset({"e"}), ("c", "m"), frozenset({"c", "m", "e"})),  # evidence
    ],
)
def test_witness_holds_refuses_what_the_theorem_does_not_allow(witness):
    g = SupportStructure.build(["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])])
    assert witness_holds(g, "c", CountingWitness(frozenset({"e"}), ("m", "c"), frozenset("cm")))
    assert not witness_holds(g, "c", witness)


def test_witness_audits_are_shrunk_to_a_minimal_audit_of_the_claims_own_ancestors():
    # x <- y; y <- x; x <- e1; a <- x; a <- e5; b <- x, a: the first model keeps a (it needs
    # e1 and e5 audited) and b with it, whose own witness needs e1 alone
    g = SupportStructure.build(
        ["e1", "e5"],
        ["a", "b", "x", "y"],
        [("x", ["y"]), ("y", ["x"]), ("x", ["e1"]), ("a", ["x"]), ("a", ["e5"]), ("b", ["x", "a"])],
    )
    audits = {c: v.witness.audit for c, v in counting_verdicts(g).items() if v.witness}
    assert audits == {"a": {"e1", "e5"}, "b": {"e1"}, "x": {"e1"}, "y": {"e1"}}
    # c2 <- x; c1 <- x; c1 <- e2: e2 is no ancestor of c2, so no part of its witness
    h = SupportStructure.build(
        ["e1", "e2"],
        ["c1", "c2", "x", "y"],
        [("x", ["y"]), ("y", ["x"]), ("x", ["e1"]), ("c1", ["x"]), ("c1", ["e2"]), ("c2", ["x"])],
    )
    audits = {c: v.witness.audit for c, v in counting_verdicts(h).items() if v.witness}
    assert audits == {"c1": {"e1", "e2"}, "c2": {"e1"}, "x": {"e1"}, "y": {"e1"}}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LOOPY)
def test_the_tally_counts_the_verdicts(structure):
    index = index_of(structure)
    tally = counting_tally(index, base_active(structure))
    verdicts = counting_verdicts(structure, witnesses=False)
    for claim, verdict in verdicts.items():
        assert tally.of(index.number[claim]) is verdict.safe
        assert verdict.witness is None
    assert tally.totals()["counting_unsafe"] == sum(v.safe is False for v in verdicts.values())


def test_a_region_past_the_size_limit_or_the_conflicts_is_undecided():
    g = SupportStructure.build(
        ["e", "f"], ["c", "m", "d"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"]), ("d", ["f"])]
    )
    for options in ({"largest": 2}, {"conflicts": 0}):
        verdicts = counting_verdicts(g, **options)
        assert (verdicts["c"].safe, verdicts["m"].safe, verdicts["d"].safe) == (None, None, True)
    assert counting_verdicts(g, largest=3, conflicts=None)["c"].safe is False
