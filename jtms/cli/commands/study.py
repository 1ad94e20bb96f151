"""`jtms study NAME`: the paper's four studies, computed from program state.

NAME is revisionpair, scimap, diagnosis, heterogeneous or all. Columns are the revision
rules (exact = the production engine, none, influence); reader rows say which reader
answered the delayed questions from the context each rule leaves (literal, careful, and the
--answerer hook). Rows marked (construction check) cannot vary: the worlds are built so.

examples:
  jtms study all                         one table, every study at its own seed
  jtms study scimap --seeds 5            mean [min-max] over seeds 1..5
  jtms study scimap --budget 120         every rule's context under 120 tokens
  jtms study all --sweep 2000,200,120,80,40 --plot sweep.png
                                         grounded answers against the budget, plotted
  jtms study diagnosis --scale 10000,100000
                                         repair latency also on 10k and 100k-claim memories
  jtms study all --json --manifest run.manifest.json > run.json
                                         the figures, with their provenance and hashes
  jtms study scimap --answerer mymodel:answer --transcript transcripts/
                                         a model answers too; every context, question and
                                         answer it saw is kept as JSON Lines

Exit 0 when every endpoint of the exact rule has its expected value (and, in a sweep, exact
grounds at least as many answers as none with the careful reader at every budget), 1 when
one does not, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from jtms.cli.arguments import at_least, documented, refuse_empty
from jtms.cli.exit_codes import ExitCode
from jtms.cli.output import console, print_json, table, writable_folder
from jtms.cli.output_file import check_output, figure_format, open_output
from jtms.cli.provenance import add_manifest_argument, note_seeds, with_provenance
from jtms.memory.limits import ascii_int
from theory.model.errors import InputError

CHOICES = ("revisionpair", "scimap", "diagnosis", "heterogeneous", "all")


def _seed(text: str) -> int:
    value = ascii_int(text.strip())  # ASCII digits only: int() reads "٣" as 3
    if value is None:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text[:40]!r}")
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a seed in 0..2**63-1, got {text!r}")
    return value


def _positive_list(text: str) -> list[int]:
    if text.strip().lower() == "none":
        return []
    return [_positive(part.strip()) for part in text.split(",")]


_positive = at_least(1)

# The largest --scale: a memory of N claims is built in memory and on disk (about 1 kB per
# claim), so 1,000,000 claims is already about a gigabyte; larger is refused, exit 2.
MAX_SCALE = 1_000_000


# A run estimated above LONG_RUN seconds needs --yes (as `jtms enumerate` asks): CPU seconds
# of one seed of each study, measured on the 2-core VM (three seeds each, in one process),
# and of the diagnosis study's repair latency per claim of each --scale memory (10,000
# claims: 0.42 s; 100,000: 4.7 s). --seeds 20001 of revisionpair was about three hours.
LONG_RUN = 300.0
SEED_SECONDS = {"revisionpair": 0.5, "scimap": 0.16, "heterogeneous": 0.33, "diagnosis": 0.45}
SCALE_SECONDS_PER_CLAIM = 5e-5


def _check_run_length(args: argparse.Namespace, names: list[str], scales: list[int]) -> None:
    """Refuse, before any study runs, a run estimated above ``LONG_RUN`` seconds unless
    ``--yes`` is given (exit 2, with the estimate)."""
    points = len(args.sweep) if args.sweep else 1
    seconds = 0.0
    for name in names:
        one = SEED_SECONDS[name]
        if name == "diagnosis" and not args.sweep:
            one += SCALE_SECONDS_PER_CLAIM * sum(scales)
        seconds += args.seeds * points * one
    if seconds > LONG_RUN and not args.yes:
        took = f"{seconds / 3600:,.1f} h" if seconds >= 5400 else f"{seconds / 60:.1f} min"
        raise InputError(
            f"{args.seeds:,} seed(s) of {', '.join(names)}"
            + (f" at {points} budgets" if args.sweep else "")
            + f" take an estimated {took}, over {LONG_RUN / 60:.0f} min: pass --yes to start it"
        )


def _scale_list(text: str) -> list[int]:
    sizes = _positive_list(text)
    for size in sizes:
        if size > MAX_SCALE:
            raise argparse.ArgumentTypeError(f"{size} claims is too many: at most {MAX_SCALE:,}")
    return sizes


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "study",
        help="reproduce the paper's studies (program-state endpoints per revision rule)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME", choices=CHOICES, help=" | ".join(CHOICES))
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--plot",
        metavar="FILE",
        default=None,
        help="write a figure (PNG, SVG, PDF): bars per study, or the sweep's curves",
    )
    p.add_argument(
        "--answerer",
        metavar="MODULE:FUNCTION",
        default=None,
        help="a callable (context_text, question) -> jtms.studies.Answer that joins the "
        "two readers in every study (for instance a language model)",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="the seed of every study run (default: each study's own)",
    )
    p.add_argument(
        "--seeds",
        type=_positive,
        default=1,
        metavar="N",
        help="run seeds SEED..SEED+N-1 and report mean [min-max] (default 1)",
    )
    p.add_argument(
        "--budget",
        type=_positive,
        default=2000,
        help="token budget of every rule's working context (default 2000)",
    )
    p.add_argument(
        "--sweep",
        type=_positive_list,
        default=None,
        metavar="B1,B2,...",
        help="budget sweep: grounded answers per rule and reader at each budget",
    )
    p.add_argument(
        "--scale",
        type=_scale_list,
        default=None,
        metavar="N1,N2",
        help="diagnosis: also measure repair latency on memories of N claims "
        f"(default 10000,100000, each at most {MAX_SCALE:,}; 'none' to skip)",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help=f"start a run estimated above {LONG_RUN / 60:.0f} minutes (refused without it)",
    )
    p.add_argument(
        "--transcript",
        metavar="DIR",
        default=None,
        help="with --answerer: write every call of it to DIR/STUDY.jsonl, one JSON object a "
        "line (study, seed, budget, rule, question, the context it read, its answer)",
    )
    add_manifest_argument(p)
    documented(p, examples=[], keys=["studies", "ok", "budget", "provenance"])
    p.set_defaults(func=run)


class Transcript:
    """The calls of the ``--answerer`` as JSON Lines, one file per study in a folder: what a
    model saw (the context, the question) and what it answered, with the study, seed, budget
    and the rule whose context it read, so that model-graded runs can be published and
    re-scored."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.files: dict[str, Any] = {}
        self.where: dict[str, Any] = {}  # the study run in progress: study, seed, budget
        self.calls = 0

    def record(self, context_text: str, question: Any, answer: Any) -> None:
        from jtms.studies.trial import ANSWERED_RULE

        study = str(self.where.get("study"))
        if study not in self.files:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.files[study] = open(  # closed by close()
                self.folder / f"{study}.jsonl", "w", encoding="utf-8"
            )
        self.calls += 1
        line = {
            **self.where,
            "call": self.calls,
            "rule": ANSWERED_RULE.get(),
            "question": {"id": question.id, "target": question.target, "text": question.text},
            "context": context_text,
            "answer": {"verdict": answer.verdict, "citations": list(answer.citations)},
        }
        self.files[study].write(json.dumps(line, ensure_ascii=False) + "\n")

    def close(self) -> None:
        for handle in self.files.values():
            handle.close()


