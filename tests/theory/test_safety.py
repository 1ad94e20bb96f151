"""The influence-safety checker against the brute-force comparison of the two rules."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure, active_state, exact, influence
from theory.safety.check import (
    ALTERNATIVE_SUPPORT,
    LOOP_INFLUENCE,
    REDUNDANT_INFLUENCE,
    check_claim,
    check_structure,
    summarize_structure,
)
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_influence_safe, brute_force_minimal_justifications


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=6))
def test_verdicts_equal_brute_force_over_all_audits(structure):
    report = check_structure(structure)
    for claim in report.claims:
        assert claim.influence_safe == brute_force_influence_safe(structure, claim.id)
    assert report.influence_safe == all(c.influence_safe for c in report.claims)


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_every_witness_separates_the_rules(structure):
    for claim in check_structure(structure).claims:
        minimal = brute_force_minimal_justifications(structure, claim.id)
        assert claim.minimal_justifications_complete
        if claim.active:
            assert claim.minimal_justifications == minimal
        relevant = frozenset().union(*minimal) if minimal else frozenset()
        for violation in claim.violations:
            assert len(violation.audit) == 1
            assert claim.id in influence(structure, violation.audit)
            assert claim.id not in exact(structure, violation.audit)
            (item,) = violation.audit
            if item in relevant:
                assert violation.kind == ALTERNATIVE_SUPPORT
            else:  # in no minimal justification: a redundant justification or a loop carries it
                assert violation.kind in (REDUNDANT_INFLUENCE, LOOP_INFLUENCE)
            assert violation.surviving_justification in minimal
            assert not violation.surviving_justification & violation.audit


@pytest.mark.slow
@settings(max_examples=100)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_capped_enumeration_keeps_kinds_and_survivors_exact(structure):
    full = check_structure(structure)
    capped = check_structure(structure, max_listed=1)
    sat_capped = check_structure(structure, max_listed=1, label_budget=0)  # forces the SAT path
    sat_full = check_structure(structure, label_budget=0)
    assert [
        (c.id, c.influence_safe, c.violations, c.minimal_justifications) for c in sat_full.claims
    ] == [(c.id, c.influence_safe, c.violations, c.minimal_justifications) for c in full.claims]
    for a, b in list(zip(full.claims, capped.claims)) + list(zip(full.claims, sat_capped.claims)):
        assert a.influence_safe == b.influence_safe
        assert [(v.kind, v.audit) for v in a.violations] == [
            (v.kind, v.audit) for v in b.violations
        ]
        for v in b.violations:
            assert v.surviving_justification in a.minimal_justifications


def test_redundant_justification_is_reported():
    structure = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["a", "b"])])
    report = check_claim(structure, "c")
    assert not report.influence_safe
    assert report.minimal_justifications == {frozenset({"a"})}
    (violation,) = report.violations
    assert violation.kind == REDUNDANT_INFLUENCE and violation.audit == {"b"}


def test_or_world_unsafe_and_world_safe():
    and_world = SupportStructure.build(["a", "b"], ["c"], [("c", ["a", "b"])])
    or_world = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    assert check_structure(and_world).influence_safe
    report = check_claim(or_world, "c")
    assert [(v.kind, v.audit, v.surviving_justification) for v in report.violations] == [
        (ALTERNATIVE_SUPPORT, {"a"}, {"b"}),
        (ALTERNATIVE_SUPPORT, {"b"}, {"a"}),
    ]


def test_support_loop_is_safe_through_its_entry_point():
    structure = SupportStructure.build(
        ["p"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"])]
    )
    assert check_structure(structure).influence_safe


@pytest.mark.slow
@given(jst.graphs_with_audits(cycles=True, max_evidence=5, max_claims=6))
def test_under_audit_is_the_active_state_with_the_audit_in_force(case):
    structure, blocked = case
    audited = structure.under_audit(blocked)
    assert active_state(audited) == active_state(structure, blocked)


@pytest.mark.slow
@given(jst.graphs_with_audits(cycles=True, max_evidence=5, max_claims=6))
def test_check_with_audits_in_force_matches_brute_force(case):
    # influence-safe under audits R: for every further evidence audit, influence on the graph
    # as it stands equals exact revision there (docs/design.md section 2, checked by brute force)
    structure, blocked = case
    report = check_structure(structure, blocked=blocked)
    current = structure.under_audit(blocked)
    active = active_state(current)
    for claim in report.claims:
        if claim.id not in active:
            assert claim.influence_safe
            continue
        agrees = all(
            (claim.id in exact(current, frozenset(r)))
            == (claim.id in influence(current, frozenset(r)))
            for k in range(len(current.evidence) + 1)
            for r in combinations(sorted(current.evidence), k)
        )
        assert claim.influence_safe == agrees


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_summary_counts_the_violations_of_the_full_check(structure):
    """summarize_structure: the verdicts, violation counts and first witnesses (by id) of
    check_structure without certificates, counted instead of listed."""
    full = check_structure(structure, certificates=False)
    summary = summarize_structure(structure, examples=2)
    assert summary.influence_safe == full.influence_safe
    assert [c.id for c in summary.claims] == [c.id for c in full.claims]
    for s, f in zip(summary.claims, full.claims):
        witnesses = sorted(e for v in f.violations for e in v.audit)
        assert (s.active, s.influence_safe, s.violation_count) == (
            f.active,
            f.influence_safe,
            len(witnesses),
        )
        assert list(s.examples) == witnesses[:2]
        if f.influence_safe:
            assert s.minimal_justifications == f.minimal_justifications
    assert summary.totals()["violations"] == sum(len(c.violations) for c in full.claims)


def test_summary_payload_keeps_the_report_keys():
    g = SupportStructure.build(
        ["a", "b", "c"], ["x", "y"], [("x", ["a"]), ("x", ["b"]), ("x", ["c"]), ("y", ["a"])]
    )
    payload = summarize_structure(g, examples=2).to_dict()
    assert payload["summary"] == {"claims": 2, "active": 2, "unsafe": 1, "violations": 3}
    x, y = payload["claims"]
    assert set(x) >= set(check_structure(g).to_dict()["claims"][0])
    assert (x["violation_count"], x["violations_complete"]) == (3, False)
    assert x["violations"] == [
        {"kind": None, "audit": [e], "surviving_justification": None} for e in "ab"
    ]
    assert (y["influence_safe"], y["minimal_justifications"], y["violations_complete"]) == (
        True,
        [["a"]],
        True,
    )


def _agrees_with_the_full_check(counts, full):
    """count_verdicts' summaries against check_structure(certificates=False), claim by claim."""
    summaries = list(counts.claims())
    assert [c.id for c in summaries] == [c.id for c in full.claims]
    for s, f in zip(summaries, full.claims):
        witnesses = sorted(e for v in f.violations for e in v.audit)
        assert (s.id, s.active, s.influence_safe, s.violation_count) == (
            f.id,
            f.active,
            f.influence_safe,
            len(witnesses),
        )
        assert list(s.examples) == witnesses[:3]
        if f.influence_safe:
            assert s.minimal_justifications == f.minimal_justifications
    assert counts.influence_safe == full.influence_safe


