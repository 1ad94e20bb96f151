"""Fuzzing revision rules and differential testing against clingo (issue 7).

- :func:`jtms.fuzz.runner.fuzz_rule`: a user's revision rule vs exact revision, with shrinking.
- :func:`jtms.fuzz.differential.differential_campaign`: theory (and extra backends such as
  the production engine) vs clingo stable models on many graph/audit pairs.
- :class:`jtms.fuzz.clingo_oracle.ClingoOracle`: the independent oracle.

The strategies themselves are public in :mod:`theory.testing.strategies`.
"""

from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.fuzz.differential import CampaignOptions, CampaignReport, differential_campaign
from jtms.fuzz.plugins import load_rule
from jtms.fuzz.runner import (
    FuzzReport,
    GraphOptions,
    RuleCounterexample,
    RuleMismatch,
    compare,
    fuzz_rule,
)

__all__ = [
    "CampaignOptions",
    "CampaignReport",
    "ClingoOracle",
    "FuzzReport",
    "GraphOptions",
    "RuleCounterexample",
    "RuleMismatch",
    "compare",
    "differential_campaign",
    "fuzz_rule",
    "load_rule",
]
