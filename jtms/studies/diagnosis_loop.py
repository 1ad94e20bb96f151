"""Study 3 of the paper: the diagnosis-repair-behaviour loop without an oracle root.

Each of the 20 episodes is a memory (an SQLite file, ``durability="full"``) with 3-6
recorded calculations (exact rational arithmetic, each with the value the agent recorded),
one observation, an estimate derived from each calculation and the observation
(``est_i <- calc_i, obs``), a conclusion that needs the estimate of a wrong calculation and
of another one (AND), a decision planned from the conclusion, a robust claim with two
alternative justifications (the wrong estimate, or an independent one), and a support loop
``conclusion <- decision, robust`` that has no grounded entry once the conclusion falls.

Discrepancies come in several kinds (:data:`KINDS`: an arithmetic slip, a sign flip,
transposed digits, a factor of ten, a dropped term); a seeded third of the episodes have two.
Decoys are correct values recorded in another form: rounded within the reviewer's tolerance
(:data:`DECOY_DIGITS` significant digits), as an exact decimal, in scientific notation, or
as an unreduced fraction. Nothing names the wrong calculations; the study keeps them only to
score.

Loop: a diagnoser (default: the reviewer, :func:`jtms.calc.reviewer.review`, dry run) re-executes
every recorded calculation and nominates the discrepancies (*identified* when that is
exactly the planted set: no decoy, no miss); each rule revises the memory from the nominated
roots (*repaired* when the state equals the ground truth from the planted set, *state =
clingo*); the next context is compiled and the delayed questions (the decision, the
conclusion, the robust claim and every estimate) are answered from it by each reader
(*grounded* when all of them are), so a false root lowers both repaired and grounded. The
*repair latency after diagnosis* is the engine's :attr:`AuditResult.seconds` for the audit
(planning, the SQLite transaction with its COMMIT and fsync, applying the state), median over
the episodes, and again on memories of 10k and 100k claims (:func:`scale_latencies`).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from jtms.calc.reviewer import review
from jtms.memory.memory import Memory
from jtms.studies.endpoints import Endpoint, StudyResult
from jtms.studies.readers import Answerer, Question, resolve_readers
from jtms.studies.rules import RuleFn, resolve_rules, truth_active
from jtms.studies.scoring import grounded
from jtms.studies.trial import clingo_active, revise
from theory.io.graphfile import parse_graph
from theory.model.structure import SupportStructure

EPISODES = 20
SEED = 303
BUDGET = 2000
DECOY_DIGITS = 5  # a scientist's rounding; the reviewer compares at the stated precision
SCALES: tuple[int, ...] = (10_000, 100_000)

Diagnoser = Callable[[Memory], frozenset[str]]


def reviewer_roots(memory: Memory) -> frozenset[str]:
    """The reviewer's nominations: every recorded calculation it finds wrong (dry run)."""
    return frozenset(d.id for d in review(memory, dry_run=True).discrepancies)


def _show(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def _transposed(value: Fraction) -> Fraction:
    digits = str(abs(value.numerator))
    if value.denominator != 1 or len(digits) < 2 or digits[-1] == digits[-2]:
        return value + 9
    swapped = int(digits[:-2] + digits[-1] + digits[-2])
    return Fraction(swapped if value >= 0 else -swapped)


KINDS: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "slip": lambda v, term: v + 1,
    "sign": lambda v, term: -v if v != 0 else Fraction(1),
    "transposed digits": lambda v, term: _transposed(v),
    "factor of ten": lambda v, term: v * 10 if v != 0 else Fraction(10),
    "dropped term": lambda v, term: v - term,
}


def _calculation(rng: random.Random) -> tuple[str, Fraction, Fraction]:
    """An expression, its exact value, and a term a careless agent might drop."""
    a, b, c = rng.randint(2, 99), rng.randint(2, 99), rng.randint(2, 12)
    form = rng.randrange(3)
    if form == 0:
        return f"{a}*{b} + {c}", Fraction(a * b + c), Fraction(c)
    if form == 1:
        return f"({a} + {b})/{c}", Fraction(a + b, c), Fraction(b, c)
    return f"{a}**2 - {b}*{c}", Fraction(a * a - b * c), Fraction(-b * c)


