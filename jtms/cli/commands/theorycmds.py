"""`jtms supports`, `jtms revise`, `jtms check`: the theory core on a graph file."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from itertools import islice
from typing import Any

from jtms.cli.arguments import at_least, db_option, documented, id_list
from jtms.cli.exit_codes import ExitCode
from jtms.cli.output import console, format_set, print_json, print_json_stream, sorted_sets, table
from jtms.cli.progress import progress_bar
from jtms.cli.provenance import PROVENANCE_KEY, add_manifest_argument, provenance
from jtms.cli.sources import (
    add_source_arguments,
    headline_payload,
    load_graph_document,
    load_graph_file,
    print_import_report,
    read_from,
)
from jtms.interchange import Imported
from theory.io.graphfile import paused_gc
from theory.model.errors import InputError
from theory.model.index import IndexView, index_of
from theory.model.structure import SupportStructure
from theory.safety.check import (
    AUDITS,
    RELEVANCE_CONFLICTS,
    SafetyCounts,
    SafetyReport,
    SafetySummary,
    claim_numbers,
    count_verdicts,
    stream_check,
    summarize_structure,
)
from theory.safety.counting import (
    COUNTING_CONFLICTS,
    CountingTally,
    CountingVerdict,
    counting_tally,
    counting_verdicts,
)
from theory.semantics.fixpoint import base_active
from theory.semantics.revision import RULES, revise, revise_in_force
from theory.solver.justifications import minimal_justifications

SHOWN = 50
"""Minimal justifications the table of ``jtms supports`` shows without ``--all``."""


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    formatter = argparse.RawDescriptionHelpFormatter

    supports = subparsers.add_parser(
        "supports",
        help="list the minimal justifications of a claim",
        formatter_class=formatter,
        description=(
            "List the minimal justifications of CLAIM: the minimal sets of evidence that\n"
            "make it active (its ATMS label), enumerated by SAT. Support loops never count\n"
            "as a justification.\n\n"
            "examples:\n  jtms supports examples/or_world.json --claim claim --json\n"
            "  jtms supports tc.lp --from datalog --claim 'path(1,3)'"
        ),
    )
    supports.add_argument(
        "graph", metavar="GRAPH", help="graph file (docs/design.md section 4 format)"
    )
    supports.add_argument("--claim", required=True, metavar="ID", help="the claim to explain")
    supports.add_argument(
        "--limit", type=at_least(1), default=None, metavar="N", help="stop after N justifications"
    )
    supports.add_argument(
        "--all",
        action="store_true",
        help=f"the table shows every justification (default: the first {SHOWN}, and a line "
        "saying that more exist; --json lists every one)",
    )
    supports.add_argument(
        "--formula", action="store_true", help="also print the support formula (sympy DNF)"
    )
    supports.add_argument("--json", action="store_true", help="machine output")
    documented(supports, examples=[], keys=["claim", "minimal_justifications"])
    add_source_arguments(supports)  # --from: the source's graph (its audit does not apply)
    supports.set_defaults(func=run_supports)

    revise_parser = subparsers.add_parser(
        "revise",
        help="apply a revision rule to an audit",
        formatter_class=formatter,
        description=(
            "Invalidate the audited nodes and report what each rule retires.\n\n"
            "  exact      retire exactly the claims left with no intact justification\n"
            "  influence  retire everything downstream of the audit (over-revision)\n"
            "  none       retire only the audited nodes (under-revision)\n"
            "  counting   Datalog's Counting: a support loop whose outside support is gone\n"
            "             keeps itself (under-revision on loops)\n"
            "  MODULE:FUNCTION  your own rule, loaded as `jtms fuzz --rule` loads it\n\n"
            "examples:\n  jtms revise examples/or_world.json --audit a --rule exact\n"
            "  jtms revise ce.json --rule myrules:my_rule   # replay `jtms fuzz --out ce.json`\n"
            "  jtms revise tc.lp --from datalog --audit 'edge(1,2),edge(2,3)' --rule counting\n"
            "    (a comma inside parentheses does not separate ids: path(1,2) is one id)"
        ),
    )
    revise_parser.add_argument("graph", metavar="GRAPH", help="graph file")
    revise_parser.add_argument(
        "--audit",
        type=id_list,
        metavar="ID[,ID...]",
        help="node ids to invalidate (evidence or claims); default: the audit the file "
        "records under 'counterexample' (what `jtms fuzz --out` writes)",
    )
    revise_parser.add_argument(
        "--rule",
        default="exact",
        metavar="RULE",
        help=f"revision rule: {', '.join(sorted(RULES))} or MODULE:FUNCTION (default exact)",
    )
    revise_parser.add_argument("--json", action="store_true", help="machine output")
    add_source_arguments(revise_parser)  # --from: the audit revises the source after its own audit
    documented(revise_parser, examples=[], keys=["rule", "audit", "retired", "active"])
    revise_parser.set_defaults(func=run_revise)

    check = subparsers.add_parser(
        "check",
        help="check which claims are influence-safe (exit 1 if any is not)",
        formatter_class=formatter,
        description=(
            "A claim is influence-safe when retiring everything downstream of an audit\n"
            "(influence: reachability along antecedent -> claim edges) agrees with exact\n"
            "revision on it for every audit of evidence. For a graph (loops allowed), an\n"
            "active claim is influence-safe iff it has a unique minimal justification S and\n"
            "its evidence ancestors are exactly S (Coq graph_influence_safe); inactive claims\n"
            "are trivially safe. A unique minimal justification alone is not enough:\n"
            "c <- a; c <- a,b is unsafe (auditing b retires c by reachability).\n"
            "--audits claims|all judges audits of claims, or of evidence and claims: an\n"
            "active claim c is safe for them iff exact revision of {x} retires c for every\n"
            "audited-kind x that is c or an ancestor of c (Coq graph_audit_safe); safe for\n"
            "all iff safe for evidence and for claims (Coq graph_audit_safe_union).\n"
            "Each unsafe claim gets its violations: a one-item witness audit {x} that\n"
            "influence would retire it for, and the justification that survives (with\n"
            "--audits claims|all: a minimal set of audited-kind nodes that still derives it).\n"
            "Kinds:\n"
            "  alternative_support  x is in one minimal justification, another survives\n"
            "  redundant_influence  x reaches the claim only through a redundant justification\n"
            "  undecided            its relevance query ran out of --relevance-budget (the\n"
            "                       violation and its survivor are exact; kinds_complete false)\n\n"
            "  loop_influence       e reaches the claim only through support loops\n"
            "Counting (Datalog's Counting: retire a claim when none of its justifications\n"
            "keeps all its antecedents, repeatedly) is checked too: an active claim c is\n"
            "counting-safe iff no audit R and set L of claims exist with c in L, every\n"
            "member of L active before R, not in R, retired by exact revision of R, and\n"
            "with a justification whose antecedents each lie in L or stay active (Theorem\n"
            "2); a claim none of whose active ancestors lies on a support loop is safe. Per\n"
            "claim: counting_safe (null when --time-limit or --counting-budget left it\n"
            "undecided) and counting_witness ({audit, loop, kept}: counting keeps the\n"
            "claim after the audit, exact retires it; loop in cycle order, each member\n"
            "justified by the next; or null). --summary counts them (counting_safe per\n"
            "claim, counting_unsafe and counting_undecided in summary), with no witness.\n"
            "--audits applies to both. The exit code is the influence verdict's.\n"
            "A run over a second shows its progress on stderr (on a terminal).\n\n"
            "Exit code 0 when every claim is influence-safe, 1 otherwise, 2 on bad input.\n\n"
            "examples:\n  jtms check examples/and_world.json && jtms check examples/or_world.json --json\n"
            "  jtms check big.json --json --time-limit 60   # every verdict, kinds as time allows\n"
            "  jtms check --db jtms.db      # the stored memory, as it stands after its audits\n"
            "  jtms check examples/or_world.json --audits claims --json\n"
            "  jtms check examples/counting_loop.json   # counting-unsafe: audit e, loop c, m"
        ),
    )
    check.add_argument("graph", metavar="GRAPH", nargs="?", help="graph file (or use --db)")
    db_option(
        check,
        instead_of_file=True,
        help="check a stored memory (as it stands after its audits) instead of a file",
    )
    check.add_argument(
        "--claim", type=id_list, metavar="ID[,ID...]", help="check only these claims"
    )
    check.add_argument(
        "--max-listed",
        "--max-justifications",
        dest="max_listed",
        type=at_least(0),
        default=64,
        metavar="N",
        help="list at most N minimal justifications per unsafe claim "
        "(default 64; 0 = all; --max-justifications is its old name)",
    )
    check.add_argument(
        "--relevance-budget",
        type=at_least(0),
        default=RELEVANCE_CONFLICTS,
        metavar="CONFLICTS",
        help="solver conflicts the relevance queries of one unsafe claim may spend together "
        f"(default {RELEVANCE_CONFLICTS}; 0 = no limit): deciding a kind is NP-hard, and on "
        "memories with support loops of hundreds of claims a query can take minutes; past "
        "the budget the kind is 'undecided'",
    )
    check.add_argument(
        "--time-limit",
        type=positive_seconds,
        default=None,
        metavar="SECONDS",
        help="bound the whole check: every verdict is given, but once 85%% of SECONDS have "
        "passed (the rest writes the report) the unsafe claims left get their witness audits "
        "only, of kind 'undecided' (with --json: complete false, undecided_claims, and "
        "kinds_complete false per claim)",
    )
    check.add_argument(
        "--summary",
        action="store_true",
        help="verdicts only, no certificates: per claim the number of witness audits and the "
        "first few (with --json: violation_count, violations_complete; fastest on large graphs)",
    )
    check.add_argument(
        "--audits",
        choices=AUDITS,
        default="evidence",
        help="judge safety over audits of evidence (default: Theorem 1), of claims, or of "
        "both (all); witnesses and justifications are then sets of those nodes",
    )
    check.add_argument(
        "--counting-budget",
        type=at_least(0),
        default=COUNTING_CONFLICTS,
        metavar="CONFLICTS",
        help="solver conflicts the counting queries of one region (claims behind support "
        f"loops sharing their ancestors) may spend together (default {COUNTING_CONFLICTS}; "
        "0 = no limit): the claims left open past it are counting-undecided (null)",
    )
    check.add_argument("--json", action="store_true", help="machine output")
    add_manifest_argument(check)
    add_source_arguments(check)  # --from reasons|prov: checked as it stands after its audit
    documented(
        check,
        examples=[],
        keys=[
            "influence_safe",
            "counting_safe",
            "claims",
            "counts",
            "cursor",
            "seconds",
            "provenance",
        ],
    )
    check.set_defaults(func=run_check)


def run_supports(args: argparse.Namespace) -> int:
    imported = read_from(args, args.graph)
    structure = load_graph_file(args.graph) if imported is None else imported.structure
    try:
        claim = structure.require_claim(args.claim)
    except InputError as error:
        raise error.with_source(args.graph) from None
    # a table for a person stops at SHOWN rows, and the enumeration one set past them: a
    # claim can have tens of thousands, which took minutes to list and to draw
    shown = args.limit is None and not args.all and not args.json
    limit = SHOWN + 1 if shown else args.limit
    found = minimal_justifications(structure, claim, limit=limit)
    payload: dict[str, Any] = {"claim": claim, "minimal_justifications": sorted_sets(found)}
    if args.formula:
        payload["formula"] = support_formula(structure, claim)
    if args.json:
        print_json(payload)
        return ExitCode.OK
    out = console()
    listed = payload["minimal_justifications"]
    more = shown and len(listed) > SHOWN
    rows = [
        (i + 1, format_set(s), len(s)) for i, s in enumerate(listed[:SHOWN] if more else listed)
    ]
    out.print(table(f"Minimal justifications of {claim}", ["#", "evidence", "size"], rows))
    if more:
        out.print(
            f"... and more: {claim} has over {SHOWN} minimal justifications (--all shows "
            "every one, --json lists every one, --limit N stops after N)"
        )
    if not rows:
        out.print(never_active_reason(structure, claim))
    if args.formula:
        out.print(f"f_{claim} = {payload['formula']}")
    return ExitCode.OK


def support_formula(structure: SupportStructure, claim: str) -> str:
    """The support function of ``claim`` as a sympy DNF over evidence ids (``False`` when no
    set of evidence makes it active), as ``supports --formula`` prints it and its JSON keeps."""
    import sympy

    from theory.solver.formula import compile_support, to_sympy

    compiled = compile_support(structure, [claim])
    expression = to_sympy(compiled.circuit, compiled.roots[claim])
    return str(sympy.simplify_logic(expression, form="dnf"))


def never_active_reason(structure: SupportStructure, claim: str) -> str:
    """What is true of a claim with no minimal justification: it has no justification at
    all, or it has some and none of them can ever hold (no set of evidence makes all the
    antecedents of one active; a support loop does not count)."""
    recorded = len(structure.justifications_of.get(claim, ()))
    if recorded == 0:
        return f"{claim} has no justification: it is never active."
    which = (
        "its one justification can never hold"
        if recorded == 1
        else f"none of its {recorded} justifications can ever hold"
    )
    return (
        f"{claim} is never active: {which} (no set of evidence makes all its antecedents "
        "active; a support loop does not count)."
    )


def run_revise(args: argparse.Namespace) -> int:
    from jtms.fuzz.plugins import load_rule

    try:
        name, function = load_rule(args.rule)
    except InputError as error:
        raise error.with_source("--rule") from None
    rule: Any = args.rule if args.rule in RULES else _named(function, name)
    imported = read_from(args, args.graph)
    document: Any = None
    if imported is None:
        document, structure = load_graph_document(args.graph)  # read once, audit included
    else:
        structure = imported.structure
    if args.audit is None:
        args.audit = _recorded_audit(args.graph, document, structure)
    try:
        if imported is not None and imported.audit:  # after the audit the source has in force
            result = revise_in_force(structure, imported.audit, args.audit, rule)
        else:
            result = revise(structure, args.audit, rule)
    except InputError as error:
        raise error.with_source(args.graph) from None
    payload = result.to_dict()
    if imported is not None:
        payload.update(headline_payload(imported))
        payload["import"] = {**imported.report.to_dict(), "audit": imported.audit_list()}
    if args.json:
        print_json(payload)
        return ExitCode.OK
    out = console()
    out.print(f"rule {result.rule}, audit {format_set(result.audit)}")
    rows = [(node, structure.kind(node).value, "retired") for node in payload["retired"]]
    rows += [(node, structure.kind(node).value, "active") for node in payload["active"]]
    if imported is not None:
        rows += [
            (node, structure.kind(node).value, "audited in the source")
            for node in imported.audit_list()
            if node not in result.audit
        ]
    out.print(table("State after the audit", ["node", "kind", "status"], rows))
    if imported is not None:
        print_import_report(imported)
    return ExitCode.OK


def _named(function: Any, name: str) -> Any:
    """``function`` reported under ``name`` (``MODULE:FUNCTION``) by :func:`revise`."""

    def rule(structure: SupportStructure, audit: frozenset[str]) -> Any:
        try:
            return function(structure, audit)
        except Exception as error:  # a user's rule that fails: one line, exit 2
            raise InputError(
                f"rule {name} raised {error.__class__.__name__}: {str(error)[:200]}"
            ) from None

    rule.__name__ = name
    return rule


def _recorded_audit(path: str, document: Any, structure: SupportStructure) -> list[str]:
    """The audit a graph file records (``jtms fuzz --out``), for ``revise`` without
    ``--audit``: read from the ``document`` already loaded (None: another tool's file,
    which records none)."""
    from theory.io.graphfile import recorded_audit

    audit = None if document is None else recorded_audit(document, structure)
    if audit is None:
        raise InputError(
            f"{path}: give --audit ID[,ID...] (the file records no counterexample audit)"
        )
    return sorted(audit)


def report_payload(report: SafetyReport) -> dict[str, Any]:
    """The ``jtms check --json`` payload (kept for callers; it is :meth:`SafetyReport.to_dict`)."""
    return report.to_dict()


REPORT_SETS = 3  # minimal justifications shown per claim by `jtms check` without --json


def _print_first(title: str, columns: list[str], rows: list[Any], what: str) -> None:
    """A table of the first :data:`SUMMARY_ROWS` rows (none when there are no rows), and a
    line counting the rest."""
    if not rows:
        return
    out = console()
    out.print(table(title, columns, rows[:SUMMARY_ROWS]))
    if len(rows) > SUMMARY_ROWS:
        out.print(f"... and {len(rows) - SUMMARY_ROWS} more {what} (--json lists them all)")


def print_report(
    report: SafetyReport, title: str, counting: dict[str, CountingVerdict] | None = None
) -> None:
    """The tables for people: per claim its state, verdicts (influence, and counting when
    given) and first minimal justifications (their number when there are more), then the
    first violations and counting witnesses; ``--json`` has them all."""
    out = console()
    claims = sorted(report.claims, key=lambda c: c.id)
    rows: list[tuple[str, ...]] = []
    for claim in claims:
        word = () if counting is None else (_counting_word(counting[claim.id].safe),)
        if not claim.active:
            rows.append((claim.id, "inactive", "safe", *word, "-"))
            continue
        found = sorted_sets(claim.minimal_justifications)
        listed = ", ".join(format_set(s) for s in found[:REPORT_SETS])
        if len(found) > REPORT_SETS:
            more = "" if claim.minimal_justifications_complete else "+"
            listed += f", ... ({len(found)}{more} in all)"
        elif not claim.minimal_justifications_complete:
            listed = listed + ", ..." if listed else "(not computed: --summary)"
        verdict = "safe" if claim.influence_safe else "UNSAFE"
        rows.append((claim.id, "active", verdict, *word, listed))
    columns = ["claim", "state", "influence", *(() if counting is None else ("counting",))]
    out.print(table(title, [*columns, "minimal justifications"], rows))
    violations = [
        (
            claim.id,
            v.kind or "unsafe",
            format_set(v.audit),
            "-" if v.surviving_justification is None else format_set(v.surviving_justification),
        )
        for claim in claims
        for v in claim.violations
    ]
    _print_first(
        "Violations (influence retires the claim, exact keeps it)",
        ["claim", "kind", "witness audit", "surviving justification"],
        violations,
        "violation(s)",
    )
    witnessed = [
        (
            claim,
            format_set(v.witness.audit),
            " <- ".join((*v.witness.loop, v.witness.loop[0])),
            len(v.witness.kept),
        )
        for claim, v in sorted((counting or {}).items())
        if v.witness is not None
    ]
    _print_first(
        "Counting witnesses (counting keeps the claim after the audit, exact retires it)",
        ["claim", "witness audit", "loop (each justified by the next)", "kept"],
        witnessed,
        "counting-unsafe claim(s)",
    )
    unsafe = len(report.unsafe)
    verdict = (
        "influence-safe"
        if report.influence_safe
        else f"NOT influence-safe: {unsafe} unsafe claim(s)"
    )
    if counting is not None:
        verdict += "; " + _counting_line(
            sum(1 for v in counting.values() if v.safe is False),
            sum(1 for v in counting.values() if v.safe is None),
        )
    out.print(f"{len(report.claims)} claim(s) checked: {verdict}")


def _counting_line(unsafe: int, undecided: int) -> str:
    """The counting verdict of a check, in words."""
    if unsafe:
        line = f"NOT counting-safe: {unsafe} unsafe claim(s)"
        return line + (f", {undecided} undecided" if undecided else "")
    if undecided:  # safe so far, not safe: the undecided claims may be unsafe
        return f"counting-safety undecided for {undecided} claim(s), no unsafe claim found"
    return "counting-safe"


SUMMARY_ROWS = 50  # unsafe claims shown by `jtms check --summary` without --json


def print_summary(
    summary: SafetySummary | SafetyCounts,
    title: str,
    by_id: bool = False,
    tally: CountingTally | None = None,
) -> None:
    """The table of the first unsafe claims (by id) and the totals, and the counting totals
    of ``tally`` when given. ``by_id``: the summary's claims are in id order already, so
    only the first rows are read."""
    out = console()
    found = summary.unsafe() if isinstance(summary, SafetyCounts) else iter(summary.unsafe)
    unsafe = sorted(islice(found, SUMMARY_ROWS) if by_id else found, key=lambda c: c.id)[
        :SUMMARY_ROWS
    ]
    totals = summary.totals()
    rows = [
        (
            c.id,
            str(c.violation_count),
            ", ".join(format_set([e]) for e in c.examples)
            + (", ..." if c.violation_count > len(c.examples) else ""),
        )
        for c in unsafe
    ]
    if rows:
        out.print(table(title + ": unsafe claims", ["claim", "violations", "witness audits"], rows))
        if totals["unsafe"] > SUMMARY_ROWS:
            out.print(
                f"... and {totals['unsafe'] - SUMMARY_ROWS} more unsafe claim(s) (--json lists them all)"
            )
    verdict = (
        "influence-safe"
        if summary.influence_safe
        else f"NOT influence-safe: {totals['unsafe']} unsafe claim(s)"
    )
    out.print(
        f"{totals['claims']} claim(s) checked ({totals['active']} active): {verdict}, "
        f"{totals['violations']} violation(s)"
    )
    if tally is not None:
        counted = tally.totals()
        out.print(_counting_line(counted["counting_unsafe"], counted["counting_undecided"]))


CERTIFICATES_SHARE = 0.85
"""The share of ``jtms check --time-limit`` spent on certificates (listings and kinds)."""


def positive_seconds(text: str) -> float:
    """``--time-limit``: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text!r}")
    return value


