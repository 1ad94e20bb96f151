"""``jtms prove``: bounded SAT proofs, DRUP certificates and general z3 proofs of Theorem 1."""

from __future__ import annotations

import argparse

from jtms.cli.arguments import documented, integer, number, path
from jtms.cli.output import console, print_json, table, writable_folder
from jtms.cli.provenance import add_manifest_argument, with_provenance
from theory.model.errors import InputError

EXIT_OK, EXIT_FAILED = 0, 1

# The largest n --min-n/--max-n/--mutants-n accept: the encodings have 2^n truth-table
# variables and about 40·2^n clauses (2.7 million at n = 16, gigabytes beyond 20), and
# solving is already hour-scale at n = 13 (docs/proofs.md); larger n is refused, exit 2.
MAX_N = 16
# z3 takes its timeout as a 32-bit count of milliseconds.
MAX_TIMEOUT_S = (2**32 - 1) / 1000

_DESCRIPTION = """\
Prove the justification-boundary theorem (Theorem 1) in its support-function form: for an
active claim c and every audit of evidence, influence taken over U (the union of c's minimal
justifications) agrees with exact revision iff c has exactly one minimal justification
(Coq boundary). Its graph form (influence = reachability, loops allowed: agree iff the unique
minimal justification S equals c's evidence ancestors) is statement refined with A = the
evidence ancestors (Coq graph_influence_safe); audits of claims and mixed audits are
statement audit_criterion (Coq graph_audit_safe).

Bounded proofs: for each n, an arbitrary monotone support function on n evidence items
(2^n truth-table variables), its minimal justifications, its essential items U and both
revision rules over all 2^n audits are encoded, with the statement negated. UNSAT proves the
statement for every support function on n items. Each n is solved by CaDiCaL (python-sat,
CNF) and by z3 (an independent encoding); both must answer UNSAT.

Theorem 2 (the counting boundary: Datalog Counting agrees with exact revision on a claim iff
no witness audit and self-supporting set L) is proved over graphs, not support functions:
statements counting_criterion (audits of evidence), counting_criterion_claims and
counting_criterion_all (audits of claims, of any nodes): for n nodes, every graph on n nodes
(each node evidence or claim, every justification h <- B present or not), both fixpoints of
every audit unrolled, the negated equivalence; solved by CaDiCaL and Glucose (no z3 encoding),
n capped at 6 for them (n = 6 takes minutes), certified like the others. --general adds
general:counting_criterion_if/_only_if and general:counting_loop (z3 over sorts Node, Just,
Set) with their mutants.

Statements: boundary (Theorem 1), refined (recorded ancestors A ⊇ U: agree iff unique S and
A = S), inclusion (none ⊆ exact ⊆ influence), one_item (a disagreement implies one on a
one-item audit), audit_criterion (audits of claims or mixed: items = the audited nodes, A =
those that are c or its ancestors ⊇ U: agree on every audit iff on every one-item audit). Mutants (one ingredient weakened) must come back SAT: their decoded
countermodel, a support structure with a witness audit, shows the proof is not vacuous.

--general adds the first-order z3 proofs, valid for every finite universe at once, each
UNSAT query shown non-vacuous (an explicit model of everything but its negated goal,
checked against theory), and a second path for each statement: its chained steps (printed),
which must entail it propositionally, each with hypotheses holding in an explicit model and
a SAT mutant; a NAME/paths row fails if the two paths disagree.
Exit code 1 if a statement came back SAT/unknown/vacuous, a mutant came back UNSAT, the
solvers or the two general paths disagreed, or a certificate was rejected.
"""

