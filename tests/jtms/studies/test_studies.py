"""The four studies: the paper's structure, readers, seeds, budgets, decoys, oracles, the CLI.

Every endpoint is shown to move when a rule or the engine is broken: seeded wrong rules
(``and_only`` reads OR as AND; a greatest fixpoint keeps loops alive; ``none`` as exact), a
broken engine (its re-derivation keeps support loops alive), a diagnoser with a false root.
"""

from __future__ import annotations

import json

import pytest

import jtms.engine.incremental
from jtms.cli import main
from jtms.fuzz.clingo_oracle import ClingoOracle
from jtms.memory.context import HEADER, WITHDRAWN_HEADER, count_tokens
from jtms.studies import (
    DEFAULT_SEEDS,
    STUDIES,
    diagnosis_loop,
    heterogeneous,
    revisionpair,
    rules,
    run_seeds,
    run_study,
    scimap,
)
from jtms.studies.embedding import embed, embedding_bytes
from jtms.studies.readers import Answer, Question, careful, literal, parse_context
from jtms.studies.rendering import MemoryView, render
from jtms.studies.scoring import cited_descendants, contaminated_lines, grounded
from jtms.studies.sweep import sweep
from theory.model.structure import SupportStructure
from theory.semantics import revision
from theory.semantics.fixpoint import active_state

NO_SCALE = ["--scale", "none"]


def values(result, key):
    return result.endpoint(key).values


# --- seeded wrong rules and a broken engine ----------------------------------------------------
def and_only(structure: SupportStructure, audit: frozenset) -> frozenset:
    """Wrong: reads every claim's justifications as one conjunction (loses the OR grouping)."""
    merged = [
        (c, frozenset().union(*(j.antecedents for j in js)))
        for c, js in structure.justifications_of.items()
        if js
    ]
    flat = SupportStructure.build(structure.evidence, structure.claims, merged)
    before = active_state(structure)
    return frozenset(before - active_state(flat, blocked=audit)) & before


def greatest_fixpoint(structure: SupportStructure, audit: frozenset) -> frozenset:
    """Wrong: a support loop keeps itself alive (greatest instead of least fixpoint)."""
    before = active_state(structure)
    alive = set(before) - set(audit)
    changed = True
    while changed:
        changed = False
        for claim in structure.claims:
            if claim in alive and not any(
                j.antecedents <= alive for j in structure.justifications_of[claim]
            ):
                alive.discard(claim)
                changed = True
    return frozenset(before - alive)


@pytest.fixture
def engine_keeps_loops(monkeypatch):
    """Break the production engine: its support region is only the audited roots, so a claim
    that lost its support may switch to a justification through another retracted claim (a
    support loop keeps itself alive)."""
    monkeypatch.setattr(
        jtms.engine.incremental.SupportState, "support_region", lambda self, roots: list(roots)
    )
    # planted in the planner's Python oracle (tests/retract_oracle.py, which
    # tests/jtms/memory/test_retract_kernel.py holds the compiled planner to), made the engine's planner
    from tests.retract_oracle import reference_plan

    monkeypatch.setattr(
        jtms.engine.incremental.SupportState,
        "plan_retract",
        lambda self, roots: reference_plan(self, tuple(dict.fromkeys(roots))),
    )


# --- RevisionPair -------------------------------------------------------------------------------
@pytest.mark.slow
def test_revisionpair_endpoints():
    result = revisionpair.run()
    assert values(result, "worlds_repaired_exactly") == {"exact": 80, "none": 40, "influence": 40}
    assert values(result, "and_worlds_repaired") == {"exact": 40, "none": 0, "influence": 40}
    assert values(result, "or_worlds_repaired") == {"exact": 40, "none": 40, "influence": 0}
    assert values(result, "agrees_with_clingo")["exact"] == 80
    lit, car = (
        values(result, "decisions_grounded.literal"),
        values(result, "decisions_grounded.careful"),
    )
    assert lit["exact"] == car["exact"] == 80
    assert lit["none"] < car["none"] < 80 and car["influence"] == 40
    assert result.endpoint("worlds_repaired_exactly").construction
    assert not result.endpoint("decisions_grounded.careful").construction
    assert result.details["pairs_influence_cannot_distinguish"] == 40
    assert result.failures() == []


