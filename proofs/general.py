"""General proofs in z3: one first-order encoding covers every finite universe at once.

Sorts ``Item`` (evidence items) and ``Set`` (evidence sets), with ``mem(x, S)``. ``J(S)``
says S is a minimal justification of the claim c; the axioms make the family an antichain
and give every item its singleton set ``sing(e)``. With E the full set:

- f(X) = 1 iff some J-set lies inside X, so f(E \\ R) = 1 iff some J-set is disjoint from R
- exact(R)      := no J-set is disjoint from R            (c retired by exact revision)
- influence(R)  := R meets A, where A = U (the union of the J-sets) or a recorded A ⊇ U
- unique        := some J-set S and every J-set has the members of S
- active        := some J-set exists (f(E) = 1)

Faithfulness: for a finite E and a monotone f, the structure Set = 2^E, mem = ∈, J = the
minimal true sets of f satisfies every axiom (the minimal true sets form an antichain, every
true set contains one since E is finite, singletons exist). So a finite counterexample to a
statement would be a model of its negation; UNSAT rules out counterexamples for every finite
E (z3 in fact rules them out in every model, infinite and non-standard ones included).
Each statement below is asserted negated; each mutant weakens one ingredient and must be SAT.

Audits of claims and mixed audits (``general:audit_criterion_if``/``_only_if``): for audits
drawn from a set D of a graph's nodes (its claims, or all its nodes), read Item = D, J = the
minimal sets K of D such that c is active when the nodes of D outside K are audited (the
minimal justifications of c in the gated graph, :func:`theory.safety.check.gated`), and
A = the members of D that are c or an ancestor of c. The axioms hold (the minimal sets of a
finite family form an antichain), exact revision of R retires c iff no J-set misses R
because exact revision is monotone in the audit (Coq ``alive_antimono``), and A covers the
union of the J-sets because an audit that meets neither c nor its ancestors leaves c active
(Coq ``alive_untouched``). The criterion then says: influence over A agrees with exact
revision on every audit iff it does on every one-item audit {x}, x in A.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from proofs import explicit_models
from proofs.explicit_models import Structure
from proofs.results import SAT, UNKNOWN, UNSAT, VACUOUS, Countermodel, ProofResult


class Vocabulary:
    """Sorts, symbols and the derived predicates of the encoding."""

    def __init__(self) -> None:
        # a fresh context per proof step: z3's search then does not depend on what ran before
        self.ctx = z3.Context()
        self.Item = z3.DeclareSort("Item", self.ctx)
        self.Set = z3.DeclareSort("Set", self.ctx)
        self.mem = z3.Function("mem", self.Item, self.Set, z3.BoolSort(self.ctx))
        self.J = z3.Function("J", self.Set, z3.BoolSort(self.ctx))
        self.sing = z3.Function("sing", self.Item, self.Set)
        self.A = z3.Const("A", self.Set)  # recorded evidence ancestors (refined statement)
        self._count = 0

    def _x(self) -> z3.ExprRef:
        self._count += 1
        return z3.Const(f"x{self._count}", self.Item)

    def _s(self) -> z3.ExprRef:
        self._count += 1
        return z3.Const(f"S{self._count}", self.Set)

    # set relations
    def subset(self, s: z3.ExprRef, t: z3.ExprRef) -> z3.BoolRef:
        x = self._x()
        return z3.ForAll([x], z3.Implies(self.mem(x, s), self.mem(x, t)))

    def same(self, s: z3.ExprRef, t: z3.ExprRef) -> z3.BoolRef:
        x = self._x()
        return z3.ForAll([x], self.mem(x, s) == self.mem(x, t))

    def disjoint(self, s: z3.ExprRef, r: z3.ExprRef) -> z3.BoolRef:
        x = self._x()
        return z3.ForAll([x], z3.Not(z3.And(self.mem(x, s), self.mem(x, r))))

    # axioms
    def antichain(self) -> z3.BoolRef:
        s, t = self._s(), self._s()
        return z3.ForAll(
            [s, t], z3.Implies(z3.And(self.J(s), self.J(t), self.subset(s, t)), self.same(s, t))
        )

    def singletons(self) -> z3.BoolRef:
        e, x = self._x(), self._x()
        return z3.ForAll([e, x], self.mem(x, self.sing(e)) == (x == e))

    # semantics
    def active(self) -> z3.BoolRef:
        s = self._s()
        return z3.Exists([s], self.J(s))

    def exact(self, r: z3.ExprRef) -> z3.BoolRef:
        s = self._s()
        return z3.Not(z3.Exists([s], z3.And(self.J(s), self.disjoint(s, r))))

    def in_union(self, x: z3.ExprRef) -> z3.BoolRef:
        s = self._s()
        return z3.Exists([s], z3.And(self.J(s), self.mem(x, s)))

    def influence(self, r: z3.ExprRef, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        x = self._x()
        member = self.in_union(x) if ancestors is None else self.mem(x, ancestors)
        return z3.Exists([x], z3.And(self.mem(x, r), member))

    def count_at_most(self, k: int) -> z3.BoolRef:
        sets = [self._s() for _ in range(k + 1)]
        distinct = [z3.Not(self.same(a, b)) for i, a in enumerate(sets) for b in sets[i + 1 :]]
        return z3.Not(z3.Exists(sets, z3.And(*[self.J(s) for s in sets], *distinct)))

    def unique(self) -> z3.BoolRef:
        s, t = self._s(), self._s()
        return z3.Exists(
            [s], z3.And(self.J(s), z3.ForAll([t], z3.Implies(self.J(t), self.same(t, s))))
        )

    def unique_is(self, target: z3.ExprRef) -> z3.BoolRef:
        """unique, and the ancestor set equals the unique J-set."""
        s, t = self._s(), self._s()
        return z3.Exists(
            [s],
            z3.And(
                self.J(s),
                self.same(s, target),
                z3.ForAll([t], z3.Implies(self.J(t), self.same(t, s))),
            ),
        )

    def ancestors_cover_union(self) -> z3.BoolRef:
        x = self._x()
        return z3.ForAll([x], z3.Implies(self.in_union(x), self.mem(x, self.A)))

    def agree(self, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        r = self._s()
        return z3.ForAll([r], self.exact(r) == self.influence(r, ancestors))

    def disagree(self, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        r = self._s()
        return z3.Exists([r], self.exact(r) != self.influence(r, ancestors))

    def at_most_items(self, k: int) -> z3.BoolRef:
        """The universe has at most k items (used only to shrink a SAT countermodel)."""
        names = [z3.Const(f"item{i}", self.Item) for i in range(k)]
        x = self._x()
        return z3.ForAll([x], z3.Or(*[x == c for c in names]))

    def two_distinct(self) -> z3.BoolRef:
        s, t = self._s(), self._s()
        return z3.Exists([s, t], z3.And(self.J(s), self.J(t), z3.Not(self.same(s, t))))

    def agree_on_singletons(self, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        e = self._x()
        return z3.ForAll([e], self.exact(self.sing(e)) == self.influence(self.sing(e), ancestors))

    def under_revised(self, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        """Some audit retires c exactly but not by influence (exact ⊄ influence)."""
        r = self._s()
        return z3.Exists([r], z3.And(self.exact(r), z3.Not(self.influence(r, ancestors))))

    def over_revised(self, ancestors: z3.ExprRef | None = None) -> z3.BoolRef:
        """Some audit retires c by influence but not exactly."""
        r = self._s()
        return z3.Exists([r], z3.And(self.influence(r, ancestors), z3.Not(self.exact(r))))

    def some_j_inside_union(self) -> z3.BoolRef:
        s, x = self._s(), self._x()
        return z3.Exists(
            [s], z3.And(self.J(s), z3.ForAll([x], z3.Implies(self.mem(x, s), self.in_union(x))))
        )

    def redundant_ancestor(self) -> z3.BoolRef:
        e = self._x()
        return z3.Exists([e], z3.And(self.mem(e, self.A), z3.Not(self.in_union(e))))


Part = Callable[[Vocabulary], list]


@dataclass(frozen=True)
class GeneralStatement:
    """A statement proved by refuting each part (each part is a negated step, UNSAT)."""

    name: str
    text: str
    parts: tuple[tuple[str, Part], ...]
    mutant_of: str | None = None
    axioms: tuple[str, ...] = ("antichain", "singletons")
    steps: tuple[Step, ...] = ()  # a proved statement's parts are these steps' queries

    def __post_init__(self) -> None:
        if self.steps and len(self.steps) != len(self.parts):
            raise ValueError(f"{self.name}: one step per part")


def _inclusion(v: Vocabulary, swapped: bool = False) -> list:
    r = v._s()
    # none retires exactly the audited items; exact and influence retire the audited items too
    # (they are active evidence), so none ⊆ exact holds item-wise; for the claim, none retires
    # nothing (c is not in an audit of evidence). The claim-level question is exact ⊆ influence.
    small, large = (v.influence(r), v.exact(r)) if swapped else (v.exact(r), v.influence(r))
    return [v.active(), z3.Exists([r], z3.And(small, z3.Not(large)))]


def _one_item(v: Vocabulary) -> list:
    return [v.active(), v.disagree(), v.agree_on_singletons()]


@dataclass(frozen=True)
class Step:
    """One step of a multi-step proof: the premises (a conjunction of atom literals) entail
    the conclusion (a disjunction of atom literals; empty means False). Its z3 query is built
    from these atoms only, premises ∧ ¬conclusion, so a step cannot be swapped for an
    unrelated (say trivially UNSAT) query without changing the atoms that
    :mod:`proofs.chaining` chains propositionally. A literal is an atom name, ``!`` negates."""

    label: str
    premises: tuple[str, ...]
    conclusion: tuple[str, ...] = ()
    # an explicit finite model of the premises: (number of items, the J-sets, the set A)
    witness: tuple[int, tuple[frozenset[int], ...], frozenset[int]] | None = None

    def query(self, v: Vocabulary) -> list:
        """The premises, then (last) the negated conclusion: the order the non-vacuity check
        relies on to leave the goal out."""
        facts = [literal(v, p, premise=True) for p in self.premises]
        if self.conclusion:
            facts.append(self.negated_goal(v))
        return facts

    def negated_goal(self, v: Vocabulary) -> z3.BoolRef:
        return z3.Not(z3.Or(*[literal(v, c) for c in self.conclusion]))


def _over_revised_skolem(v: Vocabulary) -> z3.BoolRef:
    # ∃ r x S T. mem(x, r) ∧ J(S) ∧ mem(x, S) ∧ J(T) ∧ T ∩ r = ∅, Skolemized by hand
    # (equisatisfiable where the atom is asserted positively, i.e. as a premise)
    r, x, s, t = (
        z3.Const(name, sort)
        for name, sort in (("r", v.Set), ("x", v.Item), ("S", v.Set), ("T", v.Set))
    )
    return z3.And(v.mem(x, r), v.J(s), v.mem(x, s), v.J(t), v.disjoint(t, r))


def _over_revised(v: Vocabulary) -> z3.BoolRef:
    return v.over_revised()


# The predicates steps are stated in. ``premise`` forms (Skolemized) are used only where the
# atom is asserted positively, which keeps the query equisatisfiable.
ATOMS: dict[str, Callable[[Vocabulary], z3.ExprRef]] = {
    "active": lambda v: v.active(),
    "unique": lambda v: v.unique(),
    "two_distinct": lambda v: v.two_distinct(),
    "agree": lambda v: v.agree(),
    "agree_on_singletons": lambda v: v.agree_on_singletons(),
    "disagree": lambda v: v.disagree(),
    "over_revised": _over_revised,
    "covers": lambda v: v.ancestors_cover_union(),
    "unique_is_A": lambda v: v.unique_is(v.A),
    "agree_A": lambda v: v.agree(v.A),
    "agree_on_singletons_A": lambda v: v.agree_on_singletons(v.A),
    "redundant_ancestor": lambda v: v.redundant_ancestor(),
    "under_revised": lambda v: v.under_revised(),
    "over_revised_A": lambda v: v.over_revised(v.A),
    "under_revised_A": lambda v: v.under_revised(v.A),
    "some_J_inside_union": lambda v: v.some_j_inside_union(),
}
PREMISE_FORMS: dict[str, Callable[[Vocabulary], z3.ExprRef]] = {
    "over_revised": _over_revised_skolem
}


def literal(v: Vocabulary, lit: str, premise: bool = False) -> z3.ExprRef:
    negated = lit.startswith("!")
    name = lit.lstrip("!")
    form = PREMISE_FORMS.get(name) if premise and not negated else None
    atom = (form or ATOMS[name])(v)
    return z3.Not(atom) if negated else atom


# The only-if directions are chained through singleton audits; z3 decides each step at once,
# while the one-shot formulation (two quantifier alternations deeper) is much harder.
ONLY_IF_STEPS = (
    Step(
        "not unique => two distinct J-sets",
        ("active", "!unique"),
        ("two_distinct",),
        witness=(2, (frozenset({0}), frozenset({1})), frozenset()),
    ),
    Step(
        "agree on all audits => agree on singleton audits",
        ("agree",),
        ("agree_on_singletons",),
        witness=(1, (frozenset({0}),), frozenset()),
    ),
    Step(
        "two distinct J-sets => disagree on a singleton audit",
        ("two_distinct",),
        ("!agree_on_singletons",),
        witness=(2, (frozenset({0}), frozenset({1})), frozenset()),
    ),
)
REFINED_ONLY_IF_STEPS = (
    Step(
        "not (unique S and A = S) => two distinct J-sets or an item of A outside U",
        ("active", "covers", "!unique_is_A"),
        ("two_distinct", "redundant_ancestor"),
        witness=(2, (frozenset({0}),), frozenset({0, 1})),
    ),
    Step(
        "agree on all audits => agree on singleton audits",
        ("agree_A",),
        ("agree_on_singletons_A",),
        witness=(1, (frozenset({0}),), frozenset({0})),
    ),
    Step(
        "two distinct J-sets => disagree on a singleton audit",
        ("active", "covers", "two_distinct"),
        ("!agree_on_singletons_A",),
        witness=(2, (frozenset({0}), frozenset({1})), frozenset({0, 1})),
    ),
    Step(
        "an item of A outside U => disagree on a singleton audit",
        ("active", "covers", "redundant_ancestor"),
        ("!agree_on_singletons_A",),
        witness=(2, (frozenset({0}),), frozenset({0, 1})),
    ),
)
ONE_ITEM_STEPS = (
    Step(
        "a disagreement is an over-revision (exact ⊆ influence)",
        ("active", "disagree"),
        ("over_revised",),
        witness=(2, (frozenset({0}), frozenset({1})), frozenset()),
    ),
    Step(
        "an over-revision on R => one on a one-item audit",
        ("over_revised",),
        ("!agree_on_singletons",),
        witness=(2, (frozenset({0}), frozenset({1})), frozenset()),
    ),
)
# The second path of the statements proved by one query: a chain through over- and
# under-revision (the if directions) or through a J-set inside U (inclusion).
Witness = tuple[int, tuple[frozenset[int], ...], frozenset[int]]
_ONE: Witness = (1, (frozenset({0}),), frozenset())
_ONE_A: Witness = (1, (frozenset({0}),), frozenset({0}))
BOUNDARY_IF_STEPS = (
    Step("unique => no over-revision", ("active", "unique"), ("!over_revised",), witness=_ONE),
    Step("exact ⊆ influence: no under-revision", ("active",), ("!under_revised",), witness=_ONE),
    Step(
        "no over- and no under-revision => agree",
        ("!over_revised", "!under_revised"),
        ("agree",),
        witness=_ONE,
    ),
)
REFINED_IF_STEPS = (
    Step(
        "unique S and A = S => no over-revision over A",
        ("active", "covers", "unique_is_A"),
        ("!over_revised_A",),
        witness=_ONE_A,
    ),
    Step(
        "exact ⊆ influence over A ⊇ U", ("active", "covers"), ("!under_revised_A",), witness=_ONE_A
    ),
    Step(
        "no over- and no under-revision over A => agree over A",
        ("!over_revised_A", "!under_revised_A"),
        ("agree_A",),
        witness=_ONE_A,
    ),
)
INCLUSION_STEPS = (
    Step(
        "an active claim has a J-set inside U", ("active",), ("some_J_inside_union",), witness=_ONE
    ),
    Step(
        "a J-set inside U survives every audit that misses U",
        ("some_J_inside_union",),
        ("!under_revised",),
        witness=_ONE,
    ),
)
# The checker's criterion over any ancestor set A ⊇ U (audits of claims, mixed audits).
AUDIT_CRITERION_IF_STEPS = (
    Step(
        "agree on one-item audits over A => no over-revision over A",
        ("agree_on_singletons_A",),
        ("!over_revised_A",),
        witness=_ONE_A,
    ),
    REFINED_IF_STEPS[1],
    REFINED_IF_STEPS[2],
)
AUDIT_CRITERION_ONLY_IF_STEPS = (
    Step(
        "agree over A => no over-revision over A",
        ("agree_A",),
        ("!over_revised_A",),
        witness=_ONE_A,
    ),
    REFINED_IF_STEPS[1],
    Step(
        "no over- and no under-revision over A => agree on one-item audits over A",
        ("!over_revised_A", "!under_revised_A"),
        ("agree_on_singletons_A",),
        witness=_ONE_A,
    ),
)
# The statements proved by one query, as steps (their one part is this step's query).
SINGLE: dict[str, Step] = {
    "general:boundary_if": Step("unique => agree", ("active", "unique"), ("agree",)),
    "general:refined_if": Step(
        "unique S and A = S => agree over A", ("active", "covers", "unique_is_A"), ("agree_A",)
    ),
    "general:inclusion": Step("exact ⊆ influence", ("active",), ("!under_revised",)),
    "general:audit_criterion_only_if": Step(
        "agree over A ⊇ U => agree on every one-item audit over A",
        ("active", "covers", "agree_A"),
        ("agree_on_singletons_A",),
    ),
}
# What each chained statement claims, in the same atoms: premises => conclusion.
CLAIMS: dict[str, Step] = {
    **SINGLE,
    "general:boundary_only_if": Step("agree => unique", ("active", "agree"), ("unique",)),
    "general:refined_only_if": Step(
        "agree over A ⊇ U => unique S and A = S", ("active", "covers", "agree_A"), ("unique_is_A",)
    ),
    "general:one_item": Step(
        "a disagreement => one on a one-item audit",
        ("active", "disagree"),
        ("!agree_on_singletons",),
    ),
    "general:audit_criterion_if": Step(
        "agree on every one-item audit over A ⊇ U => agree over A",
        ("active", "covers", "agree_on_singletons_A"),
        ("agree_A",),
    ),
}
STEPS: dict[str, tuple[Step, ...]] = {
    "general:boundary_only_if": ONLY_IF_STEPS,
    "general:refined_only_if": REFINED_ONLY_IF_STEPS,
    "general:one_item": ONE_ITEM_STEPS,
    "general:boundary_if": BOUNDARY_IF_STEPS,
    "general:refined_if": REFINED_IF_STEPS,
    "general:inclusion": INCLUSION_STEPS,
    "general:audit_criterion_if": AUDIT_CRITERION_IF_STEPS,
    "general:audit_criterion_only_if": AUDIT_CRITERION_ONLY_IF_STEPS,
}


def _query(step: Step) -> Part:
    return lambda v: step.query(v)  # looked up when solved, not when the table is built


def _parts(steps: tuple[Step, ...]) -> tuple[tuple[str, Part], ...]:
    return tuple((step.label, _query(step)) for step in steps)


_ONLY_IF = _parts(ONLY_IF_STEPS)
_REFINED_BASE = lambda v: [v.active(), v.ancestors_cover_union()]  # noqa: E731
_REFINED_ONLY_IF = _parts(REFINED_ONLY_IF_STEPS)
_ONE_ITEM = _parts(ONE_ITEM_STEPS)


def _one(label: str, part: Part) -> tuple[tuple[str, Part], ...]:
    return ((label, part),)


GENERAL: dict[str, GeneralStatement] = {
    s.name: s
    for s in (
        GeneralStatement(
            "general:boundary_if",
            "support-function form (active c, audits of evidence, influence over U): "
            "unique minimal justification => agree on every audit",
            _one("", _query(SINGLE["general:boundary_if"])),
            steps=(SINGLE["general:boundary_if"],),
        ),
        GeneralStatement(
            "general:boundary_only_if",
            "support-function form (active c, audits of evidence, influence over U): "
            "agree on every audit => unique minimal justification",
            _ONLY_IF,
            steps=ONLY_IF_STEPS,
        ),
        GeneralStatement(
            "general:refined_if",
            "unique S and A = S => agree (influence over A ⊇ U)",
            _one("", _query(SINGLE["general:refined_if"])),
            steps=(SINGLE["general:refined_if"],),
        ),
        GeneralStatement(
            "general:refined_only_if",
            "agree (influence over A ⊇ U) => unique S and A = S",
            _REFINED_ONLY_IF,
            steps=REFINED_ONLY_IF_STEPS,
        ),
        GeneralStatement(
            "general:inclusion",
            "none ⊆ exact ⊆ influence",
            _one("", _query(SINGLE["general:inclusion"])),
            steps=(SINGLE["general:inclusion"],),
        ),
        GeneralStatement(
            "general:one_item",
            "disagree on some audit => disagree on a one-item audit",
            _ONE_ITEM,
            steps=ONE_ITEM_STEPS,
        ),
        GeneralStatement(
            "general:audit_criterion_if",
            "audits of claims or mixed (A = the audited nodes that are c or its ancestors, "
            "A ⊇ U): agree on every one-item audit {x}, x in A => agree on every audit",
            _parts(AUDIT_CRITERION_IF_STEPS),
            steps=AUDIT_CRITERION_IF_STEPS,
        ),
        GeneralStatement(
            "general:audit_criterion_only_if",
            "audits of claims or mixed: agree on every audit => agree on every one-item audit",
            _one("", _query(SINGLE["general:audit_criterion_only_if"])),
            steps=(SINGLE["general:audit_criterion_only_if"],),
        ),
        GeneralStatement(
            "general:audit_criterion_if~no_covers",
            "mutant: A ⊇ U dropped (a model with at most two items is asked for)",
            _one(
                "",
                lambda v: [
                    v.active(),
                    v.agree_on_singletons(v.A),
                    z3.Not(v.agree(v.A)),
                    v.at_most_items(2),
                ],
            ),
            mutant_of="general:audit_criterion_if",
        ),
        GeneralStatement(
            "general:audit_criterion_only_if~no_agreement",
            "mutant: the agreement on every audit dropped",
            _one(
                "",
                lambda v: [
                    v.active(),
                    v.ancestors_cover_union(),
                    z3.Not(v.agree_on_singletons(v.A)),
                ],
            ),
            mutant_of="general:audit_criterion_only_if",
        ),
        GeneralStatement(
            "general:boundary_if~at_most_two",
            "mutant: 'unique' replaced by 'at most two'",
            _one("", lambda v: [v.active(), v.count_at_most(2), v.disagree()]),
            mutant_of="general:boundary_if",
        ),
        GeneralStatement(
            "general:boundary_only_if~no_singletons",
            "mutant: singleton axiom dropped",
            _ONLY_IF[2:],
            mutant_of="general:boundary_only_if",
            axioms=("antichain",),
        ),
        GeneralStatement(
            "general:refined_if~no_ancestor_condition",
            "mutant: condition A = S dropped",
            _one("", lambda v: _REFINED_BASE(v) + [v.unique(), v.disagree(v.A)]),
            mutant_of="general:refined_if",
        ),
        GeneralStatement(
            "general:refined_only_if~no_singletons",
            "mutant: singleton axiom dropped",
            _REFINED_ONLY_IF[3:],
            mutant_of="general:refined_only_if",
            axioms=("antichain",),
        ),
        GeneralStatement(
            "general:inclusion~swapped",
            "mutant: influence ⊆ exact",
            _one("", lambda v: _inclusion(v, swapped=True)),
            mutant_of="general:inclusion",
        ),
        GeneralStatement(
            "general:one_item~no_singletons",
            "mutant: singleton axiom dropped",
            _one("", _one_item),
            mutant_of="general:one_item",
            axioms=("antichain",),
        ),
    )
}


def timeout_ms(seconds: float) -> int:
    """z3's ``timeout`` for ``seconds``: whole milliseconds rounded up and at least 1 (z3
    reads 0 as no limit), at most z3's 32-bit maximum; ValueError outside (0, 4294967.295]."""
    if not 0 < seconds <= (2**32 - 1) / 1000:
        raise ValueError(f"timeout must be > 0 and at most 4294967.295 s, got {seconds!r}")
    return max(1, min(2**32 - 1, math.ceil(seconds * 1000)))