def _decoy(value: Fraction, rng: random.Random) -> tuple[str, str]:
    """A correct value written another way (the reviewer must not flag it)."""
    if value.denominator != 1:
        if 10**6 % value.denominator == 0:
            return "exact decimal", f"{float(value):.6f}".rstrip("0")
        if rng.random() < 0.5:
            return "unreduced fraction", f"{value.numerator * 3}/{value.denominator * 3}"
        return "rounded", f"{float(value):.{DECOY_DIGITS}g}"
    if rng.random() < 0.5:
        return "scientific notation", f"{float(value):.6e}"
    return "decimal point", f"{value.numerator}.0"


@dataclass(frozen=True)
class Episode:
    number: int
    document: dict[str, Any]  # graph document with expression/value on calculations
    wrong: frozenset[str]  # the planted wrong calculations (for scoring only)
    kinds: tuple[str, ...]  # their kinds of discrepancy
    decoys: tuple[str, ...]  # kinds of the correct values written another way
    questions: tuple[Question, ...]

    def structure(self) -> SupportStructure:
        return parse_graph(self.document, source=f"episode {self.number}")


def generate(seed: int = SEED, episodes: int = EPISODES, prefix: str = "d") -> list[Episode]:
    rng = random.Random(seed)
    result = []
    for k in range(episodes):
        p = f"{prefix}{k:02d}_"
        n_calc = rng.randint(3, 6)
        first = rng.randrange(n_calc)
        wrong = [first]
        if rng.random() < 1 / 3:
            wrong.append(rng.choice([i for i in range(n_calc) if i != first]))
        partner = (first + 1) % n_calc
        alternative = (first + 2) % n_calc
        nodes: list[dict[str, Any]] = [
            {"id": p + "obs", "kind": "evidence", "text": f"episode {k}: the sample was measured"}
        ]
        justs: list[dict[str, Any]] = []
        kinds, decoys = [], []
        for i in range(n_calc):
            expression, value, term = _calculation(rng)
            if i in wrong:
                kind = rng.choice(sorted(KINDS))
                recorded = _show(KINDS[kind](value, term))
                kinds.append(kind)
            elif rng.random() < 0.5:
                decoy, recorded = _decoy(value, rng)
                decoys.append(decoy)
            else:
                recorded = _show(value)
            nodes.append(
                {
                    "id": f"{p}calc{i}",
                    "kind": "evidence",
                    "text": f"calculation {i}: {expression}",
                    "expression": expression,
                    "value": recorded,
                }
            )
            nodes.append(
                {"id": f"{p}est{i}", "kind": "claim", "text": f"estimate {i} is {recorded}"}
            )
            justs.append({"claim": f"{p}est{i}", "antecedents": [f"{p}calc{i}", p + "obs"]})
        nodes += [
            {"id": p + "conclusion", "kind": "claim", "text": f"the effect in episode {k} is real"},
            {"id": p + "decision", "kind": "claim", "text": f"plan the follow-up experiment {k}"},
            {"id": p + "robust", "kind": "claim", "text": f"the baseline of episode {k} holds"},
        ]
        justs += [
            {"claim": p + "conclusion", "antecedents": [f"{p}est{first}", f"{p}est{partner}"]},
            {"claim": p + "conclusion", "antecedents": [p + "decision", p + "robust"]},  # loop
            {"claim": p + "decision", "antecedents": [p + "conclusion"]},
            {"claim": p + "robust", "antecedents": [f"{p}est{first}"]},
            {"claim": p + "robust", "antecedents": [f"{p}est{alternative}"]},
        ]
        questions = [
            Question(f"{p}q1", p + "decision", f"Should we run the follow-up experiment {k}?"),
            Question(f"{p}q2", p + "conclusion", f"Is the effect in episode {k} real?"),
            Question(f"{p}q3", p + "robust", f"Does the baseline of episode {k} hold?"),
        ] + [
            Question(f"{p}q{4 + i}", f"{p}est{i}", f"Can we use estimate {i} of episode {k}?")
            for i in range(n_calc)
        ]
        result.append(
            Episode(
                k,
                {"nodes": nodes, "justifications": justs},
                frozenset(f"{p}calc{i}" for i in wrong),
                tuple(kinds),
                tuple(decoys),
                tuple(questions),
            )
        )
    return result