@pytest.mark.slow
def test_pairs_identical_but_for_grouping():
    worlds = revisionpair.generate()
    assert len(worlds) == 80
    for and_world, or_world in zip(worlds[0::2], worlds[1::2]):
        assert (and_world.grouping, or_world.grouping) == ("AND", "OR")
        assert all(revisionpair.pair_check(and_world, or_world).values())
        a, o = revisionpair.stored_tables(and_world), revisionpair.stored_tables(or_world)
        assert a["nodes"] == o["nodes"] and a["justifications"] != o["justifications"]
        assert and_world.audit == or_world.audit and and_world.decision == or_world.decision
    assert worlds[0].influence_record() != worlds[2].influence_record()
    assert not revisionpair.pair_check(worlds[0], worlds[3])[
        "texts_times_embeddings_edges_identical"
    ]


def test_embedding_is_deterministic_and_discriminating():
    assert embed("the kinase inhibitor raises the response") == embed(
        "the kinase inhibitor raises the response"
    )
    assert embed("the kinase inhibitor raises the response") != embed("coral bleaching lowers it")
    assert abs(sum(v * v for v in embed("any text at all")) - 1.0) < 1e-4
    assert embedding_bytes(embed("x")) == embedding_bytes(embed("x"))
    assert revisionpair.generate() == revisionpair.generate()


@pytest.mark.slow
def test_revisionpair_catches_a_wrong_rule():
    result = revisionpair.run(rules={"exact": and_only}, pairs=10)
    assert values(result, "worlds_repaired_exactly")["exact"] == 10
    assert {"worlds_repaired_exactly", "agrees_with_clingo", "decisions_grounded.careful"} <= set(
        result.failures()
    )


@pytest.mark.slow
def test_revisionpair_catches_a_loop_kept_alive():
    result = revisionpair.run(rules={"exact": greatest_fixpoint}, pairs=10)
    assert (
        values(result, "and_worlds_repaired")["exact"] < 10
    )  # c <- b, d keeps itself when a fails
    assert "worlds_repaired_exactly" in result.failures()


# --- SciMap -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_scimap_has_the_papers_structure():
    spaces = scimap.generate()
    assert len(spaces) == 20 and sum(len(s.questions) for s in spaces) == 140
    propagated = sum(
        len((active_state(s.structure) - active_state(s.structure, blocked=s.audit)) - s.audit)
        for s in spaces
    )
    assert propagated == 40
    assert all(len(s.branch) == 3 for s in spaces)
    # support loops: the main chain's loop loses its entry; the branch's keeps outside support
    looped = [
        s
        for s in spaces
        if any(
            j.claim.endswith("interp_a")
            and len(j.antecedents) == 2
            and any(a.endswith("mech_a") for a in j.antecedents)
            for j in s.structure.justifications
        )
    ]
    assert len(looped) == 15
    assert 0 < sum(s.joined for s in spaces) < 20


@pytest.mark.slow
def test_scimap_endpoints():
    result = scimap.run()
    assert values(result, "propagated_repaired") == {"exact": 40, "none": 0, "influence": 40}
    assert values(result, "branches_preserved")["exact"] == 20
    assert values(result, "branches_preserved")["none"] == 20
    assert values(result, "branches_preserved")["influence"] < 20
    lit, car = (
        values(result, "grounded_answers.literal"),
        values(result, "grounded_answers.careful"),
    )
    assert lit["exact"] == car["exact"] == 140
    assert lit["none"] < car["none"] < 140 and car["influence"] < 140
    # contamination as the paper counts it (citations of withdrawn descendants in answers)
    assert values(result, "cited_descendants.literal")["exact"] == 0
    assert values(result, "cited_descendants.literal")["none"] > 0
    assert (
        values(result, "contaminated_lines")["none"]
        > 0
        == values(result, "contaminated_lines")["exact"]
    )
    assert values(result, "answered_withdrawn.careful")["none"] == 40
    assert result.failures() == []


@pytest.mark.slow
def test_scimap_catches_wrong_rules():
    result = scimap.run(rules={"exact": revision.none})
    assert {
        "propagated_repaired",
        "cited_descendants.literal",
        "grounded_answers.literal",
        "contaminated_lines",
        "agrees_with_clingo",
    } <= set(result.failures())
    looped = scimap.run(rules={"exact": greatest_fixpoint})
    assert {"propagated_repaired", "agrees_with_clingo", "grounded_answers.careful"} <= set(
        looped.failures()
    )
    over = scimap.run(rules={"exact": revision.influence})
    assert {"branches_preserved", "grounded_answers.careful"} <= set(over.failures())


