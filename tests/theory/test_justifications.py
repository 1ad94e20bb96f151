"""The solver core against brute force and sympy."""

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.solver.formula import compile_support, to_sympy
from theory.solver.justifications import JustificationEnumerator, minimal_justifications
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications, evidence_ancestors


@st.composite
def graph_and_claim(draw, cycles=True, max_evidence=8, max_claims=7):
    structure = draw(
        jst.support_structures(max_evidence=max_evidence, max_claims=max_claims, cycles=cycles)
    )
    claim = draw(st.sampled_from(sorted(structure.claims)))
    return structure, claim


@pytest.mark.slow
@settings(max_examples=400)
@given(graph_and_claim(cycles=True))
def test_sat_enumeration_equals_brute_force(case):
    structure, claim = case
    expected = brute_force_minimal_justifications(structure, claim)
    assert minimal_justifications(structure, claim, method="sat") == expected
    assert minimal_justifications(structure, claim, method="labels") == expected
    assert minimal_justifications(structure, claim, method="auto", label_budget=2) == expected
    assert minimal_justifications(structure, claim) == expected
    assert minimal_justifications(structure, claim, solver="glucose4") == expected
    assert minimal_justifications(structure, claim, encoding="unrolled", method="sat") == expected


@pytest.mark.slow
@settings(max_examples=300)
@given(graph_and_claim(cycles=True))
def test_formula_evaluates_like_the_fixpoint(case):
    structure, claim = case
    compiled = compile_support(structure, [claim])
    items = sorted(evidence_ancestors(structure, claim))
    for mask in range(min(1 << len(items), 64)):
        chosen = frozenset(e for i, e in enumerate(items) if mask >> i & 1)
        expected = claim in active_state(structure, evidence=chosen)
        assert compiled.circuit.evaluate(compiled.root(claim), chosen) == expected


def dnf_terms(expression):
    if expression is sympy.true:
        return frozenset([frozenset()])
    if expression is sympy.false:
        return frozenset()
    terms = expression.args if isinstance(expression, sympy.Or) else (expression,)
    result = set()
    for term in terms:
        literals = term.args if isinstance(term, sympy.And) else (term,)
        result.add(frozenset(str(literal) for literal in literals))
    return frozenset(result)


@pytest.mark.slow
@settings(max_examples=100)
@given(graph_and_claim(cycles=False, max_evidence=5, max_claims=5))
def test_sat_enumeration_equals_sympy_dnf(case):
    structure, claim = case
    compiled = compile_support(structure, [claim])
    expression = sympy.simplify_logic(to_sympy(compiled.circuit, compiled.root(claim)), form="dnf")
    assert minimal_justifications(structure, claim, method="sat") == dnf_terms(expression)


@pytest.mark.slow
@settings(max_examples=200)
@given(graph_and_claim(cycles=True, max_evidence=6), st.data())
def test_surviving_and_relevance_queries(case, data):
    structure, claim = case
    expected = brute_force_minimal_justifications(structure, claim)
    enumerator = JustificationEnumerator.for_claim(structure, claim)
    items = sorted(structure.evidence)
    without = data.draw(st.frozensets(st.sampled_from(items)))
    survivor = enumerator.surviving(without)
    avoiding = {s for s in expected if not s & without}
    if avoiding:
        assert survivor in avoiding
    else:
        assert survivor is None
    relevant = frozenset().union(*expected) if expected else frozenset()
    for e in items:
        assert enumerator.is_relevant(e) == (e in relevant)


def test_absorbed_intermediate_labels_stay_cheap():
    # root = y OR (y AND X), X with 2^10 minimal justifications: the answer is just {y}.
    evidence = ["y"] + [f"x{i}{side}" for i in range(10) for side in "ab"]
    claims = [f"k{i}" for i in range(10)] + ["X", "root"]
    justifications = [(f"k{i}", [f"x{i}a"]) for i in range(10)] + [
        (f"k{i}", [f"x{i}b"]) for i in range(10)
    ]
    justifications += [("X", [f"k{i}" for i in range(10)]), ("root", ["y"]), ("root", ["y", "X"])]
    structure = SupportStructure.build(evidence, claims, justifications)
    assert minimal_justifications(structure, "root", method="sat") == {frozenset({"y"})}
    assert len(minimal_justifications(structure, "X", method="sat")) == 1024
    # the label algebra gives up within its budget and the hybrid falls back to SAT
    assert minimal_justifications(structure, "root", method="auto", label_budget=64) == {
        frozenset({"y"})
    }
