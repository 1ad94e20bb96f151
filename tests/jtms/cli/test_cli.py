"""The CLI contract of docs/design.md section 4: JSON keys, exit codes, one-line errors."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jtms.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_and_world_is_safe(capsys):
    code, out, _ = run(capsys, "check", EXAMPLES / "and_world.json", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["influence_safe"] is True
    assert payload["claims"][0]["minimal_justifications"] == [["a", "b"]]


def test_check_or_world_reports_violations(capsys):
    code, out, _ = run(capsys, "check", EXAMPLES / "or_world.json", "--json")
    assert code == 1
    (claim,) = json.loads(out)["claims"]
    assert set(claim) >= {"id", "minimal_justifications", "influence_safe", "violations"}
    assert claim["violations"] == [
        {"kind": "alternative_support", "audit": ["a"], "surviving_justification": ["b"]},
        {"kind": "alternative_support", "audit": ["b"], "surviving_justification": ["a"]},
    ]


@pytest.mark.slow
def test_check_summary_counts_instead_of_listing(capsys):
    code, out, _ = run(capsys, "check", EXAMPLES / "or_world.json", "--summary", "--json")
    assert code == 1
    payload = json.loads(out)
    assert payload["summary"] == {
        "claims": 1,
        "active": 1,
        "unsafe": 1,
        "violations": 2,
        "counting_unsafe": 0,
        "counting_undecided": 0,
    }
    (claim,) = payload["claims"]
    assert (claim["id"], claim["influence_safe"], claim["violation_count"]) == ("claim", False, 2)
    assert [v["audit"] for v in claim["violations"]] == [["a"], ["b"]]
    code, out, _ = run(capsys, "check", EXAMPLES / "or_world.json", "--summary")
    assert code == 1
    assert "NOT influence-safe: 1 unsafe claim(s), 2" in out and "violation(s)" in out


def test_check_table_output(capsys):
    code, out, _ = run(capsys, "check", EXAMPLES / "or_world.json")
    assert code == 1
    assert "alternative_support" in out and "NOT influence-safe" in out


def test_supports_json(capsys):
    code, out, _ = run(capsys, "supports", EXAMPLES / "or_world.json", "--claim", "claim", "--json")
    assert code == 0
    assert json.loads(out) == {"claim": "claim", "minimal_justifications": [["a"], ["b"]]}


def test_supports_formula_is_kept_in_json(capsys):
    code, out, _ = run(
        capsys, "supports", EXAMPLES / "or_world.json", "--claim", "claim", "--formula", "--json"
    )
    assert code == 0
    assert json.loads(out) == {
        "claim": "claim",
        "minimal_justifications": [["a"], ["b"]],
        "formula": "a | b",
    }


def test_supports_says_what_is_true_of_a_claim_that_is_never_active(capsys, tmp_path):
    # c's one justification needs m, which has none; d's two need each other (a support loop)
    graph = tmp_path / "never.json"
    graph.write_text(
        json.dumps(
            {
                "nodes": [{"id": "a", "kind": "evidence"}]
                + [{"id": c, "kind": "claim"} for c in ("m", "c", "d", "e")],
                "justifications": [
                    {"claim": "c", "antecedents": ["a", "m"]},
                    {"claim": "d", "antecedents": ["e"]},
                    {"claim": "d", "antecedents": ["m"]},
                    {"claim": "e", "antecedents": ["d", "a"]},
                ],
            }
        )
    )
    code, out, _ = run(capsys, "supports", graph, "--claim", "c")
    text = " ".join(out.split())
    assert code == 0 and "has no justification" not in text
    assert "c is never active: its one justification can never hold" in text
    code, out, _ = run(capsys, "supports", graph, "--claim", "d")
    assert "d is never active: none of its 2 justifications can ever hold" in " ".join(out.split())
    code, out, _ = run(capsys, "supports", graph, "--claim", "m")
    assert "m has no justification: it is never active." in " ".join(out.split())
    code, out, _ = run(capsys, "supports", graph, "--claim", "c", "--formula", "--json")
    assert json.loads(out) == {"claim": "c", "minimal_justifications": [], "formula": "False"}


def test_supports_table_stops_at_fifty_rows_and_says_more_exist(capsys, tmp_path):
    # c6 <- c5, e6 | c5, f6 ... c0 <- e0 | f0: 2**7 = 128 minimal justifications
    evidence = [f"{k}{i}" for i in range(7) for k in "ef"]
    claims = [f"c{i}" for i in range(7)]
    justifications = [
        {"claim": "c0", "antecedents": ["e0"]},
        {"claim": "c0", "antecedents": ["f0"]},
    ]
    for i in range(1, 7):
        for k in "ef":
            justifications.append({"claim": f"c{i}", "antecedents": [f"c{i - 1}", f"{k}{i}"]})
    graph = tmp_path / "chain.json"
    graph.write_text(
        json.dumps(
            {
                "nodes": [{"id": e, "kind": "evidence"} for e in evidence]
                + [{"id": c, "kind": "claim"} for c in claims],
                "justifications": justifications,
            }
        )
    )
    code, out, _ = run(capsys, "supports", graph, "--claim", "c6")
    assert code == 0
    assert "│ 50 │" in out and "│ 51 │" not in out
    assert "has over 50 minimal justifications" in out and "--all" in out
    code, out, _ = run(capsys, "supports", graph, "--claim", "c6", "--all")
    assert "│ 128 │" in out and "over 50" not in out
    code, out, _ = run(capsys, "supports", graph, "--claim", "c6", "--json")
    assert len(json.loads(out)["minimal_justifications"]) == 128
    code, out, _ = run(capsys, "supports", graph, "--claim", "c6", "--limit", "3")
    assert "│ 3 │" in out and "│ 4 │" not in out and "over 50" not in out


@pytest.mark.parametrize(
    "rule,retired,active",
    [
        ("exact", ["a"], ["b", "claim"]),
        ("influence", ["a", "claim"], ["b"]),
        ("none", ["a"], ["b", "claim"]),
    ],
)
def test_revise_json(capsys, rule, retired, active):
    code, out, _ = run(
        capsys, "revise", EXAMPLES / "or_world.json", "--audit", "a", "--rule", rule, "--json"
    )
    assert code == 0
    assert json.loads(out) == {"rule": rule, "audit": ["a"], "retired": retired, "active": active}


def test_revise_reads_its_file_once(capsys, monkeypatch, tmp_path):
    """Without --audit, revise replays the audit the file records from the one read."""
    from theory.io import graphfile

    reads: list[str] = []
    read_bounded = graphfile.read_bounded

    def counted(path, *args, **kwargs):
        reads.append(str(path))
        return read_bounded(path, *args, **kwargs)

    monkeypatch.setattr(graphfile, "read_bounded", counted)
    document = json.loads((EXAMPLES / "or_world.json").read_text())
    graph = tmp_path / "ce.json"
    graph.write_text(json.dumps({**document, "counterexample": {"audit": ["a"]}}))
    code, out, _ = run(capsys, "revise", graph, "--json")
    assert code == 0 and json.loads(out)["retired"] == ["a"]
    assert reads == [str(graph)]


BAD_GRAPHS = {
    "malformed": ('{"nodes": [', "malformed JSON"),
    "duplicate": (
        {
            "nodes": [{"id": "a", "kind": "evidence"}, {"id": "a", "kind": "claim"}],
            "justifications": [],
        },
        "node 'a': duplicate id",
    ),
    "unknown_antecedent": (
        {
            "nodes": [{"id": "c", "kind": "claim"}],
            "justifications": [{"claim": "c", "antecedents": ["ghost"]}],
        },
        "node 'ghost': unknown antecedent",
    ),
    "unknown_claim": (
        {
            "nodes": [{"id": "e", "kind": "evidence"}],
            "justifications": [{"claim": "ghost", "antecedents": ["e"]}],
        },
        "node 'ghost': justification for an unknown claim",
    ),
    "justified_evidence": (
        {
            "nodes": [{"id": "e", "kind": "evidence"}, {"id": "f", "kind": "evidence"}],
            "justifications": [{"claim": "e", "antecedents": ["f"]}],
        },
        "node 'e': evidence cannot have a justification",
    ),
    "wrong_kind": (
        {"nodes": [{"id": "e", "kind": "belief"}]},
        "node 'e': kind must be 'evidence' or 'claim'",
    ),
    "antecedent_not_a_string": (
        {
            "nodes": [{"id": "e", "kind": "evidence"}, {"id": "c", "kind": "claim"}],
            "justifications": [{"claim": "c", "antecedents": ["e", 1]}],
        },
        "node 'c': justifications[0]: 'antecedents' must be a list of ids",
    ),
    "node_not_an_object": ({"nodes": ["e"]}, "nodes[0] must be an object"),
    "unknown_node_key": (
        {"nodes": [{"id": "e", "kind": "evidence", "txt": "x"}]},
        "unknown key(s) in nodes[0]: 'txt' (did you mean 'text'?)",
    ),
    "not_an_object": ([1, 2], "top level must be an object"),
}


@pytest.mark.parametrize("case", sorted(BAD_GRAPHS))
@pytest.mark.parametrize(
    "command", [["check"], ["supports", "--claim", "c"], ["revise", "--audit", "e"]]
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case, command):
    content, expected = BAD_GRAPHS[case]
    path = tmp_path / f"{case}.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    code, out, err = run(capsys, command[0], path, *command[1:])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and str(path) in err and expected in err


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["supports", "{and}", "--claim", "ghost"], "node 'ghost': unknown claim"),
        (["supports", "{and}", "--claim", "a"], "node 'a': is evidence, expected a claim"),
        (["revise", "{and}", "--audit", "a,ghost"], "node 'ghost': unknown audit id"),
        (["check", "{and}", "--claim", "ghost"], "node 'ghost': unknown claim"),
        (["check", "{missing}"], "no such file"),
    ],
)
def test_bad_ids_exit_2(capsys, argv, expected):
    replace = {"{and}": str(EXAMPLES / "and_world.json"), "{missing}": "/nonexistent/graph.json"}
    code, out, err = run(capsys, *[replace.get(a, a) for a in argv])
    assert code == 2 and out == "" and expected in err and err.count("\n") == 1


@pytest.mark.slow
def test_console_script_entry_point_usage_error():
    result = subprocess.run(
        [sys.executable, "-m", "jtms", "revise"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2
    # --audit may come from the file (a fuzzer's counterexample): GRAPH is what is missing
    assert result.stderr.count("\n") == 1 and "GRAPH" in result.stderr


def test_check_db_follows_the_stored_audits(tmp_path, capsys):
    db = tmp_path / "memory.db"
    assert run(capsys, "init", "--db", db)[0] == 0
    assert run(capsys, "import", EXAMPLES / "or_world.json", "--db", db)[0] == 0
    code, out, _ = run(capsys, "check", "--db", db, "--json")
    assert code == 1 and json.loads(out)["claims"][0]["minimal_justifications"] == [["a"], ["b"]]
    assert run(capsys, "audit", "--invalidate", "a", "--reason", "contaminated", "--db", db)[0] == 0
    code, out, _ = run(capsys, "check", "--db", db, "--json")
    assert code == 0 and json.loads(out)["claims"][0]["minimal_justifications"] == [["b"]]


def test_check_db_and_graph_are_exclusive(tmp_path, capsys):
    code, out, err = run(capsys, "check", EXAMPLES / "or_world.json", "--db", tmp_path / "x.db")
    assert code == 2 and out == "" and "not both" in err
    code, out, err = run(capsys, "check", "--db", tmp_path / "missing.db")
    assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["supports", "{or}", "--claim", "claim", "--limit", "-1"],
        ["supports", "{or}", "--claim", "claim", "--limit", "x"],
        ["check", "{or}", "--max-justifications", "-3"],
        ["check", "{or}", "--max-listed", "-3"],
    ],
)
def test_bad_counts_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main([str(EXAMPLES / "or_world.json") if a == "{or}" else a for a in argv])
    captured = capsys.readouterr()
    assert stop.value.code == 2 and captured.out == "" and captured.err.count("\n") == 1


def test_command_modules_name_the_module_that_registers_each_command():
    """COMMAND_MODULES is what registering every command module gives (a command added to a
    module without its line here would still run, through the full parser, but slower)."""
    import importlib
    import pkgutil

    import jtms.cli.commands
    from jtms.cli.console import COMMAND_MODULES, _Parser

    registered = {}
    for info in pkgutil.iter_modules(jtms.cli.commands.__path__):
        module = importlib.import_module(f"jtms.cli.commands.{info.name}")
        subparsers = _Parser(prog="jtms").add_subparsers(dest="command")
        if getattr(module, "register", None) is not None:
            module.register(subparsers)
            registered.update(dict.fromkeys(subparsers.choices, info.name))
    assert registered == COMMAND_MODULES


@pytest.mark.parametrize("command", ["check", "supports", "audit", "prove", "study", "serve"])
def test_one_command_parser_reads_its_command_as_the_full_parser_does(command):
    from jtms.cli.console import build_parser

    def subcommand_help(parser):
        action = next(a for a in parser._actions if a.dest == "command")
        return action.choices[command].format_help()

    assert subcommand_help(build_parser(command)) == subcommand_help(build_parser())
    assert list(build_parser(command)._actions[-1].choices) != list(
        build_parser()._actions[-1].choices
    )  # the one-command parser really registered less


def _modules_after(argv: list[str], wanted: str) -> list[str]:
    """The sorted names of the modules a new process had imported after ``jtms ARGV``, of
    those for which the Python expression ``wanted`` (over ``m``, a module's name) holds."""
    code = (
        "import sys\n"
        "from jtms.cli.console import main\n"
        f"main({argv!r})\n"
        f"print(sorted(m for m in sys.modules if {wanted}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stderr.strip().splitlines()[-1])


def test_a_cold_check_imports_no_other_command():
    argv = ["check", str(EXAMPLES / "and_world.json"), "--json"]
    modules = _modules_after(argv, "m.startswith('jtms.cli.commands.')")
    assert modules == ["jtms.cli.commands.theorycmds"]


def test_a_cold_audit_imports_no_sat_solver(tmp_path, capsys):
    """`jtms audit` needs the fixpoint, not the SAT stack behind minimal justifications and
    the checker (pysat and the completion encodings: about 20 ms of a one-shot process):
    :mod:`theory` loads its names on first use and the PROV reader imports the checker only
    when it reads PROV."""
    db = tmp_path / "m.db"
    assert run(capsys, "init", "--db", db)[0] == 0
    assert run(capsys, "import", EXAMPLES / "and_world.json", "--db", db)[0] == 0
    argv = ["audit", "--invalidate", "a", "--reason", "r", "--db", str(db)]
    wanted = (
        "m.split('.')[0] == 'pysat' or m in ('theory.solver.justifications', 'theory.safety.check')"
    )
    assert _modules_after(argv, wanted) == []


def test_every_name_of_theory_loads_from_its_module():
    import importlib

    import theory

    for name in theory.__all__:
        value = getattr(theory, name)
        if name not in ("GraphError", "InputError"):
            module = importlib.import_module(f"theory.{theory._MODULES[name]}")
            assert value is getattr(module, name)
    assert set(dir(theory)) >= set(theory.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        theory.nothing  # noqa: B018
