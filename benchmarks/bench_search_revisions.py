"""The one search of two revisions side by side: the compiled solver and the exchange step
of a git revision against those of the working tree, in one process, on the same graphs.

Run:  python -m benchmarks.bench_search_revisions REV [--sweep 60 --seed 7 | --held-out] [--repeats 5] [--json]

Machines of this kind are noisy, so a change to :mod:`theory.solver.cdcl` or :mod:`theory.solver.exchange`
is measured as a ratio between the two searches run alternately on each graph (CPU
seconds of this process, median of ``--repeats`` after one untimed run of each), never
against a figure from another run. The revision's ``theory/solver/label_kernel.py``,
``cone_kernel.py``, ``cone_cnf.py``, ``exchange.py`` and ``cdcl.py`` are read with ``git show``
and compiled afresh under other module names (importing each other, not the working tree's);
so is the working tree's copy of the same five files, so both sides pay the same compilation and
neither reads a cache the other wrote. Every graph's sets must agree; the table also says
whether the two took the same search path (the same decisions, conflicts and models).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.bench_justifications import LAYERED_HELD_OUT, sweep_parameters
from benchmarks.generate import layered_cyclic
from theory.model.index import index_of

MODULES = ("label_kernel", "cone_kernel", "cone_cnf", "exchange", "cdcl")
"""The files of a search, each importing only those before it (and the rest of theory/):
label_kernel too, whose helpers the others import, so a revision is read with its own."""
ROOT = Path(__file__).resolve().parent.parent


class RevisionError(Exception):
    """A revision that git cannot show (or no git at all)."""


def load_search(rev: str | None, tag: str) -> dict[str, types.ModuleType]:
    """The modules of :data:`MODULES` at ``rev`` (None: the working tree's files), compiled
    under the names ``{tag}_{module}`` and importing one another by those names."""
    loaded: dict[str, types.ModuleType] = {}
    for name in MODULES:
        path = f"theory/{name}.py"
        if rev is None:
            source = (ROOT / path).read_text()
        else:
            try:
                done = subprocess.run(
                    ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True
                )
            except OSError as error:
                raise RevisionError(f"cannot run git: {error}") from error
            if done.returncode != 0:
                raise RevisionError(
                    f"git cannot show {rev}:{path}: {done.stderr.strip().splitlines()[-1]}"
                )
            source = done.stdout
        source = source.replace("cache=True", "cache=False")
        for earlier in loaded:
            source = source.replace(f"from theory.{earlier} import", f"from {tag}_{earlier} import")
        module = types.ModuleType(f"{tag}_{name}")
        module.__file__ = f"{tag}_{name}.py"
        sys.modules[module.__name__] = module
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        loaded[name] = module
    return loaded


def _run(
    modules: dict[str, types.ModuleType], index: Any, root: int
) -> tuple[frozenset[frozenset[str]], float, tuple[int, ...] | None]:
    oracle = modules["cone_kernel"].ConeOracle(index, root)
    cnf = modules["cone_cnf"].cone_cnf(oracle)
    # the exchange attempts the revision's minimal_justifications gives its compiled solver
    attempts = getattr(modules["cdcl"], "ATTEMPTS", modules["exchange"].ATTEMPTS)
    exchange = modules["exchange"].Exchange(oracle, attempts=attempts)
    started = time.process_time()
    counts = modules["cdcl"].search(cnf, exchange)
    seconds = time.process_time() - started
    ids = index.ids
    path = None if counts is None else tuple(int(x) for x in counts)  # decisions, conflicts, models
    return frozenset(frozenset(ids[n] for n in m.tolist()) for m in exchange.found()), seconds, path


def compare(
    old: dict[str, types.ModuleType],
    new: dict[str, types.ModuleType],
    params: list[tuple[int, int, int, int, float]],
    repeats: int,
) -> list[dict]:
    """Each graph ``layered_cyclic(*p[:4], back_edges=p[4])``: both searches alternately,
    one untimed run each then ``repeats`` timed; the sets compared, and the search paths
    (the same decisions, conflicts and models counted: a change that only makes the same
    search cheaper keeps them)."""
    rows = []
    for i, p in enumerate(params):
        index = index_of(layered_cyclic(*p[:4], back_edges=p[4]))
        root = index.number["root"]
        old_sets, _, old_path = _run(old, index, root)
        new_sets, _, new_path = _run(new, index, root)
        times: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(repeats):
            times["old"].append(_run(old, index, root)[1])
            times["new"].append(_run(new, index, root)[1])
        o, n = statistics.median(times["old"]), statistics.median(times["new"])
        rows.append(
            {
                "case": f"layered_cyclic{p}",
                "minimal_justifications": len(new_sets),
                "old": o,
                "new": n,
                "new_over_old": n / o if o > 0 else math.nan,
                "agree": old_sets == new_sets,
                "same_path": old_path is not None and old_path == new_path,
            }
        )
        print(f"\r{i + 1}/{len(params)} graphs", end="", flush=True, file=sys.stderr)
    print(file=sys.stderr)
    return rows


def summary(rows: list[dict]) -> dict:
    """The ratio of the summed times, the geometric mean and the extremes of the per-graph
    ratios, and whether every graph's sets agreed."""
    ratios = [r["new_over_old"] for r in rows]
    return {
        "graphs": len(rows),
        "sum_ratio": sum(r["new"] for r in rows) / sum(r["old"] for r in rows),
        "geometric_mean": math.exp(statistics.mean(math.log(x) for x in ratios)),
        "min": min(ratios),
        "max": max(ratios),
        "all_agree": all(r["agree"] for r in rows),
        "same_path": sum(r["same_path"] for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_search_revisions",
        description="The compiled one search of a git revision against the working tree's, in one process.",
    )
    parser.add_argument("rev", help="the git revision to compare with (a commit, a branch, HEAD)")
    parser.add_argument(
        "--sweep",
        type=int,
        metavar="COUNT",
        default=60,
        help="COUNT random graphs of the bench_justifications --sweep family (default 60)",
    )
    parser.add_argument("--seed", type=int, default=7, help="the --sweep draw (default 7)")
    parser.add_argument(
        "--held-out", action="store_true", help="the eight held-out graphs instead of a sweep"
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed runs of each search per graph (default 5)"
    )
    parser.add_argument("--json", action="store_true", help="rows and summary as JSON")
    args = parser.parse_args(argv)
    if args.sweep < 1 or args.repeats < 1:
        parser.error("--sweep COUNT and --repeats need at least 1")
    try:
        old = load_search(args.rev, "revision")
    except RevisionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    new = load_search(None, "worktree")
    params = list(LAYERED_HELD_OUT) if args.held_out else sweep_parameters(args.sweep, args.seed)
    rows = compare(old, new, params, args.repeats)
    total = summary(rows)
    if args.json:
        print(json.dumps({"rev": args.rev, "rows": rows, "summary": total}, indent=2))
        return 0
    table = Table(
        title=f"The one search: {args.rev} against the working tree, CPU seconds, median of {args.repeats}"
    )
    for column in ["case", "#min", args.rev, "working tree", "tree / rev", "agree", "same path"]:
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["case"],
            str(r["minimal_justifications"]),
            f"{r['old']:.4f}",
            f"{r['new']:.4f}",
            f"{r['new_over_old']:.3f}",
            str(r["agree"]),
            str(r["same_path"]),
        )
    Console(width=160).print(table)
    print(
        f"working tree / {args.rev} over {total['graphs']} graphs: {total['sum_ratio']:.3f} of the summed time, "
        f"geometric mean {total['geometric_mean']:.3f}, range {total['min']:.2f}-{total['max']:.2f}; "
        f"all sets agree: {total['all_agree']}; the same search path on {total['same_path']} of {total['graphs']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
