"""Test configuration: hypothesis profiles.

``ci`` (selected automatically when CI is set) is derandomized, so a CI run is repeatable;
``dev`` explores new examples each run; ``thorough`` is for long local fuzzing sessions.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """Close the run with a warning line when the Coq proofs were skipped for want of coqc
    (under CI their test module fails instead), so a green run cannot hide it."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any(
        "test_proofs_coq" in str(getattr(r, "nodeid", "") or getattr(r, "fspath", ""))
        for r in skipped
    ):
        terminalreporter.write_line(
            "WARNING: coqc is not installed, so the Coq proofs were not "
            "checked (apt-get install -y coq)",
            yellow=True,
            bold=True,
        )


# --- memory backends: one parametrised fixture runs the memory tests on SQLite and PostgreSQL ---
#
# ``memory_location`` is a factory of fresh, not yet created memory locations on one backend:
# a file path (SQLite) or ``postgresql://...?memory=NAME`` with a unique NAME (PostgreSQL, the
# server and database from JTMS_TEST_POSTGRES). Every PostgreSQL memory a test created is
# dropped afterwards. Without JTMS_TEST_POSTGRES, or with a server that cannot be reached, the
# PostgreSQL variants skip with the reason, except under CI (CI set), where they fail: CI must
# test both backends.

import uuid  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402

import pytest  # noqa: E402

BACKENDS = ("sqlite", "postgres")
_POSTGRES: dict[str, str] = {}  # cache of the one reachability check per session


def postgres_dsn() -> str:
    """The DSN of the test server (JTMS_TEST_POSTGRES), checked once; skip or fail without it."""
    in_ci = bool(os.environ.get("CI"))
    dsn = os.environ.get("JTMS_TEST_POSTGRES", "").strip()
    if "problem" not in _POSTGRES:
        problem = ""
        if not dsn:
            problem = (
                "JTMS_TEST_POSTGRES is not set (e.g. postgresql://postgres@127.0.0.1:5432/test)"
            )
        else:
            from jtms.store.postgres import server_problem

            problem = server_problem(dsn)
        _POSTGRES["problem"] = problem
    problem = _POSTGRES["problem"]
    if problem:
        if in_ci:
            pytest.fail(f"PostgreSQL backend under CI: {problem}", pytrace=False)
        pytest.skip(f"PostgreSQL backend: {problem}")
    return dsn


def postgres_location(dsn: str, name: str) -> str:
    separator = "&" if "?" in dsn else "?"
    return f"{dsn}{separator}memory={name}"


def memory_dump(location: str) -> list[str]:
    """Everything stored, to compare before and after: SQLite's own dump of a file (every
    byte of every table), the lossless export of a PostgreSQL memory."""
    if "://" not in str(location):
        import sqlite3

        connection = sqlite3.connect(location)
        try:
            return list(connection.iterdump())
        finally:
            connection.close()
    from jtms.memory.jsonl import export_lines
    from jtms.memory.memory import Memory

    with Memory.open(location) as memory:
        return list(export_lines(memory))


@pytest.fixture(params=BACKENDS)
def memory_location(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], str]]:
    """A factory of fresh memory locations on one backend (each call: a new, unused one)."""
    made: list[str] = []
    if request.param == "sqlite":
        folder = tmp_path_factory.mktemp("memory")

        def fresh() -> str:
            location = str(folder / f"m{len(made)}.db")
            made.append(location)
            return location

        yield fresh
        return
    dsn = postgres_dsn()

    def fresh_pg() -> str:
        location = postgres_location(dsn, f"test_{uuid.uuid4().hex[:16]}")
        made.append(location)
        return location

    yield fresh_pg
    from jtms.store.postgres import drop_memories

    drop_memories(made)


# --- markers: where each test lives says what it needs (CONTRIBUTING.md) ---------------------
#
# slow: files whose tests start servers, processes or long property runs, and the tests measured
# over about a second elsewhere (a name with a parameter id, ``test_x[9]``, marks that case
# only, so the small cases of a parametrised test stay in the fast run); postgres: the PostgreSQL variants and files; browser: Chromium;
# coq: coqc. The fast development loop is `-m "not slow and not postgres and not browser and not
# coq"`; the README's command and .ci/run run everything.

