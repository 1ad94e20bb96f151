"""Fuzz a revision rule against exact revision, with shrinking.

:func:`fuzz_rule` runs in two phases, both driven by hypothesis with a fixed seed:

1. *explore*: ``examples`` random (graph, audit) pairs from :mod:`theory.testing.strategies`; every
   pair is checked, counterexamples are counted (nothing stops the run), distinct shapes are
   fingerprinted. This gives the report: examples, shapes, counterexamples, time.
2. *shrink* (only if a counterexample was seen): the same seeded search again, now failing at
   the first counterexample, so hypothesis shrinks it; then a greedy pass removes every
   justification, node, audit item and antecedent that is not needed for the disagreement.

A counterexample is any pair where the rule's retired set differs from
:func:`theory.semantics.revision.exact` (or the rule raises): *under-revised* ids are retired by exact
but kept by the rule, *over-revised* ids are retired by the rule but kept by exact.
"""

from __future__ import annotations

import copy
import os
import random
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from jtms.fuzz.shapes import shape
from theory.io.graphfile import graph_to_dict
from theory.model.errors import InputError
from theory.model.structure import SupportStructure
from theory.semantics.revision import RevisionRule, checked_retired, exact
from theory.testing import strategies as jst
from theory.testing.census import Census, loop_claims

Progress = Callable[[int, int], None]


# --- loading a user's rule -------------------------------------------------------------


# --- one comparison --------------------------------------------------------------------


@dataclass(frozen=True)
class RuleMismatch:
    """How a rule's answer differs from exact revision on one (graph, audit) pair."""

    expected: frozenset[str]
    got: frozenset[str] | None
    error: str | None = None

    @property
    def under_revised(self) -> frozenset[str]:
        return self.expected - (self.got or frozenset())

    @property
    def over_revised(self) -> frozenset[str]:
        return (self.got or frozenset()) - self.expected

    @property
    def kinds(self) -> tuple[str, ...]:
        if self.error is not None:
            return ("error",)
        return tuple(
            k for k, ids in (("under", self.under_revised), ("over", self.over_revised)) if ids
        )


def compare(
    rule: RevisionRule, structure: SupportStructure, audit: frozenset[str]
) -> RuleMismatch | None:
    """``None`` if the rule agrees with exact revision on this pair."""
    expected = exact(structure, audit)
    try:  # on a copy: a rule that changes its graph must not change the one reported
        got: frozenset[Any] = frozenset(rule(copy.deepcopy(structure), audit))
    except (Exception, SystemExit) as error:  # sys.exit() in a rule is no pass
        last = traceback.extract_tb(error.__traceback__)[-1]
        where = f" at {os.path.basename(last.filename)}:{last.lineno}"
        return RuleMismatch(expected, None, f"{error.__class__.__name__}: {error}{where}")
    try:  # an item that is no id of the graph is an error, not an over-revision
        got = checked_retired(structure, got, "the rule")
    except InputError as error:
        return RuleMismatch(expected, None, str(error))
    if got == expected:
        return None
    return RuleMismatch(expected, got)


# --- the generated cases ---------------------------------------------------------------


