"""Study 3 of the paper: the diagnosis-repair-behaviour loop without an oracle root.

Each of the 20 episodes is a memory (an SQLite file, ``durability="full"``) with 3-6
recorded calculations (exact rational arithmetic, each with the value the agent recorded),
one observation, an estimate derived from each calculation and the observation, a
conclusion that needs the estimate of the wrong calculation and of another one (AND), a
decision planned from the conclusion, and a robust claim with two alternative
justifications (the wrong estimate, or an independent one). Exactly one recorded value is
wrong; nothing names it. The study keeps the planted id only to score.

Loop: the reviewer (:func:`jtms.reviewer.review`) re-executes every recorded calculation
and nominates the discrepancies (*identified* when that is exactly the planted one); the
rule revises the memory from the nominated roots (*repaired* when the state equals the
ground truth); the next context is compiled and three delayed questions (the decision, the
conclusion, the robust claim) are answered from it by the deterministic answerer
(*grounded* when all three are). For the engine's exact rule the reviewer runs the audit
itself; the *repair latency after diagnosis* is the audit's planning, SQLite commit (fsync)
and state update, as measured by the engine (:attr:`AuditResult.seconds`).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from theory.graphfile import parse_graph
from theory.structure import SupportStructure

from jtms.reconsolidation import Memory
from jtms.reviewer import review
from jtms.studies.common import (Answerer, Endpoint, Question, RuleFn, StudyResult, answer,
                                 engine_exact, grounded, pre_audit_certificates,
                                 render_rule_context, resolve_rules, truth_active)

EPISODES = 20
SEED = 303
BUDGET = 2000


@dataclass(frozen=True)
class Episode:
    number: int
    document: dict                 # graph document with expression/value on calculations
    wrong: str                     # the planted wrong calculation (for scoring only)
    questions: tuple[Question, ...]

    def structure(self) -> SupportStructure:
        return parse_graph(self.document, source=f"episode {self.number}")


def _calculation(rng: random.Random) -> tuple[str, Fraction]:
    a, b, c = rng.randint(2, 99), rng.randint(2, 99), rng.randint(2, 12)
    form = rng.randrange(3)
    if form == 0:
        return f"{a}*{b} + {c}", Fraction(a * b + c)
    if form == 1:
        return f"({a} + {b})/{c}", Fraction(a + b, c)
    return f"{a}**2 - {b}*{c}", Fraction(a * a - b * c)


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def generate(seed: int = SEED, episodes: int = EPISODES) -> list[Episode]:
    rng = random.Random(seed)
    result = []
    for k in range(episodes):
        p = f"d{k:02d}_"
        n_calc = rng.randint(3, 6)
        wrong = rng.randrange(n_calc)
        partner = (wrong + 1) % n_calc
        alternative = (wrong + 2) % n_calc
        nodes = [{"id": p + "obs", "kind": "evidence", "text": f"episode {k}: the sample was measured"}]
        justs = []
        for i in range(n_calc):
            expression, value = _calculation(rng)
            recorded = value + rng.choice([1, -1, 10, Fraction(1, 2)]) if i == wrong else value
            nodes.append({"id": f"{p}calc{i}", "kind": "evidence", "text": f"calculation {i}: {expression}",
                          "expression": expression, "value": _show(recorded)})
            nodes.append({"id": f"{p}est{i}", "kind": "claim",
                          "text": f"estimate {i} is {_show(recorded)}"})
            justs.append({"claim": f"{p}est{i}", "antecedents": [f"{p}calc{i}", p + "obs"]})
        nodes += [
            {"id": p + "conclusion", "kind": "claim", "text": f"the effect in episode {k} is real"},
            {"id": p + "decision", "kind": "claim", "text": f"plan the follow-up experiment {k}"},
            {"id": p + "robust", "kind": "claim", "text": f"the baseline of episode {k} holds"},
        ]
        justs += [
            {"claim": p + "conclusion", "antecedents": [f"{p}est{wrong}", f"{p}est{partner}"]},
            {"claim": p + "decision", "antecedents": [p + "conclusion"]},
            {"claim": p + "robust", "antecedents": [f"{p}est{wrong}"]},
            {"claim": p + "robust", "antecedents": [f"{p}est{alternative}"]},
        ]
        questions = (
            Question(f"{p}q1", p + "decision", f"Should we run the follow-up experiment {k}?"),
            Question(f"{p}q2", p + "conclusion", f"Is the effect in episode {k} real?"),
            Question(f"{p}q3", p + "robust", f"Does the baseline of episode {k} hold?"),
        )
        result.append(Episode(k, {"nodes": nodes, "justifications": justs}, f"{p}calc{wrong}", questions))
    return result


def run(rules: Mapping[str, RuleFn] | None = None, seed: int = SEED, episodes: int = EPISODES,
        answerer: Answerer = answer, directory: str | Path | None = None) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    names = list(rules)
    identified = 0
    repaired = {r: 0 for r in names}
    grounded_eps = {r: 0 for r in names}
    latencies: list[float] = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="jtms-diagnosis-", dir=directory) as tmp:
        for episode in generate(seed, episodes):
            structure = episode.structure()
            truth = truth_active(structure, {episode.wrong})
            before = truth_active(structure, ())
            row = {"episode": episode.number, "wrong": episode.wrong}
            with Memory.create(Path(tmp) / f"episode{episode.number:02d}.db") as memory:
                memory.import_graph(episode.document, source=f"episode {episode.number}")
                certificates = pre_audit_certificates(memory, structure.claims)
                nominated = frozenset(d.id for d in review(memory, dry_run=True).discrepancies)
                identified += nominated == {episode.wrong}
                row["nominated"] = sorted(nominated)
                for name, rule in rules.items():
                    if rule is engine_exact:
                        report = review(memory, reviewer="study")  # diagnosis and audit, one loop
                        latencies.append(report.audit.seconds if report.audit else float("nan"))
                        after = memory.active_ids()
                        context = memory.context(BUDGET).text
                    else:
                        retired = frozenset(rule(structure, nominated)) if nominated else frozenset()
                        after = before - retired
                        context = render_rule_context(structure, after, retired, certificates)
                    ok_repair = after == truth
                    ok_grounded = all(grounded(answerer(context, q), q, truth) for q in episode.questions)
                    repaired[name] += ok_repair
                    grounded_eps[name] += ok_grounded
                    row[name] = {"repaired": ok_repair, "grounded": ok_grounded}
            rows.append(row)
    n = episodes
    median_ms = round(statistics.median(latencies) * 1000, 3) if latencies else None
    endpoints = [
        Endpoint("premise_identified", "affected premise identified (rule-independent)",
                 {r: identified for r in names}, n, {"exact": n}),
        Endpoint("repaired", "episodes repaired exactly", repaired, n, {"exact": n}),
        Endpoint("grounded", "next context grounded (3 delayed questions)", grounded_eps, n, {"exact": n}),
        Endpoint("median_repair_ms", "median repair latency after diagnosis, ms (incl. SQLite commit)",
                 {"exact": median_ms} if latencies else {}, None),
    ]
    details = {"episodes": rows, "seed": seed,
               "latencies_ms": [round(x * 1000, 3) for x in latencies]}
    return StudyResult("diagnosis", names, endpoints, details, time.perf_counter() - started)
