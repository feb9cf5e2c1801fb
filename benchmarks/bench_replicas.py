"""Throughput of the `openai` engine over 1-4 replicas of known speed (loopback stand-ins).

Each replica answers after `--latency` seconds and runs at most `--capacity` requests at once,
as a GPU server with a full batch would (`tests.support.fake_replica`). The engine sends
`--requests` requests with `capacity x replicas` in flight (AWP_CONCURRENCY), least-loaded
first; the ideal is linear: R replicas serve R times as many requests a second. Reports
requests/s, the speed-up over one replica and the requests each replica served.

Usage: PYTHONPATH=. python benchmarks/bench_replicas.py [--replicas 1 2 3 4] [--latency 0.2]
       [--capacity 4] [--requests 96] [--json OUT] [--results]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from backend.engines.base import EngineConfig, build_engine
from backend.types import ChatMessage, ChatRequest, SamplingParams
from benchmarks.results import ResultsRun, Table, show
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
    parser.add_argument("--results", action="store_true", help="write docs/results/replicas.*")
    options = parser.parse_args(argv)
    run = ResultsRun(
        "replicas",
        "Replicas behind the `openai` engine",
        f"Loopback stand-ins that answer after {options.latency:g} s and run at most "
        f"{options.capacity} requests at once (a GPU server with a full batch); the `openai` "
        f"engine sends {options.requests} requests with capacity x replicas in flight, "
        "least-loaded first. The ideal is linear.",
    )
    rows = []
    for count in options.replicas:
        row = measure(count, options.latency, options.capacity, options.requests)
        rows.append(row)
        print(json.dumps(row), flush=True)
    base = rows[0]["requests_per_s"] / rows[0]["replicas"]
    body = [
        [
            row["replicas"],
            row["requests_per_s"],
            row["ideal_requests_per_s"],
            round(row["requests_per_s"] / rows[0]["requests_per_s"], 2),
            f"{row['requests_per_s'] / (base * row['replicas']):.0%}",
            " ".join(map(str, row["served"])),
        ]
        for row in rows
    ]
    columns = ["replicas", "requests/s", "ideal", "speed-up", "of linear", "served per replica"]
    tables = [Table("Throughput", columns, body)]
    show(tables)
    if options.results:
        run.write(tables, data=rows)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
