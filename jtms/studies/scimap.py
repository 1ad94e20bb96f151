"""Study 1 of the paper (SciMapRepair): 20 research workspaces, 140 delayed questions.

Each workspace (generated from the seed) holds an observation ``obs_a``, an independent
observation ``obs_b``, evidence ``shared`` that both branches use (a protocol or calibration)
and a literature source ``lit``. The main branch runs observation -> interpretation
(``interp_a <- obs_a, shared``) -> mechanistic conclusion (``mech_a <- interp_a``) and, in
most workspaces, -> planned experiment (``plan_a <- mech_a``). The independent branch
(``interp_b <- obs_b, shared``, ``mech_b <- interp_b``, ``plan_b <- mech_b``) shares
evidence with it; in half of the workspaces its conclusion also has a second justification
through the main branch (``mech_b <- interp_a, lit``), so it stays supported when the main
branch falls but is downstream of it. The audit invalidates ``obs_a``.

Per rule, after the audit: *propagated consequences repaired* (claims the exact revision
retires, other than the audited node, that the rule leaves inactive), *independent branches
preserved* (every claim of the branch still active), *contaminated citations* (in the
compiled working context, the occurrences of a node inactive in the ground truth as an
active line or inside a ``because`` list) and *delayed questions grounded* (7 per
workspace, answered from the compiled context only; see :mod:`jtms.studies.common`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

from theory.structure import SupportStructure

from jtms.studies.common import (Answerer, Endpoint, Question, RuleFn, StudyResult, answer,
                                 contaminated_citations, engine_exact, grounded, new_memory,
                                 pre_audit_certificates, render_rule_context, resolve_rules,
                                 truth_active)

WORKSPACES = 20
QUESTIONS = 7
SEED = 1
BUDGET = 2000

_FIELDS = [("neuroscience", "spine density", "synaptic pruning"),
           ("oncology", "tumour growth", "kinase signalling"),
           ("ecology", "pollinator visits", "nectar chemistry"),
           ("materials", "film conductivity", "grain boundaries"),
           ("immunology", "cytokine release", "inflammasome priming"),
           ("climate", "ice melt rate", "albedo feedback"),
           ("microbiology", "biofilm mass", "quorum sensing"),
           ("astronomy", "rotation curve", "halo density")]


@dataclass(frozen=True)
class Workspace:
    number: int
    structure: SupportStructure
    audit: frozenset[str]
    branch: tuple[str, ...]            # the independent branch's claims
    joined: bool                       # branch conclusion also justified through the main branch
    questions: tuple[Question, ...]


def generate(seed: int = SEED, workspaces: int = WORKSPACES) -> list[Workspace]:
    rng = random.Random(seed)
    result = []
    for k in range(workspaces):
        field, measure, mechanism = _FIELDS[rng.randrange(len(_FIELDS))]
        p = f"w{k:02d}_"
        with_plan = rng.random() < 0.7
        joined = k % 2 == 1
        texts = {
            p + "obs_a": f"{field}: {measure} rose after treatment in batch {rng.randrange(100)}",
            p + "obs_b": f"{field}: a second readout of {measure} in an independent cohort",
            p + "shared": f"{field}: calibration protocol for {measure}",
            p + "lit": f"{field}: published link between {measure} and {mechanism}",
            p + "interp_a": f"the treatment increases {measure}",
            p + "mech_a": f"the increase is driven by {mechanism}",
            p + "interp_b": f"{measure} differs between cohorts",
            p + "mech_b": f"{mechanism} varies across cohorts",
            p + "plan_b": f"plan: compare {mechanism} markers across cohorts",
        }
        justs = [
            (p + "interp_a", [p + "obs_a", p + "shared"]),
            (p + "mech_a", [p + "interp_a"]),
            (p + "interp_b", [p + "obs_b", p + "shared"]),
            (p + "mech_b", [p + "interp_b"]),
            (p + "plan_b", [p + "mech_b"]),
        ]
        if with_plan:
            texts[p + "plan_a"] = f"plan: block {mechanism} and measure {measure} again"
            justs.append((p + "plan_a", [p + "mech_a"]))
        if joined:
            justs.append((p + "mech_b", [p + "interp_a", p + "lit"]))
        evidence = [p + x for x in ("obs_a", "obs_b", "shared", "lit")]
        claims = [i for i in texts if i not in evidence]
        structure = SupportStructure.build(evidence, claims, justs, texts=texts)
        targets = [p + "interp_a", p + "mech_a", p + "plan_a" if with_plan else p + "obs_a",
                   p + "interp_b", p + "mech_b", p + "plan_b", p + "shared"]
        questions = tuple(Question(f"{p}q{i}", t, f"Delayed question {i} on {field}: can we rely on "
                                   f"'{texts[t]}'?") for i, t in enumerate(targets, 1))
        result.append(Workspace(k, structure, frozenset({p + "obs_a"}),
                                (p + "interp_b", p + "mech_b", p + "plan_b"), joined, questions))
    return result


def run(rules: Mapping[str, RuleFn] | None = None, seed: int = SEED, workspaces: int = WORKSPACES,
        answerer: Answerer = answer) -> StudyResult:
    started = time.perf_counter()
    rules = resolve_rules(rules)
    names = list(rules)
    spaces = generate(seed, workspaces)
    propagated_total = 0
    repaired = {r: 0 for r in names}
    preserved = {r: 0 for r in names}
    contaminated = {r: 0 for r in names}
    grounded_q = {r: 0 for r in names}
    rows = []
    for space in spaces:
        structure, audit = space.structure, space.audit
        truth = truth_active(structure, audit)
        before = truth_active(structure, ())
        propagated = (before - truth) - audit
        propagated_total += len(propagated)
        row = {"workspace": space.number, "joined": space.joined, "propagated": sorted(propagated)}
        with new_memory() as memory:
            memory.import_graph(structure, source=f"workspace {space.number}")
            certificates = pre_audit_certificates(memory, structure.claims)
            for name, rule in rules.items():
                if rule is engine_exact:
                    memory.audit(sorted(audit), reason="observation invalidated")
                    after = memory.active_ids()
                    context = memory.context(BUDGET).text
                else:
                    retired = frozenset(rule(structure, audit))
                    after = before - retired
                    context = render_rule_context(structure, after, retired, certificates,
                                                  reason="observation invalidated")
                n_repaired = len(propagated - after)
                kept = all(c in after for c in space.branch)
                dirty = contaminated_citations(context, truth)
                good = sum(grounded(answerer(context, q), q, truth) for q in space.questions)
                repaired[name] += n_repaired
                preserved[name] += kept
                contaminated[name] += dirty
                grounded_q[name] += good
                row[name] = {"repaired": n_repaired, "branch_preserved": kept,
                             "contaminated": dirty, "grounded": good}
        rows.append(row)
    n_q = workspaces * QUESTIONS
    endpoints = [
        Endpoint("propagated_repaired", "propagated consequences repaired", repaired,
                 propagated_total, {"exact": propagated_total}),
        Endpoint("branches_preserved", "independent branches preserved", preserved, workspaces,
                 {"exact": workspaces}),
        Endpoint("contaminated_citations", "contaminated citations in the context", contaminated,
                 None, {"exact": 0}),
        Endpoint("grounded_answers", "delayed questions answered grounded", grounded_q, n_q,
                 {"exact": n_q}),
    ]
    details = {"workspaces": rows, "seed": seed, "propagated_consequences": propagated_total,
               "independent_branches": workspaces, "questions": n_q}
    return StudyResult("scimap", names, endpoints, details, time.perf_counter() - started)
