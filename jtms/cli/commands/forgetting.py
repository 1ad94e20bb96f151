"""Finding and forgetting: ``jtms search`` (ranked full-text search of a memory), ``jtms
purge`` (erase a node's content for an erasure request, retiring it as an audit does) and
``jtms drop`` (remove a whole memory). docs/memory.md describes them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from jtms.cli.arguments import at_least, db_option, documented
from jtms.cli.output import console, print_json, table
from jtms.memory.limits import MAX_REASON, MAX_REVIEWER, MAX_SEARCH_LIMIT, check_text
from jtms.memory.memory import Memory
from jtms.memory.search import DEFAULT_SEARCH_LIMIT
from jtms.views import payloads
from theory.model.errors import InputError

ORDER = 20  # beside the memory commands in `jtms --help`


def _common(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    db_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def register(subparsers: Any) -> None:
    p = _common(
        subparsers.add_parser(
            "search",
            help="find nodes by words of their ids and texts, ranked by the database's full-text search",
        )
    )
    documented(
        p,
        examples=[
            "jtms search 'malaria vaccine' --db jtms.db --limit 5 --json",
            "jtms search vaccine --all --db jtms.db",
        ],
        keys=["query", "active_only", "hits", "counts", "event", "cursor"],
        description="Rank the nodes whose id or text holds every word of QUERY (a word of the "
        "same stem, or one it begins: 'vaccine' finds 'vaccines'), by the database's own "
        "full-text engine (SQLite FTS5 with BM25, PostgreSQL text search with ts_rank). Active "
        "nodes only, unless --all. Each hit has its status and, for an active claim, its "
        "current certificate; pass `cursor` to --cursor (same QUERY and --all) for the next "
        "page, read as of the same event.",
    )
    p.add_argument("query", metavar="QUERY")
    status = p.add_mutually_exclusive_group()
    status.add_argument("--all", action="store_true", help="inactive nodes too (with their status)")
    status.add_argument(
        "--active-only", action="store_true", help="active nodes only (the default)"
    )
    p.add_argument(
        "--limit",
        type=at_least(1),
        default=DEFAULT_SEARCH_LIMIT,
        metavar="N",
        help=f"at most N hits (default {DEFAULT_SEARCH_LIMIT}, at most {MAX_SEARCH_LIMIT})",
    )
    p.add_argument(
        "--cursor", default=None, metavar="CURSOR", help="the `cursor` of the previous page"
    )
    p.set_defaults(func=run_search)

    p = _common(
        subparsers.add_parser(
            "purge",
            help="erase a node's content (an erasure request) and retire it as an audit does",
        )
    )
    documented(
        p,
        examples=["jtms purge obs17 --reason 'erasure request #42' --reviewer dpo --db jtms.db"],
        keys=[
            "purged",
            "scrubbed",
            "audit_id",
            "dry_run",
            "audit",
            "retired",
            "kept",
            "seconds",
            "counts",
            "cursor",
        ],
        description="Erase the text, source, expression and value of node ID from the memory "
        "and its history, and retire it as an audit does (what loses all support is withdrawn "
        "exactly). The erasure record keeps who (--reviewer), when and why (--reason), never "
        "the content; the audit cannot be reinstated. The database's files are then scrubbed "
        "of old copies.",
    )
    p.add_argument("id", metavar="ID")
    p.add_argument("--reason", required=True, help="why, for the record (an erasure request)")
    p.add_argument("--reviewer", default=None, help="who decided the erasure")
    p.set_defaults(func=run_purge)

    p = _common(
        subparsers.add_parser(
            "drop",
            help="remove a whole memory (SQLite file and its WAL, or a PostgreSQL schema)",
        )
    )
    documented(
        p,
        examples=[
            "jtms drop --db old.db --yes",
            "jtms drop --db 'postgresql://postgres@127.0.0.1:5432/test?memory=agent1' --yes",
        ],
        keys=["db", "dropped", "files"],
        description="Remove the whole memory at --db for good: an SQLite file with its -wal, "
        "-shm and -journal files, or a PostgreSQL memory's schema. It asks for confirmation "
        "on the terminal unless --yes; without a terminal to ask on, it refuses. Anything "
        "that is not a jtms memory is refused and left alone.",
    )
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=run_drop)


def run_search(args: argparse.Namespace) -> int:
    if args.limit > MAX_SEARCH_LIMIT:
        raise InputError(f"--limit must be at most {MAX_SEARCH_LIMIT}, got {args.limit}")
    with Memory.open(args.db) as memory:
        page = memory.search(
            args.query, active_only=not args.all, limit=args.limit, cursor=args.cursor
        )
    payload = payloads.search_payload(page)
    if args.json:
        print_json(payload)
        return 0
    out = console()
    out.print(
        f"{payload['counts']['hits']} hit(s) for {args.query!r} "
        f"({'active nodes' if page.active_only else 'every node'}, as of event {page.event})"
    )
    rows = []
    for hit in payload["hits"]:
        why = (
            "; ".join(
                f"{s['claim']} <- {' and '.join(s['antecedents']) or 'premise'}"
                for s in hit["certificate"]
            )
            if hit["certificate"]
            else ""
        )
        text = "(content erased)" if hit["erased_by"] is not None else hit["text"]
        rows.append([hit["id"], hit["kind"], hit["status"], f"{hit['score']:.4g}", text, why])
    out.print(table("hits", ["id", "kind", "status", "score", "text", "certificate"], rows))
    if payload["cursor"]:
        out.print(f"next page: --cursor {payload['cursor']}")
    return 0


def run_purge(args: argparse.Namespace) -> int:
    check_text(args.reason, "--reason", MAX_REASON)
    check_text(args.reviewer, "--reviewer", MAX_REVIEWER, optional=True)
    with Memory.open(args.db) as memory:
        result = memory.purge(args.id, reason=args.reason, reviewer=args.reviewer)
        payload = payloads.purge_payload(memory, result)
    if args.json:
        print_json(payload)
        return 0
    out = console()
    out.print(
        f"purged {result.id} (audit {result.audit.audit_id}): content erased; retired "
        f"{payload['counts']['retired']}, kept {payload['counts']['kept']} downstream"
        + ("" if result.scrubbed else "; old copies remain until another reader lets go")
    )
    out.print(table("retired", ["id"], [[r] for r in payload["retired"]]))
    return 0


def run_drop(args: argparse.Namespace) -> int:
    from jtms.store import drop_store, open_store

    if not args.yes:
        if sys.stdin is None or not sys.stdin.isatty():
            raise InputError(
                "drop: no terminal to confirm on (pass --yes to remove the memory without "
                "asking); nothing removed",
                source=args.db,
            )
        open_store(args.db).close()  # refuse what is not a memory before asking
        print(
            f"Remove the memory at {args.db} and its whole history for good? [y/N] ",
            end="",
            file=sys.stderr,
            flush=True,
        )
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            raise InputError("drop: not confirmed; nothing removed", source=args.db)
    files = drop_store(args.db)
    payload = {"db": args.db, "dropped": True, "files": list(files)}
    if args.json:
        print_json(payload)
    else:
        console().print(f"dropped the memory at {args.db}")
    return 0
