"""The reviewer: recorded calculations are re-executed through a whitelist parser, never
executed as Python; discrepancies become one audit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.calc.quantities import Outcome, Tolerance, compare
from jtms.calc.reviewer import recheck, recheck_all, review
from jtms.calc.safe_expr import (
    FUNCTIONS,
    UNITS,
    UnsafeExpression,
    check_expression,
    grammar_table,
    parse_expression,
)
from jtms.calc.sandbox import Sandbox
from jtms.cli import main
from jtms.memory.memory import Memory
from jtms.store.sqlite import plant_foreign_evidence

INJECTIONS = [
    "__import__('os').system('touch /tmp/jtms-pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "exec('1')",
    "eval('1+1')",
    "open('/etc/passwd').read()",
    "lambda: 1",
    "[x for x in (1, 2)]",
    "x",
    "sqrt(x=4)",
    "sympify('1')",
    "Symbol('a')",
    "'abc'",
    "sqrt.__globals__",
    "2; import os",
    "9**9**9",
    "(10**1000)**1000",
    "factorial(10**6)",
    "1 if 1 else 2",
    "a.b",
    "1 < 2",
    "meter.scale_factor",
    "meter(3)",
    "pi.evalf(10**6)",
    "E.__class__",
    "mean([[1, 2]])",
    "mean([1, 2], [3])",
    "[1, 2]",
    "mean(*[1, 2])",
    "sum(x for x in [1])",
    "__builtins__",
    "sqrt(2)[0]",
    "{1: 2}",
    "1j",
    "f'{1}'",
    "b'1'",
    "...",
    "meter if 1 else 2",
    "@",
    "m ** m",
    "5 % meter",
    "factorial(2.5)",
    "Rational(1, 0)",
    "stdev([1])",
    "min()",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_injected_expressions_are_refused(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsafeExpression):
        parse_expression(text)
    assert not (tmp_path / "jtms-pwned").exists()


@pytest.mark.parametrize(
    "text, value",
    [
        ("2*3", 6),
        ("1/3 + 1/6", sympy.Rational(1, 2)),
        ("sqrt(16)", 4),
        ("2**10", 1024),
        ("-(3 - 5) % 3", 2),
        ("factorial(5)", 120),
        ("Rational(1, 4)", sympy.Rational(1, 4)),
        ("pi", sympy.pi),
        ("binomial(5, 2)", 10),
        ("Abs(-2.5)", sympy.Rational(5, 2)),
        ("0.1 + 0.2", sympy.Rational(3, 10)),
        ("3.3333", sympy.Rational(33333, 10000)),
    ],
)
def test_arithmetic_parses(text: str, value: Any) -> None:
    assert parse_expression(text) == value


@pytest.mark.slow
def test_recheck() -> None:
    assert recheck("e", "2*3", "6") is None
    assert recheck("e", "sqrt(2)", "1.4142135623730951") is None
    assert recheck("e", "sqrt(2)", "1.41421356") is None
    wrong = recheck("e", "2*3", "7")
    assert wrong is not None and "recomputed 6" in wrong.problem
    refused = recheck("e", "__import__('os')", "0")
    assert refused is not None and refused.problem.startswith("refused")


GRAPH = {
    "nodes": [
        {"id": "dose", "kind": "evidence", "expression": "2*3", "value": "7"},
        {"id": "area", "kind": "evidence", "expression": "pi*2**2", "value": "12.566370614359172"},
        {"id": "assay", "kind": "evidence"},
        {"id": "plan", "kind": "claim"},
        {"id": "fit", "kind": "claim"},
    ],
    "justifications": [
        {"claim": "plan", "antecedents": ["dose", "assay"]},
        {"claim": "fit", "antecedents": ["area"]},
    ],
}


@pytest.mark.slow
def test_review_audits_discrepancies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps(GRAPH))
    assert main(["init", "--db", str(db)]) == 0
    assert main(["import", str(graph), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["review", "--dry-run", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["checked"] == 2 and out["audit_id"] is None
    assert [d["id"] for d in out["discrepancies"]] == ["dose"]
    assert main(["review", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["retired"] == ["dose", "plan"]
    with Memory.open(db) as memory:
        assert not memory.is_active("plan") and memory.is_active("fit")
        assert memory.open_audits() == {out["audit_id"]: ("dose",)}
    # reviewing again finds nothing new: the bad calculation is already invalidated
    assert main(["review", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["discrepancies"] == []


@pytest.mark.slow
def test_unsafe_calculations_are_refused_on_input_and_by_the_reviewer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    assert main(["init", "--db", str(db)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "add-evidence",
                "evil",
                "--expression",
                "__import__('os').getcwd()",
                "--value",
                "0",
                "--db",
                str(db),
            ]
        )
        == 2
    )
    assert "refused" in capsys.readouterr().err
    nodes: list[dict[str, str]] = GRAPH["nodes"]  # type: ignore[assignment]
    bad: dict[str, Any] = dict(
        GRAPH,
        nodes=nodes[:1]
        + [{"id": "evil", "kind": "evidence", "expression": "open('x').read()", "value": "1"}],
    )
    bad["justifications"] = []
    graph = tmp_path / "bad.json"
    graph.write_text(json.dumps(bad))
    assert main(["import", str(graph), "--db", str(db)]) == 2
    assert "refused" in capsys.readouterr().err
    # a row written behind the API's back: the reviewer refuses it and does not audit it
    with Memory.open(db) as memory:
        memory.add_evidence("ok", expression="1+1", value="2")
    plant_foreign_evidence(db, [("evil", '__import__("os").system("touch pwned")', "0")])
    with Memory.open(db) as memory:
        report = review(memory)
        assert report.discrepancies == [] and [r.id for r in report.refused] == ["evil"]
        assert report.audit is None
    assert not (tmp_path / "pwned").exists()


# --- bounded evaluation (issue 13 item 1) -----------------------------------------------------

HOSTILE = [
    "factorial(10000)",
    "10**10000",
    "99999**9999",
    "10**4000*10**4000",
    "10**3000*10**3000",
    "exp(10**10000)",
    "exp(exp(exp(10)))",
    "9**9**9",
    "binomial(10**6, 500000)",
    "sin(10**1000)",
    "1e99999",
    "Rational(10**5000, 3)",
    "2**(10**3000)",
    "(1 + 10**-3000)**(10**3000)",
    "log(0)",
    "1/0",
    "3." + "3" * 200,
    "-" * 60 + "1",
    "(" * 300 + "1" + ")" * 300,
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_are_refused_statically_with_a_reason(text: str) -> None:
    with pytest.raises(UnsafeExpression) as refusal:
        check_expression(text)
    assert refusal.value.problem


@pytest.mark.slow
@pytest.mark.parametrize("text", HOSTILE[:7])
def test_add_evidence_refuses_hostile_calculations_at_input(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    assert main(["init", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["add-evidence", "big", "--expression", text, "--value", "1", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "than 4000" in err
    assert main(["add-evidence", "big", "--expression", "1", "--value", text, "--db", str(db)]) == 2
    with Memory.open(db) as memory:
        assert "big" not in memory


@pytest.mark.slow
def test_a_hostile_batch_does_not_stop_the_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hostile expressions and recorded values next to `6*7` recorded as 41: the hostile ones
    are refused with their reasons, the 41 is still found and withdrawn."""
    db = tmp_path / "m.db"
    assert main(["init", "--db", str(db)]) == 0
    assert (
        main(["add-evidence", "wrong", "--expression", "6*7", "--value", "41", "--db", str(db)])
        == 0
    )
    assert main(["add-claim", "answer", "--because", "wrong", "--db", str(db)]) == 0
    assert (
        main(
            ["add-evidence", "third", "--expression", "10/3", "--value", "3.3333", "--db", str(db)]
        )
        == 0
    )
    plant_foreign_evidence(
        db,
        [(f"h{k}", text, "1") for k, text in enumerate(HOSTILE)]
        + [("hv", "1", "factorial(99999)"), ("hx", "__import__('os').system('touch x')", "0")],
    )
    capsys.readouterr()
    assert main(["review", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in out["discrepancies"]] == ["wrong"]
    assert out["retired"] == ["answer", "wrong"]
    assert {r["id"] for r in out["refused"]} == {f"h{k}" for k in range(len(HOSTILE))} | {
        "hv",
        "hx",
    }
    assert all(
        r["problem"].startswith("refused: ") and len(r["problem"]) > 20 for r in out["refused"]
    )
    assert out["checked"] == len(HOSTILE) + 4
    with Memory.open(db) as memory:
        assert not memory.is_active("answer") and memory.is_active("third")
    assert not (tmp_path / "x").exists()


def _sleep_then(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


@pytest.mark.slow
def test_sandbox_time_limit_kills_only_the_slow_call() -> None:
    with Sandbox(_sleep_then, workers=2, time_limit=0.5) as sandbox:
        results = sandbox.map([(0.0,), (30.0,), (0.01,), (30.0,), (0.02,)])
    assert [r.status for r in results] == ["ok", "timeout", "ok", "timeout", "ok"]
    assert results[1].reason == "took longer than 0.5 s"


@pytest.mark.slow
def test_sandbox_requeues_the_rest_of_a_chunk_after_an_overrun() -> None:
    calls = [(0.0,)] * 12
    calls[3] = calls[9] = (30.0,)
    with Sandbox(_sleep_then, workers=1, time_limit=1.0) as sandbox:
        results = sandbox.map(calls)
    assert [r.status for r in results] == ["timeout" if k in (3, 9) else "ok" for k in range(12)]


def test_sandbox_survives_a_dying_worker_and_reuses_workers() -> None:
    with Sandbox(os._exit, workers=1, time_limit=5) as sandbox:
        assert sandbox.map([(3,)])[0].reason == "worker died"
    with Sandbox(pow, workers=2, time_limit=5) as sandbox:
        assert [r.value for r in sandbox.map([(2, k) for k in range(200)])] == [
            2**k for k in range(200)
        ]
        assert sandbox.started == 2  # 200 calls, two process starts


@pytest.mark.slow
def test_timeouts_are_refused_and_the_rest_still_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = recheck_all([("6*7", "41"), ("2+2", "4")], Tolerance(), time_limit=30)
    assert [o.status for o in outcomes] == ["discrepancy", "ok"]
    monkeypatch.setattr("jtms.calc.reviewer.compare", _slow_compare)
    outcomes = recheck_all([("6*7", "41"), ("1", "1"), ("2+2", "5")], Tolerance(), time_limit=1.0)
    assert [o.status for o in outcomes] == ["discrepancy", "refused", "discrepancy"]
    assert outcomes[1].problem == "refused: evaluation took longer than 1 s"


def _slow_compare(expression: str, recorded: str, tolerance: Tolerance) -> Outcome:
    if expression == "1":
        _sleep_then(60)
    return compare(expression, recorded, tolerance)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.recursive(
            st.sampled_from(
                [
                    "2",
                    "10",
                    "0",
                    "7",
                    "3.5",
                    "1e300",
                    "1e-300",
                    "99999",
                    "pi",
                    "E",
                    "1700",
                    "meter",
                    "s",
                    "4000",
                    "0.1",
                ]
            ),
            lambda inner: st.one_of(
                st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", "%"]), inner).map(
                    lambda t: f"({t[0]}{t[1]}{t[2]})"
                ),
                st.tuples(
                    st.sampled_from(sorted(FUNCTIONS)), st.lists(inner, min_size=1, max_size=3)
                ).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            ),
            max_leaves=12,
        ),
        min_size=1,
        max_size=12,
    )
)
def test_whatever_the_static_check_accepts_is_evaluated_or_refused(texts: list[str]) -> None:
    """Property: the static check never crashes; accepted expressions are evaluated (or
    refused with a reason) by the reviewer, never crash it."""
    accepted = []
    for text in texts:
        try:
            check_expression(text)
            accepted.append(text)
        except UnsafeExpression:
            pass
    outcomes = recheck_all([(t, "1") for t in accepted], Tolerance(), time_limit=20)
    assert all(o.status in ("ok", "discrepancy", "refused") for o in outcomes)
    assert all(o.problem.startswith("refused: ") for o in outcomes if o.status == "refused")