@pytest.mark.slow
def test_every_study_catches_a_broken_engine(engine_keeps_loops, tmp_path):
    assert {
        "propagated_repaired",
        "agrees_with_clingo",
        "grounded_answers.careful",
        "cited_descendants.literal",
    } <= set(scimap.run().failures())
    assert {"worlds_repaired_exactly", "agrees_with_clingo", "decisions_grounded.careful"} <= set(
        revisionpair.run(pairs=6).failures()
    )
    assert {"repaired", "agrees_with_clingo", "grounded.careful"} <= set(
        diagnosis_loop.run(episodes=6, directory=tmp_path).failures()
    )
    assert {"agrees_with_clingo", "engine_state_checked", "decisions_grounded.careful"} <= set(
        heterogeneous.run().failures()
    )


# --- diagnosis ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_diagnosis_has_decoys_kinds_and_double_discrepancies():
    episodes = diagnosis_loop.generate()
    assert sum(len(e.decoys) for e in episodes) >= 10
    assert len({d for e in episodes for d in e.decoys}) >= 3
    assert len({k for e in episodes for k in e.kinds}) >= 3
    assert 0 < sum(len(e.wrong) == 2 for e in episodes) < 20


@pytest.mark.slow
def test_diagnosis_endpoints(tmp_path):
    result = diagnosis_loop.run(directory=tmp_path, scales=(300,))
    assert values(result, "premise_identified")["exact"] == 20
    assert values(result, "repaired")["exact"] == 20 and values(result, "repaired")["none"] == 0
    assert values(result, "agrees_with_clingo")["exact"] == 20
    assert values(result, "grounded.careful")["exact"] == 20
    assert (
        values(result, "grounded.literal")["none"] == 0 < values(result, "grounded.careful")["none"]
    )
    assert 0 < values(result, "median_repair_ms")["exact"] < 5000
    assert values(result, "scale_checked_300")["exact"] == 1
    assert 0 < values(result, "median_repair_ms_300")["exact"] < 5000
    assert len(result.details["latencies_ms"]) == 20
    assert result.failures() == []


@pytest.mark.slow
def test_the_reviewer_ignores_decoys_and_finds_every_kind():
    from jtms.calc.reviewer import recheck

    for episode in diagnosis_loop.generate(seed=11, episodes=20):
        for node in episode.document["nodes"]:
            if "expression" in node:
                found = recheck(node["id"], node["expression"], node["value"]) is not None
                assert found == (node["id"] in episode.wrong), node


@pytest.mark.slow
def test_diagnosis_false_root_lowers_identified_repaired_grounded(tmp_path):
    def with_false_root(memory):
        roots = diagnosis_loop.reviewer_roots(memory)
        prefix = next(iter(roots)).split("_")[0]
        correct = sorted(
            f"{prefix}_calc{i}"
            for i in range(6)
            if f"{prefix}_calc{i}" in memory and f"{prefix}_calc{i}" not in roots
        )
        return roots | {correct[0]}

    result = diagnosis_loop.run(episodes=6, directory=tmp_path, diagnose=with_false_root)
    assert values(result, "premise_identified")["exact"] == 0
    assert values(result, "repaired")["exact"] == 0
    assert values(result, "grounded.careful")["exact"] == 0
    assert values(result, "agrees_with_clingo")["exact"] == 6  # the engine did what it was told


@pytest.mark.slow
def test_diagnosis_catches_a_wrong_rule(tmp_path):
    result = diagnosis_loop.run(rules={"exact": and_only}, episodes=6, directory=tmp_path)
    assert {"repaired", "grounded.careful", "agrees_with_clingo"} <= set(result.failures())


# --- heterogeneous ------------------------------------------------------------------------------
@pytest.mark.slow
def test_heterogeneous_endpoints():
    result = heterogeneous.run()
    for key in (
        "cases_repaired_exactly",
        "agrees_with_theory",
        "agrees_with_clingo",
        "engine_state_checked",
        "decisions_grounded.careful",
        "decisions_grounded.literal",
    ):
        assert values(result, key)["exact"] == 20, key
    assert values(result, "cases_repaired_exactly")["none"] < 20
    assert values(result, "cases_repaired_exactly")["influence"] < 20
    assert result.failures() == []


