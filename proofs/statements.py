"""The bounded statements (for one n) and their mutants, by name.

Every statement is asserted *negated* over an arbitrary monotone support function f on n
evidence items, so UNSAT proves it for every such f. Common vocabulary (E = all items):

- ``active``      f(E) = 1 (inactive claims are trivially safe: nothing to retire)
- ``minimal X``   f(X) = 1 and f(X \\ {i}) = 0 for every i in X (enough by monotonicity)
- ``U``           the union of the minimal points (the essential variables)
- ``exact(R)``    f(E \\ R) = 0;  ``influence(R)``: R meets U (or the ancestor set A)
- ``agree``       exact(R) = influence(R) for all 2^n audits R
- ``unique``      exactly one minimal point

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
        Statement("boundary", "Theorem 1: agree on every audit <=> unique minimal justification"),
        Statement(
            "refined",
            "recorded ancestors A ⊇ U: agree on every audit <=> unique S and A = S",
        ),
        Statement("inclusion", "none ⊆ exact ⊆ influence on every audit"),
        Statement("one_item", "a disagreement on some audit implies one on a one-item audit"),
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
    )
}

PROVED = [s for s in STATEMENTS.values() if not s.is_mutant]
MUTANTS = [s for s in STATEMENTS.values() if s.is_mutant]


def statement(name: str) -> Statement:
    try:
        return STATEMENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown statement {name!r} (choose from {', '.join(STATEMENTS)})"
        ) from None
