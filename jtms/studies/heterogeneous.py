"""Study 4 of the paper: 20 support shapes beyond the paired templates.

Chains, diamonds, k-of-n support, shared evidence, deep trees, cycles (with and without
outside support), premises, redundant justifications, audits of claims, and seeded random
graphs (acyclic and cyclic, several audited roots). For each case and rule the state after
the rule is compared with the ground truth. Each repair is also
checked against :func:`theory.semantics.revision.exact` and against clingo's stable model after the
audit (:class:`jtms.fuzz.clingo_oracle.ClingoOracle`, the same oracle the differential fuzzer
uses); the engine's own state is checked against clingo and its integrity check (stored
status = least fixpoint, SQLite checks). The downstream decisions: a delayed question on
every claim active before the audit, answered from the context each rule leaves, per reader (*grounded*
when all of them are).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.studies.endpoints import Endpoint, StudyResult
from jtms.studies.readers import Answerer, Question, resolve_readers
from jtms.studies.rules import RuleFn, new_memory, resolve_rules, truth_active
from jtms.studies.scoring import grounded
from jtms.studies.trial import revise
from theory.model.structure import SupportStructure
from theory.semantics import revision

SEED = 4
BUDGET = 2000


@dataclass(frozen=True)
class Case:
    name: str
    structure: SupportStructure
    audit: frozenset[str]


def _case(
    name: str,
    evidence: Sequence[str],
    claims: Sequence[str],
    justs: Sequence[tuple[str, Sequence[str]]],
    audit: Sequence[str],
) -> Case:
    return Case(name, SupportStructure.build(evidence, claims, justs), frozenset(audit))


def _random_case(
    name: str,
    rng: random.Random,
    n_evidence: int,
    n_claims: int,
    cyclic: bool,
    premises: int,
    audits: int,
) -> Case:
    evidence = [f"e{i}" for i in range(n_evidence)]
    claims = [f"c{i}" for i in range(n_claims)]
    justs = []
    for i, claim in enumerate(claims):
        pool = evidence + (claims if cyclic else claims[:i])
        pool = [x for x in pool if x != claim]
        for _ in range(rng.randint(1, 3)):
            justs.append((claim, rng.sample(pool, rng.randint(1, min(3, len(pool))))))
    for claim in rng.sample(claims, premises):
        justs.append((claim, []))
    audit = rng.sample(evidence + claims[: n_claims // 2], audits)
    return _case(name, evidence, claims, justs, audit)


def cases(seed: int = SEED) -> list[Case]:
    rng = random.Random(seed)
    chain = [f"c{i}" for i in range(1, 6)]
    tree_leaves = [f"e{i}" for i in range(16)]
    tree_claims, tree_justs, level = [], [], tree_leaves
    depth = 0
    while len(level) > 1:
        depth += 1
        nxt = []
        for k in range(0, len(level), 2):
            node = f"t{depth}_{k // 2}"
            tree_claims.append(node)
            nxt.append(node)
            tree_justs.append((node, [level[k], level[k + 1]]))
        level = nxt
    or_tree_justs = [(c, [a]) for c, ants in tree_justs for a in ants]
    four = [f"e{i}" for i in range(4)]
    result = [
        _case(
            "chain",
            ["e0"],
            chain,
            [("c1", ["e0"])] + [(chain[i], [chain[i - 1]]) for i in range(1, 5)],
            ["e0"],
        ),
        _case(
            "chain with a second source midway",
            ["e0", "e1"],
            chain,
            [("c1", ["e0"]), ("c3", ["e1"])] + [(chain[i], [chain[i - 1]]) for i in range(1, 5)],
            ["e0"],
        ),
        _case(
            "diamond (AND join)",
            ["e0"],
            ["l", "r", "top"],
            [("l", ["e0"]), ("r", ["e0"]), ("top", ["l", "r"])],
            ["e0"],
        ),
        _case(
            "diamond (OR join, one side audited)",
            ["e0", "e1"],
            ["l", "r", "top"],
            [("l", ["e0"]), ("r", ["e1"]), ("top", ["l"]), ("top", ["r"])],
            ["e0"],
        ),
        _case(
            "2-of-4 support, one audited",
            four,
            ["k"],
            [("k", list(p)) for p in itertools.combinations(four, 2)],
            ["e0"],
        ),
        _case(
            "3-of-4 support, two audited",
            four,
            ["k"],
            [("k", list(p)) for p in itertools.combinations(four, 3)],
            ["e0", "e1"],
        ),
        _case(
            "shared evidence, joint support",
            ["s", "x", "y", "z"],
            ["cx", "cy", "cz"],
            [("cx", ["s", "x"]), ("cy", ["s", "y"]), ("cz", ["s", "z"])],
            ["s"],
        ),
        _case(
            "shared evidence, alternatives",
            ["s", "x", "y"],
            ["cx", "cy", "both"],
            [
                ("cx", ["s"]),
                ("cx", ["x"]),
                ("cy", ["s", "y"]),
                ("both", ["cx", "cy"]),
                ("both", ["x", "y"]),
            ],
            ["s"],
        ),
        _case("deep AND tree, one leaf audited", tree_leaves, tree_claims, tree_justs, ["e5"]),
        _case("deep OR tree, one leaf audited", tree_leaves, tree_claims, or_tree_justs, ["e5"]),
        _case(
            "unsupported loop", ["e"], ["a", "b"], [("a", ["e"]), ("a", ["b"]), ("b", ["a"])], ["e"]
        ),
        _case(
            "loop with outside support",
            ["e", "f"],
            ["a", "b"],
            [("a", ["e"]), ("a", ["b"]), ("b", ["a"]), ("b", ["f"])],
            ["e"],
        ),
        _case(
            "premise and evidence",
            ["e"],
            ["p", "c", "d"],
            [("p", []), ("c", ["p", "e"]), ("d", ["p"])],
            ["e"],
        ),
        _case(
            "audited premise",
            ["e"],
            ["p", "c", "d"],
            [("p", []), ("c", ["p", "e"]), ("d", ["p"]), ("d", ["e"])],
            ["p"],
        ),
        _case(
            "redundant justification",
            ["a", "b"],
            ["c", "d"],
            [("c", ["a"]), ("c", ["a", "b"]), ("d", ["c"])],
            ["b"],
        ),
        _case(
            "audit of an intermediate claim",
            ["e0", "e1"],
            chain,
            [
                ("c1", ["e0"]),
                ("c2", ["c1"]),
                ("c3", ["c2"]),
                ("c3", ["e1", "c1"]),
                ("c4", ["c3"]),
                ("c5", ["c2"]),
            ],
            ["c2"],
        ),
        _random_case("random acyclic", rng, 6, 10, cyclic=False, premises=0, audits=1),
        _random_case("random cyclic", rng, 6, 12, cyclic=True, premises=0, audits=2),
        _random_case("random with premises", rng, 5, 12, cyclic=True, premises=2, audits=2),
        _random_case("random large, three audits", rng, 12, 30, cyclic=True, premises=1, audits=3),
    ]
    return result


def run(
    rules: Mapping[str, RuleFn] | None = None,
    seed: int = SEED,
    answerer: Answerer | None = None,
    budget: int | None = BUDGET,
    readers: Mapping[str, Answerer] | None = None,
) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    readers = resolve_readers(answerer, readers)
    names = list(rules)
    all_cases = cases(seed)
    repaired = dict.fromkeys(names, 0)
    agree_theory = dict.fromkeys(names, 0)
    agree_clingo = dict.fromkeys(names, 0)
    answered = {r: dict.fromkeys(names, 0) for r in readers}
    engine_ok = 0
    rows = []
    for case in all_cases:
        structure, audit = case.structure, case.audit
        truth = truth_active(structure, audit)
        before = truth_active(structure, ())
        theory_retired = revision.exact(structure, audit)
        oracle = ClingoOracle(structure)
        clingo_before = oracle.active()
        clingo_after = oracle.active(audit)
        questions = [
            Question(f"{case.name}: {c}", c, f"Does {c} still hold?")
            for c in sorted(structure.claims)
            if c in before
        ]  # claims it held
        row: dict[str, Any] = {
            "case": case.name,
            "nodes": len(structure),
            "audit": sorted(audit),
            "exact_retired": sorted(before - truth),
            "rules": {},
        }
        with new_memory() as memory:
            memory.import_graph(structure, source=case.name)
            outcomes = revise(memory, structure, audit, rules, budget, "study audit")
            # the production engine, state read back after the audit (rule-independent)
            if not audit <= memory.blocked_ids():
                memory.audit(sorted(audit), reason="study audit")
            engine_ok += memory.active_ids() == clingo_after and memory.integrity_problems() == []
        for name, outcome in outcomes.items():
            retired, after = outcome.retired, outcome.active
            ok_truth = after == truth
            repaired[name] += ok_truth
            agree_theory[name] += retired == theory_retired
            agree_clingo[name] += after == clingo_after and retired == clingo_before - clingo_after
            cell: dict[str, Any] = {"retired": sorted(retired), "repaired": ok_truth}
            for reader_name, reader in readers.items():
                ok = all(grounded(reader(outcome.context_for(q), q), q, truth) for q in questions)
                answered[reader_name][name] += ok
                cell[reader_name] = ok
            row["rules"][name] = cell
        rows.append(row)
    n = len(all_cases)
    unbounded = budget is None or budget >= BUDGET
    endpoints = [
        Endpoint(
            "cases_repaired_exactly",
            "cases in the exactly repaired state",
            repaired,
            n,
            {"exact": n},
        ),
        Endpoint(
            "agrees_with_theory",
            "retired set = theory.semantics.revision.exact",
            agree_theory,
            n,
            {"exact": n},
        ),
        Endpoint(
            "agrees_with_clingo",
            "state = clingo stable model after the audit",
            agree_clingo,
            n,
            {"exact": n},
        ),
        Endpoint(
            "engine_state_checked",
            "engine state = clingo, integrity clean (rule-independent)",
            {"exact": engine_ok},
            n,
            {"exact": n},
            construction=True,
        ),
    ]
    for reader_name in readers:
        endpoints.append(
            Endpoint(
                f"decisions_grounded.{reader_name}",
                f"cases with every claim held answered grounded ({reader_name} reader)",
                answered[reader_name],
                n,
                {"exact": n} if unbounded and reader_name in ("literal", "careful") else {},
            )
        )
    return StudyResult(
        "heterogeneous",
        names,
        endpoints,
        {"cases": rows, "seed": seed, "budget": budget},
        time.perf_counter() - started,
        seed,
        budget,
    )
