"""The bounded encodings against :mod:`theory` on every quantity they define.

For a fixed active monotone table (and, for ``refined``, an ancestor set A ⊇ U), each
encoding's body is solved with the table fixed, and the quantities the assertion is built
from are read off the model: U (``union``), exact and influence revision of c on every
one of the 2^n audits (``exact``, ``influence``; over A for ``refined``), ``unique`` and
``agree``. The project's semantic core computes the same quantities independently:

- the minimal justifications by :func:`theory.solver.justifications.minimal_justifications` on the
  *redundant* graph ``c <- X`` for every true set X (so the minimal ones must be found, not
  given), U their union;
- exact and influence revision by :mod:`theory.semantics.revision` (the functions behind
  ``revision.exact`` and ``revision.influence``, on one index per graph) on the simplest
  graph, one justification per minimal justification, plus ``c <- A`` when A ⊋ U.

Every active monotone function is checked for n <= 4 in the tests (n = 5 by
``benchmarks/bench_proof_checks.py``), samples up to the certified n.

>>> [c.ok for c in check_quantities("boundary", 3, exhaustive=True)]
[True, True]
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

import z3
from pysat.solvers import Solver

from proofs import cnf_encoding, counting, reference
from proofs.reference import Table
from proofs.statements import has_ancestors
from proofs.z3_bounded import Z3Encoding
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import base_active
from theory.semantics.revision import downstream_numbers, exact_retired_numbers
from theory.solver.justifications import minimal_justifications
from theory.testing import truthtable

QUANTITIES = ("union", "exact", "influence", "unique", "agree")


@dataclass(frozen=True)
class Values:
    union: int
    exact: tuple[bool, ...]
    influence: tuple[bool, ...]
    unique: bool
    agree: bool

    def differences(self, other: Values) -> list[str]:
        return [q for q in QUANTITIES if getattr(self, q) != getattr(other, q)]


def by_theory(table: Table, n: int, ancestors: int | None = None) -> Values:
    """The quantities of an active monotone table, computed by :mod:`theory`."""
    names = [truthtable.item_name(i) for i in range(n)]
    true_sets = [x for x in range(1 << n) if table[x]]
    redundant = SupportStructure.build(
        names,
        [truthtable.CLAIM],
        [(truthtable.CLAIM, truthtable.point_names(x)) for x in true_sets],
    )
    found = minimal_justifications(redundant, truthtable.CLAIM)
    points = [sum(1 << names.index(e) for e in s) for s in found]
    union = 0
    for x in points:
        union |= x
    extra = [[i for i in range(n) if ancestors >> i & 1]] if ancestors not in (None, union) else []
    simple = truthtable.flat_structure(sorted(points), n, extra)
    index, active = index_of(simple), base_active(simple)
    claim = index.number[truthtable.CLAIM]
    items = [index.number[e] for e in names]
    exact, influence = [], []
    for r in range(1 << n):
        audit = [items[i] for i in range(n) if r >> i & 1]
        exact.append(claim in exact_retired_numbers(index, active, audit))
        influence.append(claim in downstream_numbers(index, audit) and bool(active[claim]))
    return Values(union, tuple(exact), tuple(influence), len(points) == 1, exact == influence)


class _CnfReader:
    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = cnf_encoding.encode(name, n)
        extra, self.handles = cnf_encoding.extend_with_definitions(e)
        self.solver = Solver(name="cadical195", bootstrap_with=e.body + extra)

    def read(self, table: Table, ancestors: int) -> Values | None:
        e = self.encoding
        lits = [(x + 1) if bit else -(x + 1) for x, bit in enumerate(table)]
        lits += [v if ancestors >> i & 1 else -v for i, v in enumerate(e.ancestor_vars)]
        if not self.solver.solve(assumptions=lits):
            return None
        model = set(self.solver.get_model())
        q = e.quantities

        def holds(lit: int) -> bool:
            return lit in model  # python-sat models list every variable, as v or -v

        return Values(
            sum(1 << i for i, u in enumerate(q["union"]) if holds(u)),
            tuple(holds(x) for x in q["exact"]),
            tuple(holds(x) for x in q["influence"]),
            holds(self.handles["unique"]),
            holds(self.handles["agree"]),
        )

    def close(self) -> None:
        self.solver.delete()


class _Z3Reader:
    def __init__(self, name: str, n: int) -> None:
        self.encoding = e = Z3Encoding(name, n)
        self.refined = has_ancestors(name)
        self.solver = z3.SolverFor("QF_FD")
        self.solver.add(e.body)
        terms = list(e.essential) + e.exact + e.influence + [e.unique, e.agree]
        one, zero = z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)
        bits = [z3.If(t, one, zero) for t in terms]
        self.word = z3.Concat(*bits) if len(bits) > 1 else bits[0]
        self.width = len(bits)

    def read(self, table: Table, ancestors: int) -> Values | None:
        e, size = self.encoding, len(table)
        self.solver.push()
        self.solver.add(e.table == sum(1 << x for x, bit in enumerate(table) if bit))
        if self.refined:
            self.solver.add(
                [a if ancestors >> i & 1 else z3.Not(a) for i, a in enumerate(e.ancestors)]
            )
        found = None
        if self.solver.check() == z3.sat:
            word = self.solver.model().eval(self.word, model_completion=True).as_long()
            flags = [bool(word >> (self.width - 1 - k) & 1) for k in range(self.width)]
            n = e.n
            found = Values(
                sum(1 << i for i in range(n) if flags[i]),
                tuple(flags[n : n + size]),
                tuple(flags[n + size : n + 2 * size]),
                flags[-2],
                flags[-1],
            )
        self.solver.pop()
        return found

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class QuantityCheck:
    """One encoding of one statement at one n: its quantities against theory's."""

    statement: str
    n: int
    encoding: str
    checked: int
    mismatches: tuple[tuple[int, int, tuple[str, ...]], ...] = field(
        default=()
    )  # (table, A, which)

    @property
    def ok(self) -> bool:
        return self.checked > 0 and not self.mismatches


