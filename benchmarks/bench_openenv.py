"""`awp env serve` under many sessions: added latency per step, throughput and memory per session.

Starts the server (`--engine persistence`: an instant world model, so what is measured is the
server and the environment layer, not a model), opens `--sessions` WebSocket sessions at once
with OpenEnv's protocol (opened over `--ramp` seconds, default one think time, as agents
arrive), and has each one reset and take `--steps` steps with a think time of `--think`
seconds between them (an agent's own model call), all sessions open at once. Reports
the round-trip latency of a step (p50, p99: what the environment adds to an agent's step),
steps/s, the server's CPU per step (connections, resets and closes included: the capacity of a
core, whatever else shares the machine), refused sessions, and the server's RSS before the
sessions, with all of them open, and after they closed (memory per session = the difference /
sessions).

Usage: PYTHONPATH=. python benchmarks/bench_openenv.py [--sessions 1000] [--steps 5]
       [--think 1.0] [--record] [--workers 1] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect as ws_connect

from backend.data.bundled import load_bundled
from tests.support.openai_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def cpu_s(pid: int) -> float:
    """User plus system CPU seconds a process has used (from /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """Resident memory of a process and its children, in MiB (from /proc)."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total / 1024


async def session(
    url: str, actions: list[str], think: float, latencies: list[float], start_after: float
) -> str:
    """One client: reset, then its steps with think time; returns how it ended."""
    await asyncio.sleep(start_after)
    try:
        async with ws_connect(url, open_timeout=120, max_size=2**26) as socket:
            await socket.send(json.dumps({"type": "reset", "data": {}}))
            reply = json.loads(await socket.recv())
            if reply.get("type") == "error":
                return str(reply["data"].get("code", "error"))
            for action in actions:
                await asyncio.sleep(random.uniform(0.5 * think, 1.5 * think))
                start = time.perf_counter()
                await socket.send(json.dumps({"type": "step", "data": {"action": action}}))
                json.loads(await socket.recv())
                latencies.append(time.perf_counter() - start)
            await socket.send(json.dumps({"type": "close", "data": {}}))
        return "ok"
    except (TimeoutError, OSError) as exc:
        return type(exc).__name__


async def load(
    url: str, sessions: int, steps: int, think: float, pid: int, ramp: float
) -> tuple[list[str], list[float], float, float]:
    """All sessions at once; returns outcomes, step latencies, peak RSS and wall time."""
    recordings = [t for t in load_bundled() if t.domain == "terminal"]
    latencies: list[float] = []
    tasks = []
    for index in range(sessions):
        turns = recordings[index % len(recordings)].turns
        actions = [turns[i % len(turns)].action for i in range(steps)]
        start_after = ramp * index / sessions
        tasks.append(asyncio.create_task(session(url, actions, think, latencies, start_after)))
    peak = 0.0
    start = time.perf_counter()
    while not all(task.done() for task in tasks):
        peak = max(peak, rss_mib(pid))
        await asyncio.sleep(0.5)
    return [task.result() for task in tasks], latencies, peak, time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--ramp", type=float, default=None, help="seconds to open them all")
    parser.add_argument("--record", action="store_true", help="store episodes in SQLite")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "AWP_DATA_DIR": scratch, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "app", "env", "serve", "--domain", "terminal"]
        command += ["--engine", "persistence", "--port", str(port), "--max-steps", "100"]
        command += ["--max-sessions", str(options.sessions), "--idle-timeout", "600"]
        command += ["--record" if options.record else "--no-record"]
        log = Path(scratch) / "serve.log"
        with log.open("wb") as out:
            server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(log.read_text()[-3000:])
                time.sleep(0.25)
            idle = rss_mib(server.pid)
            ramp = options.think if options.ramp is None else options.ramp
            cpu_before = cpu_s(server.pid)
            url = f"ws://127.0.0.1:{port}/ws"
            outcomes, latencies, peak, wall = asyncio.run(
                load(url, options.sessions, options.steps, options.think, server.pid, ramp)
            )
            server_cpu = cpu_s(server.pid) - cpu_before
            time.sleep(2)
            after = rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=60)
        tracebacks = log.read_text(errors="replace").count("Traceback")
    ordered = sorted(latencies)
    row: dict[str, Any] = {
        "sessions": options.sessions,
        "record": options.record,
        "think_s": options.think,
        "ramp_s": options.ramp if options.ramp is not None else options.think,
        "ok": outcomes.count("ok"),
        "refused_or_failed": len(outcomes) - outcomes.count("ok"),
        "steps": len(latencies),
        "steps_per_s": round(len(latencies) / wall, 1),
        "server_cpu_ms_per_step": round(1000 * server_cpu / max(1, len(latencies)), 2),
        "p50_ms": round(1000 * statistics.median(ordered), 1) if ordered else None,
        "p99_ms": round(1000 * ordered[int(0.99 * (len(ordered) - 1))], 1) if ordered else None,
        "rss_idle_mib": round(idle, 1),
        "rss_peak_mib": round(peak, 1),
        "rss_after_mib": round(after, 1),
        "kib_per_session": round(1024 * (peak - idle) / max(1, options.sessions), 1),
        "server_tracebacks": tracebacks,
    }
    print(json.dumps(row))
    if options.json:
        options.json.write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
