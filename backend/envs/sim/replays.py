"""Replay variance: the same actions replayed R times in the world model at its temperature.

A reward an agent is trained on should not depend on the world model's dice. Each replay is a
fresh, unrecorded episode from the same start with the same actions, its seed the start's plus
the replay's number (at temperature 0 every replay is the same; above it, the spread is the
sampling's). All replays step together, one engine call a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import fmean

from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardModel
from backend.envs.sim.world import WorldEnv, step_all
from backend.scoring import headline_metric
from backend.simulate import Simulator


@dataclass(frozen=True)
class ReplaySpread:
    """Each replay's episode reward and mean fidelity (None: no step had a reference)."""

    rewards: list[float]
    fidelity: list[float | None]


def replay_spread(
    simulator: Simulator,
    reward: RewardModel,
    options: EnvOptions,
    spec: EpisodeSpec,
    actions: Sequence[str],
    replays: int,
) -> ReplaySpread:
    """Replay `actions` from `spec` `replays` times in simulation."""
    if replays < 1 or not actions:
        return ReplaySpread([], [])
    quiet = replace(options, backing="sim", record=False, max_steps=len(actions))
    seed = spec.params(options.params).seed or 0
    envs = [WorldEnv(simulator, reward, quiet) for _ in range(replays)]
    for number, env in enumerate(envs):
        env.reset(replace(spec, sampling={**spec.sampling, "seed": seed + number}))
    totals = [0.0] * replays
    scores: list[list[float]] = [[] for _ in range(replays)]
    headline = headline_metric(spec.domain)
    for action in actions:
        active = [i for i, env in enumerate(envs) if not env.done]
        if not active:
            break
        results = step_all([envs[i] for i in active], [action] * len(active))
        for i, result in zip(active, results, strict=True):
            totals[i] += result.reward
            value = result.info.get("scores", {}).get(headline)
            if value is not None:
                scores[i].append(value)
    return ReplaySpread(totals, [fmean(s) if s else None for s in scores])