# --- tolerances (issue 13 item 2) -------------------------------------------------------------

STATED = [
    ("10/3", "3.3333", "ok"),
    ("sqrt(2)", "1.41421356", "ok"),
    ("6*7", "41", "discrepancy"),
    ("6*7", "42", "ok"),
    ("10/3", "3.3334", "discrepancy"),
    ("10/3", "3.33", "ok"),
    ("sqrt(2)", "1.41421357", "discrepancy"),
    ("2/3", "0.6667", "ok"),
    ("2/3", "0.666", "discrepancy"),
    ("6.02214076e23", "6.022e23", "ok"),
    ("6.03e23", "6.022e23", "discrepancy"),
    ("1/3", "1/3", "ok"),
    ("1/3", "0.3333333333", "ok"),
    ("sqrt(2)", "sqrt(2)", "ok"),
    ("sqrt(2)", "sqrt(2) + 10**-40", "discrepancy"),
    ("-10/3", "-3.3333", "ok"),
    ("exp(1)", "2.718281828459045", "ok"),
    ("pi", "3.14", "ok"),
    ("pi", "3.15", "discrepancy"),
    ("sqrt(2)", "1.4142135623730951", "ok"),
    ("sqrt(2)", "1.414213562373095048801688724", "ok"),
    ("sqrt(2)", "1.414213562373095048801688725", "discrepancy"),
]


