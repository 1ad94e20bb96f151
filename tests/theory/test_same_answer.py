"""The same call returns the same sets every time: ``minimal_justifications(g, c, limit=k)``
asked in a fresh process and in one that answered large queries first (and hashes strings
with another seed) gives the same sets, on the loop regression files of ``tests/cases/``
and of ``/work/shared/cases/`` (where that folder exists)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "cases"
SHARED = Path("/work/shared/cases")
FILES = ["loops_back_edges.json", "loops_dense_random.json"]
LIMITS = (1, 2, 3, 5, 8, 13, 21, 34, 50)

pytestmark = pytest.mark.slow  # two processes ask about 2,400 queries each

ASK = """
import json, sys
from theory.io.graphfile import load_graph
from theory.solver.justifications import minimal_justifications
paths, limits, first = json.loads(sys.argv[1])
if first:  # a large query first: a 25,000-claim cycle, and a claim of a graph with big loops
    from benchmarks.generate import cycle
    from benchmarks.loop_families import members
    minimal_justifications(cycle(25_000), "c0")
    structure, goals, _ = members("dense", 1, seed=4242)[0]
    minimal_justifications(structure, goals[0], method="sat")
answers = {}
for path in paths:
    structure = load_graph(path)
    for claim in sorted(structure.claims):
        for limit in limits:
            found = minimal_justifications(structure, claim, limit=limit)
            answers[f"{path}:{claim}:{limit}"] = sorted(sorted(s) for s in found)
print(json.dumps(answers))
"""


def _files() -> list[str]:
    paths = [str(CASES / name) for name in FILES]
    if SHARED.is_dir():
        paths += [str(p) for p in sorted(SHARED.glob("*.json"))]
    return paths


def _answers(paths: list[str], first: bool, hash_seed: str) -> dict[str, list[list[str]]]:
    done = subprocess.run(
        [sys.executable, "-c", ASK, json.dumps([paths, LIMITS, first])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.timeout(900)
def test_the_same_queries_give_the_same_sets_in_a_fresh_and_a_used_process():
    paths = _files()
    fresh = _answers(paths, first=False, hash_seed="1")
    used = _answers(paths, first=True, hash_seed="2")
    assert fresh.keys() == used.keys()
    differ = [key for key in fresh if fresh[key] != used[key]]
    assert not differ, f"{len(differ)} of {len(fresh)} queries differ, e.g. {differ[:3]}"
    # and each answer is a prefix of the claim's answer: minimal sets, as many as asked
    by_claim: dict[str, dict[int, list[list[str]]]] = {}
    for key, found in fresh.items():
        path, claim, limit = key.rsplit(":", 2)
        by_claim.setdefault(f"{path}:{claim}", {})[int(limit)] = found
    for answers in by_claim.values():
        everything = answers[max(LIMITS)]
        for limit, found in answers.items():
            assert len(found) == min(limit, len(everything))
