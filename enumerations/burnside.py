"""How many memory graphs up to isomorphism: Burnside's lemma, by counting, not generating.

A check on the class generator (:mod:`enumerations.orderly`) that shares no code with it:
the number of isomorphism classes of a family ``(E, C, J)`` (see
:class:`enumerations.graphs.GraphFamily`) under the group ``S_E x S_C`` (permuting evidence and
permuting claims) is the average, over the group's elements ``g``, of the number of labelled
graphs that ``g`` fixes (Burnside's lemma).

A graph is a set of at most ``J`` distinct justifications ``c <- A`` (``A`` a set of nodes not
containing ``c``); ``g`` acts on each justification, and a set of them is fixed by ``g`` iff it
is a union of cycles of the permutation ``g`` induces on justifications. With those cycles of
lengths ``l1, l2, ...`` the fixed sets of exactly ``m`` justifications are counted by the
coefficient of ``x**m`` in ``prod (1 + x**l)``. Elements of one conjugacy class (one pair of
cycle types) fix equally many graphs, so the sum runs over pairs of partitions of ``E`` and
of ``C``, each weighted by its class size ``n! / z(cycle type)``. The justifications a
permutation acts on are listed here directly (``C * 2**(E + C - 1)`` of them: at most a few
thousand), never the graphs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from math import factorial


def partitions(n: int, largest: int | None = None) -> Iterator[tuple[int, ...]]:
    """The partitions of ``n`` as non-increasing tuples of parts (``()`` for n = 0)."""
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in partitions(n - first, first):
            yield (first, *rest)


def class_size(cycle_type: tuple[int, ...]) -> int:
    """The number of permutations of ``sum(cycle_type)`` points with that cycle type:
    ``n! / prod(l**k_l * k_l!)`` where ``k_l`` is the number of cycles of length ``l``."""
    z = 1
    for length, count in Counter(cycle_type).items():
        z *= length**count * factorial(count)
    return factorial(sum(cycle_type)) // z


def permutation_of(cycle_type: tuple[int, ...], offset: int = 0) -> dict[int, int]:
    """One permutation of the points ``offset .. offset + n - 1`` with that cycle type."""
    image, start = {}, offset
    for length in cycle_type:
        for i in range(length):
            image[start + i] = start + (i + 1) % length
        start += length
    return image


def justification_cycles(evidence: int, claims: int, node_image: dict[int, int]) -> list[int]:
    """The cycle lengths of the permutation of node images acting on justifications.

    Nodes ``0 .. evidence - 1`` are evidence and the next ``claims`` are claims; a
    justification is ``(claim, frozenset of antecedents)``, its antecedents any nodes but
    the claim itself."""
    nodes = list(range(evidence + claims))
    seen: set[tuple[int, frozenset[int]]] = set()
    lengths = []
    for claim in range(evidence, evidence + claims):
        others = [x for x in nodes if x != claim]
        for bits in range(1 << len(others)):
            start = (claim, frozenset(x for i, x in enumerate(others) if bits >> i & 1))
            if start in seen:
                continue
            length, current = 0, start
            while True:
                seen.add(current)
                length += 1
                current = (node_image[current[0]], frozenset(node_image[x] for x in current[1]))
                if current == start:
                    break
            lengths.append(length)
    return lengths


def fixed_graphs_by_size(lengths: list[int], max_justifications: int) -> list[int]:
    """Coefficients of ``x**0 .. x**J`` in ``prod over cycles (1 + x**length)``: the number
    of fixed sets of justifications of each size."""
    poly = [1] + [0] * max_justifications
    for length in lengths:
        for degree in range(max_justifications, length - 1, -1):
            poly[degree] += poly[degree - length]
    return poly


def class_counts_by_size(evidence: int, claims: int, max_justifications: int) -> list[int]:
    """The number of isomorphism classes with exactly ``m`` justifications, m = 0 .. J."""
    order = factorial(evidence) * factorial(claims)
    total = [Fraction(0)] * (max_justifications + 1)
    for evidence_type in partitions(evidence):
        for claim_type in partitions(claims):
            image = permutation_of(evidence_type) | permutation_of(claim_type, evidence)
            weight = class_size(evidence_type) * class_size(claim_type)
            fixed = fixed_graphs_by_size(
                justification_cycles(evidence, claims, image), max_justifications
            )
            for m, count in enumerate(fixed):
                total[m] += Fraction(weight * count, order)
    if any(t.denominator != 1 for t in total):
        raise ArithmeticError("Burnside's average is not an integer: the action is wrong")
    return [int(t) for t in total]


def class_count(evidence: int, claims: int, max_justifications: int) -> int:
    """The number of isomorphism classes of graphs with at most ``J`` justifications."""
    return sum(class_counts_by_size(evidence, claims, max_justifications))


def labelled_count(evidence: int, claims: int, max_justifications: int) -> int:
    """The labelled graphs, from the identity's fixed sets (every graph is fixed by it)."""
    identity = permutation_of((1,) * (evidence + claims))
    return sum(
        fixed_graphs_by_size(justification_cycles(evidence, claims, identity), max_justifications)
    )


__all__ = [
    "class_count",
    "class_counts_by_size",
    "class_size",
    "fixed_graphs_by_size",
    "justification_cycles",
    "labelled_count",
    "partitions",
    "permutation_of",
]
