"""The machine results of memory operations: one builder per operation, shared by the CLI's
``--json`` and the MCP server's structured tool results, so both carry the same keys.

Each builder takes what a public :class:`jtms.memory.memory.Memory` call returned and gives a
JSON-ready dict whose id lists are sorted (docs/design.md section 4). The TypedDicts name the keys and
their types; the MCP server publishes them as its tools' output schemas.

```python
from jtms.views.payloads import audit_payload
from jtms.memory.memory import Memory

with Memory.create("jtms.db") as memory:
    memory.add_evidence("obs1")
    memory.add_claim("c1", [["obs1"]])
    audit_payload(memory, ["obs1"], memory.preview(["obs1"]), dry_run=True)["retired"]
    # ['c1', 'obs1']
```
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict  # pydantic (the MCP output schemas) needs it below 3.12

from theory.canonical import sorted_ids
from jtms.memory.memory import Memory
from jtms.memory.results import AuditResult, Change

if TYPE_CHECKING:  # pragma: no cover
    from jtms.memory.contradictions import ContradictionReview
    from jtms.calc.reviewer import ReviewReport


class NodeAdded(TypedDict):
    """``add-evidence`` / ``add-claim``: the event and whether the new node is active."""

    event_id: int
    id: str
    active: bool


class JustificationAdded(TypedDict):
    """``add_justification``: the event and the nodes it (re)activated."""

    event_id: int
    claim: str
    activated: list[str]


class Kept(TypedDict):
    """A downstream claim the audit leaves active, with the justification that still holds."""

    id: str
    surviving_justification: list[str]


class AuditPayload(TypedDict):
    """``audit``: what was invalidated, what retired (roots included) and what was kept."""

    audit_id: int | None
    dry_run: bool
    audit: list[str]
    retired: list[str]
    kept: list[Kept]
    seconds: float


class ReinstatePayload(TypedDict):
    """``reinstate``: the undone audit, the reinstating event and what is active again."""

    audit_id: int
    event_id: int
    reactivated: list[str]


class RevisionPayload(TypedDict):
    seq: int
    status: str
    event: int
    kind: str
    time: str
    actor: str | None
    reason: str | None


class HistoryPayload(TypedDict):
    """``history``: every status a node has had, oldest first."""

    id: str
    kind: str
    active: bool
    audited_by: list[int]
    revisions: list[RevisionPayload]


class StatePayload(TypedDict):
    """``state``: the given ids (or every node) split by status."""

    active: list[str]
    inactive: list[str]


class CertificateStep(TypedDict):
    claim: str
    antecedents: list[str]


class BrokenJustification(TypedDict):
    antecedents: list[str]
    inactive: list[str]


class ExplainPayload(TypedDict):
    """``explain``: the keys of :meth:`jtms.memory.memory.Explanation.as_dict`."""

    id: str
    kind: str
    active: bool
    text: str
    certificate: list[CertificateStep]
    evidence: list[str]
    blocked_by: list[int]
    withdrawn_by: int | None
    broken_justifications: list[BrokenJustification]
    kept_out_by: list[int]          # the open audits that keep an inactive node out now


class ContextClaimPayload(TypedDict):
    id: str
    text: str
    justification: list[str]
    also_supported_by: list[list[str]]
    score: float


class ContextEvidencePayload(TypedDict):
    id: str
    text: str


class ContextPayload(TypedDict):
    """``context``: the keys of :meth:`jtms.memory.context.Context.as_dict`."""

    budget: int
    tokens: int
    query: str | None
    claims: list[ContextClaimPayload]
    evidence: list[ContextEvidencePayload]
    selected: list[str]
    withdrawn: list[dict[str, Any]]
    omitted: int
    text: str


class Violation(TypedDict):
    kind: str | None
    audit: list[str]
    surviving_justification: list[str] | None


class CheckedClaim(TypedDict):
    id: str
    active: bool
    minimal_justifications: list[list[str]]
    minimal_justifications_complete: bool
    influence_safe: bool
    violations: list[Violation]


class CheckPayload(TypedDict):
    """``check``: influence safety of every claim (the keys of ``jtms check --json``)."""

    influence_safe: bool
    claims: list[CheckedClaim]
    seconds: float


class DiscrepancyPayload(TypedDict):
    id: str
    expression: str
    recorded: str
    recomputed: str | None
    problem: str
    difference: str | None
    allowed: str | None


class TolerancePayload(TypedDict):
    mode: str
    rtol: float | None
    atol: float | None


class ReviewPayload(TypedDict):
    """``review``: the keys of :meth:`jtms.calc.reviewer.ReviewReport.as_dict`."""

    checked: int
    discrepancies: list[DiscrepancyPayload]
    refused: list[DiscrepancyPayload]
    audit_id: int | None
    retired: list[str]
    tolerance: TolerancePayload
    time_limit_s: float
    # the active contradictions (:mod:`jtms.memory.contradictions`): the keys of ``jtms diagnose``
    contradictions: list[dict[str, Any]]
    undiagnosable: list[str]
    proposed_diagnosis: dict[str, Any] | None
    diagnosis_audit: dict[str, Any] | None


def review_payload(report: "ReviewReport", found: "ContradictionReview") -> ReviewPayload:
    """``review``: the discrepancies and their audit, then the active contradictions, the
    cheapest diagnosis and its audit (when applied)."""
    return {**report.as_dict(), **found.to_dict()}  # type: ignore[typeddict-item]


class NogoodAdded(TypedDict):
    """``add-nogood``: the event, the nogood's nodes and whether they are all active now."""

    event_id: int
    id: str
    nodes: list[str]
    active: bool


