"""`jtms check --summary` in memory bounded by what it keeps, not by what it counts.

The graph: a chain of 30,000 claims over 330,000 evidence, each claim with one
justification through its predecessor and ten fresh evidence and one through a single
evidence item near the end of the numbering. Every claim is unsafe, with 11 (i + 1) violations
(about 5 x 10^9 in all); a checker that holds an evidence bitset per claim needs about
40 KB per claim (15.9 GB resident measured on the checker that did), while the counting
checker runs in a few hundred megabytes. The command runs under an address-space limit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from theory import SupportStructure

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MB = 3000


def _chain(n: int, width: int = 10) -> dict:
    evidence = (width + 1) * n
    nodes = [{"id": f"e{k:06d}", "kind": "evidence"} for k in range(evidence)]
    nodes += [{"id": f"c{i:06d}", "kind": "claim"} for i in range(n)]
    justifications = []
    for i in range(n):
        chain = ([f"c{i - 1:06d}"] if i else []) + [f"e{width * i + k:06d}" for k in range(width)]
        justifications.append({"claim": f"c{i:06d}", "antecedents": chain})
        justifications.append({"claim": f"c{i:06d}", "antecedents": [f"e{evidence - 1 - i:06d}"]})
    return {"nodes": nodes, "justifications": justifications}


LIMITED = """
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit} << 20, {limit} << 20))
sys.argv = ["jtms", "check", sys.argv[1], "--summary", "--json"]
runpy.run_module("jtms", run_name="__main__")
"""


@pytest.mark.slow
def test_check_summary_counts_billions_of_violations_under_a_memory_limit(tmp_path):
    n = 30_000
    graph = tmp_path / "chain.json"
    graph.write_text(json.dumps(_chain(n)))
    done = subprocess.run(
        [sys.executable, "-c", LIMITED.format(limit=LIMIT_MB), str(graph)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1, done.stderr[-2000:]  # exit 1: not influence-safe
    payload = json.loads(done.stdout)
    influence = ("claims", "active", "unsafe", "violations")  # beside the counting verdicts'
    assert {key: payload["summary"][key] for key in influence} == {
        "claims": n,
        "active": n,
        "unsafe": n,
        "violations": 11 * n * (n + 1) // 2,
    }
    first = payload["claims"][0]
    assert (first["id"], first["violation_count"]) == ("c000000", 11)
    assert [v["audit"] for v in first["violations"]] == [["e000000"], ["e000001"], ["e000002"]]


def _cyclic_garbage(run) -> dict[str, int]:
    """Run ``run`` with the cyclic collector paused, as `jtms check` does, and count by
    type what only that collector could free afterwards."""
    import collections
    import gc

    gc.collect()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return dict(collections.Counter(type(o).__name__ for o in gc.garbage))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.slow
def test_the_check_makes_no_cyclic_garbage(monkeypatch):
    # `jtms check` pauses the cyclic collector (its passes over a large graph cost more
    # than the check): whatever a cycle holds then stays until the process ends. A pool of
    # SAT variables (python-sat's IDPool) is a cycle, and a 500-claim check of this memory
    # kept 500 MB of them.
    from benchmarks import generate
    from theory.safety.check import check_structure
    from theory.solver import justifications
    from theory.solver.options import SolverOptions

    hard = generate.memory(1000, seed=7, back_edges=0.2)

    def check() -> None:  # SAT claims of the big loop, and claims the labels answer
        check_structure(hard, ["c500", "c501", "c502", "c3"], relevance_budget=500)

    check()  # first imports and compilations make cycles of their own
    assert _cyclic_garbage(check) == {}
    monkeypatch.setattr(justifications, "DEFAULTS", SolverOptions(label_work=0))  # SAT only
    assert _cyclic_garbage(check) == {}


def _wide(evidence: int) -> SupportStructure:
    """A claim with one justification through all but one evidence item and one through that
    one, under a ring of claims each justified by the previous one and one evidence item:
    every evidence item is in the cone of every unsafe claim, the labels have few sets."""
    items = [f"e{k:06d}" for k in range(evidence)]
    ring = [f"r{k:02d}" for k in range(8)]
    justifications = [("wide", items[1:]), ("wide", items[:1])]
    for k, claim in enumerate(ring):
        justifications.append((claim, [ring[k - 1], items[k]]))
    justifications.append((ring[0], ["wide"]))
    return SupportStructure.build(items, ["wide", *ring], justifications)


@pytest.mark.slow
def test_full_check_label_pass_holds_no_row_per_evidence_item():
    """The full check's label pass (:func:`claim_labels` of the unsafe claims, each label
    then looked up as its report is built) on a cone of 20,000 evidence items: a label kernel
    that gives each evidence item a row of one bit per evidence item of the cone holds
    20,000^2 / 8 bytes (50 MB) at once; the rows of the labels the check needs are a few KB
    each. Traced allocations (numpy's included) stay under 12 MB."""
    import tracemalloc

    from theory.model.index import index_of
    from theory.safety.check import LABEL_BUDGET, base_active, claim_labels, verdicts

    evidence = 20_000
    structure = _wide(evidence)
    index = index_of(structure)
    facts = verdicts(index, base_active(structure))
    unsafe = [
        index.number[c] for c in sorted(structure.claims) if facts.unsafe_bits(index.number[c])
    ]
    assert len(unsafe) == 9
    tracemalloc.start()
    try:
        found = claim_labels(index, unsafe, LABEL_BUDGET)
        sizes = {
            index.ids[n]: sorted(len(index.names_of_bits(s)) for s in found[n]) for n in unsafe
        }
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sizes["wide"] == [1, evidence - 1]
    assert sizes["r03"] == [4, evidence - 1]
    assert peak < 12 << 20, f"{peak >> 20} MiB traced"