def run_check(args: argparse.Namespace) -> int:
    # certificates stop at CERTIFICATES_SHARE of the limit: the rest writes the report (the
    # witness audits of every claim left, on karate's closure about 170,000 of them)
    args.deadline = (
        None if args.time_limit is None else time.monotonic() + CERTIFICATES_SHARE * args.time_limit
    )
    if args.time_limit is not None and args.summary:
        raise InputError("--time-limit bounds the certificates; --summary computes none")
    if args.db and args.graph:
        raise InputError("give either a GRAPH file or --db PATH, not both")
    if args.db and args.source_format != "graph":
        raise InputError("--from reads a GRAPH file, not a stored memory (--db)")
    if not args.db and not args.graph:
        raise InputError("give a GRAPH file (or --db PATH for a stored memory)")
    # --from datalog: a program records no audit, so it is counted as a graph file is
    if args.summary and getattr(args, "source_format", "graph") in ("graph", "datalog"):
        with paused_gc():
            return _summary_check(args)
    blocked: frozenset[str] = frozenset()
    imported = None
    if args.db:
        from jtms.memory.memory import Memory

        with Memory.open(args.db) as memory:  # the stored graph and the audits in force
            structure, blocked, source = memory.structure(), memory.blocked_ids(), args.db
    elif args.graph:
        imported = read_from(args, args.graph)
        if imported is None:
            structure, source = load_graph_file(args.graph), args.graph
        else:  # another tool's memory, as it stands after the audit it records
            structure, blocked, source = imported.structure, imported.audit, args.graph
    else:
        structure, source = load_graph_file(args.graph), args.graph
    started = time.perf_counter()
    claims = args.claim
    total = len(claims) if claims else len(structure.claims)
    # nothing the check builds is cyclic (tests/theory/test_check_memory.py holds it to that: a
    # pool of SAT variables once was, and a 500-claim check kept 500 MB of dropped pools),
    # and its millions of small objects made the cyclic collector's passes over the loaded
    # graph the largest cost of the check at 100k claims
    with paused_gc():
        return _checked(args, structure, blocked, source, started, claims, total, imported)


