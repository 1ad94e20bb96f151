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

That bound is in work units, and it holds in time only as far as a unit costs the same in
every arm, which constants calibrate on average but cannot on every graph: on a long cycle
a unit of the ranked encoding's solver loop can cost many times one of the lazy loop's, and
the ranked arm then takes nearly all the CPU time while the lazy arm, which would finish,
barely moves (``python -m benchmarks.bench_portfolio_units --long-cycle``). A caller that
takes every answer (no ``limit``: the answer is the same set whichever arm finishes) can
therefore balance CPU time instead (``balance="time"``): each step then goes to the arm that
has used the least CPU time, its entry counted as :data:`UNIT_SECONDS` a unit, and a query
costs at most about (number of arms) times the CPU time of the best arm on it, plus one
step. Balanced by time alone, though, an arm whose units are cheap (the label algebra's,
a fourth to a seventeenth of a lazy-loop step on nested loops) gets as much CPU time as the
arm that finishes, and the loop families took about twice as long. ``balance="both"`` therefore
counts each arm's spending as the larger of its work and its CPU time expressed in units of
the first arm (the usual method, whose seconds per unit of work so far convert it;
:data:`UNIT_SECONDS` before its first step): an arm whose units cost what the first arm's
do, or less, advances by work, as calibrated, and one whose units are dearer by time. When
the first arm finishes, a query so costs at most about (number of arms) times its CPU time,
plus one step; when another does, about (number of arms) times the larger of that arm's
time and its work at the first arm's rate. The interpreted path balances both for every
answer (no ``limit``), and work for a prefix.

An arm that cannot resume (a compiled search returns only when it ends or its budget runs
out) is restarted with a doubled budget (:func:`restarted`): the work thrown away is at most
the work of the run that finishes, the classic doubling argument (Luby, Sinclair and
Zuckerman 1993 for the strategy in general).

Every set an arm yields is a minimal justification, so the portfolio passes each new one on
at once (for a ``limit``), and its answer on finishing is the union of what the arms found,
which is the finished arm's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from time import process_time

from theory.model.canonical import smallest_first

Found = tuple[frozenset[str], ...]
Step = tuple[int, Found, bool]
"""One step of an arm: the work it did, the minimal justifications it found, and whether
the arm has finished (its sets so far are then all of them; an arm's steps may also just
end)."""

UNIT_SECONDS = 1e-7
"""CPU seconds that a unit of an arm's entry charge counts for under ``balance="time"``:
about one step of the lazy solver loop (0.02-0.14 us in ``bench_portfolio_units.py``'s
goals)."""

BALANCES = ("work", "time", "both")

FIRST_BUDGET = 20_000
"""The budget of a restarted arm's first run (work units: about 1-2 ms of compiled search)."""


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
    seconds: float = 0.0  # CPU time of its steps: what a unit of its work costs is seconds / work


@dataclass
class Portfolio:
    """Interleave ``arms`` (see the module docstring); iterate for the minimal
    justifications, each once. ``winner`` names the arm that finished (None until one
    has), ``work`` gives each arm's work."""

    arms: list[Arm]
    winner: str | None = None
    found: set[frozenset[str]] = field(default_factory=set)
    balance: str = "work"

    def __post_init__(self) -> None:
        if self.balance not in BALANCES:
            raise ValueError(f"balance must be one of {BALANCES}, not {self.balance!r}")

    @property
    def work(self) -> dict[str, int]:
        return {arm.name: arm.work for arm in self.arms}

    def __iter__(self) -> Iterator[frozenset[str]]:
        for arm in self.arms:
            arm.work = arm.entry
        if self.balance == "work":
            spent: Callable[[Arm], float] = lambda a: a.work  # noqa: E731
        elif self.balance == "time":
            spent = lambda a: a.seconds + a.entry * UNIT_SECONDS  # noqa: E731
        else:  # the larger of its work and its CPU time in units of the first arm's work
            reference = self.arms[0]

            def spent(a: Arm) -> float:
                done = reference.work - reference.entry
                rate = reference.seconds / done if done > 0 and reference.seconds > 0 else None
                return max(a.work, a.entry + a.seconds / (rate or UNIT_SECONDS))

        try:
            while True:
                arm = min(self.arms, key=spent)  # the first of the least spent
                started = process_time()
                if arm.steps is None:
                    arm.steps = arm.start()
                try:
                    work, sets, done = next(arm.steps)
                except StopIteration:
                    self.winner = arm.name
                    return
                finally:
                    arm.seconds += process_time() - started
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


def restarted(
    attempt: Callable[[int], tuple[bool, int, Iterable[frozenset[str]]]], first: int = FIRST_BUDGET
) -> Iterator[Step]:
    """The steps of a method that cannot resume: ``attempt(budget)`` runs it afresh within
    ``budget`` work and says whether it finished, the work it did and what it found; each
    run that does not finish is followed by one with twice the budget."""
    budget = first
    while True:
        finished, work, sets = attempt(budget)
        yield work, tuple(sets), finished
        budget *= 2


__all__ = [
    "BALANCES",
    "FIRST_BUDGET",
    "UNIT_SECONDS",
    "Arm",
    "Found",
    "Portfolio",
    "Step",
    "restarted",
]
