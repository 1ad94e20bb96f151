"""Public hypothesis strategies for support structures, memory graphs, audits and audit sequences.

Use them to fuzz your own revision rule against :func:`theory.semantics.revision.exact`::

    from hypothesis import given
    from theory.testing import strategies as jst
    from theory.semantics.revision import exact

    @given(jst.graphs_with_audits(cycles=True))
    def test_my_rule(case):
        structure, audit = case
        assert my_rule(structure, audit) == exact(structure, audit)

or from the command line: ``jtms fuzz --rule mypackage.rules:my_rule`` (see docs/fuzzing.md).

What the strategies generate (every size is a parameter):

- :func:`support_structures` / :func:`memory_graphs`: evidence ``e0..``, claims ``c0..``;
  AND/OR justifications with a bounded number of alternatives per claim
  (``max_alternatives``), of antecedents per justification (``max_antecedents``) and of
  distinct antecedents per claim (``max_fan_in``); layered to a bounded ``max_depth``;
  with or without support loops (``cycles``; with cycles, about two graphs in three with two
  or more claims get a planted loop of 2 to 4 claims, the shape a rule that lets a loop keep
  itself gets wrong), premises (``premises``) and redundant justifications (``redundant``:
  ``c <- a`` next to ``c <- a, b``, the case where influence over-revises although the
  minimal justification is unique).
- :func:`audits`, :func:`evidence_audits`: sets of node ids to invalidate
  (:func:`graphs_with_audits` draws at least one by default: an empty audit tests nothing).
- :func:`audit_sequences`: interleaved audits and reinstatements (:class:`AuditStep`), with
  :func:`blocked_after` to replay them.
- :func:`graphs_with_audits`, :func:`graphs_with_audit_sequences`: the pairs.
- :func:`graphs_with_nogoods`: a structure carrying nogoods (sets of nodes that must not
  all be active; :mod:`theory.semantics.conflicts`, :mod:`theory.semantics.diagnosis`).

Every strategy shrinks towards fewer nodes, fewer and shorter justifications, no
redundancy, no loops and smaller audits, so a failing example shrinks to a handful of nodes.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from theory.model.structure import Nogood, SupportStructure

__all__ = [
    "AUDIT",
    "REINSTATE",
    "AuditStep",
    "audit_pool",
    "audit_sequences",
    "audits",
    "blocked_after",
    "describe",
    "evidence_audits",
    "graphs_with_audit_sequences",
    "graphs_with_audits",
    "graphs_with_nogoods",
    "memory_graphs",
    "support_structures",
]

AUDIT: Literal["audit"] = "audit"
REINSTATE: Literal["reinstate"] = "reinstate"


# Strategies are built once per shape and reused: building and validating a fresh
# ``st.lists(st.sampled_from(pool))`` on every draw costs more than the draw itself.
@lru_cache(maxsize=None)
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@lru_cache(maxsize=None)
def _index_lists(size: int, low: int, high: int) -> st.SearchStrategy[list[int]]:
    """Sorted-free lists of distinct positions in a pool of ``size`` (shrink towards 0)."""
    return st.lists(_integers(0, size - 1), min_size=low, max_size=high, unique=True)


_BOOLEANS = st.booleans()


@lru_cache(maxsize=None)
def _lists(element: st.SearchStrategy, low: int, high: int) -> st.SearchStrategy[list]:
    return st.lists(element, min_size=low, max_size=high)


def _subset(
    draw: st.DrawFn, pool: Sequence[str], low: int, high: int, label: str | None = None
) -> list[str]:
    """Distinct items of ``pool``; shrinks towards fewer and earlier items."""
    if not pool:
        return []
    positions = draw(
        _index_lists(len(pool), min(low, len(pool)), min(high, len(pool))), label=label
    )
    return [pool[i] for i in positions]


def _check_int(name: str, value: object, low: int = 0, *, optional: bool = False) -> None:
    """Eager validation, as hypothesis' own strategies do: InvalidArgument at call time."""
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    if value < low:
        raise InvalidArgument(f"{name}={value!r} must be at least {low}")


#: The largest ``max_evidence`` / ``max_claims`` accepted: far above any graph a fuzzing run
#: can use (a run draws thousands of graphs), low enough that a typo like ``10**9`` is
#: refused up front instead of building a list of a billion ids.
_MAX_NODES = 10_000


