"""The vector environment spread over processes: N sub-environments in P workers.

One process steps its sub-environments' layer (action checks, prompts, parsing, scoring, SQL)
on one core; past a few hundred environments per GPU server that becomes the bound. Here the N
sub-environments are cut into P contiguous shares, each a `WorldModelVectorEnv` in its own
process (spawned, so no thread or connection is inherited) with its own world-model client,
all stepped at once: each share still sends ONE engine call a step, so the server (or its
replicas, `AWP_BASE_URL`) sees P concurrent batches. Results come back in sub-environment
order, with Gymnasium's info layout (each key an array over all N, `_key` its mask).

`gymnasium.make_vec("app.gym:awp/WorldModel-v0", num_envs=N, vectorization_mode=
"vector_entry_point", processes=P, ...)` builds one.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from app.context import build_context
from backend.envs.sim.gym_env import TextSpace


def shares(num_envs: int, processes: int) -> list[range]:
    """Contiguous, near-equal slices of the sub-environments, one per process (none empty)."""
    count = max(1, min(processes, num_envs))
    size, extra = divmod(num_envs, count)
    out, start = [], 0
    for index in range(count):
        stop = start + size + (1 if index < extra else 0)
        out.append(range(start, stop))
        start = stop
    return out


ShareBuilder = Callable[..., VectorEnv[Any, Any, Any]]
"""(num_envs, **EnvArgs fields) -> one process's vector environment (`app.gym.make_vector_env`).

Passed in rather than imported, since `app.gym` imports this module: a module-level function,
it reaches a spawned worker by its importable name."""


def _worker(
    connection: Connection, build_share: ShareBuilder, num_envs: int, kwargs: dict[str, Any]
) -> None:
    """A worker's loop: build its share, then answer reset, step and close."""
    try:
        env = build_share(num_envs, **kwargs)
    except Exception as exc:  # sent to the parent, which raises it there
        connection.send(("error", exc))
        return
    connection.send(("ok", None))
    while True:
        command, data = connection.recv()
        try:
            if command == "reset":
                connection.send(("ok", env.reset(**data)))
            elif command == "step":
                connection.send(("ok", env.step(data)))
            else:
                env.close()
                connection.send(("ok", None))
                return
        except Exception as exc:
            connection.send(("error", exc))


def merge_infos(infos: Sequence[dict[str, Any]], slices: Sequence[range], total: int) -> dict:
    """The workers' info dicts as one, in Gymnasium's vector layout over all sub-environments."""
    merged: dict[str, Any] = {}
    for info, part in zip(infos, slices, strict=True):
        for key, value in info.items():
            if key not in merged:
                empty = np.zeros(total, dtype=bool) if key.startswith("_") else None
                merged[key] = empty if empty is not None else np.full(total, None, dtype=object)
            merged[key][part.start : part.stop] = value
    return merged


class SpreadVectorEnv(VectorEnv[Any, Any, Any]):
    """`num_envs` world-model environments in `processes` worker processes.

    Args:
        num_envs: sub-environments in all.
        processes: worker processes (at most one per sub-environment).
        build_share: builds one worker's share in that worker (`ShareBuilder`).
        kwargs: `app.gym.EnvArgs` fields; `domain` may list domains the sub-environments take
            in turn, as for one process.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self, num_envs: int, processes: int, build_share: ShareBuilder, **kwargs: Any
    ) -> None:
        self.num_envs = num_envs
        self.slices = shares(num_envs, processes)
        domains = [d.strip() for d in str(kwargs.pop("domain", "terminal")).split(",") if d]
        with build_context() as ready:
            ready.database  # noqa: B018 (created and upgraded once, before workers race to it)
        context = multiprocessing.get_context("spawn")
        self._connections: list[Connection] = []
        self._processes = []
        for part in self.slices:
            # Each worker gets its sub-environments' own domains, in order.
            own = ",".join(domains[i % len(domains)] for i in part)
            parent, child = context.Pipe()
            process = context.Process(
                target=_worker,
                args=(child, build_share, len(part), {**kwargs, "domain": own}),
                daemon=True,
            )
            process.start()
            child.close()
            self._connections.append(parent)
            self._processes.append(process)
        for connection in self._connections:
            self._answer(connection)
        self.single_observation_space = TextSpace()
        self.single_action_space = TextSpace()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' ids."""
        return [process.pid or 0 for process in self._processes]

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        """Reset every share (a seed is offset per worker so their draws differ)."""
        for index, connection in enumerate(self._connections):
            own = seed + index if isinstance(seed, int) else seed
            connection.send(("reset", {"seed": own, "options": options}))
        answers = [self._answer(connection) for connection in self._connections]
        observations = tuple(obs for answer in answers for obs in answer[0])
        infos = merge_infos([answer[1] for answer in answers], self.slices, self.num_envs)
        return observations, infos

    def step(
        self, actions: Sequence[str]
    ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every share at once; each sends one engine call for its sub-environments."""
        for part, connection in zip(self.slices, self._connections, strict=True):
            connection.send(("step", list(actions[part.start : part.stop])))
        answers = [self._answer(connection) for connection in self._connections]
        observations = tuple(obs for answer in answers for obs in answer[0])
        rewards = np.concatenate([answer[1] for answer in answers])
        terminated = np.concatenate([answer[2] for answer in answers])
        truncated = np.concatenate([answer[3] for answer in answers])
        infos = merge_infos([answer[4] for answer in answers], self.slices, self.num_envs)
        return observations, rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Close every share and wait for its worker."""
        for connection in self._connections:
            connection.send(("close", None))
            self._answer(connection)
            connection.close()
        for process in self._processes:
            process.join(timeout=60)

    def _answer(self, connection: Connection) -> Any:
        """A worker's answer; what failed in the worker is raised here."""
        status, value = connection.recv()
        if status == "error":
            raise value
        return value
