"""The taskset, the environment and `load_environment` of the `awp-world-model` plugin."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import verifiers.v1 as vf
from verifiers.v1.harnesses.null import NullHarnessConfig

SYSTEM_PROMPT = (
    "You act in a simulated environment. Each user message is what the environment shows. "
    "Reply with exactly one action in the environment's action format and nothing else."
)


class AwpWorldModelConfig(vf.TasksetConfig):
    """Where the world-model environment runs and how many episodes to draw."""

    base_url: str = "http://127.0.0.1:8001"
    """`awp env serve` (an OpenEnv server)."""
    episodes: int = 4
    """Episodes; episode i resets the server with `index=i` (the i-th start it serves)."""
    token: str | None = None
    """Bearer token, when the server asks for one."""


class AwpWorldModelData(vf.TaskData):
    """One episode: the server and the start index to reset it with."""

    base_url: str
    index: int
    token: str | None = None


class AwpWorldModelTask(vf.Task[AwpWorldModelData]):
    """An episode of the world-model environment."""


def first_turn(observation: dict[str, Any]) -> str:
    """The episode's opening user turn: the task, then the start state."""
    task = observation.get("task") or "Explore the environment."
    return f"Task: {task}\n\n{observation.get('text', '')}"


class _Session:
    """One OpenEnv WebSocket session (`/ws`): reset, then steps, then close."""

    def __init__(self, base_url: str, token: str | None) -> None:
        self.url = base_url.rstrip("/").replace("http", "ws", 1) + "/ws"
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def __aenter__(self) -> _Session:
        self.http = aiohttp.ClientSession()
        self.ws = await self.http.ws_connect(self.url, headers=self.headers)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.send_str(json.dumps({"type": "close"}))
        await self.ws.close()
        await self.http.close()

    async def ask(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        await self.ws.send_str(json.dumps({"type": kind, "data": data}))
        answer = json.loads(await self.ws.receive_str())
        if answer.get("type") == "error":
            raise vf.EnvError(str(answer.get("data", {}).get("message", answer)))
        return dict(answer["data"])


class AwpWorldModelEnvConfig(vf.EnvConfig):
    """The one agent role: the player, a plain chat model (no tools, no sandbox of its own).

    Its actions run in the world model, so it needs neither a harness's tools nor a remote
    sandbox: the `null` harness in a local subprocess runtime.
    """

    player: vf.AgentConfig = vf.AgentConfig(
        harness=NullHarnessConfig(id="null"), runtime=vf.SubprocessConfig()
    )


class AwpWorldModelEnv(vf.Env[AwpWorldModelEnvConfig]):
    """Each agent reply is one world-model step; the reward model's total is the reward."""

    async def run(self, task: AwpWorldModelTask, agents: Any) -> None:
        """Play one episode: reset, then one step per agent reply until the episode ends."""
        data = task.data
        total = 0.0
        headlines: list[float] = []
        success: bool | None = None
        async with _Session(data.base_url, data.token) as session:
            result = await session.ask("reset", {"index": data.index})
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(first_turn(result["observation"]))
                while not segment.terminated and not result.get("done"):
                    result = await session.ask("step", {"action": segment.last_reply.strip()})
                    total += float(result.get("reward") or 0.0)
                    info = result["observation"].get("info") or {}
                    scores = list((info.get("scores") or {}).values())
                    if scores:  # the domain's headline metric comes first
                        headlines.append(float(scores[0]))
                    if info.get("success") is not None:
                        success = bool(info["success"])
                    if result.get("done"):
                        break
                    segment = await interaction.turn(result["observation"].get("text", ""))
        trace = interaction.trace
        trace.record_reward("world_model_reward", total)
        if headlines:
            trace.info["headline_mean"] = sum(headlines) / len(headlines)
        if success is not None:
            trace.record_reward("task_check", float(success), 0.0)


class AwpWorldModelTaskset(vf.Taskset[AwpWorldModelTask, AwpWorldModelConfig]):
    """`episodes` episodes of one `awp env serve`."""

    def load(self) -> Iterator[AwpWorldModelTask]:
        """One task per episode index."""
        config = self.config
        for index in range(config.episodes):
            yield AwpWorldModelTask(
                AwpWorldModelData(
                    name=f"awp-world-model#{index}",
                    prompt=None,
                    system_prompt=SYSTEM_PROMPT,
                    base_url=config.base_url,
                    index=index,
                    token=config.token,
                ),
                config.task,
            )


def load_environment(**options: Any) -> vf.Env:
    """The environment, built as verifiers builds it (`options`: the taskset's config fields).

    Example: `load_environment(base_url="http://127.0.0.1:8001", episodes=8)`.
    """
    from verifiers.v1.utils.loaders import load_environment as build

    taskset = AwpWorldModelConfig(id="awp-world-model", **options)
    return build(AwpWorldModelEnvConfig(taskset=taskset))
