"""Large graph families in resumable runs, and the cost estimate that comes before them.

A run of a family is its shard plan (:func:`enumerations.graphs.plan_classes`: shard ``i``
generates and checks the canonical graphs whose canonical parents are a range of the
canonical graphs one justification smaller). The *part file* records the plan's identity
(the family, the shard list's digest and the exact rule), which shards are done (as
intervals of shard numbers) and the tallies of exactly those shards. It is rewritten
atomically at most every few seconds and at the end, so an interrupted run loses at most
the shards in flight: run again with the same family and file, it checks only the missing
shards (the n = 7 parts of :mod:`enumerations.parts` work the same way).

When every shard is done the tally is verified: the classes add up to every labelled graph
and there are as many as Burnside's lemma counts (``counts_verified``).

:func:`estimate_cost` times a seeded random sample of the largest size's parents (each
checked with all its canonical children, as in a run) and scales the CPU seconds per class
to Burnside's number of classes.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from enumerations.executor import ShardExecutor
from enumerations.graphs import (
    CHECKS_ALL,
    CHECKS_COUNTING,
    SHARD_CLASSES,
    ClassPlan,
    GraphFamily,
    GraphTally,
    class_shard,
    plan_classes,
)
from enumerations.parts import (
    Interval,
    Malformed,
    PartError,
    malformed,
    normalise,
    read_part_file,
    save_json_atomically,
    strict_int,
    strict_intervals,
    strict_seconds,
    subtract,
)
from theory.safety.check import ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE
from theory.semantics.revision import RevisionRule
from theory.semantics.revision import exact as theory_exact

PART_KIND = "jtms-enumerate-graphs-part"
PART_VERSION = 1

# progress(classes done in this session, classes this session will check)
Progress = Callable[[int, int], None]


def rule_name(rule: RevisionRule) -> str:
    """The exact rule a part was run with (a mutant's part is never resumed as a real run)."""
    return f"{rule.__module__}.{getattr(rule, '__qualname__', repr(rule))}"


def plan_digest(plan: ClassPlan) -> str:
    """A digest of the shard list: a part is resumed only under the very same plan."""
    text = json.dumps([plan.family.to_dict(), plan.shards])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class GraphPart:
    """The state of one family's run: which shards are done and their tallies."""

    family: GraphFamily
    shards: int
    digest: str
    rule: str
    tally: GraphTally
    done: list[Interval] = field(default_factory=list)
    wall_seconds: float = 0.0  # wall-clock of the sessions that worked on it
    sessions: int = 0

    @property
    def missing(self) -> list[Interval]:
        return subtract((0, self.shards), self.done)

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def shards_done(self) -> int:
        return sum(b - a for a, b in self.done)

    def to_dict(self) -> dict:
        return {
            "kind": PART_KIND,
            "version": PART_VERSION,
            "family": self.family.to_dict(),
            "shards": self.shards,
            "plan_digest": self.digest,
            "rule": self.rule,
            "done": [list(i) for i in self.done],
            "shards_done": self.shards_done,
            "complete": self.complete,
            "core_hours": round(self.tally.cpu_seconds / 3600, 4),
            "wall_seconds": round(self.wall_seconds, 3),
            "sessions": self.sessions,
            "graphs": self.tally.to_dict(),
        }

    def save(self, path: Path) -> None:
        """Write atomically (temporary file + rename): a crash never leaves half a file."""
        save_json_atomically(path, self.to_dict())


# the largest family a part file may name: far above anything that can be run
MAX_FAMILY_NODES = 12


def strict_family(value: object, name: str) -> GraphFamily:
    """The family object :meth:`GraphFamily.to_dict` writes, with integer sizes in range."""
    keys = ("evidence", "claims", "max_justifications")
    if not isinstance(value, dict) or sorted(value) != sorted(keys):
        raise Malformed(f"{name} must be an object with {', '.join(keys)}")
    evidence = strict_int(value["evidence"], f"{name} evidence", 0, MAX_FAMILY_NODES)
    claims = strict_int(value["claims"], f"{name} claims", 0, MAX_FAMILY_NODES - evidence)
    family = GraphFamily(evidence, claims, 0)
    possible = len(family.candidates())
    return family.resized(
        max_justifications=strict_int(
            value["max_justifications"], f"{name} max_justifications", 0, possible
        )
    )


def strict_tally(data: object, family: GraphFamily) -> GraphTally:
    """The tally :meth:`GraphTally.to_dict` wrote, checked to be able to add up: integer
    counts, parts no larger than their wholes, only the known violation kinds."""
    if not isinstance(data, dict):
        raise Malformed("graphs must be an object")
    if strict_family(data["family"], "graphs family") != family:
        raise Malformed("graphs family is not the part's family")
    tally = GraphTally(family)
    for name in GraphTally._COUNTS:
        setattr(tally, name, strict_int(data[name], name))
    for name in GraphTally.LABELLED:  # absent from part files written before they were counted
        if name in data:
            setattr(tally, name, strict_int(data[name], name))
        else:
            tally.labelled_known = False
    for name in GraphTally.COUNTING:  # absent from part files written before Theorem 2
        if name in data:
            setattr(tally, name, strict_int(data[name], name))
        else:
            tally.counting_known = False
    checks = data.get("checks", ["influence", "counting"])
    if not isinstance(checks, list) or "counting" not in checks and tally.counting_known:
        raise Malformed("checks must be a list naming the checks run")
    tally.influence_checked = "influence" in checks
    t = tally
    limits = [
        ("graphs", t.graphs, "labelled graphs", family.labelled_count()),
        ("classes", t.classes, "graphs", t.graphs),
        ("cyclic_graphs", t.cyclic_graphs, "classes", t.classes),
        ("claims", t.claims, "classes times claims", t.classes * family.claims),
        ("active_claims", t.active_claims, "claims", t.claims),
        (
            "safe_claims + unsafe_claims",
            t.safe_claims + t.unsafe_claims,
            "active_claims",
            t.active_claims,
        ),
        ("alternative_support", t.alternative_support, "unsafe_claims", t.unsafe_claims),
        ("redundant_influence", t.redundant_influence, "unsafe_claims", t.unsafe_claims),
        ("both_kinds", t.both_kinds, "alternative_support", t.alternative_support),
        ("both_kinds", t.both_kinds, "redundant_influence", t.redundant_influence),
        (
            "claim_audits_safe + claim_audits_unsafe",
            t.claim_audits_safe + t.claim_audits_unsafe,
            "active_claims",
            t.active_claims,
        ),
        (
            "mixed_audits_safe + mixed_audits_unsafe",
            t.mixed_audits_safe + t.mixed_audits_unsafe,
            "active_claims",
            t.active_claims,
        ),
        ("disagreements", t.disagreements, "classes", t.classes),
        ("labelled_all_safe_graphs", t.labelled_all_safe_graphs, "graphs", t.graphs),
        (
            "labelled_active_claims",
            t.labelled_active_claims,
            "graphs times claims",
            t.graphs * family.claims,
        ),
        (
            "labelled_safe_claims",
            t.labelled_safe_claims,
            "labelled_active_claims",
            t.labelled_active_claims,
        ),
    ]
    limits += [
        (f"{name}_safe + {name}_unsafe", safe + unsafe, "active_claims", t.active_claims)
        for name, safe, unsafe in (
            ("counting", t.counting_safe, t.counting_unsafe),
            (
                "counting_claim_audits",
                t.counting_claim_audits_safe,
                t.counting_claim_audits_unsafe,
            ),
            (
                "counting_mixed_audits",
                t.counting_mixed_audits_safe,
                t.counting_mixed_audits_unsafe,
            ),
        )
    ]
    limits.append(
        ("counting_disagreements", t.counting_disagreements, "active_claims", t.active_claims)
    )
    if t.labelled_known:  # a part file from before the labelled counts has no whole to bound
        limits.append(
            (
                "labelled_counting_safe_claims",
                t.labelled_counting_safe_claims,
                "labelled_active_claims",
                t.labelled_active_claims,
            )
        )
    for part, value, whole, bound in limits:
        if value > bound:
            raise Malformed(f"{part} {value} exceeds {whole} {bound}")
    violations = data["violations"]
    known = (ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE)
    if not isinstance(violations, dict) or sorted(violations) != sorted(known):
        raise Malformed(f"violations must be an object with {' and '.join(known)}")
    tally.violations = {k: strict_int(violations[k], f"violations {k}") for k in known}
    for kind, claims in (
        (ALTERNATIVE_SUPPORT, t.alternative_support),
        (REDUNDANT_INFLUENCE, t.redundant_influence),
    ):
        if (tally.violations[kind] == 0) != (claims == 0):
            raise Malformed(
                f"violations {kind} {tally.violations[kind]} disagrees with {claims} claims"
            )
    examples = data["examples"]
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        raise Malformed("examples must be a list of strings")
    tally.examples = list(examples)
    tally.cpu_seconds = strict_seconds(data["cpu_seconds"], "cpu_seconds")
    return tally


def load_graph_part(path: str | os.PathLike) -> GraphPart:
    """Read and validate a graph part file (:class:`PartError` on anything unusable).

    Every count and shard number must be a JSON integer (a float or a bool is refused, never
    truncated), the done shards must lie within ``0 .. shards`` and not overlap, and the
    tallies must be able to add up (:func:`strict_tally`); an empty ``done`` has an empty
    tally. Whether ``shards`` is the plan's is checked by :func:`run_graph_part`."""
    path = Path(path)
    data = read_part_file(path, PART_KIND, "a graph part file")
    if type(data.get("version")) is not int or data.get("version") != PART_VERSION:
        raise PartError(f"{path}: unsupported part file version {data.get('version')!r}")
    try:
        family = strict_family(data["family"], "family")
        shards = strict_int(data["shards"], "shards", 1)
        digest, rule = data["plan_digest"], data["rule"]
        if not isinstance(digest, str) or not isinstance(rule, str):
            raise Malformed("plan_digest and rule must be strings")
        done = strict_intervals(data["done"], "done", 0, shards)
        tally = strict_tally(data["graphs"], family)
        if not done and (tally.classes or tally.graphs):
            raise Malformed("tallies of graphs but no shard done")
        part = GraphPart(
            family,
            shards,
            digest,
            rule,
            tally,
            done,
            strict_seconds(data["wall_seconds"], "wall_seconds"),
            strict_int(data["sessions"], "sessions"),
        )
    except KeyError as error:
        raise PartError(f"{path}: malformed part file (no {error} field)") from None
    except (TypeError, ValueError, IndexError, AttributeError, OverflowError) as error:
        raise malformed(path, error) from None
    return part


def run_graph_part(
    family: GraphFamily,
    out: str | os.PathLike,
    executor: ShardExecutor,
    *,
    exact: RevisionRule = theory_exact,
    progress: Progress | None = None,
    shard_classes: int = SHARD_CLASSES,
    checkpoint_seconds: float = 5.0,
    stop_after: int | None = None,
    checks: str = CHECKS_ALL,
    checker_every: int = 0,
) -> GraphPart:
    """Check every class of ``family`` into the part file ``out``, resuming it when it exists.

    An existing file must be for the same family, plan and rule (:class:`PartError`
    otherwise). ``stop_after`` ends this session after that many more shards (a measured
    fraction of a run; the file resumes from there). ``checks`` and ``checker_every`` are
    those of :func:`enumerations.graphs.class_shard`, recorded with the rule."""
    out = Path(out)
    plan = plan_classes(family, shard_classes)
    digest, rule = plan_digest(plan), rule_name(exact)
    if checks != CHECKS_ALL or checker_every:  # part of the run's identity, like the rule
        rule += f" checks={checks} checker_every={checker_every}"
    if out.exists():
        part = load_graph_part(out)
        if (part.family, part.digest, part.rule) != (family, digest, rule):
            raise PartError(
                f"{out} holds another run (family {part.family.to_dict()}, rule "
                f"{part.rule}): use another file or the same family"
            )
        if part.shards != len(plan.shards):
            raise PartError(
                f"{out}: malformed part file (shards {part.shards} is not the plan's "
                f"{len(plan.shards)})"
            )
        if part.tally.classes > plan.classes:
            raise PartError(
                f"{out}: malformed part file (classes {part.tally.classes} exceeds the "
                f"family's {plan.classes})"
            )
    else:
        part = GraphPart(
            family,
            len(plan.shards),
            digest,
            rule,
            GraphTally(family, influence_checked=checks != CHECKS_COUNTING),
        )
    part.tally.expected_classes = plan.classes
    part.tally.classes_seconds = plan.seconds
    part.sessions += 1
    missing = [i for a, b in part.missing for i in range(a, b)]
    todo = missing if stop_after is None else missing[:stop_after]
    # progress counts this session's classes (so a resumed run's rate and ETA are its own)
    before = part.tally.classes
    session_total = round((plan.classes - before) * len(todo) / max(1, len(missing)))
    began, wall_before, last_save = time.perf_counter(), part.wall_seconds, 0.0
    try:
        for index, tally in executor.map(
            class_shard, [plan.arguments(i, exact, checks, checker_every) for i in todo]
        ):
            part.tally.merge(tally)
            part.done = normalise([*part.done, (index, index + 1)])
            now = time.perf_counter()
            part.wall_seconds = wall_before + now - began
            if now - last_save >= checkpoint_seconds:
                part.save(out)
                last_save = now
            if progress:
                progress(
                    part.tally.classes - before, max(session_total, part.tally.classes - before)
                )
    finally:
        part.wall_seconds = wall_before + time.perf_counter() - began
        part.tally.seconds = part.wall_seconds
        part.save(out)
    return part


@dataclass
class CostEstimate:
    """CPU seconds per class on a random sample of parents, scaled to every class."""

    family: GraphFamily
    classes: int  # Burnside's count
    labelled: int
    sampled_parents: int
    sampled_classes: int
    sample_cpu_seconds: float
    parents_total: int  # canonical graphs of size J - 1: the parents of the largest size

    @property
    def seconds_per_class(self) -> float:
        return self.sample_cpu_seconds / max(1, self.sampled_classes)

    @property
    def core_seconds(self) -> float:
        return self.seconds_per_class * self.classes

    @property
    def classes_by_sample(self) -> float:
        """Classes per sampled parent times the parents (how representative the sample is;
        the classes of smaller sizes are not included)."""
        return self.sampled_classes / max(1, self.sampled_parents) * self.parents_total

    def to_dict(self) -> dict:
        return {
            "family": self.family.to_dict(),
            "labelled_count": self.labelled,
            "burnside_classes": self.classes,
            "sampled_parents": self.sampled_parents,
            "sampled_classes": self.sampled_classes,
            "sample_cpu_seconds": round(self.sample_cpu_seconds, 3),
            "cpu_seconds_per_class": round(self.seconds_per_class, 7),
            "estimated_core_hours": round(self.core_seconds / 3600, 3),
            "largest_size_classes_by_sample": round(self.classes_by_sample),
        }


def estimate_cost(
    family: GraphFamily,
    *,
    budget_seconds: float = 3.0,
    seed: int = 37,
    exact: RevisionRule = theory_exact,
    min_parents: int = 20,
    checks: str = CHECKS_ALL,
    checker_every: int = 0,
) -> CostEstimate:
    """Time the check of a seeded random sample of the parents of the largest size (each
    with all its canonical children) until ``budget_seconds`` of CPU are spent (at least
    ``min_parents``), and scale its CPU seconds per class to Burnside's count."""
    from enumerations.burnside import class_count

    J = family.max_justifications
    plan = plan_classes(family, shard_classes=1 << 62)  # one shard per size: only the parents
    parents = plan.parents[J - 1] if J else np.zeros((1, 0), dtype=np.int32)
    order = np.random.default_rng(seed).permutation(len(parents))
    classes = cpu = 0.0
    sampled = 0
    for p in order:
        _, tally = (
            class_shard(0, family, J, [parents[p].tolist()], exact, checks, checker_every)
            if J
            else class_shard(0, family, 0, None, exact, checks, checker_every)
        )
        classes += tally.classes
        cpu += tally.cpu_seconds
        sampled += 1
        if cpu >= budget_seconds and sampled >= min_parents:
            break
    return CostEstimate(
        family,
        class_count(family.evidence, family.claims, J),
        family.labelled_count(),
        sampled,
        int(classes),
        cpu,
        len(parents),
    )


__all__ = [
    "CostEstimate",
    "GraphPart",
    "estimate_cost",
    "load_graph_part",
    "plan_digest",
    "run_graph_part",
    "rule_name",
]