def run(
    rules: Mapping[str, RuleFn] | None = None,
    seed: int = SEED,
    episodes: int = EPISODES,
    answerer: Answerer | None = None,
    directory: str | Path | None = None,
    budget: int | None = BUDGET,
    readers: Mapping[str, Answerer] | None = None,
    diagnose: Diagnoser = reviewer_roots,
    scales: Sequence[int] = (),
) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    readers = resolve_readers(answerer, readers)
    names = list(rules)
    identified = 0
    two = 0
    repaired = dict.fromkeys(names, 0)
    agree_clingo = dict.fromkeys(names, 0)
    grounded_eps = {r: dict.fromkeys(names, 0) for r in readers}
    latencies: list[float] = []
    rows = []
    all_episodes = generate(seed, episodes)
    with tempfile.TemporaryDirectory(prefix="jtms-diagnosis-", dir=directory) as tmp:
        for episode in all_episodes:
            structure = episode.structure()
            truth = truth_active(structure, episode.wrong)
            two += len(episode.wrong) == 2
            row: dict[str, Any] = {
                "episode": episode.number,
                "wrong": sorted(episode.wrong),
                "kinds": list(episode.kinds),
                "decoys": list(episode.decoys),
            }
            with Memory.create(Path(tmp) / f"episode{episode.number:02d}.db") as memory:
                memory.import_graph(episode.document, source=f"episode {episode.number}")
                nominated = diagnose(memory)
                identified += nominated == episode.wrong
                row["nominated"] = sorted(nominated)
                oracle = clingo_active(structure, nominated)
                outcomes = revise(
                    memory, structure, nominated, rules, budget, "review: discrepancy"
                )
            for name, outcome in outcomes.items():
                if outcome.audit_seconds is not None:
                    latencies.append(outcome.audit_seconds)
                ok_repair = outcome.active == truth
                repaired[name] += ok_repair
                agree_clingo[name] += outcome.active == oracle
                cell: dict[str, Any] = {"repaired": ok_repair}
                for reader_name, reader in readers.items():
                    ok = all(
                        grounded(reader(outcome.context_for(q), q), q, truth)
                        for q in episode.questions
                    )
                    grounded_eps[reader_name][name] += ok
                    cell[reader_name] = ok
                row[name] = cell
            rows.append(row)
    n = episodes
    unbounded = budget is None or budget >= BUDGET
    median_ms = round(statistics.median(latencies) * 1000, 3) if latencies else None
    endpoints = [
        Endpoint(
            "premise_identified",
            "affected premises identified, no decoy flagged (rule-independent)",
            {"exact": identified},
            n,
            {"exact": n},
            construction=True,
        ),
        Endpoint("repaired", "episodes repaired exactly", repaired, n, {"exact": n}),
        Endpoint(
            "agrees_with_clingo",
            "state = clingo stable model (nominated roots)",
            agree_clingo,
            n,
            {"exact": n},
        ),
    ]
    for reader_name in readers:
        endpoints.append(
            Endpoint(
                f"grounded.{reader_name}",
                f"next context grounded, all delayed questions ({reader_name} reader)",
                grounded_eps[reader_name],
                n,
                {"exact": n} if unbounded and reader_name in ("literal", "careful") else {},
            )
        )
    endpoints.append(
        Endpoint(
            "median_repair_ms",
            "median repair latency after diagnosis, ms (incl. SQLite commit)",
            {"exact": median_ms} if latencies else {},
            None,
        )
    )
    scale_rows = []
    for size in scales:
        measured = scale_latencies(size, seed, directory)
        scale_rows.append(measured)
        endpoints.append(
            Endpoint(
                f"median_repair_ms_{size}",
                f"median repair latency on a {size}-claim memory, ms",
                {"exact": measured["median_ms"]},
                None,
            )
        )
        endpoints.append(
            Endpoint(
                f"scale_checked_{size}",
                f"{size}-claim memory: repaired = ground truth, integrity clean",
                {"exact": int(measured["ok"])},
                1,
                {"exact": 1},
            )
        )
    details = {
        "episodes": rows,
        "seed": seed,
        "budget": budget,
        "episodes_with_two_discrepancies": two,
        "decoys": sum(len(e.decoys) for e in all_episodes),
        "latencies_ms": [round(x * 1000, 3) for x in latencies],
        "scales": scale_rows,
    }
    return StudyResult(
        "diagnosis", names, endpoints, details, time.perf_counter() - started, seed, budget
    )


