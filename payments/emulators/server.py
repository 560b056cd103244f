"""A tiny real HTTP server in a thread, routing JSON requests to handler methods.

The emulators build on it so that the production httpx clients talk real HTTP to
them, and they call our callback URLs over real HTTP in return.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

logger = logging.getLogger("tulia.emulators")


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    match: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    def form(self) -> dict[str, str]:
        return dict(parse_qsl(self.body.decode()))


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if self.content_type == "application/json":
            return json.dumps(self.body).encode()
        return str(self.body).encode()


Handler = Callable[[Request], Reply]
# An outage that answers nothing: the connection is closed without a response.
HANG_UP: Literal["hang up"] = "hang up"
Fault = Reply | Literal["hang up"]


class EmulatorServer:
    """Subclasses register routes with `route(method, pattern, handler)`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._server = ThreadingHTTPServer((host, port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None
        # Fault injection: while set, every request gets this instead of its handler.
        self.outage: Fault | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        self._routes.append((method, re.compile(f"^{pattern}$"), handler))

    def start(self) -> EmulatorServer:
        # shutdown() waits for the serve loop's next poll: the default half second was
        # paid at the end of every test that runs an emulator.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def down(self, outage: Fault = HANG_UP) -> None:
        """Start an outage: hang up on every request, or answer each with `outage`."""
        self.outage = outage

    def up(self) -> None:
        self.outage = None

    def dispatch(self, request: Request) -> Reply:
        for method, pattern, handler in self._routes:
            found = pattern.match(request.path)
            if found and method == request.method:
                request.match = found.groupdict()
                return handler(request)
        return Reply(404, {"errorCode": "404.001.01", "errorMessage": "Resource not found"})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    method=self.command,
                    path=url.path,
                    query=dict(parse_qsl(url.query)),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                )
                outage = server.outage
                if outage == HANG_UP:
                    self.close_connection = True
                    return
                try:
                    reply = outage if isinstance(outage, Reply) else server.dispatch(request)
                except Exception:
                    logger.exception("emulator handler failed")
                    reply = Reply(500, {"errorCode": "500.003.1001", "errorMessage": "emulator"})
                payload = reply.encoded()
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _serve  # noqa: N815 - names required by BaseHTTPRequestHandler

            def log_message(self, format: str, *args: Any) -> None:
                logger.debug("emulator: " + format, *args)

        return _Handler
