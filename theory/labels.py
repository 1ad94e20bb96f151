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

from collections.abc import Iterable, Mapping

from theory.graphalgo import ancestor_numbers, solve_component, strongly_connected_components
from theory.index import SupportIndex, index_of
from theory.structure import SupportStructure

LABEL_BUDGET = 256
"""Sets a label may hold before the label algebra gives up and the SAT core takes over
(the default of :func:`all_labels`, :func:`label_of` and the checker's certificates;
``minimal_justifications`` runs the compiled labels of :mod:`theory.label_kernel` under a
work budget instead). Labels stay fast up to a few hundred sets; past that their pairwise
products blow up (``python -m benchmarks.bench_justifications``)."""

UNBOUNDED = 1 << 62
"""A budget no label reaches (``method="labels"``: never give up)."""


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


def _label_of_justification(
    antecedents: Iterable[int], labels: Mapping[int, list[int] | None], budget: int
) -> list[int]:
    current = [0]
    for a in antecedents:
        label = labels[a]
        assert label is not None  # components over an overflowed label are skipped
        current = _product(current, label, budget)
        if not current:
            return []
    return current


def _claim_label(
    n: int, index: SupportIndex, labels: Mapping[int, list[int] | None], budget: int
) -> list[int]:
    union: set[int] = set()
    for j in index.justs_of[n]:
        union.update(_label_of_justification(index.just_antecedents[j], labels, budget))
    result = minimize(union)
    if len(result) > budget:
        raise LabelBudgetExceeded
    return result


def all_labels(
    index: SupportIndex, nodes: Iterable[int] | None = None, budget: int = LABEL_BUDGET
) -> dict[int, list[int] | None]:
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
            for m in component
            for j in index.justs_of[m]
            for a in index.just_antecedents[j]
            if a not in members
        )
        if inputs_overflow:
            for m in component:
                labels[m] = None
            continue
        try:
            solve_component(
                index,
                component,
                labels,
                initial=[],
                update=lambda m: _claim_label(m, index, labels, budget),
            )
        except LabelBudgetExceeded:
            for m in component:
                labels[m] = None
    return labels


def label_of(
    structure: SupportStructure, claim: str, budget: int = LABEL_BUDGET
) -> frozenset[frozenset[str]] | None:
    """The minimal justifications of ``claim``, or None if a label exceeds ``budget`` sets."""
    index = index_of(structure)
    target = index.number[structure.require_claim(claim)]
    label = all_labels(index, [target], budget)[target]
    if label is None:
        return None
    return frozenset(index.names_of_bits(bits) for bits in label)
