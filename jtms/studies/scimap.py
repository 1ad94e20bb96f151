"""Study 1 of the paper (SciMapRepair): 20 workspaces, 140 delayed questions, 40 propagated
consequences, 20 independent branches.

Each workspace (generated from the seed) holds an observation ``obs_a``, an independent
observation ``obs_b``, evidence ``shared`` that both branches use (a calibration protocol)
and a literature source ``lit``. The main branch is a chain of 1-3 claims from ``obs_a``:
interpretation (``interp_a <- obs_a, shared``), mechanistic conclusion
(``mech_a <- interp_a``), planned experiment (``plan_a <- mech_a``); the chain lengths are a
seeded shuffle of five 1s, ten 2s and five 3s, so the audit of ``obs_a`` has exactly 40
propagated consequences. Where the chain has a conclusion it closes a support loop
(``interp_a <- mech_a, lit``: the mechanism explains the reading given the literature),
which loses its only grounded entry with ``obs_a``. The independent branch
(``interp_b <- obs_b, shared``, ``mech_b <- interp_b``, ``plan_b <- mech_b``, and the loop
``interp_b <- mech_b, lit`` that keeps outside support) shares evidence with the main branch;
in a seeded half of the workspaces (*joined*) its conclusion also has a justification through
the main branch (``mech_b <- interp_a, lit``), so it stays supported when the main branch
falls but is downstream of it. The seed also decides the recording order of the two
branches and of ``mech_b``'s justifications, hence which support a memory recorded first.

Seven delayed questions per workspace: the main-branch claims, the three branch claims, and
``obs_a``, ``shared``, ``obs_b`` as needed to make seven. Endpoints per rule: propagated
consequences repaired in the state; independent branches preserved (every branch claim
active); state = clingo's stable model; and per reader (:mod:`jtms.studies.readers`):
delayed questions grounded, propagated consequences the reader answers as withdrawn (what
the paper counts as repaired when a model reads the memory), withdrawn descendants cited in
answers (the paper's contamination) and contaminated context lines.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

from jtms.studies.endpoints import Endpoint, StudyResult
from jtms.studies.readers import Answerer, Question, resolve_readers
from jtms.studies.rules import RuleFn, new_memory, resolve_rules, truth_active
from jtms.studies.scoring import cited_descendants, contaminated_lines, grounded
from jtms.studies.trial import clingo_active, revise
from theory.model.structure import SupportStructure

WORKSPACES = 20
QUESTIONS = 7
SEED = 1
BUDGET = 2000
CHAIN_LENGTHS = (1,) * 5 + (2,) * 10 + (3,) * 5  # 40 propagated consequences

_FIELDS = [
    ("neuroscience", "spine density", "synaptic pruning"),
    ("oncology", "tumour growth", "kinase signalling"),
    ("ecology", "pollinator visits", "nectar chemistry"),
    ("materials", "film conductivity", "grain boundaries"),
    ("immunology", "cytokine release", "inflammasome priming"),
    ("climate", "ice melt rate", "albedo feedback"),
    ("microbiology", "biofilm mass", "quorum sensing"),
    ("astronomy", "rotation curve", "halo density"),
]


@dataclass(frozen=True)
class Workspace:
    number: int
    structure: SupportStructure
    audit: frozenset[str]
    branch: tuple[str, ...]  # the independent branch's claims
    joined: bool  # branch conclusion also justified through the main branch
    questions: tuple[Question, ...]


def chain_lengths(seed: int, workspaces: int) -> list[int]:
    """Main-chain lengths: the paper's 40 consequences over 20 workspaces, shuffled."""
    rng = random.Random(f"chains-{seed}")
    lengths = [CHAIN_LENGTHS[k % len(CHAIN_LENGTHS)] for k in range(workspaces)]
    rng.shuffle(lengths)
    return lengths


def generate(seed: int = SEED, workspaces: int = WORKSPACES) -> list[Workspace]:
    rng = random.Random(seed)
    result = []
    for k, length in enumerate(chain_lengths(seed, workspaces)):
        field, measure, mechanism = _FIELDS[rng.randrange(len(_FIELDS))]
        p = f"w{k:02d}_"
        joined = rng.random() < 0.5
        branch_first = rng.random() < 0.5  # recording order of the two branches
        texts = {
            p + "obs_a": f"{field}: {measure} rose after treatment in batch {rng.randrange(100)}",
            p + "obs_b": f"{field}: a second readout of {measure} in an independent cohort",
            p + "shared": f"{field}: calibration protocol for {measure}",
            p + "lit": f"{field}: published link between {measure} and {mechanism}",
            p + "interp_a": f"the treatment increases {measure}",
            p + "mech_a": f"the increase is driven by {mechanism}",
            p + "plan_a": f"plan: block {mechanism} and measure {measure} again",
            p + "interp_b": f"{measure} differs between cohorts",
            p + "mech_b": f"{mechanism} varies across cohorts",
            p + "plan_b": f"plan: compare {mechanism} markers across cohorts",
        }
        main = [p + "interp_a", p + "mech_a", p + "plan_a"][:length]
        for dropped in [p + "mech_a", p + "plan_a"][length - 1 :]:
            del texts[dropped]
        justs = [(p + "interp_a", [p + "obs_a", p + "shared"])]
        justs += [(main[i], [main[i - 1]]) for i in range(1, length)]
        if length >= 2:
            justs.append((p + "interp_a", [p + "mech_a", p + "lit"]))  # unsupported loop
        branch_justs = [(p + "mech_b", [p + "interp_b"])]
        if joined:
            branch_justs.insert(rng.randrange(2), (p + "mech_b", [p + "interp_a", p + "lit"]))
        justs += [(p + "interp_b", [p + "obs_b", p + "shared"])] + branch_justs
        justs += [(p + "plan_b", [p + "mech_b"]), (p + "interp_b", [p + "mech_b", p + "lit"])]
        evidence = [p + x for x in ("obs_a", "obs_b", "shared", "lit")]
        claims = [i for i in texts if i not in evidence]
        if branch_first:
            evidence[:2] = evidence[1::-1]
            claims.sort(key=lambda c: not c.endswith("_b"))
        structure = SupportStructure.build(evidence, claims, justs, texts=texts)
        branch = (p + "interp_b", p + "mech_b", p + "plan_b")
        fill = [p + "obs_a", p + "shared", p + "obs_b"][: QUESTIONS - length - len(branch)]
        targets = main + list(branch) + fill
        questions = tuple(
            Question(
                f"{p}q{i}", t, f"Delayed question {i} on {field}: can we rely on '{texts[t]}'?"
            )
            for i, t in enumerate(targets, 1)
        )
        result.append(Workspace(k, structure, frozenset({p + "obs_a"}), branch, joined, questions))
    return result