@pytest.mark.slow
def test_heterogeneous_catches_a_loop_keeping_itself_alive():
    result = heterogeneous.run(rules={"exact": greatest_fixpoint})
    assert values(result, "cases_repaired_exactly")["exact"] < 20
    assert {"agrees_with_clingo", "decisions_grounded.careful"} <= set(result.failures())
    bad = [row["case"] for row in result.details["cases"] if not row["rules"]["exact"]["repaired"]]
    assert "unsupported loop" in bad


@pytest.mark.slow
def test_clingo_oracle_least_fixpoint():
    s = SupportStructure.build(
        ["e", "f"],
        ["a", "b", "p", "q"],
        [("a", ["e"]), ("a", ["b"]), ("b", ["a"]), ("p", []), ("q", ["p", "f"])],
    )
    oracle = ClingoOracle(s)
    assert oracle.active() == active_state(s)
    assert oracle.active(["e"]) == {"f", "p", "q"} == active_state(s, blocked=["e"])
    assert oracle.active(["p"]) == {"e", "f", "a", "b"}


# --- readers, scoring, rendering ----------------------------------------------------------------
CONTEXT = "\n".join(
    [
        HEADER,
        "- [evidence] e1: an observation",
        "- [claim] c1: first (because e1)",
        "- [claim] c2: second (because c1 and x)",
        "- [claim] c3: third (because y)",
        WITHDRAWN_HEADER,
        "- x (audit 3: bad source)",
    ]
)


@pytest.mark.slow
def test_readers_read_only_the_context():
    parsed = parse_context(CONTEXT)
    assert parsed.claims["c2"] == ("c1", "x") and parsed.withdrawn == {"x"}
    q = {t: Question("q", t, "") for t in ("c1", "c2", "c3", "x", "zzz")}
    assert literal(CONTEXT, q["c2"]) == Answer("supported", ("c1", "e1", "x"))
    assert careful(CONTEXT, q["c2"]) == Answer("withdrawn")  # follows the chain to x
    assert literal(CONTEXT, q["c3"]).verdict == "supported"
    assert careful(CONTEXT, q["c3"]).verdict == "unknown"  # y has no line
    assert careful(CONTEXT, q["c1"]) == Answer("supported", ("e1",))
    for reader in (literal, careful):
        assert reader(CONTEXT, q["x"]) == Answer("withdrawn")
        assert reader(CONTEXT, q["zzz"]) == Answer("unknown")
    assert parse_context(
        HEADER + "\n- [claim] c: t (because a and b; also supported by d)"
    ).claims == {"c": ("a", "b")}


def test_scoring():
    truth = frozenset({"e1", "c1"})
    assert grounded(literal(CONTEXT, Question("q", "c1", "")), Question("q", "c1", ""), truth)
    assert not grounded(literal(CONTEXT, Question("q", "c2", "")), Question("q", "c2", ""), truth)
    assert grounded(careful(CONTEXT, Question("q", "c2", "")), Question("q", "c2", ""), truth)
    answers = [Answer("supported", ("c2", "e1")), Answer("supported", ("c2", "x"))]
    assert cited_descendants(answers, frozenset({"c2"})) == 2
    assert contaminated_lines(CONTEXT, truth) == 4  # c2, c3 as active, x and y as support


