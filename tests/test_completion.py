"""The default least-fixpoint encoding (completion + lazy loop formulas) against the unrolled
circuit (the oracle) and the brute force, on random cyclic graphs."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory import strategies as jst
from theory.completion import SupportProgram
from theory.index import index_of
from theory.justifications import JustificationEnumerator, minimal_justifications
from theory.reference import brute_force_minimal_justifications

CYCLIC = jst.support_structures(max_evidence=5, max_claims=7, max_alternatives=3, cycles=True)


def ring(k: int, entries: int = 3) -> SupportStructure:
    """c_i <- c_(i-1) around a loop of k claims, evidence e_m entering at evenly spaced claims."""
    evidence = [f"e{m}" for m in range(entries)]
    claims = [f"c{i}" for i in range(k)]
    pairs = [(claims[i], [claims[i - 1]]) for i in range(k)]
    pairs += [(claims[m * k // entries], [evidence[m]]) for m in range(entries)]
    return SupportStructure.build(evidence, claims, pairs)


@settings(max_examples=150)
@given(CYCLIC)
def test_completion_equals_unrolled_and_brute_force(structure):
    for claim in sorted(structure.claims):
        completion = minimal_justifications(structure, claim, method="sat", encoding="completion")
        unrolled = minimal_justifications(structure, claim, method="sat", encoding="unrolled")
        assert completion == unrolled == brute_force_minimal_justifications(structure, claim), claim


@settings(max_examples=80)
@given(CYCLIC, st.data())
def test_surviving_and_relevance_agree_with_the_oracle(structure, data):
    claim = data.draw(st.sampled_from(sorted(structure.claims)))
    fast = JustificationEnumerator.for_claim(structure, claim)
    oracle = JustificationEnumerator.for_claim(structure, claim, encoding="unrolled")
    truth = brute_force_minimal_justifications(structure, claim)
    for e in sorted(structure.evidence):
        assert fast.is_relevant(e) == oracle.is_relevant(e) == any(e in s for s in truth)
        survivor = fast.surviving([e])
        assert (survivor is None) == (oracle.surviving([e]) is None)
        assert survivor is None or (survivor in truth and e not in survivor)
    fast.close()
    oracle.close()


def test_nested_loops_need_lazy_loop_formulas():
    # one component {a, b, c, d}; e founds c and d, but a also needs f: without f the inner
    # loop a <-> b holds itself up while the component's own loop formula is satisfied
    g = SupportStructure.build(
        ["e", "f"],
        ["a", "b", "c", "d"],
        [
            ("a", ["b"]),
            ("b", ["a"]),
            ("a", ["c", "f"]),
            ("c", ["e"]),
            ("c", ["d"]),
            ("d", ["c"]),
            ("d", ["a"]),
        ],
    )
    for claim in ("a", "b", "c", "d"):
        assert minimal_justifications(g, claim, method="sat") == brute_force_minimal_justifications(
            g, claim
        )
    enumerator = JustificationEnumerator.for_claim(g, "a")
    assert set(enumerator) == {frozenset({"e", "f"})}
    assert enumerator._copy.loops_added > len(enumerator.source.cyclic)  # a lazy cut happened


def test_conjunction_of_roots():
    g = SupportStructure.build(
        ["p", "q", "r"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])]
    )
    index = index_of(g)
    program = SupportProgram.of(index, [index.number["A"], index.number["r"]])
    assert set(JustificationEnumerator(program)) == {frozenset({"p", "r"}), frozenset({"q", "r"})}


def test_encoding_is_linear_in_a_long_loop():
    # the unrolled circuit would need k rounds of k claims (10^8 gates here)
    structure = ring(10_000)
    began = time.process_time()
    found = minimal_justifications(structure, "c0", method="sat")
    assert found == {frozenset({"e0"}), frozenset({"e1"}), frozenset({"e2"})}
    assert time.process_time() - began < 20
    index = index_of(structure)
    encoding, _ = SupportProgram.of(index, index.number["c0"]).encode(
        __import__("pysat.formula", fromlist=["IDPool"]).IDPool(), lambda e: 1
    )
    assert len(encoding.clauses) < 4 * 10_000


def test_unknown_encoding_is_refused():
    import pytest

    with pytest.raises(ValueError):
        minimal_justifications(ring(3), "c0", method="sat", encoding="magic")
