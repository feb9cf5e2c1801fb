"""`awp bench` predictions live in SQL as bench sessions: annotatable, exportable, judged; a
benchmark run as a job counts its items and stops between chunks when cancelled."""

from __future__ import annotations

import json
from pathlib import Path

from backend.benchmark.items import load_items
from backend.benchmark.runner import RunConfig
from backend.benchmark.service import run_bench
from backend.benchmark.sessions import BenchSessions
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.engines.baselines import BaselineEngine
from backend.jobs import Job, JobRegistry, JobStatus
from backend.scoring.judge import Judge
from backend.simulate import Simulator
from storage.annotations import AnnotationQueue, QueueFilter
from storage.run_kinds import BenchRun
from storage.run_lifecycle import CANCELLED, recorded
from storage.runs import RunStore
from storage.sessions import SessionStore

SCORES = {"format": 5, "factuality": 4, "consistency": 4, "realism": 3, "quality": 4}
VERDICT = f'<final_evaluation>{{"scores": {json.dumps(SCORES)}}}</final_evaluation>'
LIMIT = 12


def test_bench_predictions_are_sessions_with_chats_scores_and_verdicts(
    database, tmp_path: Path
) -> None:
    sessions = SessionStore(database.session_factory)
    prompts = PromptLibrary()
    judge = Judge(BaselineEngine("scripted-judge", lambda request: VERDICT))
    config = RunConfig(engines=["persistence", "oracle"], limit=LIMIT, progress=False)
    out = tmp_path / "run"

    runs = RunStore(database.session_factory)
    spec = BenchRun.new_spec("bundled", config.engines, "scripted-judge")
    with recorded(runs, BenchRun, spec, out_dir=str(out)) as run:
        run_bench(
            "bundled",
            out,
            config,
            lambda name: Simulator(build_engine(EngineConfig(name=name)), prompts),
            judge,
            sessions=BenchSessions(sessions, run.id),
        )
    rows = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * LIMIT and all(row["prediction_id"] for row in rows)

    [run_record] = runs.list_runs(BenchRun)
    items = load_items("bundled")[:LIMIT]
    trajectories = {item.trajectory_key for item in items}
    listed = [s for s in sessions.list_sessions(limit=100) if s.kind == "bench"]
    assert len(listed) == 2 * len(trajectories)  # one per engine and recording
    for summary in listed:
        stored = sessions.load_session(summary.id)
        assert stored.bench_run_id == run_record.id
        evaluated = [step for step in stored.steps if step.predictions]
        for step in evaluated:
            prediction = step.predictions[0]
            assert step.origin == "recorded" and step.real_observation is not None
            assert prediction.prediction.messages[-1].content.endswith(f"{step.action}\n```")
            names = {score.name for score in prediction.scores}
            assert {f"judge.{dim}" for dim in SCORES} <= names  # the verdict is stored
            assert names - {f"judge.{dim}" for dim in SCORES}  # beside the metrics
        by_id = {row["prediction_id"]: row for row in rows}
        for step in evaluated:
            row = by_id[step.predictions[0].prediction_id]
            assert row["engine"] == stored.engine and row["judge"]["scores"] == SCORES

    queued = AnnotationQueue(database.session_factory).pending("ann", QueueFilter(), limit=100)
    assert {item.prediction_id for item in queued} == {row["prediction_id"] for row in rows}


def test_a_cancelled_bench_job_stops_between_chunks_and_keeps_what_it_finished(
    database, tmp_path: Path
) -> None:
    prompts = PromptLibrary()
    config = RunConfig(engines=["oracle"], limit=LIMIT, concurrency=4, progress=False)
    out, runs = tmp_path / "run", RunStore(database.session_factory)
    seen: list[tuple[int, int]] = []
    jobs = JobRegistry(workers=1)

    def bench(job: Job) -> None:
        spec = BenchRun.new_spec("bundled", config.engines, None)
        with recorded(runs, BenchRun, spec, out_dir=str(out)) as run:

            def advance(done: int, total: int) -> None:  # as the Benchmark page's run does
                seen.append((done, total))
                run.progress(done, total)
                job.advance(done, total)
                if done == 4:  # Cancel pressed while the second chunk waits
                    jobs.cancel(job.id)

            run_bench(
                "bundled",
                out,
                config,
                lambda name: Simulator(build_engine(EngineConfig(name=name)), prompts),
                progress=advance,
            )

    job = jobs.submit("bench", "someone", "bench", bench, unit="items")
    assert job.wait(60)
    jobs.close()
    view = job.view()
    assert view.status is JobStatus.CANCELLED and (view.done, view.total) == (4, LIMIT)
    assert seen == [(0, LIMIT), (4, LIMIT)]  # no chunk ran after Cancel
    assert len((out / "items.jsonl").read_text().splitlines()) == 4  # kept for --resume
    [stopped] = runs.list_runs(BenchRun)
    assert (stopped.status, stopped.done) == ("interrupted", 4)
    assert stopped.message == BenchRun.interrupted_message(str(out), CANCELLED)
