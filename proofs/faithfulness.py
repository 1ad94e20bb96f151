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

- ``sides`` (:func:`check_sides`, both encodings): the negated assertion against the
  statement, on both sides. No monotone table satisfies a proved statement's negation, and a
  restriction of the assertion (a clause "at most two minimal points" appended to it, say)
  can be one that no table, monotone or not, ever meets with the rest of the negation, so
  checks by table cannot see it. Here the literals the assertion reads (its *sides*:
  ``agree`` and ``claim`` of an iff, ``bad`` or ``differ`` per audit) are renamed to free
  variables, one side at a time, and set by assumptions while the body fixes the table and
  every other quantity: the assertion must then accept exactly when
  :func:`proofs.reference.negation_of_sides` says the statement fails with those values.
  Every active monotone function is checked for n <= 5 (z3: n <= 4), sampled orbits above.

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
PARTS = ("body", "assertion", "models", "sides")
EXHAUSTIVE_SIDES_N = 5
"""Up to this n :func:`check_sides` takes every active monotone function; above, samples."""


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


def renamed(
    clauses: list[list[int]], literals: Iterable[int], first: int
) -> tuple[list[list[int]], list[int]]:
    """``clauses`` with the variable of each of ``literals`` renamed to a fresh one (numbered
    from ``first``), and the fresh literals in the order of ``literals`` (same signs): the
    clauses then read free values where they read the body's definitions."""
    fresh: dict[int, int] = {}
    for lit in literals:
        fresh.setdefault(abs(lit), first + len(fresh))
    renamed_clauses = [
        [(fresh[abs(x)] if x > 0 else -fresh[abs(x)]) if abs(x) in fresh else x for x in clause]
        for clause in clauses
    ]
    literals = list(literals)
    return renamed_clauses, [fresh[abs(x)] if x > 0 else -fresh[abs(x)] for x in literals]


def _side_values(own: tuple[bool, ...], rng: random.Random) -> list[tuple[bool, ...]]:
    """The values a side is set to for one table: both values of a one-literal side; for a
    side per audit, the table's own values, none set, one set alone and the own values with
    one flipped (audits drawn at random)."""
    if len(own) == 1:
        return [(False,), (True,)]
    size = len(own)
    alone, flip = rng.randrange(1, size), rng.randrange(size)
    return [
        own,
        (False,) * size,
        tuple(r == alone for r in range(size)),
        tuple(v != (r == flip) for r, v in enumerate(own)),
    ]


def check_sides(
    name: str,
    n: int,
    count: int = 400,
    seed: int = 0,
    exhaustive: bool | None = None,
    encoding: str = "cnf",
) -> PartCheck:
    """The negated assertion of ``name`` at n (``encoding`` cnf or z3) against the statement,
    on both sides (see the module's text): for every active monotone function
    (``exhaustive``, default n <= 5 for the CNF, n <= 4 for z3, which answers in
    milliseconds) or ``count`` sampled ones (orbits), each side renamed free in turn and set
    to the values of :func:`_side_values`, the table (and, for ``refined``, an ancestor set
    A ⊇ U) fixed."""
    limit = EXHAUSTIVE_SIDES_N if encoding == "cnf" else EXHAUSTIVE_SIDES_N - 1
    exhaustive = n <= limit if exhaustive is None else exhaustive
    rng = random.Random(f"sides/{name}/{n}/{seed}")
    tables = (
        [t for t in reference.monotone_tables(n) if t[-1]]
        if exhaustive
        else reference.orbit_samples(n, count, seed)
    )
    sides: _FreeSides = _CnfFree(name, n) if encoding == "cnf" else _Z3Free(name, n)
    checked = accepted = 0
    bad: list[tuple[int, int, bool, bool]] = []
    try:
        for table in tables:
            union = reference.facts(table, n).union
            choices = [union, union | rng.getrandbits(n)] if sides.refined else [0]
            for ancestors in choices:
                own = reference.sides(name, table, n, ancestors)
                for side in sides.names:
                    for values in _side_values(own[side], rng):
                        want = reference.negation_of_sides(name, {**own, side: values}, n)
                        got = sides.accepts(side, table, ancestors, values)
                        checked += 1
                        accepted += want
                        if got != want and len(bad) < 5:
                            bad.append((_code(table), ancestors, want, got))
    finally:
        sides.close()
    return PartCheck(name, n, encoding, "sides", checked, accepted, tuple(bad), exhaustive)


class _CnfFree:
    """The CNF with one side of its assertion renamed free, one solver per side."""

    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = encode(name, n)
        self.refined = bool(e.ancestor_vars)
        self.names = list(e.sides)
        self.solvers: dict[str, tuple[Solver, list[int]]] = {}
        for side, literals in e.sides.items():
            assertion, free = renamed(e.assertion, literals, e.nvars + 1)
            self.solvers[side] = (
                Solver(name="cadical195", bootstrap_with=e.body + assertion),
                free,
            )

    def accepts(self, side: str, table: Table, ancestors: int, values: tuple[bool, ...]) -> bool:
        e = self.encoding
        solver, free = self.solvers[side]
        fixed = [(x + 1) if bit else -(x + 1) for x, bit in enumerate(table)]
        fixed += [v if ancestors >> i & 1 else -v for i, v in enumerate(e.ancestor_vars)]
        fixed += [lit if v else -lit for lit, v in zip(free, values)]
        return bool(solver.solve(assumptions=fixed))

    def close(self) -> None:
        for solver, _ in self.solvers.values():
            solver.delete()


class _Z3Free:
    """The z3 encoding with one side of its assertion replaced by fresh constants
    (``z3.substitute``), one solver per side."""

    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = Z3Encoding(name, n)
        self.refined = has_ancestors(name)
        self.names = list(e.sides)
        self.solvers: dict[str, tuple[z3.Solver, list[z3.BoolRef]]] = {}
        for side, terms in e.sides.items():
            free = [z3.Bool(f"side_{side}_{k}") for k in range(len(terms))]
            assertion = [z3.substitute(a, *zip(terms, free)) for a in e.assertion]
            solver = z3.SolverFor("QF_FD")
            solver.add(e.body + assertion)
            self.solvers[side] = (solver, free)

    def accepts(self, side: str, table: Table, ancestors: int, values: tuple[bool, ...]) -> bool:
        e = self.encoding
        solver, free = self.solvers[side]
        solver.push()
        solver.add(e.table == _code(table))
        if self.refined:
            solver.add([a if ancestors >> i & 1 else z3.Not(a) for i, a in enumerate(e.ancestors)])
        solver.add([f if v else z3.Not(f) for f, v in zip(free, values)])
        answer = solver.check()
        solver.pop()
        if answer == z3.unknown:
            raise RuntimeError(f"z3 answered unknown on a fixed table ({solver.reason_unknown()})")
        return answer == z3.sat

    def close(self) -> None:
        pass


_FreeSides = _CnfFree | _Z3Free
