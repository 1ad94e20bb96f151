"""Support structures (memory graphs): evidence, claims and AND/OR justifications.

A justification ``claim <- a1 AND a2 ...`` is one conjunction; several justifications of the
same claim are alternatives (OR). An empty justification makes its claim a premise; a claim
with no justification is never active. Antecedents may be evidence or claims; cycles are
allowed (their semantics is the least fixpoint, see :mod:`theory.semantics.fixpoint`).

A structure may also carry *nogoods*: sets of nodes that must not all be active together
(de Kleer's ATMS nogoods). They change no active state; :mod:`theory.semantics.conflicts` computes
their conflict sets and :mod:`theory.semantics.diagnosis` the evidence to withdraw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import NamedTuple

from theory.model.errors import GraphError, InputError, shorten


class Kind(str, Enum):
    EVIDENCE = "evidence"
    CLAIM = "claim"


class Justification(NamedTuple):
    """``claim <- AND(antecedents)``; empty antecedents make ``claim`` a premise.

    A named tuple rather than a dataclass: graphs hold hundreds of thousands of them.
    """

    claim: str
    antecedents: frozenset[str]


@dataclass(frozen=True)
class Node:
    id: str
    kind: Kind
    text: str = ""


@dataclass(frozen=True)
class Nogood:
    """``nodes`` must not all be active together (a contradiction when they are)."""

    id: str
    nodes: frozenset[str]
    text: str = ""


@dataclass(frozen=True, eq=False)
class SupportStructure:
    """An immutable, validated memory graph.

    Build one with :meth:`build` (in code) or :func:`theory.io.graphfile.load_graph` (from a
    file). Validation guarantees: ids are unique, every antecedent and justified claim
    exists, no justification concludes an evidence node, and every nogood names at least
    one existing node and has an id of its own (distinct from every node and nogood id).
    """

    nodes: Mapping[str, Node]
    justifications: tuple[Justification, ...]
    nogoods: tuple[Nogood, ...] = ()

    # --- construction -----------------------------------------------------------------
    @classmethod
    def build(
        cls,
        evidence: Iterable[str] = (),
        claims: Iterable[str] = (),
        justifications: Iterable[tuple[str, Iterable[str]] | Justification] = (),
        texts: Mapping[str, str] | None = None,
        nogoods: Iterable[Nogood] = (),
    ) -> "SupportStructure":
        """Validate and build. ``justifications`` are ``(claim, antecedents)`` pairs."""
        texts = texts or {}
        nodes: dict[str, Node] = {}
        for kind, ids in ((Kind.EVIDENCE, evidence), (Kind.CLAIM, claims)):
            for node_id in ids:
                if not isinstance(node_id, str) or not node_id:
                    raise GraphError("node id must be a non-empty string", node=str(node_id))
                if node_id in nodes:
                    raise GraphError("duplicate id", node=node_id)
                nodes[node_id] = Node(node_id, kind, texts.get(node_id, ""))
        built: list[Justification] = []
        seen: set[Justification] = set()
        evidence_ids = {n for n, node in nodes.items() if node.kind is Kind.EVIDENCE}
        known = nodes.keys()
        for item in justifications:
            antecedents: Iterable[str]
            if isinstance(item, Justification):
                claim, antecedents = item.claim, item.antecedents
            else:
                claim, antecedents = item
            if claim not in nodes:
                raise GraphError("justification for an unknown claim", node=str(claim))
            if claim in evidence_ids:
                raise GraphError("evidence cannot have a justification", node=claim)
            antecedent_set = frozenset(antecedents)
            if not antecedent_set <= known:
                missing = sorted(map(str, antecedent_set - known))[0]
                raise GraphError(
                    f"unknown antecedent {missing!r} in a justification of {claim!r}", node=missing
                )
            justification = Justification(claim, antecedent_set)
            if justification not in seen:  # a repeated justification adds nothing
                seen.add(justification)
                built.append(justification)
        return cls(
            nodes=nodes, justifications=tuple(built), nogoods=_checked_nogoods(nogoods, nodes)
        )

    def with_nogoods(self, nogoods: Iterable[Nogood]) -> "SupportStructure":
        """The same graph carrying ``nogoods`` instead of its own (validated)."""
        return SupportStructure(
            self.nodes, self.justifications, _checked_nogoods(nogoods, self.nodes)
        )

    # --- views ------------------------------------------------------------------------
    @cached_property
    def evidence(self) -> frozenset[str]:
        return frozenset(n.id for n in self.nodes.values() if n.kind is Kind.EVIDENCE)

    @cached_property
    def claims(self) -> frozenset[str]:
        return frozenset(n.id for n in self.nodes.values() if n.kind is Kind.CLAIM)

    @cached_property
    def justifications_of(self) -> Mapping[str, tuple[Justification, ...]]:
        """Claim id -> its justifications (empty tuple for an unjustified claim)."""
        table: dict[str, list[Justification]] = {c: [] for c in self.claims}
        for justification in self.justifications:
            table[justification.claim].append(justification)
        return {c: tuple(js) for c, js in table.items()}

    def under_audit(self, blocked: Iterable[str]) -> "SupportStructure":
        """The graph as it stands while the audits that block ``blocked`` are in force.

        Blocked nodes are forced inactive (docs/design.md section 2): blocked evidence is gone,
        blocked claims lose their justifications, and every justification that uses a
        blocked node is broken, so it is dropped. The least fixpoint of the result is the
        active state with those audits in force, and its support functions, minimal
        justifications and influence edges are those of the audited memory.

        >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
        >>> sorted(g.under_audit({"a"}).evidence), len(g.under_audit({"a"}).justifications)
        (['b'], 1)
        """
        gone = self.require(blocked)
        if not gone:
            return self
        kept = [
            j for j in self.justifications if j.claim not in gone and not (j.antecedents & gone)
        ]
        texts = {n.id: n.text for n in self.nodes.values() if n.text}
        return SupportStructure.build(self.evidence - gone, self.claims, kept, texts=texts)

    def kind(self, node_id: str) -> Kind:
        return self.nodes[node_id].kind

    def require(self, ids: Iterable[str], *, what: str = "id") -> frozenset[str]:
        """``ids`` as a frozenset, raising :class:`GraphError` for an unknown one and
        :class:`InputError` for ids that are no collection of strings (a lone string would
        be read as its characters: ``"ab"`` as the ids ``a`` and ``b``)."""
        result = frozenset(id_list(ids, what))
        for node_id in sorted(result):
            if node_id not in self.nodes:
                raise GraphError(f"unknown {what}", node=node_id)
        return result

    def require_claim(self, claim: str) -> str:
        if not isinstance(claim, str):
            raise InputError(f"a claim is an id (a string), got {type(claim).__name__}")
        if claim not in self.nodes:
            raise GraphError("unknown claim", node=claim)
        if self.nodes[claim].kind is not Kind.CLAIM:
            raise GraphError("is evidence, expected a claim", node=claim)
        return claim

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return (
            f"SupportStructure(evidence={len(self.evidence)}, claims={len(self.claims)}, "
            f"justifications={len(self.justifications)})"
        )


def _checked_nogoods(nogoods: Iterable[Nogood], nodes: Mapping[str, Node]) -> tuple[Nogood, ...]:
    """Nogoods validated against ``nodes``: own non-empty ids, at least one known node each."""
    checked: list[Nogood] = []
    seen: set[str] = set()
    for nogood in nogoods:
        if not isinstance(nogood.id, str) or not nogood.id:
            raise GraphError("nogood id must be a non-empty string", node=str(nogood.id))
        if nogood.id in nodes or nogood.id in seen:
            raise GraphError("duplicate id (a nogood needs an id of its own)", node=nogood.id)
        seen.add(nogood.id)
        if not nogood.nodes:
            raise GraphError("a nogood needs at least one node", node=nogood.id)
        for node_id in sorted(map(str, nogood.nodes)):
            if node_id not in nodes:
                raise GraphError(f"unknown node {node_id!r} in nogood {nogood.id!r}", node=node_id)
        checked.append(Nogood(nogood.id, frozenset(nogood.nodes), nogood.text))
    return tuple(checked)


def justification_rows(
    structure: SupportStructure, number: Mapping[str, int]
) -> tuple[list[int], list[int], list[int]]:
    """The structure's justifications as compressed rows in the numbering ``number``
    (claims, offsets, flat antecedents, each justification's sorted), the input of
    :meth:`jtms.engine.incremental.GrowingIndex.extend_rows`."""
    claims: list[int] = []
    offsets = [0]
    flat: list[int] = []
    get = number.__getitem__
    for j in structure.justifications:
        claims.append(get(j.claim))
        flat.extend(sorted(map(get, j.antecedents)))
        offsets.append(len(flat))
    return claims, offsets, flat


@dataclass(frozen=True)
class GraphRows:
    """A graph as numbered rows: the numbering of every bulk build (:meth:`jtms.engine.incremental.GrowingIndex.of`,
    an import).

    Node ``k`` is ``ids[k]``: the evidence first (``ids[:evidence]``), then the claims, each
    part sorted. Justification ``i`` concludes ``claims[i]`` from
    ``flat[offsets[i]:offsets[i + 1]]`` (sorted, distinct), in the structure's order. A graph
    document is read straight into these by :func:`theory.io.graphfile.graph_rows`.
    """

    ids: list[str]
    evidence: int
    texts: dict[str, str]  # the nodes with a non-empty text
    claims: list[int]
    offsets: list[int]
    flat: list[int]
    # ``ids[k] -> k``, as the reader built it to number the rows: an index built from these
    # rows adopts it rather than hash every id again (1.2M ids: 0.3 s)
    number: dict[str, int] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, structure: SupportStructure) -> "GraphRows":
        ids = sorted(structure.evidence) + sorted(structure.claims)
        number = dict(zip(ids, range(len(ids))))
        claims, offsets, flat = justification_rows(structure, number)
        texts = {n.id: n.text for n in structure.nodes.values() if n.text}
        return cls(ids, len(structure.evidence), texts, claims, offsets, flat, number)

    def nodes(self) -> list[tuple[str, bool]]:
        """(id, is evidence) of every node, in number order (:meth:`jtms.engine.incremental.GrowingIndex.extend_rows`)."""
        evidence = self.evidence
        return [(node_id, k < evidence) for k, node_id in enumerate(self.ids)]


def id_list(ids: Iterable[str], what: str = "id") -> list[str]:
    """``ids`` (any iterable of strings but a string itself) as a list.

    >>> id_list(("a", "b"))
    ['a', 'b']
    >>> id_list("ab", "audit id")
    Traceback (most recent call last):
    ...
    theory.model.errors.InputError: expected a collection of audit ids, got the string 'ab' (write ['ab'] for one id)
    """
    if isinstance(ids, (str, bytes)):
        raise InputError(
            f"expected a collection of {what}s, got the {'string' if isinstance(ids, str) else 'bytes'} "
            f"{shorten(repr(ids))} (write [{shorten(repr(ids))}] for one id)"
        )
    if not isinstance(ids, Iterable):
        raise InputError(f"expected a collection of {what}s, got {type(ids).__name__}")
    result = list(ids)
    for node_id in result:
        if not isinstance(node_id, str):
            raise InputError(f"{what} {shorten(repr(node_id))}: not a string")
    return result
