"""Storage throughput: steps logged per second (SQLite and PostgreSQL), export rows/s and memory.

Steps are logged the way every edge logs them: `SessionStore.record` with a prediction, its chat
and its deterministic scores, each step its own committed transaction, one writer. PostgreSQL uses
AWP_TEST_POSTGRES_URL (a fresh database is created on that server) or, when unset, a throwaway
cluster from scripts/pg_test_cluster.sh.

The export benchmark seeds N annotated predictions in bulk (10-step terminal sessions), then runs
`awp export` in a child process per case and reads that child's peak RSS, so the seeding does not
count; the same export at N/10 rows shows whether memory stays flat.

Usage: PYTHONPATH=. python benchmarks/bench_storage.py [--steps 2000] [--rows 100000] [--json OUT]
       [--results]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from backend.recording import NewSession, StepInput, StoredScore
from backend.scoring import score_observation
from backend.types import ChatMessage, HistoryMode, SamplingParams
from benchmarks.results import ResultsRun, Table
from storage.convert import prediction_values, score_values
from storage.db import Database
from storage.migrate import upgrade
from storage.models import RATING_DIMENSIONS, AnnotatorRow, Base
from storage.sessions import SessionStore
from tests.support.postgres import fake_prediction, fresh_postgres_database

ROOT = Path(__file__).resolve().parents[1]
SESSION_STEPS = 10
SEED_BATCH = 5_000


def screen(i: int) -> str:
    """A ~600-character terminal screen that differs per step."""
    lines = [f"$ ls -la /srv/run-{i}"] + [
        f"-rw-r--r-- 1 user user {1000 + i * 7 + k:6d} May  1 10:{k:02d} file_{i}_{k}.log"
        for k in range(8)
    ]
    return "\n".join([*lines, "$ "])


def action(i: int) -> str:
    """A canonical terminal action."""
    return json.dumps([{"keystrokes": f"ls -la /srv/run-{i}\n", "duration": 0.1}], indent=2)


def bench_steps(url: str, steps: int) -> float:
    """Steps per second for `steps` recorder calls on a migrated database at `url`.

    Each prediction carries its chat as a session's would: a 2 kB system prompt and the whole
    history so far (a session restarts every `SESSION_STEPS` steps), so the prompt store's work
    (hashing, looking up and inserting the new texts) is in the figure.
    """
    upgrade(url)
    database = Database(url)
    store = SessionStore(database.session_factory)
    system = ChatMessage(role="system", content="You simulate a Linux terminal. " * 64)
    prepared = []
    chat: list[ChatMessage] = []
    for i in range(steps):
        if i % SESSION_STEPS == 0:
            chat = [system]
        chat = [*chat, ChatMessage(role="user", content=action(i))]
        prediction = fake_prediction(screen(i - 1), engine="bench", model="bench-model")
        prediction = prediction.model_copy(update={"action": action(i), "messages": chat})
        real = screen(i)
        scores = score_observation("terminal", prediction.observation, real)
        step = StepInput(action(i), real, "live", prediction, scores)
        prepared.append((i % SESSION_STEPS == 0, step))
        chat = [*chat, ChatMessage(role="assistant", content=real)]
    new = NewSession(
        domain="terminal",
        history_mode=HistoryMode.TEACHER_FORCED,
        params=SamplingParams(),
        kind="cli",
    )
    session_id = 0
    start = time.perf_counter()
    for first, step in prepared:
        session_id = store.record(new if first else session_id, step).session_id
    elapsed = time.perf_counter() - start
    database.dispose()
    return steps / elapsed


def _seed_rows(n: int) -> Iterator[dict[str, list[dict[str, object]]]]:
    """Bulk rows for n annotated predictions (the recorder's own value builders), in batches."""
    now = datetime.now(UTC)
    session = {"domain": "terminal", "engine": "bench", "model": "bench-model", "params": {}}
    session |= {"history_mode": "teacher_forced", "task": "", "initial_state": "$ "}
    ratings = {f"rating_{dim}": 4 for dim in RATING_DIMENSIONS}
    annotation = {"annotator_id": 1, "verdict": "reject", "tags": [], "notes": "", "version": 1}
    annotation |= {"source": "bench", "created_at": now, "updated_at": now, **ratings}
    score = [StoredScore("screen_similarity", "1", 0.5)]
    for start in range(0, n, SEED_BATCH):
        batch: dict[str, list[dict[str, object]]] = defaultdict(list)
        for i in range(start, min(n, start + SEED_BATCH)):
            sid, index, pid = i // SESSION_STEPS + 1, i % SESSION_STEPS, i + 1
            if index == 0:
                batch["session"].append(
                    {**session, "id": sid, "created_at": now, "updated_at": now}
                )
            batch["step"].append(
                {"id": pid, "session_id": sid, "index": index, "action": action(i)}
                | {"real_observation": screen(i), "origin": "live", "created_at": now}
            )
            guess = fake_prediction(screen(i - 1), engine="bench", model="bench-model")
            values = prediction_values(pid, guess, {}, "teacher_forced")
            batch["prediction"].append({**values, "id": pid})
            batch["score"] += score_values(pid, score)
            batch["annotation"].append(
                {**annotation, "prediction_id": pid, "corrected_observation": screen(i)}
            )
        yield batch


def seed(url: str, n: int) -> None:
    """Insert n annotated predictions with core bulk inserts (seconds, not the recorder's pace)."""
    upgrade(url)
    database = Database(url)
    with database.engine.begin() as connection:
        connection.execute(
            insert(AnnotatorRow), [{"id": 1, "name": "bench", "created_at": datetime.now(UTC)}]
        )
        for batch in _seed_rows(n):
            for name in ("session", "step", "prediction", "score", "annotation"):
                if batch[name]:
                    connection.execute(insert(Base.metadata.tables[name]), batch[name])
    database.dispose()


def run_export(
    url: str, fmt: str, out: Path, data_dir: Path, *extra: str
) -> tuple[int, float, float, float]:
    """Run `awp export` in a child.

    Returns:
        rows, seconds, the child's peak RSS (MiB; counts pages of memory-mapped files read) and
        its peak anonymous RSS (MiB, sampled every 50 ms: the memory the export itself holds).

    """
    env = {
        **os.environ,
        "AWP_DATABASE_URL": url,
        "AWP_DATA_DIR": str(data_dir),
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-c", "from app.cli import main; main()", "export"]
    command += ["--format", fmt, "--out", str(out), *extra]
    # Output goes to files: a full pipe (datasets' progress bars) would block the child.
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr, cwd=ROOT)
        anon = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            anon = max(anon, rss_anon_kib(child.pid))
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        stdout.seek(0)
        stderr.seek(0)
        if status != 0:
            raise RuntimeError(f"export failed: {stderr.read()[-2000:]}")
        output = stdout.read()
    rows = int(output.split("Wrote ", 1)[1].split(" ", 1)[0])
    return rows, elapsed, usage.ru_maxrss / 1024, anon / 1024


def rss_anon_kib(pid: int) -> int:
    """Anonymous resident memory of a process (heap, not memory-mapped files), in KiB."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def size_mib(path: Path) -> float:
    """Size of a file or a folder's files, in MiB."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 2**20


@contextlib.contextmanager
def postgres_server() -> Iterator[str | None]:
    """A PostgreSQL server URL: the configured one, a throwaway cluster, or None."""
    configured = os.environ.get("AWP_TEST_POSTGRES_URL")
    if configured:
        yield configured
        return
    script = ROOT / "scripts" / "pg_test_cluster.sh"
    try:
        url = subprocess.run(
            [str(script), "start"], check=True, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        yield None
        return
    try:
        yield url
    finally:
        subprocess.run([str(script), "stop"], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps to log per database")
    parser.add_argument("--rows", type=int, default=100_000, help="annotated predictions to export")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--results", action="store_true", help="write docs/results/storage.*")
    args = parser.parse_args()
    run = ResultsRun(
        "storage",
        "Storage: steps logged per second and export throughput",
        "Steps logged the way every edge logs them (`SessionStore.record`, one committed "
        "transaction a step, one writer, a 2 kB system prompt and the growing chat), on SQLite "
        "and PostgreSQL; then `awp export` in a child process over N annotated predictions "
        "seeded in bulk, at N/10 and N rows, with the child's peak memory.",
    )
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        results["sqlite_steps_per_s"] = bench_steps(f"sqlite:///{tmp / 'steps.db'}", args.steps)
        with postgres_server() as server:
            if server is None:
                results["postgresql_steps_per_s"] = None
            else:
                with fresh_postgres_database(server) as url:
                    results["postgresql_steps_per_s"] = bench_steps(url, args.steps)
        for label, n in (("small", args.rows // 10), ("full", args.rows)):
            url = f"sqlite:///{tmp / f'export-{label}.db'}"
            started = time.perf_counter()
            seed(url, n)
            results[f"seed_{n}_s"] = time.perf_counter() - started
            # An export that matches nothing measures start-up (imports, prompt library): the
            # seeded rows are all terminal, and `awp export` refuses a domain that is not one.
            none = tmp / "none.jsonl"
            _, startup, idle, idle_anon = run_export(
                url, "sft", none, tmp / "data", "--domain", "android"
            )
            results[f"export_startup_{n}"] = {
                "seconds": startup,
                "peak_rss_mib": idle,
                "peak_anon_mib": idle_anon,
            }
            for fmt, name in (("sft", "sft.jsonl"), ("sft", "sft.parquet"), ("dpo", "dpo")):
                out = tmp / f"{label}-{name}"
                rows, seconds, rss, anon = run_export(url, fmt, out, tmp / "data")
                results[f"export_{fmt}_{name}_{rows}"] = {
                    "rows_per_s": rows / seconds,
                    "rows_per_s_after_startup": rows / max(seconds - startup, 1e-9),
                    "seconds": seconds,
                    "peak_rss_mib": rss,
                    "peak_anon_mib": anon,
                    "output_mib": size_mib(out),
                }
                if out.is_dir():
                    shutil.rmtree(out)
                else:
                    out.unlink()
    for key, value in results.items():
        print(f"{key}: {value}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    if args.results:
        notes = [
            f"{args.steps} steps logged per database and {args.rows} rows exported (the "
            "defaults are 2000 and 100000), cut to run in minutes on two shared cores.",
            "PostgreSQL is a throwaway local cluster (scripts/pg_test_cluster.sh) or "
            "AWP_TEST_POSTGRES_URL; a dash means no server could be started.",
        ]
        run.write(storage_tables(results), data=results, notes=notes)


def storage_tables(results: dict[str, Any]) -> list[Table]:
    """The logging rates and one row per export case."""
    logging = Table(
        "Steps logged per second",
        ["database", "steps/s"],
        [
            ["SQLite", results["sqlite_steps_per_s"]],
            ["PostgreSQL", results["postgresql_steps_per_s"]],
        ],
    )
    rows = []
    for key, value in results.items():
        if key.startswith("export_") and isinstance(value, dict):
            rows.append(
                [
                    key.removeprefix("export_"),
                    value.get("rows_per_s"),
                    value.get("rows_per_s_after_startup"),
                    value["seconds"],
                    value["peak_rss_mib"],
                    value["peak_anon_mib"],
                    value.get("output_mib"),
                ]
            )
    export = Table(
        "Export",
        [
            "case (format, output, rows)",
            "rows/s",
            "rows/s after start-up",
            "seconds",
            "peak RSS MiB",
            "peak anonymous MiB",
            "output MiB",
        ],
        rows,
        "`startup_N` is an export that matches nothing: imports and start-up alone.",
    )
    return [logging, export]


if __name__ == "__main__":
    main()
