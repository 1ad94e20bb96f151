"""The hot-path benchmark measures what it says: every timed audit is a new one."""

from __future__ import annotations

import itertools

import pytest

from benchmarks import bench_memory
from benchmarks.bench_memory import fresh_sets
from jtms.cli import main
from jtms.memory.memory import Memory


def test_fresh_sets_are_disjoint_while_the_evidence_lasts():
    phases = fresh_sets(1000, 10, 20, 5, seed=3)
    assert [len(p) for p in phases] == [20] * 5
    drawn = [ids for phase in phases for ids in phase]
    assert all(len(ids) == 10 == len(set(ids)) for ids in drawn)
    assert len(set(itertools.chain.from_iterable(drawn))) == 1000  # all of it, each once
    more = fresh_sets(1000, 10, 30, 5, seed=3)  # 1,500 wanted: a second shuffle after 1,000
    first = list(itertools.chain.from_iterable(ids for phase in more for ids in phase))[:1000]
    assert len(set(first)) == 1000


@pytest.mark.slow
def test_no_timed_audit_of_the_benchmark_repeats_an_earlier_one(tmp_path, monkeypatch, capsys):
    """The five phases (cold table, cold JSON, open, warm, catch-up) audit sets that no audit
    named before (the cold commands run here in process, not as children)."""
    named: list[tuple[str, ...]] = []
    audit = Memory.audit

    def recorded(self, roots, *args, **kwargs):
        named.append(tuple(roots))
        return audit(self, roots, *args, **kwargs)

    monkeypatch.setattr(Memory, "audit", recorded)

    def in_process(argv, accept=(0,)):
        if argv[3:] != ["--help"]:
            assert main(argv[3:]) in accept
        return 0.01, 0.01

    monkeypatch.setattr(bench_memory, "_process", in_process)
    # without the peer: ltms is a benchmark dependency, not a test one
    result = bench_memory.run_goals(2000, 3, 5, tmp_path, peers=False, import_rounds=1)
    assert result["integrity_ok"]
    assert len(named) == 15  # five phases of 3 rounds
    ids = list(itertools.chain.from_iterable(named))
    assert len(ids) == len(set(ids)) == 15 * 4


def test_the_history_index_probe_times_its_batches(tmp_path):
    """benchmarks/probe_history_index.py: a table of N rows, then batches of new rows, one
    line per size with one time per batch."""
    from benchmarks.probe_history_index import probe

    times = probe(2_000, 2, tmp_path)
    assert len(times) == 2 and all(t > 0 for t in times)
    assert not list(tmp_path.iterdir())  # the table's file is removed