SLOW_FILES = frozenset(
    {
        "test_concurrency.py",
        "test_enumerate_cli.py",
        "test_enumerations_compiled.py",
        "test_explorer.py",
        "test_fuzz.py",
        "test_input_fuzz.py",
        "test_proofs_cli.py",
        "test_proofs_counting.py",
        "test_serve.py",
        "test_serve_bench.py",
        "test_serve_http.py",
        "test_store_faults.py",
        "test_studies.py",
        "test_types.py",
        "test_lint.py",
    }
)
SLOW_TESTS = frozenset(
    {
        "test_as_of.py::test_the_view_as_of_event_k_equals_a_memory_rebuilt_from_the_first_k_events",
        "test_bench_justifications.py::test_a_sweep_compares_every_graph_with_clingo",
        "test_check_memory.py::test_check_summary_counts_billions_of_violations_under_a_memory_limit",
        "test_cli.py::test_console_script_entry_point_usage_error",
        "test_completion.py::test_completion_equals_unrolled_and_brute_force",
        "test_completion.py::test_encoding_is_linear_in_a_long_loop",
        "test_completion.py::test_surviving_and_relevance_agree_with_the_oracle",
        "test_cone_cnf.py::test_every_founded_model_satisfies_the_clauses",
        "test_cone_cnf.py::test_search_over_it_equals_brute_force",
        "test_context.py::test_context_invariants_on_random_memories",
        "test_context.py::test_context_scales_linearly_on_a_chain",
        "test_context.py::test_every_intact_support_is_shown_on_a_large_memory",
        "test_diagnosis.py::test_diagnoses_match_the_definition_acyclic",
        "test_diagnosis.py::test_diagnoses_match_the_definition_with_cycles",
        "test_enumerations_flat.py::test_dask_engine_on_a_tiny_local_cluster",
        "test_enumerations_flat.py::test_kernel_on_random_functions_including_two_word_tables",
        "test_enumerations_flat.py::test_n6_count",
        "test_enumerations_flat.py::test_n7_shard_covering_a_whole_group_pays_its_build_once",
        "test_enumerations_flat.py::test_seven_variable_rows_are_the_pairs_below_g1",
        "test_enumerations_flat.py::test_shards_in_threads_do_not_share_scratch",
        "test_enumerations_graphs.py::test_checker_equals_brute_force_on_random_graphs",
        "test_enumerations_graphs.py::test_graphs_on_dask",
        "test_enumerations_graphs.py::test_jtms_check_command_agrees_on_enumerated_graphs",
        "test_enumerations_orderly.py::test_generated_counts_equal_burnsides[family1]",
        "test_enumerations_orderly.py::test_generated_counts_equal_burnsides[family2]",
        "test_enumerations_orderly.py::test_run_from_generated_classes_equals_run_over_the_walk",
        "test_exchange.py::test_each_step_gives_new_minimal_justifications",
        "test_exchange.py::test_one_pass_necessity_equals_one_fixpoint_per_member",
        "test_hostile_fuzz.py::test_every_command_refuses_hostile_values",
        "test_hostile_fuzz.py::test_every_public_method_refuses_hostile_values",
        "test_hostile_input.py::test_invalid_bytes_in_a_real_command_line",
        "test_hostile_input.py::test_serve_refuses_bad_addresses",
        "test_hostile_input.py::test_standard_output_full_in_a_real_process",
        "test_interchange_cli.py::test_bad_input_is_one_line_exit_2_and_nothing_written",
        "test_interchange_cli.py::test_prov_import_export_import_is_the_identity",
        "test_interchange_prov.py::test_export_then_import_is_the_identity",
        "test_interchange_prov.py::test_readings_are_nested_and_only_claims_downstream_of_a_derivation_depend_on_them",
        "test_interchange_reasons.py::test_export_then_import_is_the_identity",
        "test_interchange_reasons.py::test_ftl_reasons_reads_the_export_back_to_the_same_graph",
        "test_justifications.py::test_formula_evaluates_like_the_fixpoint",
        "test_justifications.py::test_sat_enumeration_equals_brute_force",
        "test_justifications.py::test_sat_enumeration_equals_sympy_dnf",
        "test_justifications.py::test_surviving_and_relevance_queries",
        "test_label_kernel.py::test_cone_oracle_decides_like_the_fixpoint_and_shrinks_and_grows",
        "test_label_kernel.py::test_kernel_budgets_never_change_an_answer",
        "test_label_kernel.py::test_kernel_labels_equal_the_reference_and_brute_force",
        "test_label_kernel.py::test_one_search_enumeration_equals_brute_force",
        "test_label_kernel.py::test_one_search_with_no_encoding_at_all",
        "test_label_kernel.py::test_unfounded_loops_give_valid_loop_formulas",
        "test_loop_families.py::test_case_files_every_method_equals_clingo_within_a_deadline",
        "test_loop_families.py::test_every_family_every_method_equals_clingo",
        "test_loop_families.py::test_the_cli_answers_the_case_files",
        "test_loop_families.py::test_a_fresh_process_answers_a_long_cycle_at_once",
        "test_loop_families.py::test_a_fresh_process_answers_hundreds_of_wide_bodies_in_one_loop",
        "test_loop_families.py::test_the_fresh_benchmark_child_times_a_first_call_and_returns_its_answer",
        "test_loop_families.py::test_the_lazy_search_alone_and_the_ranked_encoding_alone_agree_on_the_dense_file",
        "test_loop_families.py::test_the_portfolio_stops_at_the_first_arm_that_finishes_and_passes_on_every_set",
        "test_nogoods.py::test_conflict_sets_match_brute_force_acyclic",
        "test_nogoods.py::test_conflict_sets_match_brute_force_and_clingo_with_cycles",
        "test_nogoods_memory.py::test_bad_nogoods_change_nothing",
        "test_nogoods_memory.py::test_memory_diagnoses_with_audits_in_force_match_the_definition",
        "test_proofs_bounded.py::test_encoding_matches_the_revision_rules",
        "test_proofs_bounded.py::test_every_mutant_is_sat_with_a_decoded_countermodel",
        "test_proofs_bounded.py::test_monotone_definitions_count_the_dedekind_numbers[5]",
        "test_proofs_certificate.py::test_certificate_checked_by_dratify",
        "test_proofs_certificate.py::test_checkers_reject_broken_certificates[drup]",
        "test_proofs_chaining.py::test_every_step_is_unsat_with_satisfiable_hypotheses_and_a_sat_mutant",
        "test_proofs_chaining.py::test_planted_contradictory_hypotheses_are_caught",
        "test_proofs_chaining.py::test_the_cli_fails_on_a_broken_chain",
        "test_proofs_coq_missing.py::test_missing_coqc_is_visible",
        "test_proofs_faithfulness.py::test_emitted_lex_leader_keeps_every_sampled_orbit[6]",
        "test_proofs_faithfulness.py::test_emitted_lex_leader_keeps_every_sampled_orbit[7]",
        "test_proofs_faithfulness.py::test_emitted_lex_leader_keeps_every_sampled_orbit[8]",
        "test_proofs_faithfulness.py::test_emitted_lex_leader_keeps_every_sampled_orbit[9]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[3]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[4]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[5]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[6]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[7]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[8]",
        "test_proofs_faithfulness.py::test_every_part_of_every_encoding[9]",
        "test_proofs_faithfulness.py::test_planted_body_restriction_from_n_6_on_is_caught",
        "test_proofs_faithfulness.py::test_planted_over_restriction_of_the_negated_assertion_is_caught",
        "test_proofs_faithfulness.py::test_planted_strict_lex_leader_from_n_6_on_is_caught",
        "test_proofs_faithfulness.py::test_planted_z3_assertion_restriction_from_n_6_on_is_caught",
        "test_proofs_general.py::test_general_mutant_is_sat_with_a_decoded_countermodel",
        "test_proofs_general.py::test_general_statement_is_unsat[general:boundary_if]",
        "test_proofs_general.py::test_general_statement_is_unsat[general:boundary_only_if]",
        "test_proofs_general.py::test_general_statement_is_unsat[general:one_item]",
        "test_proofs_general.py::test_general_statement_is_unsat[general:refined_if]",
        "test_proofs_general.py::test_general_statement_is_unsat[general:refined_only_if]",
        "test_proofs_general.py::test_theorem_does_not_need_the_antichain_axiom",
        "test_proofs_nonvacuity.py::test_a_replaced_part_is_caught_by_the_path_comparison",
        "test_proofs_nonvacuity.py::test_every_query_has_a_model_without_its_goal[general:boundary_if]",
        "test_proofs_nonvacuity.py::test_every_query_has_a_model_without_its_goal[general:boundary_only_if]",
        "test_proofs_nonvacuity.py::test_every_query_has_a_model_without_its_goal[general:one_item]",
        "test_proofs_nonvacuity.py::test_every_query_has_a_model_without_its_goal[general:refined_if]",
        "test_proofs_nonvacuity.py::test_every_query_has_a_model_without_its_goal[general:refined_only_if]",
        "test_proofs_nonvacuity.py::test_planted_contradiction_inside_step_query_is_caught",
        "test_proofs_nonvacuity.py::test_planted_contradiction_inside_the_goal_is_caught",
        "test_proofs_nonvacuity.py::test_planted_extra_assertion_in_prove_general_is_caught",
        "test_proofs_nonvacuity.py::test_the_evaluator_agrees_with_theory_on_every_small_structure",
        "test_proofs_quantities.py::test_planted_influence_over_one_minimal_justification_is_caught",
        "test_proofs_quantities.py::test_quantities_agree_with_theory[4]",
        "test_proofs_quantities.py::test_quantities_agree_with_theory[6]",
        "test_proofs_quantities.py::test_quantities_agree_with_theory[7]",
        "test_proofs_quantities.py::test_quantities_agree_with_theory[8]",
        "test_proofs_quantities.py::test_quantities_agree_with_theory[9]",
        "test_proofs_symmetry.py::test_lex_leader_keeps_every_orbit_and_both_encodings_agree",
        "test_proofs_symmetry.py::test_unsound_variants_lose_orbits",
        "test_reconsolidation.py::test_adjacency_with_a_compressed_base_round_trips",
        "test_reconsolidation.py::test_kept_of_a_dry_run_is_what_stays_intact_after_the_audit",
        "test_reconsolidation.py::test_pointer_derivations_are_certificates",
        "test_reconsolidation.py::test_stored_memory_equals_exact_revision",
        "test_reconsolidation.py::test_support_state_matches_fixpoint_under_audits_and_reinstatements",
        "test_reviewer.py::test_a_hostile_batch_does_not_stop_the_review",
        "test_reviewer.py::test_add_evidence_refuses_hostile_calculations_at_input",
        "test_reviewer.py::test_recheck",
        "test_reviewer.py::test_review_audits_discrepancies",
        "test_reviewer.py::test_review_cli_tolerance_options_are_recorded",
        "test_reviewer.py::test_sandbox_requeues_the_rest_of_a_chunk_after_an_overrun",
        "test_reviewer.py::test_sandbox_time_limit_kills_only_the_slow_call",
        "test_reviewer.py::test_timeouts_are_refused_and_the_rest_still_checked",
        "test_reviewer.py::test_unsafe_calculations_are_refused_on_input_and_by_the_reviewer",
        "test_reviewer.py::test_whatever_the_static_check_accepts_is_evaluated_or_refused",
        "test_safety.py::test_capped_enumeration_keeps_kinds_and_survivors_exact",
        "test_safety.py::test_check_with_audits_in_force_matches_brute_force",
        "test_safety.py::test_counts_in_many_evidence_blocks_equal_the_full_check",
        "test_safety.py::test_counts_under_audit_on_a_growing_index_equal_the_full_check",
        "test_safety.py::test_every_witness_separates_the_rules",
        "test_safety.py::test_summary_counts_the_violations_of_the_full_check",
        "test_safety.py::test_under_audit_is_the_active_state_with_the_audit_in_force",
        "test_safety.py::test_verdicts_equal_brute_force_over_all_audits",
        "test_serve_contract.py::test_a_dry_run_and_a_check_page_on",
        "test_serve_contract.py::test_a_key_written_by_another_process_while_waiting_for_the_lock",
        "test_serve_contract.py::test_a_repeat_with_the_same_key_writes_nothing_even_after_a_restart",
        "test_serve_contract.py::test_long_reads_do_not_hold_the_writers_lock",
        "test_store.py::test_bad_graph_file_exits_2_and_changes_nothing",
        "test_store.py::test_bad_input_exits_2_and_changes_nothing",
        "test_store.py::test_concurrent_audits_are_serialised",
        "test_store.py::test_revisions_are_immutable_in_the_database",
        "test_store.py::test_sigkill_mid_audit_leaves_the_pre_audit_state",
        "test_strategies.py::test_audit_sequences_are_valid",
        "test_strategies.py::test_audit_sequences_contain_reinstatements",
        "test_strategies.py::test_audits_respect_bounds",
        "test_strategies.py::test_cycles_and_redundancy_and_depth_are_reachable",
        "test_strategies.py::test_depth_bound_without_cycles",
        "test_strategies.py::test_fan_in_bound",
        "test_strategies.py::test_original_positional_parameters",
        "test_strategies.py::test_rule_failures_shrink_to_a_handful_of_nodes",
        "test_theory_core.py::test_exact_is_recomputed_fixpoint",
        "test_theory_core.py::test_fixpoint_equals_kleene_iteration",
        "test_theory_core.py::test_rule_inclusions",
    }
)
MARKED_FILES = {
    "test_explorer_browser.py": "browser",
    "test_proofs_coq.py": "coq",
    "test_postgres.py": "postgres",
    "test_postgres_export.py": "postgres",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in (
        ("slow", "takes more than about a second (servers, processes, long property runs)"),
        ("postgres", "needs the PostgreSQL server of JTMS_TEST_POSTGRES"),
        ("browser", "drives Debian's chromium through Playwright"),
        ("coq", "runs coqc on proofs/coq"),
    ):
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path.name
        test_id = f"{path}::{item.originalname if isinstance(item, pytest.Function) else item.name}"
        if path in SLOW_FILES or test_id in SLOW_TESTS or f"{path}::{item.name}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        if path in MARKED_FILES:
            item.add_marker(getattr(pytest.mark, MARKED_FILES[path]))
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "postgres" in callspec.id.split("-"):
            item.add_marker(pytest.mark.postgres)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move everything that collection imported (numba, z3, sympy, the MCP SDK: millions of
    objects that live until the end) out of the collector's reach: the full collections
    during the run and pytest's own at exit then walk only what the tests create."""
    import gc

    gc.freeze()
