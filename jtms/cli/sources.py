"""``--from reasons|prov|datalog``, ``--evidence``, ``--drop-out-lists``, ``--derivations``: the options that let
``jtms check``, ``jtms revise`` and ``jtms import`` read another tool's memory
(:mod:`jtms.interchange`), and the report they print about that reading."""

from __future__ import annotations

import argparse
from typing import Any

from jtms.interchange import Imported, read_source
from jtms.interchange.prov import (
    BUNDLE_CHOICES,
    DERIVATION_CHOICES,
    ID_CHOICES,
    SPECIALIZATION_CHOICES,
)
from jtms.interchange.reasons import OUT_LIST_MODES
from theory.model.structure import SupportStructure


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source_format",
        choices=["graph", "reasons", "prov", "datalog"],
        default="graph",
        help="what GRAPH is: graph (a jtms graph file, the default), reasons (an "
        "ftl-reasons SQLite store or export_network JSON), prov (a W3C PROV "
        "document: PROV-JSON, PROV-N, PROV-XML or PROV-O), datalog (a positive "
        "Datalog/ASP program grounded by clingo: facts are evidence, derived atoms claims, "
        "ground rule instances justifications; ids are atoms as clingo prints them, "
        "path(1,2)); docs/importing.md",
    )
    parser.add_argument(
        "--evidence",
        type=predicate_list,
        default=None,
        metavar="PRED[,PRED...]",
        help="with --from datalog: only these predicates' facts are evidence (auditable); "
        "the other facts are premises (default: every fact is evidence)",
    )
    parser.add_argument(
        "--out-lists",
        choices=list(OUT_LIST_MODES),
        default=None,
        help="with --from reasons: how to read out-lists (non-monotonic): labels "
        "(evaluate them at the labels the network records, reproducing ftl-reasons' own "
        "IN/OUT; the default when every node has a truth_value), drop (drop them and list "
        "them), refuse (the default without recorded labels)",
    )
    parser.add_argument(
        "--drop-out-lists",
        action="store_true",
        help="with --from reasons: the same as --out-lists drop",
    )
    parser.add_argument(
        "--derivations",
        choices=list(DERIVATION_CHOICES),
        default=None,
        help="with --from prov: read a wasDerivedFrom that names no activity as: and "
        "(all sources needed), or (each source suffices), separate (all sources, "
        "one more alternative); required when the document has one",
    )
    parser.add_argument(
        "--bundles",
        choices=list(BUNDLE_CHOICES),
        default=None,
        help="with --from prov: refuse a document with bundles (the default) or flatten "
        "them (every bundle's records read as one document's)",
    )
    parser.add_argument(
        "--specializations",
        choices=list(SPECIALIZATION_CHOICES),
        default=None,
        help="with --from prov: ignore specializationOf and alternateOf (the default; "
        "counted in the report) or read them as identity (the entities merged into one "
        "node, the one of the smallest id; listed in the report)",
    )
    parser.add_argument(
        "--prov-ids",
        choices=list(ID_CHOICES),
        default=None,
        help="with --from prov: node ids are full URIs (uri, the default: the same in "
        "every serialization) or prefixed names as the file writes them (prefixed, e.g. "
        "exc:chart1; a prefix is a spelling, so they can differ between serializations)",
    )


def predicate_list(text: str) -> list[str]:
    """``PRED[,PRED...]`` -> the predicate names (``edge``, not ``edge/2``), stripped."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise argparse.ArgumentTypeError(f"expected PRED[,PRED...], got {text[:80]!r}")
    return items


def load_graph_file(path: str) -> SupportStructure:
    """A jtms graph file for a command that reads it (``jtms check FILE``): the graph
    (:func:`theory.io.graphfile.load_graph`), with its texts and calculations checked as a
    memory's import checks them (:func:`jtms.memory.documents.check_document`), so a file
    is valid or invalid the same way for every command."""
    return load_graph_document(path)[1]


def load_graph_document(path: str) -> tuple[Any, SupportStructure]:
    """The decoded document and the graph of :func:`load_graph_file`, the file read once:
    for a command that needs more of the document than the graph (``jtms revise FILE``
    replays the audit it records).

    >>> document, graph = load_graph_document("examples/or_world.json")
    >>> len(document["nodes"]) == len(graph.nodes)
    True
    """
    from jtms.memory.documents import check_document
    from theory.io.graphfile import load_document, parse_graph

    document = load_document(path)
    structure = parse_graph(document, source=path)
    check_document(document, structure, path)
    return document, structure


def read_from(args: argparse.Namespace, path: str) -> Imported | None:
    """The imported graph when ``--from`` names another tool (None for a jtms graph file)."""
    kind = getattr(args, "source_format", "graph")
    if kind == "graph":
        if (
            getattr(args, "drop_out_lists", False)
            or getattr(args, "derivations", None)
            or getattr(args, "out_lists", None)
            or getattr(args, "bundles", None)
            or getattr(args, "specializations", None)
            or getattr(args, "prov_ids", None)
            or getattr(args, "evidence", None)
        ):
            from theory.model.errors import InputError

            raise InputError(
                "--drop-out-lists, --out-lists, --derivations, --bundles, --specializations "
                "and --prov-ids need --from reasons or --from prov; --evidence needs --from "
                "datalog"
            )
        return None
    return read_source(
        kind,
        path,
        drop_out_lists=args.drop_out_lists,
        derivations=args.derivations,
        out_lists=args.out_lists,
        bundles=args.bundles,
        specializations=args.specializations,
        prov_ids=args.prov_ids,
        evidence=args.evidence,
    )


def headline_payload(imported: Imported | None) -> dict[str, int]:
    """The keys that go beside the verdict in ``--json``: ``source_disagreements``, the number
    of recorded labels the computed state contradicts (when the source records labels)."""
    if imported is None or not imported.report.labels_recorded:
        return {}
    return {"source_disagreements": len(imported.report.disagreements)}


def report_lines(imported: Imported, *, audit_line: bool = True) -> list[str]:
    """The report for people: how the computed state compares with the source's labels,
    the source's audit, then what was dropped, ignored or chosen."""
    lines = imported.report.lines()
    if imported.audit and audit_line:
        shown = ", ".join(imported.audit_list()[:10]) + (
            ", ..." if len(imported.audit) > 10 else ""
        )
        lines.insert(
            0,
            f"the source's audit: {len(imported.audit)} node(s) retracted or invalidated ({shown})",
        )
    headline = imported.report.headline()
    if headline is not None:
        lines.insert(0, headline)
    return lines


def print_import_report(imported: Imported) -> None:
    """The report's lines, unwrapped (each is one item to grep for)."""
    for line in report_lines(imported):
        print(line)
