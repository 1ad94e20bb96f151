"""Counting-safety is coNP-complete (docs/design.md): a CNF formula is unsatisfiable iff the
claim c of its reduction graph is counting-safe. The test builds the graph for random small
formulas and compares the checker's verdict with satisfiability by brute force, so a checker
that misses witnesses needing a large audit (or finds witnesses that are not) fails it."""

from __future__ import annotations

import itertools
import random

import pytest

from theory import SupportStructure
from theory.safety.counting import counting_verdicts, witness_holds

Clause = tuple[int, ...]  # literals: +i is x_i, -i is not x_i (i >= 1)


def reduction(variables: int, clauses: list[Clause]) -> SupportStructure:
    """Evidence p_i, n_i per variable and z; claims c, q_1..q_k; c <- z; c <- p_i, n_i;
    c <- q_1; q_j <- l, q_{j+1} (q_k <- l, c) for each literal l of clause j."""

    def item(literal: int) -> str:
        return f"p{literal}" if literal > 0 else f"n{-literal}"

    evidence = ["z"] + [f"{s}{i}" for i in range(1, variables + 1) for s in "pn"]
    k = len(clauses)
    claims = ["c"] + [f"q{j}" for j in range(1, k + 1)]
    justifications: list[tuple[str, list[str]]] = [("c", ["z"]), ("c", ["q1"])]
    justifications += [("c", [f"p{i}", f"n{i}"]) for i in range(1, variables + 1)]
    for j, clause in enumerate(clauses, start=1):
        after = "c" if j == k else f"q{j + 1}"
        justifications += [(f"q{j}", [item(literal), after]) for literal in clause]
    return SupportStructure.build(evidence, claims, justifications)


def satisfiable(variables: int, clauses: list[Clause]) -> bool:
    for values in itertools.product((False, True), repeat=variables):
        if all(any(values[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in clauses):
            return True
    return False


def test_two_formulas_by_hand():
    sat = reduction(2, [(1, 2), (-1, 2)])
    unsat = reduction(1, [(1,), (-1,)])
    verdict = counting_verdicts(sat)["c"]
    assert verdict.safe is False
    assert verdict.witness is not None and witness_holds(sat, "c", verdict.witness)
    assert "z" in verdict.witness.audit
    assert counting_verdicts(unsat)["c"].safe is True


@pytest.mark.parametrize("seed", range(25))
def test_counting_safe_iff_the_formula_is_unsatisfiable(seed):
    rng = random.Random(seed)
    variables = rng.randint(1, 3)
    clauses = [
        tuple(rng.choice((1, -1)) * rng.randint(1, variables) for _ in range(rng.randint(1, 3)))
        for _ in range(rng.randint(1, 6))
    ]
    graph = reduction(variables, clauses)
    verdict = counting_verdicts(graph)["c"]
    assert verdict.safe is (not satisfiable(variables, clauses)), clauses
    if verdict.witness is not None:
        assert witness_holds(graph, "c", verdict.witness)