def _check_cap(name: str, value: int, cap: int) -> None:
    if value > cap:
        raise InvalidArgument(
            f"{name}={value!r} is above the cap of {cap} (larger graphs are not useful for "
            "fuzzing and would exhaust memory)"
        )


def _check_range(name: str, low: int, high: int, cap: int | None = None) -> None:
    _check_int(f"min_{name}", low)
    _check_int(f"max_{name}", high)
    if cap is not None:
        _check_cap(f"max_{name}", high, cap)
    _check_order(f"min_{name}", low, f"max_{name}", high)


def _check_order(low_name: str, low: int, high_name: str, high: int | None) -> None:
    """min > max is refused for every pair, as hypothesis does for ``st.lists``."""
    if high is not None and high < low:
        raise InvalidArgument(
            f"need {low_name} <= {high_name}, got {low_name}={low} and {high_name}={high}"
        )


def _renamed(old: str, old_value: int | None, new: str, new_value: int, default: int) -> int:
    """``old`` is the pre-0.2 name of ``new`` (it was ambiguous): accepted, with a warning."""
    if old_value is None:
        return new_value
    if new_value != default:
        raise InvalidArgument(f"give {new} or its old name {old}, not both")
    warnings.warn(f"{old} is now called {new}", DeprecationWarning, stacklevel=4)
    return old_value


def _check_structure(structure: object) -> None:
    if not isinstance(structure, SupportStructure):
        raise InvalidArgument(f"structure={structure!r} must be a SupportStructure")


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be True or False")


def support_structures(
    *,
    min_evidence: int = 1,
    max_evidence: int = 5,
    min_claims: int = 1,
    max_claims: int = 6,
    max_alternatives: int = 3,
    max_antecedents: int = 3,
    cycles: bool = True,
    premises: bool = True,
    max_depth: int | None = None,
    max_fan_in: int | None = None,
    redundant: bool = False,
    min_alternatives: int = 0,
    max_justifications: int | None = None,
    min_justifications: int | None = None,
) -> st.SearchStrategy[SupportStructure]:
    """A random memory graph (a validated :class:`SupportStructure`).

    Parameters (all optional):

    - ``min_evidence``/``max_evidence``, ``min_claims``/``max_claims``: node counts;
      ``max_evidence`` and ``max_claims`` are capped at 10,000 each (above it:
      ``InvalidArgument``).
    - ``max_alternatives``: alternative justifications (OR) per claim; ``min_alternatives`` (default 0,
      so unjustified, never-active claims occur). ``min_alternatives`` is capped by what the
      drawn graph allows, as a unique list is capped by its pool: alternatives that resolve
      to the same antecedents as another (or, with ``redundant=False``, contain another) are
      dropped, so a claim with fewer possible antecedent sets gets fewer; with
      ``min_alternatives >= 1`` every claim still has at least one. Options that leave even
      the first claim nothing to rest on (no evidence, no premises, no cycles; or
      ``max_fan_in=0`` without premises) are refused with ``InvalidArgument``.
    - ``max_antecedents``: conjuncts (AND) per justification.
    - ``max_fan_in``: distinct antecedents of one claim over all its justifications (its
      in-degree along influence edges); ``None`` means unbounded.
    - ``max_depth``: claims are put on layers ``1..max_depth`` and a justification's
      antecedents come from lower layers (evidence is layer 0), so every derivation has at
      most ``max_depth`` steps. With ``cycles=True`` a claim may also use claims of its own or
      higher layers (back edges, support loops), so depth bounds the acyclic skeleton.
      ``None``: without cycles, claim ``ci`` may use ``c0..c(i-1)`` (depth up to the number
      of claims); with cycles, any claim.
    - ``cycles``: allow support loops (including self loops ``c <- c``).
    - ``premises``: allow empty justifications (the claim is a premise); ``premises=False``
      needs ``max_antecedents >= 1``.
    - ``redundant``: allow redundant justifications, ``c <- A ∪ {x}`` next to ``c <- A``.
      With ``redundant=False`` (the default) no justification of a claim contains another
      justification of the same claim (so a premise ``c <- ()`` is then its only one). In
      both modes ``max_antecedents`` and ``max_alternatives`` hold.
    - ``max_justifications`` / ``min_justifications``: the old, ambiguous names of
      ``max_alternatives`` / ``min_alternatives`` (deprecated).
    """
    _check_range("evidence", min_evidence, max_evidence, _MAX_NODES)
    _check_range("claims", min_claims, max_claims, _MAX_NODES)
    max_alternatives = _renamed(
        "max_justifications", max_justifications, "max_alternatives", max_alternatives, 3
    )
    min_alternatives = _renamed(
        "min_justifications", min_justifications, "min_alternatives", min_alternatives, 0
    )
    # name the option the caller gave (the old name when that is what they used)
    max_name = "max_alternatives" if max_justifications is None else "max_justifications"
    min_name = "min_alternatives" if min_justifications is None else "min_justifications"
    _check_int(min_name, min_alternatives)
    _check_int(max_name, max_alternatives)
    _check_order(min_name, min_alternatives, max_name, max_alternatives)
    _check_int("max_antecedents", max_antecedents)
    _check_int("max_depth", max_depth, 1, optional=True)
    _check_int("max_fan_in", max_fan_in, optional=True)
    for name, flag in (("cycles", cycles), ("premises", premises), ("redundant", redundant)):
        _check_bool(name, flag)
    if not premises and max_antecedents == 0:
        raise InvalidArgument(
            "max_antecedents=0 with premises=False leaves no justification to draw "
            "(every justification would be empty, i.e. a premise)"
        )
    if min_alternatives >= 1 and not premises and max_fan_in == 0:
        raise InvalidArgument(
            f"{min_name}={min_alternatives} cannot be met with max_fan_in=0 and premises=False"
        )
    if min_alternatives >= 1 and not premises and not cycles and max_evidence == 0:
        raise InvalidArgument(
            f"{min_name}={min_alternatives} cannot be met with max_evidence=0, premises=False "
            "and cycles=False: the first claim has nothing to rest on"
        )
    return _support_structures(
        min_evidence,
        max_evidence,
        min_claims,
        max_claims,
        max_alternatives,
        max_antecedents,
        cycles,
        premises,
        max_depth,
        max_fan_in,
        redundant,
        min_alternatives,
    )


