"""Theorem 2 in first-order z3 over graphs (proofs.graph_general): the proofs are UNSAT and
not vacuous, the mutants SAT with graphs that theory confirms, and the axioms hold in the
standard model of random graphs (the faithfulness the docstring argues)."""

from __future__ import annotations

import random

import pytest
import z3

from proofs.graph_general import (
    GRAPH_GENERAL,
    LOOP_GRAPH,
    GraphVocabulary,
    prove_graph_general,
)
from theory import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import counting, exact

PROVED = [n for n, s in GRAPH_GENERAL.items() if not s.mutant]
MUTANTS = [n for n, s in GRAPH_GENERAL.items() if s.mutant]


@pytest.mark.parametrize("name", PROVED)
def test_proved_and_not_vacuous(name):
    result = prove_graph_general(name, timeout_s=60)
    assert result.result == "UNSAT" and result.ok
    assert result.details["without_goal"].startswith("holds in the standard model")


@pytest.mark.slow
@pytest.mark.parametrize("name", MUTANTS)
def test_mutants_are_sat_and_theory_confirms_their_graph(name):
    result = prove_graph_general(name, timeout_s=60)
    assert result.result == "SAT" and result.ok
    graph, audit, claim = (result.details[k] for k in ("graph", "audit", "claim"))
    nodes = graph["nodes"]
    g = SupportStructure.build(
        [x["id"] for x in nodes if x["kind"] == "evidence"],
        [x["id"] for x in nodes if x["kind"] == "claim"],
        [(j["claim"], j["antecedents"]) for j in graph["justifications"]],
    )
    assert claim in active_state(g)
    if name.endswith("no_loop"):  # unsafe on the audit, though the weakened W has no witness
        assert claim in exact(g, frozenset(audit)) and claim not in counting(g, frozenset(audit))
    else:  # safe on the audit (exact keeps c), though the weakened W has a witness
        assert claim not in exact(g, frozenset(audit))


def _random_graph(rng: random.Random) -> tuple:
    n = rng.randint(2, 4)
    ids = ["c"] + [f"x{i}" for i in range(1, n)]
    evidence = [i for i in ids[1:] if rng.random() < 0.4]
    claims = [i for i in ids if i not in evidence]
    justs = []
    for h in claims:
        for _ in range(rng.randint(0, 2)):
            justs.append((h, sorted(rng.sample(ids, rng.randint(0, min(2, n))))))
    if not justs:
        justs.append(("c", []))
    audit = [i for i in ids if rng.random() < 0.3]
    return evidence, claims, justs, audit


@pytest.mark.slow
def test_axioms_hold_in_the_standard_model_of_random_graphs():
    rng = random.Random(3)
    for _ in range(25):
        graph = _random_graph(rng)
        v = GraphVocabulary()
        # c need not be active in a random graph: the axioms other than "c active"
        axioms = [a for a in v.axioms() if not a.eq(v.s0(v.c))]
        assert v.holds_in_standard(axioms, graph), graph


def test_standard_model_check_can_fail():
    """A false axiom (Counting keeps only what survives exactly) fails on the loop graph,
    and so does the least fixpoint's closure with kept put for alive."""
    v = GraphVocabulary()
    n = v.n
    assert v.holds_in_standard(v.axioms(), LOOP_GRAPH)
    assert not v.holds_in_standard(
        v.axioms() + [z3.ForAll([n], z3.Implies(v.kept(n), v.alive(n)))], LOOP_GRAPH
    )
    assert not v.holds_in_standard(v.lfp(v.kept, v.rank, audited=True), LOOP_GRAPH)
