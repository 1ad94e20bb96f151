"""``jtms enumerate``: exhaustive theorem enumerations (issue 3).

Flat universes n = 0..N (every monotone support function, every audit), optionally the
measured n = 7 slice with its full-run cost, and every small memory graph against the
influence-safety checker. Table, ``--json``, ``--plot FILE``; shards run on ``--workers K``
local processes or, with ``--dask``, on a Dask cluster (a local one unless
``--dask-address`` names a scheduler).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from rich.markup import escape

from jtms.cli.arguments import documented, integer, refuse_empty
from jtms.cli.output import console, print_json, table, writable_file
from jtms.cli.output_file import FIGURE_FORMATS, check_output, figure_format, open_output, plan
from jtms.cli.provenance import add_manifest_argument, note_seeds, with_provenance
from theory.model.errors import InputError

EXIT_OK, EXIT_VIOLATION = 0, 1

MUTANTS = ("forgetful", "unpropagated", "loop-keeping")
# the production counting checker on every CHECKER_EVERY-th class of a shard by default
CHECKER_EVERY = 10
# graph families: above this many classes the cost is estimated from a timed sample first,
# and a run estimated above LONG_RUN core-seconds per worker needs --yes
ESTIMATE_ABOVE_CLASSES = 200_000
LONG_RUN = 300.0
# the n = 7 slice: each drawn row is its own shard and builds its own candidates (a full run
# shares them), so a row costs 13 to 15 ms of CPU, measured serially on the 2-core VM
# (seed 7: 20 rows in 0.33 s, 200 in 3.06 s, 2,000 in 26.3 s). At 15 ms a slice of more than
# LONG_RUN / 0.015 = 20,000 rows per worker needs --yes, like a long graph family; a slice
# of every row (7,828,354, ROWS is capped there) would take about 33 core-hours, where the
# resumable --n7 run takes 1.4 with the compiled kernel
N7_SLICE_ROW_SECONDS = 0.015
# the timed sample first generates every class below the largest size under every symmetry:
# above this product (symmetries x those classes) that alone takes more than about 15 s here
# (6/3/4: 3.7e8, planned in 5.7 s), so the family is refused without --yes before it starts
ESTIMATE_WORK_LIMIT = 1_000_000_000


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "enumerate",
        help="exhaustive theorem enumerations (flat universes, n=7 slice, memory graphs)",
        description=(
            "Check the justification boundary exhaustively. Flat universes (support-function "
            "form of Theorem 1, Coq boundary): for every monotone support function of n = "
            "0..N evidence items that is active and every audit of evidence, influence taken "
            "over the union of the minimal justifications agrees with exact revision iff the "
            "claim has a unique minimal justification. --graphs (graph form, loops allowed, "
            "Coq graph_influence_safe): every memory graph of the family, each claim's "
            "verdict from `jtms check` against the exhaustive comparison of reachability and "
            "exact revision over every audit of evidence (an active claim is safe iff its "
            "minimal justification is unique and equals its evidence ancestors), of claims "
            "and of both (Coq graph_audit_safe). Exit 1 if a counterexample is found."
        ),
    )
    parser.add_argument(
        "--max-n",
        type=integer,
        default=6,
        metavar="N",
        help="largest n for the exhaustive flat run, 0..6 (default 6)",
    )
    parser.add_argument("--json", action="store_true", help="machine output")
    add_manifest_argument(parser)
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="save a figure of counts and time per n; its format follows the extension: "
        + ", ".join(f".{f}" for f in FIGURE_FORMATS),
    )
    parser.add_argument(
        "--workers",
        type=integer,
        default=1,
        metavar="K",
        help="local worker processes (default 1: in this process)",
    )
    parser.add_argument(
        "--dask", action="store_true", help="run the shards on Dask (a LocalCluster of K workers)"
    )
    parser.add_argument(
        "--dask-address",
        metavar="ADDR",
        help="with --dask: an existing scheduler, e.g. tcp://host:8786",
    )
    parser.add_argument(
        "--n7-slice",
        type=integer,
        default=0,
        metavar="ROWS",
        help="also check ROWS random n=7 shards (rows) and estimate the full run; more than "
        "20,000 rows per worker (about 5 min) needs --yes",
    )
    parser.add_argument("--seed", type=integer, default=7, help="seed of the n=7 slice (default 7)")
    parser.add_argument(
        "--graphs",
        action="store_true",
        help="also enumerate every small memory graph against `jtms check`",
    )
    parser.add_argument(
        "--graph-evidence",
        type=integer,
        default=None,
        metavar="E",
        help="graph enumeration: evidence nodes (default 3; evidence + claims at most 12)",
    )
    parser.add_argument(
        "--graph-claims",
        type=integer,
        default=None,
        metavar="C",
        help="graph enumeration: claim nodes (default 3)",
    )
    parser.add_argument(
        "--graph-justifications",
        type=integer,
        default=None,
        metavar="J",
        help="graph enumeration: at most J justifications in total (default 4; at most "
        "every possible justification, claims * 2^(evidence + claims - 1))",
    )
    parser.add_argument(
        "--graph-out",
        metavar="PART.json",
        help="graph enumeration: the resumable part file (an existing one is "
        "resumed: only its missing shards are checked)",
    )
    parser.add_argument(
        "--graph-max-shards",
        type=integer,
        default=None,
        metavar="N",
        help="with --graph-out: check at most N more shards in this session "
        "(a measured fraction; run again to resume)",
    )
    parser.add_argument(
        "--graph-checks",
        choices=("all", "counting"),
        default="all",
        help="graph enumeration: all (default: the influence check and Theorem 2, the "
        "counting boundary) or counting (Theorem 2 alone, by the compiled brute force: fast "
        "enough for (4, 4, 4))",
    )
    parser.add_argument(
        "--graph-checker-every",
        type=integer,
        default=None,
        metavar="N",
        help="graph enumeration: compare the production counting checker with the brute "
        "force on every N-th class of each shard (default 10 with --graph-checks all, none "
        "with counting; 1: every class; 0: never)",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="start a long run: a graph family or an --n7-slice estimated above 5 minutes "
        "per worker",
    )
    parser.add_argument(
        "--n7",
        action="store_true",
        help="the full n = 7 run with the compiled kernel, over --rows into "
        "the resumable part file --out (nothing else is run)",
    )
    parser.add_argument(
        "--rows",
        default=None,
        metavar="A:B",
        help="with --n7: the rows [A, B) of the 7,828,354 (default all)",
    )
    parser.add_argument(
        "--out", metavar="PART.json", help="with --n7: the part file; an existing one is resumed"
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="PART",
        default=None,
        help="merge part files: verify every row is covered exactly once "
        "and the total is D(7), and add up the tallies",
    )
    parser.add_argument(
        "--plan-parts",
        type=integer,
        default=None,
        metavar="K",
        help="with --n7: print K row ranges of equal work for K separate runs, then exit",
    )
    parser.add_argument(
        "--mutant",
        choices=MUTANTS,
        default=None,
        help="seeded mutation: replace exact revision by a deliberately wrong "
        "rule (the run must then report counterexamples)",
    )
    parser.epilog = (
        "examples:\n"
        "  jtms enumerate                                  # n = 0..6, every function\n"
        "  jtms enumerate --n7 --rows 0:1000 --out p0.json # n = 7 rows 0..999, resumable\n"
        "  jtms enumerate --n7 --plan-parts 2              # two ranges of equal work\n"
        "  jtms enumerate --merge p0.json p1.json          # verified totals of the parts\n"
        "  jtms enumerate --max-n 0 --graphs --graph-evidence 4 --graph-claims 4 \\\n"
        "      --graph-out g444.json --yes                 # every (4, 4, 4) class, resumable\n"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    documented(parser, examples=[], keys=["engine", "results", "provenance"])
    parser.set_defaults(func=run)


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}  # label -> rich TaskID

        def update(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done)

        yield update


MAX_WORKERS = 1024  # local worker processes; beyond, the pool cannot even be created


def _validate(args: argparse.Namespace) -> None:
    refuse_empty(args, "plot", "out", "graph_out", "merge", "dask_address")
    if args.merge is not None and args.n7:
        raise InputError("--merge and --n7 are separate steps: run the parts, then merge them")
    if (args.rows is not None or args.out or args.plan_parts is not None) and not args.n7:
        raise InputError("--rows/--out/--plan-parts need --n7")
    if args.n7 and not args.out and args.plan_parts is None:
        raise InputError("--n7 needs --out PART.json (the resumable part file)")
    if args.plan_parts is not None and args.plan_parts < 1:
        raise InputError(f"--plan-parts must be at least 1, got {args.plan_parts}")
    if (args.n7 or args.merge is not None) and (
        args.mutant or args.graphs or args.n7_slice or args.plot
    ):
        raise InputError("--n7/--merge run alone (no --mutant, --graphs, --n7-slice, --plot)")
    if not 0 <= args.max_n <= 6:
        raise InputError(
            f"--max-n must be between 0 and 6, got {args.max_n} "
            "(n = 7 runs as a measured slice: --n7-slice ROWS)"
        )
    if not 1 <= args.workers <= MAX_WORKERS:
        raise InputError(f"--workers must be between 1 and {MAX_WORKERS}, got {args.workers}")
    if args.n7_slice < 0:
        raise InputError(f"--n7-slice must be >= 0, got {args.n7_slice}")
    if args.yes and not (args.graphs or args.n7_slice):
        raise InputError("--yes needs --graphs or --n7-slice (the runs it lets start)")
    if args.n7_slice:
        _check_slice_size(args)
    if args.plot:
        figure_format(args.plot, "--plot")  # a .pdf got PNG bytes before
        writable_file(args.plot, "--plot")
        check_output(args.plot, "--plot")
    if args.out:
        args.out = _part_file(args.out, "--out")
    if args.dask_address and not args.dask:
        raise InputError("--dask-address needs --dask")
    sizes = (args.graph_evidence, args.graph_claims, args.graph_justifications)
    if any(s is not None for s in sizes) and not args.graphs:
        raise InputError("--graph-evidence/--graph-claims/--graph-justifications need --graphs")
    if any(s is not None and s < 0 for s in sizes):
        raise InputError("graph sizes must be >= 0")
    if args.graphs:
        _check_family_size(args)
    if args.seed < 0:
        raise InputError(f"--seed must be >= 0, got {args.seed}")
    if (args.graph_out or args.graph_max_shards is not None) and not args.graphs:
        raise InputError("--graph-out/--graph-max-shards need --graphs")
    if (args.graph_checks != "all" or args.graph_checker_every is not None) and not args.graphs:
        raise InputError("--graph-checks/--graph-checker-every need --graphs")
    if args.graph_checker_every is not None and args.graph_checker_every < 0:
        raise InputError("--graph-checker-every must be >= 0")
    if args.graph_max_shards is not None and (not args.graph_out or args.graph_max_shards < 1):
        raise InputError("--graph-max-shards needs --graph-out and must be at least 1")
    if args.graph_out:
        args.graph_out = _part_file(args.graph_out, "--graph-out")


# the largest graph family accepted: evidence + claims nodes (far above anything feasible;
# the default 3 + 3 takes a minute) and, at most, every possible justification of the family
MAX_GRAPH_NODES = 12


def _check_family_size(args: argparse.Namespace) -> None:
    """Refuse families too large to count (Burnside's count would hang, the plan run out of
    memory) with one line naming the flag."""
    from enumerations.graphs import GraphFamily

    default = GraphFamily.default()
    evidence = default.evidence if args.graph_evidence is None else args.graph_evidence
    claims = default.claims if args.graph_claims is None else args.graph_claims
    if evidence + claims > MAX_GRAPH_NODES:
        flag = "--graph-evidence" if args.graph_evidence is not None else "--graph-claims"
        raise InputError(
            f"{flag}: at most {MAX_GRAPH_NODES} evidence + claims nodes, got {evidence} + {claims}"
        )
    possible = claims * (1 << max(0, evidence + claims - 1))
    if args.graph_justifications is not None and args.graph_justifications > possible:
        raise InputError(
            f"--graph-justifications: at most {possible} (every possible justification of "
            f"{evidence} evidence and {claims} claims), got {args.graph_justifications}"
        )


def _check_slice_size(args: argparse.Namespace) -> None:
    """Refuse, before anything runs, an n = 7 slice estimated above ``LONG_RUN`` seconds per
    worker unless ``--yes`` is given (``N7_SLICE_ROW_SECONDS``)."""
    from enumerations.monotone import DEDEKIND

    total = DEDEKIND[6]  # the n = 7 rows: one per monotone function of 6 items
    rows = min(args.n7_slice, total)
    per_worker = rows * N7_SLICE_ROW_SECONDS / args.workers
    if per_worker > LONG_RUN and not args.yes:
        drawn = (
            f"all {total:,} n = 7 rows"
            if rows == total
            else f"{rows:,} of the {total:,} n = 7 rows"
        )
        took = f"{per_worker / 3600:,.1f} h" if per_worker >= 5400 else f"{per_worker / 60:.1f} min"
        raise InputError(
            f"--n7-slice {args.n7_slice:,}: {drawn} at about {N7_SLICE_ROW_SECONDS * 1000:.0f} "
            f"ms a row take an estimated {took} on {args.workers} worker(s), over "
            f"{LONG_RUN / 60:.0f} min a worker: pass --yes to start it (the full n = 7 run is "
            "--n7 --out PART.json, resumable)"
        )


def _part_file(path: str, option: str) -> str:
    """Where a resumable part file named by ``option`` is written: a regular file (or a new
    one), a symbolic link's target (the link stays a link); a device, FIFO or multiply
    linked file is refused, since a part file is saved again and again and read back."""
    writable_file(path, option)
    target, atomic = plan(path, option)
    if not atomic:
        raise InputError(
            f"{option} {path!r}: a part file must be a regular file (or a new one), not a "
            "device, FIFO or multiply linked file"
        )
    return target


def _family(args: argparse.Namespace) -> Any:
    from enumerations.graphs import GraphFamily

    return GraphFamily.default().resized(
        args.graph_evidence, args.graph_claims, args.graph_justifications
    )


def run(args: argparse.Namespace) -> int:
    _validate(args)
    if args.merge is not None:
        return _merge(args)
    if args.n7:
        return _n7(args)
    from enumerations import mutants
    from enumerations.executor import choose, start_executor
    from enumerations.flat import exact_survival
    from enumerations.runs import run_flat, run_n7_slice
    from theory.semantics.revision import exact as theory_exact

    flat_exact, graph_exact = exact_survival, theory_exact
    if args.mutant == "forgetful":
        flat_exact, graph_exact = mutants.forgetful_survival, mutants.forgetful_exact
    elif args.mutant == "unpropagated":
        flat_exact, graph_exact = mutants.unpropagated_survival, mutants.unpropagated_exact
    elif args.mutant == "loop-keeping":
        graph_exact = mutants.loop_keeping_exact  # flat universes have no loops

    kind = choose(args.workers, args.dask)
    show_bar = not args.json and sys.stderr.isatty()
    estimate = _graph_estimate(args, graph_exact) if args.graphs else None
    payload: dict = {}
    failed = False
    with (
        start_executor(kind, args.workers, address=args.dask_address) as executor,
        _progress(show_bar) as progress,
    ):
        flat = run_flat(args.max_n, executor, exact=flat_exact, progress=progress)
        payload["results"] = [t.to_dict() for t in flat]
        failed |= not all(t.theorem_holds for t in flat)
        if args.n7_slice:
            report = run_n7_slice(
                args.n7_slice, executor, seed=args.seed, exact=flat_exact, progress=progress
            )
            payload["n7_slice"] = report.to_dict()
            failed |= not report.tally.theorem_holds
        if args.graphs:
            graphs = _run_graphs(args, executor, graph_exact, progress, estimate)
            payload["graphs"] = graphs
            failed |= (
                not graphs["verdicts_agree"]
                or graphs.get("complete", True)
                and not graphs["counts_verified"]
            )
    # "engine" stays the JSON key (a contract since issue 3); in code it is the shard executor
    payload["engine"] = {"kind": executor.kind, "workers": executor.workers, "mutant": args.mutant}
    if args.plot:
        from enumerations.plot import plot_report

        with open_output(args.plot, "--plot", binary=True) as figure:
            plot_report(payload, figure, format=figure_format(args.plot, "--plot"))
    if args.n7_slice:
        note_seeds(args, {"n7_slice": args.seed})
    if args.json:
        print_json(with_provenance(payload, args))
    else:
        _render(payload, args.plot)
    return EXIT_VIOLATION if failed else EXIT_OK


def _graph_estimate(args: argparse.Namespace, exact: Any) -> Any:
    """For a family of many classes: the cost estimated from a timed sample, printed on
    stderr before any run; a long one is refused without ``--yes`` (exit 2)."""
    from enumerations.burnside import class_count
    from enumerations.graphparts import estimate_cost
    from enumerations.graphs import SHARD_CLASSES

    family = _family(args)
    E, C, J = family.evidence, family.claims, family.max_justifications
    classes = class_count(E, C, J)
    if classes <= ESTIMATE_ABOVE_CLASSES:
        return None
    name = f"{E}/{C}/{J}"
    # the sample needs every class below the largest size, each tried under every symmetry
    symmetries = math.factorial(E) * math.factorial(C)
    if symmetries * class_count(E, C, max(J - 1, 0)) > ESTIMATE_WORK_LIMIT:
        beyond = (
            f"graph family {name}: {classes:,} classes under {symmetries:,} symmetries, "
            "too large to time a sample of in seconds"
        )
        if not args.yes:
            raise InputError(f"{beyond}; a long run: pass --yes to start it anyway")
        print(f"{beyond}; starting without an estimate", file=sys.stderr, flush=True)
        return None
    estimate = estimate_cost(
        family, exact=exact, checks=args.graph_checks, checker_every=_checker_every(args)
    )
    # --graph-max-shards N caps this session at N shards of SHARD_CLASSES classes: the run to
    # judge is that capped one, not the whole family
    capped = args.graph_max_shards is not None
    run_classes = (
        min(estimate.classes, args.graph_max_shards * SHARD_CLASSES) if capped else estimate.classes
    )
    per_worker = estimate.seconds_per_class * run_classes / args.workers
    this_run = (
        f"; this session ({args.graph_max_shards:,} shard(s), at most {run_classes:,} classes) "
        f"estimated {per_worker / 60:.1f} min on {args.workers} worker(s)"
        if capped
        else f" ({per_worker / 60:.0f} min on {args.workers} worker(s))"
    )
    print(
        f"graph family {name}: {estimate.labelled:,} labelled graphs in {estimate.classes:,} "
        f"classes; estimated {estimate.core_seconds / 3600:.2f} core-hours{this_run}, from "
        f"{estimate.sampled_classes:,} classes timed",
        file=sys.stderr,
        flush=True,
    )
    if per_worker > LONG_RUN and not args.yes:
        if capped:
            raise InputError(
                f"--graph-max-shards {args.graph_max_shards:,} of graph family {name} is a long "
                "run: pass --yes to start it, or fewer shards"
            )
        raise InputError(
            f"graph family {name} ({estimate.labelled:,} labelled graphs) is a long "
            "run: pass --yes to start it (and --graph-out PART.json to make it resumable)"
        )
    return estimate


def _checker_every(args: argparse.Namespace) -> int:
    """Every how many classes of a shard the production counting checker is compared (0:
    never): by default every tenth class with both checks (the checker's SAT queries would
    add a quarter to the default family's run), none with Theorem 2 alone."""
    if args.graph_checker_every is not None:
        return int(args.graph_checker_every)
    return CHECKER_EVERY if args.graph_checks == "all" else 0


def _run_graphs(
    args: argparse.Namespace, executor: Any, exact: Any, progress: Any, estimate: Any
) -> dict:
    """The graph section: in memory, or into the resumable part file ``--graph-out``."""
    from enumerations.graphs import run_graphs

    family = _family(args)
    checks = {"checks": args.graph_checks, "checker_every": _checker_every(args)}
    if not args.graph_out and estimate is None:
        result = run_graphs(family, executor, exact=exact, progress=progress, **checks).to_dict()
        result["checker_every"] = checks["checker_every"]
        return result
    from enumerations.graphparts import run_graph_part
    from enumerations.parts import PartError

    label = f"graphs {family.evidence}/{family.claims}/{family.max_justifications}"
    # a terminal already shows the rich bars (with an ETA); a log gets a line a minute
    bar = (lambda done, total: progress(label, done, total)) if progress else None
    with nullcontext(bar) if bar else _eta_progress(not args.json, label, unit="classes") as eta:
        if not args.graph_out:
            result = run_graphs(
                family,
                executor,
                exact=exact,
                progress=(lambda _, done, total: eta(done, total)) if eta else None,
                **checks,
            ).to_dict()
        else:
            try:
                part = run_graph_part(
                    family,
                    args.graph_out,
                    executor,
                    exact=exact,
                    progress=eta,
                    stop_after=args.graph_max_shards,
                    **checks,
                )
            except PartError as error:
                raise InputError(str(error)) from None
            except OSError as error:
                raise InputError(f"cannot write {args.graph_out}: {error}") from None
            result = part.tally.to_dict()
            result.update({k: v for k, v in part.to_dict().items() if k != "graphs"})
    if estimate is not None:
        result["estimate"] = estimate.to_dict()
    result["checker_every"] = checks["checker_every"]
    return result


def _render(payload: dict, plot: str | None) -> None:
    out = console()
    rows = [
        (
            r["n"],
            f"{r['monotone_functions']:,}",
            f"{r['active']:,}",
            r["unique_minimal"],
            r["influence_exact"],
            "holds" if r["theorem_holds"] else "FAILS",
            f"{r['seconds']:.4f}",
        )
        for r in payload["results"]
    ]
    executor = payload["engine"]
    title = (
        f"Theorem 1, support-function form (Coq boundary), flat universes: every monotone "
        f"support function, every audit of evidence, influence over the union of the minimal "
        f"justifications ({executor['kind']}, {executor['workers']} worker(s)"
        + (f", MUTANT {executor['mutant']}" if executor["mutant"] else "")
        + ")"
    )
    out.print(
        table(
            title,
            [
                "n",
                "monotone functions",
                "active",
                "unique minimal",
                "influence = exact",
                "theorem",
                "seconds",
            ],
            rows,
        )
    )
    for r in payload["results"]:
        _render_counterexamples(out, r)
    s = payload.get("n7_slice")
    if s:
        out.print(
            table(
                f"n = 7 slice: {s['rows_run']:,} random shards of {s['rows_total']:,} (seed {s['seed']})",
                ["quantity", "value"],
                [
                    ("functions checked", f"{s['functions_checked']:,}"),
                    (
                        "unique minimal / influence = exact",
                        f"{s['unique_minimal']} / {s['influence_exact']}",
                    ),
                    ("theorem", "holds" if s["theorem_holds"] else "FAILS"),
                    (
                        "CPU seconds (mean per shard)",
                        f"{s['core_seconds']:.2f} ({s['mean_row_cpu_seconds']:.4f})",
                    ),
                    ("functions per core-second", f"{s['functions_per_core_second']:,}"),
                    (
                        "full n = 7 run, core-hours",
                        f"{s['estimated_core_hours']:,.1f}" + _stderr(s),
                    ),
                    (
                        "  cross-checks, core-hours",
                        f"by per-function rate {s['estimated_core_hours_by_rate']:,.1f}; "
                        f"from wall-clock {s['estimated_core_hours_wall']:,.1f}",
                    ),
                    (
                        "D(7) extrapolated from the slice",
                        f"{s['sampled_dedekind_estimate']:.3e} (true {s['dedekind_7']:.3e})",
                    ),
                ],
            )
        )
        _render_counterexamples(out, s)
    g = payload.get("graphs")
    if g:
        _render_graphs(out, g)
    if plot:
        out.print(f"plot saved to {plot}")


def _stderr(s: dict) -> str:
    error = s.get("estimated_core_hours_stderr")
    return f" ± {error:,.1f} (1 standard error)" if error is not None else ""


def _render_counterexamples(out: Any, result: dict[str, Any]) -> None:
    for c in result.get("counterexamples", []):
        detail = (
            f"n={c['n']}: minimal justifications {c['minimal_justifications']}, audit "
            f"{c['audit']}: exact retires {c['exact_retires']}, influence retires "
            f"{c['influence_retires']} ({c['problem']})"
        )
        out.print(f"[bold red]counterexample[/] {escape(detail)}")
    hidden = result.get("mismatches", 0) - len(result.get("counterexamples", []))
    if hidden > 0:
        out.print(f"... and {hidden:,} more counterexamples", style="red")


def _labelled_share(g: dict[str, Any], part: str, whole: str, share: str) -> str:
    """``part of whole (share %)`` of the labelled graphs (classes weighted by their size)."""
    if g.get(share) is None:
        return "not counted (a part file written before these counts)"
    return f"{g[part]:,} of {g[whole]:,} ({100 * g[share]:.2f} %)"


def _render_graphs(out: Any, g: dict[str, Any]) -> None:
    f = g["family"]
    influence = "influence" in g.get("checks", ["influence"])
    loops = f" ({g['cyclic_graphs']:,} with a support loop)" if influence else ""
    rows = [
        ("graphs (labelled)", f"{g['graphs']:,}"),
        ("isomorphism classes checked", f"{g['classes']:,}{loops}"),
        ("claims / active", f"{g['claims']:,} / {g['active_claims']:,}"),
    ]
    if influence:
        rows += _influence_rows(g)
    rows += _counting_rows(g, influence)
    rows += [
        (
            "checker = exhaustive comparison"
            + (" (all three kinds of audit)" if influence else " (Theorem 2)"),
            "yes, every claim"
            if g["verdicts_agree"]
            else f"NO: {g['disagreements']:,} graphs and "
            f"{g.get('counting_disagreements', 0):,} counting claims disagree",
        ),
        (
            "classes = Burnside's count, sizes add up to the labelled graphs",
            "yes"
            if g["counts_verified"]
            else f"NO (Burnside {g['burnside_classes']:,})"
            if g.get("complete", True)
            else f"run incomplete ({g['shards_done']:,} of "
            f"{g['shards']:,} shards): run again to resume",
        ),
        ("seconds (wall / CPU)", f"{g['seconds']:.1f} / {g['cpu_seconds']:.1f}"),
    ]
    title = (
        "Theorem 1, graph form with loops (Coq graph_influence_safe; claim audits: "
        "graph_audit_safe), and Theorem 2, the counting boundary"
        if influence
        else "Theorem 2, the counting boundary (the influence check not run)"
    )
    out.print(
        table(
            f"{title}: memory graphs, {f['evidence']} evidence, {f['claims']} "
            f"claims, at most {f['max_justifications']} justifications, cycles included",
            ["quantity", "value"],
            rows,
        )
    )
    for d in g.get("examples", []):
        out.print(f"[bold red]disagreement[/]: {escape(d)}")


def _influence_rows(g: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("active claims influence-safe (audits of evidence)", f"{g['safe_claims']:,}"),
        ("unsafe claims", f"{g['unsafe_claims']:,}"),
        ("  with alternative_support", f"{g['alternative_support']:,}"),
        ("  with redundant_influence", f"{g['redundant_influence']:,}"),
        ("  with both kinds", f"{g['both_kinds']:,}"),
        (
            "per labelled graph: graphs with every claim safe",
            _labelled_share(g, "labelled_all_safe_graphs", "graphs", "labelled_share_all_safe"),
        ),
        (
            "per labelled graph: active claims safe",
            _labelled_share(
                g, "labelled_safe_claims", "labelled_active_claims", "labelled_share_safe_claims"
            ),
        ),
        (
            "violations (one-item audits)",
            ", ".join(f"{k} {v:,}" for k, v in g["violations"].items()),
        ),
        (
            "safe / unsafe for audits of claims",
            f"{g['claim_audits_safe']:,} / {g['claim_audits_unsafe']:,}",
        ),
        (
            "safe / unsafe for mixed audits (evidence and claims)",
            f"{g['mixed_audits_safe']:,} / {g['mixed_audits_unsafe']:,}",
        ),
    ]


def _checker_sample(every: int | None) -> str:
    """Which classes of a shard the counting checker ran on, for the report."""
    if not every:
        return " (not run)" if every == 0 else ""
    return " (every class)" if every == 1 else f" (1 class in {every:,} of each shard)"


def _counting_rows(g: dict[str, Any], influence: bool) -> list[tuple[str, str]]:
    """Theorem 2's lines: counting-safe / -unsafe active claims per kind of audit (the
    exhaustive definition, equal to the witness search), the cross-tabulation with
    influence-safety, and the production checker's verdicts compared."""
    if "counting_safe" not in g:
        return [("counting-safe (Theorem 2)", "not counted (a part file written before it)")]
    rows = [
        (
            "counting-safe / -unsafe, audits of evidence (Theorem 2)",
            f"{g['counting_safe']:,} / {g['counting_unsafe']:,}",
        ),
        (
            "counting-safe / -unsafe, audits of claims",
            f"{g['counting_claim_audits_safe']:,} / {g['counting_claim_audits_unsafe']:,}",
        ),
        (
            "counting-safe / -unsafe, mixed audits",
            f"{g['counting_mixed_audits_safe']:,} / {g['counting_mixed_audits_unsafe']:,}",
        ),
        (
            "per labelled graph: active claims counting-safe (audits of evidence)",
            _labelled_share(
                g,
                "labelled_counting_safe_claims",
                "labelled_active_claims",
                "labelled_share_counting_safe",
            ),
        ),
    ]
    if influence:
        rows.append(
            (
                "influence-safe and counting-unsafe / counting-safe and influence-unsafe",
                f"{g['influence_safe_counting_unsafe']:,} / "
                f"{g['counting_safe_influence_unsafe']:,}",
            )
        )
    rows += [
        (
            "definition = witness search (every audit, every witness set)",
            "yes, every claim"
            if not g["counting_disagreements"]
            else f"NO: {g['counting_disagreements']:,} claims",
        ),
        (
            "production counting checker: verdicts compared",
            f"{g['counting_checker_verdicts']:,}" + _checker_sample(g.get("checker_every")),
        ),
    ]
    return rows


def _n7(args: argparse.Namespace) -> int:
    from enumerations.executor import choose, start_executor
    from enumerations.parts import PartError, parse_rows, plan_parts, rows_total, run_part

    total = rows_total()
    try:
        rows = parse_rows(args.rows or ":", total)
    except ValueError as error:
        raise InputError(str(error)) from None
    if args.plan_parts is not None:
        ranges = plan_parts(args.plan_parts, *rows)
        if args.json:
            print_json(with_provenance({"parts": [list(r) for r in ranges]}, args))
        else:
            for a, b in ranges:
                print(f"{a}:{b}")
        return EXIT_OK
    kind = choose(args.workers, args.dask)
    try:
        with (
            start_executor(kind, args.workers, address=args.dask_address) as executor,
            _eta_progress(not args.json, f"n = 7 rows {rows[0]}:{rows[1]}") as progress,
        ):
            part = run_part(rows, args.out, executor, progress=progress)
    except PartError as error:
        raise InputError(str(error)) from None
    except OSError as error:
        raise InputError(f"cannot write {args.out}: {error}") from None
    payload = part.to_dict()
    payload["engine"] = {"kind": executor.kind, "workers": executor.workers}
    if args.json:
        print_json(with_provenance(payload, args))
    else:
        out = console()
        out.print(
            table(
                f"n = 7, rows {rows[0]:,}:{rows[1]:,} -> {args.out}",
                ["quantity", "value"],
                [
                    (
                        "rows done",
                        f"{payload['rows_done']:,} of {rows[1] - rows[0]:,}"
                        + ("" if part.complete else " (incomplete: run again to resume)"),
                    ),
                    ("functions checked", f"{payload['functions_checked']:,}"),
                    (
                        "unique minimal / influence = exact",
                        f"{payload['unique_minimal']} / {payload['influence_exact']}",
                    ),
                    ("theorem", "holds" if part.tally.theorem_holds else "FAILS"),
                    (
                        "core-hours / wall seconds (all sessions)",
                        f"{payload['core_hours']:.3f} / {payload['wall_seconds']:.1f}",
                    ),
                ],
            )
        )
        _render_counterexamples(out, payload)
    return EXIT_OK if part.tally.theorem_holds else EXIT_VIOLATION


def _merge(args: argparse.Namespace) -> int:
    from enumerations.parts import PartError, merge_parts

    try:
        report = merge_parts(args.merge)
    except PartError as error:
        raise InputError(str(error)) from None
    payload = report.to_dict()
    if args.json:
        print_json(with_provenance(payload, args))
    else:
        out = console()
        gaps = ", ".join(f"{a}:{b}" for a, b in report.coverage.gaps[:5])
        overlaps = ", ".join(f"{a}:{b}" for a, b in report.coverage.overlaps[:5])
        out.print(
            table(
                f"n = 7 merged from {len(report.parts)} part file(s)",
                ["quantity", "value"],
                [
                    ("rows covered", f"{payload['rows_covered']:,} of {payload['rows_total']:,}"),
                    (
                        "every row exactly once",
                        "yes"
                        if report.coverage.exact
                        else f"NO (gaps {gaps or '-'}; overlaps {overlaps or '-'})",
                    ),
                    (
                        "functions checked",
                        f"{payload['functions_checked']:,}"
                        + (
                            " = D(7)"
                            if report.functions_match
                            else f" (D(7) = {payload['dedekind_7']:,})"
                        ),
                    ),
                    (
                        "unique minimal / influence = exact",
                        f"{payload['unique_minimal']} / {payload['influence_exact']}",
                    ),
                    ("theorem", "holds" if report.tally.theorem_holds else "FAILS"),
                    ("core-hours", f"{payload['core_hours']:.3f}"),
                    (
                        "wall seconds (longest part / sum)",
                        f"{payload['wall_seconds_max']:.1f} / {payload['wall_seconds_sum']:.1f}",
                    ),
                ],
            )
        )
        _render_counterexamples(out, payload)
    return EXIT_OK if report.verified and report.tally.theorem_holds else EXIT_VIOLATION


@contextmanager
def _eta_progress(
    enabled: bool, label: str, every: float = 60.0, unit: str = "functions"
) -> Iterator[Callable[[int, int], None] | None]:
    """Progress in ``unit`` with an ETA: a rich bar on a terminal, else a line on stderr
    every ``every`` seconds (background runs write it to their log)."""
    if not enabled:
        yield None
        return
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task(label, total=None)

            def update(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            yield update
        return
    import time

    began = time.perf_counter()
    last = [began]

    def line(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        rate = done / max(now - began, 1e-9)
        eta = (total - done) / rate if rate else float("inf")
        speed = f"{rate / 1e6:,.0f}M/s" if rate >= 1e6 else f"{rate:,.0f}/s"
        print(
            f"{label}: {done:,} of {total:,} {unit} ({100 * done / max(total, 1):.2f}%), "
            f"{speed} wall, ETA {eta / 60:,.1f} min",
            file=sys.stderr,
            flush=True,
        )

    yield line


ORDER = 30  # position of these commands in `jtms --help`
