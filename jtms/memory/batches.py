"""A batch of writes in the graph file's shape, read and checked whole before a transaction.

``Memory.add_batch`` and the MCP tool ``add_batch`` take the three lists of a graph document
(docs/design.md section 4): ``nodes`` (``id``, ``kind``, and optionally ``text``, ``author``,
``expression``, ``value``, and on evidence ``valid_until``, checked and stored as
``Memory.add_evidence`` and a graph file's), ``justifications`` (``claim``, ``antecedents``) and ``nogoods``
(``id``, ``nodes``, optionally ``text``). Unlike an import, a batch may name what the memory
holds already: an antecedent, a nogood's node, or the claim a justification is added to.

:func:`read_batch` checks everything that needs no memory (types, keys, limits, kinds,
duplicate ids, evidence given a justification, a claim justified only by itself), each
refusal naming the item (``nodes[3]``, ``justifications[17]``) and why; what needs the
memory (ids it holds, ids it lacks) is checked in the write's transaction, before anything
is written.

>>> batch = read_batch([{"id": "e1", "kind": "evidence"}, {"id": "c1", "kind": "claim"}],
...                    [{"claim": "c1", "antecedents": ["e1"]}])
>>> [node.id for node in batch.nodes], batch.justifications
(['e1', 'c1'], [('c1', ('e1',))])
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jtms.memory.documents import check_calculation
from jtms.memory.limits import (
    MAX_ANTECEDENTS,
    MAX_BATCH,
    MAX_EXPRESSION,
    MAX_IDS,
    MAX_JUSTIFICATIONS,
    MAX_SOURCE,
    MAX_TEXT,
    check_text,
    check_valid_until,
)
from theory.io.graphfile import JUSTIFICATION_KEYS, NODE_KEYS
from theory.model.errors import InputError
from theory.model.ids import id_problem

NOGOOD_KEYS = frozenset({"id", "nodes", "text"})


@dataclass(frozen=True)
class BatchNode:
    """One node of a batch, checked."""

    id: str
    evidence: bool
    text: str = ""
    author: str | None = None
    expression: str | None = None
    value: str | None = None
    valid_until: str | None = None  # as stored (UTC, to the millisecond)


@dataclass(frozen=True)
class BatchNogood:
    """One nogood of a batch, checked (``nodes`` sorted, distinct)."""

    id: str
    nodes: tuple[str, ...]
    text: str = ""


@dataclass(frozen=True)
class Batch:
    """A batch read whole: its nodes, its justifications (claim, antecedents), its nogoods,
    and ``digest``, which names the request for an idempotency key."""

    nodes: list[BatchNode]
    justifications: list[tuple[str, tuple[str, ...]]]
    nogoods: list[BatchNogood]
    digest: str

    def ids(self) -> set[str]:
        """Every id the batch creates (nodes and nogoods)."""
        return {node.id for node in self.nodes} | {nogood.id for nogood in self.nogoods}


def _list(value: Any, what: str) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InputError(f"{what} must be a list, got {type(value).__name__}")
    items = list(value)
    if len(items) > MAX_BATCH:
        raise InputError(f"{what} holds {len(items)} items, at most {MAX_BATCH} in one batch")
    return items


def _object(value: Any, where: str, allowed: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where} must be an object, got {type(value).__name__}")
    unknown = sorted(map(str, set(value) - allowed))
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"expected {', '.join(sorted(allowed))}"
        )
    return value


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where} must be a string id, got {type(value).__name__}")
    problem = id_problem(value)
    if problem is not None:
        raise InputError(f"{where}: id {problem}")
    return value


def self_justified(claim: str, justifications: Sequence[Sequence[str]]) -> bool:
    """Whether every one of a claim's justifications (at least one) contains the claim: it
    can then never be active (the least fixpoint never derives a claim from itself)."""
    return bool(justifications) and all(claim in antecedents for antecedents in justifications)


def refused_self_justified(claim: str) -> str:
    """The refusal of a claim justified only by itself."""
    return (
        f"claim {claim!r} is justified only by itself: each of its justifications contains "
        f"{claim!r}, so it could never be active; give it a justification without it "
        f"([] makes a premise)"
    )


def read_batch(
    nodes: Any, justifications: Any = (), nogoods: Any = (), source: str = "add_batch"
) -> Batch:
    """The batch checked whole, without the memory (the module's docstring); the first
    problem is an :class:`InputError` naming the item and why, and nothing is written."""
    node_items = _list(nodes, "nodes")
    just_items = _list(justifications if justifications is not None else [], "justifications")
    nogood_items = _list(nogoods if nogoods is not None else [], "nogoods")
    if not (node_items or just_items or nogood_items):
        raise InputError("the batch is empty: give at least one node, justification or nogood")
    read_nodes: list[BatchNode] = []
    position_of: dict[str, str] = {}
    for k, item in enumerate(node_items):
        where = f"nodes[{k}]"
        node = _object(item, where, NODE_KEYS)
        node_id = _id(node.get("id"), f"{where}.id")
        where = f"nodes[{k}] ({node_id!r})"
        if node_id in position_of:
            raise InputError(f"{where}: duplicate id (also {position_of[node_id]})")
        position_of[node_id] = f"nodes[{k}]"
        kind = node.get("kind")
        if kind not in ("evidence", "claim"):
            raise InputError(f"{where}: kind must be 'evidence' or 'claim', got {kind!r}")
        text = check_text(node.get("text", ""), f"{where}: text", MAX_TEXT)
        author = check_text(node.get("author"), f"{where}: author", MAX_SOURCE, optional=True)
        expression = check_text(
            node.get("expression"), f"{where}: expression", MAX_EXPRESSION, optional=True
        )
        value = check_text(node.get("value"), f"{where}: value", MAX_EXPRESSION, optional=True)
        if (expression is None) != (value is None):
            raise InputError(f"{where}: a calculation needs both 'expression' and 'value'")
        if expression is not None:
            if kind != "evidence":
                raise InputError(f"{where}: only evidence records a calculation")
            try:
                check_calculation(node_id, expression, value, source)
            except InputError as error:
                raise InputError(f"{where}: {error.problem}") from None
        until = node.get("valid_until")
        if until is not None:
            if kind != "evidence":
                raise InputError(f"{where}: only evidence expires (valid_until)")
            until = check_valid_until(until, f"{where}: valid_until")
        read_nodes.append(
            BatchNode(node_id, kind == "evidence", text, author, expression, value, until)
        )
    evidence = {node.id for node in read_nodes if node.evidence}
    read_justs: list[tuple[str, tuple[str, ...]]] = []
    per_claim: dict[str, list[tuple[str, ...]]] = {}
    for k, item in enumerate(just_items):
        where = f"justifications[{k}]"
        justification = _object(item, where, JUSTIFICATION_KEYS)
        claim = _id(justification.get("claim"), f"{where}.claim")
        where = f"justifications[{k}] (claim {claim!r})"
        if "antecedents" not in justification:  # a forgotten key must not make a premise
            raise InputError(f"{where}: needs 'antecedents' (a list of ids; [] makes a premise)")
        antecedents = _list(justification["antecedents"], f"{where}: antecedents")
        if len(antecedents) > MAX_ANTECEDENTS:
            raise InputError(f"{where}: {len(antecedents)} antecedents, at most {MAX_ANTECEDENTS}")
        ants = tuple(_id(a, f"{where}: antecedents[{i}]") for i, a in enumerate(antecedents))
        if claim in evidence:
            raise InputError(f"{where}: {claim!r} is evidence, which has no justification")
        found = per_claim.setdefault(claim, [])
        found.append(ants)
        if len(found) > MAX_JUSTIFICATIONS:
            raise InputError(
                f"{where}: more than {MAX_JUSTIFICATIONS} justifications of {claim!r} "
                f"(at most {MAX_JUSTIFICATIONS} per claim)"
            )
        read_justs.append((claim, ants))
    new_claims = {node.id for node in read_nodes if not node.evidence}
    for claim, found in per_claim.items():
        if claim in new_claims and self_justified(claim, found):
            raise InputError(f"{position_of[claim]}: {refused_self_justified(claim)}")
    read_nogoods: list[BatchNogood] = []
    for k, item in enumerate(nogood_items):
        where = f"nogoods[{k}]"
        nogood = _object(item, where, NOGOOD_KEYS)
        nogood_id = _id(nogood.get("id"), f"{where}.id")
        where = f"nogoods[{k}] ({nogood_id!r})"
        if nogood_id in position_of:
            raise InputError(f"{where}: duplicate id (also {position_of[nogood_id]})")
        position_of[nogood_id] = f"nogoods[{k}]"
        members = _list(nogood.get("nodes"), f"{where}: nodes")
        if not members:
            raise InputError(f"{where}: a nogood needs at least one node")
        if len(members) > MAX_IDS:
            raise InputError(f"{where}: {len(members)} nodes, at most {MAX_IDS}")
        ids = tuple(sorted({_id(m, f"{where}: nodes[{i}]") for i, m in enumerate(members)}))
        text = check_text(nogood.get("text", ""), f"{where}: text", MAX_TEXT)
        read_nogoods.append(BatchNogood(nogood_id, ids, text))
    digest = hashlib.sha256(
        json.dumps(
            {
                "tool": "add_batch",
                "nodes": [_digested(node) for node in read_nodes],
                "justifications": read_justs,
                "nogoods": [list(vars(nogood).values()) for nogood in read_nogoods],
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
    ).hexdigest()
    return Batch(read_nodes, read_justs, read_nogoods, digest)


def _digested(node: BatchNode) -> list[Any]:
    """A node's part of the digest: its fields, ``valid_until`` only when given (so a batch
    without expiries names the same request as before nodes could carry one)."""
    values = list(vars(node).values())
    return values if node.valid_until is not None else values[:-1]


def refers_outside(document: Any) -> bool:
    """Whether a graph document names an id it does not define (an antecedent, a
    justified claim, a nogood's node): then it is a batch on a memory, not a graph of its
    own. False for anything that is not a well-formed document (the graph reader then
    says what is wrong)."""
    if not isinstance(document, Mapping):
        return False
    nodes, justs, nogoods = (
        document.get(key, []) for key in ("nodes", "justifications", "nogoods")
    )
    if not all(isinstance(x, list) for x in (nodes, justs, nogoods)):
        return False
    if not all(isinstance(x, Mapping) for x in (*nodes, *justs, *nogoods)):
        return False
    defined = {node.get("id") for node in nodes}
    named: list[Any] = []
    for justification in justs:
        antecedents = justification.get("antecedents")
        named.append(justification.get("claim"))
        named.extend(antecedents if isinstance(antecedents, list) else ())
    for nogood in nogoods:
        members = nogood.get("nodes")
        named.extend(members if isinstance(members, list) else ())
    return any(isinstance(name, str) and name not in defined for name in named)


__all__ = [
    "MAX_BATCH",
    "Batch",
    "BatchNode",
    "BatchNogood",
    "read_batch",
    "refers_outside",
    "refused_self_justified",
    "self_justified",
]
