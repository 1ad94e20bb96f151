"""``jtms fuzz``: property-based fuzzing of a revision rule, and differential testing vs clingo.

    jtms fuzz --rule MODULE:FUNCTION [--examples N] [--seed S] [--out FILE] [--json]
    jtms fuzz --differential [--examples N] [--seed S] [--backend MODULE:FUNCTION] [--json]

Exit codes: 0 no counterexample (no disagreement), 1 counterexample found, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout

from rich.text import Text

from jtms.cli import output
from jtms.cli.arguments import documented, integer
from jtms.cli.exit_codes import ExitCode
from jtms.cli.output_file import check_output, write_output
from jtms.cli.progress import progress_bar
from jtms.cli.provenance import add_manifest_argument, note_seeds, with_provenance
from theory.io.graphfile import graph_to_dict
from theory.model.errors import InputError

DEFAULT_EXAMPLES = 1000
DEFAULT_PAIRS = 10_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="fuzz a revision rule against exact revision; differential test vs clingo",
        description=(
            "Check a revision rule (a function (structure, audit) -> retired ids, like "
            "theory.semantics.revision.exact) against exact revision on random memory graphs and audits, "
            "and report the shrunk counterexample as a graph file. With --differential, check "
            "the active state of theory (and extra backends) against clingo's stable models. "
            "Exit 1 when a counterexample or disagreement is found. Example: jtms fuzz "
            "--rule myrules:my_rule --seed 3 --out ce.json, then jtms revise ce.json --rule "
            "myrules:my_rule replays the counterexample."
        ),
    )
    what = parser.add_argument_group("what to check")
    what.add_argument(
        "--rule",
        metavar="MODULE:FUNCTION",
        help="the rule to fuzz (or a built-in name: exact, influence, none)",
    )
    what.add_argument(
        "--differential",
        action="store_true",
        help="differential campaign: theory (and --backend, the engine) vs clingo",
    )
    what.add_argument(
        "--backend",
        metavar="MODULE:FUNCTION",
        action="append",
        default=[],
        help="with --differential: also check f(structure, blocked) -> active ids (repeatable)",
    )
    budget = parser.add_argument_group("budget and output")
    budget.add_argument(
        "--examples",
        type=integer,
        default=None,
        metavar="N",
        help=f"examples to run (default {DEFAULT_EXAMPLES}; with --differential: "
        f"graph/audit pairs, default {DEFAULT_PAIRS})",
    )
    budget.add_argument(
        "--seed",
        type=integer,
        default=None,
        metavar="S",
        help="random seed (default: a fresh one, printed in the report)",
    )
    budget.add_argument(
        "--out",
        metavar="FILE",
        help="write the shrunk counterexample here: the graph with its audit (a "
        "'counterexample' object), which `jtms revise FILE --rule MODULE:FUNCTION` replays",
    )
    budget.add_argument(
        "--hypothesis-dir",
        metavar="DIR",
        default=None,
        help="keep hypothesis' files (its example database) in DIR; default: a "
        "temporary folder, removed after the run",
    )
    budget.add_argument("--json", action="store_true", help="machine-readable output")
    add_manifest_argument(budget)
    shape = parser.add_argument_group("generated graphs (--rule)")
    shape.add_argument("--max-evidence", type=integer, default=5, metavar="N")
    shape.add_argument("--max-claims", type=integer, default=6, metavar="N")
    shape.add_argument(
        "--max-alternatives",
        "--max-justifications",
        dest="max_alternatives",
        type=integer,
        default=3,
        metavar="N",
        help="alternative justifications per claim (--max-justifications: its old name)",
    )
    shape.add_argument(
        "--max-antecedents",
        type=integer,
        default=3,
        metavar="N",
        help="conjuncts per justification",
    )
    shape.add_argument("--max-depth", type=integer, default=None, metavar="N")
    shape.add_argument(
        "--max-fan-in",
        type=integer,
        default=None,
        metavar="N",
        help="distinct antecedents per claim",
    )
    shape.add_argument(
        "--cycles",
        choices=["mixed", "on", "off"],
        default="mixed",
        help="support loops (default: mixed)",
    )
    shape.add_argument("--no-premises", action="store_true", help="no empty justifications")
    shape.add_argument("--no-redundant", action="store_true", help="no redundant justifications")
    shape.add_argument("--evidence-only", action="store_true", help="audit evidence only")
    documented(
        parser,
        examples=[
            "jtms fuzz --rule theory.semantics.revision:influence --examples 200 --out cex.json",
            "jtms fuzz --differential --examples 200 --json",
        ],
        keys=[
            "rule",
            "seed",
            "examples",
            "distinct_shapes",
            "counterexamples",
            "first_counterexample_at",
            "counterexample_kinds",
            "seconds",
            "cpu_seconds",
            "examples_per_second",
            "options",
            "census",
            "counterexample",
            "out",
            "provenance",
        ],
    )
    parser.set_defaults(func=run)


SHAPE_DEFAULTS: dict[str, object] = {
    "max_evidence": 5,
    "max_claims": 6,
    "max_alternatives": 3,
    "max_antecedents": 3,
    "max_depth": None,
    "max_fan_in": None,
    "cycles": "mixed",
    "no_premises": False,
    "no_redundant": False,
    "evidence_only": False,
}
"""The options of the generated graphs (``--rule`` only) and their defaults."""


def run(args: argparse.Namespace) -> int:
    if bool(args.rule) == bool(args.differential):
        raise InputError("jtms fuzz: give exactly one of --rule MODULE:FUNCTION or --differential")
    if args.examples is not None and args.examples < 1:
        raise InputError("--examples must be at least 1")
    if args.backend and not args.differential:
        raise InputError("--backend needs --differential (--rule fuzzes one rule alone)")
    if args.differential:  # its graphs are the campaign's own: the shape options do not apply
        given = [
            f"--{flag.replace('_', '-')}"
            for flag, default in SHAPE_DEFAULTS.items()
            if getattr(args, flag) != default
        ]
        if given:
            raise InputError(f"{', '.join(given)}: the graph options apply to --rule only")
    if args.out == "":
        raise InputError("--out: an empty file name (name the counterexample's file)")
    if args.out is not None:
        output.writable_file(args.out, "--out")
        check_output(args.out, "--out")
    if args.hypothesis_dir:
        output.writable_folder(args.hypothesis_dir, "--hypothesis-dir")
    with _hypothesis_home(args.hypothesis_dir):
        if args.differential:
            return _differential(args)
        return _fuzz(args)


@contextmanager
def _hypothesis_home(folder: str | None) -> Iterator[None]:
    """Hypothesis keeps its files (example database, caches) in ``folder`` when asked, else in
    a temporary folder removed after the run: never a ``.hypothesis/`` in the user's directory."""
    from hypothesis import configuration

    previous = getattr(configuration, "__hypothesis_home_directory", None)
    with tempfile.TemporaryDirectory(prefix="jtms-fuzz-") as scratch:
        configuration.set_hypothesis_home_dir(folder or scratch)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(previous)


