"""The influence-safety predicate: when does the cheap rule (influence) equal the exact one?

An active claim c is influence-safe iff exact revision of {e} retires c for every evidence
ancestor e of c (docs/design.md section 2); inactive claims are trivially safe. Each ancestor e
that fails is one violation with the one-item witness audit {e}: ``alternative_support``
when e lies in some minimal justification of c (another one survives), else
``redundant_influence`` (e reaches c only through redundant justifications).

The verdicts need no enumeration. Two bitsets per claim over the evidence are computed in
one pass over the strongly connected components:

- ``ancestors(c)``: evidence reachable backwards from c (least fixpoint of unions);
- ``critical(c)``: evidence whose one-item audit retires c, i.e. the intersection of all
  minimal justifications. It is the *greatest* fixpoint of
  critical(c) = AND over intact justifications j of OR over antecedents a of critical(a),
  with critical(e) = {e}: a support loop is no alternative to its own entry point.

c is safe iff critical(c) == ancestors(c); its violations are ancestors(c) - critical(c).
Certificates (minimal justifications, surviving justifications, kinds) come from the SAT
solver core, only for unsafe claims: a safe claim's unique minimal justification *is*
critical(c).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
import sys
import time
import warnings
from typing import Any, Literal

from theory.canonical import sorted_ids, sorted_sets
from theory.fixpoint import base_active
from theory.completion import SupportProgram
from theory.graphalgo import solve_component, strongly_connected_components
from theory.index import SupportIndex, index_of
from theory.justifications import COMPILED_FROM, JustificationEnumerator, enumerate_minimal
from theory.labels import LABEL_BUDGET, all_labels
from theory.structure import SupportStructure

COMPILED_CHECK_FROM = 4
"""Claims that need the SAT core's certificates from which :func:`check_structure` loads
the compiled kernels (about 0.5 s once) and lists them with the compiled search: the
solver loop takes 0.05-0.3 s per claim on graphs with large support loops."""
ALTERNATIVE_SUPPORT = "alternative_support"
REDUNDANT_INFLUENCE = "redundant_influence"


@dataclass(frozen=True)
class Violation:
    """The one-item audit ``audit`` retires the claim under influence but not under exact.

    ``kind`` is :data:`ALTERNATIVE_SUPPORT` or :data:`REDUNDANT_INFLUENCE`; ``None`` when the
    check ran without certificates (``certificates=False``), which classifies nothing.
    """

    kind: str | None
    audit: frozenset[str]
    surviving_justification: frozenset[str] | None


    def to_dict(self) -> dict[str, Any]:
        """The ``violations`` entry of ``jtms check --json`` (docs/design.md section 4)."""
        return {
            "kind": self.kind,
            "audit": sorted_ids(self.audit),
            "surviving_justification": (
                None if self.surviving_justification is None else sorted_ids(self.surviving_justification)
            ),
        }


@dataclass(frozen=True)
class ClaimReport:
    """The verdict on one claim, with its certificates (minimal justifications, violations)."""

    id: str
    active: bool
    influence_safe: bool
    violations: tuple[Violation, ...]
    minimal_justifications: frozenset[frozenset[str]]
    minimal_justifications_complete: bool = True

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``claims`` in ``jtms check --json``."""
        return {
            "id": self.id,
            "active": self.active,
            "minimal_justifications": sorted_sets(self.minimal_justifications) if self.minimal_justifications else [],
            "minimal_justifications_complete": self.minimal_justifications_complete,
            "influence_safe": self.influence_safe,
            "violations": [violation.to_dict() for violation in self.violations],
        }


@dataclass(frozen=True)
class SafetyReport:
    """Every claim checked; ``influence_safe`` when all of them are."""

    influence_safe: bool
    claims: tuple[ClaimReport, ...]

    @property
    def unsafe(self) -> tuple[ClaimReport, ...]:
        return tuple(c for c in self.claims if not c.influence_safe)

    def to_dict(self) -> dict[str, Any]:
        """The payload of ``jtms check --json`` (claims sorted by id)."""
        return {
            "influence_safe": self.influence_safe,
            "claims": [claim.to_dict() for claim in sorted(self.claims, key=lambda c: c.id)],
        }


@dataclass(frozen=True)
class Verdicts:
    """Per-node bitsets (bit i = evidence number i) behind the verdicts."""

    active: bytes | bytearray
    ancestors: list[int]
    critical: list[int | None]  # None for inactive nodes

    def unsafe_bits(self, n: int) -> int:
        critical = self.critical[n]
        if not self.active[n] or critical is None:
            return 0
        return self.ancestors[n] & ~critical


