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
- ``mutants``: for each step, the query with one premise dropped (last premise first, until
  one is SAT); every step must have such a mutant that z3 answers SAT (it uses a premise).
- ``one_shot``: the claim as one query (premises ∧ ¬conclusion), where z3 decides it within
  the time limit (UNKNOWN is reported as such, not as a failure of the chained proof).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import z3

from proofs.general import CLAIMS, GENERAL, STEPS, Step, Vocabulary, literal
from proofs.results import SAT, UNKNOWN, UNSAT, ProofResult


def _answer(result: z3.CheckSatResult) -> str:
    return SAT if result == z3.sat else UNSAT if result == z3.unsat else UNKNOWN


def _solve(name: str, facts: Callable[[Vocabulary], list], timeout_s: float) -> str:
    """z3's answer for the axioms of ``name`` and ``facts``."""
    v = Vocabulary()
    solver = z3.Solver(ctx=v.ctx)
    solver.set("timeout", int(timeout_s * 1000))
    axioms = {"antichain": v.antichain, "singletons": v.singletons}
    for axiom in GENERAL[name].axioms:
        solver.add(axioms[axiom]())
    solver.add(*facts(v))
    return _answer(solver.check())


def holds_in(facts: list[z3.ExprRef], items: int, family: Iterable[frozenset[int]],
             ancestors: Iterable[int]) -> bool:
    """Evaluate quantified facts in an explicit finite structure, in Python (no solving):
    items 0..items-1, every subset as a set (a bit mask), mem = membership, J = ``family``,
    sing(i) = {i}, A = ``ancestors``. Free constants (the Skolem constants of a premise)
    are existential: true if some assignment makes every fact hold."""
    masks = {sum(1 << i for i in s) for s in family}
    a_mask = sum(1 << i for i in ancestors)
    universe = {"Item": list(range(items)), "Set": list(range(1 << items))}
    free: dict[str, str] = {}

    def collect(e: z3.ExprRef) -> None:
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED and str(e) != "A":
            free[str(e)] = e.sort().name()
        for child in e.children():
            collect(child)
        if z3.is_quantifier(e):
            collect(e.body())

    def ev(e: z3.ExprRef, env: list, consts: dict) -> object:
        if z3.is_var(e):
            return env[z3.get_var_index(e)]
        if z3.is_quantifier(e):
            sorts = [e.var_sort(i).name() for i in range(e.num_vars())]

            def assignments(k: int, acc: list) -> Iterator[list]:
                if k == len(sorts):
                    yield acc
                    return
                for value in universe[sorts[k]]:
                    yield from assignments(k + 1, acc + [value])

            results = (ev(e.body(), list(reversed(vals)) + env, consts) for vals in assignments(0, []))
            return all(results) if e.is_forall() else any(results)
        if z3.is_true(e):
            return True
        if z3.is_false(e):
            return False
        kids = e.children()
        kind, name = e.decl().kind(), e.decl().name()
        if kind == z3.Z3_OP_AND:
            return all(ev(k, env, consts) for k in kids)
        if kind == z3.Z3_OP_OR:
            return any(ev(k, env, consts) for k in kids)
        if kind == z3.Z3_OP_NOT:
            return not ev(kids[0], env, consts)
        if kind == z3.Z3_OP_IMPLIES:
            return (not ev(kids[0], env, consts)) or bool(ev(kids[1], env, consts))
        if kind == z3.Z3_OP_EQ or kind == z3.Z3_OP_IFF:
            return ev(kids[0], env, consts) == ev(kids[1], env, consts)
        if kind == z3.Z3_OP_DISTINCT:
            values = [ev(k, env, consts) for k in kids]
            return len(set(values)) == len(values)
        if name == "mem":
            return bool(ev(kids[1], env, consts) >> ev(kids[0], env, consts) & 1)  # type: ignore[operator]
        if name == "J":
            return ev(kids[0], env, consts) in masks
        if name == "sing":
            return 1 << ev(kids[0], env, consts)  # type: ignore[operator]
        if name == "A":
            return a_mask
        if kind == z3.Z3_OP_UNINTERPRETED and not kids:
            return consts[name]
        raise ValueError(f"cannot evaluate {e}")

    for fact in facts:
        collect(fact)
    names = sorted(free)

    def search(k: int, consts: dict) -> bool:
        if k == len(names):
            return all(ev(f, [], consts) for f in facts)
        return any(search(k + 1, {**consts, names[k]: value})
                   for value in universe[free[names[k]]])

    return search(0, {})


