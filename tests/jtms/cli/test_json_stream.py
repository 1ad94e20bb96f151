"""`jtms check --json` writes its payload one claim at a time: the text must be the one
`print_json` writes for the whole payload, and the memory one claim's."""

import io
import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.cli.output import print_json, print_json_stream

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.dictionaries(st.text(), JSON, max_size=3)


def _written(write) -> str:
    buffer, saved = io.StringIO(), sys.stdout
    sys.stdout = buffer
    try:
        write()
    finally:
        sys.stdout = saved
    return buffer.getvalue()


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(FIELDS, st.lists(JSON, max_size=4), FIELDS, st.booleans())
def test_a_streamed_object_is_the_text_print_json_writes(head, items, tail, compact):
    tail = {k: v for k, v in tail.items() if k not in head and k != "claims"}
    head = {k: v for k, v in head.items() if k != "claims"}
    whole = _written(lambda: print_json({**head, "claims": items, **tail}, compact=compact))
    streamed = _written(
        lambda: print_json_stream(head, "claims", iter(items), lambda: tail, compact=compact)
    )
    assert streamed == whole
    assert json.loads(streamed) == {**head, "claims": items, **tail}


def test_check_json_never_holds_the_whole_payload(tmp_path, monkeypatch, capsys):
    # every claim's entry is written before the next report is made: the reports and
    # their dicts are never all alive at once
    from jtms.cli import main
    from theory.io.graphfile import save_graph
    from theory.model.structure import SupportStructure
    from theory.safety import check as safety

    evidence = [f"e{i}" for i in range(4)]
    claims = [f"c{i}" for i in range(30)]
    g = SupportStructure.build(
        evidence, claims, [(c, [e]) for c in claims for e in evidence[:2]] + [("c0", ["e3"])]
    )
    path = tmp_path / "g.json"
    save_graph(g, path)
    made: list[str] = []
    written_before: list[int] = []
    report_from_label = safety._report_from_label

    def spy(index, facts, claim, *rest):
        written_before.append(len(capsys.readouterr().out))
        made.append(claim)
        return report_from_label(index, facts, claim, *rest)

    monkeypatch.setattr(safety, "_report_from_label", spy)
    assert main(["check", str(path), "--json"]) == 1
    assert len(made) == 30
    assert all(n > 0 for n in written_before[1:])  # each claim written before the next is made
