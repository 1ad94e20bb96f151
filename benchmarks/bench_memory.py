"""The memory across processes: cold commands, open, warm audits and catch-up, in one run.

    python benchmarks/bench_memory.py                                  # 100k claims, the goals
    python benchmarks/bench_memory.py --curve 10000,100000,1000000     # open / first / warm audit
    python benchmarks/bench_memory.py --db-url postgresql://USER@HOST:PORT/DB   # on PostgreSQL

Graph: ``bench_reconsolidation.make_graph`` (N claims, N/5 evidence, 5% back-edges, so with
cycles). Each round audits 1% of the evidence (200 items at 100k claims), chosen at random,
and is reinstated afterwards (not timed). No timed audit names evidence an earlier one named
(:func:`fresh_sets`; at 100k claims the five phases use all 20,000 evidence once): an undone
audit leaves the claims that switched justification on their new one, so repeating a set
would measure a smaller region than a new audit meets.

Measured, medians over the rounds, wall and CPU:

- ``cold``: ``jtms audit --invalidate <200 ids> --reason r --db PATH`` as a new process
  (output discarded; ``cold_audit_text`` is the table for people, ``cold_audit`` the
  ``--json`` output) against ``jtms --help`` in the same round (goal: <= 2.5x); both read
  the bytecode :func:`compile_sources` writes first, as an installed package has it;
- ``import``: ``Memory.create`` + ``import_graph`` of the graph document, against ltms
  building the same graph in memory (``ltms_build_s``; goal: import <= ltms's build); the
  two alternate ``--import-rounds`` times (3), and the figures are their medians;
- ``open_first``: ``Memory.open`` + loading its state + the first audit, in process (<= 150 ms);
- ``warm``: the audit of a warm memory, commit included (synchronous=FULL), against ltms's
  in-memory retraction of the same evidence on the same graph (<= 0.3x), as medians and as
  means (``warm_vs_ltms_mean``: the mean counts the checkpoint refreshes that fall in audits);
- with ``--grow``, each warm audit follows the addition of one evidence and one claim
  (not timed; ltms adds them too), as an agent adds what it learns between audits: an open
  memory holds additions in per-node lists until its index is compacted;
- ``catch_up``: another connection (a writer process, for SQLite) audits; the next call of a
  warm memory (``is_active``) applies it from the log, against doing that audit (<= 3x).

ltms must retire exactly what this engine retires (checked every round). Ratios come from the
same run; run it under ``nice -n 19`` on a shared machine and compare ratios, not times.
``--db-url`` puts the memory in a PostgreSQL database (a memory named ``bench_<size>``,
dropped afterwards) instead of an SQLite file; the cold commands then name that location.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_reconsolidation import LTMS, make_graph  # noqa: E402
from jtms.memory.memory import Memory  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> "Clock":
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall.append(time.perf_counter() - self._wall)
        self.cpu.append(time.process_time() - self._cpu)

    def add(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)

    def ms(self) -> tuple[float, float]:
        return (
            round(statistics.median(self.wall) * 1000, 1),
            round(statistics.median(self.cpu) * 1000, 1),
        )


def compile_sources() -> None:
    """Write the bytecode of the project's packages, as installing them does, so that the
    cold commands read it rather than compile their sources each time: in an environment
    with ``PYTHONDONTWRITEBYTECODE`` set (CI, these machines) every child would otherwise
    compile every module it imports, which costs ``jtms --help`` (it imports every command)
    more than an audit and so flatters the ratio (0.27 s against 0.14 s for ``--help``)."""
    for package in ("jtms", "theory"):
        compileall.compile_dir(ROOT / package, quiet=1)


def _process(argv: list[str], accept: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds of one child process (which must exit with a code in ``accept``),
    reading the bytecode :func:`compile_sources` wrote."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in accept:
        raise SystemExit(f"{argv[:2]} failed: {done.stderr[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _jtms() -> list[str]:
    return [sys.executable, "-m", "jtms"]


def _location(folder: Path, db_url: str | None, name: str) -> str:
    """An SQLite file in ``folder``, or a memory ``name`` of the PostgreSQL database ``db_url``
    (dropped first if a previous run left it)."""
    if db_url is None:
        return str(folder / f"{name}.db")
    from jtms.store.postgres import drop_memories

    location = f"{db_url}{'&' if '?' in db_url else '?'}memory={name}"
    drop_memories([location])
    return location


def _drop(location: str, db_url: str | None) -> None:
    """Remove a memory made only to time an import."""
    if db_url is None:
        for suffix in ("", "-wal", "-shm"):
            Path(location + suffix).unlink(missing_ok=True)
        return
    from jtms.store.postgres import drop_memories

    drop_memories([location])


GRAPHS = ("bench", "agent")


def graph_document(n_claims: int, seed: int, graph: str = "bench", texts: bool = False) -> dict:
    """The benchmark's graph document: ``bench`` (``bench_reconsolidation.make_graph``, 5%
    back-edges) or ``agent`` (``benchmarks.generate.memory``: antecedents drawn from recent
    items, depth-limited chains, 5% back-edges); both name N/5 evidence ``e0``... ``texts``:
    every node gets a text, as imported documents often have."""
    if graph == "agent":
        from benchmarks.generate import memory
        from theory.io.graphfile import graph_to_dict

        document = graph_to_dict(memory(n_claims, seed=seed, back_edges=0.05))
    else:
        document = make_graph(n_claims, seed=seed, back_edges=0.05)
    if texts:
        for node in document["nodes"]:
            node["text"] = f"observation {node['id']}"
    return document


def run_goals(
    n_claims: int,
    rounds: int,
    seed: int,
    folder: Path,
    peers: bool,
    db_url: str | None = None,
    import_rounds: int = 3,
    graph: str = "bench",
    texts: bool = False,
    grow: bool = False,
) -> dict:
    document = graph_document(n_claims, seed, graph, texts)
    n_evidence = n_claims // 5
    size = max(1, n_evidence // 100)
    db = _location(folder, db_url, f"bench_goals_{n_claims}")
    result: dict = {
        "backend": "postgresql" if db_url else "sqlite",
        "claims": n_claims,
        "evidence": n_evidence,
        "audit_size": size,
        "rounds": rounds,
        "graph": graph + (" with texts" if texts else ""),
        "grow": grow,
    }
    # the import and ltms's build alternate, import_rounds times each (medians: one import is
    # a second or two, and this machine's noise is of that order); the first memory is kept
    import_clock, build_clock = Clock(), Clock()
    ltms = None
    for k in range(import_rounds):
        target = db if k == 0 else _location(folder, db_url, f"bench_goals_{n_claims}_{k}")
        gc.collect()
        with import_clock:
            with Memory.create(target) as memory:
                memory.import_graph(document, source="bench")
        if k:
            _drop(target, db_url)
        if peers:
            ltms = None
            gc.collect()
            with build_clock:
                ltms = LTMS(document)
    result["import_s"] = round(statistics.median(import_clock.wall), 2)
    result["import_cpu_s"] = round(statistics.median(import_clock.cpu), 2)
    result["import_runs_s"] = [round(t, 2) for t in import_clock.wall]
    if db_url is None:
        result["file_mb"] = round(os.path.getsize(db) / 1e6, 1)
    if peers:
        result["ltms_build_s"] = round(statistics.median(build_clock.wall), 2)
        result["ltms_build_cpu_s"] = round(statistics.median(build_clock.cpu), 2)
        result["ltms_build_runs_s"] = [round(t, 2) for t in build_clock.wall]
        result["import_vs_ltms_build"] = round(result["import_s"] / result["ltms_build_s"], 2)
        result["import_vs_ltms_build_cpu"] = round(
            result["import_cpu_s"] / result["ltms_build_cpu_s"], 2
        )
    del document
    gc.collect()
    # every timed audit is of evidence no earlier audit of this memory named: an audit that
    # is undone leaves the claims that switched justification on their new one, so auditing
    # the same set again touches a smaller region (a third fewer nodes visited)
    phases = fresh_sets(n_evidence, size, rounds, 5, seed + 7)
    text_sets, json_sets, open_sets, sets, foreign_sets = phases
    helper = Memory.open(db)

    def undo(audit_id: int | None) -> None:
        if audit_id is not None:
            helper.reinstate(audit_id)

    # cold processes: jtms --help, then the audit (a table, then JSON), in the same round
    help_clock, cold_clock, text_clock = Clock(), Clock(), Clock()
    for text_roots, json_roots in zip(text_sets, json_sets):
        help_clock.add(*_process(_jtms() + ["--help"]))
        for roots, clock, extra in (
            (text_roots, text_clock, []),
            (json_roots, cold_clock, ["--json"]),
        ):
            audit = _jtms() + ["audit", "--invalidate", ",".join(roots), "--reason", "bench"]
            clock.add(*_process(audit + ["--db", str(db), *extra]))
            undo(max(helper.open_audits()))
    # Memory.open + the first audit
    open_clock = Clock()
    for roots in open_sets:
        with open_clock:
            memory = Memory.open(db)
            outcome = memory.audit(roots, reason="bench open")
        memory.close()
        undo(outcome.audit_id)
    # warm audits (commit included) against ltms on the same sets
    warm = Memory.open(db)
    warm.active_ids()
    warm_clock, ltms_clock = Clock(), Clock()
    same = True
    for k, roots in enumerate(sets):
        if grow:  # as an agent does between audits: one new evidence, one claim on it
            evidence, claim = f"grown_e{k}", f"grown_c{k}"
            antecedents = [evidence, roots[0]]  # so that the audit retires the claim
            warm.add_evidence(evidence)
            warm.add_claim(claim, [antecedents])
            if ltms is not None:
                ltms.add(evidence, claim, antecedents)
        gc.disable()
        with warm_clock:
            outcome = warm.audit(roots, reason="bench warm")
        gc.enable()
        warm.reinstate(outcome.audit_id)
        if ltms is not None:
            before = ltms.active()
            gc.disable()
            with ltms_clock:
                ltms.audit(roots)
            gc.enable()
            same &= (before - ltms.active()) == outcome.retired
            ltms.restore(roots)
    # catch-up: another connection audits, the warm memory's next call applies it
    do_clock, catch_clock = Clock(), Clock()
    writer = Memory.open(db)
    writer.active_ids()
    for roots in foreign_sets:
        warm.is_active("e0")
        with do_clock:
            outcome = writer.audit(roots, reason="bench foreign")
        loads = warm.loads
        with catch_clock:
            warm.is_active("e0")
        assert warm.loads == loads, "the warm memory reloaded instead of catching up"
        assert warm.open_audits() == writer.open_audits()
        writer.reinstate(outcome.audit_id)
    result["integrity_ok"] = warm.integrity_problems() == []
    for memory in (warm, writer, helper):
        memory.close()
    if db_url is not None:
        from jtms.store.postgres import drop_memories

        drop_memories([db])
    for name, clock in [
        ("help", help_clock),
        ("cold_audit_text", text_clock),
        ("cold_audit", cold_clock),
        ("open_first_audit", open_clock),
        ("warm_audit", warm_clock),
        ("foreign_audit", do_clock),
        ("catch_up", catch_clock),
    ]:
        result[f"{name}_ms"], result[f"{name}_cpu_ms"] = clock.ms()
    result["cold_vs_help"] = round(
        statistics.median(cold_clock.wall) / statistics.median(help_clock.wall), 2
    )
    result["cold_vs_help_cpu"] = round(
        statistics.median(cold_clock.cpu) / statistics.median(help_clock.cpu), 2
    )
    result["cold_text_vs_help"] = round(
        statistics.median(text_clock.wall) / statistics.median(help_clock.wall), 2
    )
    result["cold_text_vs_help_cpu"] = round(
        statistics.median(text_clock.cpu) / statistics.median(help_clock.cpu), 2
    )
    result["catch_up_vs_doing"] = round(
        statistics.median(catch_clock.wall) / statistics.median(do_clock.wall), 2
    )
    # the mean counts the checkpoint refreshes that fell in the timed audits (a median hides
    # them; at 100k claims, 200 evidence each, about one audit in five refreshes)
    result["warm_audit_mean_ms"] = round(statistics.mean(warm_clock.wall) * 1000, 1)
    if ltms is not None:
        result["ltms_retract_ms"], result["ltms_retract_cpu_ms"] = ltms_clock.ms()
        result["warm_vs_ltms"] = round(
            statistics.median(warm_clock.wall) / statistics.median(ltms_clock.wall), 2
        )
        result["warm_vs_ltms_cpu"] = round(
            statistics.median(warm_clock.cpu) / statistics.median(ltms_clock.cpu), 2
        )
        result["warm_vs_ltms_mean"] = round(
            statistics.mean(warm_clock.wall) / statistics.mean(ltms_clock.wall), 2
        )
        result["ltms_same_retired"] = same
    return result


def fresh_sets(
    n_evidence: int, size: int, rounds: int, phases: int, seed: int
) -> list[list[list[str]]]:
    """``phases`` lists of ``rounds`` audit sets of ``size`` evidence ids each, all disjoint
    while the evidence lasts (then a new shuffle of all of it starts): no timed audit repeats
    an earlier one."""
    rng = random.Random(seed)
    pool: list[int] = []
    result = []
    for _ in range(phases):
        phase = []
        for _ in range(rounds):
            if len(pool) < size:
                pool = rng.sample(range(n_evidence), n_evidence)
            phase.append(sorted(f"e{i}" for i in pool[-size:]))
            del pool[-size:]
        result.append(phase)
    return result


def run_curve(sizes: list[int], rounds: int, seed: int, folder: Path) -> list[dict]:
    rows = []
    for n in sizes:
        document = make_graph(n, seed=seed, back_edges=0.05)
        n_evidence = n // 5
        db = folder / f"curve-{n}.db"
        started, cpu = time.perf_counter(), time.process_time()
        with Memory.create(db) as memory:
            memory.import_graph(document, source="bench")
        row: dict = {
            "claims": n,
            "import_s": round(time.perf_counter() - started, 1),
            "import_cpu_s": round(time.process_time() - cpu, 1),
            "file_mb": round(os.path.getsize(db) / 1e6, 1),
        }
        del document
        gc.collect()
        rng = random.Random(seed + 3)
        size = max(1, n_evidence // 100)
        open_clock, first_clock, warm_clock = Clock(), Clock(), Clock()
        for _ in range(rounds):
            with open_clock:
                memory = Memory.open(db)
                memory.is_active("e0")  # loads the state (checkpoint + log tail)
            with first_clock:
                outcome = memory.audit(
                    [f"e{i}" for i in rng.sample(range(n_evidence), size)], reason="curve first"
                )
            memory.reinstate(outcome.audit_id)
            for _ in range(2):
                roots = [f"e{i}" for i in rng.sample(range(n_evidence), size)]
                gc.disable()
                with warm_clock:
                    outcome = memory.audit(roots, reason="curve warm")
                gc.enable()
                memory.reinstate(outcome.audit_id)
            memory.close()
        row["audit_size"] = size
        # one cold audit (a table) and `jtms check --summary`, each a new process
        roots = [f"e{i}" for i in rng.sample(range(n_evidence), size)]
        help_wall, help_cpu = _process(_jtms() + ["--help"])
        cold_wall, cold_cpu = _process(
            _jtms() + ["audit", "--invalidate", ",".join(roots), "--reason", "r", "--db", str(db)]
        )
        row["help_ms"], row["help_cpu_ms"] = round(help_wall * 1000), round(help_cpu * 1000)
        row["cold_audit_text_ms"], row["cold_audit_text_cpu_ms"] = (
            round(cold_wall * 1000),
            round(cold_cpu * 1000),
        )
        check_wall, check_cpu = _process(_jtms() + ["check", "--db", str(db), "--summary"], (0, 1))
        row["check_summary_s"], row["check_summary_cpu_s"] = (
            round(check_wall, 1),
            round(check_cpu, 1),
        )
        # peak resident sizes so far (monotonic): this process (import, open, audits) and the
        # largest child (the cold commands, the check)
        row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        row["peak_child_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        )
        for name, clock in [
            ("open", open_clock),
            ("first_audit", first_clock),
            ("warm_audit", warm_clock),
        ]:
            row[f"{name}_ms"], row[f"{name}_cpu_ms"] = clock.ms()
        rows.append(row)
        print(json.dumps(row), flush=True)
        db.unlink()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--curve", default=None, help="sizes, e.g. 10000,100000,1000000")
    parser.add_argument("--no-peers", action="store_true", help="skip ltms")
    parser.add_argument(
        "--graph",
        choices=GRAPHS,
        default="bench",
        help="bench: make_graph (the default); agent: benchmarks.generate.memory",
    )
    parser.add_argument("--texts", action="store_true", help="give every node a text")
    parser.add_argument(
        "--grow",
        action="store_true",
        help="before each warm audit, add one evidence and one claim resting on it and on "
        "the audit's first root (outside the clock; ltms adds them too), as an agent adds "
        "what it learns between audits",
    )
    parser.add_argument(
        "--import-rounds",
        type=int,
        default=3,
        help="imports (and ltms builds, alternating) whose median is the import figure",
    )
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    parser.add_argument(
        "--db-url", default=None, help="a PostgreSQL database URL: the memory goes there"
    )
    args = parser.parse_args(argv)
    compile_sources()
    with tempfile.TemporaryDirectory() as tmp:
        if args.curve:
            results: object = run_curve(
                [int(s) for s in args.curve.split(",")], args.rounds, args.seed, Path(tmp)
            )
        else:
            goals = run_goals(
                args.claims,
                args.rounds,
                args.seed,
                Path(tmp),
                not args.no_peers,
                args.db_url,
                args.import_rounds,
                args.graph,
                args.texts,
                args.grow,
            )
            results = goals
            print(json.dumps(results), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