_EXAMPLES = """\
examples:
  jtms prove --max-n 6                       Theorem 1 for n = 1..6, both solvers, mutants
  jtms prove --max-n 13 --solvers cadical --statements boundary --symmetry
  jtms prove --max-n 6 --certify-max-n 6     also check CaDiCaL's DRUP proofs (dratify)
  jtms prove --max-n 5 --statements counting_criterion --solvers cadical,glucose --certify-max-n 4
  jtms prove --max-n 4 --statements all --general --json
  jtms prove --max-n 5 --statements all --export out/   DIMACS + SMT-LIB 2 files to re-check
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "prove",
        help="prove the justification-boundary theorem (SAT-bounded and general z3)",
        description=_DESCRIPTION,
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--max-n",
        type=integer,
        default=6,
        metavar="N",
        help="prove the bounded statements for n = min-n .. N evidence items "
        f"(default 6, at most {MAX_N})",
    )
    parser.add_argument(
        "--min-n",
        type=integer,
        default=1,
        metavar="N",
        help=f"smallest n (default 1, at most {MAX_N})",
    )
    parser.add_argument(
        "--solvers",
        default="cadical,z3",
        help="comma-separated: cadical, z3, glucose (default cadical,z3; all must agree)",
    )
    parser.add_argument(
        "--z3-max-n",
        type=integer,
        default=None,
        metavar="N",
        help="run z3 only up to this n (it is slower than CaDiCaL beyond n = 10)",
    )
    parser.add_argument(
        "--statements",
        default="boundary",
        help="comma-separated bounded statements, or 'all' "
        "(boundary, refined, inclusion, one_item, audit_criterion, counting_criterion, "
        "counting_criterion_claims, counting_criterion_all; default boundary)",
    )
    parser.add_argument(
        "--symmetry",
        action="store_true",
        help="add lex-leader symmetry breaking (evidence items are interchangeable)",
    )
    parser.add_argument(
        "--mutants-n",
        type=integer,
        default=3,
        metavar="N",
        help=f"n at which the bounded mutants are solved (default 3, at most {MAX_N}; 0 skips them)",
    )
    parser.add_argument(
        "--certify-max-n",
        type=integer,
        default=0,
        metavar="N",
        help="log CaDiCaL's DRUP proof and check it for n <= N (default 0: off)",
    )
    parser.add_argument(
        "--checker",
        choices=("dratify", "drup"),
        default="dratify",
        help="independent DRUP checker (drup is verified but slow: n <= 5)",
    )
    parser.add_argument(
        "--certificate-dir",
        type=path,
        default=None,
        metavar="DIR",
        help="write each certified CNF (.cnf) and proof (.drup) here",
    )
    parser.add_argument(
        "--export",
        type=path,
        default=None,
        metavar="DIR",
        help="also write every bounded instance solved as DIMACS (.cnf) and "
        "SMT-LIB 2 (.smt2, only for n <= --z3-max-n) into DIR",
    )
    parser.add_argument(
        "--general",
        action="store_true",
        help="also run the first-order z3 proofs (every finite universe) and mutants",
    )
    parser.add_argument(
        "--timeout",
        type=number,
        default=120.0,
        metavar="SECONDS",
        help="z3 timeout per general proof step (default 120; rounded up to whole "
        f"milliseconds, at most {MAX_TIMEOUT_S})",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_manifest_argument(parser)
    documented(
        parser, examples=[], keys=["ok", "solvers_agree", "disagreements", "results", "provenance"]
    )
    parser.set_defaults(func=run)


FORMS = {
    "boundary": "Theorem 1, support-function form: for an active claim and every audit of "
    "evidence, influence over the union of the minimal justifications agrees with exact "
    "revision iff the minimal justification is unique (Coq boundary, graph_boundary)",
    "refined": "Theorem 1, graph form: for an active claim and every audit of evidence, "
    "influence over the evidence ancestors A (reachability, loops allowed; A ⊇ U) agrees with "
    "exact revision iff the minimal justification S is unique and A = S (Coq "
    "graph_influence_safe)",
    "audit_criterion": "audits of claims or mixed audits: for an active claim, influence "
    "agrees with exact revision on every audit iff on every one-item audit {x}, x the claim "
    "or an ancestor among the audited nodes (Coq graph_audit_safe)",
    "counting_criterion": "Theorem 2 (the counting boundary), every graph on n nodes, audits "
    "of evidence: an active claim is counting-safe (Datalog Counting retires it whenever exact "
    "revision does) iff there is no witness: an audit R and a set L containing it, retired "
    "exactly, each member with a justification inside L and what survives (Coq "
    "graph_counting_safe)",
    "counting_criterion_claims": "Theorem 2, audits of claims (Coq graph_counting_safe)",
    "counting_criterion_all": "Theorem 2, audits of any nodes (Coq graph_counting_safe)",
}
"""What each statement that ``jtms prove`` prints under its table establishes."""


def run(args: argparse.Namespace) -> int:
    from proofs.bounded import SOLVERS, solve
    from proofs.certificate import CheckerMissing, certify
    from proofs.results import disagreement
    from proofs.statements import MUTANTS, PROVED

    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    bad = [s for s in solvers if s not in SOLVERS]
    if bad or not solvers:
        raise InputError(
            f"unknown solver {', '.join(bad) or '(none)'} (choose from {', '.join(SOLVERS)})"
        )
    from proofs.graph_bounded import COUNTING, COUNTING_MAX_N, certify_counting, solve_counting

    names = [s.name for s in PROVED] + [s.name for s in COUNTING.values() if not s.mutant]
    chosen = names if args.statements == "all" else [s.strip() for s in args.statements.split(",")]
    if any(name not in names for name in chosen):
        raise InputError(
            f"unknown statement in {args.statements!r} (choose from {', '.join(names)}, all)"
        )
    if args.max_n < 1 or args.min_n < 1 or args.min_n > args.max_n:
        raise InputError("need 1 <= --min-n <= --max-n")
    for flag, value in (
        ("--max-n", args.max_n),
        ("--min-n", args.min_n),
        ("--mutants-n", args.mutants_n),
    ):
        if value > MAX_N:
            raise InputError(
                f"{flag} {value} is too large: at most {MAX_N} (the encodings have 2^n variables)"
            )
    if (
        args.mutants_n < 0
        or args.certify_max_n < 0
        or (args.z3_max_n is not None and args.z3_max_n < 0)
    ):
        raise InputError("--mutants-n, --certify-max-n and --z3-max-n must be >= 0")
    if not 0 < args.timeout <= MAX_TIMEOUT_S:
        raise InputError(
            f"--timeout must be > 0 and at most {MAX_TIMEOUT_S} seconds, got {args.timeout:g}"
        )
    if args.certificate_dir is not None:
        writable_folder(args.certificate_dir, "--certificate-dir")
    z3_max = args.max_n if args.z3_max_n is None else args.z3_max_n
    if args.export is not None:
        from proofs.export import ensure_writable

        try:
            ensure_writable(args.export)
        except OSError as error:
            raise InputError(
                f"--export {args.export}: not a writable directory ({error.strerror or error})"
            ) from None

    results = []
    disagreements = []
    for name in chosen:
        if name in COUNTING:  # graphs on n nodes (proofs.graph_bounded): CaDiCaL and Glucose
            for n in range(args.min_n, min(args.max_n, COUNTING_MAX_N) + 1):
                answers = [solve_counting(name, n, s) for s in solvers if s != "z3"]
                results += answers
                if args.export is not None:
                    _export_counting(name, n, args)
                differ = disagreement(answers) if answers else None
                if differ is not None:
                    disagreements.append(differ.to_dict())
                if n <= args.certify_max_n:
                    try:
                        results.append(certify_counting(name, n, args.checker))
                    except CheckerMissing as error:
                        raise InputError(
                            f"DRUP checker {args.checker!r} is not installed ({error})"
                        ) from None
            continue
        for n in range(args.min_n, args.max_n + 1):
            answers = [
                solve(name, n, solver, symmetry=args.symmetry)
                for solver in solvers
                if not (solver == "z3" and n > z3_max)
            ]
            results += answers
            if args.export is not None:
                _export(name, n, args, z3_max)
            differ = disagreement(answers)
            if differ is not None:
                disagreements.append(differ.to_dict())
            if n <= args.certify_max_n:
                try:
                    results.append(
                        certify(name, n, args.checker, args.symmetry, args.certificate_dir)
                    )
                except CheckerMissing as error:
                    raise InputError(
                        f"DRUP checker {args.checker!r} is not installed ({error})"
                    ) from None
    if args.mutants_n:
        for mutant in MUTANTS:
            if mutant.mutant_of in chosen:
                for solver in solvers:
                    results.append(
                        solve(mutant.name, args.mutants_n, solver, symmetry=args.symmetry)
                    )
                if args.export is not None:
                    _export(mutant.name, args.mutants_n, args, max(z3_max, args.mutants_n))
        for spec in COUNTING.values():
            if spec.mutant_of in chosen:
                n = min(args.mutants_n, COUNTING_MAX_N)
                results += [solve_counting(spec.name, n, s) for s in solvers if s != "z3"]
                if args.export is not None:
                    _export_counting(spec.name, n, args)
    if args.general:
        from proofs.chaining import chain_results
        from proofs.general import GENERAL, prove_general
        from proofs.graph_general import GRAPH_GENERAL, prove_graph_general

        general = [prove_general(name, timeout_s=args.timeout) for name in GENERAL]
        results += general
        results += chain_results(timeout_s=args.timeout, general=general)  # + NAME/paths rows
        results += [prove_graph_general(name, timeout_s=args.timeout) for name in GRAPH_GENERAL]

    ok = all(r.ok for r in results) and not disagreements
    if args.json:
        print_json(
            with_provenance(
                {
                    "ok": ok,
                    "solvers_agree": not disagreements,
                    "disagreements": disagreements,
                    "results": [r.to_dict() for r in results],
                },
                args,
            )
        )
    else:
        rows = []
        for r in results:
            solver = r.solver + ("+lex" if r.symmetry else "")
            verdict = r.result + ("" if r.ok else "  <- FAILED")
            if r.mutant:
                verdict += " (mutant)"
            extra = (
                r.countermodel.summary()
                if r.countermodel
                else r.certificate or str(r.details.get("text", ""))
            )
            rows.append(
                [
                    r.statement,
                    "all" if r.n is None else r.n,
                    solver,
                    verdict,
                    f"{r.seconds:.3f}",
                    extra,
                ]
            )
        out = console()
        if not out.is_terminal:
            out.width = 160
        out.print(
            table(
                "jtms prove",
                ["statement", "n", "solver", "result", "seconds", "countermodel / certificate"],
                rows,
            )
        )
        for name in chosen:
            if name in FORMS:
                out.print(f"{name}: {FORMS[name]}")
        for d in disagreements:
            out.print(
                f"solvers disagree on {d['statement']} n={d['n']}: {d['answers']}", style="red"
            )
        out.print(
            "all proofs hold and every mutant is refuted" if ok else "FAILED: see rows marked"
        )
    return EXIT_OK if ok else EXIT_FAILED


def _export(name: str, n: int, args: argparse.Namespace, z3_max: int) -> None:
    from proofs.export import export_instance

    formats = ("cnf", "smt2") if n <= z3_max else ("cnf",)
    try:
        export_instance(name, n, args.export, symmetry=args.symmetry, formats=formats)
    except OSError as error:
        raise InputError(
            f"--export {args.export}: cannot write ({error.strerror or error})"
        ) from None


def _export_counting(name: str, n: int, args: argparse.Namespace) -> None:
    from proofs.graph_bounded import export_counting

    try:
        export_counting(name, n, args.export)
    except OSError as error:
        raise InputError(
            f"--export {args.export}: cannot write ({error.strerror or error})"
        ) from None


ORDER = 40  # position of these commands in `jtms --help`
