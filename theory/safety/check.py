"""The influence-safety predicate: when does the cheap rule (influence) equal the exact one?

For audits of evidence, an active claim c of a graph (influence = reachability, loops allowed)
is influence-safe iff exact revision of {e} retires c for every evidence ancestor e of c
(docs/design.md section 2; Coq ``checker_criterion``), that is iff its minimal justification
is unique and equals its evidence ancestors (the graph form of Theorem 1, Coq
``graph_influence_safe``); inactive claims are trivially safe. Each ancestor e
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

Audits of claims (``audits="claims"``) and mixed audits (``audits="all"``) reduce to audits of
evidence (:func:`audited_items`, :func:`gated`): each audited claim m gets a gate, a fresh
evidence item added to every justification of m, so that auditing the gate is auditing m;
evidence that may not be audited becomes a premise. The same verdicts and certificates then
give the criterion for those audits: an active claim c is influence-safe for audits drawn
from the items D iff exact revision of {x} retires c for every x in D that is c or an
ancestor of c (Coq ``graph_audit_safe``). Safety for ``all`` is safety for ``evidence`` and
for ``claims`` together (Coq ``graph_audit_safe_union``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any, Literal

from theory.model.canonical import smallest_first, sorted_ids, sorted_sets
from theory.model.errors import GraphError, InputError, Undecided, count_argument
from theory.model.graphalgo import solve_component, strongly_connected_components
from theory.model.index import IndexView, SupportIndex, index_of
from theory.model.structure import SupportStructure, id_list
from theory.semantics.fixpoint import base_active
from theory.solver.completion import SupportProgram
from theory.solver.justifications import ConeQueries, JustificationEnumerator, listing
from theory.solver.label_kernel import Labels, labels
from theory.solver.options import DEFAULTS

AUDITS = ("evidence", "claims", "all")
"""What ``check_structure(audits=)`` and ``jtms check --audits`` judge safety over: audits
of evidence (Theorem 1's hypothesis, the default), of claims, or of both."""
GATE_PREFIX = ","
"""The prefix of a gate's id in :func:`gated`: ids never contain a comma
(:mod:`theory.model.ids`), so a gate can never collide with a node."""
LABEL_BUDGET = DEFAULTS.label_sets
"""The default ``label_budget`` of :func:`check_structure` (``label_sets`` of
:class:`~theory.solver.options.SolverOptions`)."""
ALTERNATIVE_SUPPORT = "alternative_support"
REDUNDANT_INFLUENCE = "redundant_influence"
LOOP_INFLUENCE = "loop_influence"
"""The kind of a violation whose item reaches the claim only through support loops: every
route from it to the claim passes a justification that can never be the first to make its
claim active (one of its antecedents cannot be active before that claim, or before the
checked claim). So the item lies in no minimal justification, as with
:data:`REDUNDANT_INFLUENCE`, but no recorded justification is redundant: a loop carries it."""
UNDECIDED = "undecided"
"""The kind of a violation whose relevance query spent :data:`RELEVANCE_CONFLICTS` without
an answer: the violation (the witness audit, the surviving justification) is exact, only
whether its item lies in some minimal justification is left open."""
RELEVANCE_CONFLICTS = DEFAULTS.relevance_conflicts
"""The default ``relevance_budget`` of :func:`check_structure` and ``jtms check
--relevance-budget``: the solver conflicts the relevance queries of one claim may spend
together (``relevance_conflicts`` of :class:`~theory.solver.options.SolverOptions`, which
gives the reason)."""


@dataclass(frozen=True)
class Violation:
    """The one-item audit ``audit`` retires the claim under influence but not under exact.

    ``kind`` is :data:`ALTERNATIVE_SUPPORT` or :data:`REDUNDANT_INFLUENCE`; :data:`UNDECIDED`
    when its relevance query ran out of budget; ``None`` when the check ran without
    certificates (``certificates=False``), which classifies nothing.
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
                None
                if self.surviving_justification is None
                else sorted_ids(self.surviving_justification)
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
    kinds_complete: bool = True  # no violation left UNDECIDED

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``claims`` in ``jtms check --json``."""
        return {
            "id": self.id,
            "active": self.active,
            "minimal_justifications": sorted_sets(self.minimal_justifications)
            if self.minimal_justifications
            else [],
            "minimal_justifications_complete": self.minimal_justifications_complete,
            "influence_safe": self.influence_safe,
            "violations": [violation.to_dict() for violation in self.violations],
            "kinds_complete": self.kinds_complete,
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
        return check_payload(self.influence_safe, self.claims)


def check_payload(
    influence_safe: bool,
    claims: Iterable[ClaimReport | ClaimSummary],
    summary: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The payload of ``jtms check --json`` (``summary``: with ``--summary``): the verdict,
    the totals when given, and every claim's entry, sorted by id. The one builder of
    :meth:`SafetyReport.to_dict` and :meth:`SafetySummary.to_dict`."""
    head: dict[str, Any] = {"influence_safe": influence_safe}
    if summary is not None:
        head["summary"] = summary
    head["claims"] = [claim.to_dict() for claim in sorted(claims, key=lambda c: c.id)]
    return head


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
    """Ancestors and critical sets for every node, in time near-linear in the graph, as
    integer bitsets (bit i = evidence number i: a :class:`SupportIndex` numbers evidence
    first).

    ``active`` is the state before any audit (:func:`theory.semantics.fixpoint.base_active`).
    The fixpoints are :mod:`theory.safety.kernel`'s (the compiled core), solved for all the
    evidence in one block: this is the full check's input, which holds a bitset per node
    anyway; :func:`count_verdicts` is the bounded-memory form.
    """
    import numpy as np

    from theory.safety import kernel

    size = index.size
    is_evidence = np.frombuffer(bytes(index.is_evidence[:size]), dtype=np.uint8)
    flags = np.frombuffer(bytes(active[:size]), dtype=np.uint8)
    just_start, justs, ante_start, antes = flat_justifications(index)
    kept = np.ones(len(ante_start) - 1, dtype=np.uint8)
    numbers = np.arange(size, dtype=np.int64)
    bit_of = np.where(is_evidence == 1, numbers, -1)  # evidence are numbered first
    evidence = int(is_evidence.sum())
    row_of = np.full(size, -1, dtype=np.int64)
    claim_nodes = np.flatnonzero(is_evidence == 0)
    row_of[claim_nodes] = np.arange(len(claim_nodes), dtype=np.int64)
    order = kernel.order(is_evidence, just_start, justs, ante_start, antes, kept, flags)
    components = len(order.comp_start) - 1
    ev_start, ev_bits, pc_start, pcomps = kernel.component_inputs(
        bit_of, row_of, just_start, justs, ante_start, antes, kept,
        order.comp_nodes, order.comp_start, order.comp_of,
    )  # fmt: skip
    room = max(64, len(claim_nodes) + 1, len(antes))
    crit_start = np.zeros(len(claim_nodes) + 1, dtype=np.int64)
    crit_len = np.zeros(len(claim_nodes) + 1, dtype=np.int64)
    top = np.zeros(size, dtype=np.uint8)
    while True:  # buffers grow until the sets fit (one block: all the evidence)
        crit = np.empty(room, dtype=np.int32)
        if kernel.critical(
            0, evidence, bit_of, row_of, just_start, justs, ante_start, antes, kept, flags,
            order.part_nodes, order.part_start, order.part_of, order.succ_start, order.succ,
            crit, crit_start, crit_len, top,
        ):  # fmt: skip
            break
        room *= 2
    words = (evidence + 63) >> 6
    room = max(64, components + 1, len(ev_bits))
    dense = np.zeros(max(1, components), dtype=np.uint8)
    anc_start = np.zeros(max(1, components), dtype=np.int64)
    anc_len = np.zeros(max(1, components), dtype=np.int64)
    while True:
        pool = np.empty(room, dtype=np.uint64)
        done, _ = kernel.ancestors(
            0, evidence, ev_start, ev_bits, pc_start, pcomps,
            pool.view(np.int32), pool, dense, anc_start, anc_len,
        )  # fmt: skip
        if done == components:
            break
        room *= 2
    items = pool.view(np.int32)

    union = [0] * components
    for c in range(components):
        if anc_len[c] == 0:
            continue
        base = int(anc_start[c])
        if dense[c]:
            union[c] = int.from_bytes(pool[base : base + words].tobytes(), "little")
        else:
            union[c] = kernel.bitset(items[base : base + int(anc_len[c])])
    ancestors = [0] * size
    critical: list[int | None] = [None] * size
    comp_of = order.comp_of.tolist()
    live = flags.tolist()
    on_top = top.tolist()
    for n in range(size):
        r = int(row_of[n])
        if r < 0:
            ancestors[n] = critical[n] = 1 << n
            continue
        ancestors[n] = union[comp_of[n]]
        if live[n] and not on_top[n]:
            lo = int(crit_start[r])
            critical[n] = kernel.bitset(crit[lo : lo + int(crit_len[r])])
    return Verdicts(active, ancestors, critical)


class LoopRoutes:
    """Which evidence reaches a claim by a route that a well-founded derivation can take.

    ``needs[n]``: the claims of ``n``'s strongly connected component (intact justifications
    between active claims) that every well-founded derivation of ``n`` uses, ``n``
    included: the greatest fixpoint of ``{n} | AND over intact justifications of OR over
    their antecedents in the component``, as :func:`verdicts` computes the critical
    evidence. (A claim outside the component is no ancestor of it, so this is the whole
    answer for the members.) A justification of ``d`` with an antecedent that needs ``d``
    can never be the first to make ``d`` active, and a derivation of ``c`` uses nothing that
    needs ``c``; :meth:`reaching` follows the other justifications back from ``c``. An
    evidence ancestor it does not reach lies in no minimal justification of ``c``
    (:data:`LOOP_INFLUENCE`), found with no SAT query. Components above
    :data:`LOOP_ROUTES_LARGEST` claims are not solved (each member needs only itself): fewer
    items are found so, never a wrong one.
    """

    def __init__(self, index: SupportIndex, active: bytes | bytearray) -> None:
        self.index = index
        self.active = active
        self._needs: dict[int, frozenset[int] | None] | None = None
        self.part: dict[int, frozenset[int]] = {}

    @property
    def needs(self) -> dict[int, frozenset[int] | None]:
        """``needs`` of every active claim, solved on first use: a check whose labels
        answer every kind never asks, and so never pays for the components."""
        if self._needs is None:
            self._needs = self._solve()
        return self._needs

    def _solve(self) -> dict[int, frozenset[int] | None]:
        index, active = self.index, self.active
        is_evidence = index.is_evidence
        live = [n for n in range(index.size) if not is_evidence[n] and active[n]]
        needs: dict[int, frozenset[int] | None] = {}
        for part in strongly_connected_components(index, live, intact_only=active):
            if len(part) == 1 or len(part) > LOOP_ROUTES_LARGEST:
                for n in part:
                    needs[n] = frozenset([n])
                continue
            members = frozenset(part)
            for n in part:
                self.part[n] = members
            solve_component(
                index, part, needs, initial=None, update=lambda n: self._needs_of(n, needs)
            )
        return needs

    def _needs_of(
        self, n: int, needs: Mapping[int, frozenset[int] | None], without: int | None = None
    ) -> frozenset[int] | None:
        """One step of the fixpoint for ``n``, its loop's members valued by ``needs``;
        with ``without``, every justification naming that claim left out."""
        index, active, members = self.index, self.active, self.part[n]
        result: frozenset[int] | None = None
        for j in index.justs_of[n]:
            union: set[int] | None = set()
            for a in index.just_antecedents[j]:
                if a == without or not active[a]:
                    break
                if a not in members:
                    continue
                value = needs[a]
                if value is None:
                    union = None
                elif union is not None:
                    union |= value
            else:
                if union is not None:
                    result = frozenset(union) if result is None else result & union
        return None if result is None else result | {n}

    def _needs_without(self, claim: int) -> dict[int, frozenset[int] | None]:
        """The needs of the other members of ``claim``'s loop in derivations that do not
        use ``claim`` (its justifications and every one naming it removed): what a
        derivation of ``claim`` can use before it. None: no such derivation."""
        members = self.part[claim]
        if len(members) > LOOP_ROUTES_PER_CLAIM:
            return {}
        local: dict[int, frozenset[int] | None] = {}
        rest = [m for m in members if m != claim]
        if rest:  # the same greatest fixpoint, over the loop less ``claim``
            solve_component(
                self.index,
                rest,
                local,
                initial=None,
                update=lambda m: self._needs_of(m, local, without=claim),
            )
        return local

    def reaching(self, claim: int) -> int:
        """The evidence (bits by node number) reached back from ``claim`` through
        justifications a derivation of it can use first."""
        index, active = self.index, self.active
        is_evidence = index.is_evidence
        needs = self.needs
        local = self._needs_without(claim) if claim in self.part else {}

        def blocks(a: int, d: int) -> bool:
            """Whether the antecedent ``a`` cannot be active before ``d`` (or ``claim``)."""
            if a == claim:
                return True
            value = local[a] if a in local else needs.get(a)
            return value is None or d in value or claim in value

        found = 0
        seen = {claim}
        stack = [claim]
        while stack:
            d = stack.pop()
            for j in index.justs_of[d]:
                antecedents = index.just_antecedents[j]
                if not all(active[a] for a in antecedents) or any(
                    blocks(a, d) for a in antecedents if not is_evidence[a]
                ):
                    continue
                for a in antecedents:
                    if is_evidence[a]:
                        found |= 1 << a
                    elif a not in seen:
                        seen.add(a)
                        stack.append(a)
        return found


LOOP_ROUTES_LARGEST = 5000
"""The largest support loop (claims of one strongly connected component) whose members'
needs :class:`LoopRoutes` solves."""
LOOP_ROUTES_PER_CLAIM = 400
"""The largest support loop whose needs :meth:`LoopRoutes.reaching` solves again per claim,
without it (a round-robin pass per change over the loop's justifications)."""


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
    relevance_budget: int | None = RELEVANCE_CONFLICTS,
    classify: int | None = None,
    audits: str = "evidence",
) -> SafetyReport:
    """Check every claim (or the given ones) for influence-safety.

    ``max_listed`` caps the minimal justifications listed per unsafe claim
    (``minimal_justifications_complete`` says whether the list is whole); surviving
    justifications and violation kinds stay exact regardless, except that a kind whose
    relevance query spends ``relevance_budget`` solver conflicts is reported
    :data:`UNDECIDED` (``kinds_complete`` false; None: no budget, which can take minutes
    per query on memories with support loops of hundreds of claims). Certificates come from the label
    algebra where labels stay within ``label_budget`` sets, from the SAT core otherwise.
    With ``certificates=False`` only the verdicts and witness audits are computed.
    ``progress(k)`` is called after each k claims checked. ``blocked`` are the nodes that
    audits in force keep out (a stored memory): the check is then of the graph as it stands
    under them (:meth:`~theory.model.structure.SupportStructure.under_audit`). ``deadline`` (a
    ``time.monotonic()`` value): stop after the first claim checked past it; the report then
    holds the claims checked so far, in order (at least one), and ``influence_safe`` is theirs.
    ``classify`` (None: every one): classify (kinds and surviving justifications) the
    violations of the claims, in order, until this many are; an unsafe claim after that
    whose certificates need the SAT core gets its listing and its witness audits only (kind
    None, no surviving justification, ``kinds_complete`` false). A report for people that
    shows the first violations so skips the relevance queries of the rest, which on graphs
    whose claims have thousands of minimal justifications are most of the check's time.
    ``audits`` (one of :data:`AUDITS`): judge safety over audits of evidence (Theorem 1),
    of claims, or of both (:func:`gated`); minimal justifications, witness audits and
    surviving justifications are then sets of those items.

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
        warnings.warn(
            "check_structure(max_justifications=...) is now max_listed=...",
            DeprecationWarning,
            stacklevel=2,
        )
        max_listed = max_justifications
    run = stream_check(
        structure,
        claims,
        max_listed=max_listed,
        certificates=certificates,
        label_budget=label_budget,
        blocked=blocked,
        relevance_budget=relevance_budget,
        classify=classify,
        audits=audits,
    )
    reports = []
    with closing(run):
        for report in run:
            reports.append(report)
            if progress is not None:
                progress(1)
            if deadline is not None and time.monotonic() > deadline:
                break
    return SafetyReport(all(r.influence_safe for r in reports), tuple(reports))


@dataclass
class CheckStream:
    """A check under way (:func:`stream_check`): what the verdicts say before any
    certificate, and the claims' reports one at a time, in :attr:`claims` order, so a
    caller can write each one out and keep none (``jtms check --json``: the memory a
    report of many violations takes is one claim's). Close it (or exhaust it) to free its
    solvers."""

    claims: tuple[str, ...]
    """The claims checked, in the order of their reports."""
    influence_safe: bool
    """Whether every claim checked is influence-safe (the verdicts decide it up front)."""
    unsafe: int
    """How many of them are not."""
    reports: Generator[ClaimReport, None, None]
    undecided: list[int] = field(default_factory=lambda: [0])
    """``[k]``: the unsafe claims reported so far whose certificates the ``deadline`` cut
    (witness audits only, every kind :data:`UNDECIDED`); their verdicts are exact."""

    def __iter__(self) -> Iterator[ClaimReport]:
        return self.reports

    def close(self) -> None:
        self.reports.close()


def stream_check(
    structure: SupportStructure,
    claims: Iterable[str] | None = None,
    *,
    max_listed: int | None = 64,
    certificates: bool = True,
    label_budget: int = LABEL_BUDGET,
    blocked: Iterable[str] = (),
    relevance_budget: int | None = RELEVANCE_CONFLICTS,
    classify: int | None = None,
    audits: str = "evidence",
    deadline: float | None = None,
) -> CheckStream:
    """:func:`check_structure` one claim at a time: the verdicts are computed at once, each
    claim's certificates as its report is asked for. The options are
    :func:`check_structure`'s, except ``deadline`` (a ``time.monotonic()`` value): every
    claim is still reported, with its exact verdict; each unsafe claim's relevance queries
    get an even share of the time left (kinds past it :data:`UNDECIDED`); each unsafe claim
    reached after the deadline gets its
    witness audits only, every kind :data:`UNDECIDED`, no surviving justification and no
    listing (``kinds_complete`` and ``minimal_justifications_complete`` false);
    :attr:`CheckStream.undecided` counts those claims (``jtms check --time-limit``).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["a"])])
    >>> run = stream_check(g)
    >>> run.claims, run.influence_safe, run.unsafe
    (('c', 'd'), False, 1)
    >>> [(r.id, len(r.violations)) for r in run]
    [('c', 2), ('d', 0)]
    """
    count_argument(max_listed, "max_listed")
    count_argument(label_budget, "label_budget", optional=False)
    count_argument(relevance_budget, "relevance_budget")
    count_argument(classify, "classify")
    original = structure.under_audit(blocked)
    structure = gated(original, audits)
    index = index_of(structure)
    facts = verdicts(index, base_active(structure))
    wanted = (
        sorted(original.claims)
        if claims is None
        else [original.require_claim(c) for c in id_list(claims, "claim")]
    )
    unsafe = [index.number[c] for c in wanted if facts.unsafe_bits(index.number[c])]
    undecided = [0]
    reports = _claim_reports(
        index,
        facts,
        wanted,
        unsafe,
        max_listed,
        certificates,
        label_budget,
        relevance_budget,
        classify,
        deadline,
        undecided,
    )
    if structure is not original:
        reports = _ungated_reports(reports)
    return CheckStream(tuple(wanted), not unsafe, len(unsafe), reports, undecided)


def claim_labels(index: SupportIndex, claims: list[int], budget: int) -> ClaimLabels:
    """The labels of ``claims`` (node numbers) by the compiled label algebra, each as evidence
    bitsets (bit n for evidence number n), or None for a claim whose label exceeds
    ``budget`` sets, or one of whose products would form more than the product of two such
    labels (``budget`` squared): its certificates then come from the SAT search. The set
    budget so bounds every label and product of the pass.

    Each label is written as bitsets when it is looked up (:class:`ClaimLabels`), not all at
    once: a bitset over node numbers takes a bit per node, and a check streams its reports.

    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> index = index_of(g)
    >>> found = claim_labels(index, [index.number["c"]], 256)
    >>> sorted(sorted(index.names_of_bits(s)) for s in found[index.number["c"]])
    [['a'], ['b']]
    """
    return ClaimLabels(labels(index, claims, budget, max_formed=budget * budget), claims)


class ClaimLabels(Mapping[int, "list[int] | None"]):
    """:func:`claim_labels`: node number -> its label as evidence bitsets (None: over the
    budget), each written out from the kernel's rows when it is looked up."""

    def __init__(self, found: Labels, claims: list[int]) -> None:
        self.found = found
        self.position = {n: k for k, n in enumerate(claims)}

    def __getitem__(self, n: int) -> list[int] | None:
        k = self.position[n]
        sets = self.found.sets(k)
        return None if sets is None else [sum(1 << e for e in s) for s in sets]

    def __iter__(self) -> Iterator[int]:
        return iter(self.position)

    def __len__(self) -> int:
        return len(self.position)


