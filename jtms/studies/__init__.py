"""The paper's four studies, reproduced deterministically on the production engine.

Every endpoint is computed from program state (the engine's SQLite memory, theory's revision
rules, clingo); nothing is hand-entered and no model is needed. Rules are injectable:
``run_study("revisionpair", rules={"exact": my_rule})``.
"""

from __future__ import annotations

from collections.abc import Mapping

from jtms.studies import diagnosis, heterogeneous, revisionpair, scimap
from jtms.studies.common import RULE_NAMES, Answerer, RuleFn, StudyResult

STUDIES = {
    "revisionpair": revisionpair.run,
    "scimap": scimap.run,
    "diagnosis": diagnosis.run,
    "heterogeneous": heterogeneous.run,
}


ANSWERING = {"scimap", "diagnosis"}


def run_study(name: str, rules: Mapping[str, RuleFn] | None = None,
              answerer: Answerer | None = None) -> StudyResult:
    """Run one study; ``answerer`` (scimap, diagnosis) replaces the deterministic answerer."""
    if answerer is not None and name in ANSWERING:
        return STUDIES[name](rules=rules, answerer=answerer)
    return STUDIES[name](rules=rules)


__all__ = ["RULE_NAMES", "STUDIES", "StudyResult", "run_study"]
