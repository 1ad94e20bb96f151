"""Machine-check the Coq development in ``proofs/coq`` and audit its assumptions.

Each ``.v`` file is compiled by ``coqc`` (Debian's ``coq`` package) in a scratch copy, so no
build products land in the repository; then ``Print Assumptions`` is run on every main
theorem. A theorem passes only if Coq reports it closed under the global context, or (for
the theorems whose proof argues by contradiction) if its only axiom is the standard
library's excluded middle ``Coq.Logic.Classical_Prop.classic``; and the theorems that link
the developments (``STATEMENT_TYPES``) must have exactly the expected statement. ``Admitted`` and ``admit``
never pass: an admitted lemma shows up as an axiom in ``Print Assumptions``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

COQ_DIR = Path(__file__).resolve().parent / "coq"
LIBRARY = "JTMS"
FILES = ("Boundary", "Graph", "GraphBoundary", "Symmetry", "Counting")  # in dependency order
CLASSIC = "classic"

# Coq theorem -> (file, docs/design.md statement it proves, axioms it may use)
THEOREMS: dict[str, tuple[str, str, frozenset[str]]] = {
    "boundary": (
        "Boundary",
        "Theorem 1, support-function form: active c, audits of evidence, influence over U: "
        "agree on every audit <=> unique minimal justification",
        frozenset(),
    ),
    "refined": (
        "Boundary",
        "recorded ancestors A ⊇ U: influence-safe <=> unique S and A = S",
        frozenset(),
    ),
    "inclusion": (
        "Boundary",
        "none ⊆ exact ⊆ influence (claim level: exact ⊆ influence)",
        frozenset(),
    ),
    "one_item": (
        "Boundary",
        "agreement on every one-item audit implies agreement on every audit",
        frozenset(),
    ),
    "checker_criterion": (
        "Boundary",
        "influence-safe <=> exact revision of {e} retires c for every evidence ancestor e",
        frozenset(),
    ),
    "safe_iff_no_violation": ("Boundary", "influence-safe <=> no violation", frozenset()),
    "violation_alternative_support": (
        "Boundary",
        "violation kind alternative_support: another minimal justification survives",
        frozenset(),
    ),
    "violation_redundant_influence": (
        "Boundary",
        "violation kind redundant_influence: an ancestor in no minimal justification",
        frozenset(),
    ),
    "support_monotone": (
        "Graph",
        "the least-fixpoint support function f_c is monotone",
        frozenset(),
    ),
    "active_least": ("Graph", "the active state is the least fixpoint of the rules", frozenset()),
    "minimal_justifications_are_ancestors": (
        "Graph",
        "evidence ancestors ⊇ union of the minimal justifications",
        frozenset({CLASSIC}),
    ),
    "support_b_spec": (
        "GraphBoundary",
        "the saturated Boolean support function of a graph is its least-fixpoint support",
        frozenset(),
    ),
    "graph_support_monotone": (
        "GraphBoundary",
        "the graph's Boolean support function is monotone",
        frozenset(),
    ),
    "graph_boundary": (
        "GraphBoundary",
        "Theorem 1 for a graph's claim: Boundary.boundary applied to its support function",
        frozenset(),
    ),
    "graph_influence_safe": (
        "GraphBoundary",
        "Theorem 1, graph form: active c, audits of evidence, influence = reachability: "
        "influence-safe <=> unique S and evidence ancestors = S",
        frozenset({CLASSIC}),
    ),
    "alive_antimono": (
        "GraphBoundary",
        "audits of any nodes: auditing more retires more (exact revision is monotone)",
        frozenset(),
    ),
    "alive_untouched": (
        "GraphBoundary",
        "an audit meeting neither n nor an ancestor of n leaves n active",
        frozenset(),
    ),
    "graph_audit_safe": (
        "GraphBoundary",
        "audits drawn from any nodes D (claims, or evidence and claims): influence-safe <=> "
        "exact revision of {x} retires c for every x in D that is c or an ancestor of c",
        frozenset({CLASSIC}),
    ),
    "graph_audit_safe_union": (
        "GraphBoundary",
        "mixed audits: safe for audits from D1 ++ D2 <=> safe for D1 and safe for D2",
        frozenset({CLASSIC}),
    ),
    "alive_kept": (
        "Counting",
        "counting ⊆ exact: what exact revision keeps after an audit, Counting keeps",
        frozenset(),
    ),
    "graph_counting_safe": (
        "Counting",
        "Theorem 2: an active claim is counting-safe for the audits drawn from D <=> no "
        "witness (R ⊆ D, L ∋ c: active, not audited, retired exactly, each with a "
        "justification inside L ∪ alive_R)",
        frozenset({CLASSIC}),
    ),
    "witness_loop": (
        "Counting",
        "every member of a witness L has such a justification with an antecedent in L",
        frozenset({CLASSIC}),
    ),
    "counting_safe_acyclic": (
        "Counting",
        "Theorem 2's corollary: if neither c nor an ancestor of c lies on a cycle, c is "
        "counting-safe for the audits drawn from any D",
        frozenset({CLASSIC}),
    ),
    "lex_leader_sound": (
        "Symmetry",
        "lex-leader symmetry breaking keeps a member of every "
        "orbit of a permutation-invariant property",
        frozenset(),
    ),
    "lex_iff_rank": (
        "Symmetry",
        "lexicographic order on bit strings = order of their binary value",
        frozenset(),
    ),
}


# The statements (as `Check` prints them, whitespace normalized) of the theorems that link
# the developments, so a weakened statement fails even if it still compiles.
STATEMENT_TYPES: dict[str, str] = {
    "boundary": "forall (E : list nat) (f : list nat -> bool), (forall X Y : list nat, "
    "List.incl X Y -> f X = true -> f Y = true) -> f E = true -> "
    "Boundary.agree E f (Boundary.inU E f) <-> Boundary.unique E f",
    "support_b_spec": "forall (ev : nat -> bool) (js : list (nat * list nat)) (c : nat) "
    "(X : list nat), GraphBoundary.support_b ev js c X = true <-> "
    "Graph.supports (GraphBoundary.is_evidence ev) js X c",
    "graph_boundary": "forall (ev : nat -> bool) (js : list (nat * list nat)) (E : list nat) "
    "(c : nat), GraphBoundary.support_b ev js c E = true -> Boundary.agree E "
    "(GraphBoundary.support_b ev js c) (Boundary.inU E (GraphBoundary.support_b "
    "ev js c)) <-> Boundary.unique E (GraphBoundary.support_b ev js c)",
    "graph_influence_safe": "forall (ev : nat -> bool) (js : list (nat * list nat)) "
    "(E : list nat) (c : nat), (forall e : nat, List.In e E -> ev e = true) "
    "-> ev c = false -> GraphBoundary.support_b ev js c E = true -> "
    "Boundary.agree E (GraphBoundary.support_b ev js c) "
    "(GraphBoundary.evidence_ancestors js E c) <-> Boundary.unique_is E "
    "(GraphBoundary.support_b ev js c) (GraphBoundary.evidence_ancestors js E c)",
    "graph_audit_safe": "forall (ev : nat -> bool) (js : list (nat * list nat)) "
    "(D : list nat) (c : nat), GraphBoundary.alive ev js nil c -> "
    "GraphBoundary.audit_safe ev js D c <-> (forall x : nat, List.In x D -> "
    "x = c \\/ Graph.ancestor js x c -> GraphBoundary.exact_retires ev js (x :: nil) c)",
    "graph_audit_safe_union": "forall (ev : nat -> bool) (js : list (nat * list nat)) "
    "(D1 D2 : list nat) (c : nat), GraphBoundary.alive ev js nil c -> "
    "GraphBoundary.audit_safe ev js (D1 ++ D2) c <-> GraphBoundary.audit_safe ev js D1 c "
    "/\\ GraphBoundary.audit_safe ev js D2 c",
    "graph_counting_safe": "forall (ev : nat -> bool) (js : list (nat * list nat)) "
    "(D : list nat) (c : nat), GraphBoundary.alive ev js nil c -> "
    "Counting.counting_safe ev js D c <-> ~ (exists (R : list nat) (L : nat -> Prop), "
    "List.incl R D /\\ Counting.witness ev js R L /\\ L c)",
    "counting_safe_acyclic": "forall (ev : nat -> bool) (js : list (nat * list nat)) "
    "(D : list nat) (c : nat), GraphBoundary.alive ev js nil c -> (forall x : nat, x = c "
    "\\/ Graph.ancestor js x c -> ~ Graph.ancestor js x x) -> Counting.counting_safe ev js D c",
}


class CoqMissing(RuntimeError):
    """coqc is not installed."""


@dataclass(frozen=True)
class TheoremCheck:
    name: str
    statement: str
    axioms: frozenset[str]
    allowed: frozenset[str]
    type_ok: bool = True  # the printed statement is the expected one (STATEMENT_TYPES)

    @property
    def ok(self) -> bool:
        return self.axioms <= self.allowed and self.type_ok


def _coqc(args: list[str], cwd: Path, timeout_s: float) -> str:
    done = subprocess.run(
        ["coqc", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"coqc {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def parse_assumptions(output: str) -> dict[str, frozenset[str]]:
    """Axiom names per theorem from the output of the generated ``Print Assumptions`` file."""
    found: dict[str, frozenset[str]] = {}
    for block in output.split("==== ")[1:]:
        name, _, body = block.partition("\n")
        if "Closed under the global context" in body:
            found[name.strip()] = frozenset()
        else:
            axioms = re.findall(r"^(\S+) :", body.split("Axioms:", 1)[-1], flags=re.M)
            found[name.strip()] = frozenset(a.rsplit(".", 1)[-1] for a in axioms) or frozenset(
                {"?"}
            )
    return found


def check(timeout_s: float = 300.0) -> list[TheoremCheck]:
    """Compile every file and audit every main theorem; raises if coqc fails."""
    if shutil.which("coqc") is None:
        raise CoqMissing("coqc not found (Debian: apt-get install -y coq)")
    with tempfile.TemporaryDirectory(prefix="jtms-coq-") as scratch:
        work = Path(scratch)
        for stem in FILES:
            source = (COQ_DIR / f"{stem}.v").read_text()
            if re.search(r"\b(Admitted|admit|Axiom|Parameter|Conjecture)\b", source):
                raise RuntimeError(f"{stem}.v uses Admitted/admit/Axiom/Parameter/Conjecture")
            (work / f"{stem}.v").write_text(source)
            _coqc(["-Q", ".", LIBRARY, f"{stem}.v"], work, timeout_s)
        lines = [f"Require {LIBRARY}.{stem}." for stem in FILES]
        for name, (stem, _, _) in THEOREMS.items():
            lines += [
                f'Goal True. idtac "==== {name}". Abort.',
                f"Print Assumptions {LIBRARY}.{stem}.{name}.",
            ]
        for name in STATEMENT_TYPES:
            lines += [
                f'Goal True. idtac "#### {name}". Abort.',
                f"Check {LIBRARY}.{THEOREMS[name][0]}.{name}.",
            ]
        (work / "Audit.v").write_text("\n".join(lines) + "\n")
        output = _coqc(["-Q", ".", LIBRARY, "Audit.v"], work, timeout_s)
    assumptions, _, checked = output.partition("#### ")
    found = parse_assumptions(assumptions)
    types = parse_types("#### " + checked)
    return [
        TheoremCheck(
            name,
            statement,
            found.get(name, frozenset({"(not printed)"})),
            allowed,
            name not in STATEMENT_TYPES
            or types.get(name) == " ".join(STATEMENT_TYPES[name].split()),
        )
        for name, (_, statement, allowed) in THEOREMS.items()
    ]


def parse_types(output: str) -> dict[str, str]:
    """Theorem -> its statement, whitespace normalized, from the generated ``Check`` lines."""
    found = {}
    for block in output.split("#### ")[1:]:
        name, _, body = block.partition("\n")
        _, _, statement = body.partition(":")
        found[name.strip()] = " ".join(statement.split())
    return found
