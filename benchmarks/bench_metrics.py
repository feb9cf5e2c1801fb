"""Time every metric on large inputs and compare patience diff with difflib on the same input.

Inputs (built deterministically, each with a prediction that differs in a few percent of places
and, for the delta and change metrics, a previous state): a 10,000-line terminal log whose
previous screen is the same log 1,000 lines earlier, the same log 2,150 lines earlier (about
5,000 changed lines in all: the most that volatile masking takes, the delta metrics' worst case),
the same log after an unrelated previous screen (every line changed, masking skipped past its
bound), the log as swe output, a 5,000-node accessibility tree,
a 2 MB HTML page shaped like a real one (inline script, style and JSON state, then ~15,000
elements), the worst case of 2 MB of nothing but small elements (~78,000), a 1 MB MCP JSON result
and a 200-result search page. Each metric is timed on a fresh pair, so parsing is included, as
median CPU time (stable on a shared machine) and wall time; peak traced memory comes from one
more run. `(all, one parse)` is `score_observation`: every metric of the domain on one pair,
which parses each observation once.

Usage: PYTHONPATH=. python benchmarks/bench_metrics.py [--repeat N] [--results]
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

from backend.domains.base import get_domain
from backend.scoring import score_observation
from backend.scoring.base import METRICS, Metric, MetricResult, ObservationPair
from backend.scoring.patience import align, similarity
from backend.scoring.score import metric_set
from benchmarks.results import ResultsRun, Table, show

BUDGET_MS = 200.0
Case = tuple[str, str, str, str, str | None]


def terminal_log(rng: random.Random, n: int = 10_000) -> list[str]:
    levels = ["INFO", "DEBUG", "WARN", "ERROR"]
    return [
        f"2024-05-01 10:{i // 600 % 60:02d}:{i // 10 % 60:02d} [{levels[i % 4]}] "
        f"worker-{i % 7} pid={1000 + i % 97} processed /srv/data/file_{i}.csv "
        f"in {rng.random():.3f}s rows={rng.randint(1, 9999)}"
        for i in range(n)
    ]


def mutate(lines: list[str], rng: random.Random, rate: float = 0.05) -> list[str]:
    """Drop, edit or follow with an extra line about `rate` of the lines."""
    out = []
    for line in lines:
        roll = rng.random()
        if roll < rate / 3:
            continue
        if roll < 2 * rate / 3:
            out.append(line.replace("processed", "skipped"))
        elif roll < rate:
            out.extend([line, "Traceback (most recent call last): retrying"])
        else:
            out.append(line)
    return out


def axtree(n: int, rng: random.Random, changed: float = 0.0) -> str:
    lines = ["RootWebArea 'Dashboard', focused"]
    roles = ["link", "StaticText", "button", "row", "cell", "checkbox"]
    for i in range(1, n):
        role = roles[i % len(roles)]
        name = f"item {i}" if rng.random() >= changed else f"edited {i}"
        state = ", checked='true'" if role == "checkbox" and rng.random() < changed else ""
        lines.append("\t" * (1 + i % 6) + f"[{i}] {role} '{name}', clickable{state}")
    return "\n".join(lines)


def html_cards(target_bytes: int, rng: random.Random, changed: float, description: int) -> str:
    parts, i, size = [], 0, 0
    while size < target_bytes:
        text = f"Product {i}" if rng.random() >= changed else f"Sold out {i}"
        words = " ".join(f"word{(i * 7 + k) % 97}" for k in range(description // 7))
        card = (
            f'<div class="card" id="c{i}"><h3>{text}</h3><p>{words} Price '
            f'<b>{i % 90}.99</b> EUR</p><a href="/p/{i}">details</a>'
            f'<input type="checkbox" name="pick{i}"></div>'
        )
        parts.append(card)
        size += len(card)
        i += 1
    return "".join(parts)


def html_page(target_bytes: int, rng: random.Random, changed: float = 0.0) -> str:
    """A 2 MB page shaped like a real one: ~45% inline script, style and JSON state, then markup."""
    script = "function f%d(a){return a.map(x=>x*%d).filter(Boolean);}\n"
    head = (
        "<html><head><title>Catalogue</title><style>"
        + "".join(f".c{i}{{margin:{i % 9}px;color:#{i % 4096:03x}}}\n" for i in range(6_000))
        + "</style><script>"
        + "".join(script % (i, i) for i in range(11_000))
        + '</script><script type="application/json">'
        + json.dumps({"state": [{"id": i, "price": i % 90} for i in range(6_000)]})
        + "</script></head><body>"
    )
    return head + html_cards(target_bytes - len(head), rng, changed, 250) + "</body></html>"


def html_dense(target_bytes: int, rng: random.Random, changed: float = 0.0) -> str:
    """The worst case: 2 MB of nothing but small elements (about 78,000 of them)."""
    body = html_cards(target_bytes, rng, changed, 0)
    return f"<html><head><title>Catalogue</title></head><body>{body}</body></html>"


def mcp_json(rng: random.Random, n: int, changed: float = 0.0) -> str:
    users = [
        {"id": i, "name": f"user {i}", "balance": round(i * 1.5 + (rng.random() < changed), 2)}
        for i in range(n)
    ]
    return json.dumps({"content": [{"type": "text", "text": json.dumps({"users": users})}]})


def search_page(n: int, rng: random.Random, changed: float = 0.0) -> str:
    return "\n\n".join(
        f"[{i}] https://site{i if rng.random() >= changed else i + 1000}.com/page\n"
        f"Title: Result {i}\nSnippet: about topic {i}\nDate: 2024-01-01"
        for i in range(1, n + 1)
    )


def cases() -> list[Case]:
    """(label, domain, predicted, reference, previous) for every large input."""
    rng = random.Random(0)
    log = terminal_log(rng)
    grown = "\n".join(log[:9_000])  # the previous screen: the log 1,000 lines ago
    unrelated = "\n".join(terminal_log(random.Random(9)))  # nothing in common: the worst case
    return [
        ("terminal log 10k lines", "terminal", "\n".join(mutate(log, rng)), "\n".join(log), grown),
        (
            "terminal 10k, 5k changed",
            "terminal",
            "\n".join(mutate(log, rng)),
            "\n".join(log),
            "\n".join(log[:7_850]),  # about as many changed lines as volatile masking takes
        ),
        (
            "terminal 10k, new prev.",
            "terminal",
            "\n".join(mutate(log, rng)),
            "\n".join(log),
            unrelated,
        ),
        ("swe log 10k lines", "swe", "\n".join(mutate(log, rng)), "\n".join(log), grown),
        (
            "axtree 5,000 nodes",
            "web",
            axtree(5_000, random.Random(2), 0.04),
            axtree(5_000, random.Random(3), 0.03),
            axtree(5_000, random.Random(1)),
        ),
        (
            "HTML 2 MB page",
            "web",
            html_page(2_000_000, random.Random(4), 0.03),
            html_page(2_000_000, random.Random(5), 0.02),
            None,
        ),
        (
            "HTML 2 MB dense (worst)",
            "web",
            html_dense(2_000_000, random.Random(4), 0.03),
            html_dense(2_000_000, random.Random(5), 0.02),
            None,
        ),
        (
            "MCP JSON 1 MB",
            "mcp",
            mcp_json(random.Random(6), 12_000, 0.05),
            mcp_json(rng, 12_000),
            mcp_json(random.Random(7), 12_000, 0.5),
        ),
        ("search 200 results", "search", search_page(200, rng, 0.1), search_page(200, rng), None),
    ]


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median (CPU ms, wall ms) over `repeat` runs; CPU time is stable on a shared machine."""
    cpu, wall = [], []
    for _ in range(repeat):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def peak_mb(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def score(metric: Metric, kind: str, case: Case) -> MetricResult:
    _, _, predicted, reference, previous = case
    return metric(ObservationPair(kind, predicted, reference, previous))


def metric_table(repeat: int) -> Table:
    """Every metric of each input's domain, then all of them on one parse."""
    rows: list[list[Any]] = []
    for case in cases():
        label, domain = case[0], case[1]
        kind = get_domain(domain).observation_kind
        for name in metric_set(domain).metrics:
            run = partial(score, METRICS.get(name), kind, case)
            cpu, wall = timed(run, repeat)
            rows.append([label, name, cpu, wall, peak_mb(run), run().value, cpu <= BUDGET_MS])
        everything = partial(score_observation, domain, *case[2:])
        cpu, wall = timed(everything, repeat)
        rows.append([label, "(all, one parse)", cpu, wall, peak_mb(everything), None, None])
    return Table(
        "Every metric on large inputs",
        ["input", "metric", "CPU ms", "wall ms", "peak MB", "value", f"within {BUDGET_MS:g} ms"],
        [[*row[:2], *(round(v, 1) for v in row[2:5]), *row[5:]] for row in rows],
        f"Median of {repeat} runs on a fresh pair each (parsing included); peak traced memory "
        "from one more run.",
    )


def patience_vs_difflib(repeat: int) -> Table:
    """Patience alignment against difflib on the same line sequences, in the same run."""
    rng = random.Random(0)
    log = terminal_log(rng)
    inputs = (
        ("terminal log 10k lines", mutate(log, rng), log),
        (
            "axtree 5,000 nodes",
            axtree(5_000, random.Random(2), 0.04).split("\n"),
            axtree(5_000, random.Random(3), 0.03).split("\n"),
        ),
    )
    rows: list[list[Any]] = []
    for label, a_lines, b_lines in inputs:
        matcher = partial(difflib.SequenceMatcher, None, a_lines, b_lines, autojunk=False)
        align_ms, _ = timed(partial(align, a_lines, b_lines), repeat)
        blocks_ms, _ = timed(lambda m=matcher: m().get_matching_blocks(), repeat)
        a, b = "\n".join(a_lines), "\n".join(b_lines)
        similarity_ms, _ = timed(partial(similarity, a, b), repeat)
        rows.append(
            [
                label,
                round(align_ms, 1),
                round(blocks_ms, 1),
                round(align_ms / blocks_ms, 3),
                round(similarity(a, b)[0], 3),
                round(similarity_ms, 1),
                round(matcher().ratio(), 3),
            ]
        )
    return Table(
        "Patience diff against difflib",
        [
            "input",
            "patience alignment CPU ms",
            "difflib blocks CPU ms",
            "patience / difflib",
            "patience similarity",
            "similarity CPU ms",
            "difflib ratio",
        ],
        rows,
        "Same line sequences, same run.",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Time every metric on large inputs.")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results", action="store_true", help="write docs/results/metrics.*")
    options = parser.parse_args()
    run = ResultsRun(
        "metrics",
        "Scoring metrics on large inputs",
        "Each metric of a domain on a large input with a prediction that differs in a few "
        "percent of places (a 10,000-line terminal log, a 5,000-node accessibility tree, 2 MB "
        "HTML pages, a 1 MB MCP result, a 200-result search page), timed as median CPU time, "
        "with patience diff compared with difflib on the same input.",
    )
    tables = [metric_table(options.repeat), patience_vs_difflib(options.repeat)]
    show(tables)
    if options.results:
        notes = [f"{options.repeat} repeats per figure; the budget is {BUDGET_MS:g} ms a metric."]
        run.write(tables, notes=notes)


if __name__ == "__main__":
    main()
