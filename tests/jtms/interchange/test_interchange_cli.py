"""`jtms import|check|revise --from reasons|prov` and `jtms export --format reasons|prov`:
round trips through stored memories, the report in the JSON payloads, and bad input as one
line and exit 2 with nothing written."""

from __future__ import annotations

import json
import sys

import pytest
from interchange_cases import PRIMER_PROVN

from jtms.cli import main
from jtms.memory.memory import Memory
from theory.io.graphfile import graph_to_dict

pytest.importorskip("prov.model", reason="prov is the `prov` extra")

NETWORK = {
    "nodes": {
        "obs-a": {"text": "observation a", "justifications": []},
        "obs-b": {
            "text": "observation b",
            "justifications": [],
            "truth_value": "OUT",
            "retracted_at": "2026-01-01T00:00:00+00:00",
        },
        "obs-c": {"text": "observation c", "justifications": []},
        "belief": {
            "text": "a or b",
            "justifications": [
                {"type": "SL", "antecedents": ["obs-a"]},
                {"type": "SL", "antecedents": ["obs-b"]},
            ],
        },
        "conclusion": {
            "text": "belief and c",
            "justifications": [{"type": "SL", "antecedents": ["belief", "obs-c"]}],
        },
    },
    "nogoods": [{"id": "nogood-1", "nodes": ["obs-a", "obs-c"], "text": "a and c contradict"}],
}


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def created(location):
    Memory.create(location).close()
    return location


def stored(location):
    with Memory.open(location) as memory:
        return graph_to_dict(memory.structure()), memory.blocked_ids()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "network.json").write_text(json.dumps(NETWORK), encoding="utf-8")
    (tmp_path / "primer.provn").write_text(
        PRIMER_PROVN.replace(
            "endDocument", "  wasInvalidatedBy(exc:regionList, -, -)\nendDocument"
        ),
        encoding="utf-8",
    )
    return tmp_path


def test_reasons_import_export_import_is_the_identity(files, capsys):
    first, second = created(str(files / "one.db")), created(str(files / "two.db"))
    code, out, _ = run(
        capsys, "import", "--from", "reasons", str(files / "network.json"), "--db", first, "--json"
    )
    payload = json.loads(out)
    assert code == 0 and payload["nodes"] == 5
    assert payload["audit"]["invalidated"] == ["obs-b"] and payload["import"]["format"] == "reasons"
    assert (
        run(capsys, "export", "--format", "reasons", "--db", first, "-o", str(files / "out.json"))[
            0
        ]
        == 0
    )
    assert (
        run(capsys, "import", "--from", "reasons", str(files / "out.json"), "--db", second)[0] == 0
    )
    assert stored(first) == stored(second)
    graph, blocked = stored(second)
    assert blocked == {"obs-b"} and graph["nogoods"][0]["text"] == "a and c contradict"


@pytest.mark.slow
def test_prov_import_export_import_is_the_identity(files, capsys):
    first, second = created(str(files / "one.db")), created(str(files / "two.db"))
    code, out, _ = run(
        capsys,
        "import",
        "--from",
        "prov",
        str(files / "primer.provn"),
        "--derivations",
        "or",
        "--prov-ids",
        "prefixed",
        "--db",
        first,
    )
    assert code == 0 and "audit" in out and "verdict of" in out
    assert (
        run(capsys, "export", "--format", "prov", "--db", first, "-o", str(files / "out.json"))[0]
        == 0
    )
    assert run(capsys, "import", "--from", "prov", str(files / "out.json"), "--db", second)[0] == 0
    assert stored(first) == stored(second)
    assert stored(second)[1] == {"exc:regionList"}


def test_check_from_prov_reports_the_choice_dependent_claims(files, capsys):
    code, out, _ = run(
        capsys,
        "check",
        "--from",
        "prov",
        str(files / "primer.provn"),
        "--derivations",
        "and",
        "--json",
    )
    payload = json.loads(out)
    assert code == 0 and payload["influence_safe"]  # read with `and`, every claim has one way
    report = payload["import"]
    # node ids are full URIs by default: the same in every serialization
    assert report["audit"] == ["http://example.org/crime/regionList"]
    assert report["derivations"] == "and"
    assert [d["claim"] for d in report["choice_dependent"]] == ["http://example.org/crime/chart2"]
    code, out, _ = run(
        capsys,
        "check",
        "--from",
        "prov",
        str(files / "primer.provn"),
        "--derivations",
        "or",
        "--prov-ids",
        "prefixed",
    )
    assert code == 1 and "UNSAFE" in out
    assert (
        "verdict of 'exc:chart2' depends on --derivations: and safe, or unsafe, separate unsafe"
        in out
    )


def test_check_from_reasons_is_after_the_retractions(files, capsys):
    code, out, _ = run(capsys, "check", "--from", "reasons", str(files / "network.json"), "--json")
    claims = {c["id"]: c for c in json.loads(out)["claims"]}
    # obs-b is retracted, so belief rests on obs-a alone: safe
    assert code == 0 and claims["belief"]["minimal_justifications"] == [["obs-a"]]


