"""Whole memories: ``jtms memories`` (list the memories of a database), ``jtms export`` (a
memory as JSON Lines) and ``jtms import-memory`` (that file into a new memory, any backend).
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from jtms.cli.arguments import db_option, documented
from jtms.cli.output import console, print_json, table
from jtms.cli.output_file import STDOUT, check_output, open_output
from jtms.store import database_files

ORDER = 21  # right after the memory commands in `jtms --help`


def _location(parser: argparse.ArgumentParser) -> None:
    db_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "memories",
        help="list the memories of a PostgreSQL database (or the one in a file)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="List the memories stored in one database, with their size and last write.\n\n"
        "example:\n  jtms memories --db postgresql://postgres@127.0.0.1:5432/test\n"
        "  jtms init --db 'postgresql://postgres@127.0.0.1:5432/test?memory=lab'",
    )
    _location(p)
    documented(p, examples=[], keys=["database", "memories"])
    p.set_defaults(func=run_memories)

    p = subparsers.add_parser(
        "export",
        help="write a whole memory (every event, node and revision) as JSON Lines",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write the memory's whole history as JSON Lines (docs/postgres.md): every "
        "event in order with\nthe rows it wrote. `jtms import-memory` reads it back "
        "into a new memory on any backend.\n\n"
        "example:\n  jtms export --db jtms.db > m.jsonl\n"
        "  jtms import-memory m.jsonl --db 'postgresql://ana@db:5432/team?memory=lab'",
    )
    _location(p)
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="write to FILE instead of standard output (atomically for a regular "
        "file; a FIFO, a device or - is written through, never replaced)",
    )
    p.add_argument(
        "--format",
        choices=["jsonl", "dot", "mermaid", "reasons", "prov"],
        default="jsonl",
        help="jsonl: the lossless history (default); dot / mermaid: a drawing of the "
        "whole graph for documents (not re-importable); reasons / prov: the graph and "
        "the audits in force as an ftl-reasons network (its export JSON) or PROV-JSON, "
        "read back by `jtms import --from reasons|prov` (docs/importing.md)",
    )
    documented(
        p,
        examples=[],
        keys=[
            "db",
            "output",
            "events",
            "nodes",
            "justifications",
            "revisions",
            "supports",
            "nogoods",
            "nogood_revisions",
        ],
    )
    p.set_defaults(func=run_export)

    p = subparsers.add_parser(
        "import-memory",
        help="create a memory from a `jtms export` file (lossless)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Create a new memory at --db holding exactly the exported memory: same event "
        "ids and times,\nsame history, explanations and active state. The target "
        "must not exist yet.\n\n"
        "example:\n  jtms export --db jtms.db > m.jsonl\n"
        "  jtms import-memory m.jsonl --db 'postgresql://ana@db:5432/team?memory=lab'",
    )
    p.add_argument("file", metavar="FILE", help="a file written by `jtms export`")
    _location(p)
    documented(
        p,
        examples=[],
        keys=[
            "db",
            "file",
            "events",
            "nodes",
            "justifications",
            "revisions",
            "supports",
            "nogoods",
            "nogood_revisions",
        ],
    )
    p.set_defaults(func=run_import_memory)


def run_memories(args: argparse.Namespace) -> int:
    from jtms.store import POSTGRES_PREFIXES

    location = args.db
    if location.startswith(POSTGRES_PREFIXES):
        from jtms.store.postgres import list_memories, parse_location

        database = parse_location(location).database
        memories = [
            {
                "name": m.name,
                "location": m.location,
                "events": m.events,
                "nodes": m.nodes,
                "last_write": m.last_write,
            }
            for m in list_memories(location)
        ]
    else:
        from jtms.memory.memory import Memory

        database = location
        with Memory.open(location) as memory, memory.snapshot():
            events = memory.table("events")
            nodes = len(memory.table("nodes"))
        memories = [
            {
                "name": "default",
                "location": location,
                "events": len(events),
                "nodes": nodes,
                "last_write": events[-1]["time"] if events else None,
            }
        ]
    if args.json:
        print_json({"database": database, "memories": memories})
        return 0
    console().print(
        table(
            f"memories in {database}",
            ["name", "events", "nodes", "last write", "location"],
            [
                [m["name"], m["events"], m["nodes"], m["last_write"] or "", m["location"]]
                for m in memories
            ],
        )
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    from jtms.memory.jsonl import Summary, export_memory

    location = args.db
    write = export_memory
    if args.format in ("reasons", "prov"):  # another tool's format (jtms/interchange/)
        from jtms.interchange.exporting import export_interchange

        def write(location: str, out: IO[str]) -> Summary:
            return export_interchange(location, args.format, out)
    elif args.format != "jsonl":  # a drawing of the whole graph (jtms/views/drawing.py)
        from jtms.views.drawing import export_drawing

        def write(location: str, out: IO[str]) -> Summary:
            return Summary({"nodes": export_drawing(location, args.format, out)}, location)

    if args.output is None or args.output == STDOUT:
        with open_output(STDOUT, "--output", what="the export") as out:
            write(location, out)
        return 0
    # before any work; never over the memory's own files
    keep = database_files(location)
    check_output(args.output, "--output", "the export", keep)
    with open_output(args.output, "--output", what="the export", keep=keep) as out:
        summary = write(location, out)
    if args.json:
        print_json({**summary.as_dict(), "output": args.output})
    else:
        what = (
            f"{summary.counts.get('events', 0)} events and"
            if args.format == "jsonl"
            else f"the graph ({summary.counts.get('audits', 0)} audit(s) in force) and"
        )
        console().print(f"exported {what} {summary.counts.get('nodes', 0)} nodes to {args.output}")
    return 0


def run_import_memory(args: argparse.Namespace) -> int:
    from jtms.memory.jsonl import import_memory

    location = args.db
    progress = (
        (lambda step: print(f"jtms import-memory: {step}", file=sys.stderr))
        if sys.stderr.isatty()
        else None
    )
    summary = import_memory(args.file, location, progress)
    if args.json:
        print_json({**summary.as_dict(), "file": args.file})
    else:
        console().print(
            f"imported {summary.counts['events']} events and "
            f"{summary.counts['nodes']} nodes from {args.file} into {summary.location}"
        )
    return 0