@dataclass(frozen=True)
class GraphOptions:
    """Sizes and features of the generated graphs (see :func:`theory.testing.strategies.support_structures`).

    ``cycles=None`` mixes graphs with and without support loops (shrinking prefers none).
    """

    max_evidence: int = 5
    max_claims: int = 6
    max_alternatives: int = 3
    max_antecedents: int = 3
    max_depth: int | None = None
    max_fan_in: int | None = None
    cycles: bool | None = None
    premises: bool = True
    redundant: bool = True
    evidence_only: bool = False

    def strategy(self) -> st.SearchStrategy[tuple[SupportStructure, frozenset[str]]]:
        """The cases; the options are checked here (``InvalidArgument`` naming the option)."""
        self.validate()
        return _cases(self)

    def validate(self) -> None:
        """Raise hypothesis' ``InvalidArgument`` naming the option if the options are invalid."""
        for cycles in (True, False) if self.cycles is None else (self.cycles,):
            self.cases(cycles)  # building the strategy validates its options

    def cases(self, cycles: bool) -> st.SearchStrategy[tuple[SupportStructure, frozenset[str]]]:
        """The (graph, audit) pairs of these options with support loops or without."""
        return jst.graphs_with_audits(
            evidence_only=self.evidence_only,
            max_evidence=self.max_evidence,
            max_claims=self.max_claims,
            max_alternatives=self.max_alternatives,
            max_antecedents=self.max_antecedents,
            cycles=cycles,
            premises=self.premises,
            max_depth=self.max_depth,
            max_fan_in=self.max_fan_in,
            redundant=self.redundant,
        )

    def allows(self, structure: SupportStructure, audit: frozenset[str]) -> bool:
        """Whether a case that shrinking reached is one these options generate, as far as
        deleting parts can break that: no premise with ``premises=False``, no support loop
        with ``cycles=False``, an audit of at least one node (of evidence with
        ``evidence_only``) when the graph has one."""
        if not self.premises and any(not j.antecedents for j in structure.justifications):
            return False
        if self.cycles is False and loop_claims(structure, self_loops=True):
            return False
        pool = structure.evidence if self.evidence_only else structure.nodes.keys()
        if self.evidence_only and not audit <= structure.evidence:
            return False
        return bool(audit) or not pool

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@st.composite
def _cases(draw: st.DrawFn, options: GraphOptions) -> tuple[SupportStructure, frozenset[str]]:
    cycles = options.cycles if options.cycles is not None else draw(st.booleans())
    return draw(options.cases(cycles))


def hypothesis_settings(examples: int, phases: tuple[Phase, ...]) -> settings:
    """Settings for a programmatic run: no database, no deadline, quiet, our own seed."""
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=phases,
        verbosity=Verbosity.quiet,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )


# --- minimisation ----------------------------------------------------------------------


def graph_size(structure: SupportStructure) -> dict[str, int]:
    return {
        "nodes": len(structure.nodes),
        "evidence": len(structure.evidence),
        "claims": len(structure.claims),
        "justifications": len(structure.justifications),
    }


def reduce_case(
    structure: SupportStructure,
    audit: frozenset[str],
    fails: Callable[[SupportStructure, frozenset[str]], bool],
    options: GraphOptions | None = None,
) -> tuple[SupportStructure, frozenset[str]]:
    """Greedy one-at-a-time deletion until no single deletion keeps ``fails`` true.

    Tries, in order: dropping a justification, a node (with the justifications that mention
    it), an audit item, an antecedent of a justification. Terminates because every accepted
    step makes the case strictly smaller. With ``options`` a smaller case is taken only if
    the generator could have drawn it (:meth:`GraphOptions.allows`): with ``premises=False``
    no antecedent is dropped down to a premise, and the audit keeps an item.
    """

    def build(
        nodes: Iterable[str], justifications: Iterable[tuple[str, Iterable[str]]]
    ) -> SupportStructure:
        nodes = list(nodes)
        evidence = [n for n in nodes if n in structure.evidence]
        claims = [n for n in nodes if n in structure.claims]
        texts = {n: structure.nodes[n].text for n in nodes}
        return SupportStructure.build(evidence, claims, justifications, texts=texts)

    nodes = sorted(structure.nodes)
    justs = [(j.claim, frozenset(j.antecedents)) for j in structure.justifications]
    audit = frozenset(audit)
    progress = True
    while progress:
        progress = False
        candidates: list[tuple[list[str], list[tuple[str, frozenset[str]]], frozenset[str]]] = []
        for i in range(len(justs)):
            candidates.append((nodes, justs[:i] + justs[i + 1 :], audit))
        for node in nodes:
            candidates.append(
                (
                    [n for n in nodes if n != node],
                    [(c, a) for c, a in justs if c != node and node not in a],
                    audit - {node},
                )
            )
        for item in sorted(audit):
            candidates.append((nodes, justs, audit - {item}))
        for i, (claim, antecedents) in enumerate(justs):
            for a in sorted(antecedents):
                candidates.append(
                    (nodes, justs[:i] + [(claim, antecedents - {a})] + justs[i + 1 :], audit)
                )
        for cand_nodes, cand_justs, cand_audit in candidates:
            candidate = build(cand_nodes, cand_justs)
            if options is not None and not options.allows(candidate, cand_audit):
                continue
            if fails(candidate, cand_audit):
                nodes, audit = cand_nodes, cand_audit
                justs = [(j.claim, frozenset(j.antecedents)) for j in candidate.justifications]
                progress = True
                break
    return build(nodes, justs), audit


