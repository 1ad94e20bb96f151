"""Memory graphs: the checker's verdicts against the exhaustive comparison of the rules."""

from __future__ import annotations

from itertools import combinations, permutations
from math import comb

import pytest
from hypothesis import given, settings

from enumerations import mutants
from enumerations.executor import start_executor
from enumerations.graphs import (
    GraphFamily,
    _compare,
    brute_force,
    build,
    graph_shard,
    iso_classes,
    run_graphs,
)
from theory.model.structure import SupportStructure
from theory.safety.check import ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE, check_structure
from theory.testing import strategies as jst


def test_small_family_agrees_with_the_checker():
    family = GraphFamily(2, 2, 3)
    with start_executor() as executor:
        tally = run_graphs(family, executor)
    K = len(family.candidates())
    assert K == 2 * 2**3  # each claim: any subset of the three other nodes
    assert tally.graphs == sum(comb(K, m) for m in range(4))
    assert tally.verdicts_agree and tally.disagreements == 0
    assert tally.claims == 2 * tally.classes
    assert tally.active_claims == tally.safe_claims + tally.unsafe_claims
    assert tally.alternative_support > 0 and tally.redundant_influence > 0
    assert tally.cyclic_graphs > 0


def _python_classes(family: GraphFamily) -> int:
    """Isomorphism classes by a plain canonical form (no numpy), for small families."""
    candidates = family.candidates()
    E, C = family.evidence, family.claims
    seen = set()
    from itertools import combinations

    for m in range(family.max_justifications + 1):
        for chosen in combinations(candidates, m):
            forms = []
            for pe in permutations(range(E)):
                for pc in permutations(range(C)):
                    node = list(pe) + [E + x for x in pc]
                    forms.append(
                        tuple(
                            sorted(
                                (
                                    node[own],
                                    sum(1 << node[i] for i in range(E + C) if mask >> i & 1),
                                )
                                for own, mask in chosen
                            )
                        )
                    )
            seen.add(min(forms))
    return len(seen)


@pytest.mark.parametrize(
    "family",
    [
        GraphFamily(2, 2, 2),
        GraphFamily(1, 2, 3),
        GraphFamily(3, 1, 2),
        GraphFamily(1, 1, 0),
        GraphFamily(0, 2, 2),
    ],
)
def test_isomorphism_classes(family):
    reps, sizes, labelled = iso_classes(family)
    assert int(sizes.sum()) == labelled == family.labelled_count()
    assert len(reps) == _python_classes(family)


def test_redundant_and_alternative_examples_are_counted():
    # c1 <- e1; c1 <- e1, e2: unique minimal {e1}, but auditing e2 retires c1 under influence
    redundant = SupportStructure.build(["e1", "e2"], ["c1"], [("c1", ["e1"]), ("c1", ["e1", "e2"])])
    truth = brute_force(redundant)["c1"]
    assert not truth.safe and truth.witnesses == {"e2": REDUNDANT_INFLUENCE}
    # c1 <- e1; c1 <- c2; c2 <- e2: two minimal justifications through a claim
    alternative = SupportStructure.build(
        ["e1", "e2"], ["c1", "c2"], [("c1", ["e1"]), ("c1", ["c2"]), ("c2", ["e2"])]
    )
    truth = brute_force(alternative)["c1"]
    assert truth.witnesses == {"e1": ALTERNATIVE_SUPPORT, "e2": ALTERNATIVE_SUPPORT}
    # a support loop is not an alternative: c1 <- e1; c1 <- c2; c2 <- c1
    loop = SupportStructure.build(
        ["e1"], ["c1", "c2"], [("c1", ["e1"]), ("c1", ["c2"]), ("c2", ["c1"])]
    )
    truth = brute_force(loop)
    assert truth["c1"].safe and truth["c2"].safe
    for structure in (redundant, alternative, loop):
        assert _compare(structure, check_structure(structure), brute_force(structure)) == []