def _load_answerer(spec: str, transcript: Transcript | None = None) -> Any:
    # jtms.fuzz imports hypothesis (about 0.3 s): only when a study runs, not with every command
    from jtms.fuzz.plugins import load_callable
    from jtms.studies.readers import Answer

    try:
        function = load_callable(spec)
    except InputError as error:
        raise InputError(f"--answerer {error}") from None
    name = spec[:200]

    def checked(context_text: str, question: Any) -> Any:
        """The user's answerer, with a misbehaving one refused in one line (exit 2)."""
        try:
            answer = function(context_text, question)
        except Exception as error:
            raise InputError(
                f"--answerer {name} raised {error.__class__.__name__}: {str(error)[:200]}"
            ) from None
        if not isinstance(answer, Answer):
            raise InputError(
                f"--answerer {name} returned {type(answer).__name__} {repr(answer)[:80]}, "
                "expected jtms.studies.Answer"
            )
        if transcript is not None:
            transcript.record(context_text, question, answer)
        return answer

    return checked


def _check_plot(path: str) -> None:
    """Bad ``--plot`` is refused before the studies run (exit 2, nothing written)."""
    figure_format(path, "--plot")
    target = Path(path)
    if not target.parent.is_dir():
        raise InputError(f"--plot {path!r}: no such directory {str(target.parent)!r}")
    check_output(path, "--plot")


def _value(value: Any) -> str:
    if isinstance(value, dict):
        low, high = value["min"], value["max"]
        return f"{value['mean']:g}" if low == high else f"{value['mean']:g} [{low:g}-{high:g}]"
    return f"{value:g}" if isinstance(value, float) else f"{value}"


def _cell(endpoint: Any, rule: str) -> str:
    if rule not in endpoint.values or endpoint.values[rule] is None:
        return "-"
    text = _value(endpoint.values[rule])
    if endpoint.total:
        text += f"/{endpoint.total}"
    return text if endpoint.ok(rule) else f"{text} (expected {endpoint.expected[rule]})"


def _label(result: Any, endpoint: Any) -> str:
    suffix = " (construction check)" if endpoint.construction else ""
    return f"{result.name}: {endpoint.label}{suffix}"


