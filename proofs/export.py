"""Write the bounded encodings as files others can re-check with their own solvers.

For one statement and one n: the CNF given to CaDiCaL as DIMACS (``.cnf``) and the z3 facts
as SMT-LIB 2 (``.smt2``, as z3 prints it, ending in ``(check-sat)``; "exactly one" is
z3's pseudo-Boolean extension ``(_ pbeq 1 ...)``, which solvers other than z3 may not read:
the DIMACS file is the portable one). Each is the exact
formula the corresponding solver is given: UNSAT for a proved statement, SAT for a mutant.
The DIMACS header comments say where f lives (variable X + 1 is f(X), X a bit mask).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import z3

from proofs.certificate import dimacs
from proofs.cnf_encoding import encode
from proofs.statements import statement as lookup
from proofs.z3_bounded import Z3Encoding


def stem(name: str, n: int, symmetry: bool) -> str:
    return f"{name.replace('~', '--')}-n{n}{'-sym' if symmetry else ''}"


def ensure_writable(directory: Path) -> None:
    """Create ``directory`` and prove it writable now, before any solving (raises OSError)."""
    directory.mkdir(parents=True, exist_ok=True)
    # a fresh, unique name: a user's file in the folder is never touched
    handle, probe = tempfile.mkstemp(dir=directory, prefix=".jtms-write-test-")
    os.close(handle)
    os.unlink(probe)


def export_instance(
    name: str,
    n: int,
    directory: Path,
    symmetry: bool = False,
    formats: tuple[str, ...] = ("cnf", "smt2"),
) -> list[Path]:
    """Write the chosen encodings of (negated) statement ``name`` at n; returns the paths."""
    spec = lookup(name)
    expected = "SAT (mutant)" if spec.is_mutant else "UNSAT"
    written = []
    if "cnf" in formats:
        e = encode(name, n, symmetry=symmetry)
        header = [
            f"c jtms prove: negation of {name!r} ({spec.text}), n = {n}"
            + (", lex-leader symmetry breaking" if symmetry else ""),
            f"c expected answer: {expected}",
            f"c variables 1..{1 << n}: variable X+1 is f(X), X a subset of the {n} items "
            "as a bit mask",
        ]
        path = directory / f"{stem(name, n, symmetry)}.cnf"
        path.write_text("\n".join(header) + "\n" + dimacs(e.nvars, e.clauses))
        written.append(path)
    if "smt2" in formats:
        encoding = Z3Encoding(name, n, symmetry=symmetry)
        solver = z3.Solver()  # (a QF_FD solver object prints no assertions)
        solver.add(encoding.facts)
        comment = (
            f"; jtms prove: negation of {name!r} ({spec.text}), n = {n}"
            + (", lex-leader symmetry breaking" if symmetry else "")
            + f"\n; expected answer: {expected}\n"
            f"; bit X of the bit-vector f is f(X), X a subset of the {n} items as a bit mask\n"
        )
        path = directory / f"{stem(name, n, symmetry)}.smt2"
        path.write_text(comment + solver.to_smt2())
        written.append(path)
    return written
