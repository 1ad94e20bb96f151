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
are put through z3's own clausal form (:func:`proofs.counting.z3_cnf`) and tested the same
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
    clauses, projection = counting.z3_cnf(z3_lex_leader(bits, n, variant), bits)
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
        n=n,
        variant=variant,
        monotone=len(tables),
        orbits=len(all_orbits),
        orbits_lost=sum(1 for orbit in all_orbits if not orbit & cnf),
        kept_cnf=len(cnf),
        kept_z3=len(z3_set),
        cnf_equals_z3=cnf == z3_set,
        cnf_equals_reference=cnf == reference_kept(tables, n),
    )


# --- every certified n: sampled orbits against the emitted constraints ---------------------


def leader(table: Table, n: int) -> Table:
    """A member of ``table``'s orbit with rank(t) <= rank(t∘(i j)) for every transposition:
    repeatedly apply the transposition that lowers the rank most, until none does (the
    construction in the proof of the Coq theorem ``lex_leader_sound``; it terminates because
    the rank decreases)."""
    swaps = [transposition(i, j, n) for i, j in combinations(range(n), 2)]
    while True:
        best = min((permute(table, p, n) for p in swaps), key=rank)
        if rank(best) >= rank(table):
            return table
        table = best


@dataclass(frozen=True)
class EmittedSymmetryCheck:
    """The lex-leader constraints one statement's encodings emit at one n, on samples."""

    statement: str
    n: int
    samples: int
    leaders_rejected: tuple[int, ...]  # truth tables (as ints) of orbit leaders an encoding drops
    differ_from_reference: tuple[int, ...]  # tables on which CNF, z3 and the reference differ

    @property
    def ok(self) -> bool:
        return not self.leaders_rejected and not self.differ_from_reference


def _as_int(table: Table) -> int:
    return sum(1 << x for x, bit in enumerate(table) if bit)


def check_emitted(name: str, n: int, count: int = 12, seed: int = 0) -> EmittedSymmetryCheck:
    """For sampled monotone tables t (the structured ones, several invariant under renamings,
    and random ones): the orbit leader of t satisfies the symmetry clauses of
    ``encode(name, n, symmetry=True)`` and the symmetry facts of ``Z3Encoding(name, n,
    symmetry=True)`` (so its orbit survives), and on t, its leader and a random renaming of
    t, both encodings keep a table exactly when the rank reference does."""
    import random

    import z3

    from proofs import reference
    from proofs.cnf_encoding import encode

    rng = random.Random(f"symmetry/{name}/{n}/{seed}")
    tables = reference.structured(n)
    while len(tables) < count:
        tables.append(reference.random_monotone(n, rng))
    clauses = encode(name, n, symmetry=True).symmetry
    z3_encoding = Z3Encoding(name, n, symmetry=True)
    z3_solver = z3.SolverFor("QF_FD")
    z3_solver.add(z3_encoding.symmetry)
    swaps = [transposition(i, j, n) for i, j in combinations(range(n), 2)]
    rejected, differ = [], []
    with Solver(name="cadical195", bootstrap_with=clauses) as cnf:

        def kept(t: Table) -> tuple[bool, bool]:
            by_cnf = cnf.solve(assumptions=[(x + 1) if b else -(x + 1) for x, b in enumerate(t)])
            z3_solver.push()
            z3_solver.add(z3_encoding.table == _as_int(t))
            by_z3 = z3_solver.check() == z3.sat
            z3_solver.pop()
            return bool(by_cnf), by_z3

        for t in tables:
            lead = leader(t, n)
            if kept(lead) != (True, True):
                rejected.append(_as_int(lead))
            renamed = permute(t, tuple(rng.sample(range(n), n)), n)
            for u in (t, lead, renamed):
                want = all(rank(u) <= rank(permute(u, p, n)) for p in swaps)
                if kept(u) != (want, want):
                    differ.append(_as_int(u))
    return EmittedSymmetryCheck(name, n, len(tables), tuple(rejected[:5]), tuple(differ[:5]))
