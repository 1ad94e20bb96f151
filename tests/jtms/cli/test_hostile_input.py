"""Issue 33: no input crashes jtms and no output path is clobbered. One test (or a few) per
defect class of the issue, on both backends where a memory is involved: every bad input is
:class:`InputError` (the API) or exit 2 with one line on stderr (the CLI), and nothing is
written (the memory's events, the bytes of a file that must not change)."""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jtms.cli import main
from jtms.memory.memory import Memory
from tests.cli_helpers import refused, small_memory
from theory.model.errors import InputError

HUGE = "9" * 5000  # past Python's 4,300-digit limit of int <-> str


@pytest.fixture
def location(memory_location: Callable[[], str]) -> str:
    """A memory on one backend: evidence e1, e2 and claim c1 <- e1."""
    return small_memory(memory_location())


def events(location: str) -> int:
    with Memory.open(location) as memory:
        return memory.last_event


# --- 1. output paths --------------------------------------------------------------------------


def _export(capsys: pytest.CaptureFixture[str], location: str, target: Path | str) -> int:
    capsys.readouterr()
    code = main(["export", "--db", location, "-o", str(target)])
    return code


def test_export_through_a_symlink_keeps_the_link(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert _export(capsys, location, link) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith('{"format":"jtms-memory"')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "target.jsonl"]