def _summary_check(args: argparse.Namespace) -> int:
    """``--summary``: the verdicts counted (:func:`theory.safety.check.count_verdicts`), on the
    memory's own index and state with --db; nothing is held per violation, and the claims
    are printed one at a time."""
    started = time.perf_counter()
    source = args.db or args.graph
    if args.audits != "evidence":  # over the gated graph (theory.safety.check.gated)
        return _summary_over_audits(args, source, started)
    imported = None
    try:
        if args.db:
            from jtms.memory.memory import Memory

            with Memory.open(args.db) as memory, memory.snapshot():
                state = memory.state  # the stored graph and the audits in force
                counts = _counted(args, state.index, tuple(state.blocks), state.active)
                tally = _tally(args, state.index, state.active)
                index: IndexView = state.index
        else:
            imported = read_from(args, args.graph)  # --from datalog (no audit), or None
            structure = load_graph_file(args.graph) if imported is None else imported.structure
            index = index_of(structure)
            counts = _counted(args, index, (), None)
            tally = _tally(args, index, base_active(structure))
    except InputError as error:
        raise error.with_source(source) from None
    if args.json:
        _print_counts_json(counts, started, provenance(args), tally, index.number)
    else:
        print_summary(counts, f"Influence-safety of {source}", by_id=not args.claim, tally=tally)
        if not args.db and imported is not None:
            print_import_report(imported)
    return ExitCode.of(counts.influence_safe)


