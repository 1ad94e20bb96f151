"""Exact model counts of the emitted bounded encodings, against brute-force expectations.

A bounded proof is only as good as its encoding: an over-restricted formula (one that drops
some support functions) is UNSAT for the wrong reason. So for each statement and each small
n we take the very formula that is solved (CNF for CaDiCaL, facts for z3), remove only its
final assertion, and count its models exactly, alone and with the statement's own ``agree``
and ``unique``; then with the assertion put back (the count must be 0). The expected
numbers are computed here by brute force over all monotone functions, from the definitions
(no solver involved):

- ``body``      active monotone functions: D(n) - 1 (for ``refined``, pairs (f, A) with
  A ⊇ U: the sum of 2^(n - |U|));
- ``agree``     2^n (pairs (f, A) agreeing over A, for ``refined``);
- ``unique``    2^n (for ``refined``: 3^n, every A ⊇ S counted);
- ``negation``  0.

Counting is by enumeration with blocking clauses over the free variables (the truth table,
and the ancestor set for ``refined``); for the CNF every full model is enumerated as well,
so an auxiliary variable that is not a function of the table would show as a surplus. The
z3 facts are counted through z3's own clausal form (its bit-blasting and Tseitin tactics,
after the table bits are renamed to plain Booleans), projected on those Booleans: direct
enumeration inside z3 took minutes at n = 5.

>>> expected_counts("boundary", 3)
{'body': 19, 'agree': 8, 'unique': 8, 'negation': 0}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import z3
from pysat.solvers import Solver

from proofs.cnf_encoding import Encoding, encode, extend_with_definitions
from proofs.statements import COVERS, PROVED, has_ancestors
from proofs.z3_bounded import Z3Encoding

COUNTS = ("body", "agree", "unique", "negation")


def monotone_tables(n: int) -> Iterator[tuple[bool, ...]]:
    """Every monotone f on n items, as a truth table indexed by subset mask.

    A monotone f on n items is a pair (f restricted to X without item n-1, f on X with it),
    both monotone on n-1 items, the first pointwise below the second.

    >>> sum(1 for _ in monotone_tables(4))
    168
    """
    if n == 0:
        yield (False,)
        yield (True,)
        return
    smaller = list(monotone_tables(n - 1))
    for low in smaller:
        for high in smaller:
            if all(h or not lo for lo, h in zip(low, high)):
                yield low + high


def _facts(table: tuple[bool, ...], n: int) -> tuple[list[int], int]:
    size = 1 << n
    minimal = [
        x
        for x in range(size)
        if table[x] and not any(table[x & ~(1 << i)] for i in range(n) if x >> i & 1)
    ]
    essential = 0
    for x in minimal:
        essential |= x
    return minimal, essential


def _agree(table: tuple[bool, ...], n: int, ancestors: int) -> bool:
    full = (1 << n) - 1
    return all((not table[full & ~r]) == bool(r & ancestors) for r in range(1 << n))


def expected_counts(name: str, n: int) -> dict[str, int]:
    """The model counts an exact encoding of ``name`` must have, by brute force."""
    counts = dict.fromkeys(COUNTS, 0)
    full = (1 << n) - 1
    for table in monotone_tables(n):
        if not table[full]:
            continue
        minimal, essential = _facts(table, n)
        choices = (
            [a for a in range(1 << n) if a & essential == essential]
            if name in COVERS
            else [essential]
        )
        for ancestors in choices:
            counts["body"] += 1
            counts["agree"] += _agree(table, n, ancestors)
            counts["unique"] += len(minimal) == 1
    return counts


def _count_cnf(clauses: list[list[int]], projection: list[int]) -> int:
    """Models of a CNF, by enumerating full models; raises as soon as two full models share
    a projection (then some auxiliary is not a function of the free variables)."""
    seen: set[tuple[bool, ...]] = set()
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        for model in solver.enum_models():
            positive = set(lit for lit in model if lit > 0)
            key = tuple(v in positive for v in projection)
            if key in seen:
                raise AssertionError(
                    "two models with the same truth table: an auxiliary is undetermined"
                )
            seen.add(key)
    return len(seen)


def cnf_counts(encoding: Encoding) -> dict[str, int]:
    """Model counts of a CNF encoding; raises if an auxiliary is not table-determined."""
    extra, handles = extend_with_definitions(encoding)
    base = encoding.body + extra
    queries = {
        "body": base,
        "agree": base + [[handles["agree"]]],
        "unique": base + [[handles["unique"]]],
        "negation": base + encoding.assertion,
    }
    counts = {}
    for key, clauses in queries.items():
        try:
            counts[key] = _count_cnf(clauses, encoding.projection)
        except AssertionError as error:
            raise AssertionError(f"{encoding.statement} n={encoding.n} {key}: {error}") from None
    return counts


def z3_cnf(
    facts: list[z3.BoolRef], coordinates: list[z3.BoolRef]
) -> tuple[list[list[int]], list[int]]:
    """z3's own clausal form of ``facts`` (tactics simplify, card2bv, bit-blast, tseitin-cnf),
    with each coordinate first replaced by a named Boolean so it can be projected on.

    The tactics are equivalence-preserving up to fresh auxiliaries (a conservative extension),
    so the models projected on the coordinates are the models of ``facts`` itself.
    """
    names = [z3.Bool(f"coordinate!{k}") for k in range(len(coordinates))]
    formula = z3.substitute(z3.And(*facts), *zip(coordinates, names))
    goal = z3.Goal()
    goal.add(formula)
    (clausal,) = z3.Then("simplify", "card2bv", "bit-blast", "tseitin-cnf")(goal)
    index = {str(name): k + 1 for k, name in enumerate(names)}

    def literal(term: z3.BoolRef) -> int:
        negated = z3.is_not(term)
        atom = term.children()[0] if negated else term
        if not (
            z3.is_const(atom)
            and atom.decl().kind() == z3.Z3_OP_UNINTERPRETED
            and atom.sort() == z3.BoolSort()
        ):
            raise AssertionError(f"not a propositional literal after tseitin-cnf: {term}")
        key = str(atom)
        if key not in index:
            index[key] = len(index) + 1
        return -index[key] if negated else index[key]

    clauses: list[list[int]] = []
    for fact in clausal:
        if z3.is_false(fact):
            clauses.append([])
        elif not z3.is_true(fact):
            clauses.append([literal(t) for t in (fact.children() if z3.is_or(fact) else [fact])])
    return clauses, list(range(1, len(names) + 1))


def _count_z3(facts: list[z3.BoolRef], coordinates: list[z3.BoolRef]) -> int:
    """Models of ``facts`` projected on the Boolean ``coordinates`` (blocking enumeration)."""
    clauses, projection = z3_cnf(facts, coordinates)
    if [] in clauses:
        return 0
    count = 0
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        while solver.solve():
            positive = set(lit for lit in solver.get_model() if lit > 0)
            solver.add_clause([-v if v in positive else v for v in projection])
            count += 1
    return count


def z3_counts(encoding: Z3Encoding) -> dict[str, int]:
    """Model counts of the z3 encoding over its free constants (table, ancestor set)."""
    body = encoding.body
    free = encoding.bits + (encoding.ancestors if has_ancestors(encoding.name) else [])
    return {
        "body": _count_z3(body, free),
        "agree": _count_z3(body + [encoding.agree], free),
        "unique": _count_z3(body + [encoding.unique], free),
        "negation": _count_z3(body + encoding.assertion, free),
    }


@dataclass(frozen=True)
class CountCheck:
    """One statement, one n, one encoding: counted versus expected."""

    statement: str
    n: int
    encoding: str
    counted: dict[str, int]
    expected: dict[str, int]

    @property
    def ok(self) -> bool:
        return self.counted == self.expected


def check_counts(n: int, names: list[str] | None = None) -> list[CountCheck]:
    """Count both encodings of every proved statement (or ``names``) at n."""
    checks = []
    for name in names or [s.name for s in PROVED]:
        expected = expected_counts(name, n)
        checks.append(CountCheck(name, n, "cnf", cnf_counts(encode(name, n)), expected))
        checks.append(CountCheck(name, n, "z3", z3_counts(Z3Encoding(name, n)), expected))
    return checks