def prove_general(name: str, timeout_s: float = 60.0, drop_antichain: bool = False) -> ProofResult:
    """Refute every part; UNSAT iff all parts are UNSAT, SAT (with a model) if one part is.

    Each UNSAT part of a proved statement is then shown non-vacuous (:func:`not_vacuous`)
    on exactly the assertions its solver held: an explicit model of all of them but the
    negated goal, checked against theory; a part without one is ``VACUOUS``, not a proof.
    """
    spec = GENERAL[name]
    start = time.perf_counter()
    result, countermodel, steps = UNSAT, None, []
    for k, (label, part) in enumerate(spec.parts):
        v = Vocabulary()
        solver = z3.Solver(ctx=v.ctx)
        solver.set("timeout", timeout_ms(timeout_s))
        axioms = {"antichain": v.antichain, "singletons": v.singletons}
        for axiom in spec.axioms:
            if not (drop_antichain and axiom == "antichain"):
                solver.add(axioms[axiom]())
        facts = part(v)
        solver.add(*facts)
        answer = solver.check()
        model = None
        if answer == z3.sat:  # look for the smallest universe, for a readable countermodel
            model = solver.model()  # (a smaller search may time out: keep this one)
            for size in range(1, 9):
                solver.push()
                solver.add(v.at_most_items(size))
                if solver.check() == z3.sat:
                    model = solver.model()
                    break
                solver.pop()
        step = SAT if answer == z3.sat else UNSAT if answer == z3.unsat else UNKNOWN
        entry: dict[str, object] = {"step": label or spec.text, "result": step}
        if step == UNSAT and spec.steps:
            check = not_vacuous(v, list(solver.assertions()), facts[-1], spec.steps[k])
            entry["model"] = check.describe()
            if not check.ok:
                step = entry["result"] = VACUOUS
        steps.append(entry)
        if step == SAT:
            over_a = "refined" in name or "audit_criterion" in name  # influence over A
            result, countermodel = SAT, decode_general(v, model, over_a)
            break
        if step in (UNKNOWN, VACUOUS):
            result = step
    return ProofResult(
        statement=name + ("~no_antichain" if drop_antichain else ""),
        n=None,
        solver="z3 (first-order)",
        result=result,
        seconds=time.perf_counter() - start,
        expected=SAT if spec.mutant_of else UNSAT,
        mutant=spec.mutant_of is not None,
        countermodel=countermodel,
        details={"steps": steps},
    )


