"""Stored raw results of the large bounded runs, and the docs table regenerated from them.

``proofs/records/boundary.jsonl`` is the record (small source data, committed): one JSON
object per solved or certified instance, appended as each finishes. The table in
docs/proofs.md between the ``records:begin`` / ``records:end`` markers is generated from it,
so every figure there traces to a stored line and the command that produced it:

    nice -n 19 python -m proofs.records run --min-n 1 --max-n 9 >> proofs/records/boundary.jsonl
    python -m proofs.records table --write docs/proofs.md

``run`` does, for each n: CaDiCaL, Glucose and z3 (z3 up to ``--z3-max-n``) without and with
lex-leader symmetry breaking; a DRUP certificate from CaDiCaL checked by dratify, without
and with symmetry breaking (``--certify``: off, on, both); and at ``--mutants-n`` every
bounded mutant of the statement on CaDiCaL and z3 (each must be SAT). ``--no-solve`` skips the plain solver
runs (certificates and mutants only).
Certificates with symmetry breaking certify CNF + lex-leader clauses; that adding those
clauses keeps satisfiability is the assumption proved by ``Symmetry.v:lex_leader_sound``
(with the orbit check of :mod:`proofs.symmetry_check`).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from proofs.bounded import solve
from proofs.certificate import certify
from proofs.results import ProofResult
from proofs.statements import MUTANTS

RECORD = Path(__file__).resolve().parent / "records" / "boundary.jsonl"
BEGIN, END = "<!-- records:begin -->", "<!-- records:end -->"


def row(kind: str, r: ProofResult) -> dict[str, Any]:
    return {
        "kind": kind,
        "statement": r.statement,
        "n": r.n,
        "solver": r.solver,
        "symmetry": r.symmetry,
        "result": r.result,
        "expected": r.expected,
        "ok": r.ok,
        "seconds": round(r.seconds, 3),
        "cpu_seconds": None if r.cpu_seconds is None else round(r.cpu_seconds, 3),
        **{
            k: v
            for k, v in r.details.items()
            if k in ("variables", "clauses", "lemmas", "check_cpu_seconds", "solve_cpu_seconds")
        },
        "date": time.strftime("%Y-%m-%d"),
        "python": platform.python_version(),
    }


def run(
    statement: str,
    ns: Iterable[int],
    z3_max_n: int,
    certify_modes: list[bool],
    mutants_n: int | None,
    solve_too: bool = True,
) -> Iterator[dict[str, Any]]:
    for n in ns:
        for symmetry in (False, True) if solve_too else ():
            for solver in ("cadical", "glucose", "z3"):
                if solver != "z3" or n <= z3_max_n:
                    yield row("solve", solve(statement, n, solver, symmetry))
        for symmetry in certify_modes:
            yield row("certify", certify(statement, n, "dratify", symmetry))
        if n == mutants_n:
            for mutant in MUTANTS:
                if mutant.mutant_of == statement:
                    for solver in ("cadical", "z3"):
                        yield row("mutant", solve(mutant.name, n, solver))


def load(path: Path = RECORD) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cpu(
    rows: list[dict[str, Any]], n: int, solver: str, symmetry: bool, kind: str = "solve"
) -> str:
    hits = [
        r
        for r in rows
        if r["kind"] == kind and r["n"] == n and r["solver"] == solver and r["symmetry"] == symmetry
    ]
    if not hits:
        return "-"
    r = hits[-1]
    if not r["ok"]:
        return f"{r['result']} (expected {r['expected']})"
    if kind == "certify":
        return f"{r['lemmas']:,} lemmas, check {r['check_cpu_seconds']:.3g}"
    return f"{r['cpu_seconds']:.3g}"


def table(rows: list[dict[str, Any]]) -> str:
    """The markdown table (and headline) of docs/proofs.md, from the stored rows."""
    ns = sorted({r["n"] for r in rows})
    lines = [
        "| n | CaDiCaL | + lex | Glucose | + lex | z3 | + lex | DRUP (dratify) | + lex | mutants |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in ns:
        mutants = [r for r in rows if r["kind"] == "mutant" and r["n"] == n]
        mutant_cell = f"{sum(r['ok'] for r in mutants)}/{len(mutants)} SAT" if mutants else "-"
        cells = [
            _cpu(rows, n, s, sym) for s in ("cadical", "glucose", "z3") for sym in (False, True)
        ]
        cells += [_cpu(rows, n, "cadical+dratify", sym, "certify") for sym in (False, True)]
        lines.append(f"| {n} | " + " | ".join(cells + [mutant_cell]) + " |")
    certified = {}
    for sym in (False, True):
        done = {r["n"] for r in rows if r["kind"] == "certify" and r["ok"] and r["symmetry"] == sym}
        k = 0
        while k + 1 in done:
            k += 1
        certified[sym] = k
    unsat_all = all(r["ok"] for r in rows)
    lines += [
        "",
        f"Every stored instance as expected: {'yes' if unsat_all else 'NO'}. "
        f"Certified (DRUP checked by dratify) for every n ≤ {certified[False]} without and "
        f"every n ≤ {certified[True]} with symmetry breaking. CPU seconds "
        "(`time.process_time`, encoding included); certificates: lemmas and checker CPU "
        "seconds. Generated by `python -m proofs.records table --write docs/proofs.md` "
        f"from {len(rows)} rows of `proofs/records/boundary.jsonl`.",
    ]
    return "\n".join(lines)


def write_table(doc: Path, rows: list[dict[str, Any]]) -> None:
    text = doc.read_text()
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{doc}: no {BEGIN} ... {END} markers")
    doc.write_text(head + BEGIN + "\n" + table(rows) + "\n" + END + tail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m proofs.records",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="solve/certify and print one JSON line per instance")
    r.add_argument("--statement", default="boundary")
    r.add_argument("--min-n", type=int, default=1)
    r.add_argument("--max-n", type=int, default=9)
    r.add_argument("--z3-max-n", type=int, default=10)
    r.add_argument("--certify", choices=("off", "on", "both"), default="both")
    r.add_argument("--mutants-n", type=int, default=None)
    r.add_argument("--no-solve", action="store_true", help="only certificates and mutants")
    t = sub.add_parser("table", help="print (or --write into a markdown file) the table")
    t.add_argument("--records", type=Path, default=RECORD)
    t.add_argument("--write", type=Path, default=None, metavar="DOC")
    args = parser.parse_args(argv)
    if args.command == "run":
        modes = {"off": [], "on": [True], "both": [False, True]}[args.certify]
        for line in run(
            args.statement,
            range(args.min_n, args.max_n + 1),
            args.z3_max_n,
            modes,
            args.mutants_n,
            not args.no_solve,
        ):
            print(json.dumps(line, sort_keys=True), flush=True)
        return 0
    rows = load(args.records)
    if args.write:
        write_table(args.write, rows)
    else:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
