"""What an importer hands back: the graph, the audit the source had in force, and a report.

Nothing an importer reads is changed silently: every part of the source that has no reading
in this theory is either refused (bad input, one line) or dropped *and listed* here, and a
reading that rests on a choice the source does not settle (PROV's plain ``wasDerivedFrom``)
comes with the claims whose verdicts depend on that choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from theory.io.graphfile import read_bounded
from theory.model.canonical import sorted_ids
from theory.model.structure import SupportStructure


@dataclass(frozen=True)
class DroppedOutList:
    """An ftl-reasons out-list dropped by ``--drop-out-lists``: the justification of ``node``
    at position ``justification`` (0-based, as stored) lost the condition "``out_list`` OUT"."""

    node: str
    justification: int
    out_list: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "justification": self.justification,
            "out_list": list(self.out_list),
        }


@dataclass(frozen=True)
class EvaluatedOutList:
    """An ftl-reasons out-list evaluated at the recorded labels (``--out-lists labels``): the
    justification of ``node`` at position ``justification`` (0-based, as stored) is defeated
    by ``defeaters`` (its out-listed nodes recorded IN) and left out, or, with no defeater,
    kept as its in-list."""

    node: str
    justification: int
    out_list: tuple[str, ...]
    defeaters: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "justification": self.justification,
            "out_list": list(self.out_list),
            "defeaters": list(self.defeaters),
        }


@dataclass(frozen=True)
class DanglingReference:
    """A justification of ``node`` (at position ``justification``) naming ``missing``, which
    the network does not have, in its in-list (``side`` ``in``: the justification never holds)
    or its out-list (``out``: the missing node, OUT, never defeats it), as ftl-reasons reads
    a missing node."""

    node: str
    justification: int
    missing: str
    side: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "justification": self.justification,
            "missing": self.missing,
            "side": self.side,
        }


@dataclass(frozen=True)
class Disagreement:
    """A node whose truth value recorded in the source differs from the active state that
    exact revision computes for the imported graph under the imported audit."""

    node: str
    recorded: str
    computed: str

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "recorded": self.recorded, "computed": self.computed}


@dataclass(frozen=True)
class ChoiceDependence:
    """A claim whose verdict differs between the readings of plain derivations: ``verdicts``
    maps each reading (``and``, ``or``, ``separate``) to ``inactive``, ``safe`` or ``unsafe``."""

    claim: str
    verdicts: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "verdicts": dict(self.verdicts)}


@dataclass(frozen=True)
class ImportReport:
    """What an import read, dropped, ignored and left to a choice (see the module docstring).

    ``ignored`` counts the records that carry no support (PROV agents, attributions, ...);
    ``notes`` are one-line remarks on readings worth knowing (a generation naming no activity
    read as evidence, CP justifications read as SL as ftl-reasons evaluates them).
    """

    format: str
    source: str
    dropped_out_lists: tuple[DroppedOutList, ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    derivations: str | None = None
    plain_derivations: int = 0
    choice_dependent: tuple[ChoiceDependence, ...] | None = None
    ignored: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    out_list_mode: str | None = None
    evaluated_out_lists: tuple[EvaluatedOutList, ...] = ()
    dangling: tuple[DanglingReference, ...] = ()
    labels_recorded: int = 0
    mapping_choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    merged: dict[str, str] = field(default_factory=dict)
    bundles_flattened: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    evidence_predicates: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "format": self.format,
            "source": self.source,
            "dropped_out_lists": [d.to_dict() for d in self.dropped_out_lists],
            "disagreements": [d.to_dict() for d in self.disagreements],
            "ignored": dict(sorted(self.ignored.items())),
            "notes": list(self.notes),
        }
        if self.format == "reasons":
            payload["out_lists"] = self.out_list_mode
            payload["evaluated_out_lists"] = [e.to_dict() for e in self.evaluated_out_lists]
            payload["dangling"] = [d.to_dict() for d in self.dangling]
            payload["labels_recorded"] = self.labels_recorded
        if self.format == "prov":
            payload["derivations"] = self.derivations
            payload["plain_derivations"] = self.plain_derivations
            payload["choice_dependent"] = (
                None
                if self.choice_dependent is None
                else [c.to_dict() for c in self.choice_dependent]
            )
            payload["mapping_choices"] = {
                name: {"count": len(nodes), "nodes": list(nodes)}
                for name, nodes in sorted(self.mapping_choices.items())
            }
            payload["merged"] = dict(self.merged)
            payload["bundles_flattened"] = self.bundles_flattened
        if self.format == "datalog":
            payload["counts"] = dict(sorted(self.counts.items()))
            payload["evidence_predicates"] = (
                None if self.evidence_predicates is None else list(self.evidence_predicates)
            )
        return payload

    def headline(self) -> str | None:
        """The one line that belongs beside the verdict: how the computed state compares
        with the labels the source records (None when it records none)."""
        if not self.labels_recorded:
            return None
        if not self.disagreements:
            return f"the computed state agrees with all {self.labels_recorded} recorded label(s)"
        into_in = sum(d.computed == "IN" for d in self.disagreements)
        return (
            f"DISAGREES with the source: {len(self.disagreements)} of {self.labels_recorded} "
            f"recorded label(s) differ ({into_in} recorded OUT computed IN, "
            f"{len(self.disagreements) - into_in} recorded IN computed OUT)"
        )

    def lines(self) -> list[str]:
        """The report for people, one line per item (empty when there is nothing to say)."""
        out = [
            f"justification {d.justification} of {d.node!r} names {d.missing!r}, which the "
            f"network does not have, in its {d.side}-list: read as OUT, as ftl-reasons reads it"
            + (" (the justification never holds)" if d.side == "in" else " (it never defeats)")
            for d in self.dangling
        ]
        if self.evaluated_out_lists:
            defeated = sum(bool(e.defeaters) for e in self.evaluated_out_lists)
            out.append(
                f"{len(self.evaluated_out_lists)} out-list(s) evaluated at the recorded labels "
                f"(--out-lists labels): {defeated} justification(s) defeated (left out), "
                f"{len(self.evaluated_out_lists) - defeated} kept as their in-lists"
            )
        out += [
            f"dropped the out-list {list(d.out_list)} of justification {d.justification} of "
            f"{d.node!r} (--drop-out-lists)"
            for d in self.dropped_out_lists
        ]
        out += [
            f"{d.node!r}: recorded {d.recorded}, computed {d.computed}" for d in self.disagreements
        ]
        if self.plain_derivations:
            out.append(
                f"{self.plain_derivations} plain wasDerivedFrom (no activity) read as "
                f"--derivations {self.derivations}"
            )
            if self.choice_dependent is not None:
                if not self.choice_dependent:
                    out.append("no claim's verdict depends on that choice")
                for dependence in self.choice_dependent:
                    shown = ", ".join(f"{k} {v}" for k, v in dependence.verdicts.items())
                    out.append(f"verdict of {dependence.claim!r} depends on --derivations: {shown}")
        out += _choice_lines(self.mapping_choices, self.merged, self.bundles_flattened)
        out += [
            f"ignored {count} {what} (no support in this theory)"
            for what, count in sorted(self.ignored.items())
        ]
        out += list(self.notes)
        return out


_CHOICE_TEXT = {
    "premise_from_activity_without_used": "made premises: generated by an activity that "
    "records no used",
    "generations_as_alternatives": "generated by several activities: read as alternatives "
    "(each one alone suffices)",
}


def _first(nodes: tuple[str, ...], shown: int = 5) -> str:
    return ", ".join(nodes[:shown]) + (", ..." if len(nodes) > shown else "")


def _choice_lines(
    choices: dict[str, tuple[str, ...]], merged: dict[str, str], flattened: int
) -> list[str]:
    """One line per mapping choice a PROV reading made, with the entities it concerns."""
    out = [
        f"{len(nodes)} entit{'y' if len(nodes) == 1 else 'ies'} {text} ({_first(nodes)})"
        for name, text in _CHOICE_TEXT.items()
        if (nodes := choices.get(name, ()))
    ]
    if merged:
        pairs = tuple(f"{a} -> {b}" for a, b in merged.items())
        out.append(
            f"{len(merged)} entit{'y' if len(merged) == 1 else 'ies'} merged by "
            f"--specializations identity ({_first(pairs)})"
        )
    if flattened:
        out.append(f"{flattened} bundle(s) flattened into one document (--bundles flatten)")
    return out


@dataclass(frozen=True)
class Imported:
    """An imported graph: ``structure`` (nogoods included), ``audit`` (the ids the source had
    retracted or invalidated; the memory audits them on import) and the ``report``."""

    structure: SupportStructure
    audit: frozenset[str]
    report: ImportReport

    def audit_list(self) -> list[str]:
        return sorted_ids(self.audit)


def read_text(path: str | Path) -> str:
    """The UTF-8 text of a source document (an ftl-reasons export, a PROV document), bounded
    as a graph file is (:func:`theory.io.graphfile.read_bounded`: an :class:`InputError` past
    the bound; ``OSError`` and ``UnicodeDecodeError`` are the caller's)."""
    return read_bounded(path, "a source document").decode("utf-8")
