"""A process killed in the middle of a session leaves every step it reported readable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from app.context import build_context

ROOT = Path(__file__).resolve().parents[2]
REPORTED_BEFORE_KILL = 25

# The child simulates with the `persistence` baseline through the one step path and records
# every step the way the CLI does (its context from the composition root), printing each id only
# after the recorder returned (committed).
CHILD = textwrap.dedent(
    """
    import json, sys
    from app.context import build_context
    from backend.recording import NewSession
    from backend.stepping import record_prediction
    from backend.spec import Purpose
    from backend.types import HistoryMode, SamplingParams, SimRequest

    context = build_context(database_url=sys.argv[1], data_dir=sys.argv[2])
    store = context.sessions
    simulator = context.simulator(context.world_spec(Purpose.PLAYGROUND, engine="persistence"))
    target = NewSession(
        domain="terminal", history_mode=HistoryMode.TEACHER_FORCED, params=SamplingParams(),
        kind="cli", initial_state="$ ",
    )
    i = 0
    while True:
        history = store.load_session(target).history() if isinstance(target, int) else []
        action = json.dumps([{"keystrokes": f"echo {i}\\n", "duration": 0.1}])
        request = SimRequest(
            domain="terminal", initial_state="$ ", history=history, action=action,
            reference=f"$ echo {i}\\n{i}\\n$ ", reference_origin="live",
        )
        outcome = record_prediction(store, target, request, simulator.step(request))
        if not isinstance(target, int):
            target = outcome.session_id
            print("session", target, flush=True)
        print("step", outcome.step_id, outcome.prediction_id, flush=True)
        i += 1
    """
)


def test_killed_session_keeps_committed_steps(database_url: str, tmp_path: Path) -> None:
    with build_context(database_url=database_url, data_dir=tmp_path) as context:
        # Opened, and so migrated, before the child starts, as the application does at start.
        assert context.sessions.list_sessions() == []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, database_url, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert child.stdout is not None
    reported: list[tuple[int, int]] = []
    session_id = None
    try:
        for line in child.stdout:
            kind, *ids = line.split()
            if kind == "session":
                session_id = int(ids[0])
                continue
            reported.append((int(ids[0]), int(ids[1])))
            if len(reported) == REPORTED_BEFORE_KILL:
                child.send_signal(signal.SIGKILL)
                break
    finally:
        child.kill()
        stderr = child.stderr.read() if child.stderr else ""
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, stderr
    assert session_id is not None and len(reported) == REPORTED_BEFORE_KILL, stderr

    with build_context(database_url=database_url, data_dir=tmp_path) as context:
        session = context.sessions.load_session(session_id)
    stored = {
        (step.step_id, step.prediction.prediction_id) for step in session.steps if step.prediction
    }
    assert set(reported) <= stored
    assert [step.index for step in session.steps] == list(range(len(session.steps)))
    for step in session.steps[:REPORTED_BEFORE_KILL]:
        assert step.real_observation and step.prediction and step.prediction.scores
        assert step.prediction.prediction.engine == "persistence"
    # Persistence predicts the previous observation: step i shows step i-1's real screen.
    previous_screen = (session.steps[2].real_observation or "").strip()
    assert session.steps[3].prediction.prediction.observation == previous_screen