def _claim_reports(
    index: SupportIndex,
    facts: Verdicts,
    wanted: list[str],
    unsafe: list[int],
    max_listed: int | None,
    certificates: bool,
    label_budget: int,
    relevance_budget: int | None,
    classify: int | None = None,
    deadline: float | None = None,
    undecided: list[int] | None = None,
) -> Generator[ClaimReport, None, None]:
    late = deadline is not None and time.monotonic() > deadline  # no certificate is due
    labelled: Mapping[int, list[int] | None] = (
        claim_labels(index, unsafe, label_budget) if (certificates and unsafe and not late) else {}
    )
    # witness audits only (no survivor): values, one object per evidence item and kind,
    # shared (a 100k-claim graph has millions of them); kind None when kinds are not asked,
    # UNDECIDED past the deadline
    shared: dict[tuple[str | None, str], Violation] = {}

    def witness_audits(n: int, kind: str | None) -> tuple[Violation, ...]:
        return tuple(
            shared.get((kind, e))
            or shared.setdefault((kind, e), Violation(kind, frozenset([e]), None))
            for e in sorted(index.names_of_bits(facts.unsafe_bits(n)))
        )

    def witnesses(n: int) -> tuple[Violation, ...]:
        return witness_audits(n, None)

    # the members of one component share a relevance solver
    solvers = RelevanceSolvers() if certificates else None
    routes: LoopRoutes | None = None  # solved only when a kind is not a label lookup
    try:
        left = len(unsafe)  # unsafe claims not yet reported: they share what time is left
        for claim in wanted:
            n = index.number[claim]
            if not facts.active[n]:
                yield ClaimReport(claim, False, True, (), frozenset())
            elif not facts.unsafe_bits(n):
                critical = facts.critical[n]
                assert critical is not None  # an active claim has a critical set
                yield ClaimReport(claim, True, True, (), frozenset([index.names_of_bits(critical)]))
            elif not certificates:  # kinds not computed
                yield ClaimReport(claim, True, False, witnesses(n), frozenset(), False, False)
            elif deadline is not None and time.monotonic() > deadline:
                if undecided is not None:
                    undecided[0] += 1
                left -= 1
                yield ClaimReport(
                    claim, True, False, witness_audits(n, UNDECIDED), frozenset(), False, False
                )
            else:
                if routes is None:
                    routes = LoopRoutes(index, facts.active)
                if (label := labelled.get(n)) is not None:
                    report = _report_from_label(index, facts, claim, label, max_listed, routes)
                else:
                    report = _report_from_sat(
                        index,
                        facts,
                        claim,
                        max_listed,
                        relevance_budget,
                        solvers,
                        unclassified=None if classify is None or classify > 0 else witnesses,
                        routes=routes,
                        deadline=None if deadline is None else _share(deadline, left),
                    )
                if classify is not None:
                    classify -= len(report.violations)
                left -= 1
                yield report
    finally:
        if solvers is not None:
            solvers.close()


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
            "minimal_justifications": sorted_sets(self.minimal_justifications)
            if self.minimal_justifications
            else [],
            "minimal_justifications_complete": self.influence_safe,
            "influence_safe": self.influence_safe,
            "violations": [
                {"kind": None, "audit": [e], "surviving_justification": None} for e in self.examples
            ],
            "kinds_complete": self.influence_safe,  # an unsafe claim's kinds: not computed
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
        return check_payload(self.influence_safe, self.claims, self.totals())