def verdicts(index: SupportIndex, active: bytes | bytearray) -> Verdicts:
    """Ancestors and critical sets for every node, in time near-linear in the graph.

    ``active`` is the state before any audit (:func:`theory.fixpoint.base_active`).
    """
    size = index.size
    is_evidence = index.is_evidence
    justs_of = index.justs_of
    just_antecedents = index.just_antecedents
    ancestors = [0] * size
    critical: list[int | None] = [None] * size
    for n in range(size):
        if is_evidence[n]:
            ancestors[n] = 1 << n  # evidence are numbered first, so n is its bit
            critical[n] = 1 << n
    claims = [n for n in range(size) if not is_evidence[n]]

    components = strongly_connected_components(index, claims)
    cyclic = bytearray(size)  # members of cyclic components (self-loops included)
    for component in components:
        if len(component) == 1:
            m = component[0]
            union = 0
            for j in justs_of[m]:
                for a in just_antecedents[j]:
                    if a == m:
                        cyclic[m] = 1
                    else:
                        union |= ancestors[a]
            ancestors[m] = union
            continue
        members = set(component)
        union = 0
        for m in component:
            cyclic[m] = 1
            for j in justs_of[m]:
                for a in just_antecedents[j]:
                    if a not in members:
                        union |= ancestors[a]
        for m in component:
            ancestors[m] = union

    # The components through intact justifications between active claims refine these:
    # only a cyclic component can split, so only those are decomposed again (in topological
    # order inside, which keeps the concatenation in topological order).
    for component in components:
        if len(component) == 1 and not cyclic[component[0]]:
            if active[component[0]]:
                critical[component[0]] = _critical_of(component[0], index, active, critical)
            continue
        live = [m for m in component if active[m]]
        for part in strongly_connected_components(index, live, intact_only=active):
            # Greatest fixpoint inside a loop: start from "everything" (None) and shrink.
            solve_component(index, part, critical, initial=None,
                            update=lambda m: _critical_of(m, index, active, critical))
    return Verdicts(active, ancestors, critical)


def _critical_of(n: int, index: SupportIndex, active: bytes | bytearray, critical: list[int | None]) -> int | None:
    """AND over intact justifications of OR over antecedents; None stands for "all"."""
    result: int | None = None
    just_antecedents = index.just_antecedents
    for j in index.justs_of[n]:
        union = 0
        for a in just_antecedents[j]:
            value = critical[a]
            # not intact (an inactive antecedent), or an antecedent that stands for "all"
            # (so does the union): either way the justification leaves the AND as it is
            if value is None or not active[a]:
                break
            union |= value
        else:
            result = union if result is None else result & union
    return result


