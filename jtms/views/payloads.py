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

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict  # pydantic (the MCP output schemas) needs it below 3.12

from jtms.memory.memory import Memory
from jtms.memory.results import AuditResult, Change
from jtms.views.pages import next_cursor, window
from theory.model.canonical import sorted_ids

if TYPE_CHECKING:  # pragma: no cover
    from jtms.calc.reviewer import ReviewReport
    from jtms.memory.contradictions import ContradictionReview
    from jtms.memory.results import PurgeResult
    from jtms.memory.search import SearchPage


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
    counts: dict[str, int]
    cursor: str | None


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
    counts: dict[str, int]
    cursor: str | None


class ReinstatePayload(TypedDict):
    """``reinstate``: the undone audit, the reinstating event and what is active again."""

    audit_id: int
    event_id: int
    reactivated: list[str]
    counts: dict[str, int]
    cursor: str | None


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
    erased_by: int | None
    revisions: list[RevisionPayload]
    counts: dict[str, int]
    cursor: str | None


class StatePayload(TypedDict):
    """``state``: the given ids (or every node) split by status."""

    active: list[str]
    inactive: list[str]
    counts: dict[str, int]
    cursor: str | None


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
    kept_out_by: list[int]  # the open audits that keep an inactive node out now
    erased_by: int | None  # the purge that erased its content (its text is then empty)
    counts: dict[str, int]
    cursor: str | None


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
    kinds_complete: bool  # no violation kind left "undecided" (or, summarized, uncomputed)
    violation_count: int
    minimal_justification_count: int  # listed before a page's cut (limit, bytes)
    counting_safe: bool | None  # Theorem 2 (null: left undecided by the page's time budget)
    counting_witness: dict[str, list[str]] | None  # audit, loop, kept


class CheckPayload(TypedDict):
    """``check``: influence safety of every claim (the keys of ``jtms check --json``)."""

    influence_safe: bool
    counting_safe: bool | None  # every claim counting-safe (null: some undecided, none unsafe)
    claims: list[CheckedClaim]
    seconds: float
    counts: dict[str, int]  # claims, unsafe, counting_unsafe, counting_undecided
    cursor: str | None


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
    counts: dict[str, int]
    cursor: str | None


def review_payload(
    report: "ReviewReport",
    found: "ContradictionReview",
    limit: int | None = None,
    max_bytes: int | None = None,
) -> ReviewPayload:
    """``review``: the discrepancies and their audit, then the active contradictions, the
    cheapest diagnosis and its audit (when applied). ``limit``: at most that many items of
    each list (``counts`` has their lengths; the audit's ``retired`` pages come from its
    event, ``cursor``), each contradiction's and the diagnosis's lists too (with their
    lengths, as in ``diagnose``: :func:`counted_contradiction`, :func:`counted_diagnosis`).

    ``max_bytes``: the contradictions and the proposed diagnosis take at most about that
    many bytes of JSON (:func:`fit_review_diagnosis`), so the result fits the server's cap
    at ``limit`` 1 however long the nogoods (``diagnose`` pages the rest)."""
    payload: dict[str, Any] = {**report.as_dict(), **found.to_dict()}
    audit_id = payload.get("audit_id")
    paginate(
        payload,
        ("discrepancies", "refused", "retired", "contradictions", "undiagnosable"),
        limit=limit,
        tool="event",
        event=audit_id or 0,
    )
    fit_review_diagnosis(payload, limit, max_bytes)
    if audit_id is None or limit is None or len(payload["retired"]) >= payload["counts"]["retired"]:
        payload["cursor"] = None
    return payload  # type: ignore[return-value]


