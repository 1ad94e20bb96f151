"""Brute-force references, used by the tests to check the solver core and the checker.

Exponential in the number of evidence items: for small graphs only.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from theory.model.graphalgo import (
    ancestor_numbers,
    solve_component,
    strongly_connected_components,
)
from theory.model.index import SupportIndex, index_of
from theory.model.structure import SupportStructure
from theory.safety.check import Verdicts
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import counting, exact, influence


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


def brute_force_counting_disagreements(
    structure: SupportStructure, items: Iterable[str] | None = None
) -> dict[str, list[frozenset[str]]]:
    """Per claim, every audit drawn from ``items`` (default the evidence) under which exact
    revision retires it and counting keeps it, smallest first: the claims counting-unsafe
    for those audits (Theorem 2's definition, every subset tried)."""
    pool = sorted(structure.evidence if items is None else items)
    found: dict[str, list[frozenset[str]]] = {}
    for size in range(1, len(pool) + 1):
        for subset in combinations(pool, size):
            audit = frozenset(subset)
            for claim in sorted((exact(structure, audit) - counting(structure, audit)) - audit):
                found.setdefault(claim, []).append(audit)
    return found


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


def reference_verdicts(index: SupportIndex, active: bytes | bytearray) -> Verdicts:
    """The oracle of :func:`theory.safety.check.verdicts` (the compiled core's): the same
    fixpoints on Python integer bitsets, one component at a time, from their definitions.

    ``active`` is the state before any audit (:func:`theory.semantics.fixpoint.base_active`).
    """
    size = index.size
    is_evidence = index.is_evidence
    justs_of = index.justs_of
    just_antecedents = index.just_antecedents
    ancestors = [0] * size
    critical: list[int | None] = [None] * size
    for n in range(size):
        if is_evidence[n]:
            ancestors[n] = 1 << n  # evidence are numbered first, so n is its bit
            critical[n] = 1 << n
    claims = [n for n in range(size) if not is_evidence[n]]

    components = strongly_connected_components(index, claims)
    cyclic = bytearray(size)  # members of cyclic components (self-loops included)
    for component in components:
        if len(component) == 1:
            m = component[0]
            union = 0
            for j in justs_of[m]:
                for a in just_antecedents[j]:
                    if a == m:
                        cyclic[m] = 1
                    else:
                        union |= ancestors[a]
            ancestors[m] = union
            continue
        members = set(component)
        union = 0
        for m in component:
            cyclic[m] = 1
            for j in justs_of[m]:
                for a in just_antecedents[j]:
                    if a not in members:
                        union |= ancestors[a]
        for m in component:
            ancestors[m] = union

    # The components through intact justifications between active claims refine these:
    # only a cyclic component can split, so only those are decomposed again (in topological
    # order inside, which keeps the concatenation in topological order).
    for component in components:
        if len(component) == 1 and not cyclic[component[0]]:
            if active[component[0]]:
                critical[component[0]] = _critical_of(component[0], index, active, critical)
            continue
        live = [m for m in component if active[m]]
        for part in strongly_connected_components(index, live, intact_only=active):
            # Greatest fixpoint inside a loop: start from "everything" (None) and shrink.
            solve_component(
                index,
                part,
                critical,
                initial=None,
                update=lambda m: _critical_of(m, index, active, critical),
            )
    return Verdicts(active, ancestors, critical)


def _critical_of(
    n: int, index: SupportIndex, active: bytes | bytearray, critical: list[int | None]
) -> int | None:
    """AND over intact justifications of OR over antecedents; None stands for "all"."""
    result: int | None = None
    just_antecedents = index.just_antecedents
    for j in index.justs_of[n]:
        union = 0
        for a in just_antecedents[j]:
            value = critical[a]
            # not intact (an inactive antecedent), or an antecedent that stands for "all"
            # (so does the union): either way the justification leaves the AND as it is
            if value is None or not active[a]:
                break
            union |= value
        else:
            result = union if result is None else result & union
    return result