def check_structure(
    structure: SupportStructure,
    claims: Iterable[str] | None = None,
    *,
    max_listed: int | None = 64,
    certificates: bool = True,
    label_budget: int = LABEL_BUDGET,
    progress: Callable[[int], None] | None = None,
    blocked: Iterable[str] = (),
    max_justifications: int | None | Literal["unset"] = "unset",
    deadline: float | None = None,
) -> SafetyReport:
    """Check every claim (or the given ones) for influence-safety.

    ``max_listed`` caps the minimal justifications listed per unsafe claim
    (``minimal_justifications_complete`` says whether the list is whole); violation kinds
    and surviving justifications stay exact regardless. Certificates come from the label
    algebra where labels stay within ``label_budget`` sets, from the SAT core otherwise.
    With ``certificates=False`` only the verdicts and witness audits are computed.
    ``progress(k)`` is called after each k claims checked. ``blocked`` are the nodes that
    audits in force keep out (a stored memory): the check is then of the graph as it stands
    under them (:meth:`~theory.structure.SupportStructure.under_audit`). ``deadline`` (a
    ``time.monotonic()`` value): stop after the first claim checked past it; the report then
    holds the claims checked so far, in order (at least one), and ``influence_safe`` is theirs.

    Examples
    --------
    >>> from theory import SupportStructure, check_structure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> report = check_structure(g)
    >>> report.influence_safe, [v.kind for v in report.claims[0].violations]
    (False, ['alternative_support', 'alternative_support'])
    >>> check_structure(g, blocked={"b"}).influence_safe   # with b audited, {a} is the only support
    True
    """
    if max_justifications != "unset":  # the old, ambiguous name of max_listed
        warnings.warn("check_structure(max_justifications=...) is now max_listed=...", DeprecationWarning,
                      stacklevel=2)
        max_listed = max_justifications
    structure = structure.under_audit(blocked)
    index = index_of(structure)
    facts = verdicts(index, base_active(structure))
    wanted = sorted(structure.claims) if claims is None else [structure.require_claim(c) for c in claims]
    unsafe = [index.number[c] for c in wanted if facts.unsafe_bits(index.number[c])]
    labels = all_labels(index, unsafe, budget=label_budget) if (certificates and unsafe) else {}
    # many claims for the SAT core: the compiled search lists each at a fraction of the
    # solver loop's cost, which repays loading the kernels (:data:`COMPILED_CHECK_FROM`)
    compiled = certificates and ("theory.label_kernel" in sys.modules or index.size >= COMPILED_FROM or
                                 sum(1 for n in unsafe if labels.get(n) is None) >= COMPILED_CHECK_FROM)
    reports = []
    unclassified: dict[str, Violation] = {}
    for claim in wanted:
        n = index.number[claim]
        if not facts.active[n]:
            report = ClaimReport(claim, False, True, (), frozenset())
        elif not facts.unsafe_bits(n):
            critical = facts.critical[n]
            assert critical is not None  # an active claim has a critical set
            report = ClaimReport(claim, True, True, (), frozenset([index.names_of_bits(critical)]))
        elif not certificates:
            witnesses = sorted(index.names_of_bits(facts.unsafe_bits(n)))
            # a witness-only violation is a value: one object per evidence item, shared
            # (a 100k-claim graph has millions of them)
            report = ClaimReport(claim, True, False, tuple(
                unclassified.get(e) or unclassified.setdefault(e, Violation(None, frozenset([e]), None))
                for e in witnesses), frozenset(), False)
        elif (label := labels.get(n)) is not None:
            report = _report_from_label(index, facts, claim, label, max_listed)
        else:
            report = _report_from_sat(index, facts, claim, max_listed, compiled)
        reports.append(report)
        if progress is not None:
            progress(1)
        if deadline is not None and time.monotonic() > deadline:
            break
    return SafetyReport(all(r.influence_safe for r in reports), tuple(reports))


