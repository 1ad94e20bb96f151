"""The default least-fixpoint encoding (completion + lazy loop formulas) against the unrolled
circuit (the oracle) and the brute force, on random cyclic graphs."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory.model.index import index_of
from theory.solver.completion import SupportProgram
from theory.solver.justifications import JustificationEnumerator, minimal_justifications
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications

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


@pytest.mark.slow
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


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.integers(0, 5))
def test_a_loop_formula_in_either_clause_form_says_the_same(members, bodies):
    # "some member held -> some external body held", over h variables 1..m and body
    # variables m+1..m+b: the clauses (a fresh variable where that is shorter) must allow
    # exactly the assignments the formula allows, and use the fewer literals of the forms
    from itertools import product

    from pysat.formula import IDPool

    from theory.solver.completion import ProgramCopy

    g = SupportStructure.build(["e"], ["c"], [("c", ["e"])])
    program = SupportProgram.of(index_of(g), index_of(g).number["c"])
    pool = IDPool(start_from=members + bodies + 1)
    copy = ProgramCopy("t", True, {}, {n: n for n in range(1, members + 1)}, {}, True)
    lits = list(range(members + 1, members + bodies + 1))
    clauses = program.loop_formula_clauses(pool, copy, list(range(1, members + 1)), lits)
    assert sum(map(len, clauses)) == min(members * (bodies + 1), 2 * members + bodies + 1), clauses
    extra = sorted({abs(x) for c in clauses for x in c} - set(range(1, members + bodies + 1)))
    for values in product([False, True], repeat=members + bodies):
        formula = not any(values[:members]) or any(values[members:])

        def satisfied(assignment):
            return all(any(assignment[abs(x)] == (x > 0) for x in c) for c in clauses)

        base = {v + 1: values[v] for v in range(members + bodies)}
        allowed = any(
            satisfied({**base, **dict(zip(extra, aux))})
            for aux in product([False, True], repeat=len(extra))
        )
        assert allowed == formula, (values, clauses)


def test_the_grown_cuts_state_a_loop_formula_in_linear_size():
    # a cycle of 30 claims, each also held by its own evidence: under no evidence the
    # whole cycle is one unfounded loop with 30 external bodies, a formula of 30 x 31
    # literals when each member repeats every body, 2 x 30 + 30 + 1 with a fresh variable
    n = 30
    evidence = [f"e{i}" for i in range(n)]
    claims = [f"c{i}" for i in range(n)]
    justifications = [(f"c{i}", [f"c{(i + 1) % n}"]) for i in range(n)]
    justifications += [(f"c{i}", [f"e{i}"]) for i in range(n)]
    g = SupportStructure.build(evidence, claims, justifications)
    index = index_of(g)
    enumerator = JustificationEnumerator(SupportProgram.of(index, index.number["c0"]))
    # the empty set grown: every evidence item lies outside it
    outside, *loops = enumerator._grown_cuts([index.number[e] for e in evidence])
    assert len(outside) == n
    assert loops and sum(map(len, loops)) <= 2 * n + n + 1
