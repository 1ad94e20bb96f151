"""Every file of the ``prov`` package's own test corpus (the ProvToolbox corpus in PROV-JSON,
PROV-O, PROV-XML and PROV-N, the PROV-JSONLD examples, the malformed and unification cases)
through ``--from prov``'s reader, with the network unreachable: each file is read or refused
in one line naming the file, nothing reaches stderr, and the serializations of one document
that are read give one verdict (the same node ids, verdicts and audit).

Read with ``--derivations and`` and ``--bundles flatten`` (the readings that refuse least);
the counts by refusal reason are printed (``pytest -s``)."""

from __future__ import annotations

import json
import re
import socket
from collections import Counter, defaultdict
from pathlib import Path

import pytest

prov_model = pytest.importorskip("prov.model", reason="prov is the `prov` extra")

from jtms.interchange.prov import read_prov, verdict_table  # noqa: E402
from theory.model.errors import InputError  # noqa: E402

CORPUS = Path(prov_model.__file__).resolve().parents[1] / "tests"
SUFFIXES = {".json", ".jsonld", ".provn", ".ttl", ".trig", ".xml", ".rdf", ".nt"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir(), reason="prov's test corpus is not installed"),
]


def reason(message: str) -> str:
    """The kind of a refusal: its message less the file, the record and quoted values."""
    text = message.split(": ", 1)[1] if ": " in message else message
    text = re.sub(r"^[A-Za-z]+\(.*?\): ", "", text)  # the record, in PROV-N
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"line \d+, column \d+", "line …", text)
    return text[:100]


def test_every_file_of_the_corpus_is_read_or_refused_in_one_line(monkeypatch, capfd):
    def refuse(*args, **kwargs):
        raise OSError("network unreachable (this test)")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    assert len(files) > 1000
    refused: Counter[str] = Counter()
    verdicts: dict[str, dict[str, str]] = defaultdict(dict)
    for path in files:
        try:
            imported = read_prov(path, derivations="and", bundles="flatten")
        except InputError as error:
            message = str(error)
            assert message.startswith(f"{path}: ") and len(message.splitlines()) == 1, message
            refused[reason(message)] += 1
            continue
        table = verdict_table(imported.structure, imported.audit)
        verdicts[path.stem][str(path.relative_to(CORPUS))] = json.dumps(
            [sorted(imported.structure.nodes), sorted(table.items()), sorted(imported.audit)]
        )
    assert capfd.readouterr().err == ""
    read = sum(len(v) for v in verdicts.values())
    several = {stem: v for stem, v in verdicts.items() if len(v) > 1}
    split = {stem: v for stem, v in several.items() if len(set(v.values())) > 1}
    assert split == {}
    print(f"\n{len(files)} files: {read} read, {sum(refused.values())} refused")
    print(f"{len(several)} documents read in more than one serialization, each one verdict")
    for text, count in refused.most_common():
        print(f"{count:5d}  {text}")
    assert read > 1000
