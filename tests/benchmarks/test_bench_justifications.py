"""The ``--sweep`` mode of ``benchmarks/bench_justifications.py``: its draw stays inside the
family of the --loops cases, is fixed by the seed, and every graph's sets are compared."""

import pytest

from benchmarks.bench_justifications import run_sweep, sweep_parameters


def test_the_draw_is_the_benchmark_s_family_and_fixed_by_its_seed():
    drawn = sweep_parameters(200, seed=3)
    assert drawn == sweep_parameters(200, seed=3) and drawn != sweep_parameters(200, seed=4)
    for evidence, layers, width, _, back_edges in drawn:
        assert 36 <= evidence <= 48 and 8 <= layers <= 12 and 12 <= width <= 18
        assert 0.05 <= back_edges <= 0.15


@pytest.mark.slow
def test_a_sweep_compares_every_graph_with_clingo():
    rows = run_sweep(2, seed=1, repeats=1)
    assert len(rows) == 2 and all(r["agree"] for r in rows)
    assert all(
        r["default"] > 0 and r["clingo"] > 0 and r["minimal_justifications"] >= 0 for r in rows
    )
    assert [r["case"] for r in rows] == [f"layered_cyclic{p}" for p in sweep_parameters(2, seed=1)]