# --- rule fuzzing ----------------------------------------------------------------------


def _fuzz(args: argparse.Namespace) -> int:
    from hypothesis.errors import InvalidArgument

    from jtms.fuzz.plugins import load_rule
    from jtms.fuzz.runner import GraphOptions, fuzz_rule  # hypothesis: only when fuzzing

    try:
        name, rule = load_rule(args.rule)
    except InputError as error:
        raise error.with_source("--rule") from None
    for flag, low in (
        ("max_evidence", 1),
        ("max_claims", 1),
        ("max_alternatives", 1),
        ("max_antecedents", 1),
        ("max_depth", 1),
        ("max_fan_in", 0),
    ):
        value = getattr(args, flag)
        if value is not None and value < low:
            raise InputError(f"--{flag.replace('_', '-')} must be at least {low}")
    options = GraphOptions(
        max_evidence=args.max_evidence,
        max_claims=args.max_claims,
        max_alternatives=args.max_alternatives,
        max_antecedents=args.max_antecedents,
        max_depth=args.max_depth,
        max_fan_in=args.max_fan_in,
        cycles={"mixed": None, "on": True, "off": False}[args.cycles],
        premises=not args.no_premises,
        redundant=not args.no_redundant,
        evidence_only=args.evidence_only,
    )
    try:
        options.validate()
    except InvalidArgument as error:  # name the flag, exit 2
        raise InputError(_as_flags(str(error))) from None
    examples = args.examples or DEFAULT_EXAMPLES
    # the rule's own prints go to stderr: stdout is the report (--json: one JSON document)
    with progress_bar(f"fuzzing {name}", every=50) as update, redirect_stdout(sys.stderr):
        report = fuzz_rule(
            rule, name=name, examples=examples, seed=args.seed, options=options, progress=update
        )
    payload = report.to_dict()
    found = None
    if payload["counterexample"] is not None:  # the graph with its audit: `revise` replays it
        ce = payload["counterexample"]
        found = {
            **ce["graph"],
            "counterexample": {
                "audit": ce["audit"],
                "rule": args.rule,
                "exact_retired": ce["exact_retired"],
                "rule_retired": ce["rule_retired"] or [],
            },
        }
    return _finish(args, payload, found, _render_fuzz, report.ok)