def renumbered(
    structure: SupportStructure, audit: frozenset[str]
) -> tuple[SupportStructure, frozenset[str]]:
    """The case with its ids renamed ``e0, e1, ...`` (evidence) and ``c0, c1, ...`` (claims),
    in their order (``e2`` before ``e10``), texts kept: a shrunk case keeps the ids it was
    drawn with, gaps included, which reads as if parts were missing."""

    def natural(node: str) -> tuple[int, str]:
        return (len(node), node)

    names: dict[str, str] = {}
    for prefix, ids in (("e", structure.evidence), ("c", structure.claims)):
        for k, node in enumerate(sorted(ids, key=natural)):
            names[node] = f"{prefix}{k}"
    renamed = SupportStructure.build(
        sorted((names[n] for n in structure.evidence), key=natural),
        sorted((names[n] for n in structure.claims), key=natural),
        [
            (names[j.claim], sorted(names[a] for a in j.antecedents))
            for j in structure.justifications
        ],
        texts={names[n]: node.text for n, node in structure.nodes.items() if node.text},
    )
    return renamed, frozenset(names[n] for n in audit)


# --- the report ------------------------------------------------------------------------


@dataclass
class RuleCounterexample:
    structure: SupportStructure
    audit: frozenset[str]
    discrepancy: RuleMismatch
    first_found_size: dict[str, int]
    hypothesis_size: dict[str, int]
    shrink_seconds: float
    shrink_calls: int

    def to_dict(self) -> dict[str, Any]:
        d = self.discrepancy
        return {
            "graph": graph_to_dict(self.structure),
            "audit": sorted(self.audit),
            "exact_retired": sorted(d.expected),
            "rule_retired": None if d.got is None else sorted(d.got),
            "under_revised": sorted(d.under_revised) if d.error is None else [],
            "over_revised": sorted(d.over_revised) if d.error is None else [],
            "error": d.error,
            "size": graph_size(self.structure),
            "shrinking": {
                "first_found": self.first_found_size,
                "after_hypothesis": self.hypothesis_size,
                "after_reduction": graph_size(self.structure),
                "calls": self.shrink_calls,
                "seconds": round(self.shrink_seconds, 3),
            },
        }


@dataclass
class FuzzReport:
    rule: str
    seed: int
    options: GraphOptions
    examples: int = 0
    distinct_shapes: int = 0
    counterexamples: int = 0
    first_counterexample_at: int | None = None  # 1-based example number
    kinds: dict[str, int] = field(default_factory=lambda: {"under": 0, "over": 0, "error": 0})
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    counterexample: RuleCounterexample | None = None
    census: Census = field(default_factory=Census)
    """What the generated pairs contained (:mod:`theory.testing.census`)."""

    @property
    def ok(self) -> bool:
        return self.counterexamples == 0

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "seed": self.seed,
            "examples": self.examples,
            "distinct_shapes": self.distinct_shapes,
            "counterexamples": self.counterexamples,
            "first_counterexample_at": self.first_counterexample_at,
            "counterexample_kinds": dict(self.kinds),
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "examples_per_second": round(self.examples_per_second, 1),
            "options": self.options.to_dict(),
            "census": self.census.to_dict(),
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_dict(),
        }


class _Found(AssertionError):
    pass


