"""The relevance-budget benchmark runs and reports what the check left open."""

import pytest

from benchmarks.bench_relevance import measure


@pytest.mark.slow
def test_bench_relevance_measures_each_claim_under_each_budget():
    rows = measure(1000, seed=7, back_edges=0.2, checked=["c100"], budgets=[1000, 20000])
    assert [(r["budget"], r["claim"]) for r in rows] == [(1000, "c100"), (20000, "c100")]
    for row in rows:
        assert row["violations"] == sum(row["kinds"].values()) == 166
    small, larger = rows
    assert larger["undecided"] < small["undecided"]  # a larger budget decides more
