"""The compiled completion of a cone: every least fixpoint holding the root is (the
evidence and claim part of) one of its models, and the one search over it finds exactly
the minimal justifications."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from pysat.solvers import Solver

from tests.claim_cases import structure_and_claim
from theory import SupportStructure
from theory.model.index import index_of
from theory.semantics.fixpoint import active_state
from theory.solver.cone_cnf import cone_cnf
from theory.solver.cone_kernel import ConeOracle
from theory.solver.justifications import search
from theory.testing.reference import brute_force_minimal_justifications


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(max_evidence=6))
def test_every_founded_model_satisfies_the_clauses(case):
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    cnf = cone_cnf(oracle)
    nodes = [index.ids[n] for n in oracle.nodes.tolist()]
    evidence = [index.ids[n] for n in oracle.evidence.tolist()]
    with Solver(name="cadical195", bootstrap_with=cnf.clauses()) as solver:
        for size in range(len(evidence) + 1):
            for chosen in combinations(evidence, size):
                fixpoint = active_state(structure, evidence=frozenset(chosen))
                if claim not in fixpoint:
                    continue
                assumptions = [
                    int(cnf.holds[x]) if name in fixpoint else -int(cnf.holds[x])
                    for x, name in enumerate(nodes)
                ]
                assert solver.solve(assumptions=assumptions + [cnf.root]), (
                    chosen,
                    sorted(fixpoint),
                )


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(max_evidence=8))
def test_search_over_it_equals_brute_force(case):
    structure, claim = case
    index = index_of(structure)
    assert search(index, index.number[claim]) == brute_force_minimal_justifications(
        structure, claim
    )


def test_distributed_claims_keep_every_alternative():
    """root <- a, b with a <- p | q and b <- r | (s, t): four clauses stand for root's
    completion without body variables, and all four justifications are found."""
    structure = SupportStructure.build(
        ["p", "q", "r", "s", "t"],
        ["a", "b", "root"],
        [("a", ["p"]), ("a", ["q"]), ("b", ["r"]), ("b", ["s", "t"]), ("root", ["a", "b"])],
    )
    index = index_of(structure)
    cnf = cone_cnf(ConeOracle(index, index.number["root"]))
    assert cnf.variables == 5 + 3  # no body variables
    assert search(index, index.number["root"]) == brute_force_minimal_justifications(
        structure, "root"
    )
