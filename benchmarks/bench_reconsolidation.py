"""Selective reconsolidation benchmark: this engine against its peers, side by side, one run.

    python benchmarks/bench_reconsolidation.py                      # 100k claims, DAG + 5% back-edges
    python benchmarks/bench_reconsolidation.py --claims 10000 --audits 5 --no-cycles
    python benchmarks/bench_reconsolidation.py --curve 10000,100000,1000000 --peers none
    python benchmarks/bench_reconsolidation.py --loop               # the support-loop case only

Graph shape (issue 5): N claims, N/5 evidence; each claim has 1-3 justifications of 1-3
antecedents drawn uniformly from the evidence and the earlier claims; the cyclic variant
draws each antecedent with probability 5% from the *later* claims instead (back-edges).
Audit: 1% of the evidence (200 items at 100k claims), chosen at random per round.

Measured per round, on the same graph and the same audits:

- jtms: ``Memory.audit`` = planning on the support region + one SQLite transaction (event +
  one revision row per retired node) committed with ``synchronous=FULL`` in WAL mode;
  the memory is then reinstated (not timed) so every round starts from the same state.
- from-scratch: :func:`theory.semantics.fixpoint.active_numbers` on the whole graph, audited nodes blocked.
- ltms (PyPI ``ltms``): Forbus & de Kleer JTMS; evidence are enabled assumptions, an audit
  retracts them (two-phase relabelling), in memory, no durability.
- ftl-reasons (PyPI ``ftl-reasons``): ``reasons.network.Network.retract``, in memory.
- clingo: the program is ground once with every evidence atom an external; an audit sets
  the audited externals false and solves again.

All peers must retire exactly the same nodes as this engine (checked every round; ftl-reasons
is reported but is not well-founded, see ``--loop``). Times are medians over the rounds;
ratios are peer time / jtms time from the same run.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jtms.memory.memory import Memory  # noqa: E402
from theory.io.graphfile import parse_graph  # noqa: E402
from theory.model.index import index_of  # noqa: E402
from theory.semantics.fixpoint import active_numbers  # noqa: E402

# --- the graph -------------------------------------------------------------------------------


def make_graph(
    n_claims: int, n_evidence: int | None = None, seed: int = 1, back_edges: float = 0.0
) -> dict:
    """A graph document of the benchmark shape (see the module docstring)."""
    rng = random.Random(seed)
    n_evidence = n_claims // 5 if n_evidence is None else n_evidence
    evidence = [f"e{i}" for i in range(n_evidence)]
    claims = [f"c{i}" for i in range(n_claims)]
    pool = evidence + claims
    justifications = []
    for i, claim in enumerate(claims):
        for _ in range(rng.randint(1, 3)):
            antecedents = set()
            for _ in range(rng.randint(1, 3)):
                if back_edges and i < n_claims - 1 and rng.random() < back_edges:
                    antecedents.add(claims[rng.randint(i + 1, n_claims - 1)])
                else:
                    antecedents.add(pool[rng.randrange(n_evidence + i)])
            justifications.append({"claim": claim, "antecedents": sorted(antecedents)})
    nodes = [{"id": e, "kind": "evidence"} for e in evidence]
    nodes += [{"id": c, "kind": "claim"} for c in claims]
    return {"nodes": nodes, "justifications": justifications}


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


# --- peers -----------------------------------------------------------------------------------


class Scratch:
    name = "from-scratch"

    def __init__(self, structure):
        self.index = index_of(structure)
        self.base = active_numbers(self.index)

    def audit(self, roots):
        flags = active_numbers(self.index, blocked=[self.index.number[r] for r in roots])
        return flags

    def retired(self, flags):
        ids = self.index.ids
        return {ids[n] for n, (a, b) in enumerate(zip(self.base, flags)) if a and not b}

    def restore(self, roots):
        pass


class LTMS:
    name = "ltms"

    def __init__(self, document):
        from ltms.jtms import JTMS

        self.tms = JTMS("bench")
        self.tms.checking_contradictions = False
        self.nodes = {}
        for node in document["nodes"]:
            evidence = node["kind"] == "evidence"
            self.nodes[node["id"]] = self.tms.create_node(node["id"], assumption=evidence)
        for node in document["nodes"]:
            if node["kind"] == "evidence":
                self.tms.enable_assumption(self.nodes[node["id"]])
        for j in document["justifications"]:
            self.tms.justify_node(
                "j", self.nodes[j["claim"]], [self.nodes[a] for a in j["antecedents"]]
            )

    def active(self):
        return {n.datum for n in self.tms.nodes if n.is_in}

    def add(self, evidence, claim, antecedents):
        """A new enabled assumption, and a claim justified by ``antecedents``."""
        self.nodes[evidence] = self.tms.create_node(evidence, assumption=True)
        self.tms.enable_assumption(self.nodes[evidence])
        self.nodes[claim] = self.tms.create_node(claim)
        self.tms.justify_node("j", self.nodes[claim], [self.nodes[a] for a in antecedents])

    def audit(self, roots):
        for r in roots:
            self.tms.retract_assumption(self.nodes[r])

    def restore(self, roots):
        for r in roots:
            self.tms.enable_assumption(self.nodes[r])


class Reasons:
    name = "ftl-reasons"

    def __init__(self, document):
        from reasons import Justification
        from reasons.network import Network

        self.net = Network()
        by_claim: dict[str, list] = {}
        for j in document["justifications"]:
            by_claim.setdefault(j["claim"], []).append(
                Justification(type="SL", antecedents=list(j["antecedents"]))
            )
        for node in document["nodes"]:
            self.net.add_node(
                node["id"],
                node.get("text", ""),
                justifications=by_claim.get(node["id"]) if node["kind"] == "claim" else None,
            )
        self.net._rebuild_dependents()
        self.net.recompute_all()

    def active(self):
        return set(self.net.get_belief_set())

    def audit(self, roots):
        for r in roots:
            self.net.retract(r)

    def restore(self, roots):
        for r in roots:
            self.net.assert_node(r)


class Clingo:
    name = "clingo"

    def __init__(self, document):
        import clingo

        self.clingo = clingo
        evidence = [n["id"] for n in document["nodes"] if n["kind"] == "evidence"]
        lines = [f"#external {e}." for e in evidence]
        for j in document["justifications"]:
            body = ", ".join(j["antecedents"])
            lines.append(f"{j['claim']} :- {body}." if body else f"{j['claim']}.")
        lines.append("#show.")
        lines += [f"#show {n['id']} : {n['id']}." for n in document["nodes"]]
        self.control = clingo.Control(["--warn=none"])
        self.control.add("base", [], "\n".join(lines))
        self.control.ground([("base", [])])
        self.evidence = evidence
        for e in evidence:
            self.control.assign_external(clingo.Function(e), True)

    def solve(self):
        found = []
        self.control.solve(on_model=lambda m: found.append({str(s) for s in m.symbols(shown=True)}))
        return found[-1]

    def active(self):
        return self.solve()

    def audit(self, roots):
        for r in roots:
            self.control.assign_external(self.clingo.Function(r), False)
        return self.solve()

    def restore(self, roots):
        for r in roots:
            self.control.assign_external(self.clingo.Function(r), True)


PEERS = {"ltms": LTMS, "ftl-reasons": Reasons, "clingo": Clingo}


# --- runs ------------------------------------------------------------------------------------


class Clock:
    """Wall and CPU time of one call."""

    def __init__(self):
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self):
        gc.disable()
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall.append(time.perf_counter() - self._wall)
        self.cpu.append(time.process_time() - self._cpu)
        gc.enable()


def run_main(
    n_claims: int,
    back_edges: float,
    rounds: int,
    peers: list[str],
    seed: int,
    durability: str,
    folder: Path,
) -> dict:
    """Every system gets the same audits; per round, all systems run one after the other
    (interleaved, so that a change in machine load hits them alike)."""
    document = make_graph(n_claims, seed=seed, back_edges=back_edges)
    n_evidence = n_claims // 5
    result: dict = {
        "claims": n_claims,
        "evidence": n_evidence,
        "back_edges": back_edges,
        "justifications": len(document["justifications"]),
        "rounds": rounds,
        "durability": durability,
    }
    db = folder / f"bench-{n_claims}-{back_edges}.db"
    memory = Memory.create(db, durability=durability)
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    memory.import_graph(document)
    result["import_seconds"] = round(time.perf_counter() - started, 3)
    result["import_cpu_seconds"] = round(time.process_time() - cpu, 3)
    started, cpu = time.perf_counter(), time.process_time()
    structure = parse_graph(document)
    result["of_which_parse_validate_seconds"] = round(time.perf_counter() - started, 3)
    result["of_which_parse_validate_cpu_seconds"] = round(time.process_time() - cpu, 3)
    base_active = set(memory.active_ids())
    result["active"] = len(base_active)

    systems = []
    for name in peers:
        try:
            started = time.perf_counter()
            peer = PEERS[name](document)
            result[f"{name}_build_seconds"] = round(time.perf_counter() - started, 2)
        except ImportError as error:
            result[f"{name}_ms"] = f"not installed ({error})"
            continue
        result[f"{name}_same_retired"] = set(peer.active()) == base_active
        systems.append((name, peer, Clock()))
    scratch, scratch_clock = Scratch(structure), Clock()
    del document

    rng = random.Random(seed + 7)
    evidence = [f"e{i}" for i in range(n_evidence)]
    size = max(1, n_evidence // 100)
    audits = [sorted(rng.sample(evidence, size)) for _ in range(rounds)]
    ours, previews, normal = Clock(), Clock(), Clock()
    regions, retired_sizes = [], []
    for roots in audits:
        with previews:
            preview = memory.preview(roots)
        with ours:
            outcome = memory.audit(roots, reason="benchmark")
        assert outcome.retired == preview.retired
        regions.append(outcome.region)
        retired_sizes.append(len(outcome.retired))
        memory.reinstate(outcome.audit_id)
        with scratch_clock:
            flags = scratch.audit(roots)
        assert scratch.retired(flags) == outcome.retired
        for name, peer, clock in systems:
            before = peer.active()
            with clock:
                peer.audit(roots)
            after = peer.active()
            if (before - after) != outcome.retired:
                result[f"{name}_same_retired"] = False
            peer.restore(roots)
    # the same number of fresh audits with synchronous=NORMAL (WAL: durable against a
    # process crash, not against power loss); fresh, because a repeated audit finds the
    # support pointers already moved off its roots
    memory.set_durability("normal")
    for _ in range(rounds):
        with normal:
            outcome = memory.audit(sorted(rng.sample(evidence, size)), reason="benchmark, NORMAL")
        memory.reinstate(outcome.audit_id)
    memory.set_durability(durability)
    ms = median_ms(ours.wall)
    result["jtms_audit_ms"] = round(ms, 2)
    result["jtms_audit_cpu_ms"] = round(median_ms(ours.cpu), 2)
    result["jtms_audit_sync_normal_ms"] = round(median_ms(normal.wall), 2)
    result["jtms_preview_ms"] = round(median_ms(previews.wall), 2)
    result["jtms_preview_cpu_ms"] = round(median_ms(previews.cpu), 2)
    result["region_median"] = statistics.median(regions)
    result["retired_median"] = statistics.median(retired_sizes)
    result["integrity_ok"] = not memory.integrity_problems()
    memory.close()
    for name, clock in [("from-scratch", scratch_clock)] + [(n, c) for n, _, c in systems]:
        result[f"{name}_ms"] = round(median_ms(clock.wall), 2)
        result[f"{name}_cpu_ms"] = round(median_ms(clock.cpu), 2)
        result[f"{name}_ratio"] = round(median_ms(clock.wall) / ms, 2)
        result[f"{name}_cpu_ratio_vs_preview"] = round(
            median_ms(clock.cpu) / median_ms(previews.cpu), 2
        )
    return result


def run_curve(
    sizes: list[int], rounds: int, seed: int, durability: str, folder: Path, fixed_roots: int
) -> list[dict]:
    """Audit latency against memory size: 1% of the evidence, and a fixed number of roots."""
    rows = []
    for n in sizes:
        document = make_graph(n, seed=seed)
        n_evidence = n // 5
        memory = Memory.create(folder / f"curve-{n}.db", durability=durability)
        started = time.perf_counter()
        memory.import_graph(document)
        imported = time.perf_counter() - started
        del document
        gc.collect()
        rng = random.Random(seed + 11)
        row = {"claims": n, "import_seconds": round(imported, 2)}
        for label, k in (("fixed", fixed_roots), ("1pct", max(1, n_evidence // 100))):
            times, regions = [], []
            for _ in range(rounds):
                roots = [f"e{i}" for i in rng.sample(range(n_evidence), k)]
                gc.disable()
                started = time.perf_counter()
                outcome = memory.audit(roots, reason="curve")
                times.append(time.perf_counter() - started)
                gc.enable()
                regions.append(outcome.region)
                memory.reinstate(outcome.audit_id)
            row[f"{label}_roots"] = k
            row[f"{label}_audit_ms"] = round(median_ms(times), 2)
            row[f"{label}_region"] = statistics.median(regions)
        memory.close()
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def run_loop(folder: Path) -> dict:
    """e supports a; a and b support each other. Audit e: a and b have no support left."""
    document = {
        "nodes": [
            {"id": "e", "kind": "evidence"},
            {"id": "a", "kind": "claim"},
            {"id": "b", "kind": "claim"},
        ],
        "justifications": [
            {"claim": "a", "antecedents": ["e"]},
            {"claim": "a", "antecedents": ["b"]},
            {"claim": "b", "antecedents": ["a"]},
        ],
    }
    memory = Memory.create(folder / "loop.db")
    memory.import_graph(document)
    memory.audit(["e"], reason="loop case")
    result = {"jtms_active_after_audit": sorted(memory.active_ids())}
    memory.close()
    for name, cls in PEERS.items():
        try:
            peer = cls(document)
        except ImportError as error:
            result[f"{name}_active_after_audit"] = f"not installed ({error})"
            continue
        peer.audit(["e"])
        result[f"{name}_active_after_audit"] = sorted(peer.active())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--back-edges", type=float, default=0.05)
    parser.add_argument("--no-cycles", action="store_true", help="only the DAG variant")
    parser.add_argument(
        "--peers", default="ltms,ftl-reasons,clingo", help="comma-separated peers, or 'none'"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--durability", default="full", choices=["full", "normal", "off"])
    parser.add_argument("--curve", default=None, help="sizes, e.g. 10000,100000,1000000")
    parser.add_argument("--fixed-roots", type=int, default=20)
    parser.add_argument("--loop", action="store_true", help="only the support-loop case")
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    peers = [] if args.peers == "none" else [p for p in args.peers.split(",") if p]
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        results["loop"] = run_loop(folder)
        print(json.dumps({"loop": results["loop"]}), flush=True)
        if not args.loop:
            if args.curve:
                sizes = [int(s) for s in args.curve.split(",")]
                results["curve"] = run_curve(
                    sizes, args.rounds, args.seed, args.durability, folder, args.fixed_roots
                )
            else:
                variants = [0.0] if args.no_cycles else [0.0, args.back_edges]
                results["runs"] = []
                for back in variants:
                    row = run_main(
                        args.claims, back, args.rounds, peers, args.seed, args.durability, folder
                    )
                    results["runs"].append(row)
                    print(json.dumps(row), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
