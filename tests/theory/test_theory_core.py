"""Semantics of the theory core: fixpoint, revision rules, the support-loop case."""

import pytest
from hypothesis import given, settings

from theory import SupportStructure, active_state, exact, influence, none, revise
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
        retired_exact = exact(structure, audit)
        retired_influence = influence(structure, audit)
        assert retired_none <= retired_exact <= retired_influence
        active = active_state(structure)
        assert retired_influence <= active

    check()


def test_index_numbers_evidence_first():
    structure = SupportStructure.build(["z", "y"], ["a"], [("a", ["z"])])
    index = index_of(structure)
    assert index.ids == ("y", "z", "a")
    assert list(active_numbers(index)) == [1, 1, 1]
