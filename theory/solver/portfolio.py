"""A portfolio of exact methods interleaved under growing budgets: no method's blow-up
becomes the caller's.

Every method of :func:`theory.solver.justifications.minimal_justifications` is exact, but each has
graphs where its cost explodes: the label algebra where labels multiply, the completion with
lazy loop formulas where support loops must be cut one model at a time (their number can be
exponential in the cone), and the level-ranked completion (:mod:`theory.solver.ranking`), which never
needs a loop formula but gives the solver more variables to decide per model. A
:class:`Portfolio` runs several of them as *arms*, each a sequence of steps that report the
work they did (a deterministic count: decisions and conflicts of a solver, or the label
algebra's products) and the minimal justifications they found. It always advances the arm
that has done the least work so far, and stops as soon as one arm finishes: that arm's
answer is complete. So a query costs at most about (number of arms) times the work of the
arm that is best on it, plus one step of overshoot, whatever the graph; work counts rather
than clock time make the interleaving, and so a query's answer under a ``limit``,
reproducible.

The bound holds in work units, and in time as far as a unit costs about the same in each
arm: a unit is a solver decision, ten per conflict, and one per clause of an encoding an arm
builds before its first step. Balancing by clock time instead would make the answer under
a ``limit`` depend on the machine's load, so the portfolio never looks at a clock.

Every set an arm yields is a minimal justification, so the portfolio passes each new one on
at once (for a ``limit``), and its answer on finishing is the union of what the arms found,
which is the finished arm's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from theory.model.canonical import smallest_first

Found = tuple[frozenset[str], ...]
Step = tuple[int, Found, bool]
"""One step of an arm: the work it did, the minimal justifications it found, and whether
the arm has finished (its sets so far are then all of them; an arm's steps may also just
end)."""


@dataclass
class Arm:
    """One method of a portfolio: ``start()`` gives its steps (called on its first turn, so
    an arm that is never needed costs nothing), and ``entry`` is work charged before its
    first turn (its estimated set-up cost, so that an arm with a costly encoding starts
    only once the others have spent as much)."""

    name: str
    start: Callable[[], Iterator[Step]]
    entry: int = 0
    work: int = 0
    steps: Iterator[Step] | None = None


@dataclass
class Portfolio:
    """Interleave ``arms`` (see the module docstring); iterate for the minimal
    justifications, each once. ``winner`` names the arm that finished (None until one
    has), ``work`` gives each arm's work.

    >>> a, b = frozenset({"a"}), frozenset({"b"})
    >>> def slow():
    ...     while True:
    ...         yield 10, (), False
    >>> def quick():
    ...     yield 3, (a,), False
    ...     yield 3, (b,), True
    >>> portfolio = Portfolio([Arm("slow", slow), Arm("quick", quick, entry=5)])
    >>> [sorted(s) for s in portfolio], portfolio.winner, portfolio.work
    ([['a'], ['b']], 'quick', {'slow': 10, 'quick': 11})
    """

    arms: list[Arm]
    winner: str | None = None
    found: set[frozenset[str]] = field(default_factory=set)

    @property
    def work(self) -> dict[str, int]:
        return {arm.name: arm.work for arm in self.arms}

    def __iter__(self) -> Iterator[frozenset[str]]:
        for arm in self.arms:
            arm.work = arm.entry
        try:
            while True:
                arm = min(self.arms, key=lambda a: a.work)  # the first of the least spent
                if arm.steps is None:
                    arm.steps = arm.start()
                try:
                    work, sets, done = next(arm.steps)
                except StopIteration:
                    self.winner = arm.name
                    return
                arm.work += max(1, work)
                # a step's new sets in the canonical order (smallest first, then by ids), not
                # in the hash order of a set of strings: a caller that stops after k sets
                # gets the same k in every process
                for s in smallest_first(s for s in sets if s not in self.found):
                    self.found.add(s)
                    yield s
                if done:
                    self.winner = arm.name
                    return
        finally:
            for other in self.arms:
                if other.steps is not None:
                    close = getattr(other.steps, "close", None)
                    if close is not None:
                        close()

    def run(self) -> frozenset[frozenset[str]]:
        """Every minimal justification."""
        return frozenset(self)


__all__ = ["Arm", "Found", "Portfolio", "Step"]
