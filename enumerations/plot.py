"""The report figure: counts and time per n (matplotlib, headless; PNG, SVG or PDF)."""

from __future__ import annotations

from pathlib import Path
from typing import IO


def plot_report(payload: dict, path: "str | Path | IO[bytes]", format: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = payload["results"]
    ns = [r["n"] for r in results]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)

    left.semilogy(ns, [r["monotone_functions"] for r in results], "o-", label="monotone functions")
    left.semilogy(
        ns,
        [max(r["unique_minimal"], 1) for r in results],
        "s--",
        label="unique minimal justification",
    )
    left.semilogy(
        ns,
        [max(r["influence_exact"], 1) for r in results],
        "x:",
        markersize=9,
        label="influence = exact on every audit",
    )
    for r in results:
        left.annotate(
            f"{r['monotone_functions']:,}",
            (r["n"], r["monotone_functions"]),
            textcoords="offset points",
            xytext=(-6, 7),
            fontsize=8,
            ha="right",
        )
        if not r["theorem_holds"]:
            left.annotate(
                "FAILS",
                (r["n"], r["monotone_functions"]),
                color="red",
                textcoords="offset points",
                xytext=(0, -14),
                fontsize=9,
                ha="center",
            )
    left.set_xlabel("n (evidence items)")
    left.set_ylabel("claims (log scale)")
    left.set_title("Counts per n (theorem: the two lower curves coincide)")
    left.set_xticks(ns)
    left.grid(True, which="major", alpha=0.3)
    left.legend(loc="upper left", fontsize=8)

    seconds = [max(r["seconds"], 1e-6) for r in results]
    right.semilogy(ns, seconds, "o-", label="exhaustive run (wall-clock s)")
    for n, s in zip(ns, seconds):
        right.annotate(
            f"{s:.3g} s", (n, s), textcoords="offset points", xytext=(0, 7), fontsize=8, ha="center"
        )
    if all("cpu_seconds" in r for r in results):
        right.semilogy(
            ns,
            [max(r["cpu_seconds"], 1e-6) for r in results],
            "v--",
            alpha=0.7,
            label="CPU seconds in the shards",
        )
    slice_ = payload.get("n7_slice")
    if slice_:
        core = slice_["estimated_core_hours"] * 3600
        right.semilogy(
            [7],
            [core],
            "D",
            mfc="none",
            color="tab:red",
            label="n = 7 full run, estimated from slice (core-s)",
        )
        right.annotate(
            f"{slice_['estimated_core_hours']:,.0f} core-h",
            (7, core),
            textcoords="offset points",
            xytext=(4, 7),
            fontsize=8,
            ha="right",
            color="tab:red",
        )
        right.set_xticks(ns + [7])
        right.set_xlim(min(ns) - 0.4, 7.4)
        right.set_ylim(top=core * 30)
    else:
        right.set_xticks(ns)
    executor = payload.get("engine", {})  # the JSON key of the shard executor
    right.set_xlabel("n (evidence items)")
    right.set_ylabel("seconds (log scale)")
    right.set_title(
        f"Time per n ({executor.get('kind', '?')}, {executor.get('workers', 1)} worker(s))"
    )
    right.grid(True, which="major", alpha=0.3)
    right.legend(loc="upper left", fontsize=8)
    fig.savefig(path, dpi=120, format=format)  # format: needed for a file object
    plt.close(fig)
