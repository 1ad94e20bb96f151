"""The bounded statements (for one n) and their mutants, by name.

Every statement is asserted *negated* over an arbitrary monotone support function f on n
evidence items, so UNSAT proves it for every such f. Common vocabulary (E = all items):

- ``active``      f(E) = 1 (inactive claims are trivially safe: nothing to retire)
- ``minimal X``   f(X) = 1 and f(X \\ {i}) = 0 for every i in X (enough by monotonicity)
- ``U``           the union of the minimal points (the essential variables)
- ``exact(R)``    f(E \\ R) = 0;  ``influence(R)``: R meets U (or the ancestor set A)
- ``agree``       exact(R) = influence(R) for all 2^n audits R
- ``unique``      exactly one minimal point
- ``A``           a recorded ancestor set (``refined``, ``audit_criterion``), A ⊇ U

``audit_criterion`` is the claim-audit criterion in the support-function vocabulary: for the
audits drawn from a set D of a graph's nodes (its claims, or all its nodes), the items are D,
f is c's support function over D in the gated graph
(:func:`theory.safety.check.gated`) and A the members of D that are c or its ancestors, which
contain U (Coq ``alive_untouched``).

A mutant changes one ingredient so that the statement becomes false: its solver must answer
SAT, which shows the proof is not vacuous (a proof whose mutant is also UNSAT proves nothing).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    name: str
    text: str
    mutant_of: str | None = None

    @property
    def is_mutant(self) -> bool:
        return self.mutant_of is not None


STATEMENTS: dict[str, Statement] = {
    s.name: s
    for s in (
        Statement(
            "boundary",
            "Theorem 1, support-function form (active c, audits of evidence, influence over "
            "U): agree on every audit <=> unique minimal justification",
        ),
        Statement(
            "refined",
            "graph form (active c, audits of evidence, influence over recorded ancestors "
            "A ⊇ U): agree on every audit <=> unique S and A = S",
        ),
        Statement("inclusion", "none ⊆ exact ⊆ influence on every audit"),
        Statement("one_item", "a disagreement on some audit implies one on a one-item audit"),
        Statement(
            "audit_criterion",
            "audits of claims or mixed (influence over A ⊇ U): agree on every audit <=> "
            "agree on every one-item audit {x}, x in A",
        ),
        Statement(
            "boundary~at_most_two",
            "mutant of boundary: 'exactly one' replaced by 'at most two' minimal justifications",
            mutant_of="boundary",
        ),
        Statement(
            "refined~no_ancestor_condition",
            "mutant of refined: the condition A = S dropped",
            mutant_of="refined",
        ),
        Statement(
            "inclusion~swapped",
            "mutant of inclusion: direction swapped (influence ⊆ exact)",
            mutant_of="inclusion",
        ),
        Statement(
            "one_item~full_audit",
            "mutant of one_item: the one-item audits replaced by the full audit R = E",
            mutant_of="one_item",
        ),
        Statement(
            "audit_criterion~no_covers",
            "mutant of audit_criterion: the condition A ⊇ U dropped",
            mutant_of="audit_criterion",
        ),
    )
}

ANCESTOR_SET = frozenset(
    {"refined", "refined~no_ancestor_condition", "audit_criterion", "audit_criterion~no_covers"}
)
"""The statements whose influence is over a free ancestor set A (variables of their own)."""
COVERS = ANCESTOR_SET - {"audit_criterion~no_covers"}
"""The statements whose body demands A ⊇ U."""


def has_ancestors(name: str) -> bool:
    """Whether statement ``name`` has a free ancestor set A (:data:`ANCESTOR_SET`)."""
    return name in ANCESTOR_SET


PROVED = [s for s in STATEMENTS.values() if not s.is_mutant]
MUTANTS = [s for s in STATEMENTS.values() if s.is_mutant]


def statement(name: str) -> Statement:
    try:
        return STATEMENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown statement {name!r} (choose from {', '.join(STATEMENTS)})"
        ) from None
