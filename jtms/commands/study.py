"""`jtms study NAME [--json] [--plot FILE]`: the paper's four studies, deterministic.

NAME is revisionpair, scimap, diagnosis, heterogeneous or all. Exit 0 when every endpoint
of the exact rule has its expected value, 1 when one does not, 2 on bad input.
"""

from __future__ import annotations


import argparse
from pathlib import Path

from theory.errors import InputError

from jtms.output import console, print_json, table

CHOICES = ("revisionpair", "scimap", "diagnosis", "heterogeneous", "all")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "study", help="reproduce the paper's studies (program-state endpoints per revision rule)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", metavar="NAME", choices=CHOICES, help=" | ".join(CHOICES))
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", metavar="FILE", default=None, help="write a figure (PNG, SVG, PDF)")
    p.add_argument("--answerer", metavar="MODULE:FUNCTION", default=None,
                   help="optional hook: a callable (context_text, question) -> "
                        "jtms.studies.common.Answer used by scimap and diagnosis instead of the "
                        "deterministic answerer (for instance a language model)")
    p.set_defaults(func=run)


def _cell(endpoint, rule: str) -> str:
    if rule not in endpoint.values or endpoint.values[rule] is None:
        return "-"
    value = endpoint.values[rule]
    text = f"{value}/{endpoint.total}" if endpoint.total else f"{value}"
    return text if endpoint.ok(rule) else f"{text} (expected {endpoint.expected[rule]})"


def _load_answerer(spec: str):
    import importlib

    module_name, _, function = spec.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), function) if function else None
    except (ImportError, AttributeError, ValueError) as error:
        raise InputError(f"--answerer {spec!r}: {error}") from None
    if not callable(target):
        raise InputError(f"--answerer {spec!r}: expected MODULE:FUNCTION naming a callable")
    return target


PLOT_FORMATS = (".png", ".svg", ".pdf")


def _check_plot(path: str) -> None:
    """Bad ``--plot`` is refused before the studies run (exit 2, nothing written)."""
    target = Path(path)
    if target.suffix.lower() not in PLOT_FORMATS:
        raise InputError(f"--plot {path!r}: expected a file ending in {', '.join(PLOT_FORMATS)}")
    if not target.parent.is_dir():
        raise InputError(f"--plot {path!r}: no such directory {str(target.parent)!r}")


def run(args: argparse.Namespace) -> int:
    from jtms.studies import STUDIES, run_study

    names = list(STUDIES) if args.name == "all" else [args.name]
    if args.plot:
        _check_plot(args.plot)
    answerer = _load_answerer(args.answerer) if args.answerer else None
    results = [run_study(name, answerer=answerer) for name in names]
    failures = {r.name: r.failures() for r in results if r.failures()}
    if args.plot:
        from jtms.studies.plot import plot

        plot(results, args.plot)
    if args.json:
        payload = {"studies": [r.as_dict() for r in results], "ok": not failures}
        if args.plot:
            payload["plot"] = args.plot
        print_json(payload)
    else:
        rules = results[0].rules
        rows = [[f"{r.name}: {e.label}"] + [_cell(e, rule) for rule in rules]
                for r in results for e in r.endpoints]
        title = "Studies (program-state endpoints; rules as columns)"
        out = console()
        out.print(table(title, ["endpoint"] + rules, rows))
        for r in results:
            out.print(f"{r.name}: {r.seconds:.2f} s")
        if failures:
            out.print("FAILED (exact rule): " + "; ".join(f"{k}: {', '.join(v)}" for k, v in failures.items()))
        if args.plot:
            out.print(f"figure written to {args.plot}")
    return 1 if failures else 0


ORDER = 60  # position of these commands in `jtms --help`
