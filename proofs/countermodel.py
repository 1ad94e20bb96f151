"""Decode a SAT answer (a truth table, maybe an ancestor set) into a support structure.

The claim ``c`` gets one justification per minimal point of f; a recorded ancestor set A
larger than U is realised by one extra, redundant justification ``c <- A`` (it adds
influence edges without changing f). The witness audit is then recomputed with the
project's own revision rules (:mod:`theory.revision`), an independent check that the
countermodel really separates exact from influence revision.
"""

from __future__ import annotations

from itertools import combinations

from theory.graphfile import graph_to_dict
from theory.revision import exact, influence
from theory.structure import SupportStructure

from proofs.results import Countermodel


def item(i: int) -> str:
    return f"e{i + 1}"


def minimal_points(table: list[bool], n: int) -> list[int]:
    return [
        x for x in range(1 << n)
        if table[x] and not any(table[x & ~(1 << i)] for i in range(n) if x >> i & 1)
    ]


def is_monotone(table: list[bool], n: int) -> bool:
    return all(
        not table[x] or table[x | 1 << i] for x in range(1 << n) for i in range(n)
    )


def members(x: int, n: int) -> list[str]:
    return [item(i) for i in range(n) if x >> i & 1]


def essential_items(points: list[int], n: int) -> set[int]:
    """U: the items of some minimal point."""
    return {i for x in points for i in range(n) if x >> i & 1}


def structure_of(table: list[bool], n: int, ancestors: list[int] | None = None) -> SupportStructure:
    points = minimal_points(table, n)
    justifications = [("c", members(x, n)) for x in points]
    essential = essential_items(points, n)
    if ancestors is not None and set(ancestors) != essential:
        justifications.append(("c", [item(i) for i in sorted(set(ancestors) | essential)]))
    return SupportStructure.build([item(i) for i in range(n)], ["c"], justifications)


def witness(structure: SupportStructure) -> tuple[list[str], bool, bool] | None:
    """The smallest evidence audit on which exact and influence disagree about c."""
    evidence = sorted(structure.evidence)
    for size in range(len(evidence) + 1):
        for audit in combinations(evidence, size):
            by_exact = "c" in exact(structure, frozenset(audit))
            by_influence = "c" in influence(structure, frozenset(audit))
            if by_exact != by_influence:
                return list(audit), by_exact, by_influence
    return None


def decode(table: list[bool], n: int, ancestors: list[int] | None = None) -> Countermodel:
    if not is_monotone(table, n):  # the encodings force monotonicity; say so if they did not
        raise AssertionError("decoded truth table is not monotone")
    structure = structure_of(table, n, ancestors)
    points = minimal_points(table, n)
    found = witness(structure)
    if found is None:
        note = "exact and influence agree on every audit"
        audit = None
    else:
        audit, by_exact, by_influence = found
        note = (f"influence {'retires' if by_influence else 'keeps'} c, "
                f"exact {'retires' if by_exact else 'keeps'} it")
    essential = sorted(essential_items(points, n) | set(ancestors or []))
    return Countermodel(
        graph=graph_to_dict(structure),
        minimal_justifications=sorted((members(x, n) for x in points), key=lambda s: (len(s), s)),
        ancestors=[item(i) for i in essential],
        witness_audit=audit,
        note=note,
    )
