"""The HTTP side of ``jtms serve --http``: one Starlette app with the MCP endpoint at ``/mcp``
(the SDK's streamable HTTP transport), behind a bearer token when one is configured and the
SDK's Host/Origin checks against DNS rebinding.

```python
app = build_app(server, host="127.0.0.1", token=None)   # serve with uvicorn
```

Security (issue 12): a loopback bind may run without a token; any other bind needs one
(:func:`check_bind`). A request without the token, or with a wrong one, gets 401 before any
route runs, so it reads and changes nothing; a browser asking for a page (a GET that accepts
text/html, anywhere but ``/mcp``) is sent to the login page instead, which brings it back.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlencode

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jtms.memory.limits import MAX_IDS, MAX_TEXT, is_digits
from jtms.serve.tools import MemoryServer
from theory.model.errors import InputError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
TOKEN_COOKIE = "jtms_token"
MAX_TOKEN_FILE_LINE = 4096
"""Bytes of the token file's first line read (the token); a longer line is refused."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a bearer token (bad usage, exit 2)."""
    if token is None and not is_loopback(host):
        raise InputError(
            f"--http {host}: binding to a non-loopback address needs --token-file "
            f"(a bearer token every client must send)"
        )


def read_token(path: str) -> str:
    """The bearer token in ``path`` (its first line, stripped); an unreadable or empty file is
    bad input."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(MAX_TOKEN_FILE_LINE + 1)  # bounded: /dev/zero never ends
        if len(first) > MAX_TOKEN_FILE_LINE:
            raise InputError(
                f"--token-file: the token's line is longer than {MAX_TOKEN_FILE_LINE} bytes",
                source=path,
            )
        token = first.decode("utf-8").strip()
    except OSError as error:
        raise InputError(
            f"--token-file: cannot read the token: {error.strerror or type(error).__name__}",
            source=path,
        ) from None
    except UnicodeDecodeError:
        raise InputError("--token-file: the token is not UTF-8 text", source=path) from None
    if len(token) < 16:
        raise InputError("--token-file: the token must be at least 16 characters", source=path)
    return token


def transport_security(host: str, allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Host/Origin checks (the SDK's DNS-rebinding protection), always on: the loopback names,
    the bound host and ``allowed_hosts`` (names clients use to reach a non-loopback bind)."""
    names = list(
        dict.fromkeys([*LOOPBACK_NAMES, host if ":" not in host else f"[{host}]", *allowed_hosts])
    )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names] + names,
        allowed_origins=[f"{scheme}://{name}:*" for name in names for scheme in ("http", "https")]
        + [f"{scheme}://{name}" for name in names for scheme in ("http", "https")],
    )


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer TOKEN`` (or, for
    the explorer page in a browser, the token cookie set by ``/login``); otherwise 401, or for
    a browser's page request with ``login`` given, a redirect to ``login?next=PAGE``."""

    def __init__(
        self, app: ASGIApp, token: str, open_paths: Sequence[str] = (), login: str | None = None
    ):
        self.app = app
        self.token = token.encode()
        self.open_paths = frozenset(open_paths)
        self.login = login

    def wants_page(self, scope: Scope, headers: Headers) -> bool:
        """A browser navigating to a page: GET or HEAD, accepting HTML, not the MCP endpoint
        (whose clients get the 401 that tells them to send the token)."""
        path = str(scope.get("path", ""))
        return (
            self.login is not None
            and scope.get("method") in ("GET", "HEAD")
            and not (path == "/mcp" or path.startswith("/mcp/"))
            and "text/html" in headers.get("accept", "")
        )

    def authorised(self, headers: Headers) -> bool:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.token):
            return True
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == TOKEN_COOKIE and hmac.compare_digest(value.encode(), self.token):
                return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in self.open_paths:
            headers = Headers(scope=scope)
            if not self.authorised(headers):
                if self.wants_page(scope, headers):
                    query = scope.get("query_string", b"").decode("latin-1")
                    target = str(scope.get("path", "/")) + (f"?{query}" if query else "")
                    await RedirectResponse(
                        f"{self.login}?{urlencode({'next': target})}", status_code=303
                    )(scope, receive, send)
                    return
                response = PlainTextResponse(
                    "401 Unauthorized: send Authorization: Bearer TOKEN\n",
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="jtms"'},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes (the SDK's transport limit, 4 MiB)
    is answered 413 with a JSON-RPC error that names the limit, before the SDK's own check
    sends a bare "Request body too large"; the SDK's client reports that error as the
    call's. Nothing is parsed or written."""

    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE):
        self.app = app
        self.limit = limit

    def refusal(self, size: str) -> Response:
        message = (
            f"request body of {size} bytes is over this server's limit of {self.limit} "
            f"bytes ({self.limit // (1 << 20)} MiB, max_request_body_size); send less per "
            f"call (texts are at most {MAX_TEXT} characters, lists at most {MAX_IDS} ids)"
        )
        return JSONResponse(
            {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}},
            status_code=413,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and is_digits(declared) and int(declared[:30]) > self.limit:
            await self.refusal(declared[:30])(scope, receive, send)
            return
        body = bytearray()
        messages: list[Message] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                messages.append(message)
                break
            body.extend(message.get("body", b""))
            if len(body) > self.limit:
                await self.refusal(f"more than {self.limit}")(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        messages.insert(0, {"type": "http.request", "body": bytes(body), "more_body": False})

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


Endpoint = Callable[[Request], Awaitable[Response]]


def build_app(
    server: MemoryServer,
    host: str,
    token: str | None,
    allowed_hosts: Sequence[str] = (),
    routes: Sequence[tuple[str, list[str], Endpoint]] = (),
    open_paths: Sequence[str] = (),
    login: str | None = None,
) -> ASGIApp:
    """The ASGI app: ``/mcp`` plus ``routes`` (path, methods, endpoint: the explorer), all
    behind the token if any (except ``open_paths``); ``login``: where a browser without the
    token is sent (the explorer's login page)."""
    security = transport_security(host, allowed_hosts)
    for path, methods, endpoint in routes:
        server.custom_route(path, methods)(endpoint)
    app: ASGIApp = BodyLimit(server.streamable_http_app(transport_security=security, host=host))
    if token is not None:
        app = BearerToken(app, token, open_paths, login)
    return app
