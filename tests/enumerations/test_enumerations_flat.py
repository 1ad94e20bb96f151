"""Flat universes: counts, the kernel against the straightforward check, seeded mutations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enumerations import mutants
from enumerations.executor import start_executor
from enumerations.flat import (
    active_flags,
    flat_shard,
    influence_survival,
    minimal_points,
    plan_shards,
    shard_count_rows,
    tally_n,
    tally_tables,
)
from enumerations.monotone import DEDEKIND, monotone_tables, pair_block, seven_rows, words
from enumerations.reference import minimal_points_py, monotone_functions_py, reference_tally
from enumerations.runs import run_flat

COMPARED = ("monotone_functions", "active", "unique_minimal", "influence_exact", "mismatches")


def _counts(tally):
    return {key: getattr(tally, key) for key in COMPARED} | {"theorem_holds": tally.theorem_holds}


@pytest.mark.parametrize("n", range(6))
def test_counts_are_dedekind_numbers(n):
    tally = tally_n(n)
    assert tally.monotone_functions == DEDEKIND[n] == len(monotone_tables(n))
    assert len(set(monotone_tables(n).tolist())) == DEDEKIND[n]  # no function twice
    assert tally.active == DEDEKIND[n] - 1  # all but the constant false
    # a flat claim has a unique minimal justification iff it is AND(S): one per subset S
    assert tally.unique_minimal == tally.influence_exact == 2**n
    assert tally.theorem_holds and not tally.counterexamples


@pytest.mark.slow
def test_n6_count():
    tally = tally_n(6)
    assert tally.monotone_functions == 7_828_354
    assert tally.unique_minimal == tally.influence_exact == 64 and tally.theorem_holds


@pytest.mark.parametrize("n", range(5))
def test_kernel_equals_straightforward_check(n):
    assert _counts(tally_n(n)) == _counts(reference_tally(n))


def test_tables_are_the_python_pair_construction():
    for n in range(6):
        assert monotone_tables(n).tolist() == monotone_functions_py(n)


def _words(table: int, n: int) -> tuple:
    return tuple(
        np.array([table >> (64 * w) & (2**64 - 1)], dtype=np.uint64) for w in range(words(n))
    )


def _upward_closure(points: list[int], n: int) -> int:
    return sum(1 << x for x in range(1 << n) if any(p & x == p for p in points))


@pytest.mark.slow
@settings(max_examples=150)
@given(
    st.integers(0, 7).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.integers(0, 2**n - 1), max_size=6))
    )
)
def test_kernel_on_random_functions_including_two_word_tables(case):
    n, points = case
    table = _upward_closure(points, n)
    tables = _words(table, n)
    minimal = minimal_points(tables, n)
    got = sum(int(w[0]) << (64 * i) for i, w in enumerate(minimal))
    expected = minimal_points_py(table, n)
    assert got == sum(1 << p for p in expected)
    union = 0
    for p in expected:
        union |= p
    # influence keeps the claim after auditing E \ X iff X contains every antecedent
    inf = influence_survival(tables, minimal, n)
    inf_int = sum(int(w[0]) << (64 * i) for i, w in enumerate(inf))
    assert inf_int == sum(1 << x for x in range(1 << n) if x & union == union)
    tally = tally_tables(tables, n)
    active = bool(table >> (2**n - 1) & 1)
    assert tally.active == active == bool(active_flags(tables, n)[0])
    assert tally.unique_minimal == (active and len(expected) == 1)
    assert tally.influence_exact == (active and table == inf_int)
    assert tally.theorem_holds


def test_forgetful_rule_is_reported_with_counterexamples():
    bad = tally_n(3, exact=mutants.forgetful_survival)
    assert not bad.theorem_holds
    assert bad.mismatches == 19 - 8  # every claim with two or more minimal justifications
    for c in bad.counterexamples:
        assert len(c.minimal_justifications) >= 2 and len(c.audit) == 1
        assert c.exact_retires and c.influence_retires  # the witness the mutant misses
    # the straightforward check with the structure-level mutant finds the same functions
    slow = reference_tally(3, exact=mutants.forgetful_exact)
    assert _counts(slow) == _counts(bad)
    assert [c.minimal_justifications for c in slow.counterexamples] == [
        c.minimal_justifications for c in bad.counterexamples
    ]


def test_unpropagated_rule_is_reported_on_unique_justifications():
    bad = tally_n(4, exact=mutants.unpropagated_survival)
    assert not bad.theorem_holds
    unique = [c for c in bad.counterexamples if len(c.minimal_justifications) == 1]
    assert unique, "a claim with one justification that the mutant never retires"
    for c in unique:
        assert c.audit and c.influence_retires and not c.exact_retires


@pytest.mark.slow
def test_seven_variable_rows_are_the_pairs_below_g1():
    lower = monotone_tables(6)
    rows = seven_rows()
    for r in (0, 1, 4_000_000, len(lower) - 1):
        fast, slow = rows.row(r), pair_block(lower, 7, r, r + 1)
        assert all(np.array_equal(a, b) for a, b in zip(fast, slow))
    # consecutive rows share their candidate build (same high half b1)
    b1 = rows.high_of(4_000_000)
    first = int(rows.offsets[b1])
    for r in (first, first + 1):
        fast, slow = rows.row(r), pair_block(lower, 7, r, r + 1)
        assert all(np.array_equal(a, b) for a, b in zip(fast, slow))
    top = flat_shard(7, len(lower) - 1, len(lower))  # g1 = true: f = g0 OR x7, every g0
    assert top.monotone_functions == DEDEKIND[6]
    # AND(S) only for g0 = true (S = {}) and g0 = false (S = {e7})
    assert top.theorem_holds and top.unique_minimal == top.influence_exact == 2


@pytest.mark.parametrize("n", [1, 4, 5])
def test_shards_partition_the_work(n):
    shards = plan_shards(n, 7)
    assert shards[0][0] == 0 and shards[-1][1] == shard_count_rows(n)
    assert all(a[1] == b[0] for a, b in zip(shards, shards[1:]))
    total = [flat_shard(n, a, b) for a, b in shards]
    assert sum(t.monotone_functions for t in total) == DEDEKIND[n]


def test_process_pool_equals_serial():
    with start_executor("serial") as serial:
        expected = [_counts(t) for t in run_flat(5, serial)]
    with start_executor("processes", 2) as pool:
        assert [_counts(t) for t in run_flat(5, pool)] == expected


@pytest.mark.slow
def test_dask_engine_on_a_tiny_local_cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as client:
        with start_executor("dask", 2, client=client) as executor:
            results = run_flat(4, executor)
            bad = run_flat(3, executor, min_n=3, exact=mutants.forgetful_survival)
    assert [t.monotone_functions for t in results] == list(DEDEKIND[:5])
    assert all(t.theorem_holds for t in results)
    assert not bad[0].theorem_holds and bad[0].counterexamples


@pytest.mark.slow
def test_n7_shard_covering_a_whole_group_pays_its_build_once():
    rows = seven_rows()
    b1 = int(np.flatnonzero(rows.sizes == 20)[0])  # a small group: 20 rows share b1
    a, b = int(rows.offsets[b1]), int(rows.offsets[b1 + 1])
    whole = flat_shard(7, a, b)
    assert whole.amortized_cpu_seconds == pytest.approx(whole.cpu_seconds)
    assert whole.monotone_functions == sum(len(rows.row(r)[0]) for r in range(a, b))
    single = flat_shard(7, a, a + 1)
    assert single.amortized_cpu_seconds <= single.cpu_seconds


@pytest.mark.slow
def test_shards_in_threads_do_not_share_scratch():
    # Dask runs shards in worker threads; per-thread workspaces keep them independent
    from concurrent.futures import ThreadPoolExecutor

    shards = plan_shards(6, 16)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda ab: flat_shard(6, *ab), shards))
    assert sum(p.monotone_functions for p in parts) == DEDEKIND[6]
    assert all(p.theorem_holds for p in parts)
    assert sum(p.unique_minimal for p in parts) == sum(p.influence_exact for p in parts) == 64
