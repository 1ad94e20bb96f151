"""A smoke run of benchmarks/bench_serve.py (the full run: 100k claims, 50 calls)."""

from __future__ import annotations

import pytest

from benchmarks.bench_serve import run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def test_bench_serve_smoke(tmp_path):
    result = run(500, 2, seed=3, folder=tmp_path)
    assert result["roots"] == 1 and result["calls"] == 2
    for path in ("in_process", "stdio", "http", "raw_http"):
        assert 0 < result[path]["p50_ms"] <= result[path]["p99_ms"]
    assert result["in_process"]["cpu_mean_ms"] > 0
    for path in ("stdio", "http", "raw_http"):
        assert result[path]["server_cpu_mean_ms"] >= 0 and result[path]["client_cpu_mean_ms"] > 0
    for path in ("stdio", "http"):
        assert result[path]["client_schema_check_p50_ms"] > 0
        assert "overhead_without_client_check_p50_ms" in result[path]
        assert result[path]["text_copy_bytes_median"] > 0


def test_bench_serve_schema_smoke(tmp_path):
    from benchmarks.bench_serve_schema import run as run_schema

    result = run_schema(2000, seed=3, folder=tmp_path)
    assert result["kept"] > 0 and result["json_bytes"] > 0
    assert set(result["check_ms"]) == {
        "derived ($ref Kept)",
        "Kept inlined",
        "kept items {type: object}",
        "published (no per-item items)",
    }
