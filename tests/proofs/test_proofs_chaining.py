"""The multi-step general proofs chain mechanically: the steps entail the claim, every
step's hypotheses have an explicit model, every step has a SAT mutant; planted bugs
(a step swapped for a trivially UNSAT query, contradictory hypotheses) are caught."""

from __future__ import annotations

import json

import pytest
import z3

import proofs.general as general
from jtms.cli import main
from proofs.chaining import chain_valid, check_steps, holds_in, one_shot
from proofs.general import STEPS, Step, Vocabulary

NAMES = list(STEPS)


@pytest.mark.parametrize("name", NAMES)
def test_steps_chain_into_the_claim(name):
    assert chain_valid(name)
    # dropping any single step breaks the chain: every step is needed
    for k in range(len(STEPS[name])):
        assert not chain_valid(name, STEPS[name][:k] + STEPS[name][k + 1 :])


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_step_is_unsat_with_satisfiable_hypotheses_and_a_sat_mutant(name):
    for check in check_steps(name, timeout_s=60):
        assert check.ok, check


def test_one_item_also_holds_as_one_query():
    assert one_shot("general:one_item", timeout_s=60)[0] == "UNSAT"


def test_the_explicit_model_checker_evaluates_the_vocabulary():
    v = Vocabulary()
    two = (frozenset({0}), frozenset({1}))
    assert holds_in(
        [v.two_distinct(), z3.Not(v.unique()), v.antichain(), v.singletons()], 2, two, frozenset()
    )
    assert not holds_in([v.unique()], 2, two, frozenset())
    assert holds_in([v.unique(), v.agree()], 2, (frozenset({0, 1}),), frozenset())
    assert not holds_in([v.agree()], 2, two, frozenset())


def test_planted_trivially_unsat_step_is_caught():
    bad = STEPS["general:boundary_only_if"][:2] + (
        Step(
            "agree and not agree",
            ("agree", "!agree"),
            (),
            witness=(2, (frozenset({0}), frozenset({1})), frozenset()),
        ),
    )
    assert not chain_valid("general:boundary_only_if", bad)


@pytest.mark.slow
def test_planted_contradictory_hypotheses_are_caught(monkeypatch):
    original = STEPS["general:boundary_only_if"]
    broken = Step(
        original[2].label,
        ("two_distinct", "!two_distinct"),
        original[2].conclusion,
        witness=original[2].witness,
    )
    monkeypatch.setitem(STEPS, "general:boundary_only_if", original[:2] + (broken,))
    checks = check_steps("general:boundary_only_if", timeout_s=60)
    # z3 still answers UNSAT, but the query has no model without its goal: VACUOUS
    assert checks[2].result == "VACUOUS" and checks[2].hypotheses == "UNSAT" and not checks[2].ok
    assert not chain_valid("general:boundary_only_if")


@pytest.mark.slow
def test_the_cli_fails_on_a_broken_chain(monkeypatch, capsys):
    monkeypatch.setitem(STEPS, "general:one_item", general.ONE_ITEM_STEPS[:1])
    code = main(
        ["prove", "--max-n", "1", "--solvers", "cadical", "--mutants-n", "0", "--general", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    bad = [r["statement"] for r in payload["results"] if not r["ok"]]
    # the chain fails, and with it the comparison of the two paths
    assert bad == ["general:one_item/chain", "general:one_item/paths"]
