"""Graph classes generated directly: against the labelled walk, Burnside's count and each other."""

from __future__ import annotations

import json
from itertools import permutations
from math import factorial

import numpy as np
import pytest

from enumerations import burnside
from enumerations.executor import start_executor
from enumerations.graphparts import estimate_cost, load_graph_part, run_graph_part
from enumerations.graphs import (
    GraphFamily,
    GraphTally,
    graph_shard,
    group_maps,
    iso_classes,
    run_graphs,
)
from enumerations.orderly import class_sizes, extend, is_canonical, levels
from enumerations.parts import PartError

SMALL = [
    GraphFamily(2, 2, 3),
    GraphFamily(1, 2, 3),
    GraphFamily(3, 1, 2),
    GraphFamily(0, 2, 2),
    GraphFamily(1, 1, 0),
    GraphFamily(2, 0, 3),
    GraphFamily(2, 2, 4),
    GraphFamily(3, 2, 2),
]


def _canonical(row: list[int], maps: np.ndarray) -> tuple[int, ...]:
    """The least sorted image of a graph over every permutation (plain Python)."""
    return min(tuple(sorted(int(maps[g, x]) for x in row)) for g in range(maps.shape[0]))


def _generated(family: GraphFamily) -> dict[tuple[int, ...], int]:
    maps = group_maps(family)
    G = maps.shape[0]
    return {
        tuple(int(x) for x in row): G // int(a)
        for rows, aut in levels(maps, family.max_justifications)
        for row, a in zip(rows, aut)
    }


@pytest.mark.parametrize("family", SMALL)
def test_generated_classes_are_the_walks_classes_with_the_same_sizes(family):
    maps = group_maps(family)
    K = maps.shape[1]
    reps, sizes, labelled = iso_classes(family)
    walk = {
        _canonical([x for x in row if x < K], maps): int(size)
        for row, size in zip(reps.tolist(), sizes.tolist())
    }
    generated = _generated(family)
    assert generated == walk
    assert sum(generated.values()) == labelled == family.labelled_count()
    assert all(is_canonical(np.array(row, dtype=np.int64), maps) for row in generated)


