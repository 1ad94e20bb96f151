"""Brute-force references, used by the tests to check the solver core and the checker.

Exponential in the number of evidence items: for small graphs only.
"""

from __future__ import annotations

from itertools import combinations

from theory.fixpoint import active_state
from theory.graphalgo import ancestor_numbers
from theory.index import index_of
from theory.revision import exact, influence
from theory.structure import SupportStructure


def evidence_ancestors(structure: SupportStructure, claim: str) -> frozenset[str]:
    index = index_of(structure)
    cone = ancestor_numbers(index, [index.number[claim]])
    return frozenset(index.ids[n] for n in cone if index.is_evidence[n])


def brute_force_minimal_justifications(structure: SupportStructure, claim: str) -> frozenset[frozenset[str]]:
    """Minimal true sets of f_c, by evaluating the least fixpoint on every evidence subset."""
    items = sorted(evidence_ancestors(structure, claim))
    found: list[frozenset[str]] = []
    for size in range(len(items) + 1):
        for subset in combinations(items, size):
            candidate = frozenset(subset)
            if any(s <= candidate for s in found):
                continue
            if claim in active_state(structure, evidence=candidate):
                found.append(candidate)
    return frozenset(found)


def brute_force_influence_safe(structure: SupportStructure, claim: str) -> bool:
    """Influence and exact revision agree on ``claim`` for every audit of evidence."""
    items = sorted(structure.evidence)
    for size in range(1, len(items) + 1):
        for subset in combinations(items, size):
            audit = frozenset(subset)
            if (claim in exact(structure, audit)) != (claim in influence(structure, audit)):
                return False
    return True