def run(
    rules: Mapping[str, RuleFn] | None = None,
    seed: int = SEED,
    workspaces: int = WORKSPACES,
    answerer: Answerer | None = None,
    budget: int | None = BUDGET,
    readers: Mapping[str, Answerer] | None = None,
) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    readers = resolve_readers(answerer, readers)
    names = list(rules)
    spaces = generate(seed, workspaces)
    propagated_total = 0
    repaired = dict.fromkeys(names, 0)
    preserved = dict.fromkeys(names, 0)
    agree_clingo = dict.fromkeys(names, 0)
    lines = dict.fromkeys(names, 0)
    per_reader = {
        k: {r: dict.fromkeys(names, 0) for r in readers}
        for k in ("grounded", "answered_withdrawn", "cited")
    }
    discriminating = 0
    rows = []
    for space in spaces:
        structure, audit = space.structure, space.audit
        truth = truth_active(structure, audit)
        before = truth_active(structure, ())
        propagated = (before - truth) - audit
        propagated_total += len(propagated)
        oracle = clingo_active(structure, audit)
        row: dict[str, object] = {
            "workspace": space.number,
            "joined": space.joined,
            "propagated": sorted(propagated),
        }
        with new_memory() as memory:
            memory.import_graph(structure, source=f"workspace {space.number}")
            outcomes = revise(memory, structure, audit, rules, budget, "observation invalidated")
        states = {name: o.active for name, o in outcomes.items()}
        discriminating += sum(
            len({t.target in s for s in states.values()}) > 1 for t in space.questions
        )
        for name, outcome in outcomes.items():
            after = outcome.active
            repaired[name] += len(propagated - after)
            preserved[name] += all(c in after for c in space.branch)
            agree_clingo[name] += after == oracle
            lines[name] += contaminated_lines(outcome.context, truth)
            cell: dict[str, object] = {"repaired": len(propagated - after)}
            for reader_name, reader in readers.items():
                answers = [(q, reader(outcome.context_for(q), q)) for q in space.questions]
                good = sum(grounded(a, q, truth) for q, a in answers)
                said_withdrawn = sum(
                    q.target in propagated and a.verdict == "withdrawn" for q, a in answers
                )
                cited = cited_descendants((a for _, a in answers), propagated)
                per_reader["grounded"][reader_name][name] += good
                per_reader["answered_withdrawn"][reader_name][name] += said_withdrawn
                per_reader["cited"][reader_name][name] += cited
                cell[reader_name] = {"grounded": good, "cited_descendants": cited}
            row[name] = cell
        rows.append(row)
    n_q = workspaces * QUESTIONS
    unbounded = budget is None or budget >= BUDGET
    endpoints = [
        Endpoint(
            "propagated_repaired",
            "propagated consequences repaired (state)",
            repaired,
            propagated_total,
            {"exact": propagated_total},
            construction=True,
        ),
        Endpoint(
            "branches_preserved",
            "independent branches preserved",
            preserved,
            workspaces,
            {"exact": workspaces},
        ),
        Endpoint(
            "agrees_with_clingo",
            "state = clingo stable model",
            agree_clingo,
            workspaces,
            {"exact": workspaces},
        ),
    ]
    for reader_name in readers:
        tag = f"({reader_name} reader)"
        endpoints += [
            Endpoint(
                f"grounded_answers.{reader_name}",
                f"delayed questions grounded {tag}",
                per_reader["grounded"][reader_name],
                n_q,
                {"exact": n_q} if unbounded and reader_name in ("literal", "careful") else {},
            ),
            Endpoint(
                f"answered_withdrawn.{reader_name}",
                f"propagated consequences answered withdrawn {tag}",
                per_reader["answered_withdrawn"][reader_name],
                propagated_total,
                construction=reader_name in ("literal", "careful"),
            ),
            Endpoint(
                f"cited_descendants.{reader_name}",
                f"withdrawn descendants cited in answers {tag}",
                per_reader["cited"][reader_name],
                None,
                {"exact": 0} if reader_name in ("literal", "careful") else {},
            ),
        ]
    endpoints.append(
        Endpoint("contaminated_lines", "contaminated context lines", lines, None, {"exact": 0})
    )
    details = {
        "workspaces": rows,
        "seed": seed,
        "budget": budget,
        "propagated_consequences": propagated_total,
        "independent_branches": workspaces,
        "questions": n_q,
        "questions_whose_truth_some_rule_misses": discriminating,
    }
    return StudyResult(
        "scimap", names, endpoints, details, time.perf_counter() - started, seed, budget
    )
