"""A loopback stand-in for one model server of known speed: fixed latency, fixed capacity.

A GPU server answers a request after some time and runs a bounded batch at once; this one
answers every chat request after `latency_s`, at most `capacity` at a time (the rest queue),
with a one-line completion, and counts what it served. Several of them simulate replicas of one
model, so the `openai` engine's least-loaded routing and its throughput with 1, 2 or 4 replicas
can be measured and tested here (`benchmarks/bench_replicas.py`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeReplica(ThreadingHTTPServer):
    """The server; `served` counts the chat requests it answered."""

    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, latency_s: float, capacity: int, text: str = "ok") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.latency_s = latency_s
        self.slots = threading.BoundedSemaphore(capacity)
        self.text = text
        self.served = 0
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def completion(self) -> dict[str, Any]:
        """Wait for a slot and the latency, then the chat completion."""
        with self.slots:
            time.sleep(self.latency_s)
        with self._lock:
            self.served += 1
        return {
            "choices": [{"message": {"content": self.text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1},
        }


class _Handler(BaseHTTPRequestHandler):
    server: FakeReplica
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._send({"data": [{"id": "fake"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self._send(self.server.completion())

    def _send(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep output quiet."""


@contextmanager
def serve_replicas(count: int, latency_s: float, capacity: int) -> Iterator[list[FakeReplica]]:
    """Run `count` replicas on free loopback ports until the block ends."""
    with ExitStack() as stack:
        replicas = []
        for _ in range(count):
            replica = FakeReplica(latency_s, capacity)
            thread = threading.Thread(target=replica.serve_forever, args=(0.05,), daemon=True)
            thread.start()
            stack.callback(replica.server_close)
            stack.callback(replica.shutdown)
            replicas.append(replica)
        yield replicas
