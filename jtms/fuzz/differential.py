"""Differential testing of the active state: theory vs clingo (vs the jtms engine).

Each generated graph is grounded once in clingo (:class:`ClingoOracle`) and then checked
on many audits by reassigning external atoms: the empty audit, every single-node audit,
every two-evidence audit, a few random multi-node audits and one audit/reinstatement
sequence. For each audit R:

- ``theory.semantics.fixpoint.active_state(structure, blocked=R)`` must equal clingo's stable model;
- ``theory.semantics.revision.exact(structure, R)`` (the bounded incremental re-derivation) must equal
  clingo's ``active(∅) - active(R)``;
- every extra backend (:mod:`jtms.fuzz.backends`, the production engine when available) must
  give the same active state, and along the sequence the same state after every step.

A disagreement fails the hypothesis test, so it is shrunk before it is reported.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from hypothesis import Phase, given
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from jtms.fuzz.backends import EngineUnderTest
from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.fuzz.runner import graph_size, hypothesis_settings, reduce_case
from jtms.fuzz.shapes import shape
from theory.io.graphfile import graph_to_dict
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import exact
from theory.testing import strategies as jst

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class CampaignOptions:
    max_evidence: int = 8
    max_claims: int = 12
    max_alternatives: int = 3
    max_antecedents: int = 3
    random_audits: int = 6
    evidence_pairs: bool = True  # also check every two-evidence audit (cheap: no drawing)
    sequence_steps: int = 6
    batch: int = 500  # graphs per hypothesis run (each batch gets its own seed)


@dataclass(frozen=True)
class Case:
    structure: SupportStructure
    audits: tuple[frozenset[str], ...]
    steps: tuple[jst.AuditStep, ...]
    cyclic: bool


@st.composite
def campaign_cases(draw: st.DrawFn, options: CampaignOptions) -> Case:
    """A graph (with or without loops, sometimes redundant, sometimes depth-bounded),
    random multi-node audits and an audit/reinstatement sequence.

    The graph is drawn and shrunk by hypothesis. The extra audits and the sequence come from
    a drawn seed (hypothesis spends more time on a draw than the check costs); a failing case
    is still deterministic, and the final greedy reduction shrinks its audit.
    """
    cyclic = draw(st.booleans())
    redundant = draw(st.booleans())
    depth = draw(st.sampled_from([None, 2, 4]))
    structure = draw(
        jst.support_structures(
            max_evidence=options.max_evidence,
            max_claims=options.max_claims,
            max_alternatives=options.max_alternatives,
            max_antecedents=options.max_antecedents,
            cycles=cyclic,
            redundant=redundant,
            max_depth=depth,
        )
    )
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    nodes = sorted(structure.nodes)
    audits = tuple(
        frozenset(rng.sample(nodes, rng.randint(2, len(nodes))))
        for _ in range(options.random_audits if len(nodes) >= 2 else 0)
    )
    return Case(structure, audits, random_sequence(nodes, rng, options.sequence_steps), cyclic)


def random_sequence(
    nodes: Sequence[str], rng: random.Random, max_steps: int
) -> tuple[jst.AuditStep, ...]:
    """Audits of free nodes and reinstatements of blocked ones, like ``jst.audit_sequences``."""
    blocked: set[str] = set()
    steps: list[jst.AuditStep] = []
    for _ in range(rng.randint(0, max_steps)):
        free = [n for n in nodes if n not in blocked]
        if blocked and (not free or rng.random() < 0.4):
            ids = frozenset(rng.sample(sorted(blocked), rng.randint(1, min(3, len(blocked)))))
            blocked -= ids
            steps.append(jst.AuditStep(jst.REINSTATE, ids))
        elif free:
            ids = frozenset(rng.sample(free, rng.randint(1, min(3, len(free)))))
            blocked |= ids
            steps.append(jst.AuditStep(jst.AUDIT, ids))
    return tuple(steps)


@dataclass(frozen=True)
class Disagreement:
    structure: SupportStructure
    blocked: frozenset[str]
    what: str  # "active_state", "exact", or "<backend>"
    oracle: frozenset[str]
    got: frozenset[str]
    steps: tuple[jst.AuditStep, ...] = ()  # for a sequence: the steps up to the failing one

    def to_dict(self) -> dict[str, Any]:
        return {
            "graph": graph_to_dict(self.structure),
            "audit": sorted(self.blocked),
            "sequence": [step.to_dict() for step in self.steps],
            "checker": self.what,
            "clingo": sorted(self.oracle),
            "got": sorted(self.got),
            "size": graph_size(self.structure),
        }


class _Disagree(AssertionError):
    def __init__(self, disagreement: Disagreement):
        super().__init__(disagreement.what)
        self.disagreement = disagreement


def check_pair(
    structure: SupportStructure,
    oracle: ClingoOracle,
    before: frozenset[str],
    blocked: frozenset[str],
    sessions: Sequence[Any] = (),
) -> Disagreement | None:
    after = oracle.active(blocked)
    theory_after = active_state(structure, blocked=blocked)
    if theory_after != after:
        return Disagreement(structure, blocked, "theory.active_state", after, theory_after)
    retired = exact(structure, blocked)
    if retired != before - after:
        return Disagreement(structure, blocked, "theory.exact", before - after, retired)
    for session in sessions:
        got = frozenset(session.active(blocked))
        if got != after:
            return Disagreement(structure, blocked, session.name, after, got)
    return None


@dataclass
class CampaignReport:
    seed: int
    backends: list[str]
    skipped_backends: dict[str, str]
    target_pairs: int
    pairs: int = 0
    graphs: int = 0
    cyclic_graphs: int = 0
    sequence_steps: int = 0
    clingo_solves: int = 0
    distinct_shapes: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    disagreement: Disagreement | None = None
    minimized: dict[str, Any] | None = field(default=None)

    @property
    def ok(self) -> bool:
        return self.disagreement is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": "differential",
            "seed": self.seed,
            "oracle": "clingo",
            "checked": ["theory.active_state", "theory.exact", *self.backends],
            "skipped_backends": dict(self.skipped_backends),
            "target_pairs": self.target_pairs,
            "pairs": self.pairs,
            "graphs": self.graphs,
            "cyclic_graphs": self.cyclic_graphs,
            "acyclic_graphs": self.graphs - self.cyclic_graphs,
            "sequence_steps": self.sequence_steps,
            "clingo_solves": self.clingo_solves,
            "distinct_shapes": self.distinct_shapes,
            "disagreements": 0 if self.ok else 1,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "pairs_per_second": round(self.pairs / self.seconds, 1) if self.seconds else 0.0,
            "disagreement": None if self.disagreement is None else self.disagreement.to_dict(),
        }


def case_audits(case: Case, evidence_pairs: bool = True) -> list[frozenset[str]]:
    """Every single-node audit, every two-evidence audit (if asked), then the drawn audits."""
    nodes = sorted(case.structure.nodes)
    audits = [frozenset({n}) for n in nodes]
    if evidence_pairs:
        evidence = sorted(case.structure.evidence)
        audits += [frozenset(p) for p in combinations(evidence, 2)]
    return audits + list(case.audits)


def run_case(
    case: Case, backends: Sequence[EngineUnderTest], evidence_pairs: bool = True
) -> tuple[int, int, int, Disagreement | None]:
    """Check one case; returns (pairs, sequence steps, clingo solves, first disagreement)."""
    structure = case.structure
    oracle = ClingoOracle(structure)
    sessions = [backend.open(structure) for backend in backends]
    before = oracle.active(frozenset())
    pairs = 0
    found = check_pair(structure, oracle, before, frozenset(), sessions)
    if found is None:
        for audit in case_audits(case, evidence_pairs):
            pairs += 1
            found = check_pair(structure, oracle, before, audit, sessions)
            if found is not None:
                break
    steps = 0
    if found is None:
        for blocked, step in zip(jst.blocked_after(case.steps), case.steps):
            steps += 1
            so_far = case.steps[:steps]
            after = oracle.active(blocked)
            theory_after = active_state(structure, blocked=blocked)
            if theory_after != after:
                found = Disagreement(
                    structure,
                    blocked,
                    "theory.active_state (sequence)",
                    after,
                    theory_after,
                    so_far,
                )
                break
            for session in sessions:
                got = frozenset(session.apply(step))
                if got != after:
                    found = Disagreement(
                        structure, blocked, f"{session.name} (sequence)", after, got, so_far
                    )
                    break
            if found is not None:
                break
    for session in sessions:
        session.close()
    return pairs, steps, oracle.solves, found


def differential_campaign(
    pairs: int = 100_000,
    *,
    seed: int = 0,
    options: CampaignOptions | None = None,
    backends: Sequence[EngineUnderTest] = (),
    skipped_backends: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> CampaignReport:
    """Check at least ``pairs`` (graph, audit) pairs; stop at the first disagreement."""
    options = options or CampaignOptions()
    report = CampaignReport(
        seed=seed,
        backends=[b.name for b in backends],
        skipped_backends=dict(skipped_backends or {}),
        target_pairs=pairs,
    )
    shapes: set[int] = set()
    strategy = campaign_cases(options)
    start, cpu = time.perf_counter(), time.process_time()
    batch_number = 0
    while report.pairs < pairs and report.disagreement is None:
        failing: list[Disagreement] = []

        # Size the batch to what is still needed, so few graphs are generated for nothing.
        per_graph = report.pairs / report.graphs if report.graphs else 20.0
        batch = max(20, min(options.batch, int((pairs - report.pairs) / per_graph * 1.2) + 5))

        @hypothesis_seed(seed * 100_003 + batch_number)
        @hypothesis_settings(batch, (Phase.generate, Phase.shrink))
        @given(strategy)
        def check(case: Case) -> None:
            if failing:  # shrinking: only the verdict matters
                found = run_case(case, backends, options.evidence_pairs)[3]
            elif report.pairs >= pairs:
                return
            else:
                checked, steps, solves, found = run_case(case, backends, options.evidence_pairs)
                report.graphs += 1
                report.cyclic_graphs += case.cyclic
                report.pairs += checked
                report.sequence_steps += steps
                report.clingo_solves += solves
                shapes.add(shape(case.structure))
                if progress is not None:
                    progress(min(report.pairs, pairs), pairs)
            if found is not None:
                failing.append(found)
                raise _Disagree(found)

        try:
            check()
        except _Disagree:
            report.disagreement = failing[-1]
        batch_number += 1
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu
    report.distinct_shapes = len(shapes)
    if report.disagreement is not None:
        report.minimized = _minimize(report.disagreement, backends)
    return report


def _minimize(disagreement: Disagreement, backends: Sequence[EngineUnderTest]) -> dict[str, Any]:
    if disagreement.steps:  # a sequence failure: keep hypothesis's shrunk case as it is
        return {
            "graph": graph_to_dict(disagreement.structure),
            "audit": sorted(disagreement.blocked),
            "sequence": [step.to_dict() for step in disagreement.steps],
            "size": graph_size(disagreement.structure),
        }

    def fails(structure: SupportStructure, blocked: frozenset[str]) -> bool:
        oracle = ClingoOracle(structure)
        sessions = [b.open(structure) for b in backends]
        try:
            return (
                check_pair(structure, oracle, oracle.active(frozenset()), blocked, sessions)
                is not None
            )
        finally:
            for session in sessions:
                session.close()

    structure, blocked = reduce_case(disagreement.structure, disagreement.blocked, fails)
    return {
        "graph": graph_to_dict(structure),
        "audit": sorted(blocked),
        "size": graph_size(structure),
    }