def summarize_structure(
    structure: SupportStructure,
    claims: Iterable[str] | None = None,
    *,
    examples: int = 3,
    progress: Callable[[int], None] | None = None,
    blocked: Iterable[str] = (),
    audits: str = "evidence",
) -> SafetySummary:
    """The verdicts of :func:`check_structure` with ``certificates=False``, the witness
    audits counted instead of listed: per claim the number of violations (a popcount of
    ``ancestors - critical``) and the first ``examples`` witnesses. Nothing is built per
    violation, so the cost is the verdicts' (near-linear in the graph) whatever their number.

    It is :func:`count_verdicts` on the structure's index, every claim's summary built;
    :class:`SafetyCounts` gives the same without holding them.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> summary = summarize_structure(g, examples=1)
    >>> summary.totals()["violations"], summary.claims[0].examples
    (2, ('a',))
    """
    original = structure
    if audits != "evidence":  # the gates stand for the audited claims (:func:`gated`)
        structure, blocked = gated(structure.under_audit(blocked), audits), ()
    index = index_of(structure)
    gone = structure.require(blocked)
    if claims is None and structure is not original:
        claims = sorted(original.claims)
    wanted = None if claims is None else [index.number[original.require_claim(c)] for c in claims]
    counts = count_verdicts(
        index, [index.number[n] for n in gone], wanted, examples=examples, progress=progress
    )
    summaries = tuple(counts.claims())
    if structure is not original:
        summaries = tuple(_ungated_summary(summary) for summary in summaries)
    return SafetySummary(all(c.influence_safe for c in summaries), summaries)


