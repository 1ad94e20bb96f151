"""Explicit finite models of the general vocabulary, and what the general queries mean in them.

A *standard structure* is what the faithfulness argument of :mod:`proofs.general` says a
real memory is: items 0..k-1, every subset of them a ``Set`` (a bit mask), ``mem`` =
membership, ``sing(i) = {i}``, ``J`` an antichain of sets (the minimal justifications of c)
and ``A`` a recorded ancestor set ⊇ U. Here z3 formulas are evaluated in such structures
by a small compiled evaluator (no solver), and a query's satisfiability *without its negated
goal* is shown by finding one (:func:`find_model`), so no UNSAT answer can come from
contradictory hypotheses, an extra assertion in a solver, or a contradiction built into a
query. The structure found is then read as a memory graph (``c <- S`` for each J-set, plus
``c <- A`` when A ⊋ U) and every premise atom is recomputed by :mod:`theory`
(:func:`theory_atoms`: minimal justifications, the least fixpoint and exact and influence
revision on every audit), so the model is checked against the semantics, not only against
the encoding's own reading.

>>> import z3
>>> from proofs.general import Vocabulary
>>> v = Vocabulary()
>>> model = find_model([v.antichain(), v.singletons(), v.two_distinct()])
>>> model.items, sorted(sorted(s) for s in model.family), model.describe()
(2, [[0], [1]], '2 item(s), J = {{e1}, {e2}}')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

import z3

from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import base_active
from theory.semantics.revision import downstream_numbers, exact_retired_numbers
from theory.solver.justifications import minimal_justifications
from theory.testing import truthtable

MAX_ITEMS = 3


@dataclass(frozen=True)
class Structure:
    """A standard structure: ``items`` items, the J-sets and A as sets of item numbers."""

    items: int
    family: tuple[frozenset[int], ...]
    ancestors: frozenset[int]

    def describe(self) -> str:
        def name(s: frozenset[int]) -> str:
            return "{" + ",".join(truthtable.item_name(i) for i in sorted(s)) + "}" if s else "∅"

        text = f"{self.items} item(s), J = {{" + ", ".join(name(s) for s in self.family) + "}"
        union = frozenset().union(*self.family)
        return text + (f", A = {name(self.ancestors)}" if self.ancestors != union else "")


Env = list[int]
Compiled = Callable[[Env, dict[str, int], "_World"], object]


class _World:
    def __init__(self, s: Structure) -> None:
        self.items = list(range(s.items))
        self.sets = list(range(1 << s.items))
        self.family = {sum(1 << i for i in j) for j in s.family}
        self.a_mask = sum(1 << i for i in s.ancestors)

    def domain(self, sort: str) -> list[int]:
        return self.items if sort == "Item" else self.sets


def compile_fact(e: z3.ExprRef) -> Compiled:
    """A Python closure evaluating ``e`` in a world (environment: bound variables, innermost
    first; constants: values of the free constants)."""
    if z3.is_var(e):
        k = z3.get_var_index(e)
        return lambda env, consts, w: env[k]
    if z3.is_quantifier(e):
        sorts = [e.var_sort(i).name() for i in range(e.num_vars())]
        body = compile_fact(e.body())
        forall = e.is_forall()

        def quantified(env: Env, consts: dict[str, int], w: _World) -> bool:
            def values(k: int, acc: list[int]) -> Iterator[list[int]]:
                if k == len(sorts):
                    yield acc
                    return
                for value in w.domain(sorts[k]):
                    yield from values(k + 1, acc + [value])

            results = (body(list(reversed(vals)) + env, consts, w) for vals in values(0, []))
            return all(results) if forall else any(results)

        return quantified
    if z3.is_true(e):
        return lambda env, consts, w: True
    if z3.is_false(e):
        return lambda env, consts, w: False
    kids = [compile_fact(k) for k in e.children()]
    kind, name = e.decl().kind(), e.decl().name()
    if kind == z3.Z3_OP_AND:
        return lambda env, consts, w: all(k(env, consts, w) for k in kids)
    if kind == z3.Z3_OP_OR:
        return lambda env, consts, w: any(k(env, consts, w) for k in kids)
    if kind == z3.Z3_OP_NOT:
        (a,) = kids
        return lambda env, consts, w: not a(env, consts, w)
    if kind == z3.Z3_OP_IMPLIES:
        a, b = kids
        return lambda env, consts, w: (not a(env, consts, w)) or bool(b(env, consts, w))
    if kind in (z3.Z3_OP_EQ, z3.Z3_OP_IFF):
        a, b = kids
        return lambda env, consts, w: a(env, consts, w) == b(env, consts, w)
    if kind == z3.Z3_OP_DISTINCT:
        return lambda env, consts, w: len({k(env, consts, w) for k in kids}) == len(kids)
    if kind == z3.Z3_OP_UNINTERPRETED:
        if name == "mem":
            x, s = kids
            return lambda env, consts, w: bool(s(env, consts, w) >> x(env, consts, w) & 1)  # type: ignore[operator]
        if name == "J":
            (s,) = kids
            return lambda env, consts, w: s(env, consts, w) in w.family
        if name == "sing":
            (x,) = kids
            return lambda env, consts, w: 1 << x(env, consts, w)  # type: ignore[operator]
        if name == "A" and not kids:
            return lambda env, consts, w: w.a_mask
        if not kids:
            return lambda env, consts, w: consts[name]
    raise ValueError(f"cannot evaluate {e} in a standard structure")


def free_constants(facts: list[z3.ExprRef]) -> dict[str, str]:
    """Name -> sort of the free constants other than A (Skolem constants: existential)."""
    found: dict[str, str] = {}

    def collect(e: z3.ExprRef) -> None:
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED and str(e) != "A":
            found[str(e)] = e.sort().name()
        if z3.is_quantifier(e):
            collect(e.body())
        for child in e.children():
            collect(child)

    for fact in facts:
        collect(fact)
    return found


def holds(
    facts: list[z3.ExprRef], structure: Structure, compiled: list[Compiled] | None = None
) -> bool:
    """All ``facts`` hold in ``structure`` for some values of their free constants (the
    closed facts are evaluated once, the search runs over the facts with constants)."""
    compiled = compiled if compiled is not None else [compile_fact(f) for f in facts]
    world = _World(structure)
    frees = [free_constants([f]) for f in facts]
    if not all(c([], {}, world) for c, free in zip(compiled, frees) if not free):
        return False
    open_facts = [c for c, free in zip(compiled, frees) if free]
    free = {k: sort for f in frees for k, sort in f.items()}
    names = sorted(free)

    def search(k: int, consts: dict[str, int]) -> bool:
        if k == len(names):
            return all(c([], consts, world) for c in open_facts)
        return any(
            search(k + 1, {**consts, names[k]: value}) for value in world.domain(free[names[k]])
        )

    return search(0, {})


def _antichains(items: int) -> Iterator[tuple[frozenset[int], ...]]:
    sets = [frozenset(i for i in range(items) if x >> i & 1) for x in range(1 << items)]
    for size in range(len(sets) + 1):
        for family in combinations(sets, size):
            if all(not (a < b or b < a) for a, b in combinations(family, 2)):
                yield family


def structures(max_items: int = MAX_ITEMS) -> Iterator[Structure]:
    """Every standard structure with 1..max_items items (A ranging over the supersets of U),
    smallest first."""
    for items in range(1, max_items + 1):
        for family in _antichains(items):
            union = frozenset().union(*family)
            rest = [i for i in range(items) if i not in union]
            for size in range(len(rest) + 1):
                for extra in combinations(rest, size):
                    yield Structure(items, family, union | frozenset(extra))


def find_model(facts: list[z3.ExprRef], max_items: int = MAX_ITEMS) -> Structure | None:
    """The first standard structure (smallest first) in which every fact holds."""
    compiled = [compile_fact(f) for f in facts]
    for structure in structures(max_items):
        if holds(facts, structure, compiled):
            return structure
    return None


def theory_atoms(s: Structure) -> dict[str, bool]:
    """Every atom of :data:`proofs.general.ATOMS` in structure ``s``, computed by theory.

    exact(R) is "c is not active once the evidence R is withdrawn" (theory's exact revision
    retires c, or c was not active at all: the first-order reading, f(E \\ R) = 0);
    influence(R) is "c is downstream of R" in the graph, over U, or (``_A`` atoms) in the
    graph with the extra justification ``c <- A``.
    """
    names = [truthtable.item_name(i) for i in range(s.items)]
    claim = truthtable.CLAIM

    def graph(extra: list[frozenset[int]]) -> SupportStructure:
        return SupportStructure.build(
            names, [claim], [(claim, [names[i] for i in sorted(j)]) for j in list(s.family) + extra]
        )

    simple = graph([])
    found = minimal_justifications(simple, claim)
    union = frozenset(names.index(e) for j in found for e in j)
    index, active = index_of(simple), base_active(simple)
    c = index.number[claim]
    items = [index.number[e] for e in names]
    reach_a = graph([s.ancestors]) if s.ancestors else None
    index_a = index_of(reach_a) if reach_a is not None else None
    audits = range(1 << s.items)

    def exact(r: int) -> bool:
        audit = [items[i] for i in range(s.items) if r >> i & 1]
        return not active[c] or c in exact_retired_numbers(index, active, audit)

    def influence(r: int, over_a: bool) -> bool:
        audit = [i for i in range(s.items) if r >> i & 1]
        if over_a:
            if index_a is None:
                return False
            return index_a.number[claim] in downstream_numbers(
                index_a, [index_a.number[names[i]] for i in audit]
            )
        return c in downstream_numbers(index, [items[i] for i in audit])

    ex = {r: exact(r) for r in audits}
    inf = {r: influence(r, False) for r in audits}
    inf_a = {r: influence(r, True) for r in audits}
    singles = [1 << i for i in range(s.items)]
    unique = len(found) == 1
    return {
        "active": bool(active[c]),
        "unique": unique,
        "two_distinct": len(found) >= 2,
        "agree": all(ex[r] == inf[r] for r in audits),
        "agree_on_singletons": all(ex[r] == inf[r] for r in singles),
        "disagree": any(ex[r] != inf[r] for r in audits),
        "over_revised": any(inf[r] and not ex[r] for r in audits),
        "under_revised": any(ex[r] and not inf[r] for r in audits),
        "covers": union <= s.ancestors,
        "unique_is_A": unique and s.ancestors == union,
        "agree_A": all(ex[r] == inf_a[r] for r in audits),
        "agree_on_singletons_A": all(ex[r] == inf_a[r] for r in singles),
        "over_revised_A": any(inf_a[r] and not ex[r] for r in audits),
        "under_revised_A": any(ex[r] and not inf_a[r] for r in audits),
        "redundant_ancestor": bool(s.ancestors - union),
        "some_J_inside_union": bool(found),
    }
