"""The revision rules a study compares, and the ground truth they are scored against.

A *rule* is a callable ``(structure, audit) -> retired ids`` (the protocol
:class:`theory.semantics.revision.RevisionRule`). The default ``exact`` rule is the production engine:
a :class:`jtms.memory.memory.Memory` (SQLite ``:memory:``) imports the world and runs the
audit; the retired set is the engine's. ``none`` and ``influence`` are
:func:`theory.semantics.revision.none` and :func:`theory.semantics.revision.influence`. Any rule can be replaced
(``rules={"exact": my_rule}``), so a wrong rule is caught by the same endpoints.

Ground truth is computed independently of every rule: the least fixpoint of the world with
the audited nodes forced inactive (:func:`theory.semantics.fixpoint.active_state`).

>>> from theory.model.structure import SupportStructure
>>> world = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
>>> sorted(engine_exact(world, frozenset({"a"})))
['a']
>>> sorted(resolve_rules(None)["influence"](world, frozenset({"a"})))
['a', 'c']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from jtms.memory.memory import Memory
from theory.model.structure import SupportStructure
from theory.semantics import revision
from theory.semantics.fixpoint import active_state

RuleFn = Callable[[SupportStructure, frozenset[str]], frozenset[str]]
RULE_NAMES = ("exact", "none", "influence")


def new_memory() -> Memory:
    """A production memory in SQLite ``:memory:`` (no file, no fsync)."""
    return Memory.create(":memory:", durability="off")


def engine_exact(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """The production engine's exact revision (import the world, audit, read what retired)."""
    with new_memory() as memory:
        memory.import_graph(structure, source="study")
        return frozenset(memory.audit(sorted(audit), reason="study audit").retired)


engine_exact.__name__ = "exact"

DEFAULT_RULES: dict[str, RuleFn] = {
    "exact": engine_exact,
    "none": revision.none,
    "influence": revision.influence,
}


def resolve_rules(rules: Mapping[str, RuleFn] | None) -> dict[str, RuleFn]:
    """The default rules with any given ones replacing or adding to them."""
    result = dict(DEFAULT_RULES)
    result.update(rules or {})
    return result


def truth_active(structure: SupportStructure, audit: Iterable[str]) -> frozenset[str]:
    """Ground truth after an audit: the least fixpoint with the audited nodes forced inactive."""
    return active_state(structure, blocked=audit)
