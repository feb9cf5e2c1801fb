"""The world-model environment served with the OpenEnv SDK, and its typed OpenEnv client.

OpenEnv (`openenv-core`) is what TRL's GRPOTrainer integrates with: its server gives the
standard `/reset`, `/step`, `/state`, `/health`, `/schema` routes and WebSocket sessions, one
environment per session. Each session gets its own `WorldEnv`; all share one world model (one
engine), so concurrent sessions reach the engine's own batching. It lives in `app` because the
SDK imports Gradio and FastAPI, which `backend` never does.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from openenv.core import EnvClient
from openenv.core.client_types import StepResult as ClientStepResult
from openenv.core.env_server import Action, Environment, Observation, State
from pydantic import Field
from websockets.asyncio.client import connect as ws_connect

from app.openenv_batching import StepGatherer
from app.openenv_service import build_service
from backend.envs.sim.episode import EpisodeSpec, StepResult
from backend.envs.sim.gym_env import choose
from backend.envs.sim.world import WorldEnv
from backend.envs.sim.worlds import world_starts


class WorldAction(Action):
    """One agent action, in the domain's action format (validated by the domain)."""

    action: str = Field(description="The action text, e.g. a terminal keystroke batch as JSON.")


class WorldObservation(Observation):
    """The observation after a reset or a step, predicted by the world model in `sim` mode."""

    text: str = Field(description="The observation (or the validation message of a bad action).")
    domain: str = Field(default="", description="The episode's domain.")
    task: str = Field(default="", description="The agent's task.")
    truncated: bool = Field(default=False, description="The step limit ended the episode.")
    info: dict[str, Any] = Field(
        default_factory=dict, description="Tokens, latency, validation error, scores, session id."
    )


class WorldState(State):
    """Where the session's episode stands."""

    domain: str = ""
    task: str = ""
    session_id: int | None = None


