"""Every small memory graph: the influence-safety checker against the brute force.

A family ``(E, C, J)``: evidence ``e1..eE``, claims ``c1..cC`` and every set of at most ``J``
distinct justifications ``c <- A`` with ``A`` any subset of the other nodes (evidence and
claims, so support loops occur; an empty ``A`` makes a premise). A justification naming its
own claim is left out: under the least fixpoint it never fires, and it adds no influence
edge from evidence, so it changes no verdict. Graphs are checked once per isomorphism class
(permuting evidence and claims preserves every verdict); ``graphs`` counts the labelled ones.

The classes are generated directly, one canonical graph each, by orderly generation
(:mod:`enumerations.orderly`), in shards of canonical parents (:func:`plan_classes`,
:func:`class_shard`); a run checks that the class sizes add up to the labelled count and
that the classes are as many as Burnside's lemma counts (:mod:`enumerations.burnside`).
:func:`iso_classes`, which walks every labelled graph, stays as the reference the tests
compare the generator with on small families.

For each graph and each claim the brute force, independent of the checker, compares
``theory.semantics.revision.exact`` with ``theory.semantics.revision.influence`` on every audit of evidence
(2**E audits), and takes the minimal justifications (minimal X with c active when exactly
the evidence X is present) from :func:`theory.testing.reference.brute_force_minimal_justifications`
and evidence ancestors from :func:`theory.testing.reference.evidence_ancestors`. The checker
(:func:`theory.safety.check_structure`) must agree claim by claim on the verdict, the
minimal justifications, the witness audits, their kinds (``alternative_support`` when the
audited evidence lies in some minimal justification, ``redundant_influence`` otherwise) and
the surviving justification. The exact rule is injectable: with a deliberately wrong rule
(:mod:`enumerations.mutants`) the enumeration reports disagreements.

Audits of claims and mixed audits: for each graph the brute force also compares the two
rules on every nonempty audit of claims (2**C audits) and of evidence and claims together
(2**(E+C)), and the checker (``check_structure(audits="claims")``, ``audits="all"``) must
agree claim by claim on the verdict and on the one-item witness audits {x} (exact keeps the
claim, influence retires it). Tallied as ``claim_audits_safe``/``_unsafe`` and
``mixed_audits_safe``/``_unsafe`` (active claims), disagreements counted with the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain, combinations, permutations
from math import comb
from typing import Any

import numpy as np

from theory.model.graphalgo import is_cyclic_component, strongly_connected_components
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.safety.check import (
    ALTERNATIVE_SUPPORT,
    LOOP_INFLUENCE,
    REDUNDANT_INFLUENCE,
    SafetyReport,
    check_structure,
)
from theory.semantics.fixpoint import active_state, base_active
from theory.semantics.revision import (
    RevisionRule,
    counting_retired_numbers,
    downstream_numbers,
    exact_retired_numbers,
)
from theory.semantics.revision import counting as theory_counting
from theory.semantics.revision import exact as theory_exact
from theory.semantics.revision import influence as theory_influence
from theory.testing.reference import brute_force_minimal_justifications, evidence_ancestors

MAX_EXAMPLES = 10


@dataclass(frozen=True)
class GraphFamily:
    evidence: int
    claims: int
    max_justifications: int

    @classmethod
    def default(cls) -> "GraphFamily":
        # 3,469,497 graphs in 118,715 classes: about a minute of CPU (docs/enumerations.md)
        return cls(3, 3, 4)

    def resized(
        self,
        evidence: int | None = None,
        claims: int | None = None,
        max_justifications: int | None = None,
    ) -> "GraphFamily":
        return GraphFamily(
            self.evidence if evidence is None else evidence,
            self.claims if claims is None else claims,
            self.max_justifications if max_justifications is None else max_justifications,
        )

    @property
    def names(self) -> list[str]:
        return [f"e{i + 1}" for i in range(self.evidence)] + [
            f"c{k + 1}" for k in range(self.claims)
        ]

    def candidates(self) -> list[tuple[int, int]]:
        """Every justification ``(claim number, antecedent mask over node numbers)``; node
        numbers are evidence first, then claims."""
        size = self.evidence + self.claims
        result = []
        for k in range(self.claims):
            own = self.evidence + k
            for mask in range(1 << size):
                if not mask >> own & 1:
                    result.append((own, mask))
        return result

    def labelled_count(self) -> int:
        K = self.claims * 2 ** (self.evidence + self.claims - 1) if self.claims else 0
        return sum(comb(K, m) for m in range(self.max_justifications + 1))

    def to_dict(self) -> dict:
        return {
            "evidence": self.evidence,
            "claims": self.claims,
            "max_justifications": self.max_justifications,
        }


def _permutation_maps(family: GraphFamily, candidates: list[tuple[int, int]]) -> np.ndarray:
    """For every permutation of evidence and of claims, the induced map on candidates (with
    one extra padding index mapped to itself)."""
    code = {c: i for i, c in enumerate(candidates)}
    E, C = family.evidence, family.claims
    maps = []
    for pe in permutations(range(E)):
        for pc in permutations(range(C)):
            node = list(pe) + [E + x for x in pc]
            row = []
            for own, mask in candidates:
                moved = 0
                for i in range(E + C):
                    if mask >> i & 1:
                        moved |= 1 << node[i]
                row.append(code[(node[own], moved)])
            row.append(len(candidates))
            maps.append(row)
    return np.array(maps, dtype=np.int64)


def iso_classes(family: GraphFamily) -> tuple[np.ndarray, np.ndarray, int]:
    """Canonical representatives (rows of candidate indices, padded with ``K``), the size of
    each class, and the number of labelled graphs."""
    candidates = family.candidates()
    K = len(candidates)
    J = family.max_justifications
    maps = _permutation_maps(family, candidates)
    reps: list[np.ndarray] = []
    sizes: list[int] = []
    labelled = 0
    for m in range(J + 1):
        count = comb(K, m)  # streamed into numpy: no list of millions of tuples
        flat = np.fromiter(
            chain.from_iterable(combinations(range(K), m)), dtype=np.int64, count=count * m
        )
        rows = flat.reshape(count, m)
        labelled += len(rows)
        padded = np.full((len(rows), J), K, dtype=np.int64)
        padded[:, :m] = rows
        best = np.empty(len(rows), dtype=np.int64)
        for a in range(0, len(rows), 1 << 18):  # bounded temporaries
            piece = padded[a : a + (1 << 18)]
            low = _code(maps[0][piece], K)
            for perm in maps[1:]:
                np.minimum(low, _code(perm[piece], K), out=low)
            best[a : a + len(piece)] = low
        _, first, counts = np.unique(best, return_index=True, return_counts=True)
        # one labelled member of each class (the first met) stands for it
        reps.extend(padded[first])
        sizes.extend(int(c) for c in counts)
    return (
        np.array(reps, dtype=np.int64).reshape(len(reps), J),
        np.array(sizes, dtype=np.int64),
        labelled,
    )


def _code(rows: np.ndarray, K: int) -> np.ndarray:
    """An int64 code of each row as a *set* of candidate indices (``K`` is padding)."""
    J = rows.shape[1]
    if K <= 62:  # a bitmask: order-free, no sort needed
        code = np.zeros(len(rows), dtype=np.int64)
        for col in range(J):
            index = rows[:, col]
            code |= np.where(index < K, np.left_shift(np.int64(1), np.minimum(index, 61)), 0)
        return code
    if (K + 1) ** J >= 2**63:
        raise ValueError("family too large for an int64 canonical code")
    ordered = np.sort(rows, axis=1)
    code = np.zeros(len(rows), dtype=np.int64)
    for col in range(J):
        code = code * (K + 1) + ordered[:, col]
    return code


def build(
    family: GraphFamily, row: Sequence[int], candidates: list[tuple[int, int]] | None = None
) -> SupportStructure:
    candidates = candidates or family.candidates()
    names = family.names
    pairs = []
    for index in row:
        if index >= len(candidates):
            continue
        own, mask = candidates[index]
        pairs.append((names[own], [names[i] for i in range(len(names)) if mask >> i & 1]))
    return SupportStructure.build(names[: family.evidence], names[family.evidence :], pairs)


# --- brute force --------------------------------------------------------------------------
Outcomes = dict[frozenset[str], tuple[frozenset[str], frozenset[str], frozenset[str]]]
"""Per audit: what exact revision retires, what influence retires, and the claims exact
retires that Datalog Counting keeps."""


@dataclass(frozen=True)
class ClaimTruth:
    """What the definitions say about one claim, by exhaustion over evidence sets."""

    active: bool
    safe: bool  # influence == exact on every evidence audit
    minimal_justifications: frozenset[frozenset[str]]
    witnesses: dict[str, str]  # evidence -> violation kind
    first_disagreement: frozenset[str] | None


def brute_force(
    structure: SupportStructure,
    exact: RevisionRule = theory_exact,
    influence: RevisionRule = theory_influence,
    outcomes: Outcomes | None = None,
) -> dict[str, ClaimTruth]:
    """Per claim, the influence check's truth on every audit of evidence (the two rules
    called on each, or read from ``outcomes`` of :func:`rule_outcomes` where it has the
    audit)."""
    evidence = sorted(structure.evidence)
    subsets = [
        frozenset(e for i, e in enumerate(evidence) if bits >> i & 1)
        for bits in range(1 << len(evidence))
    ]
    before = active_state(structure)
    known = outcomes or {}
    by_audit = {
        r: known[r][:2] if r in known else (exact(structure, r), influence(structure, r))
        for r in subsets
    }
    truth = {}
    for c in sorted(structure.claims):
        minimal = brute_force_minimal_justifications(structure, c)
        disagreement = next(
            (r for r in subsets if (c in by_audit[r][0]) != (c in by_audit[r][1])), None
        )
        relevant = frozenset().union(*minimal) if minimal else frozenset()
        witnesses = {}
        if c in before:
            for e in sorted(evidence_ancestors(structure, c)):
                if c not in by_audit[frozenset([e])][0]:  # exact keeps c: influence retires it
                    witnesses[e] = ALTERNATIVE_SUPPORT if e in relevant else REDUNDANT_INFLUENCE
        truth[c] = ClaimTruth(c in before, disagreement is None, minimal, witnesses, disagreement)
    return truth


AuditTruth = dict[str, tuple[bool, frozenset[str]]]


def rule_outcomes(
    structure: SupportStructure,
    audits: Sequence[frozenset[str]],
    exact: RevisionRule = theory_exact,
    influence: RevisionRule = theory_influence,
) -> Outcomes:
    """What exact revision and influence retire on each audit, and the claims exact retires
    that Datalog Counting (``theory.semantics.revision.counting``) keeps."""
    if exact is theory_exact and influence is theory_influence:
        return _rules(structure, audits)
    # an injected rule (enumerations.mutants) is called as the rules' protocol says
    found = {}
    for r in audits:
        retired = exact(structure, r)
        kept = (retired - theory_counting(structure, r)) & structure.claims
        found[r] = (retired, influence(structure, r), kept)
    return found


def brute_force_audits(
    structure: SupportStructure,
    domains: Sequence[frozenset[str]],
    exact: RevisionRule = theory_exact,
    influence: RevisionRule = theory_influence,
    outcomes: Outcomes | None = None,
) -> list[AuditTruth]:
    """For each set of nodes in ``domains``, per claim, by exhaustion over every nonempty
    audit drawn from it: whether the two rules agree on the claim, and the nodes x whose
    one-item audit {x} influence retires it for and exact does not (its witness audits).
    Both rules are run once per audit drawn from the union of the domains (or read from
    ``outcomes``, :func:`rule_outcomes` of every audit drawn from it)."""
    if outcomes is not None:
        audits = list(outcomes)
        by_audit = outcomes
    else:
        ordered = sorted(frozenset().union(*domains))
        audits = [_audit(ordered, bits) for bits in range(1, 1 << len(ordered))]
        by_audit = rule_outcomes(structure, audits, exact, influence)
    truths = []
    for domain in domains:
        drawn = [r for r in audits if r <= domain]
        truth = {}
        for c in sorted(structure.claims):
            safe = all((c in by_audit[r][0]) == (c in by_audit[r][1]) for r in drawn)
            witnesses = frozenset(
                x
                for x in domain
                if c in by_audit[frozenset([x])][1] and c not in by_audit[frozenset([x])][0]
            )
            truth[c] = (safe, witnesses)
        truths.append(truth)
    return truths


def counting_unsafe_by_rules(
    structure: SupportStructure, domains: Sequence[frozenset[str]], outcomes: Outcomes
) -> list[frozenset[str]]:
    """Per domain, the claims Theorem 2's definition finds counting-unsafe in ``outcomes``
    (some nonempty audit drawn from the domain after which exact retires the claim and
    counting does not)."""
    kept = [(audit, claims) for audit, (_, _, claims) in outcomes.items() if claims]
    return [
        frozenset().union(*(claims for audit, claims in kept if audit <= domain))
        for domain in domains
    ]


def _rules(structure: SupportStructure, audits: Sequence[frozenset[str]]) -> Outcomes:
    """``theory.semantics.revision.exact``, ``influence`` and ``counting`` on every audit,
    through the functions they call on node numbers (the same code), with the index, the
    state before and the ids' validation done once per graph instead of once per audit."""
    index = index_of(structure)
    before = base_active(structure)
    found = {}
    for audit in audits:
        numbers = index.numbers(audit)
        reached = downstream_numbers(index, numbers)
        retired = exact_retired_numbers(index, before, numbers)
        kept = retired - counting_retired_numbers(index, before, numbers)
        found[audit] = (
            index.names(retired),
            index.names(n for n in reached if before[n]),
            index.names(kept) if kept else frozenset(),
        )
    return found


