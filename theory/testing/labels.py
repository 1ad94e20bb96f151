"""ATMS-style label propagation in Python: a test oracle for the compiled label algebra of
:mod:`theory.solver.label_kernel`, never run in production.

The label of evidence e is {{e}}; the label of a claim is the set of minimal elements of
the union over its justifications of the pairwise-union product of its antecedents'
labels. Cyclic components are iterated from empty labels to the least fixpoint, so loops
never justify themselves.

The labels of every node of a cone are computed in one pass over its strongly connected
components (so a check that needs many claims' labels shares them). A component is solved
over sets as Python ints (bit n for evidence number n), where a label and a product are a few
sets and one Python operation per pair costs less than an array operation's fixed cost; a
component whose operations grow past :data:`SMALL_PAIRS` pairs is solved again with sets as
rows of 64-bit words (numpy), where a product and its minimisation are array operations. Both
count the same work against the budgets, so the work done, and where a budget stops it, does
not depend on the representation. A cyclic component is solved *semi-naively*: each round
multiplies only the sets that the last round added (a product with at least one new factor),
so a set is combined with the others once, not once per round.

Fast while labels stay small, but an intermediate label can blow up even when the final
one is tiny (root = y OR (y AND X)); :func:`all_labels` therefore takes a budget of sets per
label and of sets formed per component, and gives up on a component (its labels None) when
either is exceeded.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from theory.model.graphalgo import (
    ancestor_numbers,
    component_watchers,
    is_cyclic_component,
    strongly_connected_components,
)
from theory.model.index import SupportIndex

if TYPE_CHECKING:
    import numpy as np

LABEL_BUDGET = 256
"""Sets a label may hold before the label algebra gives up and the SAT core takes over
(the default of :func:`all_labels` and the checker's certificates;
``minimal_justifications`` runs the compiled labels of :mod:`theory.solver.label_kernel` under a
work budget instead)."""

FORMED_BUDGET = 1 << 17
"""Sets that the products of one component may form per member (before minimisation;
comparisons count too, :data:`COMPARISONS_PER_SET`) before the label algebra gives up on
it: past that the labels are blowing up and the SAT core is the better method."""

GROWTH = 4
"""A label on its way to the fixpoint may hold this many times the final budget of sets
before the algebra gives up on its component (it shrinks again as smaller sets arrive: the
labels of ``tests/cases/`` peak at about twice their final size)."""

UNBOUNDED = 1 << 62
"""A budget no label reaches (``method="labels"``: never give up)."""


class LabelBudgetExceeded(Exception):
    pass


class _TooBig(Exception):
    """An operation of the Python-int algebra over :data:`SMALL_PAIRS`: the component is
    solved again in arrays."""


Label = list[int]
"""A label in the Python-int algebra: evidence sets as ints (bit n for evidence n), an
antichain; never changed in place once made (labels share lists)."""


class _Algebra:
    """Antichains of evidence sets as lists of Python ints, and their products, with a
    count of the work done (:data:`FORMED_BUDGET`): fast while labels are small. An
    operation past :data:`SMALL_PAIRS` raises :class:`_TooBig`; :attr:`arrays` is then the
    same algebra over rows of 64-bit words, which counts the same work (one counter)."""

    def __init__(self, words: int, formed_budget: int, label_cap: int):
        self.words = words
        self.label_cap = label_cap
        self.formed_budget = formed_budget
        self.formed = 0
        self.empty: Label = []
        self._arrays: _ArrayAlgebra | None = None

    @property
    def arrays(self) -> _ArrayAlgebra:
        if self._arrays is None:
            self._arrays = _ArrayAlgebra(self)
        return self._arrays

    def single(self, bit: int) -> Label:
        return [1 << bit]

    def unit(self) -> Label:
        """The label of "always": the empty set."""
        return [0]

    def charge(self, work: int) -> None:
        """Count ``work`` against :data:`FORMED_BUDGET` (sets formed, or comparisons)."""
        self.formed += work
        if self.formed > self.formed_budget:
            raise LabelBudgetExceeded

    def covered(self, sets: Label, by: Label) -> list[bool]:
        """Per set of ``sets``: whether some set of ``by`` is a subset of it (equal included)."""
        if not sets or not by:
            return [False] * len(sets)
        if len(sets) * len(by) > SMALL_PAIRS:
            raise _TooBig
        self.charge(COMPARISON_WORK + len(sets) * len(by) * self.words // COMPARISONS_PER_SET)
        return [any(b & s == b for b in by) for s in sets]

    def minimal(self, sets: Label, against: Label | None = None) -> Label:
        """The minimal sets of ``sets`` (each once) that contain no set of ``against``: by
        size, each kept unless a kept one is inside it (a subset is never larger)."""
        sets = sorted(set(sets))
        if against and sets:
            sets = [s for s, inside in zip(sets, self.covered(sets, against)) if not inside]
        if len(sets) < 2:
            return sets
        if len(sets) ** 2 > SMALL_PAIRS:
            raise _TooBig
        # every pair, counted as the array algebra counts it (len(sets) <= PAIRWISE_UP_TO)
        self.charge(COMPARISON_WORK + len(sets) ** 2 * self.words // COMPARISONS_PER_SET)
        sets.sort(key=int.bit_count)
        kept: Label = []
        for s in sets:
            for k in kept:
                if k & s == k:
                    break
            else:
                kept.append(s)
        return kept

    def product(self, left: Label, right: Label) -> Label:
        """The unions of a set of ``left`` and a set of ``right`` (not minimised: at most
        :data:`SMALL_PAIRS` of them, fewer than :data:`MINIMISE_FROM`)."""
        if not left or not right:
            return self.empty
        formed = len(left) * len(right)
        if formed > SMALL_PAIRS:
            raise _TooBig
        self.charge(formed)
        if len(left) == 1:
            one = left[0]
            return [one | r for r in right]
        if len(right) == 1:
            one = right[0]
            return [one | s for s in left]
        return [a | b for a in left for b in right]

    def merge(self, label: Label, found: list[Label]) -> tuple[Label, Label]:
        """``label`` with the sets ``found`` added, minimised, and the sets that are new."""
        if not found:
            return label, self.empty
        new = self.minimal(found[0] if len(found) == 1 else [s for f in found for s in f], label)
        if not new:
            return label, new
        if label:
            kept = [k for k, inside in zip(label, self.covered(label, new)) if not inside]
        else:
            kept = label
        if len(kept) + len(new) > self.label_cap:
            raise LabelBudgetExceeded
        return (kept + new if kept else new), new


class _ArrayAlgebra:
    """:class:`_Algebra` over ``(k, words)`` uint64 arrays (one row a set), for components
    whose labels or products are large; it counts its work on the algebra it belongs to."""

    def __init__(self, owner: _Algebra):
        import numpy as np

        self.np = np
        self.words = owner.words
        self.label_cap = owner.label_cap
        self._owner = weakref.ref(owner)  # the owner holds this one: no reference cycle
        self.empty = np.zeros((0, self.words), dtype=np.uint64)

    def charge(self, work: int) -> None:
        """Count ``work`` on the owner's counter (:meth:`_Algebra.charge`)."""
        owner = self._owner()
        assert owner is not None
        owner.charge(work)

    def rows(self, sets: Label) -> np.ndarray:
        """Python-int sets as rows of words."""
        np = self.np
        if self.words == 1:
            return np.array(sets, dtype=np.uint64).reshape(len(sets), 1)
        size = 8 * self.words
        data = b"".join([s.to_bytes(size, "little") for s in sets])
        return np.frombuffer(data, dtype="<u8").astype(np.uint64).reshape(len(sets), self.words)

    def ints(self, rows: np.ndarray) -> Label:
        """Rows of words as Python-int sets."""
        if self.words == 1:
            return rows[:, 0].tolist()  # type: ignore[no-any-return]
        data = rows.astype("<u8").tobytes()
        size = 8 * self.words
        return [int.from_bytes(data[k : k + size], "little") for k in range(0, len(data), size)]

    def unit(self) -> np.ndarray:
        return self.np.zeros((1, self.words), dtype=self.np.uint64)

    def distinct(self, sets: np.ndarray) -> np.ndarray:
        """The rows of ``sets``, each once (in sorted order)."""
        np = self.np
        if len(sets) < 2:
            return sets
        if self.words == 1:
            sets = np.sort(sets, axis=0)
        else:
            sets = sets[np.lexsort(sets.T[::-1])]
        keep = np.ones(len(sets), dtype=bool)
        keep[1:] = (sets[1:] != sets[:-1]).any(axis=1)
        return sets[keep]

    def covered(self, sets: np.ndarray, by: np.ndarray) -> np.ndarray:
        """Per row of ``sets``: whether some row of ``by`` is a subset of it (equal included)."""
        np = self.np
        if not len(sets) or not len(by):
            return np.zeros(len(sets), dtype=bool)
        self.charge(COMPARISON_WORK + len(sets) * len(by) * self.words // COMPARISONS_PER_SET)
        if self.words == 1:
            flat, small = sets[:, 0], by[:, 0]
            step = max(1, (1 << 21) // len(small))
            if len(flat) <= step:
                return ((flat[:, None] & small[None, :]) == small[None, :]).any(axis=1)
            result = np.empty(len(flat), dtype=bool)
            for start in range(0, len(flat), step):
                chunk = flat[start : start + step]
                inside = (chunk[:, None] & small[None, :]) == small[None, :]
                result[start : start + step] = inside.any(axis=1)
            return result
        result = np.empty(len(sets), dtype=bool)
        step = max(1, (1 << 21) // (len(by) * self.words))
        for start in range(0, len(sets), step):
            chunk = sets[start : start + step]
            inside = (chunk[:, None, :] & by[None, :, :]) == by[None, :, :]
            result[start : start + step] = inside.all(axis=2).any(axis=1)
        return result

    def minimal(self, sets: np.ndarray, against: np.ndarray | None = None) -> np.ndarray:
        """The minimal rows of ``sets`` (each once) that contain no row of ``against``.

        Rows of one size are never subsets of each other, so the sets are taken size by
        size from the smallest, each size's rows all minimal, the larger ones filtered by
        them: the cost is the rows times the minimal ones."""
        np = self.np
        sets = self.distinct(sets)
        if against is not None and len(against) and len(sets):
            sets = sets[~self.covered(sets, against)]
        if len(sets) < 2:
            return sets
        if len(sets) <= PAIRWISE_UP_TO:  # every pair at once (rows distinct: strict subsets)
            self.charge(COMPARISON_WORK + len(sets) ** 2 * self.words // COMPARISONS_PER_SET)
            if self.words == 1:
                flat = sets[:, 0]
                inside = (flat[:, None] & flat[None, :]) == flat[None, :]
            else:
                inside = ((sets[:, None, :] & sets[None, :, :]) == sets[None, :, :]).all(axis=2)
            return sets[inside.sum(axis=1) == 1]
        sizes = np.bitwise_count(sets).sum(axis=1, dtype=np.int64)
        order = np.argsort(sizes, kind="stable")
        sets, sizes = sets[order], sizes[order]
        kept = []
        while len(sets):
            level = sizes == sizes[0]
            group = sets[level]
            kept.append(group)
            rest = ~level
            sets, sizes = sets[rest], sizes[rest]
            if len(sets):
                keep = ~self.covered(sets, group)
                sets, sizes = sets[keep], sizes[keep]
        return kept[0] if len(kept) == 1 else np.concatenate(kept)

    def product(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The unions of a row of ``left`` and a row of ``right``, each once (minimised
        only when many, for the next product: the caller minimises the result)."""
        if not len(left) or not len(right):
            return self.empty
        formed = len(left) * len(right)
        self.charge(formed)
        if len(left) == 1:
            unions = right | left
        elif len(right) == 1:
            unions = left | right
        else:
            unions = (left[:, None, :] | right[None, :, :]).reshape(-1, self.words)
        if formed <= MINIMISE_FROM:
            return unions
        found = self.minimal(unions)
        if len(found) > self.label_cap:  # a label on its way would exceed it
            raise LabelBudgetExceeded
        return found

    def merge(self, label: np.ndarray, found: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``label`` with the sets ``found`` added, minimised, and the rows that are new."""
        np = self.np
        if not found:
            return label, self.empty
        new = self.minimal(found[0] if len(found) == 1 else np.concatenate(found), against=label)
        if not len(new):
            return label, new
        kept = label[~self.covered(label, new)] if len(label) else label
        if len(kept) + len(new) > self.label_cap:
            raise LabelBudgetExceeded
        return (np.concatenate([kept, new]) if len(kept) else new), new


COMPARISONS_PER_SET = 16
"""Subset tests (per word) that count as much as one set formed against the budget: the
minimisations count too, so a component whose labels grow large stops however few sets its
products form."""

COMPARISON_WORK = 64
"""Sets formed that one array comparison counts for whatever its size (its fixed cost)."""

PAIRWISE_UP_TO = 256
"""Sets up to which :meth:`_ArrayAlgebra.minimal` compares every pair in one array operation
(above, size by size)."""

SMALL_PAIRS = 128
"""Pairs of sets (a product's, a subset test's, a minimisation's) up to which the labels of
a component are worked out over Python ints, one operation per pair; past it, the component
is solved again over rows of 64-bit words (numpy), where an operation has a fixed cost of
about what this many pairs cost in Python and then costs little per pair. 64 to 1024 measured
within 5% of each other on the loop families (docs/benchmarks.md). At most
:data:`MINIMISE_FROM`."""

MINIMISE_FROM = 4096
"""Sets a product forms from which it is minimised before the next factor (a smaller one is
only left for the caller's minimisation: an array operation costs more than the sets)."""


def _product_of(algebra: Any, factors: list[Any]) -> Any:
    """The sets of the product of ``factors`` (not all minimal), the smallest taken first."""
    factors = sorted(factors, key=len)
    current = factors[0] if factors else algebra.unit()
    for factor in factors[1:]:
        current = algebra.product(current, factor)
        if not len(current):
            break
    return current


def _solve_component(
    index: SupportIndex,
    component: list[int],
    labels: dict[int, Any],
    algebra: Any,  # _Algebra or _ArrayAlgebra: the same methods over their own sets
) -> None:
    """The least fixpoint of the labels of one component, semi-naively (module docstring):
    round r adds, for each justification with antecedents inside, the products in which the
    first factor from the sets new in round r - 1 is that of antecedent i, the antecedents
    before i taken whole and those after i without their new sets."""
    members = set(component)
    justs_of, just_antecedents = index.justs_of, index.just_antecedents
    if not is_cyclic_component(index, component):
        n = component[0]
        found = [
            _product_of(algebra, [labels[a] for a in just_antecedents[j]]) for j in justs_of[n]
        ]
        labels[n] = algebra.merge(algebra.empty, found)[0]
        return
    # per member: (outside product, inside antecedents) of each live justification
    rules: dict[int, list[tuple[Any, list[int]]]] = {}
    current: dict[int, Any] = {}
    new: dict[int, Any] = {}
    for m in component:
        rules[m] = []
        base = []
        for j in justs_of[m]:
            antecedents = just_antecedents[j]
            outside = algebra.minimal(
                _product_of(algebra, [labels[a] for a in antecedents if a not in members])
            )
            if not len(outside):
                continue
            inside = [a for a in antecedents if a in members]
            if inside:
                rules[m].append((outside, inside))
            else:
                base.append(outside)
        current[m], new[m] = algebra.merge(algebra.empty, base)
    # a round visits only the watchers of the members that gained sets in the round before,
    # in component order
    position = {m: k for k, m in enumerate(component)}
    watchers = component_watchers(
        component, lambda m: (a for _, inside in rules[m] for a in inside)
    )
    fresh = [m for m in component if len(new[m])]
    while fresh:
        older = {a: current[a][: len(current[a]) - len(new[a])] for a in fresh}
        changed: dict[int, tuple[Any, Any]] = {}
        for m in sorted(set().union(*(watchers[a] for a in fresh)), key=position.__getitem__):
            found = []
            for outside, inside in rules[m]:
                for i, a in enumerate(inside):
                    if not len(new[a]):
                        continue
                    factors = [outside, new[a]]
                    factors.extend(current[b] for b in inside[:i])
                    factors.extend(older.get(b, current[b]) for b in inside[i + 1 :])
                    found.append(_product_of(algebra, factors))
            if found:
                changed[m] = algebra.merge(current[m], found)
        for a in fresh:
            new[a] = algebra.empty
        for m, (label, added) in changed.items():
            current[m], new[m] = label, added
        fresh = sorted(
            (m for m, (_, added) in changed.items() if len(added)), key=position.__getitem__
        )
    labels.update(current)


def _solve_in_arrays(
    index: SupportIndex, component: list[int], labels: dict[int, Label], arrays: _ArrayAlgebra
) -> None:
    """:func:`_solve_component` over rows of words: the labels of the component's outside
    antecedents in, its members' labels out, as Python ints."""
    members = set(component)
    just_antecedents = index.just_antecedents
    inputs = {
        a: arrays.rows(labels[a])
        for m in component
        for j in index.justs_of[m]
        for a in just_antecedents[j]
        if a not in members
    }
    _solve_component(index, component, inputs, arrays)
    for m in component:
        labels[m] = arrays.ints(inputs[m])


def all_labels(
    index: SupportIndex,
    nodes: Iterable[int] | None = None,
    budget: int = LABEL_BUDGET,
    formed_budget: int = FORMED_BUDGET,
    formed: list[int] | None = None,
) -> dict[int, list[int] | None]:
    """Labels (bitsets, Python ints: bit n for evidence number n) of ``nodes`` (default all)
    and their cones, computed once, shared.

    A claim whose label would exceed ``budget`` sets, in a component whose products would
    form more than ``formed_budget`` sets per member, or that depends on such a claim, gets
    None: the
    caller falls back to SAT for it. ``formed``, when given, receives the number of sets
    the products formed (the work done, for a portfolio's accounting).
    """
    cone = ancestor_numbers(index, range(index.size) if nodes is None else nodes)
    is_evidence = index.is_evidence
    width = max((n for n in cone if is_evidence[n]), default=0) + 1
    algebra = _Algebra((width + 63) >> 6, formed_budget, min(UNBOUNDED, GROWTH * budget))
    labels: dict[int, Label] = {n: algebra.single(n) for n in cone if is_evidence[n]}
    failed: set[int] = set()
    total = 0
    claims = [n for n in cone if not is_evidence[n]]
    for component in strongly_connected_components(index, claims):
        members = set(component)
        inputs_failed = any(
            a in failed
            for m in component
            for j in index.justs_of[m]
            for a in index.just_antecedents[j]
            if a not in members
        )
        if not inputs_failed:
            algebra.formed = 0
            algebra.formed_budget = formed_budget * len(component)
            try:
                try:
                    _solve_component(index, component, labels, algebra)
                except _TooBig:  # large labels: again from the start, in arrays
                    algebra.formed = 0
                    _solve_in_arrays(index, component, labels, algebra.arrays)
                if all(len(labels[m]) <= budget for m in component):
                    continue
            except LabelBudgetExceeded:
                pass
            finally:
                total += algebra.formed
        failed.update(component)
    if formed is not None:
        formed.append(total)
    result: dict[int, list[int] | None] = {n: None for n in failed}
    for n, sets in labels.items():
        if n not in failed:
            result[n] = sets
    return result
