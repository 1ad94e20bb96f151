"""Monotone circuits to CNF for python-sat (Plaisted-Greenbaum, one polarity at a time).

Because support formulas are monotone, the one-sided encoding is exact for the question
asked: with the ``positive`` encoding, a model whose evidence variables are X exists iff
f(X) is true; with the ``negative`` encoding and the root asserted false, iff f(X) is false.
Half the clauses of a full Tseitin encoding, and no spurious models.
"""

from __future__ import annotations

import collections
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pysat.formula import IDPool

from theory.solver.formula import AND, OR, TRUE, VAR, Circuit

Input = Callable[[str], "int | bool"]


class VariablePool(IDPool):  # type: ignore[misc]
    """python-sat's :class:`~pysat.formula.IDPool` without its reference cycle: its
    dictionary's default factory is a closure over the pool, so a pool that is dropped
    stays alive, with the tuple of every variable it named, until the cyclic collector
    runs. A check pauses that collector while it builds millions of small objects, and
    its dropped pools then held hundreds of megabytes (about 23,000 tuples per ranked
    encoding of a 479-claim loop). Here the factory holds the pool weakly, and a dropped
    pool is freed at once.

    >>> pool = VariablePool()
    >>> pool.id("a"), pool.id("b"), pool.id("a"), pool.top
    (1, 2, 1, 2)
    """

    def restart(self, *args: Any, **kwargs: Any) -> None:
        super().restart(*args, **kwargs)
        owner = weakref.ref(self)
        self.obj2id: collections.defaultdict[Any, int] = collections.defaultdict(
            lambda: owner()._next()  # type: ignore[union-attr]
        )


@dataclass
class Encoding:
    """Clauses defining a literal that stands for the formula (or a constant)."""

    clauses: list[list[int]]
    root: int | bool  # a literal, or True/False when the formula is constant


def encode(
    circuit: Circuit,
    root: int,
    pool: IDPool,
    inputs: Input,
    positive: bool = True,
    tag: str = "g",
) -> Encoding:
    """Encode the cone of ``root``. ``inputs(name)`` gives each variable's literal or constant.

    ``positive=True`` gives clauses ``gate -> definition`` (use to assert the root true);
    ``positive=False`` gives ``definition -> gate`` (use to assert the root false). ``tag``
    keeps the gate variables of different copies apart in a shared ``pool``.
    """
    clauses: list[list[int]] = []
    literal: dict[int, int | bool] = {}
    for gate in circuit.cone(root):
        kind = circuit.kinds[gate]
        if kind == VAR:
            literal[gate] = inputs(circuit.name(gate))
            continue
        if kind not in (AND, OR):
            literal[gate] = kind == TRUE
            continue
        parts = [literal[c] for c in circuit.children[gate]]
        absorbing = kind == OR  # a constant child that decides the gate: False for AND, True for OR
        if any(p is absorbing for p in parts):
            literal[gate] = absorbing
            continue
        parts = [p for p in parts if p is not (not absorbing)]
        if not parts:
            literal[gate] = not absorbing
            continue
        if len(parts) == 1:
            literal[gate] = parts[0]
            continue
        g = pool.id((tag, gate))
        literal[gate] = g
        if kind == AND:
            if positive:
                clauses.extend([-g, p] for p in parts)
            else:
                clauses.append([g] + [-p for p in parts])
        else:
            if positive:
                clauses.append([-g] + parts)
            else:
                clauses.extend([g, -p] for p in parts)
    return Encoding(clauses, literal[root])
