"""Fuzzing and differential-testing throughput, side by side in one run.

Run:  python -m benchmarks.bench_fuzz [--examples 1000] [--pairs 20000] [--seed 0] [--json]

1. ``jtms fuzz`` on the built-in rules: examples per second (explore phase), counterexamples
   seen, size of the shrunk counterexample and the time shrinking took.
2. The active-state oracles on the same pre-generated (graph, audits) cases: clingo
   multi-shot (one ground program per graph, audits as external atoms; backend API and
   text encoding), clingo from scratch (a new Control per audit), and theory's fixpoint.
   Answers are checked equal; times are ratios to multi-shot clingo.
3. The differential campaign (theory vs clingo): pairs per second.
"""

from __future__ import annotations

import argparse
import json
import time

from hypothesis import Phase, given
from hypothesis import seed as hypothesis_seed
from rich.console import Console
from rich.table import Table

from jtms.fuzz.clingo_oracle import ClingoOracle, fresh_active_state
from jtms.fuzz.differential import (
    CampaignOptions,
    campaign_cases,
    case_audits,
    differential_campaign,
)
from jtms.fuzz.runner import fuzz_rule, hypothesis_settings
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import RULES


def bench_rules(examples: int, seed: int) -> list[dict]:
    rows = []
    for name in ("none", "influence", "exact"):
        report = fuzz_rule(RULES[name], name=name, examples=examples, seed=seed)
        ce = report.counterexample
        rows.append(
            {
                "rule": name,
                "examples": report.examples,
                "seconds": round(report.seconds, 2),
                "cpu_seconds": round(report.cpu_seconds, 2),
                "examples_per_second": round(report.examples_per_second, 1),
                "examples_per_cpu_second": round(report.examples / report.cpu_seconds, 1),
                "counterexamples": report.counterexamples,
                "distinct_shapes": report.distinct_shapes,
                "first_counterexample_at": report.first_counterexample_at,
                "shrunk_nodes": None if ce is None else len(ce.structure.nodes),
                "shrunk_justifications": None if ce is None else len(ce.structure.justifications),
                "first_found_nodes": None if ce is None else ce.first_found_size["nodes"],
                "after_hypothesis_nodes": None if ce is None else ce.hypothesis_size["nodes"],
                "shrink_seconds": None if ce is None else round(ce.shrink_seconds, 2),
            }
        )
    return rows


def generate_cases(graphs: int, seed: int) -> list:
    cases = []

    @hypothesis_seed(seed)
    @hypothesis_settings(graphs, (Phase.generate,))
    @given(campaign_cases(CampaignOptions()))
    def collect(case):
        cases.append(case)

    collect()
    return cases


def bench_oracles(graphs: int, seed: int) -> dict:
    cases = generate_cases(graphs, seed)
    work = [(c.structure, case_audits(c)) for c in cases]
    pairs = sum(len(a) for _, a in work)
    results: dict[str, tuple[float, list]] = {}

    def run(name, per_graph):
        start = time.perf_counter()
        answers = [per_graph(s, audits) for s, audits in work]
        results[name] = (time.perf_counter() - start, answers)

    def multishot(encoding):
        def per_graph(structure, audits):
            oracle = ClingoOracle(structure, encoding)
            return [oracle.active(a) for a in audits]

        return per_graph

    run("clingo multi-shot (backend)", multishot("backend"))
    run("clingo multi-shot (text)", multishot("text"))
    run(
        "clingo fresh Control per audit",
        lambda s, audits: [fresh_active_state(s, a) for a in audits],
    )
    run("theory fixpoint", lambda s, audits: [active_state(s, blocked=a) for a in audits])
    reference = results["clingo multi-shot (backend)"][1]
    base = results["clingo multi-shot (backend)"][0]
    rows = []
    for name, (seconds, answers) in results.items():
        rows.append(
            {
                "method": name,
                "seconds": round(seconds, 3),
                "pairs_per_second": round(pairs / seconds, 1),
                "ratio_to_multishot": round(seconds / base, 2),
                "agrees": answers == reference,
            }
        )
    return {"graphs": len(work), "pairs": pairs, "methods": rows}


def bench_campaign(pairs: int, seed: int) -> dict:
    report = differential_campaign(pairs, seed=seed)
    d = report.to_dict()
    return {
        k: d[k]
        for k in (
            "pairs",
            "graphs",
            "cyclic_graphs",
            "sequence_steps",
            "clingo_solves",
            "distinct_shapes",
            "disagreements",
            "seconds",
            "cpu_seconds",
            "pairs_per_second",
        )
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="fuzz examples per rule")
    parser.add_argument("--graphs", type=int, default=300, help="graphs for the oracle comparison")
    parser.add_argument("--pairs", type=int, default=20_000, help="differential campaign pairs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = {
        "rules": bench_rules(args.examples, args.seed),
        "oracles": bench_oracles(args.graphs, args.seed),
        "campaign": bench_campaign(args.pairs, args.seed),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    console = Console()
    table = Table(
        title=f"jtms fuzz, {args.examples} examples per rule, seed {args.seed}",
        title_justify="left",
    )
    for column in (
        "rule",
        "ex/s",
        "ex/cpu-s",
        "failing",
        "shapes",
        "first found",
        "after hypothesis",
        "shrunk (nodes/justs)",
        "shrink s",
    ):
        table.add_column(column)
    for r in result["rules"]:
        table.add_row(
            r["rule"],
            str(r["examples_per_second"]),
            str(r["examples_per_cpu_second"]),
            str(r["counterexamples"]),
            str(r["distinct_shapes"]),
            str(r["first_found_nodes"] or "-"),
            str(r["after_hypothesis_nodes"] or "-"),
            "-"
            if r["shrunk_nodes"] is None
            else f"{r['shrunk_nodes']}/{r['shrunk_justifications']}",
            str(r["shrink_seconds"] or "-"),
        )
    console.print(table)
    oracles = result["oracles"]
    table = Table(
        title=f"active-state oracles on {oracles['graphs']} graphs, {oracles['pairs']} audits",
        title_justify="left",
    )
    for column in ("method", "seconds", "pairs/s", "x multi-shot", "agrees"):
        table.add_column(column)
    for r in oracles["methods"]:
        table.add_row(
            r["method"],
            str(r["seconds"]),
            str(r["pairs_per_second"]),
            str(r["ratio_to_multishot"]),
            str(r["agrees"]),
        )
    console.print(table)
    c = result["campaign"]
    console.print(
        f"differential campaign: {c['pairs']} pairs on {c['graphs']} graphs "
        f"({c['cyclic_graphs']} cyclic), {c['disagreements']} disagreements, "
        f"{c['seconds']} s ({c['cpu_seconds']} s CPU), {c['pairs_per_second']} pairs/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