@pytest.mark.slow
@settings(max_examples=200)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7), st.data())
def test_counts_under_audit_on_a_growing_index_equal_the_full_check(structure, data):
    """count_verdicts on a memory's index and state (numbered in insertion order, audits in
    force) gives the verdicts check_structure gives on the structure under the same audits."""
    from jtms.engine.incremental import state_of
    from theory.safety.check import count_verdicts

    nodes = sorted(structure.nodes)
    blocked = data.draw(st.sets(st.sampled_from(nodes), max_size=2)) if nodes else set()
    state = state_of(structure, blocked)
    counts = count_verdicts(state.index, list(state.blocks), active=state.active, budget=1)
    _agrees_with_the_full_check(
        counts, check_structure(structure, certificates=False, blocked=blocked)
    )


@pytest.mark.slow
@pytest.mark.parametrize("back_edges", [0.0, 0.05])
def test_counts_in_many_evidence_blocks_equal_the_full_check(back_edges):
    """Hundreds of evidence, solved 64 at a time (the smallest budget): the blocks are
    independent, so the counts, first witnesses and safe claims' sets are the reference's."""
    from benchmarks.generate import memory
    from theory.model.index import index_of
    from theory.safety.check import count_verdicts

    structure = memory(1500, seed=3, back_edges=back_edges)
    blocked = sorted(structure.evidence)[::37] + sorted(structure.claims)[::101]
    index = index_of(structure)
    counts = count_verdicts(index, index.numbers(blocked), budget=1)
    assert len(structure.evidence) > 4 * 64
    _agrees_with_the_full_check(
        counts, check_structure(structure, certificates=False, blocked=blocked)
    )


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=8, max_claims=10))
def test_compiled_verdicts_equal_the_interpreted_oracle(structure):
    """theory.safety.check.verdicts (the compiled kernel, one block of all the evidence) holds
    the bitsets of the definitions' fixpoints (theory.testing.reference.reference_verdicts),
    node for node; and the bounded-memory count of count_verdicts (blocks of one item)
    counts their difference."""
    from theory.model.index import index_of
    from theory.safety.check import count_verdicts, verdicts
    from theory.semantics.fixpoint import base_active
    from theory.testing.reference import reference_verdicts

    index = index_of(structure)
    active = base_active(structure)
    compiled = verdicts(index, active)
    oracle = reference_verdicts(index, active)
    assert compiled.ancestors == oracle.ancestors
    for n in range(index.size):
        if active[n]:
            assert compiled.critical[n] == oracle.critical[n], index.ids[n]
        assert compiled.unsafe_bits(n) == oracle.unsafe_bits(n), index.ids[n]
    counts = count_verdicts(index, budget=1)
    for summary in counts.claims():
        n = index.number[summary.id]
        assert summary.violation_count == oracle.unsafe_bits(n).bit_count()