memory_graphs = support_structures
"""The name the issue tracker and the README use for :func:`support_structures`."""


@st.composite
def _support_structures(
    draw: st.DrawFn,
    min_evidence: int,
    max_evidence: int,
    min_claims: int,
    max_claims: int,
    max_alternatives: int,
    max_antecedents: int,
    cycles: bool,
    premises: bool,
    max_depth: int | None,
    max_fan_in: int | None,
    redundant: bool,
    min_alternatives: int,
) -> SupportStructure:
    n_evidence = draw(_integers(min_evidence, max_evidence), label="evidence count")
    # Claims are a list of independent blocks, so the shrinker can delete any claim (not
    # only the last one) and reorder them. A block refers to antecedents by "virtual"
    # positions, resolved below against the antecedents that claim may use.
    block = _claim_block(
        max_evidence + max_claims,
        max_depth,
        max_fan_in,
        min_alternatives,
        max_alternatives,
        max_antecedents,
        premises,
        redundant,
    )
    blocks = draw(_lists(block, min_claims, max_claims), label="claims")
    evidence = [f"e{i}" for i in range(n_evidence)]
    claims = [f"c{i}" for i in range(len(blocks))]
    layers = [
        layer if layer is not None else position for position, (layer, _) in enumerate(blocks)
    ]
    per_claim: list[list[frozenset[str]]] = []
    for position, (_layer, own) in enumerate(blocks):
        # Claims this one may use, nearest earlier lower-layer claim first; with cycles
        # then itself, later claims, and earlier claims on the same or a higher layer.
        lower = [claims[j] for j in range(position - 1, -1, -1) if layers[j] < layers[position]]
        usable = lower
        if cycles:
            usable = (
                lower
                + [claims[j] for j in range(position, len(claims))]
                + [claims[j] for j in range(position) if layers[j] >= layers[position]]
            )
        drawn: list[frozenset[str]] = []
        for antecedents in own:
            resolved = frozenset(
                r for v in antecedents if (r := _resolve(v, max_evidence, evidence, usable))
            )
            if (resolved or premises) and resolved not in drawn:
                drawn.append(resolved)
        per_claim.append(drawn)
    if cycles and len(claims) >= 2 and max_antecedents >= 1:
        _plant_loop(draw, per_claim, claims, max_alternatives, max_fan_in)
    justifications: list[tuple[str, list[str]]] = []
    for position, drawn in enumerate(per_claim):
        if not redundant:
            # no justification of a claim contains another one of the same claim: keep the
            # minimal ones (two virtual lists may resolve to nested sets)
            drawn = [a for a in drawn if not any(b < a for b in drawn)]
        justifications.extend((claims[position], sorted(a)) for a in drawn)
    return SupportStructure.build(evidence, claims, justifications)