@dataclass(frozen=True)
class NonVacuity:
    """The evidence that an UNSAT query is refuted by its goal and not by its hypotheses.

    ``model``: a standard structure in which every assertion but the negated goal holds
    (None: there is none with up to three items, so the UNSAT answer may be vacuous);
    ``theory_wrong``: premise literals that theory says are false in it (the assertions do
    not mean what the step's atoms say); ``goal_wrong``: the goal left out is not the
    negated conclusion (it differs from it in some small structure, or holds in the model).
    """

    model: Structure | None
    theory_wrong: tuple[str, ...] = ()
    goal_wrong: bool = False

    @property
    def ok(self) -> bool:
        return self.model is not None and not self.theory_wrong and not self.goal_wrong

    def describe(self) -> str:
        if self.model is None:
            return "no model without the negated goal (vacuous)"
        text = "model without the goal: " + self.model.describe()
        if self.theory_wrong:
            text += "; theory disagrees on " + ", ".join(self.theory_wrong)
        if self.goal_wrong:
            text += "; the goal left out is not the negated conclusion"
        return text


def not_vacuous(v: Vocabulary, assertions: list, goal: z3.BoolRef, step: Step) -> NonVacuity:
    """Check a solved query: ``assertions`` (everything its solver held) minus ``goal`` (the
    query's last fact) has an explicit standard model, whose premise atoms theory confirms
    (:func:`proofs.explicit_models.theory_atoms`), and ``goal`` is the step's negated
    conclusion: equal to a freshly built one in every structure with up to two items, and
    false in the model (the step holds there)."""
    rest = [a for a in assertions if not a.eq(goal)]
    model = explicit_models.find_model(rest)
    if model is None:
        return NonVacuity(None)
    atoms = explicit_models.theory_atoms(model)
    wrong = tuple(p for p in step.premises if atoms[p.lstrip("!")] == p.startswith("!"))
    fresh = step.negated_goal(v)
    goal_wrong = explicit_models.holds([goal], model) or any(
        explicit_models.holds([goal], s) != explicit_models.holds([fresh], s)
        for s in explicit_models.structures(2)
    )
    return NonVacuity(model, wrong, goal_wrong)