@pytest.mark.slow
def test_render_respects_the_budget_and_never_drops_support():
    spaces = scimap.generate(workspaces=4)
    from jtms.studies.trial import revise

    for space in spaces:
        for budget in (None, 200, 90, 40, 10):
            with rules.new_memory() as memory:
                memory.import_graph(space.structure)
                outcomes = revise(
                    memory, space.structure, space.audit, rules.resolve_rules(None), budget, "x"
                )
            for outcome in outcomes.values():
                text = outcome.context
                if budget is not None:
                    assert sum(count_tokens(line) for line in text.splitlines()) <= budget
                parsed = parse_context(text)
                shown = set(parsed.claims) | parsed.evidence
                for claim, because in parsed.claims.items():
                    # a claim enters with its certificate: every antecedent has a line or is
                    # withdrawn by the rule (evidence lines only for active evidence)
                    for a in because:
                        assert a in shown or a not in outcome.active, (claim, a)
    view = MemoryView({"e": "x"}, ("e",), {}, ("w",))
    assert render(view, None) == "\n".join(
        [HEADER, "- [evidence] e: x", WITHDRAWN_HEADER, "- w (audit 1: study audit)"]
    )
    assert render(view, 0) == ""
    # the focus of a question enters first: here only one unit fits, and it is the focus's
    one_unit = count_tokens(HEADER) + count_tokens("- [evidence] e: x") + 1
    assert render(view, one_unit, focus="e") == "\n".join([HEADER, "- [evidence] e: x"])
    assert render(view, one_unit, focus="w") == "\n".join(
        [WITHDRAWN_HEADER, "- w (audit 1: study audit)"]
    )
    assert render(view, one_unit, focus="nothing") == render(view, one_unit)


@pytest.mark.slow
@pytest.mark.parametrize(
    "study,options",
    [
        ("scimap", {"workspaces": 8}),
        ("revisionpair", {"pairs": 6}),
        ("heterogeneous", {}),
        ("diagnosis", {"episodes": 4}),
    ],
)
def test_tight_budgets_never_let_exact_ground_fewer_than_none(study, options):
    result = sweep(study, [2000, 150, 100, 60, 30], [DEFAULT_SEEDS[study], 7], run_study, **options)
    assert result.violations == []
    careful_exact = result.series["exact/careful"]
    assert careful_exact[0] == result.total and careful_exact[-1] < result.total


# --- seeds --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_seeds_summary_and_construction_checks():
    summary = run_seeds("scimap", [1, 2, 3])
    assert summary.seeds == [1, 2, 3] and summary.failures == {}
    for e in summary.endpoints:
        for _column, v in e.values.items():
            assert v["min"] <= v["mean"] <= v["max"]
        if e.construction:
            assert all(v["min"] == v["max"] for v in e.values.values()), e.key
    varying = summary.endpoints[
        [e.key for e in summary.endpoints].index("grounded_answers.careful")
    ]
    assert varying.values["none"]["min"] < varying.values["none"]["max"]


@pytest.mark.slow
def test_other_seeds_same_pattern(tmp_path):
    pairs = revisionpair.run(seed=7, pairs=5)
    assert values(pairs, "worlds_repaired_exactly") == {"exact": 10, "none": 5, "influence": 5}
    maps = scimap.run(seed=2, workspaces=6)
    assert maps.failures() == [] and values(maps, "grounded_answers.careful")["exact"] == 42
    episodes = diagnosis_loop.run(seed=5, episodes=4, directory=tmp_path)
    assert episodes.failures() == [] and values(episodes, "repaired")["exact"] == 4
    assert heterogeneous.run(seed=9).failures() == []


# --- the answerer hook --------------------------------------------------------------------------
def abstain(context_text: str, question: Question) -> Answer:
    return Answer("unknown")


@pytest.mark.slow
def test_answerer_hook_in_every_study(tmp_path):
    keys = {
        "revisionpair": "decisions_grounded.answerer",
        "scimap": "grounded_answers.answerer",
        "diagnosis": "grounded.answerer",
        "heterogeneous": "decisions_grounded.answerer",
    }
    for name in STUDIES:
        options = {"directory": tmp_path, "episodes": 3} if name == "diagnosis" else {}
        result = run_study(name, answerer=abstain, **options)
        assert values(result, keys[name])["exact"] == 0, name
        assert result.failures() == [], name  # no expectation on a foreign answerer