def _summary_over_audits(args: argparse.Namespace, source: str, started: float) -> int:
    """``--summary --audits claims|all``: :func:`theory.safety.check.summarize_structure` on
    the graph (with --db, the stored one under the audits in force)."""
    blocked: frozenset[str] = frozenset()
    if args.db:
        from jtms.memory.memory import Memory

        with Memory.open(args.db) as memory:
            structure, blocked = memory.structure(), memory.blocked_ids()
    else:
        structure = load_graph_file(args.graph)
    try:
        summary = summarize_structure(
            structure,
            None if args.claim is None else sorted(args.claim),
            blocked=blocked,
            audits=args.audits,
        )
    except InputError as error:
        raise error.with_source(source) from None
    try:
        counting = _counting_verdicts(args, structure, blocked, args.claim, witnesses=False)
    except InputError as error:
        raise error.with_source(source) from None
    unsafe = sum(1 for v in counting.values() if v.safe is False)
    undecided = sum(1 for v in counting.values() if v.safe is None)
    if args.json:
        payload = summary.to_dict()
        payload = {"counting_safe": _all_safe(counting.values()), **payload}
        payload["summary"].update(counting_unsafe=unsafe, counting_undecided=undecided)
        for entry in payload["claims"]:
            entry["counting_safe"] = counting[entry["id"]].safe
        payload = {"influence_safe": payload.pop("influence_safe"), **payload}
        payload["seconds"] = round(time.perf_counter() - started, 6)
        print_json(payload)
    else:
        print_summary(summary, f"Influence-safety of {source} (audits of {args.audits})")
        console().print(_counting_line(unsafe, undecided))
    return ExitCode.of(summary.influence_safe)


