"""Every tuning knob of the solver core, in one frozen object.

:func:`theory.solver.justifications.minimal_justifications` and the checker take a
:class:`SolverOptions` (``options=``); :data:`DEFAULTS` is what they use otherwise. No knob
picks a code path by the size of a graph or by what the process did before: every query
takes the same path, and the knobs only bound how much work each part of it may spend, in
units that are counted, never timed, so the same call gives the same answer every time.

>>> DEFAULTS.label_work
4000000
>>> SolverOptions(label_work=0).label_work   # every query to the SAT search
0
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SolverOptions:
    """The knobs of the solver core, each with its default and the reason for it."""

    label_work: int = 4_000_000
    """Work (products formed plus subset tests) the compiled label algebra may spend on one
    query before the SAT search takes it: a few milliseconds, so a label blow-up costs
    little, while labels that stay small answer far faster than any search."""

    loop_work_per_node: int = 2_000
    """Label work per node of a cone with a support loop: long cycles and nested loops
    need far less, while layered graphs with back-edges blow up under any budget, and every
    unit spent on them delays the search that answers them."""

    multiplying_loop_share: int = 200
    """A cone with a loop through a justification of two or more claims gets this fraction
    (one part in it) of the label work: semi-naive evaluation re-forms that product for
    every set a member gains, which is where labels blow up."""

    distribute: int = 16
    """Most clauses one acyclic claim's ``h -> OR(bodies)`` may take when written without
    body variables (one per choice of an antecedent from each justification): fewer
    variables for the solver to decide per model, at a bounded size."""

    exchange_attempts: int = 256
    """Exchange attempts (pools decided by 64-lane fixpoints) after each true model before
    the step hands back to the solver: a model stands for many justifications."""

    step_conflicts: int = 1_000
    """Conflicts one python-sat call may spend before it hands control back: to the
    portfolio, so that the other arm gets its turn, and in a check with a deadline to the
    clock, read between pieces of a relevance query; the next call resumes with what the
    solver learnt."""

    reverse_after: int = 64
    """Models after which the lazy arm's solver also gets the completion's other direction
    (antecedents imply the claim): fewer decisions per model from then on, for more
    clauses to load, which only a long enumeration repays."""

    ranked_entry: int = 20_000
    """Work the lazy arm does before the level-ranked arm's first turn; the ranked arm is
    also charged one unit per clause of its rankings before it builds them (the build is
    one step the portfolio cannot interrupt). A query the lazy arm answers at once so never
    builds the larger encoding."""

    label_sets: int = 256
    """Sets a claim's label may hold in ``jtms check`` before its certificates come from
    the SAT search instead (a listing capped there is cut anyway)."""

    relevance_conflicts: int = 20_000
    """Solver conflicts the relevance queries of one claim in ``jtms check`` may spend
    together (``--relevance-budget``): deciding relevance is NP-hard, and on support loops of
    hundreds of claims some queries run for minutes, while on the benchmark memories each
    ends within a few hundred conflicts; counted, not timed, so a report is reproducible."""

    relevance_first: int = 250
    """Conflicts each open relevance query gets when first asked alone (that pass spends
    half of ``relevance_conflicts`` at most): most items settle in a few conflicts, and the
    hard ones are then asked together, where one answer settles them all."""

    counting_conflicts: int = 200_000
    """Solver conflicts the counting-safety queries of one region may spend together
    (``jtms check --counting-budget``): deciding counting-safety is coNP-hard, so a region
    can hold a query no budget ends; on the benchmark memories and the karate closure every
    region ends within it. Counted, not timed, so a report is reproducible."""

    counting_region: int = 200_000
    """The most nodes one counting-safety solver is built for (a weakly connected region of
    claims behind loops and their intact ancestors); a larger region's claims are reported
    undecided rather than encoded, which bounds the check's memory. Independent smaller
    regions share a solver up to a quarter of it, so a memory of many small loops needs few
    solvers and models."""


DEFAULTS = SolverOptions()
"""The options every call uses unless given others."""

__all__ = ["DEFAULTS", "SolverOptions"]
