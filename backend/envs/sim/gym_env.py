"""Gymnasium faces of the world-model environment: one episode at a time, and N batched.

`WorldModelEnv` is a `gymnasium.Env` over one `WorldEnv`; `WorldModelVectorEnv` is a
`gymnasium.vector.VectorEnv` over N of them whose `step` sends ONE engine call for all N
(`step_all` -> `Simulator.step_batch`), so the embedded model batches on the CPU and a served
model receives N concurrent requests for its continuous batching. Sub-environments may be in
different domains. Autoreset follows Gymnasium 1.x's default (next step): the step after an
episode ends resets that sub-environment and ignores its action.

Observations and actions are text. Gymnasium's `Text` space only admits a fixed character set,
while observations hold any Unicode (Chinese search results, box-drawing characters), so the
spaces here admit any string up to a length and sample printable ASCII.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from backend.envs.sim.episode import EpisodeSpec
from backend.envs.sim.world import WorldEnv, step_all
from backend.errors import BadInputError

MAX_TEXT = 1_000_000


class TextSpace(Text):
    """Any string up to `max_length` characters; samples are printable ASCII."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        """Whether `x` is a string no longer than the space allows."""
        return isinstance(x, str) and len(x) <= self.max_length


def choose(specs: Sequence[EpisodeSpec], rng: np.random.Generator, options: dict[str, Any]) -> int:
    """The start to reset to: `options["index"]` when given, else one drawn with the env's rng."""
    if not specs:
        raise ValueError("an environment needs at least one episode start")
    if "index" in options:
        return int(options["index"]) % len(specs)
    return int(rng.integers(len(specs)))


def text_action(action: object) -> str:
    """`action` when it is text; the action space is `Text`, so anything else is refused.

    Raises:
        BadInputError: not a string (a number, a token array, None...).
    """
    if not isinstance(action, str):
        raise BadInputError(
            f"An action is the agent's text (a str), not {type(action).__name__}: decode token "
            "ids first."
        )
    return action


class WorldModelEnv(gymnasium.Env[str, str]):
    """One world-model environment as a `gymnasium.Env`.

    Args:
        world: the environment (simulator, reward model, options, recorder).
        specs: the episode starts `reset` draws from (seeded by `reset(seed=...)`).
        render_mode: None, or `ansi` (render returns the current observation).
        on_close: releases what the environment was built with (its engine, its database).
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's own class attribute)

    def __init__(
        self,
        world: WorldEnv,
        specs: Sequence[EpisodeSpec],
        render_mode: str | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.world = world
        self.on_close = on_close
        self.specs = list(specs)
        self.render_mode = render_mode
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self._observation = ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode at a drawn (or `options["index"]`) start."""
        super().reset(seed=seed)
        index = choose(self.specs, self.np_random, options or {})
        self._observation, info = self.world.reset(self.specs[index])
        return self._observation, {**info, "index": index}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Predict the observation after `action`.

        Raises:
            BadInputError: `action` is not a string.
        """
        result = self.world.step(text_action(action))
        self._observation = result.observation
        return (
            result.observation,
            float(result.reward),
            result.terminated,
            result.truncated,
            result.info,
        )

    def render(self) -> str | None:
        """The current observation (ansi mode)."""
        return self._observation if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Stop the live environment, if one runs, and release the engine."""
        self.world.close()
        if self.on_close is not None:
            self.on_close()


class WorldModelVectorEnv(VectorEnv[Any, Any, Any]):
    """N world-model environments stepped with one engine call.

    Args:
        worlds: the sub-environments; they share one simulator (and so one engine).
        specs: per sub-environment, the episode starts its resets draw from.
        on_close: releases what the environments were built with (the engine, the database).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        worlds: Sequence[WorldEnv],
        specs: Sequence[Sequence[EpisodeSpec]],
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.on_close = on_close
        if len(worlds) != len(specs) or not worlds:
            raise ValueError("one list of episode starts per sub-environment, at least one")
        self.worlds = list(worlds)
        self.specs = [list(starts) for starts in specs]
        self.num_envs = len(worlds)
        self.single_observation_space = TextSpace()
        self.single_action_space = TextSpace()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        """Reset every sub-environment (`options["index"]` picks the same start for all)."""
        super().reset(seed=seed if isinstance(seed, int) or seed is None else seed[0])
        observations: list[str] = []
        infos: dict[str, Any] = {}
        for number in range(self.num_envs):
            observation, info = self._reset_one(number, options or {})
            observations.append(observation)
            infos = self._add_info(infos, info, number)
        self._autoreset[:] = False
        return tuple(observations), infos

    def step(
        self, actions: Sequence[str]
    ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment; those whose episode ended last step reset instead."""
        n = self.num_envs
        observations = [""] * n
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        infos: dict[str, Any] = {}
        stepping = [i for i in range(n) if not self._autoreset[i]]
        results = step_all(
            [self.worlds[i] for i in stepping], [text_action(actions[i]) for i in stepping]
        )
        for i, result in zip(stepping, results, strict=True):
            observations[i] = result.observation
            rewards[i], terminated[i], truncated[i] = (
                result.reward,
                result.terminated,
                result.truncated,
            )
            infos = self._add_info(infos, result.info, i)
        for i in range(n):
            if self._autoreset[i]:
                observations[i], info = self._reset_one(i, {})
                infos = self._add_info(infos, info, i)
        self._autoreset = terminated | truncated
        return tuple(observations), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Stop every live environment and release the engine."""
        for world in self.worlds:
            world.close()
        if self.on_close is not None:
            self.on_close()

    def _reset_one(self, number: int, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        index = choose(self.specs[number], self.np_random, options)
        observation, info = self.worlds[number].reset(self.specs[number][index])
        return observation, {**info, "index": index}