COUNT_BUDGET = 512 << 20
"""Bytes :func:`count_verdicts` gives its sets: a quarter to the critical sets (per claim,
all the evidence at once unless they do not fit, then in ranges), the rest to the
ancestors (per component) of one block of evidence, whose size follows from what the last
block used."""

FIRST_BLOCK = 4096
"""Evidence items in the first block of :func:`count_verdicts`, which measures the rest."""


class SafetyCounts:
    """The verdicts of :func:`summarize_structure` as flat arrays: per node the violation
    count, the first witnesses and (for safe claims) the critical evidence, a few bytes per
    node whatever the number of violations. :meth:`claims` builds each
    :class:`ClaimSummary` when it is read, so a caller that streams them holds one at a time.
    """

    def __init__(
        self,
        ids: Sequence[str],
        wanted: Any,
        active: Any,
        count: Any,
        examples: Any,
        listed: Any,
        critical_claim: Any,
        critical_bit: Any,
        bit_names: Sequence[str],
    ) -> None:
        import numpy as np

        self._ids = ids
        self._wanted = wanted  # claim numbers, in report order
        self._active = active  # uint8 per node
        self._count = count  # int64 per node: violations
        self._examples = examples  # [node, k] witness bit numbers, ``listed`` of them
        self._listed = listed
        # safe claims' critical evidence, sorted by claim: node n's bits are
        # critical_bit[critical_start[n] : critical_start[n + 1]], found in O(1) per claim
        self._critical_start = np.zeros(len(count) + 1, dtype=np.int64)
        np.cumsum(np.bincount(critical_claim, minlength=len(count)), out=self._critical_start[1:])
        self._critical_bit = critical_bit
        self._bit_names = bit_names  # bit -> evidence id
        counts = count[wanted] if len(wanted) else np.zeros(0, dtype=np.int64)
        self._totals = {
            "claims": int(len(wanted)),
            "active": int(active[wanted].sum()) if len(wanted) else 0,
            "unsafe": int((counts > 0).sum()),
            "violations": int(counts.sum()),
        }

    @property
    def influence_safe(self) -> bool:
        return self._totals["unsafe"] == 0

    def totals(self) -> dict[str, int]:
        """The ``summary`` of ``jtms check --summary --json``: claims, active, unsafe, violations."""
        return dict(self._totals)

    def _summary(self, n: int) -> ClaimSummary:
        claim = self._ids[n]
        if not self._active[n]:
            return ClaimSummary(claim, False, True, 0, (), frozenset())
        names = self._bit_names
        found = int(self._count[n])
        if found:
            shown = tuple(names[b] for b in self._examples[n, : self._listed[n]].tolist())
            return ClaimSummary(claim, True, False, found, shown, frozenset())
        lo, hi = int(self._critical_start[n]), int(self._critical_start[n + 1])
        critical = frozenset(names[b] for b in self._critical_bit[lo:hi].tolist())
        return ClaimSummary(claim, True, True, 0, (), frozenset([critical]))

    def claims(self) -> Iterator[ClaimSummary]:
        """Every checked claim's summary, in report order (by id unless claims were given)."""
        for n in self._wanted.tolist():
            yield self._summary(n)

    def unsafe(self) -> Iterator[ClaimSummary]:
        """The unsafe claims' summaries, in report order."""
        wanted = self._wanted
        for n in wanted[self._count[wanted] > 0].tolist():
            yield self._summary(n)


