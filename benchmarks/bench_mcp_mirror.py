"""The MCP mirror's cost per call, as an MCP client sees it, by the source that answers.

Starts `awp mcp serve` over stdio (the `persistence` world model, so the engine itself costs
nothing) and times, through the MCP Python SDK's ClientSession, N calls answered by a fixture,
by the record of an earlier real call, and by the world model (one step of the step path,
stored with its prediction). With `--mirror`, also N calls answered by the real mcp-server-time
in the live sandbox. Every call is stored as a step, so the figures include the SQLite commit.
Wall-clock medians on a shared machine are noisy: read the ratios, measured in one run.

Usage: PYTHONPATH=. python benchmarks/bench_mcp_mirror.py [--calls 30] [--mirror]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = [
    {
        "name": "get_weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]


async def timed(args: list[str], calls: list[tuple[str, dict[str, object]]]) -> list[float]:
    env = {**os.environ}
    command = [sys.executable, "-m", "app", "mcp", "serve", "--engine", "persistence", *args]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        times = []
        for name, arguments in calls:
            start = time.perf_counter()
            await session.call_tool(name, arguments)
            times.append(time.perf_counter() - start)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--mirror", action="store_true", help="also the real server's calls")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AWP_DATA_DIR"] = str(Path(tmp) / "data")
        tools = Path(tmp) / "tools.json"
        tools.write_text(json.dumps(TOOLS))
        fixtures = Path(tmp) / "fixtures.json"
        fixtures.write_text(json.dumps([{"tool": "get_weather", "result": "sunny"}]))
        n = options.calls
        fixed = asyncio.run(
            timed(["--tools", str(tools), "--fixtures", str(fixtures)], [("get_weather", {})] * n)
        )
        cities = [("get_weather", {"city": f"c{i}"}) for i in range(n)]
        model = asyncio.run(timed(["--tools", str(tools)], cities))
        rows = {"fixture": fixed, "world_model (persistence)": model}
        if options.mirror:
            now = ("get_current_time", {"timezone": "Etc/UTC"})
            mirror = ["--mirror", "mcp-server-time", "--no-record"]
            rows["real (sandboxed mcp-server-time)"] = asyncio.run(timed(mirror, [now] * n))
            rows["record"] = asyncio.run(timed(["--mirror", "mcp-server-time"], [now] * n))[1:]
    base = statistics.median(rows["fixture"])
    print(f"{'answered by':<34} {'median ms':>10} {'p90 ms':>8} {'x fixture':>10}")
    for label, times in rows.items():
        median = statistics.median(times)
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        print(f"{label:<34} {median * 1000:>10.1f} {p90 * 1000:>8.1f} {median / base:>10.2f}")


if __name__ == "__main__":
    main()
