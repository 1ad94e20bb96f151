"""The loop formulas the search learns with each loop's outside bodies written once (behind a
new variable, ``Cone.loop_cut_shared``) say the same about the cone's variables as the
clause per member (``Cone.loop_cut_arrays``): an assignment of the cone's variables
satisfies every clause of the one exactly when some value of the new variables satisfies
every clause of the other."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from tests.claim_cases import structure_and_claim
from theory.model.index import index_of
from theory.solver.cone_cnf import cone_cnf
from theory.solver.cone_kernel import ConeOracle


def _rows(literals, start):
    rows, bounds = literals.tolist(), start.tolist()
    return [rows[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def _projected_models(clauses, top, cap=64):
    """Up to ``cap`` assignments of variables 1..top that extend to a model of ``clauses``."""
    found = []
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        while len(found) < cap and solver.solve():
            model = [v for v in solver.get_model() if abs(v) <= top]
            model += [-v for v in range(len(model) + 1, top + 1)]  # unmentioned: false
            found.append(model)
            solver.add_clause([-v for v in model])
    return found


def _extends(clauses, assignment):
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        return solver.solve(assumptions=assignment)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(structure_and_claim(max_evidence=5, max_claims=6), st.randoms(use_true_random=False))
def test_shared_loop_cuts_say_what_the_clause_per_member_says(case, rng):
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    cnf = cone_cnf(oracle)
    present = [n for n in oracle.evidence.tolist() if rng.random() < 0.5]
    present = np.array(present, dtype=np.int64)
    direct = _rows(*oracle.kernel.loop_cut_arrays(present, cnf.holds, cnf.body))
    literals, start, top = oracle.kernel.loop_cut_shared(
        present, cnf.holds, cnf.body, cnf.variables
    )
    shared = _rows(literals, start)
    assert top >= cnf.variables
    assert all(abs(x) <= top for clause in shared for x in clause)
    if not direct:
        assert not shared
        return
    for model in _projected_models(direct, cnf.variables):
        assert _extends(shared, model)
    for model in _projected_models(shared, cnf.variables):
        assert _extends(direct, model)