#: Claims on a planted support loop: 2 to this many.
_LOOP_LENGTH = 4

#: Whether a graph with cycles gets a planted loop: two booleans, a loop unless both are
#: false (what hypothesis shrinks to). Hypothesis draws an integer's lowest value far more
#: often than the others, a boolean about evenly, so this is the steadier three in four.
_LOOP_ODDS = st.tuples(_BOOLEANS, _BOOLEANS).map(any)


def _plant_loop(
    draw: st.DrawFn,
    per_claim: list[list[frozenset[str]]],
    claims: Sequence[str],
    max_alternatives: int,
    max_fan_in: int | None,
) -> None:
    """Close a support loop of two or more claims ``c_i <- c_j`` (each an alternative
    justification of one antecedent), in most graphs with cycles.

    Drawn justifications alone make such a loop rare (a claim must name a later claim that
    names it back), and a rule that lets a loop outlive its outside support is wrong only
    there. Each edge is added where the options allow it: it replaces a member's premise
    (which would make it redundant), a claim at ``max_alternatives`` has its last
    alternative replaced, one at ``max_fan_in`` distinct antecedents gets none.
    """
    if not draw(_LOOP_ODDS, label="planted loop"):
        return
    positions = draw(
        _index_lists(len(claims), 2, min(_LOOP_LENGTH, len(claims))), label="loop claims"
    )
    for k, position in enumerate(positions):
        antecedent = claims[positions[k - 1]]  # the previous member, the last for the first
        drawn = per_claim[position]
        edge = frozenset([antecedent])
        if edge in drawn:
            continue
        if frozenset() in drawn:  # a premise would make the loop edge redundant: replaced
            drawn.remove(frozenset())
        if max_fan_in is not None:
            fan = set().union(*drawn) if drawn else set()
            if antecedent not in fan and len(fan) >= max_fan_in:
                continue
        if len(drawn) >= max_alternatives:
            if not drawn:
                continue
            drawn.pop()
        drawn.append(edge)


def _resolve(
    v: int, max_evidence: int, evidence: Sequence[str], usable: Sequence[str]
) -> str | None:
    """A virtual antecedent position -> an id, stable when other claims are deleted.

    Positions below ``max_evidence`` name evidence, the others count back through the
    claims this one may use (relative, so deleting an unrelated claim keeps the meaning).
    """
    if v < max_evidence:
        if evidence:
            return evidence[v % len(evidence)]
        return usable[v % len(usable)] if usable else None
    if usable:
        return usable[(v - max_evidence) % len(usable)]
    return evidence[v % len(evidence)] if evidence else None


@lru_cache(maxsize=None)
def _claim_block(
    virtual: int,
    max_depth: int | None,
    max_fan_in: int | None,
    min_alternatives: int,
    max_alternatives: int,
    max_antecedents: int,
    premises: bool,
    redundant: bool,
) -> st.SearchStrategy[tuple[int | None, list[list[int]]]]:
    """One claim: its layer and its justifications as lists of virtual antecedent positions."""

    @st.composite
    def claim_block(draw: st.DrawFn) -> tuple[int | None, list[list[int]]]:
        layer = None if max_depth is None else draw(_integers(1, max_depth))
        if max_fan_in is None:
            fan = None
        else:
            fan = draw(_index_lists(virtual, 0, min(max_fan_in, virtual)))
        low = 0 if premises else 1
        own: list[list[int]] = []
        for _ in range(draw(_integers(min_alternatives, max_alternatives))):
            if fan is None:
                own.append(draw(_index_lists(virtual, low, min(max_antecedents, virtual))))
            elif fan:
                picks = draw(
                    _index_lists(len(fan), min(low, len(fan)), min(max_antecedents, len(fan)))
                )
                own.append([fan[i] for i in picks])
            else:
                own.append([])
        if redundant:
            # ``base + [extra]`` next to ``base``, within max_antecedents and max_alternatives
            for base in list(own):
                if len(own) >= max_alternatives:
                    break
                if len(base) < max_antecedents and draw(_BOOLEANS):
                    if fan is None:
                        extra = draw(_integers(0, virtual - 1))
                    elif fan:
                        extra = fan[draw(_integers(0, len(fan) - 1))]
                    else:
                        continue
                    own.append(base + [extra])
        return layer, own

    return claim_block()


