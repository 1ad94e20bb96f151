"""Lex-leader symmetry breaking: the statements are invariant under renaming evidence items.

A permutation p of the items acts on truth tables by (f∘p)(X) = f(p(X)). Every statement
and every auxiliary definition is invariant under it, so if any f is a counterexample then
so is the lexicographically least member of its orbit, which satisfies t <=lex t∘p for
*every* p. Adding t <=lex t∘p for some permutations (here the transpositions) therefore
keeps satisfiability: an UNSAT answer still proves the statement for all f.
"""

from __future__ import annotations

from itertools import combinations
from typing import Protocol


class ClauseBuilder(Protocol):
    """What lex_leader needs from :class:`proofs.cnf_encoding.Builder`."""

    def new(self) -> int: ...

    def add(self, clause: list[int]) -> None: ...


def _swap(x: int, i: int, j: int) -> int:
    if (x >> i & 1) == (x >> j & 1):
        return x
    return x ^ (1 << i) ^ (1 << j)


def transpositions(n: int, adjacent_only: bool = False) -> list[tuple[int, int]]:
    if adjacent_only:
        return [(i, i + 1) for i in range(n - 1)]
    return list(combinations(range(n), 2))


VARIANTS = ("sound", "flipped_first", "unguarded")
"""``sound`` is what the proofs use. The other two are deliberately *unsound* mutants, kept
so the exhaustive orbit check (:mod:`proofs.symmetry_check`) can show that it catches them:
``flipped_first`` asserts t >=lex t∘(0 j) for the transpositions of item 0; ``unguarded``
drops the "all earlier pairs equal" guard, so every pair is ordered unconditionally."""


def lex_leader(
    builder: ClauseBuilder,
    n: int,
    t: list[int],
    adjacent_only: bool = False,
    variant: str = "sound",
) -> None:
    """Add t <=lex t∘(i j) for each transposition (index 0 is the most significant)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown lex-leader variant {variant!r}")
    for i, j in transpositions(n, adjacent_only):
        pairs = [(t[x], t[_swap(x, i, j)]) for x in range(1 << n) if x < _swap(x, i, j)]
        if variant == "flipped_first" and i == 0:
            pairs = [(c, a) for a, c in pairs]
        equal: int | None = None  # "all earlier pairs equal"; None means true
        for k, (a, c) in enumerate(pairs):
            guard: list[int] = [] if equal is None or variant == "unguarded" else [-equal]
            builder.add(guard + [-a, c])  # a <= c
            if k + 1 < len(pairs):
                nxt = builder.new()
                builder.add(guard + [-a, nxt])  # a = 1 forces c = 1: still equal
                builder.add(guard + [c, nxt])  # c = 0 forces a = 0: still equal
                equal = nxt
