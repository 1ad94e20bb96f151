"""Figures of the studies: one panel per study, grouped bars (rules) per endpoint."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from jtms.studies.common import StudyResult

COLORS = {"exact": "#2b7bba", "none": "#d95f02", "influence": "#7570b3"}


def plot(results: Sequence[StudyResult], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = len(results)
    cols = 2 if panels > 1 else 1
    rows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.2 * rows), squeeze=False)
    for ax, result in zip(axes.flat, results):
        endpoints = [e for e in result.endpoints if e.total]   # fractions of a known total
        width = 0.8 / max(len(result.rules), 1)
        for k, rule in enumerate(result.rules):
            xs = [i + (k - (len(result.rules) - 1) / 2) * width for i in range(len(endpoints))]
            values = [(e.values.get(rule) or 0) / e.total for e in endpoints]
            bars = ax.bar(xs, values, width, label=rule, color=COLORS.get(rule, "#999999"))
            for bar, e in zip(bars, endpoints):
                ax.annotate(f"{e.values.get(rule, '-')}", (bar.get_x() + bar.get_width() / 2,
                            bar.get_height()), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(endpoints)))
        ax.set_xticklabels([textwrap.fill(e.label, 20) + f"\n(of {e.total})" for e in endpoints], fontsize=7)
        ax.set_ylim(0, 1.4)
        ax.set_ylabel("fraction")
        ax.set_title(result.name, fontsize=10)
        extra = [f"{e.label}: " + ", ".join(f"{r} {e.values[r]}" for r in result.rules if r in e.values)
                 for e in result.endpoints if not e.total]
        if extra:
            ax.text(0.01, 0.98, textwrap.fill("; ".join(extra), 60), transform=ax.transAxes, fontsize=7, va="top")
        ax.legend(fontsize=7, loc="upper right", ncol=3)
    for ax in list(axes.flat)[panels:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