def _table(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str, str]]:
    """Statuses of a table of calculations, checked in one review pass."""
    outcomes = recheck_all([(e, r) for e, r, _ in rows], Tolerance())
    return [
        (e, r, o.status, o.problem) for (e, r, want), o in zip(rows, outcomes) if o.status != want
    ]


def test_recorded_values_compare_at_their_stated_precision() -> None:
    assert _table(STATED) == []


def test_explicit_and_exact_tolerances() -> None:
    exact, loose, tight = (
        Tolerance("exact"),
        Tolerance("explicit", 1e-3, 0),
        Tolerance("explicit", 0, 1e-9),
    )
    results = (
        recheck_all([("10/3", "3.3333")] * 3 + [("sqrt(2)", "sqrt(2)")], exact)
        + recheck_all([("10/3", "3.3333"), ("10/3", "3.3")], loose)
        + recheck_all([("10/3", "3.3333")], tight)
    )
    assert [o.status for o in results] == ["discrepancy"] * 3 + [
        "ok",
        "ok",
        "discrepancy",
        "discrepancy",
    ]
    assert results[4].allowed is not None and results[4].difference is not None


@pytest.mark.slow
def test_review_cli_tolerance_options_are_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    assert main(["init", "--db", str(db)]) == 0
    assert (
        main(
            ["add-evidence", "third", "--expression", "10/3", "--value", "3.3333", "--db", str(db)]
        )
        == 0
    )
    capsys.readouterr()
    runs = {
        (): ("ok", {"mode": "stated", "rtol": None, "atol": None}),
        ("--exact",): ("discrepancy", {"mode": "exact", "rtol": None, "atol": None}),
        ("--rtol", "1e-6"): ("discrepancy", {"mode": "explicit", "rtol": 1e-6, "atol": 0.0}),
        ("--atol", "0.001"): ("ok", {"mode": "explicit", "rtol": 0.0, "atol": 0.001}),
    }
    for options, (status, tolerance) in runs.items():
        assert main(["review", "--dry-run", "--json", *options, "--db", str(db)]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["tolerance"] == tolerance
        assert bool(out["discrepancies"]) == (status == "discrepancy"), options
        assert out["time_limit_s"] == 5.0
    assert main(["review", "--dry-run", "--time-limit", "2", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["time_limit_s"] == 2.0
    for bad in (
        ["--exact", "--rtol", "1"],
        ["--rtol", "-1"],
        ["--atol", "nan"],
        ["--time-limit", "0"],
        ["--rtol", "x"],
    ):
        assert _exit_code(["review", *bad, "--db", str(db)]) == 2, bad
        assert capsys.readouterr().err.count("\n") == 1


def _exit_code(argv: list[str]) -> int | str | None:
    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code


# --- units, statistics, functions (issue 13 item 3) -----------------------------------------

SCIENTIFIC = [
    ("3*meter", "3*meter", "ok"),
    ("300*cm", "3*m", "ok"),
    ("3*km/hour", "0.8333*m/s", "ok"),
    ("3*meter", "3*second", "discrepancy"),
    ("3*meter", "3", "discrepancy"),
    ("3*meter + 2*second", "5*meter", "discrepancy"),
    ("exp(2*meter)", "1", "discrepancy"),
    ("9.81*m/s**2 * 2*s", "19.62*m/s", "ok"),
    ("0.5*kg*(3*m/s)**2", "4.5*J", "ok"),
    ("2*newton*3*meter", "6*joule", "ok"),
    ("2*newton*3*meter", "7*joule", "discrepancy"),
    ("mean([1*m, 2*m, 6*m])", "3*m", "ok"),
    ("median([3*s, 1*s, 2*s])", "2*s", "ok"),
    ("mean([1, 2, 3, 4])", "2.5", "ok"),
    ("median([5, 1, 3, 2])", "2.5", "ok"),
    ("median([5, 1, 3])", "3", "ok"),
    ("stdev([1, 2, 3, 4])", "1.29099", "ok"),
    ("variance([1, 2, 3, 4])", "5/3", "ok"),
    ("sum([1, 2, 3.5])", "6.5", "ok"),
    ("min(4, 1, 3)", "1", "ok"),
    ("max([4, 1, 3])", "4", "ok"),
    ("max(1*m, 2*s)", "1", "discrepancy"),
    ("sin(pi/6)", "0.5", "ok"),
    ("cos(0)", "1", "ok"),
    ("atan2(1, 1)", "pi/4", "ok"),
    ("log10(1000)", "3", "ok"),
    ("log2(8)", "3", "ok"),
    ("ln(E**2)", "2", "ok"),
    ("log(8, 2)", "3", "ok"),
    ("cosh(0)", "1", "ok"),
    ("tanh(0)", "0", "ok"),
    ("round(2.5)", "3", "ok"),
    ("floor(-2.5)", "-3", "ok"),
    ("gcd(12, 18)", "6", "ok"),
    ("lcm(4, 6)", "12", "ok"),
    ("factorial(20)", "2432902008176640000", "ok"),
    ("sqrt(-1)", "1", "refused"),
    ("asin(2)", "1", "refused"),
    ("tan(pi/2)", "1", "refused"),
]


def test_units_statistics_and_functions() -> None:
    assert _table(SCIENTIFIC) == []
    outcome = recheck_all([("3*meter", "3*second")], Tolerance())[0]
    assert outcome.problem == "dimension mismatch: recomputed length, recorded time"


def test_the_grammar_is_documented_in_one_table() -> None:
    """docs/memory.md shows exactly the table generated from the parser's whitelist."""
    docs = (Path(__file__).parents[3] / "docs" / "memory.md").read_text()
    assert grammar_table() in docs
    for name in list(FUNCTIONS) + list(UNITS):
        assert f"{name}" in grammar_table()
