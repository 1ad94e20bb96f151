"""Machine-check the Coq development in ``proofs/coq`` and audit its assumptions.

Each ``.v`` file is compiled by ``coqc`` (Debian's ``coq`` package) in a scratch copy, so no
build products land in the repository; then ``Print Assumptions`` is run on every main
theorem. A theorem passes only if Coq reports it closed under the global context, or (for
the two theorems whose proof argues by contradiction) if its only axiom is the standard
library's excluded middle ``Coq.Logic.Classical_Prop.classic``. ``Admitted`` and ``admit``
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
FILES = ("Boundary", "Graph", "Symmetry")  # in dependency order
CLASSIC = "classic"

# Coq theorem -> (file, docs/design.md statement it proves, axioms it may use)
THEOREMS: dict[str, tuple[str, str, frozenset[str]]] = {
    "boundary": ("Boundary", "Theorem 1: agree on every audit <=> unique minimal justification",
                 frozenset()),
    "refined": ("Boundary", "recorded ancestors A ⊇ U: influence-safe <=> unique S and A = S",
                frozenset()),
    "inclusion": ("Boundary", "none ⊆ exact ⊆ influence (claim level: exact ⊆ influence)",
                  frozenset()),
    "one_item": ("Boundary", "agreement on every one-item audit implies agreement on every audit",
                 frozenset()),
    "checker_criterion": ("Boundary", "influence-safe <=> exact revision of {e} retires c for "
                                      "every evidence ancestor e", frozenset()),
    "safe_iff_no_violation": ("Boundary", "influence-safe <=> no violation", frozenset()),
    "violation_alternative_support": ("Boundary", "violation kind alternative_support: another "
                                                  "minimal justification survives", frozenset()),
    "violation_redundant_influence": ("Boundary", "violation kind redundant_influence: an "
                                                  "ancestor in no minimal justification",
                                      frozenset()),
    "support_monotone": ("Graph", "the least-fixpoint support function f_c is monotone",
                         frozenset()),
    "active_least": ("Graph", "the active state is the least fixpoint of the rules", frozenset()),
    "minimal_justifications_are_ancestors": (
        "Graph", "evidence ancestors ⊇ union of the minimal justifications", frozenset({CLASSIC})),
    "lex_leader_sound": ("Symmetry", "lex-leader symmetry breaking keeps a member of every "
                                     "orbit of a permutation-invariant property", frozenset()),
    "lex_iff_rank": ("Symmetry", "lexicographic order on bit strings = order of their binary value",
                     frozenset()),
}


class CoqMissing(RuntimeError):
    """coqc is not installed."""


@dataclass(frozen=True)
class TheoremCheck:
    name: str
    statement: str
    axioms: frozenset[str]
    allowed: frozenset[str]

    @property
    def ok(self) -> bool:
        return self.axioms <= self.allowed


def _coqc(args: list[str], cwd: Path, timeout_s: float) -> str:
    done = subprocess.run(["coqc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout_s, check=False)
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
            found[name.strip()] = frozenset(a.rsplit(".", 1)[-1] for a in axioms) or frozenset({"?"})
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
            lines += [f'Goal True. idtac "==== {name}". Abort.',
                      f"Print Assumptions {LIBRARY}.{stem}.{name}."]
        (work / "Audit.v").write_text("\n".join(lines) + "\n")
        output = _coqc(["-Q", ".", LIBRARY, "Audit.v"], work, timeout_s)
    found = parse_assumptions(output)
    return [TheoremCheck(name, statement, found.get(name, frozenset({"(not printed)"})), allowed)
            for name, (_, statement, allowed) in THEOREMS.items()]
