"""Diagnoses: minimal hitting sets of the conflict sets, ranked by their impact, checked
against the definition by brute force (theory.testing.reference) and against pysat's Hitman."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.model.structure import Nogood, SupportStructure
from theory.semantics.conflicts import contradictions
from theory.semantics.diagnosis import diagnoses, impact, minimal_hitting_sets
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_diagnoses


def world() -> SupportStructure:
    """x on a; y on b or c; z on a; w on a or b; nogood {x, y}."""
    return SupportStructure.build(
        evidence=["a", "b", "c", "d"],
        claims=["x", "y", "z", "w", "p"],
        justifications=[
            ("x", ["a"]),
            ("y", ["b"]),
            ("y", ["c"]),
            ("z", ["a"]),
            ("w", ["a"]),
            ("w", ["b"]),
            ("p", []),
        ],
        nogoods=[Nogood("n1", frozenset({"x", "y"}))],
    )


def test_cheapest_first_fewest_claims_then_fewest_evidence() -> None:
    found = diagnoses(world())
    assert [sorted(d.invalidate) for d in found] == [["b", "c"], ["a"]]
    first, second = found
    assert first.retires == {"b", "c", "y"} and first.keeps == {"w"} and first.cost == (1, 2)
    assert second.retires == {"a", "x", "z"} and second.keeps == {"w"} and second.cost == (2, 1)


def test_limit_keeps_the_cheapest() -> None:
    assert [sorted(d.invalidate) for d in diagnoses(world(), limit=1)] == [["b", "c"]]
    assert diagnoses(world(), limit=0) == ()


def test_fewer_claims_beat_fewer_evidence_items_under_a_limit() -> None:
    """{a} retires x and z (2 claims, 1 item); {b, c, d} retires y (1 claim, 3 items)."""
    g = SupportStructure.build(
        evidence=["a", "b", "c", "d"],
        claims=["x", "y", "z"],
        justifications=[("x", ["a"]), ("z", ["a"]), ("y", ["b"]), ("y", ["c"]), ("y", ["d"])],
        nogoods=[Nogood("n", frozenset({"x", "y"}))],
    )
    assert [sorted(d.invalidate) for d in diagnoses(g, limit=1)] == [["b", "c", "d"]]
    assert [d.cost for d in diagnoses(g)] == [(1, 3), (2, 1)]


def test_no_active_nogood_no_diagnosis() -> None:
    g = world().with_nogoods([Nogood("n", frozenset({"x", "d"}))])
    assert [sorted(d.invalidate) for d in diagnoses(g)] == [["d"], ["a"]]  # d retires no claim
    assert diagnoses(g, blocked=["d"]) == ()
    assert diagnoses(world().with_nogoods([])) == ()


def test_premise_contradiction_has_no_diagnosis_over_evidence() -> None:
    g = world().with_nogoods([Nogood("n1", frozenset({"x", "y"})), Nogood("n2", frozenset({"p"}))])
    found = {c.nogood.id: c for c in contradictions(g)}
    assert found["n2"].active and not found["n2"].diagnosable
    # the diagnosable contradiction is still diagnosed
    assert [sorted(d.invalidate) for d in diagnoses(g)] == [["b", "c"], ["a"]]
    only_premise = world().with_nogoods([Nogood("n2", frozenset({"p"}))])
    assert diagnoses(only_premise) == ()


def test_impact_with_audits_in_force() -> None:
    d = impact(world(), ["b"], blocked=["c"])
    assert d.retires == {"b", "y"} and d.keeps == {"w"}
    chain = SupportStructure.build(
        evidence=["e", "f"],
        claims=["x", "y"],
        justifications=[("x", ["y"]), ("x", ["e"]), ("y", ["f"])],
    )
    assert impact(chain, ["f"]).retires == {"f", "y"} and impact(chain, ["f"]).keeps == {"x"}
    assert impact(chain, ["f"], blocked=["y"]).retires == {"f"}  # y is already audited


def test_minimal_hitting_sets_edge_cases() -> None:
    assert list(minimal_hitting_sets([])) == [frozenset()]
    assert list(minimal_hitting_sets([{"a"}, set()])) == []
    assert set(minimal_hitting_sets([{"a", "b"}, {"b", "c"}, {"d"}])) == {
        frozenset({"b", "d"}),
        frozenset({"a", "c", "d"}),
    }


def _as_rows(found: tuple) -> list[tuple[frozenset[str], frozenset[str], frozenset[str]]]:
    return [(d.invalidate, d.retires, d.keeps) for d in found]


@pytest.mark.slow
@settings(max_examples=120)
@given(jst.graphs_with_nogoods(max_evidence=4, max_claims=5, cycles=True), st.data())
def test_diagnoses_match_the_definition_with_cycles(
    g: SupportStructure, data: st.DataObject
) -> None:
    blocked = data.draw(jst.audits(g, max_size=2), label="blocked")
    expected = brute_force_diagnoses(g, blocked)
    found = diagnoses(g, blocked=blocked)
    assert _as_rows(found) == expected
    conflicts = [
        s
        for c in contradictions(g, blocked=blocked)
        if c.active and c.diagnosable
        for s in c.conflicts
    ]
    if conflicts:
        assert set(minimal_hitting_sets(conflicts)) == {d.invalidate for d in found}
    for k in (1, 2):
        assert _as_rows(diagnoses(g, blocked=blocked, limit=k)) == expected[:k]


@pytest.mark.slow
@settings(max_examples=60)
@given(jst.graphs_with_nogoods(max_evidence=5, max_claims=6, cycles=False, redundant=True))
def test_diagnoses_match_the_definition_acyclic(g: SupportStructure) -> None:
    assert _as_rows(diagnoses(g)) == brute_force_diagnoses(g)


@pytest.mark.slow
@settings(max_examples=200)
@given(
    jst.graphs_with_nogoods(max_evidence=5, max_claims=6, cycles=True),
    st.data(),
    st.integers(1, 2),
)
def test_diagnoses_past_a_capped_conflict_listing_match_the_definition(
    g: SupportStructure, data: st.DataObject, cap: int
) -> None:
    """Conflict sets listed up to ``cap``: a nogood with more is diagnosed through its
    support circuit instead of its conflict sets, with the same diagnoses."""
    blocked = data.draw(jst.audits(g, max_size=2), label="blocked")
    found = contradictions(g, blocked=blocked, max_listed=cap)
    everything = contradictions(g, blocked=blocked, max_listed=None)
    for capped, full in zip(found, everything):
        assert capped.conflicts <= full.conflicts
        assert capped.conflicts_complete == (len(full.conflicts) <= cap)
        assert len(capped.conflicts) == min(cap, len(full.conflicts))
        assert capped.diagnosable == full.diagnosable
    expected = brute_force_diagnoses(g, blocked)
    assert _as_rows(diagnoses(g, found, blocked=blocked)) == expected
    assert _as_rows(diagnoses(g, found, blocked=blocked, limit=1)) == expected[:1]


def test_benchmark_smoke() -> None:
    """The benchmark's checks at a small size: stored and in-memory diagnoses agree, SAT and
    clingo conflict sets agree (the full run: python -m benchmarks.bench_diagnosis)."""
    from benchmarks.bench_diagnosis import run

    result = run(claims=300, nogoods=3, back_edges=0.05, seed=1, repeats=1, max_diagnoses=5)
    assert result["nogoods"] == 3 and len(result["enumeration"]) == 3
    assert result["conflict_sets"] > 0 and 0 < result["diagnoses"] <= 5
