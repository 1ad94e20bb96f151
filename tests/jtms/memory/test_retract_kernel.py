"""The compiled retraction planner (jtms.engine.retract_kernel, the memory's one planner) plans
what the Python oracle (tests/retract_oracle.py) plans: the same retired nodes in the same
order, the same pointers and ranks in the same order, the same region size and visit count,
through audits and reinstatements; and SupportState.plan_retract is that planner, from the
first plan of a fresh process, on flat rows and on rows added one by one."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtms.engine.incremental as incremental
from jtms.engine.incremental import GrowingIndex, SupportState
from jtms.engine.retract_kernel import plan_retract as compiled_plan_retract
from tests.retract_oracle import reference_plan
from theory.model.structure import SupportStructure
from theory.testing import strategies as jst


def _compiled(state: SupportState, roots: tuple[int, ...]) -> incremental.Plan:
    rows = state.index.flat_rows()
    assert rows is not None, "GrowingIndex.of gives flat arrays"
    retired, claims, pointers, ranks, region, visited = compiled_plan_retract(
        roots, state.active, state.support, state.rank, state.pointer,
        state.index.is_evidence, *rows,
    )  # fmt: skip
    return incremental.Plan(
        blocked=roots,
        region=region,
        visited=visited,
        deactivated=retired,
        supports=incremental.PointerMap(claims, pointers),
        ranks=incremental.PointerMap(claims, ranks),
    )


def _same_plan(got: incremental.Plan, expected: incremental.Plan) -> None:
    assert got == expected
    # the orders too: the retired nodes as they went out, the pointers as they were made
    assert list(got.supports.items()) == list(expected.supports.items())
    assert list(got.ranks.items()) == list(expected.ranks.items())


def _run(state: SupportState, steps: list[tuple[str, list[int]]]) -> int:
    """Audit and reinstate ``steps`` on ``state``, comparing each audit's compiled plan with
    the Python planner's; the number of audits compared."""
    open_audits: list[tuple[int, ...]] = []
    compared = 0
    for kind, nodes in steps:
        if kind == "reinstate" and open_audits:
            plan = state.plan_extend(unblock=open_audits.pop())
        else:
            roots = tuple(dict.fromkeys(nodes))
            plan = reference_plan(state, roots)
            _same_plan(_compiled(state, roots), plan)
            compared += 1
            open_audits.append(roots)
        state.apply(plan)
        assert state.verify() == []
    return compared


def _random_steps(
    state: SupportState, rng: random.Random, count: int, most: int
) -> list[tuple[str, list[int]]]:
    """``count`` steps: reinstatements (three in ten) and audits of 1 to ``most`` random
    nodes of ``state``."""
    size = state.index.size
    return [
        ("reinstate", [])
        if rng.random() < 0.3
        else ("audit", rng.sample(range(size), min(size, rng.randint(1, most))))
        for _ in range(count)
    ]


@pytest.mark.slow
@settings(max_examples=400)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=14), st.data())
def test_the_compiled_plan_is_the_python_plan(structure, data):
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    steps = []
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        if data.draw(st.booleans(), label="reinstate"):
            steps.append(("reinstate", []))
        else:
            roots = data.draw(jst.audits(structure, min_size=1), label="roots")
            steps.append(("audit", index.numbers(roots)))
    _run(state, steps)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 11])
def test_the_compiled_plan_is_the_python_plan_on_a_memory_with_loops(seed):
    """A generated memory of 3,000 claims with back-edges (support loops, regions over
    several ranks, claims that switch and claims re-derived), audits of 1 to 60 nodes,
    evidence and claims, some reinstated."""
    from benchmarks.generate import memory

    structure = memory(3000, seed=seed, back_edges=0.1)
    state = SupportState(GrowingIndex.of(structure))
    assert _run(state, _random_steps(state, random.Random(seed), 40, 60)) >= 20


def test_a_switch_waits_for_the_next_rank():
    """a <- e0 | e1, b <- e0 | a, c <- b, auditing e0: a switches to e1, b may not rest on a
    in the same rank, so b goes out with c and both are re-derived (b on a)."""
    structure = SupportStructure.build(
        ["e0", "e1"],
        ["a", "b", "c"],
        [("a", ["e0"]), ("a", ["e1"]), ("b", ["e0"]), ("b", ["a"]), ("c", ["b"])],
    )
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    roots = tuple(index.numbers(["e0"]))
    plan = _compiled(state, roots)
    _same_plan(plan, reference_plan(state, roots))
    assert index.names(plan.deactivated) == {"e0"}
    assert index.names(plan.rederived) == {"a", "b", "c"}
    assert (plan.region, plan.visited) == (4, 4)