def _tally(args: argparse.Namespace, index: IndexView, active: bytes | bytearray) -> CountingTally:
    """``--summary``'s counting verdicts (:func:`theory.safety.counting.counting_tally`)."""
    claims = claim_numbers(index, args.claim) if args.claim else None
    return counting_tally(index, active, claims, conflicts=args.counting_budget or None)


def _counted(
    args: argparse.Namespace,
    index: IndexView,
    blocked: tuple[int, ...],
    active: bytes | bytearray | None,
) -> SafetyCounts:
    claims = claim_numbers(index, args.claim) if args.claim else None
    total = len(claims) if claims is not None else sum(1 for flag in index.is_evidence if not flag)
    done = [0]
    with progress_bar("checking", total, enabled=not args.json and total > 2000, every=1) as update:

        def advance(k: int) -> None:
            done[0] += k
            update(done[0])

        return count_verdicts(index, blocked, claims, active=active, progress=advance)


def _print_counts_json(
    counts: SafetyCounts,
    started: float,
    origin: dict[str, Any],
    tally: CountingTally,
    number: Any,
) -> None:
    """The ``--summary --json`` payload (:meth:`SafetySummary.to_dict` plus ``seconds`` and
    the run's ``provenance``, ``origin``; the counting verdicts of ``tally``: ``counting_safe``
    overall and per claim, ``counting_unsafe`` and ``counting_undecided`` in ``summary``;
    ``number``: id -> node number), written claim by claim when it is large (one line, as
    :func:`print_json` writes it)."""
    totals = {**counts.totals(), **tally.totals()}

    def entry(claim: Any) -> dict[str, Any]:
        return {**claim.to_dict(), "counting_safe": tally.of(number[claim.id])}

    if totals["claims"] <= 1000:
        summaries = tuple(counts.claims())
        payload = SafetySummary(counts.influence_safe, summaries).to_dict()
        payload = {
            "influence_safe": payload["influence_safe"],
            "counting_safe": tally.safe,
            "summary": totals,
            "claims": [entry(c) for c in sorted(summaries, key=lambda c: c.id)],
        }
        payload["seconds"] = round(time.perf_counter() - started, 6)
        payload[PROVENANCE_KEY] = origin
        print_json(payload)
        return
    write = sys.stdout.write
    write(
        '{"influence_safe":'
        + json.dumps(counts.influence_safe)
        + ',"counting_safe":'
        + json.dumps(tally.safe)
        + ',"summary":'
        + json.dumps(totals, separators=(",", ":"))
        + ',"claims":['
    )
    encode = json.JSONEncoder(separators=(",", ":")).encode
    for k, claim in enumerate(counts.claims()):
        write(("," if k else "") + encode(entry(claim)))
    write('],"seconds":' + json.dumps(round(time.perf_counter() - started, 6)))
    write(f',"{PROVENANCE_KEY}":' + json.dumps(origin, separators=(",", ":")) + "}\n")


