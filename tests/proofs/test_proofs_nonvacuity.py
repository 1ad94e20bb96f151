"""The general proof cannot be vacuous: every UNSAT query has an explicit model of all it
asserts but its negated goal, checked against theory; each statement has two paths
(prove_general and a chain), compared by the CLI. Planted bugs: an extra assertion in
prove_general's solver, a contradiction built into Step.query, a goal weakened by a
contradiction, a theory-level meaning change."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import z3

from jtms.cli import main
from proofs import chaining, explicit_models, general
from proofs.explicit_models import Structure, theory_atoms
from proofs.general import GENERAL, SINGLE, STEPS, Step, prove_general

PROVED = [name for name, s in GENERAL.items() if s.mutant_of is None]


def test_every_proved_statement_has_two_paths_and_steps():
    assert set(STEPS) == set(PROVED)
    assert all(GENERAL[name].steps for name in PROVED)
    assert set(SINGLE) == {name for name in PROVED if len(GENERAL[name].parts) == 1}


@pytest.mark.parametrize(
    "name",
    [n if n == "general:inclusion" else pytest.param(n, marks=pytest.mark.slow) for n in PROVED],
)
def test_every_query_has_a_model_without_its_goal(name):
    result = prove_general(name, timeout_s=60)
    assert result.result == "UNSAT" and result.ok
    assert all(s["model"].startswith("model without the goal") for s in result.details["steps"])


def test_theory_atoms_of_two_alternatives():
    atoms = theory_atoms(Structure(2, (frozenset({0}), frozenset({1})), frozenset({0, 1})))
    assert atoms["active"] and atoms["two_distinct"] and not atoms["unique"]
    assert atoms["over_revised"] and not atoms["under_revised"] and not atoms["agree_on_singletons"]
    redundant = theory_atoms(Structure(2, (frozenset({0}),), frozenset({0, 1})))
    assert redundant["unique"] and redundant["agree"] and not redundant["agree_A"]
    assert redundant["redundant_ancestor"] and not redundant["unique_is_A"]


@pytest.mark.slow
def test_the_evaluator_agrees_with_theory_on_every_small_structure():
    """Each atom as the z3 vocabulary states it, evaluated by the explicit-model checker,
    equals theory's value in every standard structure with up to two items."""
    v = general.Vocabulary()
    facts = {name: atom(v) for name, atom in general.ATOMS.items()}
    for structure in explicit_models.structures(2):
        atoms = theory_atoms(structure)
        for name, fact in facts.items():
            assert explicit_models.holds([fact], structure) == atoms[name], (name, structure)


# --- planted bugs -------------------------------------------------------------------------


class _SolverWithExtra:
    """z3 as seen by proofs.general, except that every solver gets one extra assertion."""

    def __getattr__(self, key):
        return getattr(z3, key)

    @staticmethod
    def Solver(*args, **kwargs):  # noqa: N802 (z3's name)
        solver = z3.Solver(*args, **kwargs)
        solver.add(z3.BoolVal(False, ctx=kwargs.get("ctx")))
        return solver


@pytest.mark.slow
def test_planted_extra_assertion_in_prove_general_is_caught(monkeypatch, capsys):
    monkeypatch.setattr(general, "z3", _SolverWithExtra())
    result = prove_general("general:inclusion", timeout_s=60)
    assert result.result == "VACUOUS" and not result.ok
    # the CLI runs both paths; the chain (its own solver) still proves inclusion, so the two
    # paths disagree and the run fails
    code = main(
        ["prove", "--max-n", "1", "--solvers", "cadical", "--mutants-n", "0", "--general", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    bad = {r["statement"] for r in payload["results"] if not r["ok"]}
    assert "general:inclusion" in bad and "general:inclusion/paths" in bad
    assert not any(name.endswith("/chain") or "/step" in name for name in bad)


@pytest.mark.slow
def test_planted_contradiction_inside_step_query_is_caught(monkeypatch):
    original = Step.query

    def planted(self, v):
        facts = original(self, v)
        if self.premises:  # the negation of the first premise, before the goal
            facts.insert(len(facts) - 1, z3.Not(general.literal(v, self.premises[0], premise=True)))
        return facts

    monkeypatch.setattr(Step, "query", planted)
    checks = chaining.check_steps("general:boundary_only_if", timeout_s=60)
    assert all(c.result == "VACUOUS" and not c.ok for c in checks)
    assert all(c.hypotheses == "SAT" for c in checks)  # the premise atoms alone still look fine
    assert prove_general("general:boundary_if", timeout_s=60).result == "VACUOUS"


@pytest.mark.slow
def test_planted_contradiction_inside_the_goal_is_caught(monkeypatch):
    original = Step.negated_goal

    def planted(self, v):
        if not self.premises:
            return original(self, v)
        return z3.And(original(self, v), z3.Not(general.literal(v, self.premises[0])))

    original_query = Step.query

    def query(self, v):
        facts = original_query(self, v)[:-1]
        return facts + [planted(self, v)]

    monkeypatch.setattr(Step, "query", query)
    # step 1, active ∧ ¬unique => two_distinct, now refuted by "¬two_distinct ∧ ¬active": the
    # query is UNSAT because of the contradiction with the premise, and its hypotheses are fine
    check = chaining.check_steps("general:boundary_only_if", timeout_s=60)[0]
    assert check.result == "VACUOUS" and check.nonvacuous.goal_wrong and check.hypotheses == "SAT"


def test_planted_meaning_change_is_seen_by_theory(monkeypatch):
    """'two_distinct' redefined as 'some J-set' (one is enough): the step 'two distinct J-sets
    => disagree on a singleton audit' is then false, and its explicit model of the premises
    has one J-set only, which theory does not call two distinct."""
    monkeypatch.setitem(general.ATOMS, "two_distinct", lambda v: v.active())
    step = STEPS["general:boundary_only_if"][2]
    v = general.Vocabulary()
    facts = [v.antichain(), v.singletons()] + step.query(v)
    check = general.not_vacuous(v, facts, facts[-1], step)
    assert not check.ok and check.theory_wrong == ("two_distinct",)


@pytest.mark.slow
def test_a_replaced_part_is_caught_by_the_path_comparison(monkeypatch):
    spec = GENERAL["general:refined_if"]
    monkeypatch.setitem(
        GENERAL,
        "general:refined_if",
        replace(spec, parts=(("", lambda v: [v.active(), z3.Not(v.active())]),)),
    )
    result = prove_general("general:refined_if", timeout_s=60)
    assert result.result == "VACUOUS"
    (row,) = [
        r
        for r in chaining.path_results([result], timeout_s=60)
        if r.statement == "general:refined_if/paths"
    ]
    assert not row.ok
