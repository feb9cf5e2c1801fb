"""Several servers of one model behind the `openai` engine: each request to the least loaded.

`AWP_BASE_URL` may list several OpenAI-compatible servers (comma-separated): vLLM replicas, one
per GPU or node, serving the same model. Each request goes to the replica with the fewest
requests in flight from this process (ties in turn), so N replicas of equal speed share a batch
evenly and a slow one gets less; a stream holds its replica until it ends. This is the
client-side half of the scale-out path; a router that knows each server's KV cache (vLLM's
production stack, SGLang's router) is the next step, and needs no change here: it is one URL.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from backend.engines.base import EngineConfig
from backend.engines.http_client import RetryingClient


def replica_urls(base_url: str) -> list[str]:
    """The servers a base URL setting lists (one, or several separated by commas)."""
    urls = [url.strip() for url in base_url.split(",") if url.strip()]
    return urls or [base_url]


@dataclass
class Replica:
    """One server: its client, the requests in flight to it and those it was sent in all."""

    client: RetryingClient
    in_flight: int = 0
    sent: int = 0


class Replicas:
    """The servers of one engine, with least-loaded choice.

    Args:
        config: the engine's configuration; `base_url` lists the servers.
    """

    def __init__(self, config: EngineConfig) -> None:
        self.replicas = [
            Replica(RetryingClient(config.model_copy(update={"base_url": url})))
            for url in replica_urls(config.base_url)
        ]
        self._lock = threading.Lock()
        self._turn = 0

    @property
    def first(self) -> RetryingClient:
        """The first server's client (model listing asks it)."""
        return self.replicas[0].client

    @contextmanager
    def lease(self) -> Iterator[RetryingClient]:
        """A client of the least-loaded server, counted as busy until the block ends."""
        with self._lock:
            count = len(self.replicas)
            order = [(self._turn + offset) % count for offset in range(count)]
            chosen = self.replicas[min(order, key=lambda i: self.replicas[i].in_flight)]
            self._turn = (self._turn + 1) % count
            chosen.in_flight += 1
            chosen.sent += 1
        try:
            yield chosen.client
        finally:
            with self._lock:
                chosen.in_flight -= 1

    def sent(self) -> dict[str, int]:
        """Requests sent to each server so far, by its URL."""
        with self._lock:
            return {replica.client.base_url: replica.sent for replica in self.replicas}

    def close(self) -> None:
        """Close every server's connection pool."""
        for replica in self.replicas:
            replica.client.close()
