"""Exhaustive checks of the justification boundary over small universes.

- :mod:`enumerations.monotone`: every monotone Boolean function of n <= 6 variables as
  packed truth tables (Dedekind numbers 2, 3, 6, 20, 168, 7581, 7828354), and the n = 7 rows.
- :mod:`enumerations.flat`: the vectorised word kernel comparing influence and exact revision
  on every audit of every flat support function, and its shards: the support-function form
  of Theorem 1 (Coq ``boundary``: active claim, audits of evidence, influence over the union
  of the minimal justifications).
- :mod:`enumerations.reference`: the straightforward per-function check through
  :mod:`theory.semantics.revision` (the oracle for the kernel).
- :mod:`enumerations.graphs`: every small memory graph (cycles included), the brute-force
  comparison of the rules against the influence-safety checker: the graph form with loops
  (Coq ``graph_influence_safe``: influence = reachability; unique minimal justification equal
  to the evidence ancestors), and audits of claims and mixed audits (``graph_audit_safe``).
- :mod:`enumerations.orderly`: one canonical graph per isomorphism class, generated directly;
  :mod:`enumerations.burnside`: the number of classes by Burnside's lemma (a separate count);
  :mod:`enumerations.graphparts`: resumable runs of large graph families and their cost estimate.
- :mod:`enumerations.executor` / :mod:`enumerations.runs`: shards in this process, on local
  processes or on Dask; whole runs and the measured n = 7 slice with its cost estimate.
- :mod:`enumerations.mutants`: deliberately wrong rules the enumerations must catch.
- :mod:`enumerations.plot`: the PNG report.

This package imports :mod:`theory`, never :mod:`jtms`.
"""

from enumerations.flat import Counterexample, FlatTally, flat_shard, tally_n, tally_tables
from enumerations.monotone import DEDEKIND, monotone_tables

__all__ = [
    "Counterexample",
    "DEDEKIND",
    "FlatTally",
    "flat_shard",
    "monotone_tables",
    "tally_n",
    "tally_tables",
]