def fit_review_diagnosis(payload: dict[str, Any], limit: int | None, max_bytes: int | None) -> None:
    """Cut ``review``'s ``contradictions`` (already a page) and ``proposed_diagnosis`` in
    place: each list of theirs to ``limit`` with its length beside it; with ``max_bytes``,
    each contradiction to a quarter of it, the contradictions listed while they take half
    of it (``counts`` keeps how many there are) and the diagnosis to the other half."""
    quarter = None if max_bytes is None else max_bytes // 4
    contradictions = [counted_contradiction(c, limit, quarter) for c in payload["contradictions"]]
    if max_bytes is not None and contradictions:
        contradictions = contradictions[: rows_that_fit([contradictions], max_bytes // 2)]
    payload["contradictions"] = contradictions
    proposed = payload["proposed_diagnosis"]
    if proposed is not None:
        half = None if max_bytes is None else max_bytes // 2
        payload["proposed_diagnosis"] = counted_diagnosis(proposed, limit, half)


def paginate(
    payload: dict[str, Any],
    lists: Sequence[str],
    *,
    offset: int = 0,
    limit: int | None = None,
    tool: str = "",
    event: int = 0,
    call_digest: str = "",
    cut: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """``payload`` with each of its ``lists`` cut to ``[offset, offset + limit)``, their full
    lengths in ``counts`` and the next page's ``cursor`` (None when none is left;
    :mod:`jtms.views.pages`). With ``limit`` None and ``offset`` 0 nothing is cut.

    ``cut``: lists of ``lists`` that the caller already cut to the page, with their full
    lengths."""
    cut = cut or {}
    counts = {name: cut[name] if name in cut else len(payload[name]) for name in lists}
    for name in lists:
        if name not in cut:
            payload[name] = window(payload[name], offset, limit)
    payload["counts"] = counts
    payload["cursor"] = next_cursor(tool, event, offset, limit, list(counts.values()), call_digest)
    return payload


class BatchAdded(TypedDict):
    """``add_batch`` (and a graph import, read from its event): the event, how many nodes
    and nogoods it created, how many of its new nodes are active, the new nodes that are
    not (a page) and the stored nodes it activated (a page)."""

    event_id: int
    added: int
    active: int
    inactive: list[str]
    activated: list[str]
    counts: dict[str, int]
    cursor: str | None


class NogoodAdded(TypedDict):
    """``add-nogood``: the event, the nogood's nodes (a page of them) and whether they are
    all active now."""

    event_id: int
    id: str
    nodes: list[str]
    active: bool
    counts: dict[str, int]
    cursor: str | None


class ContradictionPayload(TypedDict):
    nogood: str
    nodes: list[str]
    text: str
    active: bool
    conflicts: list[list[str]]
    conflicts_complete: bool  # false: more conflict sets exist than were listed (64)
    diagnosable: bool
    conflict_count: int  # the conflict sets listed (before this page's cut)
    node_count: int  # the nogood's nodes (before this page's cut)


class DiagnosisPayload(TypedDict):
    invalidate: list[str]
    retires: list[str]
    keeps: list[str]
    retired_claims: int
    invalidate_count: int
    retires_count: int
    keeps_count: int


class DiagnosePayload(TypedDict):
    """``diagnose --db``: the keys of :meth:`theory.semantics.diagnosis.DiagnosisReport.to_dict`, and
    ``applied`` (the audit of ``--apply``; None when only reporting)."""

    contradictions: list[ContradictionPayload]
    diagnoses: list[DiagnosisPayload]
    undiagnosable: list[str]
    applied: dict[str, Any] | None
    counts: dict[str, int]
    cursor: str | None


def nogood_added(
    change: Change,
    nogood_id: str,
    nodes: Iterable[str],
    active: bool,
    limit: int | None = None,
) -> NogoodAdded:
    """``add-nogood``'s result; ``limit``: one page of its ``nodes`` (the next from the
    event's pages, :func:`event_page`)."""
    payload = {
        "event_id": change.event_id,
        "id": nogood_id,
        "nodes": sorted(set(nodes)),
        "active": active,
    }
    return paginate(
        payload,
        ("nodes",),
        limit=limit,
        tool="event",  # type: ignore[return-value]
        event=change.event_id,
    )


def node_added(change: Change, node_id: str) -> NodeAdded:
    return {"event_id": change.event_id, "id": node_id, "active": node_id in change.activated}


def justification_added(change: Change, claim: str, limit: int | None = None) -> JustificationAdded:
    payload = {
        "event_id": change.event_id,
        "claim": claim,
        "activated": sorted_ids(change.activated),
    }
    return paginate(
        payload,
        ("activated",),
        limit=limit,
        tool="event",  # type: ignore[return-value]
        event=change.event_id,
    )


def audit_payload(
    memory: Memory,
    roots: Sequence[str],
    result: AuditResult,
    dry_run: bool,
    limit: int | None = None,
    offset: int = 0,
    event: int | None = None,
    call_digest: str = "",
) -> AuditPayload:
    """The audit (or dry run) ``result`` of ``roots``, with the downstream claims it keeps.

    ``limit``/``offset``: one page of ``audit`` (the roots, as many as the call gave: 10,000
    ids of 256 characters would not fit one result), ``retired`` and ``kept``
    (:func:`paginate`). A real
    audit's ``cursor`` reads as of the audit's event (any later call can ask for its pages);
    a dry run's reads as of ``event`` (the event the preview read, by default the latest)
    and belongs to the dry-run call (``call_digest``)."""
    retired = result.retired
    # a dry run: what stays intact after it; only the page is named
    kept_count, kept = memory.kept_page(roots, retired=retired, offset=offset, limit=limit)
    payload = {
        "audit_id": result.audit_id,
        "dry_run": bool(dry_run),
        "audit": sorted_ids(result.roots),
        "retired": sorted_ids(retired),
        "kept": [{"id": claim, "surviving_justification": list(ants)} for claim, ants in kept],
        "seconds": round(result.seconds, 6),
    }
    if result.audit_id is not None:
        at, tool, call_digest = result.audit_id, "event", ""
    else:
        at, tool = (memory.last_event if event is None else event), "audit"
    return paginate(
        payload,
        ("audit", "retired", "kept"),
        offset=offset,
        limit=limit,  # type: ignore[return-value]
        tool=tool,
        event=at,
        call_digest=call_digest,
        cut={"kept": kept_count},
    )


def reinstate_payload(audit_id: int, change: Change, limit: int | None = None) -> ReinstatePayload:
    payload = {
        "audit_id": audit_id,
        "event_id": change.event_id,
        "reactivated": sorted_ids(change.activated),
    }
    return paginate(
        payload,
        ("reactivated",),
        limit=limit,
        tool="event",  # type: ignore[return-value]
        event=change.event_id,
    )


def event_page(
    memory: Memory, event: int, offset: int = 0, limit: int | None = None
) -> dict[str, Any]:
    """The result of the write that made ``event`` (an audit, a reinstatement, a batch or
    an import, an added justification, an added nogood), read as of that event: the page ``[offset, offset +
    limit)`` of its lists, as the writing tool returned it (``seconds`` is 0: nothing was
    timed). The pages of an earlier result, and the result of a repeated call with an
    idempotency key."""
    from theory.model.errors import InputError

    past = memory.as_of(event)
    (row,) = past.events(after=event - 1, until=event)
    kind = row["kind"]
    if kind == "audit":
        roots = list(row["roots"] or ())
        retired = row["deactivated"]
        kept = past.kept(roots)
        payload: dict[str, Any] = {
            "audit_id": event,
            "dry_run": False,
            "audit": sorted_ids(roots),
            "retired": sorted_ids(retired),
            "kept": [{"id": claim, "surviving_justification": list(ants)} for claim, ants in kept],
            "seconds": 0.0,
        }
        lists: tuple[str, ...] = ("audit", "retired", "kept")
    elif kind == "reinstate":
        payload = {
            "audit_id": row["target"],
            "event_id": event,
            "reactivated": sorted_ids(row["activated"]),
        }
        lists = ("reactivated",)
    elif kind == "add-nogood":
        (nogood_id,) = row["created"]
        payload = {
            "event_id": event,
            "id": nogood_id,
            "nodes": sorted(set(past.node(nogood_id)["nodes"])),
            "active": past.is_active(nogood_id),
        }
        lists = ("nodes",)
    elif kind == "add-justification":
        payload = {
            "event_id": event,
            "claim": past.justified_claim(event),
            "activated": sorted_ids(row["activated"]),
        }
        lists = ("activated",)
    elif kind == "import":
        nogoods = {nogood.id for nogood in past.nogoods()}
        created = [n for n in row["created"] if n not in nogoods]
        active = past.active_ids()
        inactive = [n for n in created if n not in active]
        payload = {
            "event_id": event,
            "added": len(row["created"]),
            "active": len(created) - len(inactive),
            "inactive": sorted_ids(inactive),
            "activated": sorted_ids(row["activated"]),
        }
        lists = ("inactive", "activated")
    else:
        raise InputError(
            f"event {event} is {'an' if kind[0] in 'aeiou' else 'a'} {kind}: only audits, "
            f"reinstatements, batches and imports, added justifications and nogoods have pages"
        )
    return paginate(payload, lists, offset=offset, limit=limit, tool="event", event=event)


def history_payload(
    memory: Memory, node_id: str, limit: int | None = None, offset: int = 0, call_digest: str = ""
) -> HistoryPayload:
    """Every status ``node_id`` has had (one page of them, :func:`paginate`), in one snapshot."""
    with memory.snapshot():
        rows = memory.history(node_id)
        event = memory.as_of_event or memory.last_event
        payload = {
            "id": node_id,
            "kind": memory.node(node_id)["kind"],
            "active": memory.is_active(node_id),
            "audited_by": memory.audits_naming(node_id),
            "erased_by": memory.erasures().get(node_id),
            "revisions": rows,
        }
    return paginate(
        payload,
        ("revisions", "audited_by"),
        offset=offset,  # type: ignore[return-value]
        limit=limit,
        tool="history",
        event=event,
        call_digest=call_digest,
    )


def state_payload(
    memory: Memory,
    ids: Iterable[str] | None = None,
    limit: int | None = None,
    offset: int = 0,
    call_digest: str = "",
) -> StatePayload:
    """``ids`` (every node when None) split into active and inactive; unknown ids are bad
    input. One page of each list (:func:`paginate`), read in one snapshot."""
    with memory.snapshot():
        event = memory.as_of_event or memory.last_event
        if ids is None:  # every node, straight from the state (not a SupportStructure of the graph)
            state = memory.state
            flags = zip(state.index.ids, state.active)
            split: tuple[list[str], list[str]] = ([], [])
            for node_id, on in flags:
                split[0 if on else 1].append(node_id)
            payload = {"active": sorted_ids(split[0]), "inactive": sorted_ids(split[1])}
        else:
            status = {
                node_id: memory.is_active(node_id)  # InputError("unknown id") for a stranger
                for node_id in dict.fromkeys(ids)
            }  # (a nogood id is active when it holds)
            payload = {
                "active": sorted_ids(i for i, on in status.items() if on),
                "inactive": sorted_ids(i for i, on in status.items() if not on),
            }
    return paginate(
        payload,
        ("active", "inactive"),
        offset=offset,  # type: ignore[return-value]
        limit=limit,
        tool="state",
        event=event,
        call_digest=call_digest,
    )


EXPLAIN_LISTS = ("certificate", "evidence", "broken_justifications", "blocked_by", "kept_out_by")


def explain_payload(
    memory: Memory, node_id: str, limit: int | None = None, offset: int = 0, call_digest: str = ""
) -> ExplainPayload:
    """:meth:`Memory.explain` (in a view of the past: as of its event), one page of each of
    its lists (:func:`paginate`)."""
    with memory.snapshot():
        event = memory.as_of_event or memory.last_event
        payload = memory.explain(node_id).as_dict()
    return paginate(
        payload,
        EXPLAIN_LISTS,
        offset=offset,
        limit=limit,  # type: ignore[return-value]
        tool="explain",
        event=event,
        call_digest=call_digest,
    )


DIAGNOSE_LISTS = ("contradictions", "diagnoses", "undiagnosable")


def json_size(value: Any) -> int:
    """Characters of ``value``'s compact JSON, non-ASCII escaped: never fewer than the
    server's copy of it (which keeps non-ASCII characters as they are)."""
    import json

    return len(json.dumps(value, separators=(",", ":")))


def fit_lists(item: Mapping[str, Any], names: Sequence[str], budget: int) -> dict[str, Any]:
    """``item`` in at most ``budget`` bytes of JSON, as far as its lists ``names`` go: each
    listed whole and in order, one after the other, while they fit (an item of a list is
    never cut: a cut id list would read as a smaller set). The caller keeps each list's
    length beside it (``*_count``), so what was left out is counted."""
    fitted = {**item, **{name: [] for name in names}}
    size = json_size(fitted)
    for name in names:
        for entry in item[name]:
            cost = json_size(entry) + 1
            if size + cost > budget:
                break
            fitted[name].append(entry)
            size += cost
    return fitted


def rows_that_fit(columns: Sequence[Sequence[Any]], max_bytes: int) -> int:
    """How many rows of a page's ``columns`` (lists cut at one shared offset, row ``k``
    their ``k``-th items) take at most ``max_bytes`` of JSON; at least one, so a page
    always moves on."""
    rows = max((len(column) for column in columns), default=0)
    size = 0
    for k in range(rows):
        size += sum(json_size(column[k]) + 1 for column in columns if k < len(column))
        if k and size > max_bytes:
            return k
    return rows


def counted_contradiction(
    item: Mapping[str, Any], limit: int | None, budget: int | None = None
) -> dict[str, Any]:
    """A contradiction of ``diagnose`` with its ``conflicts`` and ``nodes`` cut to ``limit``
    and, with a ``budget``, to that many bytes (:func:`fit_lists`: conflict sets first, the
    smallest first, as they tell what to withdraw); ``conflict_count`` and ``node_count``
    give their lengths. A nogood may name 10,000 ids of 256 characters: 2.6 MB."""
    counted = {
        **item,
        "conflict_count": len(item["conflicts"]),
        "node_count": len(item["nodes"]),
        "conflicts": window(item["conflicts"], 0, limit),
        "nodes": window(item["nodes"], 0, limit),
    }
    return counted if budget is None else fit_lists(counted, ("conflicts", "nodes"), budget)


def counted_diagnosis(
    item: Mapping[str, Any], limit: int | None, budget: int | None = None
) -> dict[str, Any]:
    """A diagnosis with its ``invalidate``, ``retires`` and ``keeps`` cut to ``limit`` and,
    with a ``budget``, to that many bytes (:func:`fit_lists`, in that order);
    ``invalidate_count``, ``retires_count`` and ``keeps_count`` give their lengths."""
    names = ("invalidate", "retires", "keeps")
    counted = {**item}
    for name in names:
        counted[f"{name}_count"] = len(item[name])
        counted[name] = window(item[name], 0, limit)
    return counted if budget is None else fit_lists(counted, names, budget)


def diagnose_payload(
    report_dict: dict[str, Any],
    event: int,
    limit: int | None = None,
    offset: int = 0,
    call_digest: str = "",
    max_bytes: int | None = None,
) -> DiagnosePayload:
    """``diagnose``'s keys (:meth:`theory.semantics.diagnosis.DiagnosisReport.to_dict`), one page of
    each list, and each contradiction's ``conflicts`` and ``nodes`` and each diagnosis's
    ``invalidate``, ``retires`` and ``keeps`` cut to ``limit`` too (their lengths in
    ``conflict_count``, ``node_count``, ``invalidate_count``, ``retires_count``,
    ``keeps_count``: ``jtms diagnose --db --json`` lists them all).

    With ``max_bytes``, each contradiction and each diagnosis takes at most half of it (its
    lists listed whole while they fit, :func:`fit_lists`) and the page stops once its items
    take ``max_bytes`` (:func:`rows_that_fit`; ``cursor`` continues there), so a page fits
    the server's result cap at every ``limit``: a nogood over 2,000 ids of 256 characters
    was a 1 MB page at ``limit`` 1."""
    payload = dict(report_dict)
    budget = None if max_bytes is None else max_bytes // 2
    full = {name: len(payload[name]) for name in DIAGNOSE_LISTS}
    page = {name: window(payload[name], offset, limit) for name in DIAGNOSE_LISTS}
    page["contradictions"] = [
        counted_contradiction(c, limit, budget) for c in page["contradictions"]
    ]
    page["diagnoses"] = [counted_diagnosis(d, limit, budget) for d in page["diagnoses"]]
    longest = max(map(len, page.values()), default=0)
    rows = longest if max_bytes is None else rows_that_fit(list(page.values()), max_bytes)
    payload.update({name: items[:rows] for name, items in page.items()})
    shortened = rows < longest
    paginate(
        payload,
        DIAGNOSE_LISTS,
        offset=offset,
        limit=rows if shortened else limit,
        tool="diagnose",
        event=event,
        call_digest=call_digest,
        cut=full,
    )
    return payload  # type: ignore[return-value]


def fit_claim(claim: dict[str, Any], budget: int) -> dict[str, Any]:
    """``claim`` (an item of ``check``'s ``claims``) in at most ``budget`` bytes of JSON, as
    far as its lists go: its ``violations``, then its ``minimal_justifications``, each
    listed whole and in order while they fit (:func:`fit_lists`). A claim with two
    justifications of 1,000 ids of 256 characters is 500 KB; ``violation_count`` and
    ``minimal_justification_count`` still say how many there are, so what was left out is
    counted."""
    return fit_lists(claim, ("violations", "minimal_justifications"), budget)


def check_payload(
    memory: Memory,
    limit: int | None = None,
    offset: int = 0,
    call_digest: str = "",
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> CheckPayload:
    """``check`` of the stored graph with the audits in force (as ``jtms check --db``), one
    page: ``influence_safe`` and ``counts`` (``claims``, ``unsafe``) over every claim, from
    the verdicts alone (near-linear, :func:`theory.safety.check.summarize_structure`); ``claims``
    the page ``[offset, offset + limit)`` of the claims by id with their certificates
    (:func:`theory.safety.check_structure`; with a ``limit``, each claim's ``violations``
    and ``minimal_justifications`` cut to it too, ``violation_count`` and
    ``minimal_justification_count`` giving the lengths). The page stops early past
    ``deadline`` (a ``time.monotonic()`` value) or once its claims take ``max_bytes`` of
    JSON (at least one claim is listed); ``cursor`` then continues where it stopped. With
    ``max_bytes``, each claim takes at most half of it (:func:`fit_claim`: its violations
    and justifications listed whole while they fit, the counts saying how many there
    were), so a page at ``limit`` 1 always fits however long a claim's justifications.
    Counting-safety (Theorem 2, :func:`theory.safety.counting.counting_verdicts`):
    ``counting_safe`` and ``counts`` (``counting_unsafe``, ``counting_undecided``) over every
    claim, and per listed claim ``counting_safe`` and ``counting_witness``, as ``jtms check
    --json`` gives them."""
    import json
    import time

    from theory.safety.check import check_structure, summarize_structure
    from theory.safety.counting import counting_verdicts

    started = time.perf_counter()
    with memory.snapshot():
        event = memory.as_of_event or memory.last_event
        structure, blocked = memory.structure(), memory.blocked_ids()
    summary = summarize_structure(structure, blocked=blocked, examples=0)
    ids = [c.id for c in summary.claims]  # sorted by id
    wanted = window(ids, offset, limit)
    every = counting_verdicts(structure, blocked=blocked, deadline=deadline, witnesses=False)
    # witnesses for the page's unsafe claims only: the others' verdicts are final already
    unsafe_here = [c for c in wanted if every[c].safe is False]
    witnessed = {
        **{c: every[c] for c in wanted},
        **counting_verdicts(structure, claims=unsafe_here, blocked=blocked, deadline=deadline),
    }
    listed = 64 if limit is None else min(64, limit)
    report = check_structure(
        structure, wanted, blocked=blocked, deadline=deadline, max_listed=listed
    )
    claims: list[dict[str, Any]] = []
    size = 0
    for claim in report.to_dict()["claims"]:
        claim.update(witnessed[claim["id"]].to_dict())
        claim["violation_count"] = len(claim["violations"])
        claim["minimal_justification_count"] = len(claim["minimal_justifications"])
        claim["violations"] = window(claim["violations"], 0, limit)
        if max_bytes is not None:
            claim = fit_claim(claim, max_bytes // 2)
            size += len(json.dumps(claim, separators=(",", ":")))
            if claims and size > max_bytes:
                break
        claims.append(claim)
    done = len(claims)
    cursor = None
    if offset + done < len(ids) and (limit is not None or done < len(wanted)):
        from jtms.views.pages import Cursor, encode

        cursor = encode(Cursor("check", event, offset + done, call_digest))
    found = [v.safe for v in every.values()]
    counting_unsafe, counting_undecided = found.count(False), found.count(None)
    return {
        "influence_safe": summary.influence_safe,
        "counting_safe": False if counting_unsafe else None if counting_undecided else True,
        "claims": claims,  # type: ignore[typeddict-item]
        "seconds": round(time.perf_counter() - started, 6),
        "counts": {
            "claims": len(ids),
            "unsafe": len(summary.unsafe),
            "counting_unsafe": counting_unsafe,
            "counting_undecided": counting_undecided,
        },
        "cursor": cursor,
    }


# --- search and forgetting (issue 58) ------------------------------------------------------------
class SearchHitPayload(TypedDict):
    """One hit of ``search``: the node, its status now, its text (empty once purged:
    ``erased_by`` names the purge) and, for an active claim, its current certificate."""

    id: str
    kind: str
    status: str
    text: str
    score: float
    certificate: list[CertificateStep] | None
    erased_by: int | None


class SearchPayload(TypedDict):
    """``search``: the hits best first, one page (``counts.hits``: all of them; ``cursor``:
    the next page, read as of ``event``, the first page's)."""

    query: str
    active_only: bool
    hits: list[SearchHitPayload]
    counts: dict[str, int]
    event: int
    cursor: str | None


class PurgePayload(AuditPayload):
    """``purge``: the audit that retired the node (``audit_id`` is the erasure's event), the
    erased node and whether the database's files were scrubbed of old copies."""

    purged: str
    scrubbed: bool


def search_payload(page: "SearchPage") -> SearchPayload:
    """:meth:`Memory.search`'s page as JSON (the CLI's ``--json``, the MCP tool's result)."""
    return page.as_dict()  # type: ignore[return-value]


def purge_payload(memory: Memory, result: "PurgeResult", limit: int | None = None) -> PurgePayload:
    """:meth:`Memory.purge`'s result: its audit's page (:func:`audit_payload`) and what
    was erased."""
    payload: dict[str, Any] = dict(audit_payload(memory, [result.id], result.audit, False, limit))
    payload["purged"] = result.id
    payload["scrubbed"] = result.scrubbed
    return payload  # type: ignore[return-value]
