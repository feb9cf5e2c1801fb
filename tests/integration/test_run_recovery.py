"""Runs end honestly: a killed `awp rollout` reads interrupted at the next start, keeps its
complete episodes in `rollouts.jsonl` (and no half-finished one), and writes no summary.

Real subprocesses, really killed (SIGKILL, SIGTERM); the next process is a real `AppContext`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.context import build_context
from backend.envs.sim.report import EpisodeRow
from storage.export_source import ExportQuery, iter_export_records
from storage.models import RunStatus
from storage.run_kinds import RolloutRun, TrainRun
from storage.runs import DIED

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 120.0


def start_rollout(data_dir: Path, out: Path) -> subprocess.Popen[bytes]:
    """`awp rollout` of many replayed episodes in the world model (persistence), in background."""
    env = {**os.environ, "AWP_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "app",
        "rollout",
        "--domain",
        "terminal",
        "--agent",
        "replay",
        "--engine",
        "persistence",
        "--episodes",
        "400",
        "--batch",
        "1",
        "--out",
        str(out),
    ]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def episodes_written(path: Path) -> list[EpisodeRow]:
    """Every line of `rollouts.jsonl`, each a complete episode (a half-written one fails)."""
    if not path.exists():
        return []
    return [EpisodeRow.model_validate_json(line) for line in path.read_text().splitlines()]


def wait_for_episodes(process: subprocess.Popen[bytes], path: Path, count: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while len(episodes_written(path)) < count:
        if process.poll() is not None:
            assert process.stderr is not None
            pytest.fail(f"rollout ended early: {process.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("no episode was written in time")
        time.sleep(0.2)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_rollout_is_interrupted_and_keeps_only_complete_episodes(
    tmp_path: Path, how: signal.Signals
) -> None:
    out = tmp_path / "out"
    process = start_rollout(tmp_path / "data", out)
    wait_for_episodes(process, out / "rollouts.jsonl", 2)
    process.send_signal(how)
    code = process.wait(timeout=WAIT_S)
    assert code == (-signal.SIGKILL if how == signal.SIGKILL else 130)
    assert process.stderr is not None and b"Traceback" not in process.stderr.read()
    kept = episodes_written(out / "rollouts.jsonl")
    assert len(kept) >= 2 and not (out / "summary.json").exists()
    with build_context(data_dir=tmp_path / "data") as context:  # the next start
        [run] = context.runs.list_runs(RolloutRun)
        episodes = context.sessions.list_sessions(limit=10_000)
        exported = {
            record.session_id
            for record in iter_export_records(
                context.database.session_factory, ExportQuery(annotated_only=False)
            )
        }
    # One episode at a time (--batch 1): at most the one cut off reads incomplete, every
    # written episode's session is complete, and exports hold complete episodes only.
    incomplete = {s.id for s in episodes if not s.complete}
    assert len(incomplete) <= 1 and len(episodes) - len(incomplete) >= len(kept)
    assert exported and not exported & incomplete
    assert run.status == RunStatus.INTERRUPTED.value and not run.results
    assert run.done >= len(kept) and run.done < run.total
    if how == signal.SIGKILL:
        assert run.message == DIED


def test_the_next_start_leaves_a_live_run_alone(tmp_path: Path) -> None:
    with build_context(data_dir=tmp_path) as context:
        run_id = context.runs.start(RolloutRun, {"domains": ["terminal"]}, None)
        assert context.runs.reap() == 0  # this process still runs it
        assert context.runs.get(RolloutRun, run_id).status == RunStatus.RUNNING.value


TRAINER = """
import sys, time
from pathlib import Path
from app.context import build_context
from storage.run_kinds import TrainRun
with build_context(data_dir=Path(sys.argv[1])) as context:
    spec = TrainRun.new_spec("sft", "recorded", "base", {})
    print(context.runs.start(TrainRun, spec, None), flush=True)
    time.sleep(600)
"""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_training_run_reads_interrupted_at_the_next_start(
    tmp_path: Path, how: signal.Signals
) -> None:
    """Issue 20: a `train_run` stayed `running` for ever after kill -9, and after SIGTERM."""
    trainer = subprocess.Popen(
        [sys.executable, "-c", TRAINER, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert trainer.stdout is not None
    run_id = int(trainer.stdout.readline())
    trainer.send_signal(how)
    trainer.wait(timeout=30)
    with build_context(data_dir=tmp_path) as context:
        run = context.runs.get(TrainRun, run_id)
    assert run.status == RunStatus.INTERRUPTED.value and run.message == DIED
