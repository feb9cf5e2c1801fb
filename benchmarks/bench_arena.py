"""Time to compute the compare-and-agree reports over N votes and N ratings (SQLite, PostgreSQL).

Seeds, in bulk, N "Which one is real?" votes, N arena votes (people and the judge) and N
annotations with all five ratings plus judge scores on every annotated prediction, spread over
the seven domains, then times `awp arena report` (vote counts grouped in SQL, Bradley-Terry with
bootstrap intervals per domain and overall) and `awp annotations agreement` (pairs and
per-item counts grouped in SQL, kappa, Spearman, Krippendorff's alpha). The same is timed at
N/10 in the same run: the ratio shows how the reports scale.

PostgreSQL runs when AWP_TEST_POSTGRES_URL is set (a fresh database is created there).

Usage: PYTHONPATH=. python benchmarks/bench_arena.py [--n 100000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from backend.compare.report import arena_report
from storage.agreement import agreement
from storage.arena import ArenaStore
from storage.db import Database
from storage.migrate import upgrade
from storage.models import (
    AnnotationRow,
    AnnotatorRow,
    ArenaVoteRow,
    PredictionRow,
    RealOrNotVoteRow,
    ScoreRow,
    SessionRow,
    StepRow,
    utcnow,
)
from tests.support.postgres import fresh_postgres_database

DOMAINS = ("terminal", "swe", "mcp", "search", "web", "os", "android")
CONTENDERS = (
    "transformers/smol T=0.6",
    "transformers/smol T=1.2",
    "baseline:persistence",
    "openai/qwen T=0.6",
)
DIMS = ("format", "factuality", "consistency", "realism", "quality")
PER_ITEM = 5
CHUNK = 5000


def _bulk(session: Any, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        session.execute(insert(model), rows[start : start + CHUNK])


def seed(database: Database, n: int, rng: random.Random) -> None:
    """N votes of each kind and N annotations, on N / PER_ITEM steps of two predictions each."""
    steps = n // PER_ITEM
    now = utcnow()
    with database.session_factory() as session:
        _bulk(
            session,
            AnnotatorRow,
            [{"id": i + 1, "name": f"person-{i}", "created_at": now} for i in range(PER_ITEM + 1)],
        )
        _bulk(
            session,
            SessionRow,
            [
                {
                    "id": 1 + d,
                    "domain": domain,
                    "engine": "e",
                    "model": "m",
                    "params": {},
                    "history_mode": "teacher_forced",
                    "task": "",
                    "kind": "arena",
                    "created_at": now,
                    "updated_at": now,
                }
                for d, domain in enumerate(DOMAINS)
            ],
        )
        _bulk(
            session,
            StepRow,
            [
                {
                    "id": s + 1,
                    "session_id": 1 + s % len(DOMAINS),
                    "index": s,
                    "action": "act",
                    "real_observation": "real",
                    "origin": "recorded",
                    "created_at": now,
                }
                for s in range(steps)
            ],
        )
        _bulk(
            session,
            PredictionRow,
            [
                {
                    "id": p + 1,
                    "step_id": p // 2 + 1,
                    "observation": f"pred {p}",
                    "reasoning": "",
                    "raw_text": "",
                    "finish_reason": "stop",
                    "engine": "transformers",
                    "model": "smol",
                    "diagnostics": {},
                    "params": {"temperature": 0.6},
                    "history_mode": "teacher_forced",
                    "created_at": now,
                }
                for p in range(2 * steps)
            ],
        )
        real, arena, notes, scores = [], [], [], []
        for s in range(steps):
            domain = DOMAINS[s % len(DOMAINS)]
            a, b = rng.sample(CONTENDERS, 2)
            for voter in range(1, PER_ITEM + 1):
                real.append(
                    {
                        "prediction_id": 2 * s + 1,
                        "voter_id": voter,
                        "source": "human",
                        "domain": domain,
                        "engine": "transformers",
                        "model": "smol",
                        "real_side": rng.choice("AB"),
                        "choice": rng.choice(("A", "B", "cannot_tell")),
                        "confidence": rng.randint(1, 3),
                        "created_at": now,
                    }
                )
                arena.append(
                    {
                        "step_id": s + 1,
                        "prediction_a": 2 * s + 1,
                        "prediction_b": 2 * s + 2,
                        "voter_id": voter,
                        "source": "judge" if voter == PER_ITEM else "human",
                        "domain": domain,
                        "contender_a": a,
                        "contender_b": b,
                        "outcome": rng.choice(("a", "b", "tie", "both_bad")),
                        "created_at": now,
                    }
                )
                notes.append(
                    {
                        "prediction_id": 2 * s + 1,
                        "annotator_id": voter,
                        "corrected_observation": "fix",
                        "verdict": "reject",
                        "tags": [],
                        "notes": "",
                        "source": "bench",
                        "version": 1,
                        "created_at": now,
                        "updated_at": now,
                        **{f"rating_{d}": rng.randint(1, 5) for d in DIMS},
                    }
                )
            scores += [
                {
                    "prediction_id": 2 * s + 1,
                    "name": f"judge.{d}",
                    "version": "v1",
                    "value": float(rng.randint(1, 5)),
                    "details": {},
                    "created_at": now,
                }
                for d in DIMS
            ]
        for model, rows in (
            (RealOrNotVoteRow, real),
            (ArenaVoteRow, arena),
            (AnnotationRow, notes),
            (ScoreRow, scores),
        ):
            _bulk(session, model, rows)
        session.commit()


def timed(database: Database) -> dict[str, float]:
    """Seconds to compute each report (best of two)."""
    store = ArenaStore(database.session_factory)
    out = {}
    for name, run in (
        (
            "arena_report_s",
            lambda: arena_report(
                store.real_counts(), store.battle_counts(), store.judge_human_counts()
            ),
        ),
        ("agreement_report_s", lambda: agreement(database.session_factory)),
    ):
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - started)
        out[name] = round(best, 3)
    return out


def measure(url: str, n: int) -> dict[str, float]:
    """Seed a fresh database at `url` with n of everything and time the reports."""
    upgrade(url)
    database = Database(url)
    try:
        seed(database, n, random.Random(0))
        return timed(database)
    finally:
        database.dispose()


def main() -> None:
    """Run both sizes on SQLite (and PostgreSQL when configured); print and save figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {"n": args.n}
    backends = ["sqlite"] + (["postgresql"] if os.environ.get("AWP_TEST_POSTGRES_URL") else [])
    for backend in backends:
        for n in (args.n // 10, args.n):
            if backend == "sqlite":
                with tempfile.TemporaryDirectory() as scratch:
                    figures = measure(f"sqlite:///{scratch}/bench.db", n)
            else:
                with fresh_postgres_database(os.environ["AWP_TEST_POSTGRES_URL"]) as url:
                    figures = measure(url, n)
            results[f"{backend}_{n}"] = figures
            print(f"{backend} n={n}: {figures}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