@pytest.mark.parametrize(
    "mutant", [mutants.loop_keeping_exact, mutants.forgetful_exact, mutants.unpropagated_exact]
)
def test_wrong_exact_rule_is_reported(mutant):
    family = GraphFamily(2, 2, 3)
    reps, sizes, _ = iso_classes(family)
    tally = graph_shard(family, reps.tolist(), sizes.tolist(), exact=mutant)
    assert not tally.verdicts_agree and tally.examples
    if mutant is mutants.loop_keeping_exact:
        # only support loops expose it: every reported graph has one
        assert all("c2 <- c1" in e or "c1 <- c2" in e for e in tally.examples)


@pytest.mark.slow
@settings(max_examples=60)
@given(jst.support_structures(max_evidence=4, max_claims=4, cycles=True))
def test_checker_equals_brute_force_on_random_graphs(structure):
    assert _compare(structure, check_structure(structure), brute_force(structure)) == []


@pytest.mark.slow
def test_graphs_on_dask():
    distributed = pytest.importorskip("dask.distributed")
    family = GraphFamily(2, 1, 3)
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as client:
        with start_executor("dask", 2, client=client) as executor:
            remote = run_graphs(family, executor, shard_size=5)
    with start_executor() as executor:
        local = run_graphs(family, executor)
    timing = {"seconds": 0, "cpu_seconds": 0, "classes_seconds": 0}
    assert remote.to_dict() | timing == local.to_dict() | timing
    assert remote.verdicts_agree


@pytest.mark.slow
def test_jtms_check_command_agrees_on_enumerated_graphs(tmp_path, capsys):
    """The literal `jtms check GRAPH --json` on enumerated graphs (every class of a small
    family, cycles included) against the exhaustive comparison of the rules."""
    import json

    from jtms.cli import main
    from theory.io.graphfile import save_graph

    family = GraphFamily(2, 2, 2)
    reps, _, _ = iso_classes(family)
    candidates = family.candidates()
    for k, row in enumerate(reps.tolist()):
        structure = build(family, row, candidates)
        path = tmp_path / f"g{k}.json"
        save_graph(structure, path)
        code = main(["check", str(path), "--json"])
        report = json.loads(capsys.readouterr().out)
        truth = brute_force(structure)
        verdicts = {c["id"]: c["influence_safe"] for c in report["claims"]}
        assert verdicts == {c: t.safe for c, t in truth.items()}
        assert code == (0 if all(t.safe for t in truth.values()) else 1)
        for c in report["claims"]:
            # loop_influence: in no minimal justification, as brute force's redundant_influence
            kinds = {
                v["audit"][0]: "redundant_influence" if v["kind"] == "loop_influence" else v["kind"]
                for v in c["violations"]
            }
            assert kinds == truth[c["id"]].witnesses


@pytest.mark.parametrize("shape", [(2, 2, 3), (2, 1, 4), (1, 2, 3)])
def test_shares_per_labelled_graph_equal_a_walk_over_every_labelled_graph(shape):
    # the classes weighted by their sizes against every labelled graph, built and checked
    # one by one (697 graphs for (2, 2, 3))
    family = GraphFamily(*shape)
    with start_executor() as executor:
        tally = run_graphs(family, executor)
    candidates = family.candidates()
    graphs = all_safe = active = safe = 0
    for m in range(family.max_justifications + 1):
        for row in combinations(range(len(candidates)), m):
            truth = brute_force(build(family, row, candidates))
            verdicts = [t.safe for t in truth.values() if t.active]
            graphs += 1
            all_safe += all(verdicts)
            active += len(verdicts)
            safe += sum(verdicts)
    assert tally.counts_verified and tally.graphs == graphs
    assert tally.labelled_all_safe_graphs == all_safe
    assert (tally.labelled_active_claims, tally.labelled_safe_claims) == (active, safe)
    report = tally.to_dict()
    assert report["labelled_share_all_safe"] == round(all_safe / graphs, 6)
    assert report["labelled_share_safe_claims"] == round(safe / active, 6)
    # per class and per labelled graph differ: the classes are not all of one size
    assert tally.safe_claims / tally.active_claims != pytest.approx(safe / active)