@dataclass(frozen=True)
class ClaimSummary:
    """The verdict on one claim without certificates: how many one-item witness audits
    retire it under influence but not under exact, and the first few of them (by id).

    A safe active claim's unique minimal justification is its critical set, listed as in
    the full report; an unsafe claim lists none (``minimal_justifications_complete`` false).
    """

    id: str
    active: bool
    influence_safe: bool
    violation_count: int
    examples: tuple[str, ...]
    minimal_justifications: frozenset[frozenset[str]]

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``claims`` in ``jtms check --summary --json``: the keys of
        :meth:`ClaimReport.to_dict`, with ``violations`` holding the examples only (kind
        null, as without certificates), plus ``violation_count`` and ``violations_complete``."""
        return {
            "id": self.id,
            "active": self.active,
            "minimal_justifications": sorted_sets(self.minimal_justifications) if self.minimal_justifications else [],
            "minimal_justifications_complete": self.influence_safe,
            "influence_safe": self.influence_safe,
            "violations": [{"kind": None, "audit": [e], "surviving_justification": None} for e in self.examples],
            "violation_count": self.violation_count,
            "violations_complete": self.violation_count == len(self.examples),
        }


@dataclass(frozen=True)
class SafetySummary:
    """:func:`summarize_structure`: the verdicts of every claim, the violations counted."""

    influence_safe: bool
    claims: tuple[ClaimSummary, ...]

    @property
    def unsafe(self) -> tuple[ClaimSummary, ...]:
        return tuple(c for c in self.claims if not c.influence_safe)

    def totals(self) -> dict[str, int]:
        return {
            "claims": len(self.claims),
            "active": sum(1 for c in self.claims if c.active),
            "unsafe": len(self.unsafe),
            "violations": sum(c.violation_count for c in self.claims),
        }

    def to_dict(self) -> dict[str, Any]:
        """The payload of ``jtms check --summary --json`` (claims sorted by id)."""
        return {
            "influence_safe": self.influence_safe,
            "summary": self.totals(),
            "claims": [claim.to_dict() for claim in sorted(self.claims, key=lambda c: c.id)],
        }


def summarize_structure(
    structure: SupportStructure,
    claims: Iterable[str] | None = None,
    *,
    examples: int = 3,
    progress: Callable[[int], None] | None = None,
    blocked: Iterable[str] = (),
) -> SafetySummary:
    """The verdicts of :func:`check_structure` with ``certificates=False``, the witness
    audits counted instead of listed: per claim the number of violations (a popcount of
    ``ancestors - critical``) and the first ``examples`` witnesses. Nothing is built per
    violation, so the cost is the verdicts' (near-linear in the graph) whatever their number.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> summary = summarize_structure(g, examples=1)
    >>> summary.totals()["violations"], summary.claims[0].examples
    (2, ('a',))
    """
    structure = structure.under_audit(blocked)
    index = index_of(structure)
    facts = verdicts(index, base_active(structure))
    wanted = sorted(structure.claims) if claims is None else [structure.require_claim(c) for c in claims]
    ids, number = index.ids, index.number
    reports = []
    for claim in wanted:
        n = number[claim]
        if not facts.active[n]:
            report = ClaimSummary(claim, False, True, 0, (), frozenset())
        else:
            bits = facts.unsafe_bits(n)  # the witness audits, as check_structure's verdict
            if not bits:
                critical = facts.critical[n]
                assert critical is not None  # an active claim has a critical set
                report = ClaimSummary(claim, True, True, 0, (), frozenset([index.names_of_bits(critical)]))
            else:
                first: list[str] = []
                rest = bits
                while rest and len(first) < examples:  # evidence are numbered in id order
                    low = rest & -rest
                    first.append(ids[low.bit_length() - 1])
                    rest ^= low
                report = ClaimSummary(claim, True, False, bits.bit_count(), tuple(first), frozenset())
        reports.append(report)
        if progress is not None:
            progress(1)
    return SafetySummary(all(r.influence_safe for r in reports), tuple(reports))


def check_claim(structure: SupportStructure, claim: str, **options: Any) -> ClaimReport:
    """The report for one claim (see :func:`check_structure`)."""
    return check_structure(structure, [claim], **options).claims[0]


def _ordered(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    return sorted(sets, key=lambda s: (len(s), sorted(s)))


def _report_from_label(index: SupportIndex, facts: Verdicts, claim: str, label: list[int],
                       max_listed: int | None) -> ClaimReport:
    """Certificates from a complete label: kinds and survivors are lookups."""
    everything = _ordered(index.names_of_bits(bits) for bits in label)
    relevant = frozenset().union(*everything) if everything else frozenset()
    violations = []
    for e in sorted(index.names_of_bits(facts.unsafe_bits(index.number[claim]))):
        kind = ALTERNATIVE_SUPPORT if e in relevant else REDUNDANT_INFLUENCE
        survivor = next((s for s in everything if e not in s), None)
        violations.append(Violation(kind, frozenset([e]), survivor))
    complete = max_listed is None or len(everything) <= max_listed
    listed = everything if complete else everything[:max_listed]
    return ClaimReport(claim, True, False, tuple(violations), frozenset(listed), complete)


def _report_from_sat(index: SupportIndex, facts: Verdicts, claim: str,
                     max_listed: int | None, compiled: bool = False) -> ClaimReport:
    """Certificates from the SAT core: enumerate up to the cap, then exact queries; with
    ``compiled``, every minimal justification by the compiled methods, so kinds and
    survivors are lookups as from a label."""
    if compiled:
        from theory.justifications import _compiled_answer

        everything = _compiled_answer(index, index.number[claim])
        number = index.number
        label = [sum(1 << number[e] for e in found) for found in everything]
        return _report_from_label(index, facts, claim, label, max_listed)
    program = SupportProgram.of(index, index.number[claim])
    # the portfolio of solver loops: no support loop can stall the listing
    listed = list(islice(enumerate_minimal(program), None if max_listed is None else max_listed + 1))
    complete = max_listed is None or len(listed) <= max_listed
    # exact queries past the cap on the level-ranked encoding: every model founded, so
    # none of them needs a loop formula
    enumerator = JustificationEnumerator(program, ranked=True)
    ordered = _ordered(listed if complete else listed[:max_listed])
    known = _ordered(listed)
    relevant = frozenset().union(*known) if known else frozenset()
    violations = []
    for e in sorted(index.names_of_bits(facts.unsafe_bits(index.number[claim]))):
        survivor = next((s for s in known if e not in s), None)
        if complete:
            kind = ALTERNATIVE_SUPPORT if e in relevant else REDUNDANT_INFLUENCE
        else:
            kind = ALTERNATIVE_SUPPORT if (e in relevant or enumerator.is_relevant(e)) else REDUNDANT_INFLUENCE
            survivor = survivor or enumerator.surviving([e])
        violations.append(Violation(kind, frozenset([e]), survivor))
    enumerator.close()
    return ClaimReport(claim, True, False, tuple(violations), frozenset(ordered), complete)
