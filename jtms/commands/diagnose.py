"""`jtms diagnose`: contradictions (active nogoods), their conflict sets, and the diagnoses,
cheapest first, each with what its exact revision would retire and keep (a dry run).

The semantics is :mod:`theory.conflicts` and :mod:`theory.diagnosis`; this module only reads
the graph, renders and exits (0 when no nogood is active, 1 when one is, 2 on bad input).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jtms.arguments import at_least
from jtms.exit_codes import ExitCode
from jtms.output import console, format_set, print_json, sorted_ids, sorted_sets, table
from jtms.progress import progress_bar
from theory.conflicts import Contradiction, contradictions
from theory.diagnosis import Diagnosis, diagnoses
from theory.errors import InputError
from theory.graphfile import load_graph
from theory.structure import SupportStructure

DEFAULT_MAX_DIAGNOSES = 10

_DESCRIPTION = """\
A nogood is a set of nodes that must not all be active together ("nogoods" in the graph
file, or `jtms add-nogood`). When all its nodes are active it is a contradiction. Its
conflict sets are the minimal evidence sets under which all its nodes are active (support
loops never count). A diagnosis is a minimal set of evidence whose invalidation leaves no
nogood active: a minimal hitting set of all conflict sets. Diagnoses are listed cheapest
first (fewest claims retired, then fewest evidence items), each with what exact revision
would retire and which downstream claims it keeps. A contradiction whose nodes hold
without any evidence (premises) has no diagnosis over evidence and is reported as such.

Exit code 0 when no nogood is active, 1 when one is, 2 on bad input.

examples:
  jtms diagnose examples/contradiction.json
  jtms diagnose examples/contradiction.json --json --max-diagnoses 1
"""


@dataclass(frozen=True)
class DiagnosisReport:
    """The contradictions of a graph and the diagnoses of the active ones, cheapest first."""

    contradictions: tuple[Contradiction, ...]
    diagnoses: tuple[Diagnosis, ...]

    @property
    def active(self) -> tuple[Contradiction, ...]:
        return tuple(c for c in self.contradictions if c.active)

    @property
    def undiagnosable(self) -> tuple[Contradiction, ...]:
        return tuple(c for c in self.active if not c.diagnosable)

    def as_dict(self) -> dict[str, Any]:
        return {
            "contradictions": [
                {"nogood": c.nogood.id, "nodes": sorted_ids(c.nogood.nodes), "text": c.nogood.text,
                 "active": c.active, "conflicts": sorted_sets(c.conflicts),
                 "diagnosable": c.diagnosable}
                for c in self.contradictions
            ],
            "diagnoses": [
                {"invalidate": sorted_ids(d.invalidate), "retires": sorted_ids(d.retires),
                 "keeps": sorted_ids(d.keeps), "retired_claims": d.retired_claims}
                for d in self.diagnoses
            ],
            "undiagnosable": sorted_ids(c.nogood.id for c in self.undiagnosable),
        }


def diagnose(structure: SupportStructure, blocked: Sequence[str] = (), limit: int | None = None,
             show_progress: bool = False) -> DiagnosisReport:
    """Contradictions and the ``limit`` cheapest diagnoses (all when None)."""
    done = [0]
    with progress_bar("conflict sets", len(structure.nogoods), enabled=show_progress) as update:
        def advance(k: int) -> None:
            done[0] += k
            update(done[0])

        found = contradictions(structure, blocked=blocked, progress=advance)
    return DiagnosisReport(found, diagnoses(structure, found, blocked=blocked, limit=limit))


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "diagnose", help="contradictions (active nogoods) and the evidence to withdraw (exit 1 if any)",
        formatter_class=argparse.RawDescriptionHelpFormatter, description=_DESCRIPTION)
    parser.add_argument("graph", metavar="GRAPH", help="graph file with \"nogoods\" (DESIGN.md section 4)")
    parser.add_argument("--max-diagnoses", type=at_least(0), default=DEFAULT_MAX_DIAGNOSES, metavar="K",
                        help=f"list at most K diagnoses, the cheapest (default {DEFAULT_MAX_DIAGNOSES}; 0 = all)")
    parser.add_argument("--json", action="store_true", help="machine output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    structure, source = load_graph(args.graph), args.graph
    limit = None if args.max_diagnoses == 0 else args.max_diagnoses
    show = not args.json and len(structure.nogoods) > 20
    try:
        report = diagnose(structure, limit=limit, show_progress=show)
    except InputError as error:
        raise error.with_source(source) from None
    if args.json:
        print_json(report.as_dict())
    else:
        print_report(report, source)
    return ExitCode.of(not report.active)


def print_report(report: DiagnosisReport, source: str) -> None:
    """Tables for people: contradictions, then the diagnoses cheapest first."""
    out = console()
    rows = []
    for c in report.contradictions:
        if not c.active:
            conflicts = "-"
        elif not c.diagnosable:
            conflicts = "{} (holds without evidence)"
        else:
            conflicts = ", ".join(format_set(s) for s in sorted_sets(c.conflicts))
        rows.append((c.nogood.id, format_set(c.nogood.nodes), "ACTIVE" if c.active else "inactive", conflicts))
    out.print(table(f"Nogoods of {source}", ["nogood", "nodes", "state", "conflict sets"], rows))
    if not report.active:
        out.print(f"{len(report.contradictions)} nogood(s), none active: no contradiction.")
        return
    for c in report.undiagnosable:
        out.print(f"{c.nogood.id}: no diagnosis over evidence: its nodes hold without any "
                  "evidence (premises), so no invalidation of evidence resolves it.")
    if report.diagnoses:
        out.print(table(
            "Diagnoses, cheapest first (invalidate the evidence; exact revision retires and keeps)",
            ["#", "invalidate", "claims retired", "retires", "keeps"],
            [(k + 1, format_set(d.invalidate), d.retired_claims, format_set(d.retires), format_set(d.keeps))
             for k, d in enumerate(report.diagnoses)]))
    out.print(f"{len(report.active)} active contradiction(s), {len(report.diagnoses)} diagnosis(es) listed.")


ORDER = 15  # position in `jtms --help`: after the checks on graph files