def _checked(
    args: argparse.Namespace,
    structure: SupportStructure,
    blocked: frozenset[str],
    source: str,
    started: float,
    claims: list[str] | None,
    total: int,
    imported: Imported | None = None,
) -> int:
    limit = None if args.max_listed == 0 else args.max_listed
    relevance_budget = args.relevance_budget or None
    try:
        counting = _counting_verdicts(args, structure, blocked, claims)
    except InputError as error:
        raise error.with_source(source) from None
    counting_undecided = sum(1 for v in counting.values() if v.safe is None)
    if args.json:  # claim by claim: a report of many violations is never held whole
        try:
            run = stream_check(
                structure,
                None if claims is None else sorted(claims),  # the payload's order: by id
                max_listed=limit,
                blocked=blocked,
                relevance_budget=relevance_budget,
                audits=args.audits,
                deadline=args.deadline,
            )
        except InputError as error:
            raise error.with_source(source) from None

        def entries() -> Iterator[dict[str, Any]]:
            for k, claim in enumerate(run, 1):
                update(k)
                entry = claim.to_dict()
                entry.update(counting[claim.id].to_dict())
                if args.db:  # the keys of the MCP tool `check`: with the lengths of its lists
                    entry.setdefault("violation_count", len(entry["violations"]))
                    entry.setdefault(
                        "minimal_justification_count", len(entry["minimal_justifications"])
                    )
                yield entry

        def tail() -> dict[str, Any]:
            rest: dict[str, Any] = {"seconds": round(time.perf_counter() - started, 6)}
            if imported is not None:
                rest["import"] = {**imported.report.to_dict(), "audit": imported.audit_list()}
            rest["counts"] = {
                "claims": len(run.claims),
                "unsafe": run.unsafe,
                "counting_unsafe": sum(1 for v in counting.values() if v.safe is False),
                "counting_undecided": counting_undecided,
            }
            rest["cursor"] = None
            if args.time_limit is not None:  # what the limit left undecided
                rest["time_limit"] = args.time_limit
                rest["complete"] = run.undecided[0] == 0 and counting_undecided == 0
                rest["undecided_claims"] = run.undecided[0]
                rest["counting_undecided_claims"] = counting_undecided
            rest[PROVENANCE_KEY] = provenance(args)
            return rest

        with closing(run), progress_bar("checking", total, delay=1.0, every=1) as update:
            print_json_stream(
                {
                    "influence_safe": run.influence_safe,
                    **headline_payload(imported),  # a source's disagreements beside the verdict
                    "counting_safe": _all_safe(counting.values()),
                },
                "claims",
                entries(),
                tail,
                compact=len(run.claims) > 1000,
            )
        return ExitCode.of(run.influence_safe)
    try:
        with progress_bar("checking", total, delay=1.0, every=1) as update:
            # the tables show the first SUMMARY_ROWS violations (claims by id): only those
            # need their kinds and surviving justifications (--json classifies every one)
            stream = stream_check(
                structure,
                None if claims is None else sorted(claims),
                max_listed=limit,
                blocked=blocked,
                relevance_budget=relevance_budget,
                classify=SUMMARY_ROWS,
                audits=args.audits,
                deadline=args.deadline,
            )
            reports = []
            with closing(stream):
                for k, claim_report in enumerate(stream, 1):
                    reports.append(claim_report)
                    update(k)
            report = SafetyReport(stream.influence_safe, tuple(reports))
    except InputError as error:
        raise error.with_source(source) from None
    over = "" if args.audits == "evidence" else f" (audits of {args.audits})"
    print_report(report, f"Influence-safety of {source}{over}", counting)
    if stream.undecided[0]:
        console().print(
            f"--time-limit {args.time_limit:g} s reached: the kinds of {stream.undecided[0]} "
            "unsafe claim(s) are undecided (their verdicts are exact)"
        )
    if counting_undecided:
        cause = "--time-limit" if args.time_limit is not None else "--counting-budget"
        console().print(
            f"{cause} reached: the counting verdicts of {counting_undecided} claim(s) are undecided"
        )
    if imported is not None:
        print_import_report(imported)
    return ExitCode.of(report.influence_safe)


def _counting_verdicts(
    args: argparse.Namespace,
    structure: SupportStructure,
    blocked: frozenset[str],
    claims: list[str] | None,
    witnesses: bool = True,
) -> dict[str, CountingVerdict]:
    """The counting verdicts of the claims checked (:func:`theory.safety.counting.counting_verdicts`):
    with --time-limit, half the time left for certificates at most."""
    deadline = getattr(args, "deadline", None)
    if deadline is not None:
        now = time.monotonic()
        deadline = now + max(0.0, deadline - now) / 2
    return counting_verdicts(
        structure,
        audits=args.audits,
        claims=None if claims is None else sorted(claims),
        deadline=deadline,
        blocked=blocked,
        witnesses=witnesses,
        conflicts=args.counting_budget or None,
    )


def _all_safe(verdicts: Iterator[CountingVerdict] | Any) -> bool | None:
    """``counting_safe`` of the whole check: False when a claim is unsafe, else None when one
    is undecided, else True."""
    found = [v.safe for v in verdicts]
    if False in found:
        return False
    return None if None in found else True


def _counting_word(safe: bool | None) -> str:
    return "undecided" if safe is None else "safe" if safe else "UNSAFE"


ORDER = 10  # position of these commands in `jtms --help`