def _natural(node_id: str) -> tuple:
    return (len(node_id), node_id)


def audit_pool(structure: SupportStructure, evidence_only: bool = False) -> list[str]:
    """The ids an audit draws from: evidence first, then claims (``e2`` before ``e10``).

    Evidence first keeps an audit's meaning when the shrinker deletes a claim.
    """
    _check_structure(structure)
    _check_bool("evidence_only", evidence_only)
    pool = sorted(structure.evidence, key=_natural)
    if not evidence_only:
        pool += sorted(structure.claims, key=_natural)
    return pool


def audits(
    structure: SupportStructure,
    *,
    evidence_only: bool = False,
    min_size: int = 0,
    max_size: int | None = None,
) -> st.SearchStrategy[frozenset[str]]:
    """Audits of ``structure``: sets of node ids (evidence only if asked).

    ``min_size`` larger than the pool (the structure's nodes, or its evidence) is refused
    with ``InvalidArgument``; ``max_size`` larger than the pool is capped by it.
    """
    _check_structure(structure)
    _check_bool("evidence_only", evidence_only)
    _check_int("min_size", min_size)
    _check_int("max_size", max_size, optional=True)
    _check_order("min_size", min_size, "max_size", max_size)
    pool = audit_pool(structure, evidence_only)
    if min_size > len(pool):
        raise InvalidArgument(
            f"min_size={min_size} is more than the {len(pool)} "
            f"{'evidence nodes' if evidence_only else 'nodes'} of the structure"
        )
    if not pool:
        return st.just(frozenset())
    high = len(pool) if max_size is None else min(max_size, len(pool))
    return _index_lists(len(pool), min_size, high).map(
        lambda positions: frozenset(pool[i] for i in positions)
    )


def evidence_audits(
    structure: SupportStructure, *, min_size: int = 0, max_size: int | None = None
) -> st.SearchStrategy[frozenset[str]]:
    """Audits of evidence only (the audits docs/design.md's influence-safety quantifies over)."""
    return audits(structure, evidence_only=True, min_size=min_size, max_size=max_size)


def graphs_with_audits(
    *,
    evidence_only: bool = False,
    min_audit: int | None = None,
    max_audit: int | None = None,
    **graph_options: Any,
) -> st.SearchStrategy[tuple[SupportStructure, frozenset[str]]]:
    """A pair ``(structure, audit)``; ``graph_options`` go to :func:`support_structures`.

    ``min_audit`` is capped by the drawn graph's pool (its nodes, or its evidence with
    ``evidence_only``): a smaller graph gets an audit of all of it. A ``min_audit`` above
    the largest pool the graph options allow is refused with ``InvalidArgument``. Its
    default (``None``) is 1, or 0 where ``max_audit=0`` or the options allow no node: an
    empty audit retires nothing under any sensible rule, so a fuzzing run that draws it
    spends an example on nothing.
    """
    _check_bool("evidence_only", evidence_only)
    _check_int("min_audit", min_audit, optional=True)
    _check_int("max_audit", max_audit, optional=True)
    largest = _largest_pool(graph_options, evidence_only)
    if min_audit is None:
        min_audit = min(1, largest, 1 if max_audit is None else max_audit)
    _check_order("min_audit", min_audit, "max_audit", max_audit)
    graphs = support_structures(**graph_options)
    if min_audit > largest:
        raise InvalidArgument(
            f"min_audit={min_audit} is more than the {largest} nodes the largest graph of "
            "these options has to audit"
        )
    return _graphs_with_audits(graphs, evidence_only, min_audit, max_audit)


