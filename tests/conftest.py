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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
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


# --- markers: set on each test or its module (CONTRIBUTING.md) -------------------------------
#
# ``slow`` (over about a second), ``postgres``, ``browser`` and ``coq`` are set where the test is:
# ``@pytest.mark.slow`` on the function, ``pytestmark`` on the module, ``pytest.param(...,
# marks=...)`` on a slow case of a parametrised test; the PostgreSQL variant of
# ``memory_location`` carries ``postgres`` itself. The fast development loop is
# ``-m "not slow and not postgres and not browser and not coq"``; in that run a test that is not
# marked slow and takes more than FAST_BUDGET_S CPU seconds fails, so the loop stays fast.

FAST_BUDGET_S = float(os.environ.get("JTMS_FAST_BUDGET_S", "3"))
"""CPU seconds (this process and the processes it waited for) a test of the fast loop may
take; CPU time, not wall time, so a loaded machine does not fail it. 0 switches it off."""
CPU_USED = pytest.StashKey[float]()


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have been waited for."""
    import resource

    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in (
        ("slow", "takes more than about a second (servers, processes, long property runs)"),
        ("postgres", "needs the PostgreSQL server of JTMS_TEST_POSTGRES"),
        ("browser", "drives Debian's chromium through Playwright"),
        ("coq", "runs coqc on proofs/coq"),
    ):
        config.addinivalue_line("markers", f"{name}: {meaning}")


def fast_run(config: pytest.Config) -> bool:
    """Whether this run is the fast loop: its ``-m`` expression leaves the slow tests out."""
    expression = " ".join(str(config.getoption("markexpr", "") or "").split())
    return "not slow" in expression


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    start = cpu_seconds()
    yield
    item.stash[CPU_USED] = cpu_seconds() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """In the fast loop, a test over FAST_BUDGET_S CPU seconds that is not marked slow fails:
    mark it."""
    outcome = yield
    report = outcome.get_result()
    used = item.stash.get(CPU_USED, 0.0)
    if (
        call.when == "call"
        and report.passed
        and FAST_BUDGET_S > 0
        and fast_run(item.config)
        and item.get_closest_marker("slow") is None
        and used > FAST_BUDGET_S
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} took {used:.1f} CPU-s in the fast loop (budget "
            f"{FAST_BUDGET_S:g}, JTMS_FAST_BUDGET_S): mark it @pytest.mark.slow"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move everything that collection imported (numba, z3, sympy, the MCP SDK: millions of
    objects that live until the end) out of the collector's reach: the full collections
    during the run and pytest's own at exit then walk only what the tests create."""
    import gc

    gc.freeze()
