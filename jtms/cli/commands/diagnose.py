"""`jtms diagnose`: contradictions (active nogoods), their conflict sets, and the diagnoses,
cheapest first, each with what its exact revision would retire and keep (a dry run).

The semantics is :mod:`theory.semantics.conflicts` and :mod:`theory.semantics.diagnosis`; this module only reads
the graph (or the memory, through :meth:`Memory.diagnose`), renders, audits a chosen diagnosis
(``--apply``) and exits (0 when no nogood is active, 1 when one is, 2 on bad input).
Also ``jtms add-nogood`` (:meth:`Memory.add_nogood`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from jtms.cli.arguments import at_least, db_option, documented, id_list
from jtms.cli.exit_codes import ExitCode
from jtms.cli.output import console, format_set, print_json, sorted_sets, table
from jtms.cli.progress import progress_bar
from jtms.cli.sources import load_graph_file
from jtms.memory.contradictions import apply_diagnosis
from jtms.memory.memory import Memory
from jtms.views import payloads
from theory.model.errors import InputError
from theory.model.structure import SupportStructure
from theory.semantics.diagnosis import DiagnosisReport, diagnose

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
  jtms diagnose --db jtms.db                 # a stored memory, its audits in force
  jtms diagnose --db jtms.db --apply 1       # audit the cheapest diagnosis
"""


def report_of(
    structure: SupportStructure,
    blocked: Sequence[str] = (),
    limit: int | None = None,
    show_progress: bool = False,
) -> DiagnosisReport:
    """:func:`theory.semantics.diagnosis.diagnose` with a progress bar over the nogoods."""
    done = [0]
    with progress_bar("conflict sets", len(structure.nogoods), enabled=show_progress) as update:

        def advance(k: int) -> None:
            done[0] += k
            update(done[0])

        return diagnose(structure, blocked, limit, progress=advance)


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="contradictions (active nogoods) and the evidence to withdraw (exit 1 if any)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_DESCRIPTION,
    )
    parser.add_argument(
        "graph",
        metavar="GRAPH",
        nargs="?",
        help='graph file with "nogoods" (docs/design.md section 4), or use --db',
    )
    db_option(
        parser,
        instead_of_file=True,
        help="diagnose a stored memory (with its audits in force) instead of a file",
    )
    parser.add_argument(
        "--max-diagnoses",
        type=at_least(0),
        default=DEFAULT_MAX_DIAGNOSES,
        metavar="K",
        help=f"list at most K diagnoses, the cheapest (default {DEFAULT_MAX_DIAGNOSES}; 0 = all)",
    )
    parser.add_argument(
        "--apply",
        type=at_least(1),
        default=None,
        metavar="N",
        help="--db only: audit the N-th diagnosis listed (1 = the cheapest), "
        "with a reason naming the nogoods it resolves",
    )
    parser.add_argument("--reviewer", default="jtms-diagnose", help="who --apply audits as")
    parser.add_argument("--json", action="store_true", help="machine output")
    documented(
        parser,
        examples=[],
        keys=["contradictions", "diagnoses", "undiagnosable", "applied", "counts", "cursor"],
    )
    parser.set_defaults(func=run)

    add = subparsers.add_parser(
        "add-nogood",
        help="record that some nodes must not all be active together",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Record a nogood in the memory: the nodes must not all be active together.\n"
            "It changes no status; `jtms diagnose --db` reports it when all its nodes are\n"
            "active and proposes the evidence to withdraw. Its id is its own (no node\n"
            "may have it); `jtms history ID` shows when it was a contradiction.\n\n"
            "example:\n  jtms add-nogood verdict --nodes effective,inert "
            "--text 'cannot both hold' --db jtms.db"
        ),
    )
    add.add_argument("id", metavar="ID")
    add.add_argument(
        "--nodes",
        required=True,
        type=id_list,
        metavar="ID[,ID...]",
        help="the nodes (evidence or claims) that must not all be active",
    )
    add.add_argument("--text", default="")
    add.add_argument("--author", default=None)
    db_option(add)
    add.add_argument("--json", action="store_true", help="machine output")
    documented(add, examples=[], keys=["event_id", "id", "nodes", "active", "counts", "cursor"])
    add.set_defaults(func=run_add_nogood)