def test_revise_from_prov_under_the_three_rules(files, capsys):
    retired = {}
    for rule in ("exact", "influence", "none"):
        code, out, _ = run(
            capsys,
            "revise",
            "--from",
            "prov",
            str(files / "primer.provn"),
            "--derivations",
            "or",
            "--prov-ids",
            "prefixed",
            "--audit",
            "exg:dataset1",
            "--rule",
            rule,
            "--json",
        )
        assert code == 0
        retired[rule] = set(json.loads(out)["retired"])
    assert retired["none"] == {"exg:dataset1"} <= retired["exact"] <= retired["influence"]
    assert "exc:chart2" in retired["influence"] - retired["exact"]


def test_drop_out_lists_from_the_command_line(files, capsys):
    network = json.loads(json.dumps(NETWORK))
    network["nodes"]["conclusion"]["justifications"][0]["outlist"] = ["obs-a"]
    (files / "out-list.json").write_text(json.dumps(network), encoding="utf-8")
    code, _, err = run(capsys, "check", "--from", "reasons", str(files / "out-list.json"))
    assert (
        code == 2
        and len(err.strip().splitlines()) == 1
        and "node 'conclusion': justification 0" in err
    )
    code, out, _ = run(
        capsys,
        "check",
        "--from",
        "reasons",
        str(files / "out-list.json"),
        "--drop-out-lists",
        "--json",
    )
    assert code in (0, 1)
    assert json.loads(out)["import"]["dropped_out_lists"] == [
        {"node": "conclusion", "justification": 0, "out_list": ["obs-a"]}
    ]


def test_the_recorded_labels_stand_beside_the_verdict(files, capsys):
    """A labelled network: out-lists evaluated at its labels by default, and the comparison
    with the recorded labels printed right after the verdict and beside it in --json."""
    network = json.loads(json.dumps(NETWORK))
    network["nodes"]["conclusion"]["justifications"][0]["outlist"] = ["obs-b"]
    labels = {"obs-a": "IN", "obs-b": "OUT", "obs-c": "IN", "belief": "IN", "conclusion": "OUT"}
    for node, label in labels.items():
        network["nodes"][node]["truth_value"] = label
    path = files / "labelled.json"
    path.write_text(json.dumps(network), encoding="utf-8")
    code, out, _ = run(capsys, "check", "--from", "reasons", str(path), "--json")
    payload = json.loads(out)
    assert list(payload)[:2] == ["influence_safe", "source_disagreements"]
    assert payload["source_disagreements"] == 1  # conclusion: recorded OUT, computed IN
    assert payload["import"]["out_lists"] == "labels"
    assert payload["import"]["disagreements"] == [
        {"node": "conclusion", "recorded": "OUT", "computed": "IN"}
    ]
    code, out, _ = run(capsys, "check", "--from", "reasons", str(path))
    lines = out.splitlines()
    verdict = next(k for k, line in enumerate(lines) if "claim(s) checked" in line)
    assert lines[verdict + 1].startswith("DISAGREES with the source: 1 of 5 recorded label(s)")
    code, out, _ = run(
        capsys, "revise", "--from", "reasons", str(path), "--audit", "obs-a", "--json"
    )
    assert json.loads(out)["source_disagreements"] == 1
    code, _, err = run(
        capsys, "check", "--from", "reasons", str(path), "--drop-out-lists", "--out-lists", "refuse"
    )
    assert code == 2 and "--drop-out-lists contradicts --out-lists refuse" in err


BAD = [
    (
        "reasons",
        "graph.json",
        '{"nodes": [{"id": "a", "kind": "evidence"}]}',
        "looks like a jtms graph file",
    ),
    ("reasons", "doc.provn", PRIMER_PROVN, "not an ftl-reasons network"),
    (
        "reasons",
        "loop.json",
        json.dumps(
            {
                "nodes": {
                    "p": {"justifications": []},
                    "a": {
                        "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": ["b"]}]
                    },
                    "b": {
                        "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": ["a"]}]
                    },
                }
            }
        ),
        "a cycle through out-lists",
    ),
    ("prov", "network.json", json.dumps(NETWORK), "not a PROV document (PROV-JSON)"),
    (
        "prov",
        "bundle.provn",
        "document\n prefix ex <http://example.org/>\n bundle ex:b\n  entity(ex:a)\n"
        " endBundle\nendDocument\n",
        "bundles are refused by default",
    ),
    (
        "prov",
        "informed.provn",
        PRIMER_PROVN.replace(
            "endDocument", " wasInformedBy(exc:illustrate1, exc:compose1)\nendDocument"
        ),
        "wasInformedBy is not read",
    ),
    ("prov", "plain.provn", PRIMER_PROVN, "choose how to read them with --derivations"),
]


