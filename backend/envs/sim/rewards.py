"""Rewards and the judge's termination, as a small versioned registry chosen per episode.

- `reference`: per-step agreement with a recorded (or live) trajectory: the domain's headline
  metric of the observation the agent saw against the real one, for imitation-style episodes;
- `task_judge`: an engine reads the task and the episode so far and says whether the task is
  done and succeeded (our own prompt below); its verdict and reasoning are stored as a score;
- `live`: the live environment's own reward (its task's success check, MiniWoB's validation
  for web) and its end of episode.

Every reward model assesses a batch of steps at once, so a vector environment's judge is one
engine call per step over all its sub-environments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from backend.engines.base import Engine
from backend.parsing import strip_thinking
from backend.registry import Registry
from backend.scoring import MetricResult
from backend.scoring.judge_common import ask_with_retries, render_turns
from backend.scoring.judge_parse import JudgeParseError
from backend.types import ChatMessage, SamplingParams, Turn


@dataclass(frozen=True)
class StepView:
    """One finished step as a reward model sees it.

    Attributes:
        domain: the episode's domain.
        task: the agent's task ("" when none).
        turns: the episode so far, this step last, each with the observation the agent saw.
        scores: the step's metrics against the real observation, headline first (none unknown).
        live_reward: the live environment's reward for the step, where it gives one.
        live_done: the live environment ended the episode.
        last: the step is the last the episode allows (it is truncated after it).
    """

    domain: str
    task: str
    turns: Sequence[Turn]
    scores: Sequence[MetricResult] = ()
    live_reward: float | None = None
    live_done: bool = False
    last: bool = False


@dataclass(frozen=True)
class Verdict:
    """A reward model's answer for one step.

    Attributes:
        reward: the step's reward.
        done: the episode is over (the judge or the live environment says so).
        success: whether the task succeeded, where the model can tell (None: unknown).
        details: what to store and show beside it (the judge's reasoning, the metric).
    """

    reward: float
    done: bool = False
    success: bool | None = None
    details: dict[str, Any] = field(default_factory=dict)


class RewardModel(Protocol):
    """Assesses steps; `name` and `version` are stored with every verdict."""

    name: str
    version: str

    def assess(self, steps: Sequence[StepView]) -> list[Verdict]:
        """One verdict per step, in order."""
        ...


@dataclass(frozen=True)
class RewardOptions:
    """What a reward model may need: the judge engine and its sampling."""

    judge: Engine | None = None
    judge_params: SamplingParams = field(
        default_factory=lambda: SamplingParams(temperature=0.0, max_new_tokens=512)
    )


RewardFactory = Callable[[RewardOptions], RewardModel]
REWARDS: Registry[RewardFactory] = Registry("reward")


class ReferenceReward:
    """The headline metric of each step against its real observation (0 when none is known).

    Version 2 follows the version-2 headlines, which pay no junk output (empty, prose, a
    truncated, garbled or huge copy of the old state) more than repeating the old state; the
    metric's own version rides in the details.
    """

    name = "reference"
    version = "2"

    def assess(self, steps: Sequence[StepView]) -> list[Verdict]:
        """The first (headline) score of every step."""
        return [_reference(step) for step in steps]


def _reference(step: StepView) -> Verdict:
    if not step.scores:
        return Verdict(0.0, details={"metric": None})
    headline = step.scores[0]
    return Verdict(
        headline.value, details={"metric": headline.name, "metric_version": headline.version}
    )


class LiveReward:
    """The live environment's own reward (its task's check); success is a positive one at the end.

    Version 2: on the last step an episode allows, a reward the live environment did report
    (an mcp task's check, which runs after every call) decides success too, so an episode that
    runs out of steps unsolved is a failure, not unknown; without such a reward it stays unknown.
    """

    name = "live"
    version = "2"

    def assess(self, steps: Sequence[StepView]) -> list[Verdict]:
        """The live reward (0 without one) and the live end of the episode."""
        return [
            Verdict(
                step.live_reward or 0.0,
                done=step.live_done,
                success=(step.live_reward or 0.0) > 0 if _ends_checked(step) else None,
            )
            for step in steps
        ]


def _ends_checked(step: StepView) -> bool:
    return step.live_done or (step.last and step.live_reward is not None)


JUDGE_SYSTEM = """You are the referee of an agent working in a computer environment ({domain}).
You read the agent's task and everything it did and saw so far, and decide two things:
- done: has the agent finished (it said so, or nothing more can usefully be done)?
- success: has the task been accomplished, judging only from the observations shown?
Be strict: a task is a success only when the observations show its result.
Answer with one line of JSON inside <verdict> tags, reasoning first, for example:
<verdict>{{"reasoning": "the tests pass after the fix", "done": true, "success": true}}</verdict>"""

_VERDICT = re.compile(r"<verdict>(.*?)(?:</verdict>|$)", re.DOTALL)
MAX_EPISODE_CHARS = 12_000


def render_episode(step: StepView) -> str:
    """The task and the episode, newest turns kept when it is too long for the judge."""
    task = f"## Task\n{step.task or '(no task given)'}"
    return "\n\n".join([task, *render_turns(step.turns, MAX_EPISODE_CHARS)])


def parse_verdict(text: str) -> dict[str, Any]:
    """The judge's `{"reasoning", "done", "success"}` object.

    Raises:
        JudgeParseError: no JSON object with boolean `done` and `success`.
    """
    text = strip_thinking(text)[0]
    matches = _VERDICT.findall(text)
    body = matches[-1] if matches else text
    start, end = body.find("{"), body.rfind("}")
    try:
        value = json.loads(body[start : end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not all(
        isinstance(value.get(key), bool) for key in ("done", "success")
    ):
        raise JudgeParseError(
            'The answer needs <verdict>{"reasoning": ..., "done": true|false, '
            '"success": true|false}</verdict>.'
        )
    return value


class TaskJudgeReward:
    """An engine judges whether the task is done and succeeded; reward 1 on success.

    Args:
        judge: the judge engine.
        params: its sampling (greedy by default).
        retries: re-asks of answers without a parsable verdict.
    """

    name = "task_judge"
    version = "1"

    def __init__(self, judge: Engine, params: SamplingParams, retries: int = 1) -> None:
        self.judge = judge
        self.params = params
        self.retries = retries

    def assess(self, steps: Sequence[StepView]) -> list[Verdict]:
        """Ask the judge about every step in one batched call; an unparsable verdict is 0."""
        conversations = [
            [
                ChatMessage(role="system", content=JUDGE_SYSTEM.format(domain=step.domain)),
                ChatMessage(role="user", content=render_episode(step)),
            ]
            for step in steps
        ]
        outcomes = ask_with_retries(
            self.judge, conversations, self.params, parse_verdict, self.retries
        )
        verdicts = []
        for outcome in outcomes:
            base = {"judge_engine": self.judge.name, "judge_model": self.judge.model}
            if outcome.value is None:
                verdicts.append(Verdict(0.0, details={**base, "error": outcome.error}))
                continue
            success = outcome.value["success"]
            verdicts.append(
                Verdict(
                    1.0 if success else 0.0,
                    done=outcome.value["done"],
                    success=success,
                    details={**base, "reasoning": str(outcome.value.get("reasoning", ""))},
                )
            )
        return verdicts


def _task_judge(options: RewardOptions) -> RewardModel:
    if options.judge is None:
        raise ValueError("the task_judge reward needs a judge engine")
    return TaskJudgeReward(options.judge, options.judge_params)


REWARDS.register("reference", lambda options: ReferenceReward())
REWARDS.register("live", lambda options: LiveReward())
REWARDS.register("task_judge", _task_judge)


def build_reward(name: str, options: RewardOptions) -> RewardModel:
    """The reward model registered as `name`.

    Raises:
        UnknownNameError: no such reward (the message lists the valid ones).
    """
    return REWARDS.get(name)(options)
