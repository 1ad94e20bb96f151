"""Study 2 of the paper (RevisionPair): 80 paired worlds that differ only in grouping.

Each of the 40 pairs is generated from the seed: a topic, two sources ``a`` and ``b``, a
claim ``c`` and a downstream decision ``d <- c``, plus 1-3 unrelated distractor facts and
claims. Both worlds of a pair share every text, every timestamp, every embedding and every
influence edge (antecedent -> claim). Only the grouping differs: in the AND world ``c`` has
the grounded justification ``{a, b}``; in the OR world it has ``{a}`` and ``{b}`` (recorded in
a seeded order). Both worlds also record the support loop ``c <- b, d`` (the decision's
outcome corroborates the claim), which has no grounded entry without ``c``. The audit
invalidates one of the sources, ``a`` or ``b`` by the seed (below, ``a``).

Endpoints per rule: the worlds whose state after the rule equals the exactly repaired state
(the ground-truth least fixpoint with ``a`` forced inactive), per grouping, and the state =
clingo's stable model. These are *construction checks*: every AND world defeats ``none`` and
every OR world defeats ``influence`` whatever the seed, so none 40/80 and influence 40/80 are
fixed by the design (the paper's Theorem 1), not measured. The result that varies is
*downstream decisions grounded*: each world's decision ``d`` is asked about from the context
the rule leaves, per reader (the paper's model decisions). The pair check stores both worlds
in the production store and compares, through public ``Memory`` methods, the bytes of every
stored node field (clocks excluded) and of the justifications, and shows an influence-only
record (nodes, timestamps, embeddings, untyped edges) is byte-identical across the pair.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from jtms.studies.embedding import embed, embedding_bytes
from jtms.studies.endpoints import Endpoint, StudyResult
from jtms.studies.readers import Answerer, Question, resolve_readers
from jtms.studies.rules import RuleFn, new_memory, resolve_rules, truth_active
from jtms.studies.scoring import grounded
from jtms.studies.trial import clingo_active, revise
from theory.model.structure import SupportStructure

PAIRS = 40
SEED = 20260601
BUDGET = 2000

_TOPICS = [
    "kinase inhibitor",
    "soil microbiome",
    "battery cathode",
    "protein folding",
    "galaxy rotation",
    "antibiotic resistance",
    "sleep spindle",
    "coral bleaching",
    "perovskite film",
    "gut hormone",
    "river sediment",
    "memory consolidation",
]
_SOURCES = [
    "assay",
    "survey",
    "simulation",
    "field sample",
    "replication",
    "spectrum",
    "imaging run",
    "cohort",
    "calibration",
    "archive record",
]
_VERBS = ["raises", "lowers", "stabilises", "disrupts", "predicts", "explains"]


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    text: str
    time: str
    embedding: tuple[float, ...]


@dataclass(frozen=True)
class World:
    pair: int
    grouping: str  # "AND" or "OR"
    nodes: tuple[Node, ...]
    justifications: tuple[tuple[str, tuple[str, ...]], ...]
    audit: tuple[str, ...]
    decision: Question  # the delayed downstream decision (about ``d``)

    def structure(self) -> SupportStructure:
        return SupportStructure.build(
            [n.id for n in self.nodes if n.kind == "evidence"],
            [n.id for n in self.nodes if n.kind == "claim"],
            self.justifications,
            texts={n.id: n.text for n in self.nodes},
        )

    def influence_edges(self) -> list[tuple[str, str]]:
        return sorted({(a, c) for c, ants in self.justifications for a in ants})

    def influence_record(self) -> bytes:
        """What an influence-only memory stores: nodes (text, time, embedding) and edges."""
        payload = {
            "nodes": [
                {
                    "id": n.id,
                    "kind": n.kind,
                    "text": n.text,
                    "time": n.time,
                    "embedding": embedding_bytes(n.embedding).hex(),
                }
                for n in self.nodes
            ],
            "edges": self.influence_edges(),
        }
        return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()


def generate(seed: int = SEED, pairs: int = PAIRS) -> list[World]:
    """The paired worlds, AND then OR for each pair (deterministic in ``seed``)."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    worlds: list[World] = []
    for p in range(pairs):
        topic = rng.choice(_TOPICS)
        s1, s2 = rng.sample(_SOURCES, 2)
        verb = rng.choice(_VERBS)
        clock = start + timedelta(days=p, minutes=rng.randrange(600))

        def stamp(step: int) -> str:
            return (clock + timedelta(minutes=7 * step)).isoformat()

        specs = [
            ("a", "evidence", f"{s1} on the {topic} shows the effect (run {rng.randrange(1000)})"),
            ("b", "evidence", f"{s2} on the {topic} shows the effect (run {rng.randrange(1000)})"),
            ("c", "claim", f"the {topic} {verb} the measured response"),
            ("d", "claim", f"plan: act on the {topic} result"),
        ]
        extra: list[tuple[str, tuple[str, ...]]] = []
        for k in range(rng.randrange(1, 4)):
            specs.append((f"f{k}", "evidence", f"background fact {k} about the {topic}"))
            specs.append((f"g{k}", "claim", f"side note {k} on the {topic}"))
            extra.append((f"g{k}", (f"f{k}",)))
        nodes = tuple(
            Node(f"p{p:02d}_{i}", kind, text, stamp(step), embed(text))
            for step, (i, kind, text) in enumerate(specs)
        )
        name = {i: f"p{p:02d}_{i}" for i, _, _ in specs}
        common = [(name["d"], (name["c"],))] + [
            (name[c], tuple(name[a] for a in ants)) for c, ants in extra
        ]
        loop = (name["c"], (name["b"], name["d"]))  # the decision's outcome corroborates c
        and_j = [(name["c"], (name["a"], name["b"])), loop] + common
        alternatives = [(name["c"], (name["a"],)), (name["c"], (name["b"],))]
        if rng.random() < 0.5:  # recording order of the alternatives
            alternatives.reverse()
        or_j = alternatives + [loop] + common
        audit = (name[rng.choice("ab")],)  # which source fails: seeded
        decision = Question(f"p{p:02d}_q", name["d"], f"Should we act on the {topic} result now?")
        worlds.append(World(p, "AND", nodes, tuple(and_j), audit, decision))
        worlds.append(World(p, "OR", nodes, tuple(or_j), audit, decision))
    return worlds