def fuzz_rule(
    rule: RevisionRule,
    *,
    name: str | None = None,
    examples: int = 1000,
    seed: int | None = None,
    options: GraphOptions | None = None,
    shrink: bool = True,
    progress: Progress | None = None,
) -> FuzzReport:
    """Check ``rule`` against exact revision on ``examples`` random (graph, audit) pairs.

    ``rule`` is any function ``(structure, audit) -> retired ids`` (the signature of
    :func:`theory.semantics.revision.exact`); ``options`` shape the graphs (defaults: those
    of ``jtms fuzz``); ``seed`` fixes the cases (None: a fresh one, in the report);
    ``progress(done, total)`` is called after each example. The report counts the
    counterexamples by kind, carries the census of what was generated
    (:mod:`theory.testing.census`) and, unless ``shrink=False``, the first counterexample
    shrunk within the options (ids renumbered ``e0..``, ``c0..``). A rule that raises or
    returns an id that is not in the graph is a counterexample of kind ``error``.

    Examples
    --------
    A rule that never propagates (``none``) keeps stale conclusions; the shrunk
    counterexample is the smallest graph that shows it:

    >>> from jtms.fuzz import GraphOptions, fuzz_rule
    >>> from theory.semantics.revision import none
    >>> report = fuzz_rule(none, examples=200, seed=1, options=GraphOptions(premises=False))
    >>> report.ok, report.counterexample.discrepancy.kinds
    (False, ('under',))
    >>> found = report.counterexample.to_dict()
    >>> found["audit"], found["under_revised"], found["graph"]["justifications"]
    (['e0'], ['c0'], [{'claim': 'c0', 'antecedents': ['e0']}])
    """
    options = options or GraphOptions()
    if examples < 1:
        raise InputError(f"examples must be at least 1, got {examples}")
    seed = random.randrange(2**32) if seed is None else seed
    report = FuzzReport(
        rule=name or str(getattr(rule, "__name__", "rule")), seed=seed, options=options
    )
    shapes: set[int] = set()
    first: list[tuple[SupportStructure, frozenset[str]]] = []
    strategy = options.strategy()

    @hypothesis_seed(seed)
    @hypothesis_settings(examples, (Phase.generate,))
    @given(strategy)
    def explore(case: tuple[SupportStructure, frozenset[str]]) -> None:
        structure, audit = case
        report.examples += 1
        shapes.add(shape(structure, audit))
        report.census.add(structure, audit)
        discrepancy = compare(rule, structure, audit)
        if discrepancy is not None:
            report.counterexamples += 1
            for kind in discrepancy.kinds:
                report.kinds[kind] += 1
            if not first:
                first.append(case)
                report.first_counterexample_at = report.examples
        if progress is not None:
            progress(report.examples, examples)

    start, cpu = time.perf_counter(), time.process_time()
    explore()
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu
    report.distinct_shapes = len(shapes)
    if first and shrink:
        report.counterexample = _shrink(rule, strategy, examples, seed, first[0], options)
    return report


def _shrink(
    rule: RevisionRule,
    strategy: st.SearchStrategy[tuple[SupportStructure, frozenset[str]]],
    examples: int,
    seed: int,
    fallback: tuple[SupportStructure, frozenset[str]],
    options: GraphOptions | None = None,
) -> RuleCounterexample:
    failing: list[tuple[SupportStructure, frozenset[str]]] = []
    calls = [0]

    @hypothesis_seed(seed)
    @hypothesis_settings(examples, (Phase.generate, Phase.shrink))
    @given(strategy)
    def search(case: tuple[SupportStructure, frozenset[str]]) -> None:
        calls[0] += 1
        if compare(rule, *case) is not None:
            failing.append(case)
            raise _Found()

    start = time.perf_counter()
    try:
        search()
    except Exception:  # _Found, or e.g. hypothesis's FlakyFailure for a non-deterministic rule
        pass
    # hypothesis replays the minimal failing example last; fall back to the explore phase's
    # first counterexample if the seeded replay did not meet it (it always should).
    structure, audit = failing[-1] if failing else fallback
    after_hypothesis = graph_size(structure)
    first_size = graph_size(failing[0][0] if failing else fallback[0])

    def fails(s: SupportStructure, a: frozenset[str]) -> bool:
        calls[0] += 1
        return compare(rule, s, a) is not None

    reduced, reduced_audit = reduce_case(structure, audit, fails, options)
    discrepancy = compare(rule, reduced, reduced_audit)
    if discrepancy is not None:  # ids e0.., c0..: unless the rule reads ids, the same case
        renamed, renamed_audit = renumbered(reduced, reduced_audit)
        if (again := compare(rule, renamed, renamed_audit)) is not None:
            reduced, reduced_audit, discrepancy = renamed, renamed_audit, again
    if discrepancy is not None:
        structure, audit = reduced, reduced_audit
    else:  # a non-deterministic rule: keep the case hypothesis reported
        discrepancy = compare(rule, structure, audit) or RuleMismatch(
            exact(structure, audit), None, "the rule's answer is not deterministic"
        )
    return RuleCounterexample(
        structure,
        audit,
        discrepancy,
        first_size,
        after_hypothesis,
        time.perf_counter() - start,
        calls[0],
    )