def _as_flags(message: str) -> str:
    """A strategy's message with its option names spelled as this command's flags."""
    return re.sub(
        r"\b(max_(?:evidence|claims|alternatives|antecedents|depth|fan_in))\b",
        lambda m: "--" + m.group(1).replace("_", "-"),
        message,
    )


def compact_graph(graph: dict) -> str:
    """The graph document as JSON, one node or justification per line."""
    nodes = ",\n   ".join(json.dumps(n) for n in graph["nodes"])
    justs = ",\n   ".join(json.dumps(j) for j in graph["justifications"])
    return f'{{"nodes": [\n   {nodes}],\n "justifications": [\n   {justs}]}}'


def _finish(
    args: argparse.Namespace,
    payload: dict,
    found: dict | None,
    render: Callable[[dict], None],
    ok: bool,
) -> int:
    """Write the counterexample to ``--out`` (if any), print the report, return the exit code."""
    payload["out"] = _write(args.out, found) if found is not None and args.out else None
    note_seeds(args, {"fuzz": payload.get("seed", args.seed)})
    if args.json:
        output.print_json(with_provenance(payload, args))
    else:
        render(payload)
    return ExitCode.of(ok)


def _write(path: str, document: dict) -> str:
    """The counterexample as a graph document (with ``counterexample``: its audit, the rule
    and what each side retired, docs/design.md section 4)."""
    write_output(path, "--out", json.dumps(document, indent=2) + "\n", "the counterexample")
    return path


def _render_fuzz(payload: dict) -> None:
    console = output.console()
    ce = payload["counterexample"]
    verdict = ("no counterexample", "green") if ce is None else ("COUNTEREXAMPLE", "red")
    console.print(Text.assemble(f"rule {payload['rule']}: ", verdict))
    console.print(
        output.table(
            "fuzz report",
            ["examples", "shapes", "failing", "under/over/error", "seconds", "ex/s", "seed"],
            [
                [
                    payload["examples"],
                    payload["distinct_shapes"],
                    payload["counterexamples"],
                    "{under} / {over} / {error}".format(**payload["counterexample_kinds"]),
                    payload["seconds"],
                    payload["examples_per_second"],
                    payload["seed"],
                ]
            ],
        )
    )
    if ce is None:
        return
    size = ce["size"]
    shrinking = ce["shrinking"]
    console.print(
        f"shrunk counterexample: {size['evidence']} evidence, {size['claims']} claims, "
        f"{size['justifications']} justifications (first found with "
        f"{shrinking['first_found']['nodes']} nodes)"
    )
    console.print(f"audit: {output.format_set(ce['audit'])}")
    if ce["error"]:
        console.print(f"the rule failed: {ce['error']}")
    else:
        console.print(f"exact retires: {output.format_set(ce['exact_retired'])}")
        console.print(f"rule retires:  {output.format_set(ce['rule_retired'])}")
        if ce["under_revised"]:
            console.print(
                Text.assemble(
                    ("under-revised", "yellow"),
                    f" (stale, kept by the rule): {output.format_set(ce['under_revised'])}",
                )
            )
        if ce["over_revised"]:
            console.print(
                Text.assemble(
                    ("over-revised", "yellow"),
                    " (still supported, retired by the rule): "
                    f"{output.format_set(ce['over_revised'])}",
                )
            )
    console.print("graph:")
    print(compact_graph(ce["graph"]))
    if payload["out"]:
        console.print(
            f"written to {payload['out']} with its audit; replay it with "
            f"`jtms revise {payload['out']} --rule {payload['rule']}` "
            f"(and `--rule exact` for the expected answer)"
        )