STORED_COLUMNS = {
    "nodes": ("num", "id", "kind", "text", "author", "expression", "value", "status"),
    "justifications": ("claim", "antecedents"),
}  # no clocks, no event numbers


def stored_tables(world: World, audited: bool = True) -> dict[str, bytes]:
    """The world in the production store (after the audit, unless ``audited`` is False), read
    back through public ``Memory`` methods (``Memory.table``, ``Memory.active_ids``): the
    bytes of the stored nodes and justifications (columns that are not clocks or event
    numbers) and of the active state."""
    with new_memory() as memory:
        memory.import_graph(world.structure(), source="revisionpair")
        if audited:
            memory.audit(list(world.audit), reason="source invalidated")
        tables: dict[str, object] = {
            name: sorted(
                ([row[c] for c in columns] for row in memory.table(name)),
                key=lambda row: (row[0], row[1]),
            )
            for name, columns in STORED_COLUMNS.items()
        }
        tables["state"] = sorted(memory.active_ids())
    return {
        name: json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
        for name, value in tables.items()
    }


def pair_check(and_world: World, or_world: World) -> dict[str, bool]:
    """Byte identity within a pair: everything but the justification grouping is the same."""
    stored_and = stored_tables(and_world, audited=False)
    stored_or = stored_tables(or_world, audited=False)
    return {
        "texts_times_embeddings_edges_identical": and_world.influence_record()
        == or_world.influence_record(),
        "embeddings_identical": all(
            embedding_bytes(x.embedding) == embedding_bytes(y.embedding)
            for x, y in zip(and_world.nodes, or_world.nodes, strict=True)
        ),
        "stored_nodes_identical": stored_and["nodes"] == stored_or["nodes"],
        "stored_justifications_differ": stored_and["justifications"] != stored_or["justifications"],
    }


