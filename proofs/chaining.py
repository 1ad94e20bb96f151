"""The multi-step general proofs, checked to chain mechanically (not only in prose).

For each multi-step statement of :mod:`proofs.general` (``STEPS``, stated in the atoms of
``ATOMS``):

- ``chain``: the steps, read as propositional implications between their atoms, entail the
  statement's claim (``CLAIMS``): z3 finds the propositional abstraction UNSAT. A step
  swapped for a trivially UNSAT query would have to change its atoms, and then the chain
  fails; a step whose conclusion is dropped breaks it too.
- ``hypotheses``: each step's premises (with the axioms) hold in an explicit finite model
  (``Step.witness``: items, J-sets and A given outright), evaluated in Python by
  :func:`holds_in` (no solver), so no step is UNSAT merely because its hypotheses contradict.
- ``nonvacuous``: the very assertions the step's solver held, minus the query's negated
  goal, have an explicit standard model, checked against theory
  (:func:`proofs.general.not_vacuous`): a contradiction built into ``Step.query`` or added
  to the solver is caught, which the premise atoms evaluated on their own would not show.
- ``mutants``: for each step, the query with one premise dropped (last premise first, until
  one is SAT); every step must have such a mutant that z3 answers SAT (it uses a premise).
- ``paths``: every general statement is proved twice, by :func:`proofs.general.prove_general`
  (its parts: one query, or the steps) and by its chain here (the statements proved by one
  query have their own chain: ``BOUNDARY_IF_STEPS``, ``REFINED_IF_STEPS``,
  ``INCLUSION_STEPS``, ``AUDIT_CRITERION_ONLY_IF_STEPS``); :func:`path_results` fails a statement whose two paths disagree.
- ``one_shot``: the claim as one query (premises ∧ ¬conclusion), where z3 decides it within
  the time limit (UNKNOWN is reported as such, not as a failure of the chained proof).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import z3

from proofs import explicit_models
from proofs.explicit_models import Structure
from proofs.general import (
    CLAIMS,
    GENERAL,
    STEPS,
    NonVacuity,
    Step,
    Vocabulary,
    literal,
    not_vacuous,
    timeout_ms,
)
from proofs.results import SAT, UNKNOWN, UNSAT, VACUOUS, ProofResult


def _answer(result: z3.CheckSatResult) -> str:
    return SAT if result == z3.sat else UNSAT if result == z3.unsat else UNKNOWN


def _solve(
    name: str, facts: Callable[[Vocabulary], list], timeout_s: float, step: Step | None = None
) -> tuple[str, NonVacuity | None]:
    """z3's answer for the axioms of ``name`` and ``facts``; for an UNSAT answer to ``step``'s
    query, the non-vacuity check on the solver's own assertions."""
    v = Vocabulary()
    solver = z3.Solver(ctx=v.ctx)
    solver.set("timeout", timeout_ms(timeout_s))
    axioms = {"antichain": v.antichain, "singletons": v.singletons}
    for axiom in GENERAL[name].axioms:
        solver.add(axioms[axiom]())
    query = facts(v)
    solver.add(*query)
    answer = _answer(solver.check())
    check = None
    if answer == UNSAT and step is not None:
        check = not_vacuous(v, list(solver.assertions()), query[-1], step)
    return answer, check


def holds_in(
    facts: list[z3.ExprRef], items: int, family: Iterable[frozenset[int]], ancestors: Iterable[int]
) -> bool:
    """Evaluate quantified facts in an explicit finite structure, in Python (no solving):
    items 0..items-1, every subset as a set (a bit mask), mem = membership, J = ``family``,
    sing(i) = {i}, A = ``ancestors``. Free constants (the Skolem constants of a premise)
    are existential: true if some assignment makes every fact hold."""
    structure = Structure(items, tuple(frozenset(s) for s in family), frozenset(ancestors))
    return explicit_models.holds(facts, structure)


def chain_valid(name: str, steps: tuple[Step, ...] | None = None) -> bool:
    """The steps entail the claim propositionally (atoms as Booleans)."""
    steps = STEPS[name] if steps is None else steps
    claim = CLAIMS[name]
    atoms: dict[str, z3.BoolRef] = {}

    def lit(text: str) -> z3.BoolRef:
        atom = atoms.setdefault(text.lstrip("!"), z3.Bool(text.lstrip("!")))
        return z3.Not(atom) if text.startswith("!") else atom

    def implication(step: Step) -> z3.BoolRef:
        return z3.Implies(
            z3.And(*[lit(p) for p in step.premises]), z3.Or(*[lit(c) for c in step.conclusion])
        )

    solver = z3.Solver()
    solver.add(*[implication(step) for step in steps])
    solver.add(z3.Not(implication(claim)))
    return solver.check() == z3.unsat


