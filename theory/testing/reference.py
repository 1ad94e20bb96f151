"""Brute-force references, used by the tests to check the solver core and the checker.

Exponential in the number of evidence items: for small graphs only.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from theory.model.graphalgo import ancestor_numbers
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import exact, influence


def evidence_ancestors(structure: SupportStructure, claim: str) -> frozenset[str]:
    index = index_of(structure)
    cone = ancestor_numbers(index, [index.number[claim]])
    return frozenset(index.ids[n] for n in cone if index.is_evidence[n])


def brute_force_minimal_justifications(
    structure: SupportStructure, claim: str
) -> frozenset[frozenset[str]]:
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


def brute_force_influence_safe(
    structure: SupportStructure, claim: str, items: Iterable[str] | None = None
) -> bool:
    """Influence and exact revision agree on ``claim`` for every audit of evidence (or, given
    ``items``, for every nonempty audit drawn from those nodes: claims, or evidence and claims)."""
    items = sorted(structure.evidence if items is None else items)
    for size in range(1, len(items) + 1):
        for subset in combinations(items, size):
            audit = frozenset(subset)
            if (claim in exact(structure, audit)) != (claim in influence(structure, audit)):
                return False
    return True


def brute_force_conflict_sets(
    structure: SupportStructure, nodes: frozenset[str], blocked: frozenset[str] = frozenset()
) -> frozenset[frozenset[str]]:
    """Minimal evidence sets under which all ``nodes`` are active, ``blocked`` forced off."""
    items = sorted(structure.evidence - blocked)
    found: list[frozenset[str]] = []
    for size in range(len(items) + 1):
        for subset in combinations(items, size):
            candidate = frozenset(subset)
            if any(s <= candidate for s in found):
                continue
            if nodes <= active_state(structure, blocked=blocked, evidence=candidate):
                found.append(candidate)
    return frozenset(found)


def brute_force_diagnoses(
    structure: SupportStructure, blocked: frozenset[str] = frozenset()
) -> list[tuple[frozenset[str], frozenset[str], frozenset[str]]]:
    """(invalidate, retires, keeps) of every diagnosis, cheapest first, by definition.

    The targets are the structure's nogoods that are active and not active without any
    evidence (those have no diagnosis over evidence). A diagnosis is a minimal evidence
    set D after whose invalidation no target is active; it retires what is active before
    and inactive after, and keeps the active claims reachable from D that stay active.
    Sorted by (claims retired, |D|, ids).
    """
    before = active_state(structure, blocked=blocked)
    bare = active_state(structure, blocked=blocked, evidence=())
    targets = [n.nodes for n in structure.nogoods if n.nodes <= before and not n.nodes <= bare]
    if not targets:
        return []
    items = sorted(structure.evidence - blocked)
    consumers: dict[str, set[str]] = {n: set() for n in structure.nodes}
    for justification in structure.justifications:
        for antecedent in justification.antecedents:
            consumers[antecedent].add(justification.claim)
    found: list[frozenset[str]] = []
    for size in range(1, len(items) + 1):
        for subset in combinations(items, size):
            candidate = frozenset(subset)
            if any(s <= candidate for s in found):
                continue
            after = active_state(structure, blocked=blocked | candidate)
            if not any(t <= after for t in targets):
                found.append(candidate)
    result = []
    for candidate in found:
        after = active_state(structure, blocked=blocked | candidate)
        reached, stack = set(candidate), list(candidate)
        while stack:
            for c in consumers[stack.pop()]:
                if c not in reached:
                    reached.add(c)
                    stack.append(c)
        keeps = frozenset(
            n for n in reached if n in after and n in structure.claims and n in before
        )
        result.append((candidate, before - after, keeps))
    result.sort(key=lambda d: (len(d[1] & structure.claims), len(d[0]), sorted(d[0])))
    return result
