"""DRed (delete and re-derive) as a revision rule to fuzz: ``jtms fuzz --rule dred:dred`` passes,
``jtms fuzz --rule dred:dred_skipping_a_round`` is caught (docs/fuzzing.md).

DRed over-deletes everything downstream of the audit (the ``influence`` rule), then
re-derives, round by round, every over-deleted claim that has a justification whose
antecedents all survive, until a round re-derives nothing.
"""

from __future__ import annotations

from theory import SupportStructure, active_state
from theory.semantics.revision import influence


def _rounds(structure: SupportStructure, audit: frozenset[str]) -> tuple[set[str], list[set[str]]]:
    """The over-deleted nodes and the claims each re-derivation round brings back."""
    over = set(influence(structure, audit))
    alive = set(active_state(structure)) - over  # what survives the over-deletion
    deleted = over - set(audit)
    justifications: dict[str, list[frozenset[str]]] = {}
    for j in structure.justifications:
        justifications.setdefault(j.claim, []).append(j.antecedents)
    rounds: list[set[str]] = []
    while True:
        back = {
            claim
            for claim in deleted
            if any(antecedents <= alive for antecedents in justifications.get(claim, ()))
        }
        if not back:
            return over, rounds
        rounds.append(back)
        over -= back
        alive |= back
        deleted -= back


def dred(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Delete downstream, then re-derive to the fixpoint: what exact revision retires."""
    over, _ = _rounds(structure, audit)
    return frozenset(over)


def dred_skipping_a_round(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """The bug: re-derivation stops one round short of the fixpoint (its last round's claims
    stay deleted), an off-by-one in the loop's exit test."""
    over, rounds = _rounds(structure, audit)
    return frozenset(over | (rounds[-1] if rounds else set()))
