"""``jtms prove``: JSON and table output, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json

import pytest

from jtms.cli import main
from proofs.results import ProofResult

pytestmark = pytest.mark.slow


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["prove", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_prove_json_all_statements(capsys):
    code, payload = run_json(capsys, "--max-n", "3", "--statements", "all")
    assert code == 0 and payload["ok"] and payload["solvers_agree"]
    rows = payload["results"]
    proved = [r for r in rows if not r["mutant"]]
    mutants = [r for r in rows if r["mutant"]]
    assert {(r["statement"], r["n"]) for r in proved if r["solver"] == "z3"} == {
        (s, n)
        for s in ("boundary", "refined", "inclusion", "one_item", "audit_criterion")
        for n in (1, 2, 3)
    }
    assert all(r["result"] == "UNSAT" for r in proved)
    assert {(r["statement"], r["n"]) for r in proved if r["statement"].startswith("counting")} == {
        (s, n)
        for s in ("counting_criterion", "counting_criterion_claims", "counting_criterion_all")
        for n in (1, 2, 3)
    }
    # 5 support-function mutants on cadical and z3, 2 graph mutants on cadical (no z3 encoding)
    assert len(mutants) == 12 and all(r["result"] == "SAT" and r["countermodel"] for r in mutants)
    assert set(rows[0]) >= {"statement", "n", "solver", "result", "seconds"}


def test_prove_certifies_with_dratify(capsys, tmp_path):
    pytest.importorskip("dratify")
    code, payload = run_json(
        capsys,
        "--max-n",
        "3",
        "--solvers",
        "cadical",
        "--mutants-n",
        "0",
        "--certify-max-n",
        "3",
        "--certificate-dir",
        str(tmp_path),
    )
    assert code == 0
    certified = [r for r in payload["results"] if r["certificate"]]
    assert [(r["n"], r["certificate"]) for r in certified] == [
        (n, "DRUP checked by dratify") for n in (1, 2, 3)
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"boundary-n{n}.{ext}" for n in (1, 2, 3) for ext in ("cnf", "drup")
    )


def test_prove_general_table(capsys):
    code = main(["prove", "--max-n", "2", "--solvers", "cadical", "--general"])
    out = capsys.readouterr().out
    assert code == 0
    for column in ("statement", "solver", "result", "seconds"):
        assert column in out
    assert "general:boundary_only_if" in out and "SAT (mutant)" in out
    assert "every mutant is refuted" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--solvers", "minisat"],
        ["--max-n", "0"],
        ["--statements", "nope"],
        ["--min-n", "4", "--max-n", "3"],
        ["--timeout", "0", "--general"],
        ["--z3-max-n", "-1"],
    ],
)
def test_bad_usage_exits_2(argv, capsys):
    assert main(["prove", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1  # one line, stderr


def _fake(result: str):
    def solve(name, n, solver, symmetry=False):
        return ProofResult(
            name,
            n,
            solver,
            result if solver == "z3" else "UNSAT",
            0.0,
            expected="SAT" if "~" in name else "UNSAT",
            mutant="~" in name,
        )

    return solve


def test_a_sat_statement_or_solver_disagreement_exits_1(monkeypatch, capsys):
    import proofs.bounded

    monkeypatch.setattr(proofs.bounded, "solve", _fake("SAT"))
    code, payload = run_json(capsys, "--max-n", "1", "--mutants-n", "0")
    assert code == 1 and not payload["ok"] and not payload["solvers_agree"]


def test_an_unsat_mutant_exits_1(monkeypatch, capsys):
    import proofs.bounded

    monkeypatch.setattr(proofs.bounded, "solve", _fake("UNSAT"))
    code, payload = run_json(capsys, "--max-n", "1", "--mutants-n", "2")
    assert code == 1 and payload["solvers_agree"]
    assert [r["ok"] for r in payload["results"] if r["mutant"]] == [False, False]


def test_export_writes_dimacs_and_smtlib_that_other_solvers_can_check(capsys, tmp_path):
    import z3
    from pysat.formula import CNF
    from pysat.solvers import Solver

    code, payload = run_json(
        capsys,
        "--max-n",
        "3",
        "--statements",
        "boundary,refined",
        "--export",
        str(tmp_path / "out"),
    )
    assert code == 0
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "boundary-n3.cnf" in files and "refined-n2.smt2" in files
    assert "boundary--at_most_two-n3.smt2" in files and len(files) == 2 * (2 * 3 + 2)
    for path in (tmp_path / "out").iterdir():
        mutant = "--" in path.name
        if path.suffix == ".cnf":
            with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
                assert s.solve() == mutant, path.name
        else:
            solver = z3.Solver()
            solver.from_file(str(path))
            assert solver.check() == (z3.sat if mutant else z3.unsat), path.name


@pytest.mark.parametrize("target", ["file", "missing-parent"])
def test_export_to_an_unwritable_place_exits_2_before_any_work(
    target, tmp_path, capsys, monkeypatch
):
    import proofs.bounded

    def no_work(*args, **kwargs):
        raise AssertionError("solved before checking --export")

    monkeypatch.setattr(proofs.bounded, "solve", no_work)
    blocker = tmp_path / "file"
    blocker.write_text("")
    where = blocker if target == "file" else blocker / "sub"
    assert main(["prove", "--max-n", "2", "--export", str(where)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert blocker.read_text() == ""


def test_disagreement_is_found_in_proofs_not_in_the_cli():
    from proofs.results import SAT, UNSAT, disagreement

    same = [ProofResult("boundary", 4, s, UNSAT, 0.0) for s in ("cadical", "z3")]
    assert disagreement(same) is None
    differ = disagreement([same[0], ProofResult("boundary", 4, "z3", SAT, 0.0)])
    assert differ is not None and differ.to_dict() == {
        "statement": "boundary",
        "n": 4,
        "answers": {"cadical": "UNSAT", "z3": "SAT"},
    }
    with pytest.raises(ValueError, match="different questions"):
        disagreement([same[0], ProofResult("refined", 4, "z3", UNSAT, 0.0)])


def test_export_probe_never_touches_a_users_files(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".jtms-write-test").write_text("my notes")
    assert main(["prove", "--max-n", "1", "--mutants-n", "0", "--export", str(out)]) == 0
    assert (out / ".jtms-write-test").read_text() == "my notes"
    assert not [p for p in out.iterdir() if p.name.startswith(".jtms-write-test-")]
    folder = tmp_path / "out2"
    (folder / ".jtms-write-test").mkdir(parents=True)
    assert main(["prove", "--max-n", "1", "--mutants-n", "0", "--export", str(folder)]) == 0
    assert (folder / ".jtms-write-test").is_dir()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--max-n", "1", "--mutants-n", "99999999999999999999"], "--mutants-n"),
        (["--min-n", "99999999999999999999", "--max-n", "99999999999999999999"], "--max-n"),
        (["--min-n", "40", "--max-n", "40", "--mutants-n", "0"], "--max-n"),
        (["--max-n", "1", "--mutants-n", "0", "--general", "--timeout", "inf"], "--timeout"),
        (["--max-n", "1", "--mutants-n", "0", "--general", "--timeout", "1e10"], "--timeout"),
    ],
)
def test_sizes_and_timeouts_beyond_what_proofs_can_do_exit_2(argv, flag, capsys):
    assert main(["prove", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert flag in captured.err


def test_z3_timeout_is_never_zero_and_never_overflows():
    from proofs.general import timeout_ms

    assert timeout_ms(1e-9) == 1  # z3 reads 0 as "no limit"
    assert timeout_ms(0.0015) == 2
    assert timeout_ms((2**32 - 1) / 1000) == 2**32 - 1
    for bad in (0.0, -1.0, float("inf"), float("nan"), 1e10):
        with pytest.raises(ValueError):
            timeout_ms(bad)


def test_a_sat_step_whose_smallest_model_search_times_out_keeps_its_model(monkeypatch):
    import z3

    from proofs.general import GENERAL, prove_general
    from proofs.results import SAT

    real = z3.Solver.check
    calls = {"n": 0}

    def check(self, *args):
        calls["n"] += 1
        return real(self, *args) if calls["n"] == 1 else z3.unknown  # every later check times out

    monkeypatch.setattr(z3.Solver, "check", check)
    mutant = next(name for name, spec in GENERAL.items() if spec.mutant_of)
    result = prove_general(mutant, timeout_s=60)
    assert result.result == SAT and result.countermodel is not None


def test_prove_counting_certified_and_general(capsys):
    pytest.importorskip("dratify")
    code, payload = run_json(
        capsys,
        "--max-n",
        "3",
        "--statements",
        "counting_criterion",
        "--solvers",
        "cadical,glucose",
        "--certify-max-n",
        "3",
        "--general",
    )
    assert code == 0 and payload["ok"]
    rows = {(r["statement"], r["n"], r["solver"]): r for r in payload["results"]}
    for n in (1, 2, 3):
        assert rows["counting_criterion", n, "glucose"]["result"] == "UNSAT"
        certified = rows["counting_criterion", n, "cadical+dratify"]
        assert certified["certificate"] == "DRUP checked by dratify"
    loop = rows["counting_criterion~no_loop", 3, "cadical"]
    assert loop["result"] == "SAT" and loop["countermodel"]["witness_audit"]
    for name in ("general:counting_criterion_if", "general:counting_criterion_only_if"):
        assert rows[name, None, "z3 (first-order, graphs)"]["result"] == "UNSAT"
