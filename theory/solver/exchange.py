"""New minimal justifications from found ones by exchange, compiled
(:mod:`theory.solver.kernels`): the step the one-search enumerator of
:mod:`theory.solver.justifications` takes on each model.

A model's evidence X is decided by the least fixpoint of the cone
(:class:`~theory.solver.cone_kernel.ConeOracle`): true, it shrinks to a minimal true set M (a set
of fewer than 64 that is minimal already, as the compiled solver's models nearly always
are, is recognised by one pass of 64-lane fixpoints: the set and the set less each
member); false, it grows to a maximal false set. After a true model the step keeps going
without the solver (within ``exchange_attempts`` of :class:`~theory.solver.options.SolverOptions`): for a found set M and a member e of it, the pool P = all the cone's evidence less
e, less one member of every set found so far that P still contains (so P contains no found
set). If the claim holds in the least fixpoint of P, the minimal subset P shrinks to is a
justification not found before: it is inside P, and every found set is not. Pools are
built and decided up to 64 at once; one that contains a set found earlier in its own batch
loses a member of that set and is decided again, so no shrink is spent on a set already
found. Every set found this way is expanded in turn, within an attempt budget per model.
The solver then learns them all at once ("not all of M" for each), so a model stands for
many justifications instead of one. Exactness does not depend on the heuristic: the solver's
search still ends only when every justification is blocked.

Found sets are rows of 64-bit words (any number of words), kept across steps in
:class:`Exchange`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import theory.solver.kernels as kernels
from theory.solver.cone_kernel import ConeOracle
from theory.solver.options import DEFAULTS


class Exchange:
    """The found sets of one enumeration, and the step that decides a model and expands it.

    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["p", "q", "r", "s"], ["a", "b", "root"],
    ...     [("a", ["p"]), ("a", ["q"]), ("b", ["r"]), ("b", ["s"]), ("root", ["a", "b"])])
    >>> index = index_of(g)
    >>> exchange = Exchange(ConeOracle(index, index.number["root"]))
    >>> true, new = exchange.step(index.numbers(["p", "q", "r", "s"]))
    >>> true, len(new)          # one model: all four justifications
    (True, 4)
    >>> sorted(sorted(index.ids[n] for n in m) for m in exchange.found())
    [['p', 'r'], ['p', 's'], ['q', 'r'], ['q', 's']]
    """

    def __init__(
        self,
        oracle: ConeOracle,
        attempts: int = DEFAULTS.exchange_attempts,
    ):
        self.oracle = oracle
        self.attempts = attempts
        self.words = max(1, (oracle.evidence.shape[0] + 63) // 64)
        self.rows = np.zeros((16, self.words), dtype=np.uint64)
        self.cols = np.zeros((oracle.evidence.shape[0], 1), dtype=np.uint64)
        self.count = 0
        self.freq = np.zeros(
            oracle.evidence.shape[0], dtype=np.int64
        )  # found sets holding each item
        self.tally = np.zeros(
            3, dtype=np.int64
        )  # models decided, exchange attempts, sets they found

    def step(self, present: Any) -> tuple[bool, list[np.ndarray]]:
        """Decide the evidence ``present`` (node numbers): ``(True, [M, ...])``, the new
        justifications (node numbers; the first is a minimal subset of ``present``), or
        ``(False, [O])``: O the evidence outside a maximal false superset of ``present``
        (some member of O is in every true set)."""
        positions = self.oracle.position[np.asarray(present, dtype=np.int64)]
        true, flat, start = self.step_positions(positions[positions >= 0])
        chosen = self.oracle.evidence[flat]
        return true, [chosen[start[i] : start[i + 1]] for i in range(start.shape[0] - 1)]

    def step_positions(self, present: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
        """:meth:`step` on evidence positions of the cone (``oracle.evidence[p]`` is the node
        of position p), the sets flattened: set i is ``flat[start[i]:start[i + 1]]``."""
        kind, self.rows, self.cols, self.count, flat, start = self.oracle.kernel.exchange_step(
            np.asarray(present, dtype=np.int64),
            self.rows,
            self.cols,
            self.count,
            self.freq,
            self.tally,
            self.attempts,
            self.attempts,  # no early hand-back: every attempt is made
        )
        return bool(kind), flat, start

    def found(self) -> list[np.ndarray]:
        """Every justification found so far (node numbers)."""
        flat, start = kernels.row_positions(self.rows, 0, self.count)
        chosen = self.oracle.evidence[flat]
        return [chosen[start[i] : start[i + 1]] for i in range(self.count)]

    def named(self, ids: Sequence[str], first: int = 0) -> frozenset[frozenset[str]]:
        """The justifications found so far from the ``first``-th on, each as the ids of its
        evidence (``ids[n]`` names node n), named in one pass over one flat list."""
        flat, start = kernels.row_positions(self.rows, first, self.count)
        names = [ids[n] for n in self.oracle.evidence[flat].tolist()]
        bounds = start.tolist()
        return frozenset(
            [frozenset(names[bounds[i] : bounds[i + 1]]) for i in range(self.count - first)]
        )


__all__ = ["Exchange"]