@dataclass(frozen=True)
class StepCheck:
    statement: str
    step: str
    result: (
        str  # the step itself: must be UNSAT (VACUOUS if its query has no model without its goal)
    )
    hypotheses: str  # premises alone, in the step's explicit witness structure: must be SAT
    mutants: dict[str, str]  # premise dropped -> answer
    nonvacuous: NonVacuity | None = None

    @property
    def ok(self) -> bool:
        return (
            self.result == UNSAT
            and self.hypotheses == SAT
            and SAT in self.mutants.values()
            and self.nonvacuous is not None
            and self.nonvacuous.ok
        )


def check_steps(name: str, timeout_s: float = 60.0) -> list[StepCheck]:
    checks = []
    for step in STEPS[name]:
        result, nonvacuous = _solve(name, step.query, timeout_s, step)
        if nonvacuous is not None and not nonvacuous.ok:
            result = VACUOUS
        hypotheses = UNKNOWN
        if step.witness is not None:
            v = Vocabulary()
            axioms = {"antichain": v.antichain, "singletons": v.singletons}
            facts = [axioms[a]() for a in GENERAL[name].axioms]
            facts += [literal(v, p, premise=True) for p in step.premises]
            hypotheses = SAT if holds_in(facts, *step.witness) else UNSAT
        mutants = {}
        for dropped in reversed(step.premises):  # until one is SAT
            weaker = Step(
                step.label, tuple(p for p in step.premises if p != dropped), step.conclusion
            )
            mutants[dropped] = _solve(name, weaker.query, timeout_s)[0]
            if mutants[dropped] == SAT:
                break
        checks.append(StepCheck(name, step.label, result, hypotheses, mutants, nonvacuous))
    return checks


def one_shot(name: str, timeout_s: float = 60.0) -> tuple[str, float]:
    """The claim as a single query; (answer, seconds)."""
    start = time.perf_counter()
    answer = _solve(name, CLAIMS[name].query, timeout_s)[0]
    return answer, time.perf_counter() - start


def chain_results(
    timeout_s: float = 60.0, general: list[ProofResult] | None = None
) -> list[ProofResult]:
    """Every check above as result rows for ``jtms prove --general`` (one_item's one-shot
    query included; the other two one-shots are too slow for a default run): per statement
    the chain, each step (its label and the explicit model of its query without the goal),
    its hypotheses and its mutant; with ``general`` (the rows of ``prove_general``), one
    ``NAME/paths`` row per statement that fails unless both paths prove it."""
    rows = []
    for name in STEPS:
        start = time.perf_counter()
        valid = chain_valid(name)
        labels = [s.label for s in STEPS[name]]
        mine = [
            ProofResult(
                f"{name}/chain",
                None,
                "z3 (propositional)",
                UNSAT if valid else SAT,
                time.perf_counter() - start,
                details={"steps": labels, "text": " -> ".join(labels)},
            )
        ]
        for k, check in enumerate(check_steps(name, timeout_s), 1):
            model = check.nonvacuous.describe() if check.nonvacuous is not None else ""
            mine.append(
                ProofResult(
                    f"{name}/step{k}",
                    None,
                    "z3 (first-order)",
                    check.result,
                    0.0,
                    details={
                        "step": check.step,
                        "model": model,
                        "text": f"{check.step}; {model}" if model else check.step,
                    },
                )
            )
            mine.append(
                ProofResult(
                    f"{name}/step{k}:hypotheses",
                    None,
                    "explicit model",
                    check.hypotheses,
                    0.0,
                    expected=SAT,
                    details={"step": check.step},
                )
            )
            sat = [p for p, a in check.mutants.items() if a == SAT]
            mine.append(
                ProofResult(
                    f"{name}/step{k}:mutant",
                    None,
                    "z3 (first-order)",
                    SAT if sat else UNSAT,
                    0.0,
                    expected=SAT,
                    mutant=True,
                    details={"step": check.step, "dropped": check.mutants},
                )
            )
        rows += mine
        if general is not None:
            rows.append(_paths(name, [r for r in general if r.statement == name], mine))
    answer, seconds = one_shot("general:one_item", timeout_s)
    rows.append(ProofResult("general:one_item/one_shot", None, "z3 (first-order)", answer, seconds))
    return rows


def _paths(name: str, direct: list[ProofResult], chained: list[ProofResult]) -> ProofResult:
    first = direct[0].result if direct else "not run"
    second = UNSAT if chained and all(r.ok for r in chained) else "not proved"
    agree = first == UNSAT and second == UNSAT
    return ProofResult(
        f"{name}/paths",
        None,
        "prove_general vs chain",
        UNSAT if agree else f"{first} / chain {second}",
        0.0,
        details={
            "prove_general": first,
            "chain": second,
            "text": f"prove_general {first}, chain {second}",
        },
    )


def path_results(general: list[ProofResult], timeout_s: float = 60.0) -> list[ProofResult]:
    """Only the ``NAME/paths`` rows (each statement's chain re-run here)."""
    return [r for r in chain_results(timeout_s, general) if r.statement.endswith("/paths")]
