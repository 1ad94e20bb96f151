"""Figures of the studies: one panel per study (grouped bars, rules) and budget sweeps."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from jtms.studies.endpoints import SeedSummary, StudyResult
from jtms.studies.sweep import SweepResult

COLORS = {"exact": "#2b7bba", "none": "#d95f02", "influence": "#7570b3"}
STYLES = {"literal": ":", "careful": "-", "answerer": "--"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _number(value: Any) -> float:
    """A plain value, or the mean of a seed summary's ``{"mean", "min", "max"}``."""
    if isinstance(value, dict):
        return float(value["mean"])
    return float(value or 0)


def _grid(plt: Any, panels: int) -> tuple[Any, Any]:
    cols = 2 if panels > 1 else 1
    rows = (panels + cols - 1) // cols
    return plt.subplots(rows, cols, figsize=(7.2 * cols, 4.6 * rows), squeeze=False)


def plot(
    results: Sequence[StudyResult | SeedSummary],
    path: "str | Path | IO[bytes]",
    format: str | None = None,
) -> None:
    """Grouped bars per endpoint with a known total (fractions), one panel per study."""
    plt = _pyplot()
    fig, axes = _grid(plt, len(results))
    for ax, result in zip(axes.flat, results):
        endpoints = [e for e in result.endpoints if e.total]
        width = 0.8 / max(len(result.rules), 1)
        for k, rule in enumerate(result.rules):
            xs = [i + (k - (len(result.rules) - 1) / 2) * width for i in range(len(endpoints))]
            values = [_number(e.values.get(rule)) / (e.total or 1) for e in endpoints]
            bars = ax.bar(xs, values, width, label=rule, color=COLORS.get(rule, "#999999"))
            for bar, e in zip(bars, endpoints):
                shown = _number(e.values.get(rule))
                ax.annotate(
                    f"{shown:g}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                )
        ax.set_xticks(range(len(endpoints)))
        ax.set_xticklabels(
            [
                textwrap.fill(e.label + (" [construction]" if e.construction else ""), 18)
                + f"\n(of {e.total})"
                for e in endpoints
            ],
            fontsize=6,
        )
        ax.set_ylim(0, 1.4)
        ax.set_ylabel("fraction")
        ax.set_title(result.name, fontsize=10)
        extra = [
            f"{e.label}: "
            + ", ".join(f"{r} {_number(e.values[r]):g}" for r in result.rules if r in e.values)
            for e in result.endpoints
            if not e.total
        ]
        if extra:
            ax.text(
                0.01,
                0.98,
                textwrap.fill("; ".join(extra), 90),
                transform=ax.transAxes,
                fontsize=6,
                va="top",
            )
        ax.legend(fontsize=7, loc="upper right", ncol=3)
    for ax in list(axes.flat)[len(results) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=format)  # format: needed for a file object
    plt.close(fig)


def plot_sweep(
    sweeps: Sequence[SweepResult], path: "str | Path | IO[bytes]", format: str | None = None
) -> None:
    """Grounded answers against the budget: a line per rule (colour) and reader (style)."""
    plt = _pyplot()
    fig, axes = _grid(plt, len(sweeps))
    for ax, result in zip(axes.flat, sweeps):
        for column, values in sorted(result.series.items()):
            rule, _, reader = column.partition("/")
            ax.plot(
                result.budgets,
                values,
                STYLES.get(reader, "-."),
                marker="o",
                markersize=3,
                color=COLORS.get(rule, "#999999"),
                label=column,
            )
        ax.set_xscale("log")
        ax.set_xlabel("context budget (tokens)")
        ax.set_ylabel(f"grounded (of {result.total})")
        seeds = (
            f"seeds {result.seeds[0]}-{result.seeds[-1]}"
            if len(result.seeds) > 1
            else f"seed {result.seeds[0]}"
        )
        ax.set_title(f"{result.study}: budget sweep ({seeds})", fontsize=10)
        ax.legend(fontsize=6, loc="lower right", ncol=2)
    for ax in list(axes.flat)[len(sweeps) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=format)  # format: needed for a file object
    plt.close(fig)