def cases(
    name: str, n: int, exhaustive: bool, count: int = 12, seed: int = 0
) -> list[tuple[Table, int]]:
    """Active monotone tables (every one, or structured + random samples), with A = U and a
    random A ⊋ U for ``refined``."""
    rng = random.Random(f"quantities/{name}/{n}/{seed}")
    full = (1 << n) - 1
    if exhaustive:
        tables = [t for t in counting.monotone_tables(n) if t[full]]
    else:
        tables = reference.structured(n) + [reference.random_monotone(n, rng) for _ in range(count)]
    out = []
    for t in tables:
        union = reference.facts(t, n).union
        choices = [union, union | rng.getrandbits(n)] if has_ancestors(name) else [0]
        out += [(t, a) for a in dict.fromkeys(choices)]
    return out


def check_quantities(
    name: str,
    n: int,
    exhaustive: bool = False,
    count: int = 12,
    seed: int = 0,
    encodings: Iterable[str] = ("cnf", "z3"),
) -> list[QuantityCheck]:
    todo = cases(name, n, exhaustive, count, seed)
    expected = [by_theory(t, n, a if has_ancestors(name) else None) for t, a in todo]
    checks = []
    for kind in encodings:
        reader: _CnfReader | _Z3Reader = (
            _CnfReader(name, n) if kind == "cnf" else _Z3Reader(name, n)
        )
        try:
            bad: list[tuple[int, int, tuple[str, ...]]] = []
            for (t, a), want in zip(todo, expected):
                got = reader.read(t, a)
                which = tuple(want.differences(got)) if got is not None else ("body rejects it",)
                if which and len(bad) < 5:
                    bad.append((sum(1 << x for x, b in enumerate(t) if b), a, which))
            checks.append(QuantityCheck(name, n, kind, len(todo), tuple(bad)))
        finally:
            reader.close()
    return checks