def _largest_pool(graph_options: dict[str, Any], evidence_only: bool) -> int:
    """The most nodes an audit can draw from in a graph of ``graph_options``."""
    evidence = graph_options.get("max_evidence", 5)
    return evidence if evidence_only else evidence + graph_options.get("max_claims", 6)


@st.composite
def _graphs_with_audits(
    draw: st.DrawFn,
    graphs: st.SearchStrategy[SupportStructure],
    evidence_only: bool,
    min_audit: int,
    max_audit: int | None,
) -> tuple[SupportStructure, frozenset[str]]:
    structure = draw(graphs)
    pool = audit_pool(structure, evidence_only)
    high = len(pool) if max_audit is None else max_audit
    return structure, frozenset(_subset(draw, pool, min_audit, high))


def graphs_with_nogoods(
    *,
    min_nogoods: int = 1,
    max_nogoods: int = 3,
    max_nodes: int = 3,
    **graph_options: Any,
) -> st.SearchStrategy[SupportStructure]:
    """A structure (``graph_options`` go to :func:`support_structures`) carrying nogoods
    ``n0..``, each of 1 to ``max_nodes`` nodes, claims first in the pool (shrinks towards
    fewer nogoods of fewer, earlier claims).

    Options are keyword-only and checked when the strategy is built (``InvalidArgument``).
    A nogood needs a node: a drawn graph without nodes (``min_evidence=0, min_claims=0``)
    carries no nogood, whatever ``min_nogoods`` says.
    """
    _check_range("nogoods", min_nogoods, max_nogoods)
    _check_int("max_nodes", max_nodes, 1)
    return _graphs_with_nogoods(
        support_structures(**graph_options), min_nogoods, max_nogoods, max_nodes
    )


@st.composite
def _graphs_with_nogoods(
    draw: st.DrawFn,
    graphs: st.SearchStrategy[SupportStructure],
    min_nogoods: int,
    max_nogoods: int,
    max_nodes: int,
) -> SupportStructure:
    structure = draw(graphs)
    pool = sorted(structure.claims, key=_natural) + sorted(structure.evidence, key=_natural)
    if not pool:
        return structure
    count = draw(_integers(min_nogoods, max_nogoods), label="nogood count")
    nogoods = [
        Nogood(f"n{i}", frozenset(_subset(draw, pool, 1, max_nodes, label="nogood")))
        for i in range(count)
    ]
    return structure.with_nogoods(nogoods)


# --- audit and reinstatement sequences ------------------------------------------------


@dataclass(frozen=True)
class AuditStep:
    """One step of a review session: invalidate (``audit``) or restore (``reinstate``) ids."""

    action: Literal["audit", "reinstate"]
    ids: frozenset[str]

    def to_dict(self) -> dict[str, object]:
        return {"action": self.action, "ids": sorted(self.ids)}

    def apply(self, blocked: frozenset[str]) -> frozenset[str]:
        """The blocked ids after this step, given those blocked before it."""
        return blocked | self.ids if self.action == AUDIT else blocked - self.ids


def audit_sequences(
    structure: SupportStructure,
    *,
    min_steps: int = 1,
    max_steps: int = 5,
    evidence_only: bool = False,
    reinstatements: bool = True,
    max_step_size: int = 3,
) -> st.SearchStrategy[tuple[AuditStep, ...]]:
    """A sequence of audits and reinstatements of ``structure``.

    An audit invalidates nodes not yet blocked; a reinstatement restores some of the
    currently blocked nodes (never a node that is not blocked). Replay it with
    :func:`blocked_after`. Shrinks towards fewer, smaller steps and audits only.

    ``min_steps`` the structure cannot give is refused with ``InvalidArgument``: any steps
    from an empty pool, or, with ``reinstatements=False`` (each audit blocks a new node),
    more steps than the pool has nodes.
    """
    _check_structure(structure)
    _check_range("steps", min_steps, max_steps)
    _check_int("max_step_size", max_step_size, 1)
    _check_bool("evidence_only", evidence_only)
    _check_bool("reinstatements", reinstatements)
    most = _most_steps(len(audit_pool(structure, evidence_only)), reinstatements)
    if min_steps > most:
        raise InvalidArgument(
            f"min_steps={min_steps} is more than the {most} steps this structure allows"
            + ("" if reinstatements else " with reinstatements=False")
        )
    return _audit_sequences(
        structure, min_steps, max_steps, evidence_only, reinstatements, max_step_size
    )