@pytest.mark.slow
@pytest.mark.parametrize("kind, name, text, message", BAD, ids=[b[1] for b in BAD])
@pytest.mark.parametrize("command", ["import", "check"])
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    tmp_path, capsys, kind, name, text, message, command
):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    db = created(str(tmp_path / "memory.db"))
    with Memory.open(db) as memory:
        before = memory.last_event
    argv = [command, "--from", kind, str(path)] + (["--db", db] if command == "import" else [])
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err
    with Memory.open(db) as memory:
        assert memory.last_event == before and not memory.structure().nodes  # nothing written


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["check", "--from", "reasons", "F", "--derivations", "or"],
            "--derivations, --bundles, --specializations and --prov-ids read PROV documents",
        ),
        (["check", "--from", "prov", "F", "--drop-out-lists"], "PROV has no out-lists"),
        (["check", "F", "--drop-out-lists"], "need --from reasons or --from prov"),
        (["check", "--from", "prov", "--db", "x.db"], "not a stored memory"),
    ],
)
def test_options_that_do_not_fit_are_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "F").write_text("{}", encoding="utf-8")
    argv = [str(tmp_path / a) if a in ("F", "x.db") else a for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err


def test_an_export_that_cannot_be_lossless_writes_nothing(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    Memory.create(db).close()
    assert run(capsys, "add-evidence", "e", "--db", db)[0] == 0
    assert run(capsys, "add-claim", "c", "--db", db)[0] == 0  # no justification
    for fmt in ("reasons", "prov"):
        target = tmp_path / f"out.{fmt}"
        code, out, err = run(capsys, "export", "--format", fmt, "--db", db, "-o", str(target))
        assert code == 2 and len(err.strip().splitlines()) == 1 and "no justification" in err
        assert not target.exists() and not (tmp_path / f"out.{fmt}.partial").exists()


def test_without_prov_the_command_names_the_extra(files, capsys, monkeypatch):
    for name in ("prov", "prov.model"):
        monkeypatch.setitem(sys.modules, name, None)
    code, _, err = run(
        capsys,
        "check",
        "--from",
        "prov",
        str(files / "primer.provn"),
        "--derivations",
        "or",
        "--prov-ids",
        "prefixed",
    )
    assert code == 2 and "prov is not installed: pip install 'jtms-revision[prov]'" in err
    # ftl-reasons networks are read without the package
    monkeypatch.setitem(sys.modules, "reasons", None)
    assert run(capsys, "check", "--from", "reasons", str(files / "network.json"))[0] == 0


def test_revise_from_reasons_is_after_the_retractions(files, capsys):
    # obs-b is retracted in the network: belief rests on obs-a alone, so exact withdraws it
    code, out, _ = run(
        capsys,
        "revise",
        "--from",
        "reasons",
        str(files / "network.json"),
        "--audit",
        "obs-a",
        "--json",
    )
    assert code == 0 and json.loads(out)["retired"] == ["belief", "conclusion", "obs-a"]
    code, _, err = run(
        capsys, "revise", "--from", "reasons", str(files / "network.json"), "--audit", "obs-b"
    )
    assert code == 2 and "is audited already" in err


@pytest.mark.parametrize(("kind", "name"), [("reasons", "net.json"), ("prov", "doc.json")])
def test_a_source_document_is_read_bounded(tmp_path, capsys, monkeypatch, kind, name):
    """`jtms check /dev/zero --from reasons` (or prov, or a FIFO that never ends) read the
    whole stream into memory until the process was killed (SIGKILL, no message): the
    readers used Path.read_text. They now read at most MAX_GRAPH_BYTES, as a graph file is
    read (theory.io.graphfile.read_bounded), and refuse more in one line (exit 2). Shown with
    a small cap on a regular file."""
    import theory.io.graphfile

    monkeypatch.setattr(theory.io.graphfile, "MAX_GRAPH_BYTES", 1000)
    path = tmp_path / name
    path.write_text("[" + " " * 2000 + "]")
    options = ["--derivations", "and"] if kind == "prov" else []
    assert main(["check", str(path), "--from", kind, "--json", *options]) == 2
    assert "larger than 1,000 bytes, the most a source document may hold" in capsys.readouterr().err


def test_prov_mapping_choices_and_options_from_the_command_line(files, capsys):
    """The primer: its mapping choices in --json and in the report's lines; the options for
    the common alternatives change the reading and say so."""
    argv = ["check", "--from", "prov", str(files / "primer.provn"), "--derivations", "or"]
    code, out, _ = run(capsys, *argv, "--prov-ids", "prefixed", "--json")
    choices = json.loads(out)["import"]["mapping_choices"]
    # compile2 generated chart2 and records no used: chart2 is a premise through it
    assert "exc:chart2" in choices["premise_from_activity_without_used"]["nodes"]
    assert choices["generations_as_alternatives"] == {"count": 1, "nodes": ["exc:chart1"]}
    code, out, _ = run(capsys, *argv, "--prov-ids", "prefixed")
    assert "entity generated by several activities: read as alternatives" in out
    code, out, _ = run(capsys, *argv, "--prov-ids", "prefixed", "--specializations", "identity")
    assert "merged by --specializations identity" in out and "ignored 2 specializationOf" not in out
    code, _, err = run(
        capsys, "check", "--from", "reasons", str(files / "network.json"), "--prov-ids", "uri"
    )
    assert code == 2 and "read PROV documents" in err and len(err.splitlines()) == 1
