"""The least-fixpoint encodings against the unrolled circuit (the oracle) and the brute force,
on random cyclic graphs: the compiled completion with lazy loop formulas (the SAT search's lazy
arm) and the level-ranked completion of :mod:`theory.solver.completion`."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory.model.index import index_of
from theory.solver.completion import SupportProgram
from theory.solver.cone_cnf import cone_cnf, loop_cuts
from theory.solver.cone_kernel import ConeOracle
from theory.solver.justifications import JustificationEnumerator, minimal_justifications, search
from theory.solver.options import SolverOptions
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications

LAZY = SolverOptions(ranked_entry=10**15)
"""The SAT search's lazy arm alone (the ranked arm never gets a turn)."""
CYCLIC = jst.support_structures(max_evidence=5, max_claims=7, max_alternatives=3, cycles=True)


def ring(k: int, entries: int = 3) -> SupportStructure:
    """c_i <- c_(i-1) around a loop of k claims, evidence e_m entering at evenly spaced claims."""
    evidence = [f"e{m}" for m in range(entries)]
    claims = [f"c{i}" for i in range(k)]
    pairs = [(claims[i], [claims[i - 1]]) for i in range(k)]
    pairs += [(claims[m * k // entries], [evidence[m]]) for m in range(entries)]
    return SupportStructure.build(evidence, claims, pairs)


@pytest.mark.slow
@settings(max_examples=150)
@given(CYCLIC)
def test_completion_equals_unrolled_and_brute_force(structure):
    for claim in sorted(structure.claims):
        completion = minimal_justifications(structure, claim, method="sat", encoding="completion")
        unrolled = minimal_justifications(structure, claim, method="sat", encoding="unrolled")
        assert completion == unrolled == brute_force_minimal_justifications(structure, claim), claim


@pytest.mark.slow
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
    index = index_of(g)
    oracle = ConeOracle(index, index.number["a"])
    cnf = cone_cnf(oracle)
    # under e alone the inner loop a <-> b holds itself up in a supported model, and the
    # component's own loop formula is satisfied through c: its loop formula is a cut, one
    # clause per member (a or b false, or a's body from c and f held)
    cuts = loop_cuts(cnf, oracle, [index.number["e"]])
    assert len(cuts) == 2 and all(len(c) == 2 for c in cuts), cuts
    assert search(index, index.number["a"], options=LAZY) == {frozenset({"e", "f"})}
    assert set(JustificationEnumerator.for_claim(g, "a")) == {frozenset({"e", "f"})}


def test_conjunction_of_roots():
    g = SupportStructure.build(
        ["p", "q", "r"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"]), ("B", ["q"])]
    )
    index = index_of(g)
    program = SupportProgram.of(index, [index.number["A"], index.number["r"]])
    assert set(JustificationEnumerator(program)) == {frozenset({"p", "r"}), frozenset({"q", "r"})}


@pytest.mark.slow
def test_encoding_is_linear_in_a_long_loop():
    # the unrolled circuit would need k rounds of k claims (10^8 gates here)
    structure = ring(10_000)
    began = time.process_time()
    found = minimal_justifications(structure, "c0", method="sat")
    assert found == {frozenset({"e0"}), frozenset({"e1"}), frozenset({"e2"})}
    assert time.process_time() - began < 20
    index = index_of(structure)
    cnf = cone_cnf(ConeOracle(index, index.number["c0"]))
    assert len(cnf.start) - 1 < 4 * 10_000


def test_unknown_encoding_is_refused():
    import pytest

    with pytest.raises(ValueError):
        minimal_justifications(ring(3), "c0", method="sat", encoding="magic")


def test_the_grown_cuts_of_the_compiled_search_cut_every_model_inside_the_grown_set():
    # a cycle of 30 claims, each also held by its own evidence: under no evidence the whole
    # cycle is one unfounded loop with 30 external bodies, and its loop formula is one
    # clause per member (the member false or some external body held)
    n = 30
    evidence = [f"e{i}" for i in range(n)]
    claims = [f"c{i}" for i in range(n)]
    justifications = [(f"c{i}", [f"c{(i + 1) % n}"]) for i in range(n)]
    justifications += [(f"c{i}", [f"e{i}"]) for i in range(n)]
    g = SupportStructure.build(evidence, claims, justifications)
    index = index_of(g)
    oracle = ConeOracle(index, index.number["c0"])
    cnf = cone_cnf(oracle)
    cuts = loop_cuts(cnf, oracle, [])
    assert len(cuts) == n and all(len(c) == n + 1 for c in cuts)
    # every model holding a member and no evidence violates one of them
    evidence_vars = set(range(1, oracle.evidence.shape[0] + 1))
    assert all(set(map(abs, c)) - evidence_vars for c in cuts)
    assert search(index, index.number["c0"], options=LAZY) == {frozenset({e}) for e in evidence}
