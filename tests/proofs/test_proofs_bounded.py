"""Bounded proofs (n <= 6, both solvers), the encoding against the Dedekind numbers and
against the project's revision rules, symmetry breaking, and the mutants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from proofs.bounded import solve
from proofs.cnf_encoding import Builder, encode, monotone_definitions
from proofs.countermodel import minimal_points, structure_of, witness
from proofs.statements import MUTANTS, PROVED
from proofs.symmetry import lex_leader

DEDEKIND = {0: 2, 1: 3, 2: 6, 3: 20, 4: 168, 5: 7581, 6: 7828354}


def count_models(clauses: list[list[int]], assumptions: list[int] = ()) -> int:
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        return sum(1 for _ in solver.enum_models(assumptions=list(assumptions)))


@pytest.mark.parametrize("n", [*range(1, 5), pytest.param(5, marks=pytest.mark.slow)])
def test_monotone_definitions_count_the_dedekind_numbers(n):
    # every auxiliary is a full Tseitin definition, so models = truth tables = monotone functions
    assert count_models(monotone_definitions(n).clauses) == DEDEKIND[n]


@pytest.mark.parametrize("n", range(1, 5))
def test_counts_agree_with_the_enumeration(n):
    """Active claims: D(n) - 1 functions; unique minimal: 2^n; influence = exact: 2^n."""
    e = monotone_definitions(n)
    h = e.handles
    assert count_models(e.clauses, [h["active"]]) == DEDEKIND[n] - 1
    assert count_models(e.clauses, [h["active"], h["unique"]]) == 2**n
    assert count_models(e.clauses, [h["active"], h["agree"]]) == 2**n
    assert count_models(e.clauses, [h["active"], h["agree"], -h["unique"]]) == 0


def brute_force_monotone(n: int) -> list[list[bool]]:
    size = 1 << n
    tables = ([bool(code >> x & 1) for x in range(size)] for code in range(1 << size))
    return [
        t for t in tables if all(not t[x] or t[x | 1 << i] for x in range(size) for i in range(n))
    ]


def test_brute_force_counts_match_dedekind():  # the oracle the two tests above lean on
    assert [len(brute_force_monotone(n)) for n in range(4)] == [2, 3, 6, 20]


families = st.integers(1, 5).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, (1 << n) - 1), min_size=1, max_size=5))
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(families)
def test_encoding_matches_the_revision_rules(case):
    """Fix f (the upward closure of a random family) and read unique/agree/U off the CNF;
    they must equal what theory.semantics.revision computes on the corresponding support structure."""
    n, family = case
    table = [any(x & s == s for s in family) for x in range(1 << n)]
    e = monotone_definitions(n)
    assumptions = [(x + 1) if table[x] else -(x + 1) for x in range(1 << n)]
    with Solver(name="cadical195", bootstrap_with=e.clauses) as solver:
        assert solver.solve(assumptions=assumptions)
        model = set(solver.get_model())
    structure = structure_of(table, n)
    points = minimal_points(table, n)
    assert (e.handles["unique"] in model) == (len(points) == 1)
    assert (e.handles["agree"] in model) == (witness(structure) is None)
    essential = {i for x in points for i in range(n) if x >> i & 1}
    assert {i for i in range(n) if e.handles[f"u{i}"] in model} == essential


@pytest.mark.parametrize("solver", ["cadical", "z3"])
@pytest.mark.parametrize("name", [s.name for s in PROVED])
@pytest.mark.parametrize("n", range(1, 7))
def test_bounded_statements_are_unsat(name, n, solver):
    result = solve(name, n, solver)
    assert result.result == "UNSAT" and result.ok


@pytest.mark.parametrize("solver", ["cadical", "z3"])
@pytest.mark.parametrize("n", range(1, 7))
def test_boundary_with_symmetry_breaking_is_unsat(n, solver):
    assert solve("boundary", n, solver, symmetry=True).result == "UNSAT"


@pytest.mark.slow
@pytest.mark.parametrize("symmetry", [False, True])
@pytest.mark.parametrize("solver", ["cadical", "z3"])
@pytest.mark.parametrize("name", [s.name for s in MUTANTS])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_mutant_is_sat_with_a_decoded_countermodel(name, n, solver, symmetry):
    result = solve(name, n, solver, symmetry=symmetry)
    assert result.result == "SAT" and result.ok and result.mutant
    model = result.countermodel
    # the witness was recomputed with theory.semantics.revision on the decoded support structure
    assert model.witness_audit is not None
    assert {j["claim"] for j in model.graph["justifications"]} == {"c"}
    if name.startswith("boundary"):
        assert len(model.minimal_justifications) == 2  # at most two, but not exactly one
    if name.startswith("refined"):
        assert len(model.minimal_justifications) == 1
        assert set(model.ancestors) > set().union(*map(set, model.minimal_justifications))


def _swap(x: int, i: int, j: int) -> int:
    return x if (x >> i & 1) == (x >> j & 1) else x ^ (1 << i) ^ (1 << j)


@pytest.mark.parametrize("n", [2, 3])
def test_lex_leader_keeps_a_member_of_every_orbit(n):
    """Symmetry breaking is sound only if every permutation orbit of monotone functions
    keeps at least one member; it is useful only if it removes some."""
    size = 1 << n
    b = Builder(reserved=size)
    for x in range(size):
        for i in range(n):
            if not x >> i & 1:
                b.add([-(x + 1), (x | 1 << i) + 1])
    lex_leader(b, n, [x + 1 for x in range(size)])
    with Solver(name="minisat22", bootstrap_with=b.clauses) as solver:
        kept = {tuple(lit > 0 for lit in m[:size]) for m in solver.enum_models()}
    monotone = {tuple(t) for t in brute_force_monotone(n)}
    assert kept <= monotone and len(kept) < len(monotone)
    from itertools import permutations

    for table in monotone:
        orbit = set()
        for p in permutations(range(n)):

            def image(x):
                return sum(1 << p[i] for i in range(n) if x >> i & 1)

            orbit.add(tuple(table[image(x)] for x in range(size)))
        assert orbit & kept, table


def test_encoding_rejects_bad_input():
    with pytest.raises(ValueError):
        encode("boundary", 0)
    with pytest.raises(ValueError):
        encode("no_such_statement", 3)
