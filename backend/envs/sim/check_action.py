"""The task's success check as an action whose result the world model predicts.

In reality a live task's check runs in the environment (`backend.envs.live.checks`). In
simulation there is no environment to run it in, so the check becomes one more step: after the
episode, the world model is asked what running the check would print, `CHECK: PASS` or
`CHECK: FAIL`. Sim success and real success are then measured the same way, by the check, and
the task judge stays a second opinion. Anything else the model answers (prose, an empty reply)
is a failure: a world model that cannot say the check passes has not simulated a success.

A live recording keeps the live environment's rewards (`metadata.rewards`), so its real check
outcome is known: it is the reference the check step is scored against, and what the `oracle`
baseline answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.envs.live.base import LIVE
from backend.envs.sim.episode import EpisodeSpec
from backend.simulate import Simulator
from backend.stepping import step_batch
from backend.types import HistoryMode, SamplingParams, SimRequest, Trajectory, Turn

CHECK_PASS = "CHECK: PASS"
CHECK_FAIL = "CHECK: FAIL"


@dataclass(frozen=True)
class CheckStep:
    """An episode at its end, as the check step needs it."""

    spec: EpisodeSpec
    turns: Sequence[Turn]
    params: SamplingParams
    history_mode: HistoryMode


def check_description(spec: EpisodeSpec) -> str:
    """What the episode's check verifies: its live task's check, else the task itself."""
    if spec.live_task and spec.domain in LIVE:
        for task in LIVE.get(spec.domain).tasks():
            if task.name == spec.live_task and task.check is not None:
                return task.check.description
    return f"the task is accomplished: {spec.task or 'the recorded goal'}"


def check_action(spec: EpisodeSpec) -> str:
    """The check, written as the action the world model answers."""
    return (
        f"Run the task's success check now ({check_description(spec)}) and print its verdict: "
        f"exactly `{CHECK_PASS}` if it passes in the current state, `{CHECK_FAIL}` otherwise."
    )


def recorded_check(trajectory: Trajectory | None) -> str | None:
    """A live recording's real check outcome as the check's output (None: never checked)."""
    if trajectory is None:
        return None
    rewards = [r for r in trajectory.metadata.get("rewards", []) if r is not None]
    if not rewards:
        return None
    return CHECK_PASS if max(rewards) > 0 else CHECK_FAIL


def read_check(text: str) -> bool:
    """Whether a check's output says it passed (anything but `CHECK: PASS` fails)."""
    lines = [line.strip().strip("`") for line in text.strip().splitlines() if line.strip()]
    return bool(lines) and lines[-1].upper() == CHECK_PASS


def check_request(step: CheckStep) -> SimRequest:
    """The check step of an episode, after all its turns.

    It is not an agent action, so it is not put through the domain's action check.
    """
    spec = step.spec
    return SimRequest(
        domain=spec.domain,
        system_prompt=spec.system_prompt,
        context=spec.context.model_copy(update={"task": spec.task or spec.context.task}),
        initial_state=spec.initial_state,
        history=list(step.turns),
        action=check_action(spec),
        history_mode=step.history_mode,
        params=step.params,
        reference=recorded_check(spec.trajectory),
        task_check=True,
    )


def predict_checks(simulator: Simulator, steps: Sequence[CheckStep]) -> list[bool | None]:
    """Each episode's simulated success, the check's predicted verdict, in one engine call.

    None where the world model could not answer (the oracle, where reality never checked).
    """
    if not steps:
        return []
    made = step_batch(simulator, [check_request(step) for step in steps])
    return [
        None
        if sample.prediction is None
        else read_check(sample.prediction.raw_text or sample.prediction.observation)
        for (sample,) in made
    ]
