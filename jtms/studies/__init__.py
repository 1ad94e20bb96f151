"""The paper's four studies, reproduced deterministically on the production engine.

Every endpoint is computed from program state (the engine's SQLite memory, theory's revision
rules, clingo); nothing is hand-entered and no model is needed. Rules, readers and the
diagnoser are injectable, every study takes a seed and a context budget:

>>> from jtms.studies import run_study
>>> result = run_study("heterogeneous", seed=4)
>>> result.endpoint("cases_repaired_exactly").values["exact"]
20

Modules: :mod:`~jtms.studies.rules` (rules, ground truth), :mod:`~jtms.studies.trial` (one
world under every rule), :mod:`~jtms.studies.rendering` (budgeted contexts),
:mod:`~jtms.studies.readers` (the literal and careful readers), :mod:`~jtms.studies.scoring`,
:mod:`~jtms.studies.endpoints` (results, seed summaries), :mod:`~jtms.studies.sweep`
(budget sweeps), :mod:`~jtms.studies.embedding`, :mod:`~jtms.studies.plot`, and one module
per study.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jtms.studies import diagnosis_loop, heterogeneous, revisionpair, scimap
from jtms.studies.endpoints import Endpoint, SeedSummary, StudyResult, summarize
from jtms.studies.readers import Answer, Answerer, Question
from jtms.studies.rules import RULE_NAMES, RuleFn

# Answerer and RuleFn (callable types) are importable from here and documented in
# jtms.studies.readers and jtms.studies.rules.

STUDIES: dict[str, Callable[..., StudyResult]] = {
    "revisionpair": revisionpair.run,
    "scimap": scimap.run,
    "diagnosis": diagnosis_loop.run,
    "heterogeneous": heterogeneous.run,
}
DEFAULT_SEEDS = {
    "revisionpair": revisionpair.SEED,
    "scimap": scimap.SEED,
    "diagnosis": diagnosis_loop.SEED,
    "heterogeneous": heterogeneous.SEED,
}
BUDGET = 2000


def run_study(
    name: str,
    rules: Mapping[str, RuleFn] | None = None,
    answerer: Answerer | None = None,
    seed: int | None = None,
    budget: int | None = BUDGET,
    **options: Any,
) -> StudyResult:
    """Run one study (``seed`` None: the study's own seed); ``answerer`` joins the readers."""
    if name not in STUDIES:
        raise KeyError(f"unknown study {name!r}; expected one of {', '.join(STUDIES)}")
    return STUDIES[name](
        rules=rules,
        answerer=answerer,
        seed=DEFAULT_SEEDS[name] if seed is None else seed,
        budget=budget,
        **options,
    )


def run_seeds(name: str, seeds: Sequence[int], **kwargs: Any) -> SeedSummary:
    """One study over several seeds: mean, min and max of every endpoint."""
    return summarize([run_study(name, seed=s, **kwargs) for s in seeds])


__all__ = [
    "Answer",
    "BUDGET",
    "DEFAULT_SEEDS",
    "Endpoint",
    "Question",
    "RULE_NAMES",
    "STUDIES",
    "SeedSummary",
    "StudyResult",
    "run_seeds",
    "run_study",
    "summarize",
]