def run(args: argparse.Namespace) -> int:
    from jtms.studies import DEFAULT_SEEDS, STUDIES, run_study

    refuse_empty(args, "plot", "answerer", "transcript")
    names = list(STUDIES) if args.name == "all" else [args.name]
    if args.plot:
        _check_plot(args.plot)
    transcript = None
    if args.transcript:
        if not args.answerer:
            raise InputError("--transcript records the calls of --answerer: give --answerer too")
        writable_folder(args.transcript, "--transcript")
        transcript = Transcript(args.transcript)
    answerer = _load_answerer(args.answerer, transcript) if args.answerer else None
    scales = [10_000, 100_000] if args.scale is None else args.scale
    _check_run_length(args, names, scales)

    def seeds_of(name: str) -> list[int]:
        first = DEFAULT_SEEDS[name] if args.seed is None else args.seed
        return [first + k for k in range(args.seeds)]

    note_seeds(args, {name: seeds_of(name) for name in names})

    def one(name: str, seed: int, budget: int) -> Any:
        options: dict[str, Any] = (
            {"scales": scales} if name == "diagnosis" and not args.sweep else {}
        )
        if transcript is not None:
            transcript.where = {"study": name, "seed": seed, "budget": budget}
        return run_study(name, answerer=answerer, seed=seed, budget=budget, **options)

    try:
        return _run(args, names, seeds_of, one)
    finally:
        if transcript is not None:
            transcript.close()


def _run(args: argparse.Namespace, names: list[str], seeds_of: Any, one: Any) -> int:
    from jtms.studies.endpoints import summarize

    if args.sweep:
        return _run_sweep(args, names, seeds_of, one)
    out = console()
    results: list[Any] = []
    failures: dict[str, Any] = {}
    for name in names:
        runs = [one(name, seed, args.budget) for seed in seeds_of(name)]
        if args.seeds == 1:
            results.append(runs[0])
            if runs[0].failures():
                failures[name] = runs[0].failures()
        else:
            summary = summarize(runs)
            results.append(summary)
            if summary.failures:
                failures[name] = summary.failures
        if not args.json and args.seeds > 1:
            out.print(f"{name}: {args.seeds} seeds done", style="dim")
    if args.plot:
        from jtms.studies.plot import plot

        with open_output(args.plot, "--plot", binary=True) as figure:
            plot(results, figure, format=figure_format(args.plot, "--plot"))
    if args.json:
        payload: dict[str, Any] = {
            "studies": [r.as_dict() for r in results],
            "ok": not failures,
            "budget": args.budget,
        }
        if args.plot:
            payload["plot"] = args.plot
        print_json(with_provenance(payload, args))
    else:
        rules = results[0].rules
        rows = [
            [_label(r, e)] + [_cell(e, rule) for rule in rules]
            for r in results
            for e in r.endpoints
        ]
        seeds = "" if args.seeds == 1 else f"; mean, min-max, over {args.seeds} seeds"
        title = f"Studies (program-state endpoints; rules as columns; budget {args.budget}{seeds})"
        out.print(table(title, ["endpoint"] + rules, rows))
        for r in results:
            shown = (
                f"seed {r.seed}"
                if isinstance(getattr(r, "seed", None), int)
                else f"seeds {', '.join(map(str, getattr(r, 'seeds', [])))}"
            )
            out.print(f"{r.name}: {shown}, {r.seconds:.2f} s")
        if failures:
            out.print("FAILED (exact rule): " + "; ".join(f"{k}: {v}" for k, v in failures.items()))
        if args.plot:
            out.print(f"figure written to {args.plot}")
    return ExitCode.of(not failures)


def _run_sweep(args: argparse.Namespace, names: list[str], seeds_of: Any, one: Any) -> int:
    from jtms.studies.sweep import sweep

    out = console()
    results = []
    for name in names:
        results.append(
            sweep(
                name,
                args.sweep,
                seeds_of(name),
                lambda study, seed, budget: one(study, seed, budget),
            )
        )
        if not args.json:
            out.print(f"{name}: swept {len(args.sweep)} budgets", style="dim")
    if args.plot:
        from jtms.studies.plot import plot_sweep

        with open_output(args.plot, "--plot", binary=True) as figure:
            plot_sweep(results, figure, format=figure_format(args.plot, "--plot"))
    violations = [v | {"study": r.study} for r in results for v in r.violations]
    if args.json:
        payload: dict[str, Any] = {"sweep": [r.as_dict() for r in results], "ok": not violations}
        if args.plot:
            payload["plot"] = args.plot
        print_json(with_provenance(payload, args))
    else:
        for r in results:
            rows = [
                [column] + [f"{v:g}" for v in values] for column, values in sorted(r.series.items())
            ]
            out.print(
                table(
                    f"{r.study}: grounded (of {r.total}) by context budget",
                    ["rule/reader"] + [str(b) for b in r.budgets],
                    rows,
                )
            )
        if violations:
            out.print(
                "FAILED: exact grounds fewer answers than none (careful reader): "
                + "; ".join(
                    f"{v['study']} budget {v['budget']} seed {v['seed']}" for v in violations
                )
            )
        if args.plot:
            out.print(f"figure written to {args.plot}")
    return ExitCode.of(not violations)


ORDER = 60  # position of these commands in `jtms --help`