@st.composite
def _audit_sequences(
    draw: st.DrawFn,
    structure: SupportStructure,
    min_steps: int,
    max_steps: int,
    evidence_only: bool,
    reinstatements: bool,
    max_step_size: int,
) -> tuple[AuditStep, ...]:
    pool = audit_pool(structure, evidence_only)
    blocked: set[str] = set()
    steps: list[AuditStep] = []
    n_steps = draw(_integers(min_steps, max(min_steps, max_steps)))
    for _ in range(n_steps):
        free = [n for n in pool if n not in blocked]
        can_reinstate = reinstatements and bool(blocked)
        if not free and not can_reinstate:
            break
        reinstate = can_reinstate and (not free or draw(_BOOLEANS))
        source = sorted(blocked) if reinstate else free
        high = max_step_size
        if not reinstatements:
            # leave a free node for each step still needed to reach min_steps
            high = min(high, len(free) - max(0, min_steps - len(steps) - 1))
        ids = frozenset(_subset(draw, source, 1, high))
        if reinstate:
            blocked -= ids
            steps.append(AuditStep(REINSTATE, ids))
        else:
            blocked |= ids
            steps.append(AuditStep(AUDIT, ids))
    return tuple(steps)


def _most_steps(pool: int, reinstatements: bool) -> int:
    """How many steps a pool of ``pool`` ids allows (unbounded: a large number)."""
    if not pool:
        return 0
    return 2**31 if reinstatements else pool


def blocked_after(steps: Iterable[AuditStep]) -> list[frozenset[str]]:
    """The set of blocked (audited, not reinstated) ids after each step."""
    blocked: frozenset[str] = frozenset()
    result: list[frozenset[str]] = []
    for step in steps:
        blocked = step.apply(blocked)
        result.append(blocked)
    return result


def graphs_with_audit_sequences(
    *,
    min_steps: int = 1,
    max_steps: int = 5,
    evidence_only: bool = False,
    reinstatements: bool = True,
    **graph_options: Any,
) -> st.SearchStrategy[tuple[SupportStructure, tuple[AuditStep, ...]]]:
    """A pair ``(structure, steps)``; ``graph_options`` go to :func:`support_structures`.

    ``min_steps`` is capped by what the drawn graph allows (see :func:`audit_sequences`:
    no steps for an empty graph, one audit per node without reinstatements). A ``min_steps``
    that even the largest graph of these options cannot give is refused with
    ``InvalidArgument``.
    """
    _check_range("steps", min_steps, max_steps)
    _check_bool("evidence_only", evidence_only)
    _check_bool("reinstatements", reinstatements)
    graphs = support_structures(**graph_options)
    most = _most_steps(_largest_pool(graph_options, evidence_only), reinstatements)
    if min_steps > most:
        raise InvalidArgument(
            f"min_steps={min_steps} is more than the {most} steps the largest graph of these "
            "options allows" + ("" if reinstatements else " with reinstatements=False")
        )
    return _graphs_with_audit_sequences(graphs, min_steps, max_steps, evidence_only, reinstatements)


@st.composite
def _graphs_with_audit_sequences(
    draw: st.DrawFn,
    graphs: st.SearchStrategy[SupportStructure],
    min_steps: int,
    max_steps: int,
    evidence_only: bool,
    reinstatements: bool,
) -> tuple[SupportStructure, tuple[AuditStep, ...]]:
    structure = draw(graphs)
    most = _most_steps(len(audit_pool(structure, evidence_only)), reinstatements)
    steps = draw(
        audit_sequences(
            structure,
            min_steps=min(min_steps, most),
            max_steps=max_steps,
            evidence_only=evidence_only,
            reinstatements=reinstatements,
        )
    )
    return structure, steps


def describe(steps: Sequence[AuditStep]) -> str:
    """``audit {e0}; reinstate {e0}`` — a one-line rendering of a sequence."""
    return "; ".join(f"{s.action} {{{', '.join(sorted(s.ids))}}}" for s in steps)