# --- differential campaign -------------------------------------------------------------


def _differential(args: argparse.Namespace) -> int:
    from jtms.fuzz.backends import BackendError, EngineUnderTest, FunctionBackend, engine_backend
    from jtms.fuzz.differential import CampaignOptions, differential_campaign
    from jtms.fuzz.plugins import load_rule

    backends: list[EngineUnderTest] = []
    for spec in args.backend:
        if ":" not in spec:
            raise InputError(f"--backend {spec[:200]!r}: expected MODULE:FUNCTION")
        try:
            name, function = load_rule(spec)
        except InputError as error:
            raise error.with_source("--backend") from None
        backends.append(FunctionBackend(name, function))
    skipped: dict[str, str] = {}  # kept in the JSON contract; the engine is always checked now
    backends.append(engine_backend())
    pairs = args.examples or DEFAULT_PAIRS
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    try:
        with (
            progress_bar("differential vs clingo", every=50) as update,
            redirect_stdout(sys.stderr),
        ):  # the backends' own prints go to stderr: stdout is the report
            report = differential_campaign(
                pairs,
                seed=seed,
                options=CampaignOptions(),
                backends=backends,
                skipped_backends=skipped,
                progress=update,
            )
    except BackendError as error:
        raise InputError(str(error)) from None
    payload = report.to_dict()
    payload["minimized"] = report.minimized
    found = None
    if report.minimized is not None and args.out:
        from theory.io.graphfile import parse_graph

        found = graph_to_dict(parse_graph(report.minimized["graph"]))
        if not report.minimized.get("sequence"):
            found["counterexample"] = {"audit": sorted(report.minimized["audit"])}
    return _finish(args, payload, found, _render_differential, report.ok)


def _render_differential(payload: dict) -> None:
    console = output.console()
    verdict = (
        ("zero disagreements", "green")
        if payload["disagreements"] == 0
        else ("DISAGREEMENT", "red")
    )
    console.print(Text.assemble("differential campaign vs clingo: ", verdict))
    console.print(
        output.table(
            "campaign",
            ["pairs", "graphs (cyclic)", "steps", "solves", "shapes", "seconds", "pairs/s", "seed"],
            [
                [
                    payload["pairs"],
                    f"{payload['graphs']} ({payload['cyclic_graphs']})",
                    payload["sequence_steps"],
                    payload["clingo_solves"],
                    payload["distinct_shapes"],
                    payload["seconds"],
                    payload["pairs_per_second"],
                    payload["seed"],
                ]
            ],
        )
    )
    console.print(f"checked: {', '.join(payload['checked'])}")
    for name, why in payload["skipped_backends"].items():
        console.print(f"skipped {name}: {why}")
    d = payload["disagreement"]
    if d is None:
        return
    console.print(
        f"{d['checker']} disagrees with clingo on audit {output.format_set(d['audit'])}: "
        f"clingo {output.format_set(d['clingo'])}, got {output.format_set(d['got'])}"
    )
    minimized = payload["minimized"]
    if minimized.get("sequence"):
        console.print(
            "after the sequence: "
            + "; ".join(
                f"{step['action']} {output.format_set(step['ids'])}"
                for step in minimized["sequence"]
            )
        )
    console.print(f"reduced graph (audit {output.format_set(minimized['audit'])}):")
    print(compact_graph(minimized["graph"]))
    if payload["out"]:
        console.print(f"written to {payload['out']}")


ORDER = 50  # position of these commands in `jtms --help`