@pytest.mark.parametrize(
    "family",
    [
        GraphFamily(3, 3, 4),
        pytest.param(GraphFamily(3, 3, 5), marks=pytest.mark.slow),
        pytest.param(GraphFamily(4, 4, 3), marks=pytest.mark.slow),
        GraphFamily(2, 2, 16),
        GraphFamily(4, 3, 3),
    ]
    + SMALL,
)
def test_generated_counts_equal_burnsides(family):
    maps = group_maps(family)
    E, C, J = family.evidence, family.claims, family.max_justifications
    found = levels(maps, J)
    assert [len(rows) for rows, _ in found] == burnside.class_counts_by_size(E, C, J)
    labelled = sum(int((maps.shape[0] // aut).sum()) for _, aut in found)
    assert labelled == family.labelled_count() == burnside.labelled_count(E, C, J)


def test_published_figures():
    # the counts the labelled walk gave (docs/enumerations.md), and the two new families
    assert burnside.class_count(3, 3, 4) == 118_715 and burnside.class_count(2, 2, 16) == 17_536
    assert burnside.class_count(3, 3, 5) == 2_003_563 and burnside.class_count(4, 4, 4) == 7_292_875
    assert burnside.labelled_count(4, 4, 4) == 2_852_247_169


@pytest.mark.parametrize("sizes", [(2, 2), (3, 2), (1, 3), (3, 3)])
def test_burnside_by_cycle_type_equals_burnside_over_every_permutation(sizes):
    E, C = sizes
    J = 3
    total = [0] * (J + 1)
    for pe in permutations(range(E)):
        for pc in permutations(range(C)):
            image = {i: pe[i] for i in range(E)} | {E + k: E + pc[k] for k in range(C)}
            fixed = burnside.fixed_graphs_by_size(burnside.justification_cycles(E, C, image), J)
            total = [t + f for t, f in zip(total, fixed)]
    order = factorial(E) * factorial(C)
    assert all(t % order == 0 for t in total)
    assert [t // order for t in total] == burnside.class_counts_by_size(E, C, J)


def test_partitions_and_class_sizes():
    assert [len(list(burnside.partitions(n))) for n in range(7)] == [1, 1, 2, 3, 5, 7, 11]
    for n in range(6):
        assert sum(burnside.class_size(p) for p in burnside.partitions(n)) == factorial(n)


def _verified(family: GraphFamily, maps: np.ndarray) -> bool:
    """The run's checks on generated classes: sizes from automorphism counts that divide
    the group order, adding up to the labelled count, and Burnside's count per size."""
    found = levels(maps, family.max_justifications)
    try:
        labelled = sum(int(class_sizes(aut, 36).sum()) for _, aut in found)
    except AssertionError:
        return False
    E, C, J = family.evidence, family.claims, family.max_justifications
    return [len(rows) for rows, _ in found] == burnside.class_counts_by_size(
        E, C, J
    ) and labelled == family.labelled_count()


@pytest.mark.parametrize("family", [GraphFamily(3, 3, 2), GraphFamily(3, 3, 3)])
def test_a_canonical_test_that_ignores_one_permutation_is_caught(family):
    """Planted bug: the canonical test skips one of the 36 permutations of S_3 x S_3.
    Whichever it is, the run's checks fail (the exact division of the class sizes matters:
    rounding 36 / 11 automorphisms down to 3 would hide some)."""
    maps = group_maps(family)
    assert _verified(family, maps)
    for skipped in range(maps.shape[0]):
        assert not _verified(family, np.delete(maps, skipped, axis=0)), skipped


def test_class_sizes_refuse_a_count_that_is_not_a_subgroup_order():
    assert class_sizes(np.array([1, 2, 36]), 36).tolist() == [36, 18, 1]
    for broken in ([11], [0], [35]):
        with pytest.raises(AssertionError, match="group order"):
            class_sizes(np.array(broken), 36)


def test_extensions_of_canonical_graphs_are_every_canonical_graph_once():
    """Every canonical 3-justification graph, found by testing every labelled one, is
    the canonical extension of exactly one canonical 2-justification graph."""
    from itertools import combinations

    family = GraphFamily(2, 1, 3)
    maps = group_maps(family)
    parents = levels(maps, 2)[2][0]
    children, _ = extend(parents, maps)
    listed = [tuple(int(x) for x in c) for c in children]
    every = {c for c in combinations(range(maps.shape[1]), 3) if is_canonical(np.array(c), maps)}
    assert len(listed) == len(set(listed)) and set(listed) == every


@pytest.mark.slow
@pytest.mark.parametrize("family", [GraphFamily(2, 2, 3), GraphFamily(3, 2, 2)])
def test_run_from_generated_classes_equals_run_over_the_walk(family):
    with start_executor() as executor:
        generated = run_graphs(family, executor, shard_size=7)
    reps, sizes, _ = iso_classes(family)
    walk = graph_shard(family, reps.tolist(), sizes.tolist())
    for name in GraphTally._COUNTS:
        assert getattr(generated, name) == getattr(walk, name), name
    assert generated.violations == walk.violations
    assert generated.counts_verified and generated.expected_classes == generated.classes


@pytest.mark.slow
def test_part_file_resumes_to_the_same_tally(tmp_path):
    family = GraphFamily(2, 2, 3)
    out = tmp_path / "part.json"
    with start_executor() as executor:
        first = run_graph_part(family, out, executor, shard_classes=10, stop_after=4)
        assert first.shards_done == 4 and not first.complete
        assert not first.tally.counts_verified  # an incomplete run is not verified
        again = run_graph_part(family, out, executor, shard_classes=10)
        whole = run_graphs(family, executor, shard_size=10)
    assert again.complete and again.sessions == 2 and again.tally.counts_verified
    timing = {"seconds": 0, "cpu_seconds": 0, "classes_seconds": 0}
    assert again.tally.to_dict() | timing == whole.to_dict() | timing
    assert load_graph_part(out).to_dict()["graphs"]["classes"] == whole.classes
    with start_executor() as executor, pytest.raises(PartError, match="another run"):
        run_graph_part(GraphFamily(2, 2, 2), out, executor, shard_classes=10)
    out.write_text(json.dumps({"kind": "jtms-enumerate-graphs-part", "version": 1}))
    with pytest.raises(PartError, match="malformed"):
        load_graph_part(out)


def test_cost_estimate_scales_the_sample_to_burnsides_count():
    estimate = estimate_cost(GraphFamily(2, 2, 3), budget_seconds=0.01, min_parents=5)
    assert estimate.classes == 211 and estimate.sampled_parents >= 5
    assert estimate.core_seconds > 0 and estimate.to_dict()["estimated_core_hours"] >= 0
