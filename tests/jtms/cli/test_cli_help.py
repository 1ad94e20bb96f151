"""Every command's ``--help`` (issue 58, item 5): a description, examples that start with the
command, and, for a command with ``--json``, the top-level keys of its JSON output on one
line; for the commands that run in a moment, those keys are the ones the command prints."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from jtms.cli.arguments import JSON_KEYS
from jtms.cli.console import build_parser, main

REPO = Path(__file__).resolve().parents[3]


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def listed_keys(parser: argparse.ArgumentParser) -> list[str] | None:
    found = re.search(rf"^{re.escape(JSON_KEYS)} (.+)$", parser.format_help(), re.M)
    return None if found is None else [key.strip() for key in found.group(1).split(",")]


def test_every_command_has_a_description_examples_and_its_json_keys():
    found = commands()
    assert len(found) >= 25
    for name, parser in found.items():
        text = parser.format_help()
        assert parser.description and len(parser.description) > 40, name
        examples = re.search(
            r"(?im)^ *examples?:(?: +| *\n(?: +.*\n)*? +)jtms " + re.escape(name) + r"\b", text
        )
        assert examples, f"jtms {name} --help shows no example of the command"
        takes_json = any("--json" in action.option_strings for action in parser._actions)
        if takes_json:
            keys = listed_keys(parser)
            assert keys and all(re.fullmatch(r"[a-z_]+", key) for key in keys), (name, keys)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), (argv, err)
    return json.loads(out)


def test_the_listed_keys_are_the_printed_ones(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    graph = str(REPO / "examples" / "or_world.json")
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps({"nodes": [{"id": "b1", "kind": "evidence"}]}))
    printed = {
        "init": run(capsys, "init", "--db", db),
        "add-evidence": run(capsys, "add-evidence", "e1", "--db", db),
        "add-claim": run(capsys, "add-claim", "c1", "--because", "e1", "--db", db),
        "add-nogood": run(capsys, "add-nogood", "n1", "--nodes", "c1,e1", "--db", db),
        "import": run(capsys, "import", str(batch), "--db", db),
        "audit": run(capsys, "audit", "--invalidate", "e1", "--reason", "r", "--db", db),
    }
    audit_id = str(printed["audit"]["audit_id"])
    printed |= {
        "reinstate": run(capsys, "reinstate", audit_id, "--db", db),
        "history": run(capsys, "history", "c1", "--db", db),
        "explain": run(capsys, "explain", "c1", "--db", db),
        "context": run(capsys, "context", "--budget", "100", "--db", db),
        "state": run(capsys, "state", "--db", db),
        "diagnose": run(capsys, "diagnose", "--db", db),
        "memories": run(capsys, "memories", "--db", db),
        "upgrade": run(capsys, "upgrade", "--db", db),
        "export": run(capsys, "export", "--db", db, "--output", str(tmp_path / "m.jsonl")),
        "supports": run(capsys, "supports", graph, "--claim", "claim"),
        "revise": run(capsys, "revise", graph, "--audit", "a", "--rule", "exact"),
        "check": run(capsys, "check", graph),
    }
    printed["import-memory"] = run(
        capsys, "import-memory", str(tmp_path / "m.jsonl"), "--db", str(tmp_path / "copy.db")
    )
    parsers = commands()
    for name, payload in printed.items():
        assert set(listed_keys(parsers[name]) or ()) == set(payload), name