class WorldModelEnvironment(Environment[WorldAction, WorldObservation, WorldState]):
    """One OpenEnv session's episode over a `WorldEnv`.

    Args:
        world: the session's environment.
        specs: the episode starts `reset` draws from (`index` picks one).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        world: WorldEnv,
        specs: Sequence[EpisodeSpec],
        gatherer: StepGatherer | None = None,
    ) -> None:
        super().__init__()
        self.world = world
        self.specs = list(specs)
        self.gatherer = gatherer
        self._state = WorldState()
        self._rng = np.random.default_rng()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        index: int | None = None,
        world: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> WorldObservation:
        """Start an episode: in `world` (a world file's mapping), at start `index`, else drawn.

        Raises:
            BadInputError: `world` is not a valid world.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if world is not None:
            spec = world_starts(world, self.world.simulator.prompts)[0]
        else:
            options = {} if index is None else {"index": index}
            spec = self.specs[choose(self.specs, self._rng, options)]
        text, info = self.world.reset(spec)
        self._state = WorldState(
            episode_id=episode_id or uuid.uuid4().hex, domain=spec.domain, task=info["task"]
        )
        return WorldObservation(text=text, domain=spec.domain, task=info["task"], info=info)

    def step(
        self, action: WorldAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WorldObservation:
        """Predict the observation after the action; an invalid one is a penalised message."""
        return self._observed(self.world.step(action.action))

    async def step_async(
        self, action: WorldAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WorldObservation:
        """`step`, gathered with the other sessions' steps into one vector step when shared."""
        if self.gatherer is None:
            return await asyncio.to_thread(self.step, action)
        return self._observed(await self.gatherer.step(self.world, action.action))

    def _observed(self, result: StepResult) -> WorldObservation:
        self._state.step_count += 1
        self._state.session_id = self.world.session_id
        return WorldObservation(
            text=result.observation,
            domain=self._state.domain,
            task=self._state.task,
            done=result.terminated or result.truncated,
            truncated=result.truncated,
            reward=result.reward,
            info=result.info,
        )

    @property
    def state(self) -> WorldState:
        """The session's episode id, step count, domain, task and stored session."""
        return self._state

    def claim(self, owner: str | None) -> None:
        """Count this session's live sandboxes against `owner`'s share of the live pool."""
        self.world.options = replace(self.world.options, live_owner=owner)

    def close(self) -> None:
        """Stop the live environment, if one runs."""
        self.world.close()


def build_server(
    world: Callable[[], WorldEnv],
    specs: Sequence[EpisodeSpec],
    max_sessions: int,
    idle_timeout_s: float = 300.0,
    token: str = "",
) -> Any:
    """The OpenEnv app: one `WorldModelEnvironment` per session, HTTP or WebSocket.

    All sessions' steps go through one `StepGatherer`, so concurrent sessions step together.

    Args:
        world: builds one session's environment.
        specs: the episode starts resets draw from.
        max_sessions: sessions open at once, HTTP and WebSocket together.
        idle_timeout_s: a session idle this long is closed.
        token: the bearer token clients must send (empty: none).
    """
    gatherer = StepGatherer()
    return build_service(
        lambda: WorldModelEnvironment(world(), specs, gatherer),
        WorldAction,
        WorldObservation,
        max_sessions,
        idle_timeout_s,
        token,
    )


class WorldModelClient(EnvClient[WorldAction, WorldObservation, WorldState]):
    """OpenEnv client of `awp env serve` (`WorldModelClient(base_url=...).sync()` for sync use).

    Args:
        base_url: the server.
        token: the server's bearer token (`AWP_ENV_TOKEN`), sent when the WebSocket opens.
        kwargs: `EnvClient` options.
    """

    def __init__(self, base_url: str, token: str = "", **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._token = token

    async def connect(self) -> WorldModelClient:
        """Open the WebSocket, with the token when one is set (the SDK's client sends none)."""
        if not self._token or getattr(self, "_ws", None) is not None:
            await super().connect()
            return self
        try:
            self._ws = await ws_connect(
                self._ws_url,
                open_timeout=self._connect_timeout,
                max_size=self._max_message_size,
                additional_headers={"Authorization": f"Bearer {self._token}"},
            )
        except Exception as exc:
            raise ConnectionError(f"Failed to connect to {self._ws_url}: {exc}") from exc
        return self

    def _step_payload(self, action: WorldAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> ClientStepResult[WorldObservation]:
        observation = WorldObservation(
            **payload.get("observation", {}),
            reward=payload.get("reward"),
            done=payload.get("done", False),
        )
        return ClientStepResult(
            observation=observation, reward=payload.get("reward"), done=payload.get("done", False)
        )

    def _parse_state(self, payload: dict[str, Any]) -> WorldState:
        return WorldState(**payload)


class WorldModelToolEnv:
    """The OpenEnv environment as TRL's `GRPOTrainer(environment_factory=...)` expects it.

    TRL exposes every public method but `reset` and `get_reward` to the policy as a tool, starts
    each rollout with `reset(**dataset_row)` (its string is appended to the prompt) and scores it
    with `get_reward()`. One instance per rollout, each with its own OpenEnv session, so the
    server's world model sees the rollouts' steps concurrently. Build the factory with
    `functools.partial(WorldModelToolEnv, "http://127.0.0.1:8001")`.

    Args:
        base_url: the `awp env serve` server.
        token: its bearer token, when it asks for one.
    """

    def __init__(self, base_url: str, token: str = "") -> None:
        self.client = WorldModelClient(base_url=base_url, token=token).sync()
        self.client.connect()
        self.total = 0.0
        self.done = False

    def reset(self, **row: Any) -> str:
        """Start an episode (a row's `index` column picks the start); the first observation."""
        index = row.get("index")
        result = self.client.reset(**({} if index is None else {"index": int(index)}))
        self.total, self.done = 0.0, False
        observation = result.observation
        return f"Task: {observation.task or '(none)'}\nObservation:\n{observation.text}"

    def act(self, action: str) -> str:
        """Take one action in the environment and return what it shows next.

        Args:
            action: the action, in the environment's action format.
        """
        if self.done:
            return "The episode is over."
        result = self.client.step(WorldAction(action=action))
        self.total += float(result.reward or 0.0)
        self.done = result.done
        return result.observation.text

    def get_reward(self) -> float:
        """The rollout's total reward."""
        return self.total