def test_plan_retract_is_the_compiled_planner_from_the_first_plan():
    """SupportState.plan_retract answers from the compiled planner (its plan is the oracle's)
    in the first plan of a process, with no switch after a time: a fresh process that plans
    once has loaded jtms.engine.retract_kernel, as a compiled extension, and never numba."""
    import subprocess
    import sys
    import textwrap

    from benchmarks.generate import memory

    state = SupportState(GrowingIndex.of(memory(500, seed=5, back_edges=0.1)))
    roots = tuple(state.index.numbers([f"e{i}" for i in range(0, 60, 3)]))
    _same_plan(state.plan_retract(roots), reference_plan(state, roots))
    script = textwrap.dedent(
        """
        import sys
        from jtms.engine.incremental import GrowingIndex, SupportState
        from theory.model.structure import SupportStructure

        structure = SupportStructure.build(
            ["e0", "e1"], ["a", "b"], [("a", ["e0"]), ("a", ["e1"]), ("b", ["a"])]
        )
        state = SupportState(GrowingIndex.of(structure))
        plan = state.plan_retract(tuple(state.index.numbers(["e0"])))
        kernel = sys.modules["jtms.engine.retract_kernel"]
        print(kernel.__file__.endswith(".so"), "numba" in sys.modules, sorted(plan.rederived))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "[2]"]  # a switches, b keeps its pointer


def test_a_rederived_claim_takes_its_justification_of_least_rank():
    """a <- e0 | e1, b <- a, c <- e0 | b | a; auditing e0: a switches to e1 (rank 1), c goes
    out (its others rest on the region) and is re-derived. Of its two complete
    justifications, c <- b would rank 3 (b keeps rank 2) and c <- a ranks 2: the pointer is
    the least rank's, not the first complete one's."""
    structure = SupportStructure.build(
        ["e0", "e1"],
        ["a", "b", "c"],
        [
            ("a", ["e0"]),
            ("a", ["e1"]),
            ("b", ["a"]),
            ("c", ["e0"]),
            ("c", ["b"]),
            ("c", ["a"]),
        ],
    )
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    c = index.number["c"]
    on_b, on_a = (j for j in index.justs_of[c] if index.just_antecedents[j] != (0,))
    if index.just_antecedents[on_b] == (index.number["a"],):
        on_a, on_b = on_b, on_a
    roots = tuple(index.numbers(["e0"]))
    plan = _compiled(state, roots)
    _same_plan(plan, reference_plan(state, roots))
    assert (plan.supports[c], plan.ranks[c]) == (on_a, 2)


@pytest.mark.parametrize(
    "family",
    ["back_edges", "dense", "pairs", "nested", "cycles", "grid", "hubs", "wide", "deep_chain"],
)
def test_the_compiled_plan_is_the_python_plan_on_the_loop_families(family):
    """Shapes the planner was not written for (benchmarks.loop_families: one big component,
    nested components, long cycles, grids, hubs, deep chains): two members each, 25 steps of
    audits (1 to 8 random nodes) and reinstatements."""
    from benchmarks.loop_families import FAMILIES, HELD_OUT

    make = FAMILIES.get(family) or HELD_OUT[family]
    for seed in (101, 202):
        structure = make(seed)[0]
        state = SupportState(GrowingIndex.of(structure))
        _run(state, _random_steps(state, random.Random(seed), 25, 8))


@pytest.mark.slow
@settings(max_examples=300)
@given(
    st.lists(st.lists(st.integers(0, 50), max_size=4), max_size=8),
    st.booleans(),
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 50)) | st.just(None),
        max_size=20,
    ),
)
def test_compacting_an_adjacency_keeps_every_row(base_rows, as_arrays, additions):
    """Adjacency.compact folds items added one by one (to base nodes, and to nodes appended
    after the base) into flat int32 rows: every row reads the same, in the same order, rows()
    gives them flat, and adding afterwards still works."""
    from array import array

    from jtms.engine.incremental import Adjacency

    offsets, flat = [0], []
    for row in base_rows:
        flat += row
        offsets.append(len(flat))
    adjacency = (
        Adjacency(array("i", offsets), array("i", flat)) if as_arrays else Adjacency(offsets, flat)
    )
    for addition in additions:
        if addition is None:
            adjacency.add_nodes(1)
        elif len(adjacency):
            adjacency.add(addition[0] % len(adjacency), addition[1])
    expected = [list(adjacency[n]) for n in range(len(adjacency))]
    adjacency.compact()
    assert [list(adjacency[n]) for n in range(len(adjacency))] == expected
    rows = adjacency.rows()
    assert rows is not None and all(isinstance(r, array) for r in rows)
    assert not adjacency.loose()
    if len(adjacency):
        adjacency.add(0, 99)
        adjacency.add_nodes(1)
        adjacency.add(len(adjacency) - 1, 7)
        last = len(adjacency) - 1
        assert list(adjacency[0]) == [*expected[0], 99] and list(adjacency[last]) == [7]


def test_a_memory_that_gains_claims_plans_on_flat_rows_again(tmp_path):
    """An open memory that adds claims holds them in per-node lists, which the compiled
    planner does not read: the audit after an addition compacts the index first, and every
    state equals a reopened one's."""
    from benchmarks.generate import memory as generated
    from jtms.memory.memory import Memory
    from theory.io.graphfile import graph_to_dict

    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(graph_to_dict(generated(2000, seed=4, back_edges=0.1)))
        memory.checkpoint()
    with Memory.open(path) as memory:
        memory.active_ids()
        for k in range(4):
            memory.add_evidence(f"new_e{k}")
            memory.add_claim(f"new_c{k}", [[f"new_e{k}", "e3"], ["e4"]])
            assert memory._loaded.index.loose()
            result = memory.audit([f"e{k + 3}", f"new_e{k}"], reason="r")
            index = memory._loaded.index
            assert not index.loose() and index.flat_rows() is not None
            with Memory.open(path) as other:
                assert set(other.active_ids()) == set(memory.active_ids())
            memory.reinstate(result.audit_id)
        assert memory.integrity_problems() == []
