"""``jtms serve``: the memory as an MCP server for agents (stdio, or streamable HTTP)."""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from typing import TYPE_CHECKING

from jtms.cli.arguments import db_option
from jtms.memory.limits import is_digits
from theory.model.errors import InputError, shorten

if TYPE_CHECKING:
    from jtms.serve.tools import MemoryServer

_HELP = """\
Serve a memory to agents over MCP (the Model Context Protocol): the tools add_evidence,
add_claim, add_justification, add_nogood, audit, reinstate, state, explain, history,
context, check, review and diagnose (results: the keys of the matching command's --json),
and the resources memory://node/{id} and memory://context (subscribers are notified after
writes).

Without --http it speaks MCP on stdin/stdout (an MCP client starts it). With --http it
serves streamable HTTP at http://HOST:PORT/mcp and the memory explorer at / (a web page:
search, certificates drawn down to evidence, impact previews, the audit timeline); port 0
picks a free port, and the address is printed on stderr. HOST defaults to loopback; any
other bind needs --token-file, a bearer token every request must carry (401 otherwise).

examples:
  jtms serve --db jtms.db
  jtms serve --db jtms.db --http 127.0.0.1:8765
  jtms serve --db jtms.db --http 0.0.0.0:8765 --token-file ~/.jtms-token --allow-host mybox
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "serve",
        help="serve the memory to agents over MCP (stdio or HTTP)",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    db_option(p, help="the memory to serve")
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help="serve streamable HTTP on HOST:PORT instead of stdio",
    )
    p.add_argument(
        "--token-file",
        metavar="PATH",
        default=None,
        help="require the bearer token in PATH on every HTTP request",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name clients use to reach a non-loopback bind (repeatable)",
    )
    p.add_argument(
        "--read-only",
        action="store_true",
        help="expose only the reading tools (state, explain, history, context, check, diagnose)",
    )
    p.set_defaults(func=run_serve)


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port): a name or an IPv4 address, or an IPv6 address in
    brackets (``[::1]:8765``); anything else is refused (never a guess at what was meant).

    >>> parse_address("[::1]:0")
    ('::1', 0)
    """
    shown = shorten(value, 80)
    host, sep, port = value.rpartition(":")
    if not sep or not host or not is_digits(port) or len(port) > 5 or int(port) > 65535:
        raise InputError(f"--http: expected HOST:PORT, got {shown!r}")
    if host.startswith("[") or host.endswith("]") or ":" in host:
        inner = host[1:-1] if host.startswith("[") and host.endswith("]") else None
        try:
            if inner is None:
                raise ValueError(host)
            ipaddress.IPv6Address(inner)
        except ValueError:
            raise InputError(
                f"--http: expected HOST:PORT with an IPv6 address in brackets "
                f"([::1]:8765), got {shown!r}"
            ) from None
        return inner, int(port)
    if len(host) > 253 or not all(part and set(part) <= _NAME for part in host.split(".")):
        raise InputError(f"--http: {shorten(host, 60)!r} is not a host name or address")
    return host, int(port)


_NAME = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def run_serve(args: argparse.Namespace) -> int:
    from jtms.memory.memory import Memory
    from jtms.serve.tools import MemoryAccess, build_server

    address = parse_address(args.http) if args.http else None
    if args.token_file and address is None:
        raise InputError("--token-file applies to --http only (stdio is already private)")
    token = None
    if address is not None:
        from jtms.serve.http import check_bind, read_token

        token = read_token(args.token_file) if args.token_file else None
        check_bind(address[0], token)
    memory = Memory.open(args.db)
    access = MemoryAccess(memory, worker=args.db)  # the long reads in a worker process
    server = build_server(access, read_only=args.read_only)
    try:
        if address is None:
            server.run("stdio")
        else:
            _serve_http(server, address, token, args.allow_host, args.read_only)
    except KeyboardInterrupt:  # pragma: no cover - Ctrl-C
        pass
    finally:
        access.close()
        memory.close()
    return 0


def listening_socket(host: str, port: int) -> socket.socket:
    """The TCP socket uvicorn serves on, bound and listening (port 0: a free one).

    Its protocol is named (IPPROTO_TCP): asyncio sets TCP_NODELAY only on accepted sockets
    whose ``proto`` says TCP, and without it each response, written in pieces, waited for
    the client's delayed ACK added to every HTTP request (docs/serve.md)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise InputError(f"--http {host}:{port}: cannot bind: {error.strerror}") from None
    sock.listen(128)
    return sock


def _serve_http(
    server: "MemoryServer",
    address: tuple[str, int],
    token: str | None,
    allowed_hosts: list[str],
    read_only: bool,
) -> None:
    """Serve ``/mcp`` and the explorer page at ``/`` on one uvicorn app."""
    import uvicorn

    from jtms.serve.explorer import Explorer
    from jtms.serve.http import build_app, transport_security

    host, port = address
    sock = listening_socket(host, port)
    bound = sock.getsockname()[1]
    explorer = Explorer(server.access, transport_security(host, allowed_hosts), read_only, token)
    app = build_app(
        server,
        host,
        token,
        allowed_hosts,
        explorer.routes(),
        explorer.open_paths,
        explorer.login_path,
    )
    shown = f"[{host}]" if ":" in host else host
    print(f"jtms serve: MCP at http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


ORDER = 30  # after the memory commands in `jtms --help`