def background(size: int, seed: int) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Evidence and justifications of ``size`` unrelated claims (chains, joins, loops)."""
    rng = random.Random(f"background-{seed}-{size}")
    evidence = [f"bg_e{i}" for i in range(max(1, size // 10))]
    justs: list[tuple[str, list[str]]] = []
    for i in range(size):
        claim = f"bg_c{i}"
        pool_size = min(i, 200)
        earlier = [f"bg_c{i - 1 - rng.randrange(pool_size)}"] if pool_size else []
        justs.append((claim, [rng.choice(evidence)] + earlier))
        if rng.random() < 0.3:
            justs.append((claim, [rng.choice(evidence)]))
        if i and rng.random() < 0.05:
            justs.append((f"bg_c{i - 1}", [claim]))  # a support loop
    return evidence, justs


def scale_latencies(
    size: int, seed: int = SEED, directory: str | Path | None = None, episodes: int = EPISODES
) -> dict[str, Any]:
    """Repair latency after diagnosis on a memory of ``size`` background claims plus the
    episodes: the reviewer nominates, each episode's roots are audited on their own; then the
    episodes' state must equal the ground truth and the engine's integrity check be clean."""
    evidence, justs = background(size, seed)
    episode_list = generate(seed, episodes, prefix="s")
    seconds = []
    with tempfile.TemporaryDirectory(prefix="jtms-scale-", dir=directory) as tmp:
        with Memory.create(Path(tmp) / "memory.db") as memory:
            memory.import_graph(
                SupportStructure.build(evidence, [f"bg_c{i}" for i in range(size)], justs),
                source=f"{size}-claim background",
            )
            memory.import_graph(
                {
                    "nodes": [n for e in episode_list for n in e.document["nodes"]],
                    "justifications": [
                        j for e in episode_list for j in e.document["justifications"]
                    ],
                },
                source="episodes",
            )
            nominated = reviewer_roots(memory)
            for episode in episode_list:
                roots = sorted(r for r in nominated if r.startswith(f"s{episode.number:02d}_"))
                if roots:
                    seconds.append(memory.audit(roots, reason="review: discrepancy").seconds)
            active = memory.active_ids()
            ok = memory.integrity_problems() == []
    for episode in episode_list:
        structure = episode.structure()
        ok = (
            ok
            and episode.wrong <= nominated
            and active & structure.nodes.keys() == truth_active(structure, episode.wrong)
        )
    ok = ok and nominated == frozenset().union(*(e.wrong for e in episode_list))
    claims = size + sum(len(e.structure().claims) for e in episode_list)
    return {
        "claims": claims,
        "audits": len(seconds),
        "median_ms": round(statistics.median(seconds) * 1000, 3) if seconds else None,
        "ok": ok,
    }
