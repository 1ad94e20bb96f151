"""Exhaustive check of lex-leader symmetry breaking at one n (n = 4 and 5 in the tests).

Soundness of symmetry breaking (proved in general in ``proofs/coq/Symmetry.v``) rests on
two things this module checks for the actual constraints, on every monotone function:

- every orbit under *all* n! renamings of the items keeps at least one member (so a
  counterexample, if there were one, would survive in some member of its orbit);
- the CNF constraints (:func:`proofs.symmetry.lex_leader`) and the z3 constraints
  (:func:`proofs.z3_bounded.lex_leader`) keep exactly the same tables, namely the tables t
  with rank(t) <= rank(t∘(i j)) for every transposition, rank being the binary value with
  index 0 most significant (the reference, computed here in Python).

For the CNF, a table is kept when the monotonicity + lex clauses are satisfiable with the
table fixed (the prefix-equality chain variables are existential); for z3, the lex facts
are put through z3's own clausal form (:func:`proofs.counting._z3_cnf`) and tested the same
way.

>>> check_symmetry(3).ok
True
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations

from pysat.solvers import Solver

from proofs import counting
from proofs.cnf_encoding import Builder
from proofs.symmetry import lex_leader as cnf_lex_leader
from proofs.z3_bounded import Z3Encoding
from proofs.z3_bounded import lex_leader as z3_lex_leader

Table = tuple[bool, ...]


def _image(x: int, p: tuple[int, ...], n: int) -> int:
    return sum(1 << p[i] for i in range(n) if x >> i & 1)


def permute(table: Table, p: tuple[int, ...], n: int) -> Table:
    """t∘p: (t∘p)(X) = t(p(X))."""
    return tuple(table[_image(x, p, n)] for x in range(1 << n))


def rank(table: Table) -> int:
    """Binary value, index 0 most significant (the lexicographic order of the encodings)."""
    value = 0
    for bit in table:
        value = 2 * value + bit
    return value


def transposition(i: int, j: int, n: int) -> tuple[int, ...]:
    p = list(range(n))
    p[i], p[j] = j, i
    return tuple(p)


def reference_kept(tables: list[Table], n: int) -> set[Table]:
    swaps = [transposition(i, j, n) for i, j in combinations(range(n), 2)]
    return {t for t in tables if all(rank(t) <= rank(permute(t, p, n)) for p in swaps)}


def orbits(tables: list[Table], n: int) -> list[set[Table]]:
    seen: set[Table] = set()
    found = []
    for t in tables:
        if t in seen:
            continue
        orbit = {permute(t, p, n) for p in permutations(range(n))}
        seen |= orbit
        found.append(orbit)
    return found


def _kept(clauses: list[list[int]], tables: list[Table]) -> set[Table]:
    kept = set()
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        for t in tables:
            if solver.solve(assumptions=[(x + 1) if b else -(x + 1) for x, b in enumerate(t)]):
                kept.add(t)
    return kept


def cnf_kept(tables: list[Table], n: int, variant: str = "sound") -> set[Table]:
    size = 1 << n
    b = Builder(reserved=size)
    cnf_lex_leader(b, n, [x + 1 for x in range(size)], variant=variant)
    return _kept(b.clauses, tables)


def z3_kept(tables: list[Table], n: int, variant: str = "sound") -> set[Table]:
    bits = Z3Encoding("boundary", n).bits
    clauses, projection = counting._z3_cnf(z3_lex_leader(bits, n, variant), bits)
    assert projection == [x + 1 for x in range(1 << n)]
    return _kept(clauses, tables)


@dataclass(frozen=True)
class SymmetryCheck:
    n: int
    variant: str
    monotone: int
    orbits: int
    orbits_lost: int
    kept_cnf: int
    kept_z3: int
    cnf_equals_z3: bool
    cnf_equals_reference: bool

    @property
    def ok(self) -> bool:
        return self.orbits_lost == 0 and self.cnf_equals_z3 and self.cnf_equals_reference


def check_symmetry(n: int, variant: str = "sound") -> SymmetryCheck:
    tables = list(counting.monotone_tables(n))
    cnf, z3_set = cnf_kept(tables, n, variant), z3_kept(tables, n, variant)
    all_orbits = orbits(tables, n)
    return SymmetryCheck(
        n=n, variant=variant, monotone=len(tables), orbits=len(all_orbits),
        orbits_lost=sum(1 for orbit in all_orbits if not orbit & cnf),
        kept_cnf=len(cnf), kept_z3=len(z3_set), cnf_equals_z3=cnf == z3_set,
        cnf_equals_reference=cnf == reference_kept(tables, n),
    )