def count_verdicts(
    index: IndexView,
    blocked: Collection[int] = (),
    claims: Sequence[int] | None = None,
    *,
    active: bytes | bytearray | None = None,
    examples: int = 3,
    progress: Callable[[int], None] | None = None,
    budget: int = COUNT_BUDGET,
) -> SafetyCounts:
    """The verdicts of :func:`summarize_structure` on an index with ``blocked`` node numbers
    kept out (the graph :meth:`~theory.model.structure.SupportStructure.under_audit` leaves),
    for ``claims`` (node numbers; all claims by id when None), in memory bounded by
    ``budget`` bytes plus a few bytes per node: :mod:`theory.safety.kernel` solves the
    verdicts one block of evidence at a time (they are bitwise, so a block is independent
    of the others) and keeps only counts, first witnesses and safe claims' critical sets.

    ``active`` is the least fixpoint under ``blocked`` when the caller has it (a memory's
    state); otherwise it is computed (:func:`theory.semantics.fixpoint.active_numbers`).
    """
    import numpy as np

    from theory.safety import kernel
    from theory.semantics.fixpoint import active_numbers

    size = index.size
    ids = index.ids
    is_evidence = np.frombuffer(bytes(index.is_evidence[:size]), dtype=np.uint8)
    gone = np.zeros(size, dtype=np.uint8)
    gone[np.fromiter(blocked, dtype=np.int64)] = 1
    if active is None:
        active = active_numbers(index, blocked=set(int(n) for n in np.flatnonzero(gone)))
    flags = np.frombuffer(bytes(active[:size]), dtype=np.uint8)
    just_start, justs, ante_start, antes = flat_justifications(index)
    just_claim = np.asarray(index.just_claim[: len(ante_start) - 1], dtype=np.int64)
    per_just = np.diff(ante_start)
    # justifications in force: the claim and every antecedent unblocked (under_audit)
    broken = np.zeros(len(per_just), dtype=bool)
    broken[np.repeat(np.arange(len(per_just)), per_just)[gone[antes] == 1]] = True
    kept = (~broken & (gone[just_claim] == 0)).astype(np.uint8)
    del broken, just_claim, per_just
    evidence = np.flatnonzero(is_evidence)
    by_id = sorted(evidence.tolist(), key=ids.__getitem__)
    bit_of = np.full(size, -1, dtype=np.int64)
    bit_of[np.asarray(by_id, dtype=np.int64)] = np.arange(len(by_id), dtype=np.int64)
    bit_names = [ids[n] for n in by_id]
    if claims is None:
        wanted = np.asarray(
            sorted(np.flatnonzero(is_evidence == 0).tolist(), key=ids.__getitem__), dtype=np.int64
        )
    else:
        wanted = np.asarray(list(claims), dtype=np.int64)
    row_of = np.full(size, -1, dtype=np.int64)  # claims get a critical set, evidence is its own
    claim_nodes = np.flatnonzero(is_evidence == 0)
    row_of[claim_nodes] = np.arange(len(claim_nodes), dtype=np.int64)
    order = kernel.order(is_evidence, just_start, justs, ante_start, antes, kept, flags)
    components = len(order.comp_start) - 1
    ev_start, ev_bits, pc_start, pcomps = kernel.component_inputs(
        bit_of,
        row_of,
        just_start,
        justs,
        ante_start,
        antes,
        kept,
        order.comp_nodes,
        order.comp_start,
        order.comp_of,
    )
    # a quarter of the budget for critical sets (small: inside every minimal justification),
    # the rest for one block's ancestors; buffers are touched only as far as they are used
    crit = np.empty(max(budget // 16, len(claim_nodes) + 1), dtype=np.int32)
    crit_start = np.zeros(len(claim_nodes) + 1, dtype=np.int64)
    crit_len = np.zeros(len(claim_nodes) + 1, dtype=np.int64)
    # a block of one evidence item always fits: at most one word or item per component
    pool = np.empty(max((3 * budget // 4) // 8, components + 1), dtype=np.uint64)
    pool_items = pool.view(np.int32)
    dense = np.zeros(max(1, components), dtype=np.uint8)
    anc_start = np.zeros(max(1, components), dtype=np.int64)
    anc_len = np.zeros(max(1, components), dtype=np.int64)
    top = np.zeros(size, dtype=np.uint8)
    count = np.zeros(size, dtype=np.int64)
    shown = np.zeros((size, max(0, examples)), dtype=np.int32)
    listed = np.zeros(size, dtype=np.int32)
    critical_claim: list[Any] = []
    critical_bit: list[Any] = []
    total_bits = len(by_id)
    reported = 0
    crit_lo, crit_span = 0, max(1, total_bits)
    span = min(total_bits, FIRST_BLOCK)  # then sized by what the last block used
    while crit_lo < total_bits:  # critical sets: all the evidence at once unless too many
        crit_hi = min(total_bits, crit_lo + crit_span)
        fitted = kernel.critical(
            crit_lo,
            crit_hi,
            bit_of,
            row_of,
            just_start,
            justs,
            ante_start,
            antes,
            kept,
            flags,
            order.part_nodes,
            order.part_start,
            order.part_of,
            order.succ_start,
            order.succ,
            crit,
            crit_start,
            crit_len,
            top,
        )
        if not fitted:
            crit_span = max(1, crit_span // 2)
            continue
        first = crit_lo
        while first < crit_hi:  # ancestors: one block of evidence at a time
            last = min(crit_hi, first + max(1, span))
            done, used = kernel.ancestors(
                first,
                last,
                ev_start,
                ev_bits,
                pc_start,
                pcomps,
                pool_items,
                pool,
                dense,
                anc_start,
                anc_len,
            )
            if done < components:  # did not fit: smaller by at least the share that fitted
                span = max(1, min((last - first) // 2, int((last - first) * done / components)))
                continue
            kernel.tally(
                first,
                last,
                crit_lo,
                row_of,
                flags,
                order.comp_of,
                crit,
                crit_start,
                crit_len,
                top,
                pool_items,
                pool,
                dense,
                anc_start,
                anc_len,
                count,
                shown,
                listed,
            )
            # the next block as large as fits, judged by this one (sets grow with the span)
            room = 8 * len(pool)
            grown = (last - first) * room * 0.8 / max(1, used)
            span = int(min(max(grown, 1), 4 * (last - first) + 64))
            first = last
            if progress is not None:
                due = len(wanted) * first // total_bits
                progress(due - reported)
                reported = due
        pair_claims, pair_bits = kernel.critical_pairs(
            crit_lo, row_of, flags, top, crit, crit_start, crit_len, count
        )
        critical_claim.append(pair_claims)
        critical_bit.append(pair_bits)
        crit_lo = crit_hi
    if progress is not None and reported < len(wanted):
        progress(len(wanted) - reported)
    del pool, pool_items, crit, order
    claim_of = np.concatenate(critical_claim) if critical_claim else np.zeros(0, dtype=np.int32)
    bits = np.concatenate(critical_bit) if critical_bit else np.zeros(0, dtype=np.int64)
    still_safe = count[claim_of] == 0  # listed while safe, then found unsafe: dropped
    claim_of, bits = claim_of[still_safe], bits[still_safe]
    grouped = np.argsort(claim_of, kind="stable")
    return SafetyCounts(
        ids, wanted, flags, count, shown, listed, claim_of[grouped], bits[grouped], bit_names
    )


def claim_numbers(index: IndexView, claims: Iterable[str]) -> list[int]:
    """The node numbers of ``claims``, with the errors of
    :meth:`~theory.model.structure.SupportStructure.require_claim` for an unknown id or evidence."""
    numbers = []
    for claim in claims:
        n = index.number.get(claim)
        if n is None:
            raise GraphError("unknown claim", node=claim)
        if index.is_evidence[n]:
            raise GraphError("is evidence, expected a claim", node=claim)
        numbers.append(n)
    return numbers


def flat_justifications(index: IndexView) -> tuple[Any, Any, Any, Any]:
    """(just_start, justs, ante_start, antes): node -> its justifications and justification
    -> its antecedents as compressed rows (numpy), from any index."""
    import numpy as np

    antecedents = index.just_antecedents
    compressed = getattr(antecedents, "compressed", None)
    if compressed is not None:  # a growing index: its rows, without a tuple per justification
        offsets, flat = compressed()
        ante_start = np.asarray(offsets, dtype=np.int64)
        antes = np.asarray(flat, dtype=np.int64)
        del offsets, flat
    else:
        per_just = np.fromiter(map(len, antecedents), dtype=np.int64, count=len(antecedents))
        ante_start = np.zeros(len(antecedents) + 1, dtype=np.int64)
        np.cumsum(per_just, out=ante_start[1:])
        antes = np.fromiter(
            chain.from_iterable(antecedents), dtype=np.int64, count=int(ante_start[-1])
        )
    just_claim = np.asarray(index.just_claim[: len(ante_start) - 1], dtype=np.int64)
    justs = np.argsort(just_claim, kind="stable")
    just_start = np.zeros(index.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(just_claim, minlength=index.size), out=just_start[1:])
    return just_start, justs, ante_start, antes


def check_claim(structure: SupportStructure, claim: str, **options: Any) -> ClaimReport:
    """The report for one claim (see :func:`check_structure`)."""
    return check_structure(structure, [claim], **options).claims[0]


def _report_from_label(
    index: SupportIndex,
    facts: Verdicts,
    claim: str,
    label: list[int],
    max_listed: int | None,
    routes: LoopRoutes | None = None,
) -> ClaimReport:
    """Certificates from a complete label: kinds and survivors are lookups."""
    everything = smallest_first(index.names_of_bits(bits) for bits in label)
    relevant = frozenset().union(*everything) if everything else frozenset()
    violations = []
    n = index.number[claim]
    routed = None
    for e in sorted(index.names_of_bits(facts.unsafe_bits(n))):
        if e in relevant:
            kind = ALTERNATIVE_SUPPORT
        else:
            if routed is None:
                routed = (routes or LoopRoutes(index, facts.active)).reaching(n)
            reached = routed >> index.number[e] & 1
            kind = REDUNDANT_INFLUENCE if reached else LOOP_INFLUENCE
        survivor = next((s for s in everything if e not in s), None)
        violations.append(Violation(kind, frozenset([e]), survivor))
    complete = max_listed is None or len(everything) <= max_listed
    listed = everything if complete else everything[:max_listed]
    return ClaimReport(claim, True, False, tuple(violations), frozenset(listed), complete)


def _share(deadline: float, claims: int) -> float:
    """When the relevance queries of the next of ``claims`` unsafe claims stop: an even
    share of the time left before ``deadline``, so that a time limit spent on the first
    claims' hardest queries leaves none undecided that cheap queries settle."""
    now = time.monotonic()
    return now + max(0.0, deadline - now) / max(1, claims)


class RelevanceSolvers:
    """The ranked relevance enumerators of one check, shared by the members of each strongly
    connected component (they share their cone, so one solver and what it learns serve
    them all); the :data:`KEPT` most recently used stay open. A claim in no cyclic
    component shares its cone with no other claim: its enumerator is closed after it."""

    KEPT = 4  # a solver over a cone of thousands of claims holds hundreds of MB

    def __init__(self) -> None:
        self.open: dict[int, JustificationEnumerator] = {}

    def of(self, program: SupportProgram) -> tuple[JustificationEnumerator, bool]:
        """The enumerator for ``program``'s one root (a claim), and whether it is shared
        (else the caller closes it)."""
        (root,) = program.roots
        position = program.component.get(root)
        if position is None:
            return JustificationEnumerator(program, ranked=True), False
        key = min(program.cyclic[position])
        enumerator = self.open.pop(key, None)
        if enumerator is None:
            enumerator = JustificationEnumerator(program, ranked=True)
            if len(self.open) >= self.KEPT:
                self.open.pop(next(iter(self.open))).close()
        self.open[key] = enumerator  # most recently used last
        return enumerator, True

    def close(self) -> None:
        for enumerator in self.open.values():
            enumerator.close()
        self.open.clear()


def _report_from_sat(
    index: SupportIndex,
    facts: Verdicts,
    claim: str,
    max_listed: int | None,
    relevance_budget: int | None = None,
    solvers: RelevanceSolvers | None = None,
    unclassified: Callable[[int], tuple[Violation, ...]] | None = None,
    routes: LoopRoutes | None = None,
    deadline: float | None = None,
) -> ClaimReport:
    """Certificates from the SAT core: enumerate up to the cap (labels, then the SAT search:
    :func:`~theory.solver.justifications.listing`); when that is every minimal
    justification, kinds and survivors are lookups as from a label, else exact queries
    answer the kinds and survivors the listed sets leave open: relevance on the
    level-ranked encoding (``solvers`` shares one per strongly connected component), at
    most ``relevance_budget`` conflicts for the claim's queries together (a kind past it is
    :data:`UNDECIDED`); survivors by the compiled least fixpoint. A claim with
    tens of thousands of minimal justifications so costs about what its first
    ``max_listed`` cost. With ``unclassified`` (``check_structure(classify=)`` spent), a
    list past the cap leaves the violations the witness audits it gives, with no query."""
    n = index.number[claim]
    cap = None if max_listed is None else max_listed + 1
    program: SupportProgram | None = None
    found, complete = listing(index, n, cap)
    if complete:
        number = index.number
        label = [sum(1 << number[e] for e in s) for s in found]
        return _report_from_label(index, facts, claim, label, max_listed, routes)
    known = smallest_first(found)
    if unclassified is not None:
        listed = frozenset(known[:max_listed])
        return ClaimReport(claim, True, False, unclassified(n), listed, False, False)
    # exact queries past the cap on the level-ranked encoding: every model founded, so
    # none of them needs a loop formula (built only when a query is needed)
    enumerator: JustificationEnumerator | None = None
    shared = False  # the enumerator serves other claims too: the check closes it

    def queries() -> JustificationEnumerator:
        nonlocal enumerator, program, shared
        if enumerator is None:
            program = program or SupportProgram.of(index, n)
            if solvers is not None:
                enumerator, shared = solvers.of(program)
            else:
                enumerator = JustificationEnumerator(program, ranked=True)
        return enumerator

    # the items outside a maximal false set are relevant: one grow from nothing and one
    # from each witness a query finds settle many at once (the least fixpoint, compiled
    # or in Python)
    cone = ConeQueries(index, n)
    items = sorted(index.names_of_bits(facts.unsafe_bits(n)))
    # items that reach the claim only through loops lie in no minimal justification: no
    # query (a SAT proof of that is a pigeonhole argument over the loop's levels)
    routed = (routes or LoopRoutes(index, facts.active)).reaching(n)
    looped = {e for e in items if not routed >> index.number[e] & 1}
    relevant, irrelevant = _relevance(
        claim,
        [e for e in items if e not in looped],
        set().union(*known),
        queries,
        cone,
        relevance_budget,
        deadline,
    )
    violations = []
    for e in items:
        survivor = next((s for s in known if e not in s), None)
        if e in relevant:
            kind = ALTERNATIVE_SUPPORT
        elif e in looped:
            kind = LOOP_INFLUENCE
        elif e in irrelevant:
            kind = REDUNDANT_INFLUENCE
        else:
            kind = UNDECIDED
        if survivor is None:
            survivor = cone.surviving([e])
        violations.append(Violation(kind, frozenset([e]), survivor))
    if enumerator is not None and not shared:
        enumerator.close()
    complete = all(v.kind != UNDECIDED for v in violations)
    listed = frozenset(known[:max_listed])
    return ClaimReport(claim, True, False, tuple(violations), listed, False, complete)


def _relevance(
    claim: str,
    items: list[str],
    relevant: set[str],
    queries: Callable[[], JustificationEnumerator],
    cone: ConeQueries,
    budget: int | None,
    deadline: float | None = None,
) -> tuple[set[str], set[str]]:
    """The items (evidence of ``claim``'s cone) that lie in some minimal justification and
    those that lie in none, starting from the ``relevant`` ones known; an item in neither
    was left open by the ``budget`` of conflicts the claim's queries share.

    The items outside a maximal false set are relevant (``cone``: the least fixpoint).
    Each open item is then asked alone (``relevance_first`` conflicts of
    :class:`~theory.solver.options.SolverOptions`, half the budget
    at most for the whole pass), and the rest together: each query asks whether any of
    them is relevant, so the solver proves the easiest one, and one UNSAT answer settles
    all that remain. Every witness found settles more items at once."""
    relevant = set(relevant)
    irrelevant: set[str] = set()

    def settled(e: str, witness: frozenset[str]) -> None:
        relevant.add(e)
        relevant.update(cone.outside(witness))
        relevant.update(cone.minimal_within(witness | {e}) or ())

    relevant |= cone.outside(())
    pending = [e for e in items if e not in relevant]
    if not pending:
        return relevant, irrelevant
    enumerator = queries()
    start = enumerator.conflicts

    def left() -> int | None:
        return None if budget is None else budget - (enumerator.conflicts - start)

    # the first pass may spend half the budget, so that a small budget still leaves the
    # items asked together their turn
    reserve = 0 if budget is None else budget - budget // 2
    for e in pending:
        if deadline is not None and time.monotonic() > deadline:
            return relevant, irrelevant
        remaining = left()
        if remaining is not None:
            remaining -= reserve
            if remaining <= 0:
                break
        if e in relevant:
            continue
        first = DEFAULTS.relevance_first
        allowed = first if remaining is None else min(first, remaining)
        try:
            witness = enumerator.relevance_witness(e, conflicts=allowed, target=claim)
        except Undecided:
            continue
        if witness is None:
            irrelevant.add(e)
        else:
            settled(e, witness)
    pending = [e for e in pending if e not in relevant and e not in irrelevant]
    while pending:
        if deadline is not None and time.monotonic() > deadline:
            break
        remaining = left()
        if remaining is not None and remaining <= 0:
            break
        # with a deadline, in pieces of step_conflicts: the solver keeps what it learnt, so
        # the next piece goes on where this one stopped, and the clock is read between
        # pieces (one query of the whole budget can take seconds)
        piece = remaining
        if deadline is not None:
            step = DEFAULTS.step_conflicts
            piece = step if remaining is None else min(remaining, step)
        try:
            among = enumerator.relevance_among(pending, conflicts=piece, target=claim)
        except Undecided:
            if piece == remaining:
                break
            continue
        if among is None:
            irrelevant.update(pending)
            break
        settled(*cone.turning_item(*among))
        pending = [e for e in pending if e not in relevant]
    return relevant, irrelevant


# --- audits of claims and mixed audits ---------------------------------------------------------


def audited_items(structure: SupportStructure, audits: str) -> frozenset[str]:
    """The nodes an audit may name when safety is judged over ``audits`` (:data:`AUDITS`):
    the evidence, the claims, or every node.

    >>> g = SupportStructure.build(["a"], ["m", "c"], [("m", ["a"]), ("c", ["m"])])
    >>> sorted(audited_items(g, "claims")), sorted(audited_items(g, "all"))
    (['c', 'm'], ['a', 'c', 'm'])
    """
    if audits == "evidence":
        return structure.evidence
    if audits == "claims":
        return structure.claims
    if audits == "all":
        return frozenset(structure.nodes)
    raise InputError(f"unknown audits {audits!r} (choose from {', '.join(AUDITS)})")


def gate(claim: str) -> str:
    """The id of the evidence item that stands for ``claim`` in :func:`gated`."""
    return GATE_PREFIX + claim


def ungate(item: str) -> str:
    """The node a gated graph's item stands for (the inverse of :func:`gate`; a node's own id
    is returned as it is)."""
    return item[len(GATE_PREFIX) :] if item.startswith(GATE_PREFIX) else item


def gated(structure: SupportStructure, audits: str) -> SupportStructure:
    """The graph whose evidence are exactly the items of :func:`audited_items`, each standing
    for its node, so that audits of those items are audits of evidence in it.

    Every claim m among the items gets a gate, the evidence item :func:`gate` (m), added to
    every justification of m; a claim with no justification gets the justification
    {m, gate(m)}, which never fires (the active state is a least fixpoint) but puts the gate
    upstream of m. Auditing the gate then forces m inactive and nothing else, and what the
    gate reaches is m and what m reaches: exact and influence revision of an audit R of
    items retire, among the graph's nodes, what they retire in the gated graph under the
    audit of R with each claim replaced by its gate. Evidence outside the items becomes a
    premise (always active, never audited). For ``audits="evidence"`` this is the structure
    itself, so Theorem 1 and its checker apply unchanged to audits of claims and to mixed ones:
    c's support function over the gated evidence is c's support function over the items,
    the nodes outside them kept.

    >>> g = SupportStructure.build(["a"], ["m", "c"], [("m", ["a"]), ("c", ["m"]), ("c", ["a"])])
    >>> h = gated(g, "claims")
    >>> sorted(h.evidence), sorted(map(sorted, (j.antecedents for j in h.justifications_of["c"])))
    ([',c', ',m'], [[',c', 'a'], [',c', 'm']])
    """
    items = audited_items(structure, audits)
    if audits == "evidence":
        return structure
    gates = {m: gate(m) for m in sorted(structure.claims & items)}
    justifications: list[tuple[str, Iterable[str]]] = []
    justified: set[str] = set()
    for j in structure.justifications:
        justified.add(j.claim)
        if j.claim in gates:
            justifications.append((j.claim, j.antecedents | {gates[j.claim]}))
        else:
            justifications.append((j.claim, j.antecedents))
    justifications += [(m, (m, gates[m])) for m in gates if m not in justified]
    premises = sorted(structure.evidence - items)
    justifications += [(e, ()) for e in premises]
    texts = {n.id: n.text for n in structure.nodes.values() if n.text}
    return SupportStructure.build(
        sorted(structure.evidence & items) + list(gates.values()),
        sorted(structure.claims) + premises,
        justifications,
        texts=texts,
    )


def _ungated_set(items: frozenset[str]) -> frozenset[str]:
    return frozenset(ungate(x) for x in items)


def _ungated(report: ClaimReport) -> ClaimReport:
    """A report on a :func:`gated` graph in the original graph's nodes."""
    violations = [
        Violation(
            v.kind,
            _ungated_set(v.audit),
            None if v.surviving_justification is None else _ungated_set(v.surviving_justification),
        )
        for v in report.violations
    ]
    violations.sort(key=lambda v: sorted_ids(v.audit))
    return replace(
        report,
        violations=tuple(violations),
        minimal_justifications=frozenset(_ungated_set(s) for s in report.minimal_justifications),
    )


def _ungated_reports(
    reports: Generator[ClaimReport, None, None],
) -> Generator[ClaimReport, None, None]:
    with closing(reports):
        for report in reports:
            yield _ungated(report)


def _ungated_summary(summary: ClaimSummary) -> ClaimSummary:
    return replace(
        summary,
        examples=tuple(sorted(ungate(x) for x in summary.examples)),
        minimal_justifications=frozenset(_ungated_set(s) for s in summary.minimal_justifications),
    )
