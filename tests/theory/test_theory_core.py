"""Semantics of the theory core: fixpoint, revision rules, the support-loop case."""

import pytest
from hypothesis import given, settings

from theory import SupportStructure, active_state, counting, exact, influence, none, revise
from theory.model.index import index_of
from theory.semantics.fixpoint import active_numbers
from theory.testing import strategies as jst


def loop_graph():
    return SupportStructure.build(["p"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"])])


def test_support_loop_is_retired_with_its_entry_point():
    structure = loop_graph()
    assert active_state(structure) == {"p", "A", "B"}
    assert exact(structure, frozenset({"p"})) == {"p", "A", "B"}
    assert revise(structure, ["p"]).active == frozenset()


def test_loop_without_grounding_is_never_active():
    structure = SupportStructure.build(["p"], ["A", "B"], [("A", ["B"]), ("B", ["A"])])
    assert active_state(structure) == {"p"}


def test_premise_and_unjustified_claims():
    structure = SupportStructure.build([], ["premise", "orphan"], [("premise", [])])
    assert active_state(structure) == {"premise"}


def test_and_world_and_or_world_differ_only_in_grouping():
    and_world = SupportStructure.build(["a", "b"], ["c"], [("c", ["a", "b"])])
    or_world = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    audit = frozenset({"a"})
    assert exact(and_world, audit) == {"a", "c"}
    assert exact(or_world, audit) == {"a"}
    assert influence(and_world, audit) == influence(or_world, audit) == {"a", "c"}
    assert none(and_world, audit) == none(or_world, audit) == {"a"}


def naive_least_fixpoint(structure, blocked):
    """Kleene iteration from the empty set: the textbook definition, for comparison."""
    active = {e for e in structure.evidence if e not in blocked}
    changed = True
    while changed:
        changed = False
        for j in structure.justifications:
            if j.claim not in active and j.claim not in blocked and j.antecedents <= active:
                active.add(j.claim)
                changed = True
    return frozenset(active)


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.graphs_with_audits(cycles=True, max_evidence=5, max_claims=7))
def test_fixpoint_equals_kleene_iteration(case):
    structure, audit = case
    assert active_state(structure, blocked=audit) == naive_least_fixpoint(structure, audit)


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.graphs_with_audits(cycles=True, max_evidence=5, max_claims=7))
def test_exact_is_recomputed_fixpoint(case):
    structure, audit = case
    before = naive_least_fixpoint(structure, frozenset())
    after = naive_least_fixpoint(structure, audit)
    assert exact(structure, audit) == before - after


@pytest.mark.slow
@pytest.mark.parametrize("cycles", [False, True])
def test_rule_inclusions(cycles):
    @settings(max_examples=300)
    @given(jst.graphs_with_audits(cycles=cycles, max_evidence=6, max_claims=8))
    def check(case):
        structure, audit = case
        retired_none = none(structure, audit)
        retired_counting = counting(structure, audit)
        retired_exact = exact(structure, audit)
        retired_influence = influence(structure, audit)
        assert retired_none <= retired_counting <= retired_exact <= retired_influence
        if not cycles:
            assert retired_counting == retired_exact
        active = active_state(structure)
        assert retired_influence <= active

    check()


@pytest.mark.slow
def test_counting_is_the_greatest_fixpoint_below_the_state_before():
    """Counting keeps exactly the largest set of claims, within the state before the audit
    less the audit, in which every claim has a justification inside the set and the active
    evidence: checked by brute force over every subset on small graphs."""
    from itertools import combinations

    @settings(max_examples=200)
    @given(jst.graphs_with_audits(cycles=True, max_evidence=4, max_claims=5))
    def check(case):
        structure, audit = case
        before = active_state(structure)
        pool = sorted(before - audit)
        claims = [c for c in pool if c in structure.claims]
        evidence = frozenset(pool) - frozenset(claims)

        def supported(kept: frozenset[str]) -> bool:
            inside = kept | evidence
            return all(
                any(set(j.antecedents) <= inside for j in structure.justifications if j.claim == c)
                for c in kept
            )

        largest = max(
            (
                frozenset(s)
                for k in range(len(claims) + 1)
                for s in combinations(claims, k)
                if supported(frozenset(s))
            ),
            key=len,
        )
        assert before - counting(structure, audit) == largest | evidence

    check()


def test_counting_keeps_a_loop_whose_outside_support_is_gone():
    g = SupportStructure.build(
        ["a", "b"], ["c", "d", "e"], [("c", ["a"]), ("c", ["d"]), ("d", ["c"]), ("e", ["b"])]
    )
    assert counting(g, frozenset({"a"})) == {"a"}
    assert exact(g, frozenset({"a"})) == {"a", "c", "d"}
    assert counting(g, frozenset({"b"})) == exact(g, frozenset({"b"})) == {"b", "e"}
    assert revise(g, ["a"], "counting").to_dict()["retired"] == ["a"]


def test_index_numbers_evidence_first():
    structure = SupportStructure.build(["z", "y"], ["a"], [("a", ["z"])])
    index = index_of(structure)
    assert index.ids == ("y", "z", "a")
    assert list(active_numbers(index)) == [1, 1, 1]