def run(args: argparse.Namespace) -> int:
    if args.db and args.graph:
        raise InputError("give either a GRAPH file or --db PATH, not both")
    if not args.db and not args.graph:
        raise InputError("give a GRAPH file (or --db PATH for a stored memory)")
    if args.apply is not None and not args.db:
        raise InputError("--apply audits a stored memory: give --db PATH")
    limit = None if args.max_diagnoses == 0 else max(args.max_diagnoses, args.apply or 0)
    applied = None
    if args.db:
        source = args.db
        with Memory.open(args.db) as memory:
            report = memory.diagnose(limit)
            if args.apply is not None:
                applied = apply_diagnosis(memory, report, args.apply, args.reviewer)
    else:
        structure, source = load_graph_file(args.graph), args.graph
        show = not args.json and len(structure.nogoods) > 20
        try:
            report = report_of(structure, limit=limit, show_progress=show)
        except InputError as error:
            raise error.with_source(source) from None
    if args.json:
        payload = report.to_dict()
        if args.db:  # the keys of the MCP tool: with the lists' lengths
            from jtms.views.payloads import diagnose_payload

            payload["applied"] = applied.to_dict() if applied is not None else None
            payload = dict(diagnose_payload(payload, event=0))
        print_json(payload)
    else:
        print_report(report, source)
        if applied is not None:
            console().print(
                f"audit {applied.audit.audit_id}: invalidated {format_set(applied.audit.roots)} "
                f"({applied.reason}); retired {format_set(applied.audit.retired)}"
            )
    return ExitCode.of(not report.active)


def run_add_nogood(args: argparse.Namespace) -> int:
    with Memory.open(args.db) as memory:
        change = memory.add_nogood(args.id, args.nodes, text=args.text, author=args.author)
        active = memory.is_active(args.id)
    payload = payloads.nogood_added(change, args.id, args.nodes, active)
    if args.json:
        print_json(payload)
    else:
        state = (
            "ACTIVE: all its nodes are active (see `jtms diagnose --db`)"
            if active
            else "not active"
        )
        console().print(f"added nogood {args.id} over {format_set(args.nodes)}: {state}")
    return ExitCode.OK


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
            if not c.conflicts_complete:
                conflicts += f", ... (more: the first {len(c.conflicts)} shown)"
        rows.append(
            (
                c.nogood.id,
                format_set(c.nogood.nodes),
                "ACTIVE" if c.active else "inactive",
                conflicts,
            )
        )
    out.print(table(f"Nogoods of {source}", ["nogood", "nodes", "state", "conflict sets"], rows))
    if not report.active:
        out.print(f"{len(report.contradictions)} nogood(s), none active: no contradiction.")
        return
    for c in report.undiagnosable:
        out.print(
            f"{c.nogood.id}: no diagnosis over evidence: its nodes hold without any "
            "evidence (premises), so no invalidation of evidence resolves it."
        )
    if report.diagnoses:
        out.print(
            table(
                "Diagnoses, cheapest first (invalidate the evidence; exact revision retires and keeps)",
                ["#", "invalidate", "claims retired", "retires", "keeps"],
                [
                    (
                        k + 1,
                        format_set(d.invalidate),
                        d.retired_claims,
                        format_set(d.retires),
                        format_set(d.keeps),
                    )
                    for k, d in enumerate(report.diagnoses)
                ],
            )
        )
    out.print(
        f"{len(report.active)} active contradiction(s), {len(report.diagnoses)} diagnosis(es) listed."
    )


ORDER = 15  # position in `jtms --help`: after the checks on graph files