class ContradictionPayload(TypedDict):
    nogood: str
    nodes: list[str]
    text: str
    active: bool
    conflicts: list[list[str]]
    diagnosable: bool


class DiagnosisPayload(TypedDict):
    invalidate: list[str]
    retires: list[str]
    keeps: list[str]
    retired_claims: int


class DiagnosePayload(TypedDict):
    """``diagnose --db``: the keys of :meth:`theory.diagnosis.DiagnosisReport.to_dict`, and
    ``applied`` (the audit of ``--apply``; None when only reporting)."""

    contradictions: list[ContradictionPayload]
    diagnoses: list[DiagnosisPayload]
    undiagnosable: list[str]
    applied: dict[str, Any] | None


def nogood_added(change: Change, nogood_id: str, nodes: Iterable[str], active: bool) -> NogoodAdded:
    return {"event_id": change.event_id, "id": nogood_id, "nodes": sorted(set(nodes)),
            "active": active}


def node_added(change: Change, node_id: str) -> NodeAdded:
    return {"event_id": change.event_id, "id": node_id, "active": node_id in change.activated}


def justification_added(change: Change, claim: str) -> JustificationAdded:
    return {"event_id": change.event_id, "claim": claim, "activated": sorted_ids(change.activated)}


def audit_payload(memory: Memory, roots: Sequence[str], result: AuditResult,
                  dry_run: bool) -> AuditPayload:
    """The audit (or dry run) ``result`` of ``roots``, with the downstream claims it keeps."""
    retired = result.retired
    kept = memory.kept(roots, retired=retired)   # a dry run: what stays intact after it
    return {
        "audit_id": result.audit_id,
        "dry_run": bool(dry_run),
        "audit": sorted_ids(result.roots),
        "retired": sorted_ids(retired),
        "kept": [{"id": claim, "surviving_justification": list(ants)} for claim, ants in kept],
        "seconds": round(result.seconds, 6),
    }


def reinstate_payload(audit_id: int, change: Change) -> ReinstatePayload:
    return {"audit_id": audit_id, "event_id": change.event_id,
            "reactivated": sorted_ids(change.activated)}


def history_payload(memory: Memory, node_id: str) -> HistoryPayload:
    rows = memory.history(node_id)
    return {"id": node_id, "kind": memory.node(node_id)["kind"],
            "active": memory.is_active(node_id), "audited_by": memory.audits_naming(node_id),
            "revisions": rows}  # type: ignore[typeddict-item]


def state_payload(memory: Memory, ids: Iterable[str] | None = None) -> StatePayload:
    """``ids`` (every node when None) split into active and inactive; unknown ids are bad input."""
    if ids is None:  # every node, straight from the state (not a SupportStructure of the graph)
        with memory.snapshot():
            state = memory.state
            flags = zip(state.index.ids, state.active)
            split: tuple[list[str], list[str]] = ([], [])
            for node_id, on in flags:
                split[0 if on else 1].append(node_id)
        return {"active": sorted_ids(split[0]), "inactive": sorted_ids(split[1])}
    status = {node_id: memory.is_active(node_id)  # InputError("unknown id") for a stranger
              for node_id in dict.fromkeys(ids)}    # (a nogood id is active when it holds)
    return {"active": sorted_ids(i for i, on in status.items() if on),
            "inactive": sorted_ids(i for i, on in status.items() if not on)}
