"""Theorem 2 bounded (proofs.graph_bounded): the CNF means what it says, checked against
theory's own counting and exact revision on fixed graphs; proofs UNSAT, mutants SAT, the
mutants' graphs confirmed by theory; a DRUP certificate checked by dratify."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from pysat.solvers import Solver

from proofs.graph_bounded import (
    COUNTING,
    certify_counting,
    decode_graph,
    encode_counting,
    fix_graph,
    solve_counting,
)
from theory import SupportStructure
from theory.model.structure import Kind
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import counting, exact


def _structure(graph: dict) -> SupportStructure:
    nodes = graph["nodes"]
    return SupportStructure.build(
        [x["id"] for x in nodes if x["kind"] == "evidence"],
        [x["id"] for x in nodes if x["kind"] == "claim"],
        [(j["claim"], j["antecedents"]) for j in graph["justifications"]],
    )


def _subsets(items: list[str]) -> list[frozenset[str]]:
    return [frozenset(s) for k in range(len(items) + 1) for s in combinations(items, k)]


def brute_force(g: SupportStructure, audits: str) -> tuple[bool, bool]:
    """(c counting-safe, a witness exists) from the definitions, with theory's rules."""
    s0 = active_state(g)
    ids = sorted(g.nodes)
    pool = [
        i
        for i in ids
        if audits == "all" or (g.nodes[i].kind == Kind.EVIDENCE) == (audits == "evidence")
    ]
    safe, witness = True, False
    for audit in _subsets(pool):
        alive = s0 - exact(g, audit)
        kept = s0 - counting(g, audit)
        if "c" in kept and "c" not in alive:
            safe = False
        others = [i for i in ids if i != "c" and i not in audit]
        for rest in _subsets(others):
            loop = rest | {"c"}
            if "c" in audit:
                continue
            if all(
                v in s0
                and v not in alive
                and any(j.antecedents <= loop | alive for j in g.justifications if j.claim == v)
                for v in loop
            ):
                witness = True
    return safe, witness


def _random_graph(rng: random.Random, n: int) -> tuple[set[int], set[tuple[int, int]]]:
    evidence = {v for v in range(1, n) if rng.random() < 0.4}
    justs = {
        (h, mask)
        for h in range(n)
        if h not in evidence
        for mask in range(1 << n)
        if rng.random() < 2.5 / (1 << n)
    }
    return evidence, justs


@pytest.mark.parametrize("audits", ["counting_criterion", "counting_criterion_all"])
def test_encoding_agrees_with_theory_on_random_graphs(audits):
    rng = random.Random(7)
    n = 3
    enc = encode_counting(audits, n, assert_negation=False)
    seen = set()
    with Solver(name="cadical195", bootstrap_with=enc.clauses) as solver:
        for _ in range(60):
            evidence, justs = _random_graph(rng, n)
            assert solver.solve(assumptions=fix_graph(enc, evidence, justs))
            model = set(solver.get_model())
            g = _structure(decode_graph(enc, sorted(model)))
            s0 = active_state(g)
            names = ["c"] + [f"x{v}" for v in range(1, n)]
            for audit in enc.audits:
                ids = frozenset(names[v] for v in range(n) if audit >> v & 1)
                alive = s0 - exact(g, ids)
                kept = s0 - counting(g, ids)
                for v in range(n):
                    assert (enc.alive[audit][v] in model) == (names[v] in alive)
                    assert (enc.kept[audit][v] in model) == (names[v] in kept)
            if "c" in s0:
                expected = brute_force(g, COUNTING[audits].audits)
                got = (enc.safe in model, enc.witness in model)
                assert got == expected
                assert expected[0] != expected[1]  # Theorem 2 on this graph
                seen.add(expected)
    assert seen == {(True, False), (False, True)}  # both sides met


@pytest.mark.parametrize("name", [s for s in COUNTING if COUNTING[s].mutant])
def test_mutants_are_sat_and_their_graph_is_what_theory_says(name):
    result = solve_counting(name, 3)
    assert result.result == "SAT" and result.ok
    g = _structure(result.details["graph"])
    assert "c" in active_state(g)
    safe, witness = brute_force(g, COUNTING[name].audits)
    assert safe != witness  # the real statement holds on it: only the mutant's W is wrong
    if name.endswith("no_loop"):
        assert not safe  # counting keeps c on a loop, which the mutant cannot witness
    else:
        assert safe  # c is safe, yet the mutant's weakened W holds


@pytest.mark.parametrize("name", [s for s in COUNTING if not COUNTING[s].mutant])
def test_statements_unsat_up_to_four_nodes(name):
    for n in range(1, 5):
        result = solve_counting(name, n)
        assert result.result == "UNSAT" and result.ok, (name, n)


def test_certificate_checked_by_dratify():
    result = certify_counting("counting_criterion", 3)
    assert result.result == "UNSAT" and result.certificate == "DRUP checked by dratify"


@pytest.mark.slow
def test_certificate_checked_by_dratify_four_nodes_all_audits():
    result = certify_counting("counting_criterion_all", 4)
    assert result.result == "UNSAT" and result.certificate == "DRUP checked by dratify"


def test_export_writes_the_solved_cnf(tmp_path):
    from proofs.graph_bounded import export_counting

    path = export_counting("counting_criterion~no_loop", 3, tmp_path)
    assert path.name == "counting_criterion--no_loop-n3.cnf"
    clauses = [
        [int(x) for x in line.split()[:-1]]
        for line in path.read_text().splitlines()
        if line and line[0] not in "cp"
    ]
    assert clauses == encode_counting("counting_criterion~no_loop", 3).clauses
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        assert solver.solve()  # the mutant: SAT
