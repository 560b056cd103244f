"""An OpenAI-compatible chat-completions server for tests and benchmarks.

A real HTTP server (ThreadingHTTPServer in a daemon thread), so `langchain-openai` and
the `openai` client are exercised end to end: request encoding, response parsing,
timeouts and HTTP errors. Behaviour is scripted per request:

- `Reply(payload, delay)`: a valid completion, sent after `delay` seconds. If the
  request asked for a tool call (`tools` + `tool_choice`, langchain's function_calling
  method) the payload comes back as the call's arguments; otherwise as JSON message
  content (the json_schema method).
- `Text(content, delay)`: a plain-text completion, the way a model answers a phrasing
  request (no response format). Scripts can make it invent a price or drop a link.
- `Malformed(text)`: a completion whose content/arguments are not valid JSON.
- `ServerError(status)`: an HTTP error with OpenAI's error body.
- `Hang(seconds)`: wait before answering, to trigger client timeouts.

Scripted behaviours are consumed in order; when the script is empty, `default` answers
(itself a behaviour, or a callable building one from the request; `by_kind` builds one
that answers structured and phrasing requests differently). Every request is kept, so
tests can read the model name and prompt each call carried (`models`, `phrasing`).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    payload: dict[str, Any]
    delay: float = 0.0


@dataclass(frozen=True)
class Text:
    content: str
    delay: float = 0.0


@dataclass(frozen=True)
class Malformed:
    text: str = '{"intent": "sales_discovery", "confidence": '


@dataclass(frozen=True)
class ServerError:
    status: int = 500
    message: str = "The server had an error while processing your request."


@dataclass(frozen=True)
class Hang:
    seconds: float = 30.0


Behaviour = Reply | Text | Malformed | ServerError | Hang
Responder = Callable[[dict[str, Any]], Behaviour]


def wants_json(request: dict[str, Any]) -> bool:
    """A structured-output request (json_schema or function calling), not free text."""
    return bool(request.get("response_format") or request.get("tools"))


def schema_name(request: dict[str, Any]) -> str | None:
    """The output schema a structured request names (e.g. "MessageReading")."""
    response_format = request.get("response_format") or {}
    if response_format.get("json_schema"):
        return str(response_format["json_schema"].get("name"))
    tools = request.get("tools") or []
    return str(tools[0]["function"]["name"]) if tools else None


def by_kind(structured: Behaviour | Responder, text: Behaviour | Responder) -> Responder:
    """A default answering structured requests one way and phrasing requests another."""

    def respond(request: dict[str, Any]) -> Behaviour:
        chosen = structured if wants_json(request) else text
        return chosen(request) if callable(chosen) else chosen

    return respond


def _completion(request: dict[str, Any], content: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    finish = "stop"
    tools = request.get("tools") or []
    if tools:
        name = tools[0]["function"]["name"]
        function = {"name": name, "arguments": content}
        call: dict[str, Any] = {"id": "call_emu_1", "type": "function", "function": function}
        message.update(content=None, tool_calls=[call])
        finish = "tool_calls"
    return {
        "id": f"chatcmpl-emu-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "emulator"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@dataclass
class LLMEmulator:
    default: Behaviour | Responder = field(default_factory=lambda: ServerError(503))
    script: deque[Behaviour] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _released: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "emulator not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def models(self) -> list[str]:
        """The model name of every request received, in order."""
        return [str(request.get("model")) for request in self.requests]

    @property
    def phrasing(self) -> list[dict[str, Any]]:
        """The free-text (phrasing) requests received, in order."""
        return [request for request in self.requests if not wants_json(request)]

    def queue(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self.script.extend(behaviours)

    def next_behaviour(self, request: dict[str, Any]) -> Behaviour:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.popleft()
        return self.default(request) if callable(self.default) else self.default

    def wait_released(self, seconds: float) -> None:
        """Hang until the time passes or the emulator stops (so shutdown never blocks)."""
        self._released.wait(seconds)

    def start(self) -> LLMEmulator:
        self._released.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # shutdown() waits for the serve loop's next poll: the default half second was
        # paid at the end of every test that runs an emulator.
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @contextmanager
    def running(self) -> Iterator[LLMEmulator]:
        self.start()
        try:
            yield self
        finally:
            self.stop()


def _handler_for(emulator: LLMEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def _send(self, status: int, body: dict[str, Any] | str) -> None:
            raw = (body if isinstance(body, str) else json.dumps(body)).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout); nothing to tell it

        def do_POST(self) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found", "type": "invalid_request"}})
                return
            length = int(self.headers.get("Content-Length", "0"))
            request = json.loads(self.rfile.read(length) or b"{}")
            self._respond(emulator.next_behaviour(request), request)

        def _respond(self, behaviour: Behaviour, request: dict[str, Any]) -> None:
            if isinstance(behaviour, Hang):
                emulator.wait_released(behaviour.seconds)
                behaviour = Reply({"late": True})
            if isinstance(behaviour, ServerError):
                error = {"message": behaviour.message, "type": "server_error", "code": None}
                self._send(behaviour.status, {"error": error})
            elif isinstance(behaviour, Malformed):
                self._send(200, _completion(request, behaviour.text))
            elif isinstance(behaviour, Text):
                if behaviour.delay:
                    emulator.wait_released(behaviour.delay)
                self._send(200, _completion(request, behaviour.content))
            else:
                if behaviour.delay:
                    emulator.wait_released(behaviour.delay)
                self._send(200, _completion(request, json.dumps(behaviour.payload)))

    return Handler
