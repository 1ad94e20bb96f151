"""The compiled n <= 7 kernel against the numpy kernel, and the resumable n = 7 parts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from enumerations import parts
from enumerations.compiled import (
    compiled_shard,
    function_table,
    quarter_tables,
    row_function_counts,
)
from enumerations.executor import start_executor
from enumerations.flat import flat_shard, tally_n
from enumerations.monotone import DEDEKIND, seven_rows

pytestmark = pytest.mark.slow

FIELDS = ("monotone_functions", "active", "unique_minimal", "influence_exact", "mismatches")


def _counts(tally):
    return tuple(getattr(tally, f) for f in FIELDS)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_compiled_kernel_equals_numpy_kernel_for_every_function(n):
    data = quarter_tables(n)
    compiled = compiled_shard(n, 0, data.rows)
    assert _counts(compiled) == _counts(tally_n(n))
    assert compiled.monotone_functions == DEDEKIND[n]
    assert compiled.unique_minimal == compiled.influence_exact == 2**n


def test_compiled_kernel_equals_numpy_kernel_on_sampled_n7_rows():
    rng = np.random.default_rng(15)
    total = quarter_tables(7).rows
    rows = sorted({0, 1, 2, total - 1, *rng.choice(total, size=24, replace=False).tolist()})
    for r in rows:
        assert _counts(compiled_shard(7, r, r + 1)) == _counts(flat_shard(7, r, r + 1)), r


def test_row_map_is_the_d6_list_and_row_counts_match():
    data = quarter_tables(7)
    d6 = seven_rows().d6
    for r in (0, 5, 123_456, data.rows - 1):
        b0, b1 = int(data.tables[data.row_b0[r]]), int(data.tables[data.row_b1[r]])
        assert b0 | b1 << 32 == int(d6[r])
    counts = row_function_counts(7, 4_000_000, 4_000_040)
    assert counts.tolist() == [
        compiled_shard(7, r, r + 1).monotone_functions for r in range(4_000_000, 4_000_040)
    ]
    assert row_function_counts(6).sum() == DEDEKIND[6]


def test_every_generated_n5_function_is_monotone_and_distinct():
    data = quarter_tables(5)
    seen = set()
    for r in range(data.rows):
        b1 = int(data.row_b1[r])
        for t1 in range(data.down_off[b1], data.down_off[b1 + 1]):
            ia1 = int(data.down_idx[t1])
            m = int(data.meet[data.row_b0[r], ia1])
            for t in range(data.down_off[m], data.down_off[m + 1]):
                seen.add(function_table(data, r, t, ia1))
    from enumerations.monotone import monotone_tables

    assert seen == {int(x) for x in monotone_tables(5)}


# --- parts ----------------------------------------------------------------------------------
RANGE = (6_500_000, 6_500_120)


def test_part_runs_resume_and_merge_with_coverage(tmp_path):
    out = tmp_path / "p.json"
    with start_executor() as executor:
        calls = []

        def interrupt(done, total):
            calls.append(done)
            if len(calls) == 2:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            parts.run_part(
                RANGE, out, executor, progress=interrupt, target=5_000_000, checkpoint_seconds=0.0
            )
        halfway = parts.load_part(out)
        assert not halfway.complete and halfway.done
        resumed = parts.run_part(RANGE, out, executor, target=5_000_000)
        straight = compiled_shard(7, *RANGE)
    assert resumed.complete and resumed.sessions == 2
    assert _counts(resumed.tally) == _counts(straight)
    with pytest.raises(parts.PartError):
        parts.run_part((0, 10), out, start_executor().__enter__())  # other rows


def test_merge_verifies_every_row_exactly_once():
    total = parts.rows_total()
    assert parts.coverage([(0, 10), (10, total)], total).exact
    gap = parts.coverage([(0, 10), (11, total)], total)
    assert gap.gaps == [(10, 11)] and not gap.exact
    overlap = parts.coverage([(0, 10), (9, total)], total)
    assert overlap.overlaps == [(9, 10)] and not overlap.exact
    assert parts.subtract((0, 10), [(2, 4), (6, 7)]) == [(0, 2), (4, 6), (7, 10)]


def test_cli_part_and_merge(tmp_path, capsys):
    from jtms.cli import main

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["enumerate", "--n7", "--rows", "0:50", "--out", str(a), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["complete"] and first["theorem_holds"]
    assert main(["enumerate", "--n7", "--rows", "50:90", "--out", str(b), "--json"]) == 0
    capsys.readouterr()
    assert main(["enumerate", "--merge", str(a), str(b), "--json"]) == 1  # rows 90.. missing
    merged = json.loads(capsys.readouterr().out)
    assert merged["gaps"] == [[90, parts.rows_total()]] and not merged["verified"]
    assert merged["functions_checked"] == sum(
        compiled_shard(7, 0, 90).monotone_functions for _ in [0]
    )
    assert main(["enumerate", "--merge", str(a), str(a), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["overlaps"] == [[0, 50]]


def test_cli_bad_usage_exits_2(tmp_path, capsys):
    from jtms.cli import main

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["enumerate", "--merge", str(bad)]) == 2
    assert main(["enumerate", "--merge", str(tmp_path / "missing.json")]) == 2
    assert main(["enumerate", "--n7", "--rows", "5:3", "--out", str(tmp_path / "x.json")]) == 2
    assert (
        main(["enumerate", "--n7", "--rows", "0:99999999", "--out", str(tmp_path / "x.json")]) == 2
    )
    assert main(["enumerate", "--n7", "--rows", "0:10"]) == 2  # no --out
    assert main(["enumerate", "--rows", "0:10"]) == 2  # needs --n7
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--rows" in err