def decode_general(v: Vocabulary, model: z3.ModelRef, refined: bool) -> Countermodel:
    """Read a finite z3 model back as items, J-sets, the ancestor set and a witness audit.

    The witness is recomputed in Python from the decoded sets (not read from z3): an audit
    of the model's universe on which exact and influence revision disagree, if there is one.
    """
    items = model.get_universe(v.Item) or []
    sets = model.get_universe(v.Set) or []
    names = {str(e): f"e{i + 1}" for i, e in enumerate(items)}

    def members(s: z3.ExprRef) -> frozenset[str]:
        return frozenset(
            names[str(e)]
            for e in items
            if z3.is_true(model.eval(v.mem(e, s), model_completion=True))
        )

    family = sorted(
        {members(s) for s in sets if z3.is_true(model.eval(v.J(s), model_completion=True))},
        key=lambda m: (len(m), sorted(m)),
    )
    union = frozenset().union(*family)
    ancestors = members(v.A) if refined else union
    audits = sorted({members(s) for s in sets}, key=lambda m: (len(m), sorted(m)))
    witness = None
    for audit in audits:
        by_exact = not any(not (j & audit) for j in family)
        by_influence = bool(audit & ancestors)
        if by_exact != by_influence:
            witness = sorted(audit)
            break
    note = f"universe: {len(items)} item(s), {len(sets)} set(s)"
    justifications = [{"claim": "c", "antecedents": sorted(j)} for j in family]
    if ancestors != union:
        justifications.append({"claim": "c", "antecedents": sorted(ancestors | union)})
    graph = {
        "nodes": [{"id": names[str(e)], "kind": "evidence", "text": ""} for e in items]
        + [{"id": "c", "kind": "claim", "text": ""}],
        "justifications": justifications,
    }
    return Countermodel(
        graph=graph,
        minimal_justifications=[sorted(j) for j in family],
        ancestors=sorted(ancestors),
        witness_audit=witness,
        note=note,
    )
