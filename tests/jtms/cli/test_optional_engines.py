"""clingo and Dask are extras: without them, the commands that need them exit 2 with one line
naming the extra, and everything else still works."""

from __future__ import annotations

import sys

import pytest

import jtms.fuzz.clingo_oracle as clingo_oracle
from jtms.cli import main


@pytest.fixture
def without(monkeypatch):
    def block(*modules: str) -> None:
        for name in modules:
            monkeypatch.setitem(sys.modules, name, None)  # `import name` now raises ImportError
        monkeypatch.setattr(clingo_oracle, "clingo", None)

    return block


def test_differential_fuzzing_without_clingo_names_the_extra(without, capsys):
    without("clingo")
    code = main(["fuzz", "--differential", "--examples", "10", "--seed", "1", "--json"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "clingo is not installed: pip install 'jtms-revision[clingo]'" in err[0]


def test_rule_fuzzing_needs_no_clingo(without, capsys):
    without("clingo")
    assert main(["fuzz", "--rule", "exact", "--examples", "20", "--seed", "1", "--json"]) == 0


def test_dask_enumeration_without_dask_names_the_extra(without, capsys):
    without("dask", "dask.distributed", "distributed")
    code = main(["enumerate", "--max-n", "2", "--dask", "--workers", "1", "--json"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "pip install 'jtms-revision[dask]'" in err[0]
