"""The compiled CDCL search of the one-search enumeration, against brute force and against
the same search over CaDiCaL (python-sat)."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.generate import layered_cyclic, nested_loops
from tests.claim_cases import structure_and_claim
from theory import SupportStructure
from theory.model.index import index_of
from theory.solver.cdcl import CONFLICTS, DECISIONS, MODELS, REDUCE_FROM, STOPPED, search
from theory.solver.cone_cnf import cone_cnf
from theory.solver.cone_kernel import ConeOracle
from theory.solver.exchange import Exchange
from theory.solver.justifications import _compiled_search
from theory.testing.reference import brute_force_minimal_justifications


def named(index, exchange):
    return exchange.named(index.ids)


def _prepared(case):
    """(index, brute-force sets, oracle) of a drawn claim, or None for a premise."""
    structure, claim = case
    index = index_of(structure)
    expected = brute_force_minimal_justifications(structure, claim)
    if expected == {frozenset()}:
        return None
    return index, expected, ConeOracle(index, index.number[claim])


@pytest.mark.slow
@settings(max_examples=400)
@given(
    structure_and_claim(max_evidence=8),
    st.integers(0, 64),
    st.integers(1, 16),
    st.sampled_from([2, 16, REDUCE_FROM]),
)
def test_it_finds_exactly_the_minimal_justifications(case, attempts, patience, reduce_from):
    """Whatever the exchange step leaves to the solver (attempts 0: every justification
    is a model of its own) and however often the learnt clauses are cleaned up, the
    search ends with exactly the brute-force sets."""
    prepared = _prepared(case)
    if prepared is None:
        return  # a premise: the caller answers without a search
    index, expected, oracle = prepared
    exchange = Exchange(oracle, attempts=attempts, patience=patience)
    counts = search(cone_cnf(oracle), exchange, reduce_from=reduce_from)
    assert named(index, exchange) == expected
    assert counts[MODELS] >= (len(expected) if attempts == 0 else min(len(expected), 1))


@pytest.mark.slow
@settings(max_examples=150)
@given(structure_and_claim(max_evidence=12, max_claims=12))
def test_it_agrees_with_the_search_over_cadical(case):
    structure, claim = case
    index = index_of(structure)
    target = index.number[claim]
    assert _compiled_search(index, target) == _compiled_search(index, target, "cadical195")


@pytest.mark.slow
@pytest.mark.parametrize(
    "structure, claim",
    [
        (layered_cyclic(36, 8, 12, 0, back_edges=0.05), "root"),
        (layered_cyclic(36, 8, 12, 1, back_edges=0.1), "root"),
        (nested_loops(2, 6), "c0"),
        # a step's unit clause already true at level 0 by the time it is attached (assigning
        # it again put a variable on the trail twice and wrote past its end)
        (layered_cyclic(6, 3, 6, 640348, back_edges=0.3), "root"),
    ],
    ids=["layered0", "layered1", "nested", "unit-true-at-level-0"],
)
def test_benchmark_shapes_agree_with_cadical(structure, claim):
    index = index_of(structure)
    stats: dict[str, int] = {}
    found = _compiled_search(index, index.number[claim], stats=stats)
    assert found == _compiled_search(index, index.number[claim], "cadical195")
    assert stats["models"] >= 1 and stats["decisions"] >= 0 and stats["conflicts"] >= 0


@pytest.mark.slow
@settings(max_examples=300)
@given(
    st.integers(6, 16),
    st.integers(3, 6),
    st.integers(4, 8),
    st.integers(0, 10**6),
    st.sampled_from([0.1, 0.15, 0.2, 0.3]),
    st.sampled_from([2, 16, REDUCE_FROM]),
)
# a clean-up that deleted the reasons of the trail lost justifications here (attempts 0)
@example(evidence=14, layers=6, width=8, seed=5, back_edges=0.2, reduce_from=2)
def test_small_layered_graphs_agree_with_cadical(
    evidence, layers, width, seed, back_edges, reduce_from
):
    """Layered graphs with back-edges, the family the benchmark times, small: more of
    them carry the loop formulas, unit clauses and conflicts that random graphs rarely
    make (a clean-up after every 2 or 16 learnt clauses reaches them)."""
    index = index_of(layered_cyclic(evidence, layers, width, seed, back_edges=back_edges))
    root = index.number["root"]
    oracle = ConeOracle(index, root)
    cnf = cone_cnf(oracle)
    expected = _compiled_search(index, root, "cadical195")
    for attempts in (0, 256):  # 0: every justification a model of the solver's own
        exchange = Exchange(oracle, attempts=attempts)
        search(cnf, exchange, reduce_from=reduce_from)
        assert named(index, exchange) == expected


def test_a_claim_held_up_only_by_its_loop_has_no_justification():
    """a <- b, b <- a, a <- e, f: b's only support from outside the loop is {e, f}; the
    loop alone (a model holding a and b with no evidence) never counts."""
    structure = SupportStructure.build(
        ["e", "f"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("a", ["e", "f"])]
    )
    index = index_of(structure)
    oracle = ConeOracle(index, index.number["b"])
    exchange = Exchange(oracle, attempts=0)
    search(cone_cnf(oracle), exchange)
    assert named(index, exchange) == {frozenset({"e", "f"})}


def test_a_claim_with_no_support_has_none():
    structure = SupportStructure.build(["e"], ["a", "b"], [("a", ["b"]), ("b", ["a"])])
    index = index_of(structure)
    oracle = ConeOracle(index, index.number["a"])
    exchange = Exchange(oracle)
    counts = search(cone_cnf(oracle), exchange)
    assert exchange.found() == [] and counts[MODELS] == 0


def test_counts_are_the_search_s_own():
    structure = SupportStructure.build(
        ["p", "q", "r", "s"],
        ["a", "b", "root"],
        [("a", ["p"]), ("a", ["q"]), ("b", ["r"]), ("b", ["s"]), ("root", ["a", "b"])],
    )
    index = index_of(structure)
    oracle = ConeOracle(index, index.number["root"])
    exchange = Exchange(oracle, attempts=0)
    counts = search(cone_cnf(oracle), exchange)
    assert counts.dtype == np.int64 and counts[MODELS] == 4  # no exchange: one model each
    assert counts[DECISIONS] >= 1 and counts[CONFLICTS] >= 0


@pytest.mark.slow
@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.integers(-1, 1), st.integers(0, 4)), min_size=1, max_size=40),
    st.integers(1, 10),
)
def test_the_candidates_of_a_decision_are_the_best_free_variables_in_order(variables, k):
    """The scan behind each decision keeps the k free variables of most activity, best
    first and the lower variable first among equals (activities drawn from a few values,
    so ties are common): the order of a scan for the single best, which the search's
    decisions depend on."""
    from theory.solver.cdcl import _candidates

    V = len(variables)
    lv = np.zeros(2 * V + 1, dtype=np.int8)
    activity = np.zeros(V + 1, dtype=np.float64)
    for v, (value, score) in enumerate(variables, start=1):
        lv[v + V] = value
        lv[V - v] = -value
        activity[v] = float(score)
    cand = np.empty(k, dtype=np.int64)
    cand_activity = np.empty(k, dtype=np.float64)
    n = _candidates(lv, activity, V, cand, cand_activity)
    expected = sorted(
        (v for v in range(1, V + 1) if lv[v + V] == 0), key=lambda v: (-activity[v], v)
    )[:k]
    assert cand[:n].tolist() == expected
    assert cand_activity[:n].tolist() == [activity[v] for v in expected]


@pytest.mark.slow
@settings(max_examples=200)
@given(structure_and_claim(max_evidence=10, max_claims=10), st.integers(1, 40))
def test_a_run_after_one_out_of_budget_resumes_from_the_sets_found(case, budget):
    """Runs that share an exchange: the first stops at ``budget``; the next starts with its
    sets blocked, so together they find exactly the brute-force sets, each once (the
    resumed run has a model for no set the first found)."""
    structure, claim = case
    index = index_of(structure)
    expected = brute_force_minimal_justifications(structure, claim)
    if expected == {frozenset()}:
        return
    oracle = ConeOracle(index, index.number[claim])
    cnf = cone_cnf(oracle)
    exchange = Exchange(oracle, attempts=0)
    first = search(cnf, exchange, budget=budget)
    before = exchange.count
    rest = search(cnf, exchange)
    assert named(index, exchange) == expected
    assert exchange.count == len(expected)  # no set found twice
    assert rest[MODELS] + before >= len(expected) and first[MODELS] >= before


def test_the_compiled_portfolio_charges_the_ranked_build_before_building(monkeypatch):
    """A cone whose lazy search needs a restart (about 38,000 units) and whose rankings are
    large (about 46,000 clauses): the ranked arm's first turn comes after the lazy arm's
    first run, and it charges the build instead of building, so the lazy arm finishes with
    no ranked encoding built."""
    from benchmarks.loop_families import members
    from benchmarks.peers import clingo_minimal_justifications
    from theory.solver import cone_cnf as cone_cnf_module
    from theory.solver.justifications import _portfolio_search

    pytest.importorskip("clingo")
    structure, _, _ = members("wide", 1, seed=4, scale=2)[0]
    index = index_of(structure)
    builds = []
    original = cone_cnf_module.ranked_cone_cnf

    def counted(*args):
        builds.append(1)
        return original(*args)

    monkeypatch.setattr(cone_cnf_module, "ranked_cone_cnf", counted)
    winner: list[str] = []
    found = _portfolio_search(index, index.number["c15"], winner=winner)
    assert found == clingo_minimal_justifications(structure, "c15")
    assert winner == ["lazy"] and builds == []


@pytest.mark.slow
@settings(max_examples=200)
@given(structure_and_claim(max_evidence=8), st.integers(1, 6), st.sampled_from([0, 64]))
def test_a_limit_stops_the_search_once_that_many_sets_are_found(case, limit, attempts):
    """Stopped at ``limit`` sets: each a minimal justification, at least ``limit`` of them
    (an exchange step may find several at once) unless there are fewer, and then all."""
    prepared = _prepared(case)
    if prepared is None:
        return  # a premise: the caller answers without a search
    index, expected, oracle = prepared
    exchange = Exchange(oracle, attempts=attempts)
    counts = search(cone_cnf(oracle), exchange, limit=limit)
    found = named(index, exchange)
    assert found <= expected
    if len(expected) < limit:
        assert found == expected and not counts[STOPPED]
    else:
        assert len(found) >= limit
    if counts[STOPPED]:  # a later run resumes from what this one found
        search(cone_cnf(oracle), exchange)
        assert named(index, exchange) == expected


@pytest.mark.parametrize("attempts", [0, 64])
def test_a_limit_leaves_most_of_a_large_answer_unfound(attempts):
    """A chain of 12 two-way choices: 4,096 minimal justifications; a limit of 5 stops the
    search after a handful of them."""
    evidence = [f"{k}{i}" for i in range(12) for k in "ef"]
    pairs = [("c0", ["e0"]), ("c0", ["f0"])]
    for i in range(1, 12):
        pairs += [(f"c{i}", [f"c{i - 1}", f"e{i}"]), (f"c{i}", [f"c{i - 1}", f"f{i}"])]
    index = index_of(SupportStructure.build(evidence, [f"c{i}" for i in range(12)], pairs))
    oracle = ConeOracle(index, index.number["c11"])
    exchange = Exchange(oracle, attempts=attempts)
    counts = search(cone_cnf(oracle), exchange, limit=5)
    assert counts[STOPPED] and 5 <= len(named(index, exchange)) < 200
