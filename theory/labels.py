"""ATMS-style label propagation: minimal justifications by a bottom-up antichain algebra.

The label of evidence e is {{e}}; the label of a claim is the set of minimal elements of
the union over its justifications of the pairwise-union product of its antecedents'
labels. Cyclic components are iterated from empty labels to the least fixpoint, so loops
never justify themselves. Sets are bitsets (Python ints) over the evidence.

Fast while labels stay small, but an intermediate label can blow up even when the final
one is tiny (root = y OR (y AND X)); :func:`label_of` therefore takes a budget and gives
up (returns None) when any label exceeds it, and the solver core falls back to SAT.
"""

from __future__ import annotations

from theory.graphalgo import ancestor_numbers, is_cyclic_component, strongly_connected_components
from theory.index import SupportIndex, index_of
from theory.structure import SupportStructure


class LabelBudgetExceeded(Exception):
    pass


def minimize(sets: set[int] | list[int]) -> list[int]:
    """The antichain of minimal bitsets (drop every superset of another member)."""
    kept: list[int] = []
    for candidate in sorted(set(sets), key=lambda bits: (bits.bit_count(), bits)):
        if not any(k & candidate == k for k in kept):
            kept.append(candidate)
    return kept


def _product(left: list[int], right: list[int], budget: int) -> list[int]:
    result = {a | b for a in left for b in right}
    if len(result) > budget * 4:
        raise LabelBudgetExceeded
    return minimize(result)


def _label_of_justification(antecedents, labels, budget) -> list[int]:
    current = [0]
    for a in antecedents:
        current = _product(current, labels[a], budget)
        if not current:
            return []
    return current


def _claim_label(n: int, index: SupportIndex, labels: dict[int, list[int]], budget: int) -> list[int]:
    union: set[int] = set()
    for j in index.justs_of[n]:
        union.update(_label_of_justification(index.just_antecedents[j], labels, budget))
    result = minimize(union)
    if len(result) > budget:
        raise LabelBudgetExceeded
    return result


def all_labels(index: SupportIndex, nodes=None, budget: int = 256) -> dict[int, list[int] | None]:
    """Labels (bitsets) of ``nodes`` (default all) and their cones, computed once, shared.

    A claim whose label would exceed ``budget`` sets, or that depends on such a claim, gets
    None: the caller falls back to SAT for it.
    """
    cone = ancestor_numbers(index, range(index.size) if nodes is None else nodes)
    labels: dict[int, list[int] | None] = {n: [1 << n] for n in cone if index.is_evidence[n]}
    claims = [n for n in cone if not index.is_evidence[n]]
    for component in strongly_connected_components(index, claims):
        members = set(component)
        inputs_overflow = any(
            labels.get(a, 0) is None
            for m in component for j in index.justs_of[m] for a in index.just_antecedents[j]
            if a not in members
        )
        if inputs_overflow:
            for m in component:
                labels[m] = None
            continue
        try:
            if not is_cyclic_component(index, component):
                labels[component[0]] = _claim_label(component[0], index, labels, budget)
                continue
            for m in component:
                labels[m] = []
            changed = True
            while changed:
                changed = False
                for m in component:
                    value = _claim_label(m, index, labels, budget)
                    if value != labels[m]:
                        labels[m] = value
                        changed = True
        except LabelBudgetExceeded:
            for m in component:
                labels[m] = None
    return labels


def label_of(structure: SupportStructure, claim: str, budget: int = 5000) -> frozenset[frozenset[str]] | None:
    """The minimal justifications of ``claim``, or None if a label exceeds ``budget`` sets."""
    index = index_of(structure)
    target = index.number[structure.require_claim(claim)]
    cone = ancestor_numbers(index, [target])
    labels: dict[int, list[int]] = {n: [1 << n] for n in cone if index.is_evidence[n]}
    claims = [n for n in cone if not index.is_evidence[n]]
    try:
        for component in strongly_connected_components(index, claims):
            if not is_cyclic_component(index, component):
                labels[component[0]] = _claim_label(component[0], index, labels, budget)
                continue
            for m in component:
                labels[m] = []
            changed = True
            while changed:
                changed = False
                for m in component:
                    value = _claim_label(m, index, labels, budget)
                    if value != labels[m]:
                        labels[m] = value
                        changed = True
    except LabelBudgetExceeded:
        return None
    ids = index.ids
    result = []
    for bits in labels[target]:
        members = []
        while bits:
            low = bits & -bits
            members.append(ids[low.bit_length() - 1])
            bits ^= low
        result.append(frozenset(members))
    return frozenset(result)