def chain_valid(name: str, steps: tuple[Step, ...] | None = None) -> bool:
    """The steps entail the claim propositionally (atoms as Booleans)."""
    steps = STEPS[name] if steps is None else steps
    claim = CLAIMS[name]
    atoms: dict[str, z3.BoolRef] = {}

    def lit(text: str) -> z3.BoolRef:
        atom = atoms.setdefault(text.lstrip("!"), z3.Bool(text.lstrip("!")))
        return z3.Not(atom) if text.startswith("!") else atom

    def implication(step: Step) -> z3.BoolRef:
        return z3.Implies(z3.And(*[lit(p) for p in step.premises]),
                          z3.Or(*[lit(c) for c in step.conclusion]))

    solver = z3.Solver()
    solver.add(*[implication(step) for step in steps])
    solver.add(z3.Not(implication(claim)))
    return solver.check() == z3.unsat


@dataclass(frozen=True)
class StepCheck:
    statement: str
    step: str
    result: str  # the step itself: must be UNSAT
    hypotheses: str  # premises alone, in the step's explicit witness structure: must be SAT
    mutants: dict[str, str]  # premise dropped -> answer

    @property
    def ok(self) -> bool:
        return self.result == UNSAT and self.hypotheses == SAT and SAT in self.mutants.values()


def check_steps(name: str, timeout_s: float = 60.0) -> list[StepCheck]:
    checks = []
    for step in STEPS[name]:
        result = _solve(name, step.query, timeout_s)
        hypotheses = UNKNOWN
        if step.witness is not None:
            v = Vocabulary()
            axioms = {"antichain": v.antichain, "singletons": v.singletons}
            facts = [axioms[a]() for a in GENERAL[name].axioms]
            facts += [literal(v, p, premise=True) for p in step.premises]
            hypotheses = SAT if holds_in(facts, *step.witness) else UNSAT
        mutants = {}
        for dropped in reversed(step.premises):  # until one is SAT
            weaker = Step(step.label, tuple(p for p in step.premises if p != dropped),
                          step.conclusion)
            mutants[dropped] = _solve(name, weaker.query, timeout_s)
            if mutants[dropped] == SAT:
                break
        checks.append(StepCheck(name, step.label, result, hypotheses, mutants))
    return checks


def one_shot(name: str, timeout_s: float = 60.0) -> tuple[str, float]:
    """The claim as a single query; (answer, seconds)."""
    start = time.perf_counter()
    answer = _solve(name, CLAIMS[name].query, timeout_s)
    return answer, time.perf_counter() - start


def chain_results(timeout_s: float = 60.0) -> list[ProofResult]:
    """Every check above as result rows for ``jtms prove --general`` (one_item's one-shot
    query included; the other two one-shots are too slow for a default run)."""
    rows = []
    for name in STEPS:
        start = time.perf_counter()
        valid = chain_valid(name)
        rows.append(ProofResult(f"{name}/chain", None, "z3 (propositional)",
                                UNSAT if valid else SAT, time.perf_counter() - start,
                                details={"steps": [s.label for s in STEPS[name]]}))
        for k, check in enumerate(check_steps(name, timeout_s), 1):
            rows.append(ProofResult(f"{name}/step{k}:hypotheses", None, "explicit model",
                                    check.hypotheses, 0.0, expected=SAT,
                                    details={"step": check.step}))
            sat = [p for p, a in check.mutants.items() if a == SAT]
            rows.append(ProofResult(f"{name}/step{k}:mutant", None, "z3 (first-order)",
                                    SAT if sat else UNSAT, 0.0, expected=SAT, mutant=True,
                                    details={"step": check.step, "dropped": check.mutants}))
    answer, seconds = one_shot("general:one_item", timeout_s)
    rows.append(ProofResult("general:one_item/one_shot", None, "z3 (first-order)", answer, seconds))
    return rows