def test_export_to_a_fifo_writes_through_it(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        assert _export(capsys, location, fifo) == 0
        received = reader.communicate(timeout=30)[0]
    finally:
        reader.kill()
    assert received.startswith(b'{"format":"jtms-memory"')
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_export_to_devices_and_dash(location: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _export(capsys, location, "/dev/null") == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert _export(capsys, location, "-") == 0
    assert capsys.readouterr().out.startswith('{"format":"jtms-memory"')
    err = refused(capsys, ["export", "--db", location, "-o", "/dev/full"], "no space left")
    assert "cannot write the export" in err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_hard_linked_file_is_written_in_place(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "a.jsonl"
    first.write_text("old\n")
    os.link(first, tmp_path / "b.jsonl")
    assert _export(capsys, location, first) == 0
    assert os.stat(first).st_nlink == 2
    assert (tmp_path / "b.jsonl").read_text() == first.read_text() != "old\n"


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_failed_write_keeps_the_old_file(
    location: str,
    tmp_path: Path,
    code: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A full disk or a read-only file system at the rename: exit 2, one line, the old file
    and no temporary file left; cleaning up raises no second error."""
    target = tmp_path / "m.jsonl"
    target.write_text("old\n")

    def fail(*_: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", fail)
    refused(
        capsys,
        ["export", "--db", location, "-o", str(target)],
        "no space left" if code == errno.ENOSPC else "read-only file system",
    )
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.jsonl"]


def test_a_new_file_is_replaced_with_its_mode_kept(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "m.jsonl"
    target.write_text("old\n")
    target.chmod(0o600)
    assert _export(capsys, location, target) == 0
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert _export(capsys, location, tmp_path / "new.jsonl") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.jsonl", "new.jsonl"]


def test_directories_and_link_loops_are_refused(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    refused(capsys, ["export", "--db", location, "-o", str(tmp_path / "loop")], "link loop")
    refused(capsys, ["export", "--db", location, "-o", str(tmp_path)], "is a directory")


# --- 2. integers past 4,300 digits ------------------------------------------------------------


def test_huge_integers(location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = events(location)
    graph = tmp_path / "huge.json"
    graph.write_text('{"nodes": [{"id": "x", "kind": "evidence", "text": ' + HUGE + "}]}")
    refused(capsys, ["import", str(graph), "--db", location], "number")
    graph.write_text('{"nodes": [{"id": ' + HUGE + ', "kind": "evidence"}]}')
    refused(capsys, ["import", str(graph), "--db", location], "number")
    refused(capsys, ["check", str(graph)], "number")
    refused(capsys, ["explain", "c1", "--as-of", HUGE, "--db", location])
    refused(capsys, ["reinstate", HUGE, "--db", location])
    refused(capsys, ["context", "--budget", HUGE, "--db", location])
    with Memory.open(location) as memory:
        for call in (
            lambda: memory.reinstate(10**5000),
            lambda: memory.as_of(10**5000),
            lambda: memory.events(after=10**5000),
            lambda: memory.context(10**5000),
            lambda: memory.withdrawn(10**5000),
        ):
            with pytest.raises(InputError):
                call()
    assert events(location) == before


def test_huge_integers_in_an_export_row(
    location: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    memory_location: Callable[[], str],
) -> None:
    exported = tmp_path / "m.jsonl"
    assert main(["export", "--db", location, "-o", str(exported)]) == 0
    lines = exported.read_text().splitlines()
    row = next(k for k, line in enumerate(lines) if '"table":"nodes"' in line)
    for number in (HUGE, str(2**70)):
        record = json.loads(lines[row])
        changed = (
            lines[:row]
            + [json.dumps(record).replace('"event": 2', f'"event": {number}')]
            + lines[row + 1 :]
        )
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(changed) + "\n")
        target = memory_location()
        refused(capsys, ["import-memory", str(bad), "--db", target], "line")
        with pytest.raises(InputError):
            Memory.open(target).close()  # nothing was created


# --- 3. text that is not valid UTF-8 -----------------------------------------------------------


def test_surrogates_and_invalid_bytes(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = events(location)
    graph = tmp_path / "surrogate.json"
    graph.write_text('{"nodes": [{"id": "x", "kind": "evidence", "text": "a\\ud800b"}]}')
    refused(capsys, ["import", str(graph), "--db", location], "UTF-8")
    graph.write_text('{"nodes": [{"id": "a\\ud800b", "kind": "evidence"}]}')
    refused(capsys, ["import", str(graph), "--db", location], "surrogate")
    # undecodable bytes in argv arrive as lone surrogates (surrogateescape)
    refused(capsys, ["add-evidence", "\udcff", "--db", location], "not valid UTF-8")
    for flag in ("--text", "--author"):
        refused(capsys, ["add-evidence", "new", flag, "a\udcffb", "--db", location], "UTF-8")
    refused(
        capsys, ["audit", "--invalidate", "e1", "--reason", "\udcff", "--db", location], "UTF-8"
    )
    assert events(location) == before


@pytest.mark.slow
def test_invalid_bytes_in_a_real_command_line(tmp_path: Path) -> None:
    """The bytes really come from the operating system (one subprocess)."""
    db = tmp_path / "m.db"
    Memory.create(db).close()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "add-evidence", b"\xff", "--db", str(db)],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1, done.stderr
    assert b"not valid UTF-8" in done.stderr
    with Memory.open(db) as memory:
        assert memory.last_event == 1


# --- 4. bounded reads -------------------------------------------------------------------------


def test_reads_are_bounded(
    location: str,
    capsys: pytest.CaptureFixture[str],
    memory_location: Callable[[], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import jtms.memory.jsonl
    import theory.io.graphfile

    monkeypatch.setattr(theory.io.graphfile, "MAX_GRAPH_BYTES", 1 << 20)
    monkeypatch.setattr(jtms.memory.jsonl, "MAX_LINE", 1 << 20)
    before = events(location)
    refused(capsys, ["import", "/dev/zero", "--db", location], "larger than 1,048,576 bytes")
    target = memory_location()
    refused(capsys, ["import-memory", "/dev/zero", "--db", target], "longer than 1,048,576")
    refused(
        capsys,
        ["serve", "--db", location, "--http", "127.0.0.1:0", "--token-file", "/dev/zero"],
        "longer than 4096 bytes",
    )
    assert events(location) == before


# --- 5. environment values and ranges ---------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["inf", "1e300", "-1", "abc", "nan", HUGE],
    ids=["inf", "1e300", "-1", "abc", "nan", "huge"],
)
def test_busy_timeout_from_the_environment(
    location: str, value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = events(location)
    monkeypatch.setenv("JTMS_BUSY_TIMEOUT", value)
    refused(capsys, ["add-evidence", "new", "--db", location], "JTMS_BUSY_TIMEOUT")
    with pytest.raises(InputError, match="JTMS_BUSY_TIMEOUT"):
        Memory.open(location)
    monkeypatch.delenv("JTMS_BUSY_TIMEOUT")
    assert events(location) == before


@pytest.mark.parametrize(
    "value",
    ["x", -1, float("inf"), float("nan"), 1e300, True, 10**5000],
    ids=["x", "-1", "inf", "nan", "1e300", "True", "huge"],
)
def test_busy_timeout_keyword(location: str, value: object) -> None:
    with pytest.raises(InputError, match="busy_timeout"):
        Memory.open(location, busy_timeout=value)  # type: ignore[arg-type]
    with Memory.open(location, busy_timeout=0.5) as memory:
        assert memory.last_event == 4


def test_time_limits_and_budgets(location: str, capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("1e300", "inf", "0", "-1", "nan"):
        refused(capsys, ["review", "--time-limit", value, "--db", location], "--time-limit")
    refused(capsys, ["context", "--budget", "-5", "--db", location], "budget")
    with Memory.open(location) as memory:
        with pytest.raises(InputError, match="budget"):
            memory.context(-5)
        with pytest.raises(InputError, match="timeout"):
            memory.wait_for_change(timeout=float("inf"))


# --- 6. standard output full or closed --------------------------------------------------------


class _Full(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_standard_output_full_or_closed(
    location: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for argv in (
        ["state", "--db", location, "--json"],
        ["export", "--db", location],
        ["explain", "c1", "--db", location],
    ):
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdout", _Full())
        code = main(argv)
        monkeypatch.undo()
        err = capsys.readouterr().err
        assert code == 2 and "No space left" in err and len(err.strip().splitlines()) == 1, err
    monkeypatch.setattr(sys, "stdout", None)
    code = main(["state", "--db", location])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2 and "standard output is closed" in err and err.count("\n") == 1


@pytest.mark.slow
def test_standard_output_full_in_a_real_process(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.create(db) as memory:
        for k in range(300):
            memory.add_evidence(f"e{k}", text="x" * 100)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    for redirect in ("> /dev/full", ">&-"):
        done = subprocess.run(
            f"{sys.executable} -m jtms export --db {db} {redirect}",
            shell=True,
            capture_output=False,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
        assert done.returncode == 2, (redirect, done.stderr)
        assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr, done.stderr


# --- 7. names the CLI cannot name ---------------------------------------------------------------


def test_one_id_length_everywhere(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from theory.model.ids import MAX_ID_LENGTH

    before = events(location)
    long_id = "x" * (MAX_ID_LENGTH + 1)
    refused(capsys, ["add-evidence", long_id, "--db", location], f"at most {MAX_ID_LENGTH}")
    graph = tmp_path / "long.json"
    graph.write_text(json.dumps({"nodes": [{"id": "y" * 1_000_000, "kind": "evidence"}]}))
    refused(capsys, ["import", str(graph), "--db", location], f"at most {MAX_ID_LENGTH}")
    with Memory.open(location) as memory:
        with pytest.raises(InputError, match=f"at most {MAX_ID_LENGTH}"):
            memory.add_claim(long_id, [["e1"]])
        with pytest.raises(InputError, match=f"at most {MAX_ID_LENGTH}"):
            memory.add_nogood("n", ["e1", long_id])
    assert events(location) == before
    with Memory.open(location) as memory:  # the longest id is accepted, and named again
        memory.add_evidence("z" * MAX_ID_LENGTH)
    assert main(["explain", "z" * MAX_ID_LENGTH, "--db", location]) == 0


def test_file_names_too_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, ["init", "--db", str(tmp_path / ("x" * 300))], "too long")
    refused(capsys, ["state", "--db", str(tmp_path / ("x" * 300) / "m.db")], "too long")
    refused(
        capsys,
        ["export", "--db", str(tmp_path / "m.db"), "-o", str(tmp_path / ("x" * 300))],
        "too long",
    )


# --- 8. the Python API --------------------------------------------------------------------------

API_CASES: list[tuple[str, Callable[[Memory], object], str]] = [
    ("audit(5)", lambda m: m.audit(5, "r"), "roots"),  # type: ignore[arg-type]
    ("audit(None)", lambda m: m.audit(None, "r"), "roots"),  # type: ignore[arg-type]
    ("audit([['e1']])", lambda m: m.audit([["e1"]], "r"), "roots"),  # type: ignore[list-item]
    ("audit reason=5", lambda m: m.audit(["e1"], 5), "reason"),  # type: ignore[arg-type]
    ("preview(5)", lambda m: m.preview(5), "roots"),  # type: ignore[arg-type]
    ("kept(5)", lambda m: m.kept(5), "roots"),  # type: ignore[arg-type]
    ("history(['e1'])", lambda m: m.history(["e1"]), "node_id"),  # type: ignore[arg-type]
    ("explain(5)", lambda m: m.explain(5), "node_id"),  # type: ignore[arg-type]
    ("is_active(None)", lambda m: m.is_active(None), "node_id"),  # type: ignore[arg-type]
    ("context('10')", lambda m: m.context("10"), "budget"),  # type: ignore[arg-type]
    ("context(-5)", lambda m: m.context(-5), "budget"),
    ("context(100, query=5)", lambda m: m.context(100, query=5), "query"),  # type: ignore[arg-type]
    ("add_nogood('nz', [['e1']])", lambda m: m.add_nogood("nz", [["e1"]]), "nodes"),  # type: ignore[list-item]
    ("events(after='a')", lambda m: m.events(after="a"), "after"),  # type: ignore[arg-type]
    ("events(until=1.5)", lambda m: m.events(until=1.5), "until"),  # type: ignore[arg-type]
    ("text=5", lambda m: m.add_evidence("new", text=5), "text"),  # type: ignore[arg-type]
    ("text=None", lambda m: m.add_evidence("new", text=None), "text"),  # type: ignore[arg-type]
    ("author=5", lambda m: m.add_claim("new", [["e1"]], author=5), "author"),  # type: ignore[arg-type]
    ("justifications=[[5]]", lambda m: m.add_claim("new", [[5]]), "justifications"),  # type: ignore[list-item]
    (
        "add_justification antecedents='e1'",
        lambda m: m.add_justification("c1", "e1"),
        "antecedents",
    ),
    ("reinstate('2')", lambda m: m.reinstate("2"), "audit_id"),  # type: ignore[arg-type]
    ("withdrawn('3')", lambda m: m.withdrawn("3"), "limit"),  # type: ignore[arg-type]
    ("diagnose(-1)", lambda m: m.diagnose(-1), "limit"),
    ("table('sqlite_master')", lambda m: m.table("sqlite_master"), "table"),
    ("as_of([1])", lambda m: m.as_of([1]), "as_of"),  # type: ignore[arg-type]
    ("import_graph(5)", lambda m: m.import_graph(5), "graph"),  # type: ignore[arg-type]
    ("set_durability('fast')", lambda m: m.set_durability("fast"), "durability"),
    ("wait_for_change(timeout='x')", lambda m: m.wait_for_change(timeout="x"), "timeout"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("name, call, argument", API_CASES, ids=[c[0] for c in API_CASES])
def test_every_public_method_refuses_bad_arguments(
    location: str, name: str, call: Callable[[Memory], object], argument: str
) -> None:
    with Memory.open(location) as memory:
        before = memory.last_event
        with pytest.raises(InputError) as raised:
            call(memory)
        assert argument in str(raised.value) and "\n" not in str(raised.value)
        assert "NOT NULL" not in str(raised.value)
        assert memory.last_event == before and "new" not in memory


def test_open_and_create_refuse_bad_arguments(location: str) -> None:
    for bad in (5, None, "", "   ", "a\x00b", b"m.db"):
        with pytest.raises(InputError, match="location"):
            Memory.open(bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="durability"):
        Memory.open(location, durability=1)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="busy_timeout"):
        Memory.create(":memory:", busy_timeout="x")  # type: ignore[arg-type]


# --- 9. PostgreSQL URLs and NUL ----------------------------------------------------------------


def test_a_unix_socket_url_works() -> None:
    from conftest import postgres_dsn

    postgres_dsn()  # skips without a server
    socket_dir = "/var/run/postgresql"
    if not os.path.exists(os.path.join(socket_dir, ".s.PGSQL.5432")):
        pytest.skip("no PostgreSQL socket in /var/run/postgresql")
    from jtms.store.postgres import drop_memories

    url = f"postgresql:///test?host={socket_dir}&user=postgres&memory=issue33_socket"
    try:
        with Memory.create(url) as memory:
            memory.add_evidence("e1")
        with Memory.open(url) as memory:
            assert "e1" in memory
    finally:
        drop_memories([url])


def test_url_parameters_go_to_libpq_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import postgres_dsn

    from jtms.store.postgres.location import parse_location

    dsn = postgres_dsn()
    assert (
        parse_location("postgresql:///db?host=/run/pg&memory=lab&sslmode=disable").conninfo
        == "postgresql:///db?host=/run/pg&sslmode=disable"
    )
    separator = "&" if "?" in dsn else "?"
    refused(
        capsys,
        ["init", "--db", f"{dsn}{separator}connect_timeout=abc&memory=issue33_ct"],
        "connect_timeout",
    )


def test_nul_is_refused_on_both_backends(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = events(location)
    messages = set()
    with Memory.open(location) as memory:
        for call in (
            lambda: memory.add_evidence("n", text="a\x00b"),
            lambda: memory.add_claim("n", [["e1"]], author="a\x00"),
            lambda: memory.audit(["e1"], reason="r\x00"),
            lambda: memory.add_nogood("n", ["e1"], text="\x00"),
        ):
            with pytest.raises(InputError, match="NUL") as raised:
                call()
            messages.add(str(raised.value).split(" ", 1)[1])
    assert messages == {"contains a NUL character"}
    graph = tmp_path / "nul.json"
    graph.write_text('{"nodes": [{"id": "n", "kind": "evidence", "text": "a\\u0000b"}]}')
    refused(capsys, ["import", str(graph), "--db", location], "NUL")
    refused(capsys, ["add-evidence", "n", "--text", "a\x00b", "--db", location], "NUL")
    assert events(location) == before


# --- 10. serve addresses ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "address",
    ["[::1:0", "::1:0", "[]:0", "[::1]:99999", "a b:1", "127.0.0.1:" + HUGE, "[::1]"],
    ids=["open-bracket", "bare-ipv6", "empty", "port", "space", "huge", "no-port"],
)
def test_serve_refuses_bad_addresses(
    tmp_path: Path, address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    Memory.create(db).close()
    refused(capsys, ["serve", "--db", str(db), "--http", address], "--http")


# --- 11. messages that name the problem ---------------------------------------------------------


def test_messages_name_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    refused(capsys, ["state", "--db", ""], "location is empty")
    monkeypatch.setenv("JTMS_DB", "")
    (tmp_path / "loop.db").symlink_to(tmp_path / "loop.db")
    for command in ("state", "init"):
        err = refused(capsys, [command, "--db", str(tmp_path / "loop.db")], "link loop")
        assert "no memory here" not in err
    db = tmp_path / "m.db"
    with Memory.create(db) as memory:
        with pytest.raises(InputError, match="text must be a string, got NoneType"):
            memory.add_evidence("e", text=None)  # type: ignore[arg-type]
