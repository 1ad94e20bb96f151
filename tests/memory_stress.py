"""A bounded random multi-process stress run of one stored memory, checked against a serial replay.

Writers (add evidence, claims and justifications, audit, reinstate, preview) and readers
(consistent snapshots: the active set equals theory's fixpoint of the structure and the
blocked ids read in the same snapshot; previews, explanations, contexts) share one SQLite
memory for ``--seconds``. Most processes keep one warm ``Memory`` (so they catch up from the
log), some operations reopen it cold. Afterwards:

- every error that is not an expected race outcome (an audit reinstated by another process
  first, a justification another process recorded first) is counted as unexpected;
- ``integrity_problems()`` must be empty;
- the logged writes, sorted by their event ids, must cover every event, and replaying them in
  that order on a fresh memory must give the same result for each write and the same final
  store (active ids, open audits, the status sequence of every node; times aside).

Run: ``python tests/memory_stress.py --seconds 15`` (exit 1 when anything failed; JSON summary
on stdout). ``tests/jtms/store/test_concurrency.py`` runs it for a few seconds; ``benchmarks/bench_concurrency.py``
for longer. Uses only the public ``Memory`` API (``snapshot`` when the memory has it), so the
same script runs against older versions of the code.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jtms.memory.memory import Memory  # noqa: E402
from theory.model.errors import InputError  # noqa: E402
from theory.semantics.fixpoint import active_state  # noqa: E402

EXPECTED = ("already reinstated", "already recorded")
SEED_EVIDENCE, SEED_CLAIMS = 12, 18


def seed_graph(rng: random.Random) -> dict[str, Any]:
    evidence = [f"e{i}" for i in range(SEED_EVIDENCE)]
    claims = [f"c{i}" for i in range(SEED_CLAIMS)]
    justifications = []
    for k, claim in enumerate(claims):
        pool = evidence + claims[:k] + claims[k + 1 : k + 3]  # a few loops too
        for _ in range(rng.randint(1, 2)):
            justifications.append(
                {"claim": claim, "antecedents": rng.sample(pool, rng.randint(1, 2))}
            )
    return {
        "nodes": [{"id": e, "kind": "evidence"} for e in evidence]
        + [{"id": c, "kind": "claim"} for c in claims],
        "justifications": justifications,
    }


def _snapshot(memory: Memory) -> contextlib.AbstractContextManager[Any]:
    return memory.snapshot() if hasattr(memory, "snapshot") else contextlib.nullcontext()


def writer(db: str, name: str, seconds: float, seed: int, log: Path) -> None:
    rng = random.Random(seed)
    known = [f"e{i}" for i in range(SEED_EVIDENCE)] + [f"c{i}" for i in range(SEED_CLAIMS)]
    claims = [f"c{i}" for i in range(SEED_CLAIMS)]
    memory = Memory.open(db)
    deadline = time.monotonic() + seconds
    count = 0
    with open(log, "w") as out:
        while time.monotonic() < deadline:
            count += 1
            record: dict[str, Any] = {"process": name}
            cold = rng.random() < 0.1
            target = Memory.open(db) if cold else memory
            try:
                r = rng.random()
                if r < 0.2:
                    node = f"{name}_e{count}"
                    change = target.add_evidence(node)
                    known.append(node)
                    record.update(
                        op="add_evidence",
                        args=[node],
                        event=change.event_id,
                        result=sorted(change.activated),
                    )
                elif r < 0.45:
                    node = f"{name}_c{count}"
                    justs = [
                        rng.sample(known, min(len(known), rng.randint(1, 2)))
                        for _ in range(rng.randint(1, 2))
                    ]
                    change = target.add_claim(node, justs)
                    known.append(node)
                    claims.append(node)
                    record.update(
                        op="add_claim",
                        args=[node, justs],
                        event=change.event_id,
                        result=sorted(change.activated),
                    )
                elif r < 0.55:
                    claim = rng.choice(claims)
                    ants = rng.sample(known, rng.randint(1, 2))
                    change = target.add_justification(claim, ants)
                    record.update(
                        op="add_justification",
                        args=[claim, ants],
                        event=change.event_id,
                        result=sorted(change.activated),
                    )
                elif r < 0.75:
                    roots = rng.sample(known, rng.randint(1, 2))
                    result = target.audit(roots, reason=f"{name} {count}")
                    record.update(
                        op="audit",
                        args=[roots],
                        event=result.audit_id,
                        result=sorted(result.retired),
                    )
                elif r < 0.9:
                    audits = sorted(target.open_audits())
                    if not audits:
                        continue
                    audit = rng.choice(audits)
                    change = target.reinstate(audit)
                    record.update(
                        op="reinstate",
                        args=[audit],
                        event=change.event_id,
                        result=sorted(change.activated),
                    )
                else:
                    target.preview(rng.sample(known, 1))
                    continue
            except InputError as error:
                if any(text in str(error) for text in EXPECTED):
                    record.update(expected=str(error))
                else:
                    record.update(error=f"InputError: {error}\n{traceback.format_exc(limit=6)}")
            except Exception:
                record.update(error=traceback.format_exc(limit=4))
            finally:
                if cold:
                    target.close()
            out.write(json.dumps(record) + "\n")
            out.flush()
    memory.close()


def reader(db: str, name: str, seconds: float, seed: int, log: Path) -> None:
    rng = random.Random(seed)
    memory = Memory.open(db)
    deadline = time.monotonic() + seconds
    with open(log, "w") as out:
        while time.monotonic() < deadline:
            record: dict[str, Any] = {"process": name, "op": "read"}
            try:
                with _snapshot(memory):
                    active = memory.active_ids()
                    structure = memory.structure()
                    blocked = memory.blocked_ids()
                    ids = sorted(structure.nodes)
                    node = rng.choice(ids)
                    memory.explain(node)
                    memory.preview([node])
                if active_state(structure, blocked) != active:
                    record.update(
                        error="a read mixed two states: active ids differ from the "
                        "fixpoint of the structure and blocked ids read with them"
                    )
                if rng.random() < 0.2:
                    memory.context(300)
            except Exception:
                record.update(error=traceback.format_exc(limit=4))
            out.write(json.dumps(record) + "\n")
            out.flush()
    memory.close()


def _statuses(memory: Memory, ids: list[str]) -> dict[str, list[str]]:
    return {node: [r["status"] for r in memory.history(node)] for node in ids}


def replay(db: str, writes: list[dict[str, Any]], graph: dict[str, Any]) -> list[str]:
    """Problems found by replaying ``writes`` serially in event order on a fresh memory."""
    problems: list[str] = []
    with Memory.create(":memory:", durability="off") as fresh, Memory.open(db) as stored:
        fresh.import_graph(graph, source="seed")
        for record in writes:
            op, args = record["op"], record["args"]
            if op == "add_evidence":
                change = fresh.add_evidence(*args)
                event, result = change.event_id, sorted(change.activated)
            elif op == "add_claim":
                change = fresh.add_claim(*args)
                event, result = change.event_id, sorted(change.activated)
            elif op == "add_justification":
                change = fresh.add_justification(*args)
                event, result = change.event_id, sorted(change.activated)
            elif op == "audit":
                audit = fresh.audit(args[0], reason="replay")
                event, result = audit.audit_id, sorted(audit.retired)
            else:
                change = fresh.reinstate(*args)
                event, result = change.event_id, sorted(change.activated)
            if event != record["event"] or result != record["result"]:
                problems.append(
                    f"event {record['event']} ({op} {args}): concurrent run gave "
                    f"{record['result']}, serial replay gave {result} (event {event})"
                )
                if len(problems) > 10:
                    break
        if fresh.active_ids() != stored.active_ids():
            problems.append("final active ids differ from the serial replay")
        if fresh.open_audits() != stored.open_audits():
            problems.append("open audits differ from the serial replay")
        ids = sorted(stored.structure().nodes)
        if sorted(fresh.structure().nodes) != ids or _statuses(fresh, ids) != _statuses(
            stored, ids
        ):
            problems.append("node status histories differ from the serial replay")
    return problems


def run(
    db: Path | str,
    seconds: float,
    writers: int,
    readers: int,
    seed: int,
    folder: Path | None = None,
) -> dict[str, Any]:
    """``db``: a file or a postgresql:// location; the logs go to ``folder`` (default: the
    file's folder)."""
    rng = random.Random(seed)
    graph = seed_graph(rng)
    with Memory.create(db) as memory:
        memory.import_graph(graph, source="seed")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    roles = [("writer", f"w{k}") for k in range(writers)] + [
        ("reader", f"r{k}") for k in range(readers)
    ]
    logs = {name: (folder or Path(db).parent) / f"{name}.jsonl" for _, name in roles}
    children = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                role,
                "--db",
                str(db),
                "--name",
                name,
                "--seconds",
                str(seconds),
                "--seed",
                str(seed * 100 + k),
                "--log",
                str(logs[name]),
            ],
            env=env,
        )
        for k, (role, name) in enumerate(roles)
    ]
    try:
        for child in children:
            child.wait(timeout=seconds + 120)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    records = []
    for _name, path in logs.items():
        if path.exists():
            records += [json.loads(line) for line in path.read_text().splitlines() if line]
    errors = [r for r in records if "error" in r]
    writes = sorted(
        (r for r in records if "event" in r and "error" not in r), key=lambda r: r["event"]
    )
    with Memory.open(db) as memory:
        integrity = memory.integrity_problems()
        last = (
            max((e["id"] for e in memory.table("events")), default=0)
            if hasattr(memory, "table")
            else None
        )
    problems = []
    if last is not None and [r["event"] for r in writes] != list(range(3, last + 1)):
        problems.append("the logged writes do not account for every event")
    problems += replay(str(db), writes, graph)
    return {
        "seconds": seconds,
        "writers": writers,
        "readers": readers,
        "operations": len(records),
        "writes": len(writes),
        "reads": sum(1 for r in records if r.get("op") == "read"),
        "expected_races": sum(1 for r in records if "expected" in r),
        "unexpected_errors": len(errors),
        "first_errors": [e["error"] for e in errors[:3]],
        "exit_codes": [c.returncode for c in children],
        "integrity_problems": integrity,
        "replay_problems": problems,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", nargs="?", default="run", choices=["run", "writer", "reader"])
    parser.add_argument("--db", default=None)
    parser.add_argument("--name", default="")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    if args.role == "writer":
        writer(args.db, args.name, args.seconds, args.seed, Path(args.log))
        return 0
    if args.role == "reader":
        reader(args.db, args.name, args.seconds, args.seed, Path(args.log))
        return 0
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        db = args.db or str(Path(folder) / "stress.db")
        summary = run(db, args.seconds, args.writers, args.readers, args.seed, Path(folder))
    print(json.dumps(summary, indent=1))
    ok = (
        not summary["unexpected_errors"]
        and not summary["integrity_problems"]
        and not summary["replay_problems"]
        and summary["exit_codes"] == [0] * len(summary["exit_codes"])
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
