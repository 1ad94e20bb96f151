"""The exchange step of the one-search enumerator, and the one-pass necessity test its
shrink uses, against the fixpoint and brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.claim_cases import structure_and_claim
from theory.model.index import index_of
from theory.semantics.fixpoint import active_state
from theory.solver.cone_kernel import ConeOracle
from theory.solver.exchange import Exchange
from theory.testing.reference import brute_force_minimal_justifications


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(), st.integers(0, 64), st.data())
def test_each_step_gives_new_minimal_justifications(case, attempts, data):
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    exchange = Exchange(oracle, attempts=attempts)
    expected = brute_force_minimal_justifications(structure, claim)
    items = sorted(structure.evidence)
    seen: set[frozenset[str]] = set()

    def holds(chosen):
        return claim in active_state(structure, evidence=frozenset(chosen))

    for _ in range(4):
        present = data.draw(st.sets(st.sampled_from(items)) if items else st.just(set()))
        if any(found <= present for found in seen):
            continue  # the solver never hands over a model containing a found set
        true, result = exchange.step(index.numbers(present))
        assert true == holds(present)
        names = [frozenset(index.ids[n] for n in m) for m in result]
        if true:
            assert names[0] <= present
            for found in names:
                assert found in expected and found not in seen
                seen.add(found)
        else:
            cone = {index.ids[n] for n in oracle.evidence}
            inside = cone - names[0]
            assert not holds(inside) and set(present) & cone <= inside
            assert all(holds(inside | {x}) for x in names[0])
    assert {frozenset(index.ids[n] for n in m) for m in exchange.found()} == seen
    assert exchange.named(index.ids) == seen  # the same sets, named in one pass


def test_exchange_alone_finds_a_product_of_alternatives():
    """root needs a, b and c, each with three alternatives: one step from all the evidence
    exchanges its way to all 27 justifications."""
    evidence = [f"{x}{i}" for x in "abc" for i in range(3)]
    pairs = [(x, [f"{x}{i}"]) for x in "abc" for i in range(3)] + [("root", ["a", "b", "c"])]
    from theory import SupportStructure

    structure = SupportStructure.build(evidence, ["a", "b", "c", "root"], pairs)
    index = index_of(structure)
    exchange = Exchange(ConeOracle(index, index.number["root"]))
    true, found = exchange.step(index.numbers(evidence))
    assert true and len(found) == 27
    assert {
        frozenset(index.ids[n] for n in m) for m in found
    } == brute_force_minimal_justifications(structure, "root")


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(), st.data())
def test_one_pass_necessity_equals_one_fixpoint_per_member(case, data):
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    items = [index.ids[n] for n in oracle.evidence]
    present = data.draw(st.sets(st.sampled_from(items)) if items else st.just(set()))
    mask = np.zeros(len(items), dtype=np.uint8)
    for name in present:
        mask[items.index(name)] = 1
    tried = np.nonzero(mask)[0].astype(np.int64)
    if not tried.shape[0]:
        return
    bits = oracle.kernel.critical_of(mask, tried, tried.shape[0])
    for i, position in enumerate(tried):
        without = set(present) - {items[position]}
        assert bool(bits >> i & 1) == (
            claim not in active_state(structure, evidence=frozenset(without))
        )