# --- CLI ----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_json_and_plot(tmp_path, capsys):
    figure = tmp_path / "h.png"
    assert main(["study", "heterogeneous", "--json", "--plot", str(figure)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] and payload["studies"][0]["study"] == "heterogeneous"
    assert payload["studies"][0]["seed"] == 4 and payload["budget"] == 2000
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_cli_seeds_budget_and_sweep(tmp_path, capsys):
    assert main(["study", "scimap", "--seeds", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["studies"][0]
    assert summary["seeds"] == [1, 2]
    grounded_row = next(e for e in summary["endpoints"] if e["key"] == "grounded_answers.careful")
    assert set(grounded_row["values"]["none"]) == {"mean", "min", "max"}
    assert main(["study", "revisionpair", "--seed", "5", "--budget", "150"]) == 0
    out = capsys.readouterr().out
    assert "construction check" in out and "seed 5" in out
    figure = tmp_path / "sweep.svg"
    assert (
        main(["study", "heterogeneous", "--sweep", "400,100,40", "--json", "--plot", str(figure)])
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] and payload["sweep"][0]["budgets"] == [400, 100, 40]
    assert figure.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    "argv",
    [
        ["--seeds", "0"],
        ["--budget", "-3"],
        ["--sweep", "100,x"],
        ["--seed", "abc"],
        ["--scale", "0"],
    ],
)
def test_cli_bad_numbers_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as error:
        main(["study", "scimap"] + argv)
    assert error.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["missing-dir/h.png", "h.txt"])
def test_cli_bad_plot_path_is_bad_input(tmp_path, capsys, name):
    figure = tmp_path / name
    assert main(["study", "revisionpair", "--plot", str(figure)]) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and len(err.strip().splitlines()) == 1
    assert not figure.exists()


@pytest.mark.slow
def test_cli_exit_1_when_the_exact_rule_is_wrong(monkeypatch, capsys):
    monkeypatch.setitem(rules.DEFAULT_RULES, "exact", and_only)
    assert main(["study", "revisionpair"]) == 1
    assert "FAILED" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_all_table(capsys):
    assert main(["study", "all", "--scale", "200"]) == 0
    out = capsys.readouterr().out
    for name in ("revisionpair", "scimap", "diagnosis", "heterogeneous"):
        assert name in out
    assert "80/80" in out and "140/140" in out and "careful reader" in out


def test_cli_bad_name():
    with pytest.raises(SystemExit) as error:
        main(["study", "nope"])
    assert error.value.code == 2


@pytest.mark.slow
def test_cli_answerer_hook(capsys):
    assert main(["study", "scimap", "--answerer", "jtms.studies.readers:careful"]) == 0
    assert "answerer reader" in capsys.readouterr().out
    assert main(["study", "scimap", "--answerer", "jtms.studies.readers:no_such_thing"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return None", "returned NoneType None, expected jtms.studies.Answer"),
        ("return 'yes'", "returned str 'yes', expected jtms.studies.Answer"),
        ("raise RuntimeError('model down')", "raised RuntimeError: model down"),
    ],
)
def test_a_misbehaving_answerer_is_one_line_exit_2(body, expected, tmp_path, monkeypatch, capsys):
    module = f"bad_answerer_{abs(hash(body))}"
    (tmp_path / f"{module}.py").write_text(f"def answer(context, question):\n    {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["study", "scimap", "--answerer", f"{module}:answer"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().splitlines() == [
        f"jtms: error: --answerer {module}:answer {expected}"
    ]


def test_scale_beyond_its_bound_is_refused_before_any_work(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["study", "diagnosis", "--scale", "9223372036854775807"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "--scale" in err[-1] and "at most 1,000,000" in err[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["revisionpair", "--seeds", "20001"],  # about three hours (a fuzzing pass ran it)
        ["all", "--seeds", "100"],
        ["diagnosis", "--seeds", "4", "--scale", "1000000,1000000"],  # the scales, per seed
        ["scimap", "--seeds", "600", "--sweep", "2000,200,120,80"],  # the budgets, per seed
    ],
)
def test_a_long_study_run_is_refused_without_yes_before_any_work(capsys, monkeypatch, argv):
    """A run estimated above five minutes is exit 2 with its estimate, before any study runs
    (jtms.studies.run_study is not called); the same run with --yes is let through."""
    import jtms.studies

    started = []

    def refuse(*args, **kwargs):
        started.append(args)
        raise RuntimeError("a study ran")

    monkeypatch.setattr(jtms.studies, "run_study", refuse)
    assert main(["study", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "pass --yes" in err[-1] and "estimated" in err[-1]
    assert started == []
    with pytest.raises(RuntimeError, match="a study ran"):
        main(["study", *argv, "--yes"])


@pytest.mark.slow
def test_a_short_study_run_needs_no_yes(capsys):
    assert main(["study", "scimap", "--seeds", "2"]) == 0
    assert "seeds 1, 2" in capsys.readouterr().out
