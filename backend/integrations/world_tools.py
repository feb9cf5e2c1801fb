"""The world model itself as MCP tools: ask "what happens if I do X" before acting.

Planning with a world model (as in WebDreamer) needs three questions answered: what the
environment would show after an action (`simulate_step`), how sure the model is of it (K
sampled futures and their spread, `many_futures`), and how close one observation is to another
by the domain's own metrics (`score`). Each simulation is one call of the step path, stored as
a one-step `mcp` session whose earlier turns are the history the agent gave, so an agent's
planning reaches Replay, Annotate and the exports like any other step.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from backend.compare.futures import spread
from backend.domains.base import get_domain
from backend.errors import AWPError, BadInputError, UnknownNameError
from backend.history import state_before
from backend.provenance import stored
from backend.recording import NewSession, Recorder
from backend.scoring import headline_metric
from backend.simulate import Simulator
from backend.stepping import MAX_SAMPLES, compare, record_prediction, record_samples, step_batch
from backend.types import Prediction, PromptContext, SamplingParams, SimRequest, Turn

SESSION_KIND = "mcp"

_TURN = {
    "type": "object",
    "properties": {"action": {"type": "string"}, "observation": {"type": "string"}},
    "required": ["action", "observation"],
}
_STEP = {
    "domain": {"type": "string", "description": "terminal, swe, mcp, search, web, os or android"},
    "action": {
        "type": ["string", "array", "object"],
        "description": "The action, in the domain's action format (JSON actions may be given "
        "as JSON values).",
    },
    "history": {
        "type": "array",
        "items": _TURN,
        "description": "Earlier (action, observation) turns, oldest first.",
    },
    "initial_state": {"type": "string", "description": "The observation before the first action."},
    "task": {"type": "string", "description": "The agent's task, shown to the world model."},
    "tools": {
        "type": "array",
        "items": {"type": "object"},
        "description": "Tool definitions (mcp, swe, search).",
    },
}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "simulate_step",
        "description": "Predict what the environment shows after one action (one world-model "
        "step, stored as a session).",
        "inputSchema": {"type": "object", "properties": _STEP, "required": ["domain", "action"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "many_futures",
        "description": "Sample K predicted observations of one action and say how much they "
        "agree: distinct outcomes, the most common one, mutual agreement.",
        "inputSchema": {
            "type": "object",
            "properties": {
                **_STEP,
                "k": {"type": "integer", "minimum": 1, "maximum": MAX_SAMPLES, "default": 4},
            },
            "required": ["domain", "action"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "score",
        "description": "Score an observation against a reference with the domain's metrics "
        "(its headline first): how close is what I expect to what happened.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "domain": {"type": "string"},
                "predicted": {"type": "string"},
                "reference": {"type": "string"},
                "previous": {"type": "string", "description": "The state before the action."},
            },
            "required": ["domain", "predicted", "reference"],
        },
        "annotations": {"readOnlyHint": True},
    },
]


class StepArguments(BaseModel):
    """The arguments of `simulate_step` and `many_futures`."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    action: str | list[Any] | dict[str, Any]
    history: list[Turn] = Field(default_factory=list)
    initial_state: str | None = None
    task: str | None = None
    tools: list[dict[str, Any]] | None = None
    k: int = Field(default=4, ge=1, le=MAX_SAMPLES)


class ScoreArguments(BaseModel):
    """The arguments of `score`."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    predicted: str
    reference: str
    previous: str | None = None


def _parsed(model: type[BaseModel], arguments: dict[str, Any]) -> Any:
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        raise BadInputError(problems) from None


def sourced(prediction: Prediction) -> dict[str, Any] | None:
    """Where a prediction's observation came from, as the answer carries it."""
    return stored(prediction.provenance) if prediction.provenance is not None else None


def text_result(data: dict[str, Any], error: bool = False) -> dict[str, Any]:
    """An MCP result holding `data` as structured content and as its JSON text."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": data,
        "isError": error,
    }


@dataclass
class WorldModelTools:
    """Answers `simulate_step`, `many_futures` and `score` with the world model.

    Args:
        simulator: the world model.
        recorder: where each simulation is stored.
        params: the sampling of every simulation.
    """

    simulator: Simulator
    recorder: Recorder
    params: SamplingParams

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tool call's MCP result; bad input or a failed model is an error result.

        Raises:
            UnknownNameError: no such tool.
        """
        handlers = {
            "simulate_step": self.simulate_step,
            "many_futures": self.many_futures,
            "score": self.score,
        }
        if name not in handlers:
            raise UnknownNameError(f"Unknown tool {name!r}. Valid: {', '.join(handlers)}.")
        try:
            return text_result(handlers[name](arguments))
        except AWPError as exc:
            return text_result({"error": str(exc)}, error=True)

    def _request(self, step: StepArguments) -> SimRequest:
        get_domain(step.domain)
        action = step.action
        return SimRequest(
            domain=step.domain,
            context=PromptContext(tools=step.tools, task=step.task),
            initial_state=step.initial_state,
            history=step.history,
            action=action if isinstance(action, str) else json.dumps(action, ensure_ascii=False),
            params=self.params,
        )

    def simulate_step(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The predicted observation after the action, and where it was stored."""
        step = _parsed(StepArguments, arguments)
        request = self._request(step)
        ((sample,),) = step_batch(self.simulator, [request])
        prediction = sample.made()
        target = NewSession.for_request(request, SESSION_KIND, world=self.simulator.spec)
        outcome = record_prediction(self.recorder, target, request, prediction, step.history)
        return {
            "observation": prediction.observation,
            "finish_reason": prediction.finish_reason,
            "engine": prediction.engine,
            "model": prediction.model,
            "answered_by": prediction.answered_by,
            "provenance": sourced(prediction),
            "session_id": outcome.session_id,
            "prediction_id": outcome.prediction_id,
        }

    def many_futures(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """K sampled observations of the action and how they spread."""
        step = _parsed(StepArguments, arguments)
        request = self._request(step)
        (samples,) = step_batch(self.simulator, [request], samples=step.k)
        target = NewSession.for_request(request, SESSION_KIND, world=self.simulator.spec)
        outcomes = record_samples(self.recorder, target, samples, step.history)
        previous = state_before(request.history, request.initial_state)
        return {
            "futures": [outcome.prediction.observation for outcome in outcomes],
            "provenance": [sourced(outcome.prediction) for outcome in outcomes],
            "spread": asdict(spread(step.domain, samples, previous)),
            "session_id": outcomes[0].session_id,
            "prediction_ids": [outcome.prediction_id for outcome in outcomes],
        }

    def score(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The domain's metrics of `predicted` against `reference`, headline first."""
        scored = _parsed(ScoreArguments, arguments)
        get_domain(scored.domain)
        scores = compare(scored.domain, scored.predicted, scored.reference, scored.previous)
        return {
            "headline": headline_metric(scored.domain),
            "headline_value": scores.headline,
            "scores": [
                {"name": r.name, "version": r.version, "value": r.value} for r in scores.results
            ],
            "problem": scores.problem,
        }
