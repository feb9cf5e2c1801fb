"""A loopback HTTP server that answers chat requests from a script, and misbehaves on demand.

Each POST takes the next reply from the script: a JSON body, an event stream, raw bytes, a stream
cut off mid-body, or a body trickled a byte at a time. It stands in for what no real server can
be made to do on cue (answer 503, report a context overflow, send garbage, stall), so that the
openai engine's handling of each is tested over a real socket with real HTTP framing.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[["_Handler"], None]
"""Writes one answer on the handler's connection."""


def raw_reply(
    status: int, content_type: str, data: bytes, headers: dict[str, str] | None = None
) -> Reply:
    """Answer `data` as it is, with a correct Content-Length and any other `headers`."""

    def reply(handler: _Handler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    return reply


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """Answer a JSON body."""
    return raw_reply(status, "application/json", json.dumps(body).encode(), headers)


def event_stream(events: list[Any], done: bool = True) -> bytes:
    """Server-sent events, one `data:` line each (strings are sent as they are)."""
    lines = [e if isinstance(e, str) else json.dumps(e, ensure_ascii=False) for e in events]
    text = "".join(f"data: {line}\n\n" for line in lines) + ("data: [DONE]\n\n" if done else "")
    return text.encode()


def events_reply(events: list[Any], done: bool = True) -> Reply:
    """Answer an event stream of `events`, ended by `[DONE]` unless `done` is False."""
    return raw_reply(200, "text/event-stream", event_stream(events, done))


def cut_stream(events: list[Any]) -> Reply:
    """Start a chunked event stream, send `events`, then drop the connection mid-body."""

    def reply(handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        data = event_stream(events, done=False)
        handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        handler.wfile.write(b"400\r\ndata: {")  # a chunk announced and never finished
        handler.wfile.flush()
        handler.close_connection = True

    return reply


def trickle(content_type: str, data: bytes, interval_s: float) -> Reply:
    """Send headers, then `data` one byte every `interval_s`, over and over, until the client
    leaves (or the server stops): a server that is never silent long enough to time out.

    The body is announced as far longer than anything sent, so the answer never completes.
    """

    def reply(handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(10**9))
        handler.end_headers()
        handler.close_connection = True
        for byte in itertools.cycle(data):
            if handler.server.stopping.wait(interval_s):
                return
            try:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            except OSError:  # the client gave up: what the test waits for
                return

    return reply


class FakeOpenAIServer(ThreadingHTTPServer):
    """The server: `script` is consumed one reply per POST; `bodies` records the requests.

    `open_connections` counts client connections still open (keep-alive is on), which shows
    whether a client closed its connection pool.
    """

    daemon_threads = True

    def __init__(self, script: list[Reply] | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[Reply] = list(script or [])
        self.bodies: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._open = 0
        self._count_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def open_connections(self) -> int:
        with self._count_lock:
            return self._open

    def wait_for_connections(self, count: int, timeout_s: float = 10.0) -> int:
        """Wait until at most `count` connections are open; returns how many are."""
        give_up = time.monotonic() + timeout_s
        while self.open_connections > count and time.monotonic() < give_up:
            time.sleep(0.02)
        return self.open_connections

    def _connected(self, change: int) -> None:
        with self._count_lock:
            self._open += change


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def handle(self) -> None:
        self.server._connected(+1)
        try:
            super().handle()
        finally:
            self.server._connected(-1)

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.server.bodies.append(json.loads(self.rfile.read(length)))
        self.server.script.pop(0)(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


@contextmanager
def serve_fake_openai() -> Iterator[FakeOpenAIServer]:
    """Run a fake server on a free loopback port until the block ends."""
    server = FakeOpenAIServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