def _compare_audits(structure: SupportStructure, audits: str, truth: AuditTruth) -> list[str]:
    """Differences between ``check_structure(audits=)`` and :func:`brute_force_audits`."""
    problems = []
    for claim in check_structure(structure, audits=audits, certificates=False).claims:
        safe, witnesses = truth[claim.id]
        got = frozenset(next(iter(v.audit)) for v in claim.violations)
        if claim.influence_safe != safe or got != witnesses:
            problems.append(
                f"{claim.id}: audits of {audits}: checker says influence_safe="
                f"{claim.influence_safe} with witnesses {sorted(got)}, exhaustive comparison "
                f"says {safe} with {sorted(witnesses)}"
            )
    return problems


def _is_cyclic(structure: SupportStructure) -> bool:
    """Whether the graph has a support loop (a cyclic strongly connected component)."""
    index = index_of(structure)
    return any(
        is_cyclic_component(index, component)
        for component in strongly_connected_components(index, range(index.size))
    )


# --- tallies ------------------------------------------------------------------------------
@dataclass
class GraphTally:
    family: GraphFamily
    graphs: int = 0  # labelled graphs covered
    classes: int = 0  # isomorphism classes checked
    cyclic_graphs: int = 0  # classes with a support loop
    claims: int = 0
    active_claims: int = 0
    safe_claims: int = 0  # active and safe
    unsafe_claims: int = 0
    alternative_support: int = 0  # unsafe claims with an alternative_support violation
    redundant_influence: int = 0  # unsafe claims with a redundant_influence violation
    both_kinds: int = 0
    claim_audits_safe: int = 0  # active claims safe for every audit of claims
    claim_audits_unsafe: int = 0
    mixed_audits_safe: int = 0  # ... for every audit of evidence and claims
    mixed_audits_unsafe: int = 0
    violations: dict = field(
        default_factory=lambda: {ALTERNATIVE_SUPPORT: 0, REDUNDANT_INFLUENCE: 0}
    )
    disagreements: int = 0
    # per labelled graph (each class weighted by its size, as Burnside gives them): graphs
    # whose every claim is influence-safe (inactive claims are trivially safe), and the
    # active and the safe claims of every labelled graph
    labelled_all_safe_graphs: int = 0
    labelled_active_claims: int = 0
    labelled_safe_claims: int = 0
    labelled_known: bool = True  # False: merged from a part file written without them
    # Theorem 2, the counting boundary (enumerations.counting): active claims counting-safe
    # / -unsafe for audits of evidence, of claims and of both (the exhaustive definition),
    # the two cross-tabulations with influence-safety (audits of evidence), the active
    # claims of all labelled graphs counting-safe for audits of evidence, the claim verdicts
    # compared with the production checker, and the active claims where the definition, the
    # witness search, the theory's rules or the checker disagree (each a failure)
    counting_safe: int = 0
    counting_unsafe: int = 0
    counting_claim_audits_safe: int = 0
    counting_claim_audits_unsafe: int = 0
    counting_mixed_audits_safe: int = 0
    counting_mixed_audits_unsafe: int = 0
    influence_safe_counting_unsafe: int = 0
    counting_safe_influence_unsafe: int = 0
    labelled_counting_safe_claims: int = 0
    counting_checker_verdicts: int = 0
    counting_disagreements: int = 0
    counting_known: bool = True  # False: merged from a part file written without them
    influence_checked: bool = True  # False: a counting-only run (``checks="counting"``)
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of the shards (the work, without contention)
    classes_seconds: float = 0.0  # building the isomorphism classes (in the caller)
    expected_classes: int = 0  # Burnside's count of the family (0: not computed)

    _COUNTS = (
        "graphs",
        "classes",
        "cyclic_graphs",
        "claims",
        "active_claims",
        "safe_claims",
        "unsafe_claims",
        "alternative_support",
        "redundant_influence",
        "both_kinds",
        "claim_audits_safe",
        "claim_audits_unsafe",
        "mixed_audits_safe",
        "mixed_audits_unsafe",
        "disagreements",
    )
    LABELLED = ("labelled_all_safe_graphs", "labelled_active_claims", "labelled_safe_claims")
    COUNTING = (
        "counting_safe",
        "counting_unsafe",
        "counting_claim_audits_safe",
        "counting_claim_audits_unsafe",
        "counting_mixed_audits_safe",
        "counting_mixed_audits_unsafe",
        "influence_safe_counting_unsafe",
        "counting_safe_influence_unsafe",
        "labelled_counting_safe_claims",
        "counting_checker_verdicts",
        "counting_disagreements",
    )

    @property
    def labelled_share_all_safe(self) -> float | None:
        """The share of labelled graphs whose claims are all influence-safe (None when a
        merged part did not count them)."""
        if not self.labelled_known or not self.influence_checked or not self.graphs:
            return None
        return self.labelled_all_safe_graphs / self.graphs

    @property
    def labelled_share_safe_claims(self) -> float | None:
        """The share of the active claims of all labelled graphs that are influence-safe."""
        if not self.labelled_known or not self.influence_checked:
            return None
        if not self.labelled_active_claims:
            return None
        return self.labelled_safe_claims / self.labelled_active_claims

    @property
    def labelled_share_counting_safe(self) -> float | None:
        """The share of the active claims of all labelled graphs that are counting-safe for
        audits of evidence (None when a merged part did not count them)."""
        if not (self.labelled_known and self.counting_known) or not self.labelled_active_claims:
            return None
        return self.labelled_counting_safe_claims / self.labelled_active_claims

    @property
    def verdicts_agree(self) -> bool:
        return self.disagreements == 0 and self.counting_disagreements == 0

    @property
    def counts_verified(self) -> bool:
        """The classes add up to every labelled graph, and there are as many as Burnside's
        lemma counts (a program that shares nothing with the generator)."""
        return self.graphs == self.family.labelled_count() and self.classes == self.expected_classes

    @classmethod
    def from_dict(cls, data: dict) -> "GraphTally":
        """The tally :meth:`to_dict` wrote (for resumable part files)."""
        family = GraphFamily(**{k: int(v) for k, v in data["family"].items()})
        tally = cls(family)
        for name in cls._COUNTS:
            setattr(tally, name, int(data[name]))
        for name in cls.LABELLED:
            if name in data:
                setattr(tally, name, int(data[name]))
            else:
                tally.labelled_known = False
        for name in cls.COUNTING:
            if name in data:
                setattr(tally, name, int(data[name]))
            else:
                tally.counting_known = False
        tally.influence_checked = "influence" in data.get("checks", ["influence"])
        tally.violations = {str(k): int(v) for k, v in data["violations"].items()}
        tally.examples = [str(e) for e in data["examples"]]
        tally.cpu_seconds = float(data["cpu_seconds"])
        tally.expected_classes = int(data.get("burnside_classes", 0))
        return tally

    def merge(self, other: "GraphTally") -> "GraphTally":
        for name in (*self._COUNTS, *self.LABELLED, *self.COUNTING, "cpu_seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.labelled_known = self.labelled_known and other.labelled_known
        self.counting_known = self.counting_known and other.counting_known
        self.influence_checked = self.influence_checked and other.influence_checked
        for kind, count in other.violations.items():
            self.violations[kind] = self.violations.get(kind, 0) + count
        self.examples.extend(other.examples[: max(0, MAX_EXAMPLES - len(self.examples))])
        return self

    def to_dict(self) -> dict:
        return {
            "family": self.family.to_dict(),
            "graphs": self.graphs,
            "classes": self.classes,
            "cyclic_graphs": self.cyclic_graphs,
            "claims": self.claims,
            "active_claims": self.active_claims,
            "safe_claims": self.safe_claims,
            "unsafe_claims": self.unsafe_claims,
            "alternative_support": self.alternative_support,
            "redundant_influence": self.redundant_influence,
            "both_kinds": self.both_kinds,
            "claim_audits_safe": self.claim_audits_safe,
            "claim_audits_unsafe": self.claim_audits_unsafe,
            "mixed_audits_safe": self.mixed_audits_safe,
            "mixed_audits_unsafe": self.mixed_audits_unsafe,
            "violations": dict(sorted(self.violations.items())),
            **(
                {name: getattr(self, name) for name in self.LABELLED} if self.labelled_known else {}
            ),
            "labelled_share_all_safe": _share(self.labelled_share_all_safe),
            "labelled_share_safe_claims": _share(self.labelled_share_safe_claims),
            **(
                {name: getattr(self, name) for name in self.COUNTING} if self.counting_known else {}
            ),
            "labelled_share_counting_safe": _share(self.labelled_share_counting_safe),
            "checks": ["influence", "counting"] if self.influence_checked else ["counting"],
            "verdicts_agree": self.verdicts_agree,
            "disagreements": self.disagreements,
            "examples": self.examples,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "classes_seconds": round(self.classes_seconds, 3),
            "labelled_count": self.family.labelled_count(),
            "burnside_classes": self.expected_classes,
            "counts_verified": self.counts_verified,
        }


def _share(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _compare(
    structure: SupportStructure, report: SafetyReport, truth: dict[str, ClaimTruth]
) -> list[str]:
    """Differences between the checker's report and the brute force, one line each."""
    problems = []
    for claim in report.claims:
        t = truth[claim.id]
        if claim.active != t.active:
            problems.append(f"{claim.id}: active {claim.active}, brute force {t.active}")
        if claim.influence_safe != t.safe:
            problems.append(
                f"{claim.id}: checker says influence_safe={claim.influence_safe}, "
                f"exhaustive comparison says {t.safe}"
                + (
                    f" (audit {sorted(t.first_disagreement)})"
                    if t.first_disagreement is not None
                    else ""
                )
            )
        if (
            t.active
            and claim.minimal_justifications_complete
            and claim.minimal_justifications != t.minimal_justifications
        ):
            problems.append(f"{claim.id}: minimal justifications differ")
        # loop_influence is redundant_influence's reading when loops carry the item: both
        # say it lies in no minimal justification, which is what brute force decides
        got = {
            next(iter(v.audit)): REDUNDANT_INFLUENCE if v.kind == LOOP_INFLUENCE else v.kind
            for v in claim.violations
        }
        if t.active and got != t.witnesses:
            problems.append(f"{claim.id}: violations {got}, brute force {t.witnesses}")
        for v in claim.violations:
            e = next(iter(v.audit))
            survivors = [s for s in t.minimal_justifications if e not in s]
            if v.kind == ALTERNATIVE_SUPPORT and v.surviving_justification not in survivors:
                problems.append(f"{claim.id}: surviving justification of {e} is not minimal")
    return problems


def graph_shard(
    family: GraphFamily,
    rows: Sequence[Sequence[int]],
    sizes: Sequence[int],
    exact: RevisionRule = theory_exact,
    checker_every: int = 0,
) -> GraphTally:
    """Check the given class representatives (rows of candidate indices): the influence
    check against its brute force, and Theorem 2 (:func:`counting_check`), its definition
    also computed with the theory's rules on every audit and compared with the kernel's."""
    from enumerations.counting import DOMAINS, claims_of, counting_batch, structure_rows

    began, began_cpu = time.perf_counter(), time.thread_time()
    tally = GraphTally(family)
    candidates = family.candidates()
    batch = counting_batch(family, structure_rows(rows, len(candidates)))
    for g, (row, size) in enumerate(zip(rows, sizes)):
        structure = build(family, row, candidates)
        nodes = frozenset(structure.nodes)
        ordered = sorted(nodes)
        outcomes = rule_outcomes(
            structure, [_audit(ordered, bits) for bits in range(1, 1 << len(ordered))], exact
        )
        truth = brute_force(structure, exact=exact, outcomes=outcomes)
        report = check_structure(structure)
        by_claims, by_all = brute_force_audits(
            structure, [structure.claims, nodes], exact=exact, outcomes=outcomes
        )
        by_rules = counting_unsafe_by_rules(
            structure, [structure.evidence, structure.claims, nodes], outcomes
        )
        tally.graphs += int(size)
        tally.classes += 1
        tally.cyclic_graphs += _is_cyclic(structure)
        active = [truth[claim.id] for claim in report.claims if truth[claim.id].active]
        safe = sum(t.safe for t in active)
        tally.labelled_all_safe_graphs += int(size) if safe == len(active) else 0
        tally.labelled_active_claims += int(size) * len(active)
        tally.labelled_safe_claims += int(size) * safe
        for claim in report.claims:
            tally.claims += 1
            t = truth[claim.id]
            if not t.active:
                continue
            tally.active_claims += 1
            tally.claim_audits_safe += by_claims[claim.id][0]
            tally.claim_audits_unsafe += not by_claims[claim.id][0]
            tally.mixed_audits_safe += by_all[claim.id][0]
            tally.mixed_audits_unsafe += not by_all[claim.id][0]
            if t.safe:
                tally.safe_claims += 1
                continue
            tally.unsafe_claims += 1
            kinds = set(t.witnesses.values())
            tally.alternative_support += ALTERNATIVE_SUPPORT in kinds
            tally.redundant_influence += REDUNDANT_INFLUENCE in kinds
            tally.both_kinds += len(kinds) == 2
            for kind in t.witnesses.values():
                tally.violations[kind] += 1
        counting_unsafe = claims_of(int(batch.definition[g, 0]), family)
        for c, t in truth.items():
            if t.active:
                tally.influence_safe_counting_unsafe += t.safe and c in counting_unsafe
                tally.counting_safe_influence_unsafe += not t.safe and c not in counting_unsafe
        rules_problems = [
            f"{c}: audits of {domain}: the kernel says counting_safe={c not in kernel}, the "
            f"theory's counting and exact on every audit say {c not in rules}"
            for d, (domain, rules) in enumerate(zip(DOMAINS, by_rules))
            for kernel in [claims_of(int(batch.definition[g, d]), family)]
            for c in sorted(kernel ^ rules)
        ]
        counting_check(tally, lambda: structure, batch, g, int(size), checker_every, rules_problems)
        problems = _compare(structure, report, truth)
        problems += _compare_audits(structure, "claims", by_claims)
        problems += _compare_audits(structure, "all", by_all)
        if problems:
            tally.disagreements += 1
            _example(tally, structure, problems[0])
    tally.seconds = time.perf_counter() - began
    tally.cpu_seconds = time.thread_time() - began_cpu
    return tally


def _audit(ordered: Sequence[str], bits: int) -> frozenset[str]:
    return frozenset(x for i, x in enumerate(ordered) if bits >> i & 1)


def _example(tally: GraphTally, structure: SupportStructure, problem: str) -> None:
    if len(tally.examples) < MAX_EXAMPLES:
        graph = "; ".join(
            f"{j.claim} <- {', '.join(sorted(j.antecedents)) or '(premise)'}"
            for j in structure.justifications
        )
        tally.examples.append(f"[{graph}] {problem}")


def counting_check(
    tally: GraphTally,
    structure: Callable[[], SupportStructure],
    batch: Any,
    g: int,
    size: int,
    checker_every: int,
    problems: Sequence[str] = (),
) -> None:
    """Tally Theorem 2 on graph ``g`` (built by ``structure()`` when needed) of the kernel's ``batch``
    (:class:`enumerations.counting.CountingBatch`): its active claims counting-safe or not
    per audit domain, and as disagreements the claims where the definition and the witness
    search differ, a witness has no loop, ``problems`` (found by the caller) name them, or
    the production checker differs or gives a witness that does not reproduce (the checker
    runs on graph ``g`` when ``checker_every`` divides ``g``; 0: never)."""
    from enumerations.counting import claims_of, compare_checker

    family = tally.family
    active = int(batch.active[g])
    unsafe = [int(batch.definition[g, d]) for d in range(3)]
    for bit in range(family.evidence, family.evidence + family.claims):
        if not active >> bit & 1:
            continue
        tally.counting_safe += not unsafe[0] >> bit & 1
        tally.counting_unsafe += unsafe[0] >> bit & 1
        tally.counting_claim_audits_safe += not unsafe[1] >> bit & 1
        tally.counting_claim_audits_unsafe += unsafe[1] >> bit & 1
        tally.counting_mixed_audits_safe += not unsafe[2] >> bit & 1
        tally.counting_mixed_audits_unsafe += unsafe[2] >> bit & 1
        tally.labelled_counting_safe_claims += size * (not unsafe[0] >> bit & 1)
    wrong = {
        c: f"{c}: the definition (counting_R minus alive_R, every audit) and the witness "
        "search disagree, or a witness has no support loop"
        for c in claims_of(int(batch.wrong[g]), family)
    }
    found = list(problems)
    if checker_every and g % checker_every == 0:
        compared, checker_problems = compare_checker(structure(), family, batch, g)
        tally.counting_checker_verdicts += compared
        found += checker_problems
    for line in found:
        wrong.setdefault(line.split(":", 1)[0], line)
    if wrong:
        tally.counting_disagreements += len(wrong)
        _example(tally, structure(), wrong[min(wrong)])


def counting_shard(
    family: GraphFamily,
    rows: np.ndarray,
    sizes: Sequence[int],
    checker_every: int = 0,
) -> GraphTally:
    """Theorem 2 alone on the given class representatives: the compiled brute force on every
    class (:mod:`enumerations.counting`), the production checker on every
    ``checker_every``-th (0: none). The influence check's fields stay zero
    (``influence_checked`` is false) and support loops are not counted."""
    from enumerations.counting import counting_batch

    began, began_cpu = time.perf_counter(), time.thread_time()
    tally = GraphTally(family, influence_checked=False)
    batch = counting_batch(family, rows)
    active_counts = np.zeros(len(rows), dtype=np.int64)
    for bit in range(family.evidence, family.evidence + family.claims):
        active_counts += batch.active >> bit & 1
    sizes_array = np.asarray(sizes, dtype=np.int64)
    tally.graphs = int(sizes_array.sum())
    tally.classes = len(rows)
    tally.claims = len(rows) * family.claims
    tally.active_claims = int(active_counts.sum())
    tally.labelled_active_claims = int((active_counts * sizes_array).sum())
    flagged = (batch.definition != 0).any(axis=1) | (batch.wrong != 0)
    candidates = family.candidates()
    for g in range(len(rows)):
        if flagged[g] or (checker_every and g % checker_every == 0):
            row = rows[g].tolist()
            counting_check(
                tally,
                lambda: build(family, row, candidates),
                batch,
                g,
                int(sizes_array[g]),
                checker_every,
            )
        else:  # no claim unsafe, nothing to compare: every active claim safe everywhere
            n = int(active_counts[g])
            tally.counting_safe += n
            tally.counting_claim_audits_safe += n
            tally.counting_mixed_audits_safe += n
            tally.labelled_counting_safe_claims += n * int(sizes_array[g])
    tally.seconds = time.perf_counter() - began
    tally.cpu_seconds = time.thread_time() - began_cpu
    return tally


Progress = Callable[[str, int, int], None]

# --- classes generated directly, in shards --------------------------------------------------
SHARD_CLASSES = 2000  # classes per shard: about a second of checking


@lru_cache(maxsize=8)
def group_maps(family: GraphFamily) -> np.ndarray:
    """Row g: the candidate index each candidate goes to under the g-th permutation of
    evidence and claims (``|G| x K``, int32; row 0 is the identity). Cached per process."""
    candidates = family.candidates()
    return np.ascontiguousarray(
        _permutation_maps(family, candidates)[:, : len(candidates)], dtype=np.int32
    )


CHECKS_ALL = "all"
"""The influence check with its brute force, and Theorem 2 (the default)."""
CHECKS_COUNTING = "counting"
"""Theorem 2 alone (:func:`counting_shard`): the compiled brute force, fast enough for the
largest families."""
CHECKS = (CHECKS_ALL, CHECKS_COUNTING)

Shard = tuple[int, int, int]  # (graph size m, first parent, end parent): the parents have m - 1


@dataclass
class ClassPlan:
    """The shards of a family: shard ``(m, a, b)`` checks the canonical graphs of ``m``
    justifications whose canonical parent (the graph without its largest justification) is
    one of the canonical graphs ``a .. b - 1`` of ``m - 1`` justifications; ``(0, 0, 1)`` is
    the empty graph. Holds the canonical graphs of sizes below J, not those of size J."""

    family: GraphFamily
    parents: list[np.ndarray]  # canonical graphs of sizes 0 .. J - 1 (rows, sorted)
    shards: list[Shard]
    classes_by_size: list[int]  # Burnside's count per size (enumerations.burnside)
    seconds: float = 0.0

    @property
    def classes(self) -> int:
        return sum(self.classes_by_size)

    def arguments(
        self,
        index: int,
        exact: RevisionRule = theory_exact,
        checks: str = CHECKS_ALL,
        checker_every: int = 0,
    ) -> tuple:
        m, a, b = self.shards[index]
        parents = self.parents[m - 1][a:b].tolist() if m else None
        return (index, self.family, m, parents, exact, checks, checker_every)


def plan_classes(family: GraphFamily, shard_classes: int = SHARD_CLASSES) -> ClassPlan:
    """Generate the canonical graphs below size J and cut every size into shards of about
    ``shard_classes`` classes (Burnside's count per size, spread over the parents in
    proportion to the extensions each one tries)."""
    from enumerations.burnside import class_counts_by_size
    from enumerations.orderly import levels

    began = time.perf_counter()
    J = family.max_justifications
    maps = group_maps(family)
    by_size = class_counts_by_size(family.evidence, family.claims, J)
    parents = [rows for rows, _ in levels(maps, J - 1)] if J else []
    shards: list[Shard] = [(0, 0, 1)]
    K = maps.shape[1]
    for m in range(1, J + 1):
        below = parents[m - 1]
        if not len(below) or not by_size[m]:
            continue
        last = below[:, -1].astype(np.int64) if m > 1 else np.full(len(below), -1, dtype=np.int64)
        work = np.cumsum(K - 1 - last)
        count = max(1, min(len(below), -(-by_size[m] // max(1, shard_classes))))
        cuts = np.searchsorted(work, work[-1] * np.arange(1, count) / count, side="right")
        bounds = sorted({0, len(below), *(int(c) for c in cuts)})
        shards.extend((m, a, b) for a, b in zip(bounds, bounds[1:]))
    return ClassPlan(family, parents, shards, by_size, time.perf_counter() - began)


def class_shard(
    index: int,
    family: GraphFamily,
    size: int,
    parents: Sequence[Sequence[int]] | None,
    exact: RevisionRule = theory_exact,
    checks: str = CHECKS_ALL,
    checker_every: int = 0,
) -> tuple[int, GraphTally]:
    """One shard on a worker (module-level, picklable): generate the canonical children of
    ``parents`` (or the empty graph when ``size`` is 0) and check them (``checks``: both
    checks, or Theorem 2 alone); ``(index, tally)``. The tally's CPU seconds include the
    generation. The production counting checker runs on every ``checker_every``-th class of
    the shard (0: none)."""
    from enumerations.orderly import class_sizes, extend

    began = time.thread_time()
    maps = group_maps(family)
    if size == 0 or parents is None:
        rows, aut = np.zeros((1, 0), dtype=np.int32), np.array([maps.shape[0]], dtype=np.int64)
    else:
        rows, aut = extend(np.array(parents, dtype=np.int32).reshape(len(parents), size - 1), maps)
    generated = time.thread_time() - began
    sizes = class_sizes(aut, maps.shape[0])
    if checks == CHECKS_COUNTING:
        tally = counting_shard(family, rows, sizes.tolist(), checker_every)
    else:
        tally = graph_shard(family, rows.tolist(), sizes.tolist(), exact, checker_every)
    tally.cpu_seconds += generated
    return index, tally


def run_graphs(
    family: GraphFamily,
    executor: Any,
    *,
    exact: RevisionRule = theory_exact,
    progress: Progress | None = None,
    shard_size: int = SHARD_CLASSES,
    checks: str = CHECKS_ALL,
    checker_every: int = 0,
) -> GraphTally:
    """Every class of the family, generated directly (:mod:`enumerations.orderly`) in
    shards of about ``shard_size`` classes; the counts are checked against the labelled
    count and Burnside's (``counts_verified``). For a resumable run see
    :mod:`enumerations.graphparts`."""
    began = time.perf_counter()
    plan = plan_classes(family, shard_size)
    total = GraphTally(family, influence_checked=checks != CHECKS_COUNTING)
    for _, part in executor.map(
        class_shard,
        [plan.arguments(i, exact, checks, checker_every) for i in range(len(plan.shards))],
    ):
        total.merge(part)
        if progress:
            progress("graphs", total.classes, plan.classes)
    total.seconds = time.perf_counter() - began
    total.classes_seconds = plan.seconds
    total.expected_classes = plan.classes
    return total
