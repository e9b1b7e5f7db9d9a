"""A fake LLM API on 127.0.0.1 that speaks OpenAI chat completions and Anthropic messages.

Tests script it with a queue of replies (text, errors, slow or malformed answers); it
answers ``/v1/chat/completions`` in OpenAI's JSON shape and ``/v1/messages`` in Anthropic's,
with usage fields, records every request it got, and counts requests in flight.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer. ``status`` 200 gives a completion with ``text``."""

    text: str = "ok"
    status: int = 200
    prompt_tokens: int = 11
    completion_tokens: int = 7
    finish_reason: str | None = None  # None: the API's normal stop reason
    delay_s: float = 0.0  # sleep before answering (client timeouts, concurrency)
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "scripted error"
    raw_body: bytes | None = None  # sent as is (malformed replies)
    refusal: str | None = None  # OpenAI: message.refusal; Anthropic: stop_reason refusal


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float = field(default_factory=time.monotonic)


def text(content: str, **kwargs: Any) -> Reply:
    return Reply(text=content, **kwargs)


def error(status: int, message: str = "scripted error", **kwargs: Any) -> Reply:
    return Reply(status=status, error_message=message, **kwargs)


def malformed() -> Reply:
    return Reply(raw_body=b'{"id": "chatcmpl-1", "choices": [')


class FakeLLMServer:
    """Start with ``start()``; ``push`` replies; read ``requests`` and ``max_in_flight``."""

    def __init__(self) -> None:
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.default: Reply | None = None  # answer when the queue is empty (else a 500)
        #: ``GET .../models`` (the providers' pre-flight): 200 lists one model; else an error
        self.models_status = 200
        self.model_listings = 0
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def take(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self._queue:
                return self._queue.popleft()
        return self.default or error(500, "fake server: no scripted reply left")

    def done(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            if not self.path.rstrip("/").endswith("/models"):
                self.send_error(404)
                return
            server.model_listings += 1
            anthropic = "anthropic-version" in {k.lower() for k in self.headers}
            reply = error(server.models_status, "fake server: key rejected") if (
                server.models_status != 200) else None
            payload = json.dumps(_error_body(anthropic, reply) if reply else {
                "object": "list", "data": [{"id": "fake-model", "object": "model",
                                            "type": "model", "created": 0, "owned_by": "t",
                                            "created_at": "2026-01-01T00:00:00Z",
                                            "display_name": "fake"}],
                "has_more": False, "first_id": "fake-model", "last_id": "fake-model"}).encode()
            self.send_response(server.models_status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            request = RecordedRequest(
                self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            reply = server.take(request)
            try:
                time.sleep(reply.delay_s)
                self._answer(request, reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and hung up
            finally:
                server.done()

        def _answer(self, request: RecordedRequest, reply: Reply) -> None:
            anthropic = request.path.rstrip("/").endswith("/messages")
            if reply.raw_body is not None:
                payload = reply.raw_body
            elif reply.status != 200:
                payload = json.dumps(_error_body(anthropic, reply)).encode()
            elif anthropic:
                payload = json.dumps(_anthropic_body(request.body, reply)).encode()
            else:
                payload = json.dumps(_openai_body(request.body, reply)).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _openai_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": None if reply.refusal else reply.text,
        "refusal": reply.refusal,
    }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "unknown"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.finish_reason or "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _anthropic_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    stop = "refusal" if reply.refusal else (reply.finish_reason or "end_turn")
    content = [] if reply.refusal else [{"type": "text", "text": reply.text, "citations": None}]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "unknown"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }


_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _error_body(anthropic: bool, reply: Reply) -> dict[str, Any]:
    if anthropic:
        kind = _ANTHROPIC_ERROR_TYPES.get(reply.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": reply.error_message}}
    code = "model_not_found" if reply.status == 404 else None
    return {
        "error": {
            "message": reply.error_message,
            "type": "invalid_request_error",
            "param": None,
            "code": code,
        }
    }
