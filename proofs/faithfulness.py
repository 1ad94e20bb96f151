"""Each part of each bounded encoding checked on its own, at every n a result is stated for.

A bounded proof solves ``body + assertion (+ symmetry)``. The model counts of
:mod:`proofs.counting` (n <= 5) see the body; they cannot see the negated assertion of a
proved statement, whose count is 0 whether it is right or over-restricted, and they stop at
n = 5 while results are certified up to :data:`CERTIFIED_MAX_N`. So here, for each n up to
that bound, each statement (mutants included) and both encodings (CNF and z3):

- ``body``: a table (and an ancestor set, for ``refined``) is fixed by assumptions; the body
  must be satisfiable exactly when the table is monotone, active and (refined) A ⊇ U, by
  the brute-force reference of :mod:`proofs.reference`;
- ``assertion``: the same for the body *without its monotonicity clauses* (the definitions
  and side conditions, functions of any table) plus the negated assertion, against
  ``side conditions ∧ negation`` computed by the reference. No monotone table satisfies a
  proved statement's negation (that is the theorem), so the tables that test the assertion
  are the non-monotone ones, where its local definitions are still well defined: an
  over-restriction of the assertion rejects some of them;
- ``models``: models found by the solver under random partial assumptions are decoded and
  checked by the reference (body: a monotone active table; a mutant's full formula: a table
  that really violates the mutant statement).

Samples come from :func:`proofs.reference.samples` (structured and random monotone
functions, the same with entries flipped, raw random tables); for n <= 2 every table is
checked (``exhaustive``). A check is ``ok`` only if it saw no mismatch and the samples
exercised both answers, so it cannot pass by testing one side only.

>>> [c.ok for c in check_parts("boundary", 2, count=8)]
[True, True, True, True, True, True]
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

import z3
from pysat.solvers import Solver

from proofs import reference
from proofs.cnf_encoding import encode
from proofs.reference import Table
from proofs.statements import has_ancestors
from proofs.z3_bounded import Z3Encoding

CERTIFIED_MAX_N = 9
"""The largest n for which docs/proofs.md states a certified result (its records table)."""
PARTS = ("body", "assertion", "models")


def _code(table: Table) -> int:
    return sum(1 << x for x, bit in enumerate(table) if bit)


class _CnfSides:
    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = encode(name, n)
        self.solvers = {
            "body": Solver(name="cadical195", bootstrap_with=e.body),
            "assertion": Solver(name="cadical195", bootstrap_with=e.open_body + e.assertion),
            "full": Solver(name="cadical195", bootstrap_with=e.body + e.assertion),
        }

    def _assume(self, table: Table, ancestors: int | None) -> list[int]:
        lits = [(x + 1) if bit else -(x + 1) for x, bit in enumerate(table)]
        if ancestors is not None:
            lits += [
                v if ancestors >> i & 1 else -v for i, v in enumerate(self.encoding.ancestor_vars)
            ]
        return lits

    def accepts(self, part: str, table: Table, ancestors: int) -> bool:
        a = ancestors if self.encoding.ancestor_vars else None
        return bool(self.solvers[part].solve(assumptions=self._assume(table, a)))

    def model(self, part: str, partial: dict[int, bool]) -> tuple[Table, int] | None:
        solver = self.solvers[part]
        if not solver.solve(assumptions=[(x + 1) if b else -(x + 1) for x, b in partial.items()]):
            return None
        model = solver.get_model()
        ancestors = self.encoding.ancestors(model) or []
        return tuple(self.encoding.truth_table(model)), sum(1 << i for i in ancestors)

    def close(self) -> None:
        for solver in self.solvers.values():
            solver.delete()


class _Z3Sides:
    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = Z3Encoding(name, n)
        self.refined = has_ancestors(name)
        monotone = {m.get_id() for m in e.monotonicity}
        open_body = [fact for fact in e.body if fact.get_id() not in monotone]
        self.solvers = {}
        for part, facts in (
            ("body", e.body),
            ("assertion", open_body + e.assertion),
            ("full", e.body + e.assertion),
        ):
            solver = z3.SolverFor("QF_FD")
            solver.add(facts)
            self.solvers[part] = solver

    def _fix(self, table: Table, ancestors: int) -> list[z3.BoolRef]:
        facts = [self.encoding.table == _code(table)]
        if self.refined:
            facts += [
                a if ancestors >> i & 1 else z3.Not(a)
                for i, a in enumerate(self.encoding.ancestors)
            ]
        return facts

    def accepts(self, part: str, table: Table, ancestors: int) -> bool:
        solver = self.solvers[part]
        solver.push()
        solver.add(self._fix(table, ancestors))
        answer = solver.check()
        solver.pop()
        if answer == z3.unknown:
            raise RuntimeError(f"z3 answered unknown on a fixed table ({solver.reason_unknown()})")
        return answer == z3.sat

    def model(self, part: str, partial: dict[int, bool]) -> tuple[Table, int] | None:
        solver = self.solvers[part]
        solver.push()
        solver.add(
            [
                b if value else z3.Not(b)
                for x, value in partial.items()
                for b in [self.encoding.bits[x]]
            ]
        )
        found = None
        if solver.check() == z3.sat:
            model = solver.model()
            ancestors = self.encoding.ancestor_set(model) if self.refined else []
            found = tuple(self.encoding.truth_table(model)), sum(1 << i for i in ancestors)
        solver.pop()
        return found

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class PartCheck:
    """One part of one encoding of one statement at one n, against the reference."""

    statement: str
    n: int
    encoding: str
    part: str
    checked: int
    accepted: int  # tables the reference says the part must accept
    mismatches: tuple[tuple[int, int, bool, bool], ...] = field(
        default=()
    )  # (table, A, expected, got)
    exhaustive: bool = False  # every table was checked (then an answer may never occur)

    @property
    def ok(self) -> bool:
        if self.part == "models":
            return not self.mismatches and self.checked > 0
        return not self.mismatches and (self.exhaustive or 0 < self.accepted < self.checked)


def _tables(name: str, n: int, count: int, seed: int, exhaustive: bool) -> list[tuple[Table, int]]:
    if not exhaustive:
        return list(reference.samples(name, n, count, seed))
    choices = range(1 << n) if has_ancestors(name) else [0]
    return [(t, a) for t in reference.all_tables(n) for a in choices]


def check_parts(
    name: str,
    n: int,
    count: int = 24,
    seed: int = 0,
    encodings: Iterable[str] = ("cnf", "z3"),
    exhaustive: bool | None = None,
    models: int = 4,
) -> list[PartCheck]:
    """Body, assertion and decoded models of ``name`` at n, for each encoding."""
    exhaustive = n <= 2 if exhaustive is None else exhaustive
    tables = _tables(name, n, count, seed, exhaustive)
    expected = {
        "body": [reference.body(name, t, n, a) for t, a in tables],
        "assertion": [reference.open_formula(name, t, n, a) for t, a in tables],
    }
    mutant = "~" in name
    checks = []
    for kind in encodings:
        sides: _CnfSides | _Z3Sides = _CnfSides(name, n) if kind == "cnf" else _Z3Sides(name, n)
        try:
            for part in ("body", "assertion"):
                bad: list[tuple[int, int, bool, bool]] = []
                for (t, a), want in zip(tables, expected[part]):
                    got = sides.accepts(part, t, a)
                    if got != want and len(bad) < 5:
                        bad.append((_code(t), a, want, got))
                checks.append(
                    PartCheck(
                        name,
                        n,
                        kind,
                        part,
                        len(tables),
                        sum(expected[part]),
                        tuple(bad),
                        exhaustive,
                    )
                )
            checks.append(_decoded(name, n, kind, sides, models, seed, mutant))
        finally:
            sides.close()
    return checks


def _decoded(
    name: str, n: int, kind: str, sides: _CnfSides | _Z3Sides, count: int, seed: int, mutant: bool
) -> PartCheck:
    """Solve under random partial assumptions (a third of a random monotone table's entries,
    f(E) = 1 among them) and check each decoded model with the reference: the body's models
    are monotone, active and cover U; a mutant's full-formula models violate the mutant."""
    rng = random.Random(f"models/{name}/{n}/{seed}")
    size = 1 << n
    bad, checked = [], 0
    for _k in range(count):
        target = reference.random_monotone(n, rng)
        keep = rng.sample(range(size), max(1, size // 3))
        partial = {x: target[x] for x in keep}
        partial[size - 1] = True
        for part in ("body", "full") if mutant else ("body",):
            found = sides.model(part, partial)
            if found is None:
                if part == "body":  # the body admits the monotone target: it must have a model
                    bad.append((_code(target), -1, True, False))
                continue
            checked += 1
            table, ancestors = found
            good = reference.body(name, table, n, ancestors) and all(
                table[x] == v for x, v in partial.items()
            )
            if part == "full":
                good = good and reference.negation(name, table, n, ancestors)
            if not good:
                bad.append((_code(table), ancestors, True, False))
    return PartCheck(name, n, kind, "models", checked, checked, tuple(bad[:5]))
