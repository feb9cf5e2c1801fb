"""Throughput of the `openai` engine over 1-4 replicas of known speed (loopback stand-ins).

Each replica answers after `--latency` seconds and runs at most `--capacity` requests at once,
as a GPU server with a full batch would (`tests.support.fake_replica`). The engine sends
`--requests` requests with `capacity x replicas` in flight (AWP_CONCURRENCY), least-loaded
first; the ideal is linear: R replicas serve R times as many requests a second. Reports
requests/s, the speed-up over one replica and the requests each replica served.

Usage: PYTHONPATH=. python benchmarks/bench_replicas.py [--replicas 1 2 3 4] [--latency 0.2]
       [--capacity 4] [--requests 96] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from backend.engines.base import EngineConfig, build_engine
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.fake_replica import serve_replicas


def measure(replicas: int, latency: float, capacity: int, requests: int) -> dict:
    """Requests per second through `replicas` stand-ins."""
    with serve_replicas(replicas, latency, capacity) as servers:
        urls = ",".join(server.base_url for server in servers)
        config = EngineConfig(
            name="openai", base_url=urls, model="fake", concurrency=capacity * replicas
        )
        engine = build_engine(config)
        batch = [
            ChatRequest(
                messages=[ChatMessage(role="user", content=f"step {i}")],
                params=SamplingParams(max_new_tokens=1),
            )
            for i in range(requests)
        ]
        start = time.perf_counter()
        engine.generate(batch)
        wall = time.perf_counter() - start
        engine.close()
        served = [server.served for server in servers]
    return {
        "replicas": replicas,
        "requests": requests,
        "wall_s": round(wall, 3),
        "requests_per_s": round(requests / wall, 2),
        "ideal_requests_per_s": round(replicas * capacity / latency, 2),
        "served": served,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--capacity", type=int, default=4)
    parser.add_argument("--requests", type=int, default=96)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    rows = []
    for count in options.replicas:
        row = measure(count, options.latency, options.capacity, options.requests)
        rows.append(row)
        print(json.dumps(row), flush=True)
    base = rows[0]["requests_per_s"] / rows[0]["replicas"]
    print(f"\n{'replicas':>8} {'req/s':>8} {'ideal':>8} {'speed-up':>9} {'of linear':>10}  served")
    for row in rows:
        speedup = row["requests_per_s"] / rows[0]["requests_per_s"]
        linear = row["requests_per_s"] / (base * row["replicas"])
        print(
            f"{row['replicas']:>8} {row['requests_per_s']:>8} {row['ideal_requests_per_s']:>8} "
            f"{speedup:>9.2f} {linear:>10.0%}  {row['served']}"
        )
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
