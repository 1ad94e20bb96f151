"""The memory commands: init, import, add-evidence, add-claim, audit, reinstate, history,
explain, context, review. Every command takes ``--db PATH`` (default ``jtms.db``) and ``--json``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from jtms.cli.arguments import at_least, db_option, documented, integer
from jtms.cli.output import console, print_json, table
from jtms.cli.sources import add_source_arguments, headline_payload, read_from, report_lines
from jtms.memory.limits import (
    MAX_EVENT,
    MAX_REASON,
    MAX_REVIEWER,
    MAX_TIME_LIMIT,
    ascii_float,
    check_text,
    is_digits,
    parse_int,
    parse_seconds,
)
from jtms.memory.memory import Memory
from jtms.views import payloads
from theory.io.graphfile import load_document
from theory.model.errors import InputError, shorten
from theory.model.ids import split_ids

if TYPE_CHECKING:  # pragma: no cover
    from jtms.interchange import Imported
    from jtms.memory.contradictions import ContradictionReview

TABLE_ROWS = 50  # rows of a table for people; --json lists everything


def _common(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    db_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def _id_list(value: str, what: str) -> list[str]:
    items = split_ids(value)  # commas inside parentheses do not separate: path(1,2)
    if not value.strip() or any(not item for item in items):
        raise InputError(f"{what}: expected ID[,ID...], got {value!r}")
    return items


def _as_of(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-of",
        default=None,
        metavar="EVENT_ID|ISO_TIME",
        help="the memory as it was at an event (its id, or the latest event at "
        "or before an ISO time such as 2026-12-01T08:30:00Z)",
    )


def _paging(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--limit",
        type=at_least(1),  # refused while parsing: before a write command writes anything
        default=None,
        metavar="N",
        help=f"at most N items of each list: tables show N rows (default "
        f"{TABLE_ROWS}), --json lists N (default all; `counts` gives the lengths)",
    )
    group.add_argument("--all", action="store_true", help="tables show every row")


def _limit(args: argparse.Namespace) -> int | None:
    """``--limit`` (None: all), checked."""
    if args.limit is None:
        return None
    if args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    return int(args.limit)


def _rows(args: argparse.Namespace) -> int | None:
    """Rows a table shows: ``--limit``, every row with ``--all``, else TABLE_ROWS."""
    return None if args.all else (_limit(args) or TABLE_ROWS)


def _more(shown: int | None, counts: Mapping[str, int]) -> str | None:
    """The note under tables that show fewer rows than there are."""
    if shown is None or all(n <= shown for n in counts.values()):
        return None
    return (
        f"(tables show the first {shown} rows of {', '.join(f'{n} {name}' for name, n in counts.items())}; "
        f"--all shows all, --json lists all)"
    )


@contextmanager
def _reading(args: argparse.Namespace) -> Iterator[Memory]:
    """The memory at ``--db`` (as of ``--as-of`` when given), for one read command."""
    with Memory.open(args.db) as memory:
        moment = getattr(args, "as_of", None)
        if moment is None:
            yield memory
            return
        text = moment.strip()
        if is_digits(text):
            if len(text) > len(str(MAX_EVENT)) or int(text) > MAX_EVENT or int(text) < 1:
                raise InputError(
                    f"--as-of: no event {shorten(text.lstrip('0') or '0', 40)}"
                    f" (events are numbered 1 to {MAX_EVENT} at most)"
                )
            yield memory.as_of(int(text))
            return
        yield memory.as_of(text)


def _tolerance(text: str) -> float:
    """A finite tolerance >= 0 (argparse type: a bad one is a one-line usage error)."""
    value = ascii_float(text.strip())  # ASCII only: float() reads "٣" as 3
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text[:40]!r}")
    return value


def _seconds(text: str) -> float:
    """Seconds per calculation: more than 0, at most :data:`MAX_TIME_LIMIT` (one day)."""
    try:
        return parse_seconds(text, "--time-limit", MAX_TIME_LIMIT, positive=True)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--time-limit ")) from None


def _report(args: argparse.Namespace, payload: Mapping[str, Any], text: str) -> int:
    """Print ``payload`` (``--json``) or ``text``; exit 0."""
    if args.json:
        print_json(payload)
    else:
        console().print(text)
    return 0


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = _common(subparsers.add_parser("init", help="create an empty memory database"))
    documented(
        p,
        examples=[
            "jtms init --db jtms.db",
            "jtms init --db 'postgresql://USER@HOST:5432/DB?memory=team'",
        ],
        keys=["created", "db"],
        description="Create an empty memory: a SQLite file (refused if something is there) or a PostgreSQL memory (a schema of its own in the database; docs/postgres.md).",
    )
    p.set_defaults(func=run_init)

    p = _common(
        subparsers.add_parser(
            "upgrade",
            help="bring a memory written by an older jtms to this schema version",
            description="Upgrade a memory of an older schema version in place, in one "
            "transaction: an SQLite file of version 1, 2 or 3 (version 4 writes the revisions "
            "by node in bulk), or a PostgreSQL memory of version 3 (a row per revision; "
            "version 4 stores them in batches).",
        )
    )
    documented(
        p,
        examples=[
            "jtms upgrade --db old.db",
            "jtms upgrade --db 'postgresql://USER@HOST:5432/DB?memory=NAME'",
        ],
        keys=["db", "upgraded"],
    )
    p.set_defaults(func=run_upgrade)

    p = _common(
        subparsers.add_parser(
            "import", help="add a graph file (docs/design.md format) to the memory"
        )
    )
    p.add_argument("graph", metavar="GRAPH")
    p.add_argument("--author", default=None)
    p.add_argument(
        "--idempotency-key",
        default=None,
        metavar="KEY",
        help="name this write: a repeat with the same key and file writes nothing and "
        "reports the first import (the file is then written as a batch)",
    )
    add_source_arguments(p)  # --from reasons|prov: the graph, then its audit (docs/importing.md)
    documented(
        p,
        examples=[
            "jtms import graph.json --db jtms.db",
            "jtms import more.json --db jtms.db --idempotency-key run-17",
        ],
        keys=["event_id", "nodes", "active", "seconds"],
        description="Add a graph file (docs/design.md section 4: nodes, justifications, nogoods) to the memory in one transaction, checked whole first: one bad item and nothing is written. A self-contained graph is imported in bulk; a file naming nodes already stored (an antecedent, a claim given one more justification, a nogood's node), or given --idempotency-key, is written as a batch (Memory.add_batch). --from reasons|prov|datalog reads other tools' graphs (docs/importing.md).",
    )
    p.set_defaults(func=run_import)

    p = _common(subparsers.add_parser("add-evidence", help="add one evidence node"))
    p.add_argument("id", metavar="ID")
    p.add_argument("--text", default="")
    p.add_argument("--author", default=None)
    p.add_argument("--expression", default=None, help="an executed calculation (sympy syntax)")
    p.add_argument("--value", default=None, help="the value the calculation gave")
    p.add_argument(
        "--valid-until",
        default=None,
        metavar="ISO_TIME",
        help="from this time on the evidence counts as audited (reason 'expired'), "
        "e.g. 2027-01-01T00:00:00Z",
    )
    documented(
        p,
        examples=[
            "jtms add-evidence assay-A --text 'assay A shows X' --author lab --db jtms.db",
            "jtms add-evidence calc1 --expression '6*7' --value 42 --db jtms.db",
        ],
        keys=["event_id", "id", "active"],
        description="Record one piece of evidence (an observation, a document, an executed calculation). A calculation gives --expression and the --value it produced; `jtms review` re-executes it. New evidence is active.",
    )
    p.set_defaults(func=run_add_evidence)

    p = _common(subparsers.add_parser("add-claim", help="add a claim with its justifications"))
    p.add_argument("id", metavar="ID")
    p.add_argument(
        "--because",
        action="append",
        default=[],
        metavar="ID[,ID...]",
        help="one justification (all of these ids); repeat for alternatives",
    )
    p.add_argument("--premise", action="store_true", help="add an empty justification (a premise)")
    p.add_argument("--text", default="")
    p.add_argument("--author", default=None)
    documented(
        p,
        examples=[
            "jtms add-claim mechanism --because assay-A,assay-B --because review-C --db jtms.db",
            "jtms add-claim axiom --premise --db jtms.db",
        ],
        keys=["event_id", "id", "active"],
        description="Record a claim with its justifications: each --because is one justification (ids that together support the claim); repeat it for alternatives. The claim stays active while one justification is intact. A claim justified only by itself is refused.",
    )
    p.set_defaults(func=run_add_claim)

    p = _common(
        subparsers.add_parser(
            "audit",
            help="invalidate evidence or claims and withdraw exactly what loses all support",
        )
    )
    p.add_argument("--invalidate", required=True, metavar="ID[,ID...]")
    p.add_argument("--reason", required=True)
    p.add_argument("--reviewer", default=None)
    p.add_argument("--dry-run", action="store_true", help="preview: write nothing")
    _paging(p)
    documented(
        p,
        examples=[
            "jtms audit --invalidate assay-A --reason 'contaminated' --dry-run --db jtms.db",
            "jtms audit --invalidate assay-A,assay-B --reason 'retracted paper' --reviewer ana --db jtms.db",
        ],
        keys=["audit_id", "dry_run", "audit", "retired", "kept", "seconds", "counts", "cursor"],
        description="Invalidate evidence or claims found wrong and withdraw exactly the claims left with no intact justification; the others downstream are kept, each with the justification that survives. --dry-run previews and writes nothing. Undo with `jtms reinstate AUDIT_ID`.",
    )
    p.set_defaults(func=run_audit)

    p = _common(subparsers.add_parser("reinstate", help="undo an audit"))
    p.add_argument("audit_id", metavar="AUDIT_ID")
    p.add_argument("--reason", default=None)
    p.add_argument("--reviewer", default=None)
    _paging(p)
    documented(
        p,
        examples=["jtms reinstate 7 --reason 'the assay was fine' --db jtms.db"],
        keys=["audit_id", "event_id", "reactivated", "counts", "cursor"],
        description="Undo an audit: its invalidated ids count again, and everything they supported is active again.",
    )
    p.set_defaults(func=run_reinstate)

    p = _common(subparsers.add_parser("history", help="every status a node has had"))
    p.add_argument("id", metavar="ID")
    _as_of(p)
    _paging(p)
    documented(
        p,
        examples=[
            "jtms history mechanism --db jtms.db",
            "jtms history mechanism --as-of 12 --json --db jtms.db",
        ],
        keys=["id", "kind", "active", "revisions", "audited_by", "erased_by", "counts", "cursor"],
        description="Every status a node (or nogood) has had, oldest first: its creation, then each audit or reinstatement that changed it, with who and why; and the audits naming it.",
    )
    p.set_defaults(func=run_history)

    p = _common(subparsers.add_parser("explain", help="why a node is active (or not)"))
    p.add_argument("id", metavar="ID")
    _as_of(p)
    p.add_argument(
        "--format",
        choices=["text", "dot", "mermaid"],
        default="text",
        help="dot / mermaid: the certificate (or broken justifications) as a drawing "
        "(with --json: {id, format, drawing})",
    )
    _paging(p)
    documented(
        p,
        examples=[
            "jtms explain mechanism --db jtms.db",
            "jtms explain mechanism --as-of 5 --format mermaid --db jtms.db",
        ],
        keys=[
            "id",
            "kind",
            "active",
            "text",
            "certificate",
            "evidence",
            "blocked_by",
            "withdrawn_by",
            "kept_out_by",
            "broken_justifications",
            "erased_by",
            "counts",
            "cursor",
        ],
        description="Why a node is active (its certificate: a derivation down to evidence) or why it is not (the audits that blocked it, the event that withdrew it, the open audits that keep it out, its broken justifications). --as-of explains it as it was then; before the node existed, it says so.",
    )
    p.set_defaults(func=run_explain)

    p = _common(
        subparsers.add_parser(
            "context", help="compile the active memory into a working context under a token budget"
        )
    )
    p.add_argument("--budget", type=integer, required=True, metavar="N")
    p.add_argument("--query", default=None)
    _as_of(p)
    documented(
        p,
        examples=["jtms context --budget 2000 --query 'malaria vaccine' --db jtms.db"],
        keys=[
            "budget",
            "tokens",
            "query",
            "claims",
            "evidence",
            "selected",
            "withdrawn",
            "omitted",
            "text",
        ],
        description="Compile the active memory into a working context of at most --budget tokens (counted as docs/memory.md says), preferring claims relevant to --query, with the recently withdrawn claims listed so an agent stops relying on them.",
    )
    p.set_defaults(func=run_context)

    p = _common(
        subparsers.add_parser(
            "state",
            help="which nodes are active and which inactive (now, or --as-of a past event)",
        )
    )
    p.add_argument("--ids", default=None, metavar="ID[,ID...]", help="only these nodes")
    _as_of(p)
    _paging(p)
    documented(
        p,
        examples=[
            "jtms state --db jtms.db",
            "jtms state --ids c1,c2 --as-of 7 --json --db jtms.db",
        ],
        keys=["active", "inactive", "counts", "cursor"],
        description="List the active and the inactive nodes, now or --as-of a past event.",
    )
    p.set_defaults(func=run_state)

    p = _common(
        subparsers.add_parser(
            "review",
            help="re-execute recorded calculations; audit the ones that disagree",
            description="Re-execute every recorded calculation of intact evidence, in worker "
            "processes under a time limit, and audit the ones whose recorded value "
            "disagrees. A recorded value is compared at its own stated precision "
            "(3.3333 matches 10/3, 41 does not match 6*7); units must agree "
            "(3*meter is not 3*second). Calculations that cannot be evaluated within "
            "the limits are reported as refused and not audited.",
            epilog="example: jtms review --dry-run --rtol 1e-6 --db memory.db",
        )
    )
    p.add_argument("--reviewer", default="jtms-review")
    p.add_argument("--dry-run", action="store_true", help="report discrepancies, audit nothing")
    p.add_argument(
        "--rtol",
        type=_tolerance,
        default=None,
        metavar="R",
        help="relative tolerance, instead of the recorded value's stated precision",
    )
    p.add_argument(
        "--atol",
        type=_tolerance,
        default=None,
        metavar="A",
        help="absolute tolerance in the recorded value's unit (with or without --rtol)",
    )
    p.add_argument("--exact", action="store_true", help="require exact equality")
    p.add_argument(
        "--time-limit",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="wall-clock limit per calculation (default 5)",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="also audit the cheapest diagnosis of the active contradictions (nogoods)",
    )
    _paging(p)
    documented(
        p,
        examples=[],
        keys=[
            "checked",
            "discrepancies",
            "refused",
            "audit_id",
            "retired",
            "tolerance",
            "time_limit_s",
            "contradictions",
            "proposed_diagnosis",
            "diagnosis_audit",
            "undiagnosable",
            "counts",
            "cursor",
        ],
    )
    p.set_defaults(func=run_review)


# --- handlers ---------------------------------------------------------------------------------


def run_init(args: argparse.Namespace) -> int:
    Memory.create(args.db).close()
    return _report(args, {"db": args.db, "created": True}, f"created an empty memory at {args.db}")


def run_upgrade(args: argparse.Namespace) -> int:
    changed = Memory.upgrade(args.db)
    return _report(
        args,
        {"db": args.db, "upgraded": changed},
        f"upgraded {args.db}" if changed else f"{args.db} is already up to date",
    )


def run_import(args: argparse.Namespace) -> int:
    imported = read_from(args, args.graph)  # read whole before the memory is opened
    if imported is not None:
        return _import_other(args, imported)
    from jtms.memory.batches import refers_outside

    with Memory.open(args.db) as memory:
        document = load_document(args.graph)
        if args.idempotency_key is not None or refers_outside(document):
            # names stored nodes (or keyed): a batch, checked whole against the memory
            change = _add_batch(memory, document, args)
        else:
            change = memory.import_graph(document, source=args.graph, author=args.author)
    payload = {
        "event_id": change.event_id,
        "nodes": change.added,
        "active": len(change.activated),
        "seconds": round(change.seconds, 4),
    }
    return _report(
        args,
        payload,
        f"imported {change.added} nodes from {args.graph} "
        f"({len(change.activated)} active) in {change.seconds:.2f} s",
    )


def _add_batch(memory: Memory, document: Any, args: argparse.Namespace) -> Any:
    """``Memory.add_batch`` of a graph document; its problems are attributed to the file."""
    if not isinstance(document, Mapping):
        raise InputError(
            "top level must be an object with 'nodes' and 'justifications'", source=args.graph
        )
    unknown = sorted(map(str, set(document) - {"nodes", "justifications", "nogoods"}))
    if unknown:
        raise InputError(
            f"unknown key(s) at the top level: {', '.join(unknown)}", source=args.graph
        )
    try:
        return memory.add_batch(
            document.get("nodes", []),
            document.get("justifications", []),
            document.get("nogoods", []),
            author=args.author,
            idempotency_key=args.idempotency_key,
        )
    except InputError as error:
        raise InputError(error.problem, source=args.graph, node=error.node) from None


def _import_other(args: argparse.Namespace, imported: "Imported") -> int:
    """``jtms import --from reasons|prov``: the graph in one transaction, then its audit."""
    with Memory.open(args.db) as memory:
        change = memory.import_graph(imported.structure, source=args.graph, author=args.author)
        audit = None
        if imported.audit:
            label = "retracted in" if imported.report.format == "reasons" else "invalidated in"
            audit = memory.audit(
                imported.audit_list(), reason=f"{label} {args.graph}", reviewer=args.author
            )
    payload = {
        "event_id": change.event_id,
        "nodes": change.added,
        "active": len(change.activated) - (len(audit.retired) if audit else 0),
        "seconds": round(change.seconds, 4),
        "audit": None
        if audit is None
        else {
            "audit_id": audit.audit_id,
            "invalidated": imported.audit_list(),
            "retired": sorted(audit.retired),
        },
        "import": imported.report.to_dict(),
        **headline_payload(imported),
    }
    if args.json:
        print_json(payload)
        return 0
    out = console()
    out.print(
        f"imported {change.added} nodes from {args.graph} ({payload['active']} active) "
        f"in {change.seconds:.2f} s"
    )
    if audit is not None:
        out.print(
            f"audit {audit.audit_id}: invalidated {len(imported.audit)}, retired {len(audit.retired)}"
        )
    for line in report_lines(imported, audit_line=False):
        print(line)
    return 0


def run_add_evidence(args: argparse.Namespace) -> int:
    with Memory.open(args.db) as memory:
        change = memory.add_evidence(
            args.id,
            text=args.text,
            author=args.author,
            expression=args.expression,
            value=args.value,
            valid_until=args.valid_until,
        )
    return _report(args, payloads.node_added(change, args.id), f"added evidence {args.id}")


def run_add_claim(args: argparse.Namespace) -> int:
    justifications = [_id_list(value, "--because") for value in args.because]
    if args.premise:
        justifications.append([])
    with Memory.open(args.db) as memory:
        change = memory.add_claim(args.id, justifications, text=args.text, author=args.author)
    payload = payloads.node_added(change, args.id)
    return _report(
        args, payload, f"added claim {args.id} ({'active' if payload['active'] else 'inactive'})"
    )


def run_audit(args: argparse.Namespace) -> int:
    roots = _id_list(args.invalidate, "--invalidate")
    check_text(args.reason, "--reason", MAX_REASON)  # a dry run refuses what the audit would
    check_text(args.reviewer, "--reviewer", MAX_REVIEWER, optional=True)
    with Memory.open(args.db) as memory:
        if args.dry_run:
            result = memory.preview(roots)
        else:
            result = memory.audit(roots, reason=args.reason, reviewer=args.reviewer)
        shown = _limit(args) if args.json else _rows(args)
        payload = payloads.audit_payload(memory, roots, result, args.dry_run, shown)
    counts = payload["counts"]
    kept = [(k["id"], k["surviving_justification"]) for k in payload["kept"]]
    if args.json:
        print_json(payload, compact=len(payload["kept"]) + len(payload["retired"]) > 1000)
        return 0
    out = console()
    label = "dry run" if args.dry_run else f"audit {result.audit_id}"
    out.print(
        f"{label}: invalidated {', '.join(sorted(result.roots))}; "
        f"retired {counts['retired']}, kept {counts['kept']} downstream "
        f"({result.seconds * 1000:.1f} ms)"
    )
    out.print(table("retired", ["id"], [[r] for r in payload["retired"]]))
    out.print(
        table(
            "kept (surviving justification)",
            ["id", "justification"],
            [[c, " AND ".join(a) or "(premise)"] for c, a in kept],
        )
    )
    note = _more(shown, counts)
    if note:
        out.print(note)
    return 0


def run_reinstate(args: argparse.Namespace) -> int:
    audit_id = parse_int(args.audit_id, "AUDIT_ID")
    with Memory.open(args.db) as memory:
        change = memory.reinstate(audit_id, reason=args.reason, reviewer=args.reviewer)
    return _report(
        args,
        payloads.reinstate_payload(audit_id, change, _limit(args)),
        f"reinstated audit {audit_id}: {len(change.activated)} node(s) active again: "
        f"{', '.join(sorted(change.activated))}",
    )


def run_history(args: argparse.Namespace) -> int:
    with _reading(args) as memory:
        shown = _limit(args) if args.json else _rows(args)
        payload = payloads.history_payload(memory, args.id, shown)
    if args.json:
        print_json(payload)
        return 0
    rows, active = payload["revisions"], payload["active"]
    note = _more(shown, {"revisions": payload["counts"]["revisions"]})
    if note:
        console().print(note)
    if payload["erased_by"] is not None:
        console().print(f"its content was erased (purge: audit {payload['erased_by']})")
    console().print(
        table(
            f"history of {args.id} ({payload['kind']}, now {'active' if active else 'inactive'})",
            ["event", "kind", "time", "status", "by", "reason"],
            [
                [r["event"], r["kind"], r["time"], r["status"], r["actor"] or "", r["reason"] or ""]
                for r in rows
            ],
        )
    )
    return 0


def run_explain(args: argparse.Namespace) -> int:
    with _reading(args) as memory:
        explanation = memory.explain(args.id)
        if args.format != "text":
            from jtms.views.drawing import FORMATS, certificate_drawing

            drawing = FORMATS[args.format](certificate_drawing(memory, args.id, cap=10**9))
            if args.json:  # --json is one JSON document on stdout: the drawing is its value
                print_json({"id": args.id, "format": args.format, "drawing": drawing})
            else:
                print(drawing, end="")
            return 0
    if args.json:
        with _reading(args) as memory:
            print_json(payloads.explain_payload(memory, args.id, _limit(args)))
        return 0
    out = console()
    e = explanation
    if e.active:
        out.print(
            f"{e.id} ({e.kind}) is active"
            + (f", resting on evidence {', '.join(e.evidence)}" if e.kind == "claim" else "")
        )
        steps = [
            f"  {step.claim} <- {' AND '.join(step.antecedents) or '(premise)'}"
            for step in e.certificate
        ]
        shown = _rows(args)
        if shown is not None and len(steps) > shown:  # the ends: nearest the evidence, the node
            hidden = len(steps) - shown
            note = f"  ... {hidden} more of {len(steps)} steps (--all shows all, --json lists all)"
            steps = [*steps[: shown // 2], note, *steps[shown // 2 + hidden :]]
        for line in steps:
            out.print(line)
    else:
        out.print(f"{e.id} ({e.kind}) is inactive")
        if e.erased_by is not None:
            out.print(f"  its content was erased (purge: audit {e.erased_by})")
        if e.blocked_by:
            out.print(f"  invalidated by audit(s) {', '.join(map(str, e.blocked_by))}")
        if e.withdrawn_by is not None:
            out.print(f"  withdrawn by event {e.withdrawn_by}")
        if e.kept_out_by:
            out.print(f"  kept out now by audit(s) {', '.join(map(str, e.kept_out_by))}")
        for ants, inactive in e.broken:
            out.print(
                f"  {e.id} <- {' AND '.join(ants) or '(premise)'}: broken by {', '.join(inactive)}"
            )
        if e.kind == "claim" and not e.broken:
            out.print("  it has no justification")
    return 0


def run_context(args: argparse.Namespace) -> int:
    if args.budget < 0:
        raise InputError(f"--budget must be >= 0, got {args.budget}")
    from jtms.memory.context import render_text

    with _reading(args) as memory:
        compiled = memory.context(args.budget, args.query)
    if args.json:
        print_json(compiled.as_dict())
    else:
        print(render_text(compiled))
    return 0


def run_state(args: argparse.Namespace) -> int:
    ids = _id_list(args.ids, "--ids") if args.ids is not None else None
    with _reading(args) as memory:
        shown = _limit(args) if args.json else _rows(args)
        payload = payloads.state_payload(memory, ids, shown)
    if args.json:
        print_json(payload, compact=len(payload["active"]) + len(payload["inactive"]) > 1000)
        return 0
    out = console()
    counts = payload["counts"]
    when = f" as of event {memory.as_of_event}" if memory.as_of_event is not None else ""
    out.print(f"{counts['active']} active, {counts['inactive']} inactive{when}")
    rows = [[i, "active"] for i in payload["active"]] + [
        [i, "inactive"] for i in payload["inactive"]
    ]
    out.print(table("state", ["id", "status"], rows[:shown] if shown is not None else rows))
    note = _more(shown, counts)
    if note:
        out.print(note)
    return 0


def run_review(args: argparse.Namespace) -> int:
    from jtms.calc.quantities import Tolerance
    from jtms.calc.reviewer import review
    from jtms.calc.sandbox import DEFAULT_TIME_LIMIT
    from jtms.memory.contradictions import review_contradictions

    explicit = args.rtol is not None or args.atol is not None
    if args.exact and explicit:
        raise InputError("--exact excludes --rtol and --atol")
    if args.apply and args.dry_run:
        raise InputError("--apply audits a diagnosis, --dry-run audits nothing: give one of them")
    tolerance = (
        Tolerance("exact")
        if args.exact
        else Tolerance("explicit", args.rtol or 0.0, args.atol or 0.0)
        if explicit
        else Tolerance()
    )
    with Memory.open(args.db) as memory:
        report = review(
            memory,
            reviewer=args.reviewer,
            dry_run=args.dry_run,
            tolerance=tolerance,
            time_limit=args.time_limit or DEFAULT_TIME_LIMIT,
        )
        found = review_contradictions(memory, apply=args.apply, reviewer=args.reviewer)
    if args.json:
        print_json(payloads.review_payload(report, found, _limit(args)))
    else:
        out = console()
        mode = {
            "stated": "at each recorded value's stated precision",
            "exact": "exactly",
            "explicit": f"within rtol {tolerance.rtol:g}, atol {tolerance.atol:g}",
        }
        out.print(
            f"re-executed {report.checked} calculation(s) {mode[tolerance.mode]}: "
            f"{len(report.discrepancies)} discrepancy(ies), {len(report.refused)} refused"
        )
        columns = ["evidence", "expression", "recorded", "recomputed", "problem"]
        out.print(
            table(
                "discrepancies",
                columns,
                [
                    [d.id, d.expression, d.recorded, d.recomputed or "", d.problem]
                    for d in report.discrepancies
                ],
            )
        )
        if report.refused:
            out.print(
                table(
                    "refused (not evaluated, not audited)",
                    ["evidence", "expression", "reason"],
                    [[d.id, d.expression, d.problem] for d in report.refused],
                )
            )
        if report.audit is not None:
            out.print(
                f"audit {report.audit.audit_id}: retired {', '.join(sorted(report.audit.retired))}"
            )
        _print_contradictions(found)
    return 0


def _print_contradictions(found: "ContradictionReview") -> None:
    """The contradictions part of ``jtms review`` (see :mod:`jtms.memory.contradictions`)."""
    out = console()
    active = found.report.active
    if not active:
        return
    out.print(
        f"{len(active)} active contradiction(s): "
        + ", ".join(f"{c.nogood.id} {{{', '.join(sorted(c.nogood.nodes))}}}" for c in active)
    )
    for c in found.report.undiagnosable:
        out.print(f"  {c.nogood.id}: no diagnosis over evidence (its nodes hold without evidence)")
    if found.report.diagnoses:
        d = found.report.diagnoses[0]
        out.print(
            f"cheapest diagnosis: invalidate {', '.join(sorted(d.invalidate))} "
            f"(retires {d.retired_claims} claim(s): {', '.join(sorted(d.retires))})"
        )
    if found.applied is not None:
        a = found.applied.audit
        out.print(f"audit {a.audit_id}: retired {', '.join(sorted(a.retired))}")
    elif found.report.diagnoses:
        out.print("run `jtms review --apply` (or `jtms diagnose --db ... --apply 1`) to audit it")


ORDER = 20  # position of these commands in `jtms --help`
