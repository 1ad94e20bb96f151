"""``benchmarks/bench_search_revisions.py``: the working tree's search loaded afresh runs
side by side with itself, a set that differs is reported, and a revision git cannot show
is a one-line error with exit code 2."""

import types

import pytest

from benchmarks import bench_search_revisions as bench
from benchmarks.bench_justifications import sweep_parameters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tree():
    return bench.load_search(None, "testtree")


def test_the_same_search_agrees_with_itself(tree):
    rows = bench.compare(tree, tree, sweep_parameters(2, seed=1), repeats=1)
    assert [r["case"] for r in rows] == [f"layered_cyclic{p}" for p in sweep_parameters(2, seed=1)]
    assert all(
        r["agree"] and r["old"] > 0 and r["new"] > 0 and r["minimal_justifications"] > 0
        for r in rows
    )
    total = bench.summary(rows)
    assert (
        total["all_agree"]
        and total["graphs"] == 2
        and total["min"] <= total["geometric_mean"] <= total["max"]
    )
    assert total["same_path"] == 2 and all(r["same_path"] for r in rows)


def test_a_search_that_loses_sets_is_reported(tree):
    broken = dict(
        tree, cdcl=types.SimpleNamespace(search=lambda cnf, exchange: None)
    )  # finds nothing
    rows = bench.compare(tree, broken, sweep_parameters(1, seed=1), repeats=1)
    assert (
        not rows[0]["agree"] and not bench.summary(rows)["all_agree"] and not rows[0]["same_path"]
    )


def test_a_revision_git_cannot_show_is_exit_2(capsys):
    assert bench.main(["no-such-revision-xyz", "--sweep", "1", "--repeats", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith(f"error: git cannot show no-such-revision-xyz:theory/{bench.MODULES[0]}.py")
        and "\n" not in err
    )