def run(
    rules: Mapping[str, RuleFn] | None = None,
    seed: int = SEED,
    pairs: int = PAIRS,
    answerer: Answerer | None = None,
    budget: int | None = BUDGET,
    readers: Mapping[str, Answerer] | None = None,
) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    readers = resolve_readers(answerer, readers)
    names = list(rules)
    worlds = generate(seed, pairs)
    exact_counts = dict.fromkeys(names, 0)
    by_grouping = {name: {"AND": 0, "OR": 0} for name in names}
    agree_clingo = dict.fromkeys(names, 0)
    decisions = {r: dict.fromkeys(names, 0) for r in readers}
    influence_blind = 0
    checks_ok = 0
    for k in range(0, len(worlds), 2):
        pair_outcomes = []
        for world in worlds[k : k + 2]:
            structure = world.structure()
            audit = frozenset(world.audit)
            truth = truth_active(structure, audit)
            oracle = clingo_active(structure, audit)
            with new_memory() as memory:
                memory.import_graph(structure, source=f"pair {world.pair} {world.grouping}")
                outcomes = revise(memory, structure, audit, rules, budget, "source invalidated")
            for name, outcome in outcomes.items():
                if outcome.active == truth:
                    exact_counts[name] += 1
                    by_grouping[name][world.grouping] += 1
                agree_clingo[name] += outcome.active == oracle
                for reader_name, reader in readers.items():
                    decisions[reader_name][name] += grounded(
                        reader(outcome.context_for(world.decision), world.decision),
                        world.decision,
                        truth,
                    )
            pair_outcomes.append({name: o.active for name, o in outcomes.items()})
        checks = pair_check(worlds[k], worlds[k + 1])
        checks_ok += all(checks.values())
        # the influence-only record cannot tell the worlds apart: same input, same output
        influence_blind += checks["texts_times_embeddings_edges_identical"] and pair_outcomes[
            0
        ].get("influence") == pair_outcomes[1].get("influence")
    n = len(worlds)
    half = n // 2
    digest = hashlib.sha256(b"".join(w.influence_record() for w in worlds)).hexdigest()
    unbounded = budget is None or budget >= BUDGET
    endpoints = [
        Endpoint(
            "worlds_repaired_exactly",
            "worlds in the exactly repaired state",
            exact_counts,
            n,
            {"exact": n, "none": half, "influence": half},
            construction=True,
        ),
        Endpoint(
            "and_worlds_repaired",
            "AND worlds repaired exactly",
            {r: by_grouping[r]["AND"] for r in names},
            half,
            construction=True,
        ),
        Endpoint(
            "or_worlds_repaired",
            "OR worlds repaired exactly",
            {r: by_grouping[r]["OR"] for r in names},
            half,
            construction=True,
        ),
        Endpoint(
            "agrees_with_clingo",
            "state = clingo stable model",
            agree_clingo,
            n,
            {"exact": n},
            construction=True,
        ),
    ]
    for reader_name in readers:
        endpoints.append(
            Endpoint(
                f"decisions_grounded.{reader_name}",
                f"downstream decisions grounded ({reader_name} reader)",
                decisions[reader_name],
                n,
                {"exact": n} if unbounded and reader_name in ("literal", "careful") else {},
            )
        )
    details = {
        "pairs": len(worlds) // 2,
        "seed": seed,
        "budget": budget,
        "pairs_byte_identical_but_grouping": checks_ok,
        "pairs_influence_cannot_distinguish": influence_blind,
        "influence_records_sha256": digest,
    }
    endpoints.append(
        Endpoint(
            "pairs_identical_but_grouping",
            "pairs identical but for grouping (rule-independent)",
            {"exact": checks_ok},
            n // 2,
            {"exact": n // 2},
            construction=True,
        )
    )
    endpoints.append(
        Endpoint(
            "influence_cannot_distinguish",
            "pairs an influence-only memory cannot tell apart (rule-independent)",
            {"exact": influence_blind},
            n // 2,
            {"exact": n // 2},
            construction=True,
        )
    )
    return StudyResult(
        "revisionpair", names, endpoints, details, time.perf_counter() - started, seed, budget
    )
