"""Every error of the CLI is one line on stderr, whatever the message it reports holds: a
driver's message over several lines (psycopg's lost connection), line breaks of every kind,
and the libraries' own log records (psycopg's "error ignored terminating <Pipeline>" after a
lost connection), which Python's last-resort handler would print beside the CLI's line.

The PostgreSQL tests start a private server (Debian's initdb and pg_ctl, run as the user
``postgres`` when the tests run as root) and SIGKILL every one of its processes while the
CLI writes: at each point of a write (a test seam of :class:`jtms.memory.memory.Memory`), and
at random moments under a stream of writes; then the server is started again and the memory
is checked (nothing committed is lost, integrity intact).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jtms.cli import main
from theory.model.errors import InputError, one_line

ROOT = Path(__file__).resolve().parents[3]
BREAKS = ["\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", BREAKS, ids=[repr(b) for b in BREAKS])
def test_one_line_joins_every_kind_of_line_break(brk):
    text = f"server closed the connection unexpectedly{brk}\tThis probably means{brk}x"
    assert one_line(text) == "server closed the connection unexpectedly This probably means x"
    assert len(str(InputError(text, source=f"a{brk}b")).splitlines()) == 1


class _Spread(InputError):
    """An error whose text spans lines however it was made (as a driver's can)."""

    def __str__(self) -> str:
        return "first line\nsecond line\r\n\tthird line\u2028fourth"


def test_the_console_prints_a_multi_line_message_as_one_line(capsys, monkeypatch, tmp_path):
    from jtms.memory.memory import Memory

    def refuse(*args, **kwargs):
        raise _Spread("unused")

    monkeypatch.setattr(Memory, "open", refuse)
    code = main(["add-evidence", "e1", "--db", str(tmp_path / "m.db")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "jtms: error: first line second line third line fourth\n"


def test_a_lost_postgres_connection_is_one_line(capsys, monkeypatch, tmp_path):
    """psycopg's message for a server gone mid-statement spans three lines."""
    psycopg = pytest.importorskip("psycopg")
    from jtms.memory.memory import Memory
    from jtms.store.postgres.connection import fault

    lost = psycopg.OperationalError(
        "consuming input failed: server closed the connection unexpectedly\n"
        "\tThis probably means the server terminated abnormally\n"
        "\tbefore or while processing the request."
    )

    def refuse(*args, **kwargs):
        raise fault(lost, "postgresql://postgres@host/db?memory=m")

    monkeypatch.setattr(Memory, "open", refuse)
    assert main(["audit", "--invalidate", "e1", "--reason", "r", "--db", "x.db"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "lost the connection to PostgreSQL" in err
    assert "abnormally before or while" in err


LOGGING_SCRIPT = textwrap.dedent(
    """
    import logging, sys
    from jtms.memory.memory import Memory
    from jtms.cli import main
    from theory.model.errors import InputError

    def refuse(*args, **kwargs):
        logging.getLogger("psycopg").warning(
            "error ignored terminating <psycopg.Pipeline [BAD]>: the connection is lost"
        )
        logging.getLogger("rdflib.term").warning("a warning\\nover two lines")
        raise InputError("lost the connection", source="db")

    Memory.open = refuse
    sys.exit(main(sys.argv[1:]))
    """
)


def test_library_log_records_stay_off_stderr(tmp_path):
    """In a process of its own (pytest installs log handlers, so Python's last-resort
    handler, which prints library records on stderr, is only used outside it)."""
    done = subprocess.run(
        [sys.executable, "-c", LOGGING_SCRIPT, "add-evidence", "e1", "--db", "m.db"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "jtms: error: db: lost the connection\n"


# --- a private PostgreSQL server, killed while the CLI writes ------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateServer:
    """A PostgreSQL server of this test alone (trust authentication on 127.0.0.1)."""

    def __init__(self) -> None:
        candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        initdb = shutil.which("initdb") or (str(candidates[-1]) if candidates else None)
        if initdb is None:
            pytest.skip("initdb not found: cannot start a private server")
        self.bindir = Path(initdb).parent
        self.prefix: list[str] = []
        self.folder = Path(tempfile.mkdtemp(prefix="jtms-test-pgkill-"))
        if os.geteuid() == 0:  # initdb refuses to run as root
            runuser = shutil.which("runuser")
            if runuser is None:
                pytest.skip("running as root without runuser: cannot start a private server")
            self.prefix = [runuser, "-u", "postgres", "--"]
            shutil.chown(self.folder, "postgres")
        self.data = self.folder / "data"
        self.port = _free_port()
        self._run(str(initdb), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N")
        self.start()

    @property
    def location(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres?memory=killed"

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self.prefix, *argv], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{argv[0]}: {done.stderr or done.stdout}"

    def start(self) -> None:
        """Start the server (again): after a SIGKILL its old processes may hold the shared
        memory a moment longer, so a refused start is tried again for up to 30 s."""
        argv = [
            *self.prefix,
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-w",
            "-t",
            "60",
            "-l",
            str(self.folder / "log"),
            "-o",
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        ]
        deadline = time.monotonic() + 30
        while True:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if done.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        log = self.folder / "log"
        tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
        assert done.returncode == 0, f"pg_ctl start: {done.stderr or done.stdout} {tail}"
        self.postmaster = int((self.data / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        subprocess.run(
            [
                *self.prefix,
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


def kill_server(postmaster: int) -> list[int]:
    """SIGKILL the postmaster this test started and each of its children, by id; their ids."""
    children = subprocess.run(
        ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
    ).stdout.split()
    pids = [postmaster, *map(int, children)]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


def _wait_gone(postmaster: int) -> None:
    """Wait until the postmaster and its children (orphans now, reaped by init) are gone."""
    pids = [postmaster]
    pids += map(
        int,
        subprocess.run(
            ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
        ).stdout.split(),
    )
    for pid in pids:
        for _ in range(200):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)


@pytest.fixture(scope="module")
def server() -> Iterator[PrivateServer]:
    pytest.importorskip("psycopg")
    if shutil.which("pgrep") is None:
        pytest.skip("pgrep not found: cannot find the server's processes")
    made = PrivateServer()
    try:
        folder = Path(tempfile.mkdtemp(prefix="jtms-test-graph-"))
        (folder / "g.json").write_text(json.dumps(GRAPH), encoding="utf-8")
        assert _cli("init", "--db", made.location) == (0, "")
        assert _cli("import", str(folder / "g.json"), "--db", made.location) == (0, "")
        shutil.rmtree(folder, ignore_errors=True)
        yield made
    finally:
        made.stop()


GRAPH = {
    "nodes": [
        {"id": "e1", "kind": "evidence"},
        {"id": "e2", "kind": "evidence"},
        {"id": "c1", "kind": "claim"},
    ],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c1", "antecedents": ["e2"]},
    ],
}

KILL_AT_SCRIPT = textwrap.dedent(
    """
    import os, signal, subprocess, sys
    from jtms.memory.memory import Memory
    from jtms.cli import main

    postmaster, point, marker = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    opened = Memory.open

    def open_with_killer(location, *args, **kwargs):
        memory = opened(location, *args, **kwargs)

        def kill(at):
            if at == point:
                open(marker, "w").close()
                children = subprocess.run(
                    ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
                ).stdout.split()
                for pid in [postmaster, *map(int, children)]:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

        memory.test_hook = kill
        return memory

    Memory.open = open_with_killer
    sys.exit(main(sys.argv[4:]))
    """
)


def _cli(*argv: str, script: str | None = None, timeout: float = 120) -> tuple[int, str]:
    command = (
        [sys.executable, "-c", script, *argv] if script else [sys.executable, "-m", "jtms", *argv]
    )
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=timeout,
    )
    return done.returncode, done.stderr


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.parametrize("point", ["read", "write", "load", "commit"])
@pytest.mark.parametrize(
    "command",
    [["add-evidence", "new"], ["audit", "--invalidate", "e2", "--reason", "r"], ["check"]],
    ids=["add-evidence", "audit", "check"],
)
def test_the_server_killed_at_each_point_of_a_write_is_one_line(server, tmp_path, point, command):
    from jtms.memory.memory import Memory

    with Memory.open(server.location) as memory:
        before = memory.table("events")
    marker = tmp_path / "killed"
    argv = [str(server.postmaster), point, str(marker), *command]
    if command[0] == "add-evidence":
        argv[4] = f"new-{point}"
    code, err = _cli(*argv, "--db", server.location, script=KILL_AT_SCRIPT)
    killed = marker.exists()  # not every command passes every point (check writes nothing)
    if killed:
        _wait_gone(server.postmaster)
        server.start()
        assert code == 2, err
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert "PostgreSQL" in err
    else:
        assert code in (0, 1) and err == ""
    with Memory.open(server.location) as memory:
        assert memory.integrity_problems() == []
        if killed and "nothing written" in err:  # a read after a committed write can fail too
            assert memory.table("events") == before


WRITER_SCRIPT = textwrap.dedent(
    """
    import contextlib, io, json, sys, time
    from jtms.cli import main

    location, count = sys.argv[1], int(sys.argv[2])
    for k in range(count):
        argv = (
            ["add-evidence", f"w{k}"]
            if k % 2 == 0
            else ["audit", "--invalidate", f"w{k - 1}", "--reason", "stream"]
        )
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*argv, "--db", location])
        print(json.dumps({"k": k, "argv": argv, "code": code, "err": err.getvalue()}), flush=True)
        time.sleep(0.02)
    """
)


@pytest.mark.postgres
@pytest.mark.slow
def test_killing_the_server_under_a_stream_of_writes(server, tmp_path):
    """A writer adds evidence and audits it, one command after another, while the server is
    SIGKILLed at random moments and started again: each refusal is one line and exit 2,
    each write that said it committed is there, and the memory's integrity holds."""
    from jtms.memory.memory import Memory

    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, server.location, "120"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    results: list[dict] = []

    def collect() -> None:
        assert writer.stdout is not None
        for line in writer.stdout:
            results.append(json.loads(line))

    reader = threading.Thread(target=collect)
    reader.start()
    rng = random.Random(59)
    kills = 0
    try:
        while writer.poll() is None and kills < 6:
            time.sleep(rng.uniform(0.5, 2.0))
            kill_server(server.postmaster)
            kills += 1
            _wait_gone(server.postmaster)
            time.sleep(rng.uniform(0.0, 0.5))
            server.start()
        writer.wait(timeout=600)
    finally:
        if writer.poll() is None:
            writer.kill()
        reader.join(timeout=60)
    refused = [r for r in results if r["code"] != 0]
    committed = [r for r in results if r["code"] == 0]
    assert len(results) == 120 and kills >= 1
    assert refused, "no write was refused: the kills missed every write"
    for r in refused:
        assert r["code"] == 2, r
        assert len(r["err"].splitlines()) == 1 and "Traceback" not in r["err"], r
        assert r["err"].startswith("jtms: error: "), r
    with Memory.open(server.location) as memory:
        assert memory.integrity_problems() == []
        nodes = memory.structure().nodes
        for r in committed:
            if r["argv"][0] == "add-evidence":
                assert r["argv"][1] in nodes, r
    print(
        f"{kills} kills: {len(committed)} commands committed, {len(refused)} refused with exit 2 "
        "and one line"
    )
