"""Answer from the record over the real database and CLI: fresh, stored, off for benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

from app.context import AppContext
from backend.benchmark.store import ItemStore
from backend.data.bundled import load_bundled
from backend.types import Trajectory, Turn
from tests.support.cli import run

CAT = json.dumps([{"keystrokes": "cat plan.txt\n", "duration": 0.1}])
PLAN = "cat plan.txt\nship it\nuser@host:~$ "


def simulate(*flags: str) -> dict:
    code, output = run(
        "simulate",
        "--engine",
        "persistence",
        "--json",
        "--domain",
        "terminal",
        "--action",
        CAT,
        *flags,
    )
    assert code == 0, output
    return json.loads(output.strip().splitlines()[-1])


def test_a_stored_real_step_answers_its_repeat_at_once(awp_context: AppContext) -> None:
    assert simulate()["answered_by"] == "model"
    awp_context.trajectories.upsert(
        Trajectory(
            id="rec/plan",
            domain="terminal",
            turns=[Turn(action=CAT, observation=PLAN)],
            source="test",
            licence="MIT",
        )
    )
    answered = simulate()
    assert (answered["answered_by"], answered["engine"], answered["observation"]) == (
        "record",
        "record",
        PLAN,
    )
    assert answered["grounded_by"] == ["rec/plan#1"]
    stored = awp_context.sessions.load_session(answered["session_id"])
    assert stored.steps[0].answered_by == "record"
    assert simulate("--no-record-answers")["answered_by"] == "model"


def test_bench_answers_from_the_record_only_when_asked(
    awp_context: AppContext, tmp_path: Path
) -> None:
    # Another recording that starts where a bundled one's second turn does: the same state and
    # action, another history. (A copy of the item's own recording under another id is its own
    # recording, which never answers it: tests/integration/test_leakage.py.)
    bundled = load_bundled()
    others = [
        t.model_copy(
            update={
                "id": f"other/{t.id}",
                "initial_state": t.turns[0].observation,
                "turns": t.turns[1:],
            }
        )
        for t in bundled
        if len(t.turns) > 1 and t.turns[0].observation is not None
    ]
    awp_context.trajectories.upsert_many([*bundled, *others])

    def bench(out: Path, *flags: str) -> set[str]:
        args = ["--dataset", "bundled", "--engine", "persistence", "--limit", "12"]
        code, output = run("bench", *args, "--out", str(out), *flags)
        assert code == 0, output
        return {row.answered_by for row in ItemStore(out / "items.jsonl").rows()}

    assert bench(tmp_path / "official") == {"model"}
    assert "record" in bench(tmp_path / "recorded", "--record-answers")
