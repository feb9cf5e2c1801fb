"""`awp env serve` as a service: one session cap, working HTTP sessions, idle timeouts, a token.

Each test runs the real server (uvicorn on a free loopback port, in a thread) over the oracle
world model and drives it with OpenEnv's own client, plain HTTP and `openenv validate`. Before
these changes HTTP `/step` always answered 500 (the SDK's HTTP routes build a fresh environment
per request, so no episode was ever reset), HTTP `/reset` ignored `--max-sessions`, an idle
WebSocket stayed open forever and there was no way to ask for a token.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.context import build_context
from app.gym import env_options
from app.openenv_env import WorldAction, WorldModelClient, build_server
from app.openenv_service import SESSION_HEADER, check_exposure
from backend.data.bundled import load_bundled
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.world import WorldEnv
from backend.errors import BadInputError
from backend.spec import Purpose
from tests.support.health import free_port, wait_healthy

RECORDING = next(t for t in load_bundled() if t.domain == "terminal")
ACTION = {"action": {"action": RECORDING.turns[0].action}}


@contextmanager
def serving(tmp_path: Path, **options: Any) -> Iterator[str]:
    """The OpenEnv server over the oracle, unrecorded, until the block ends; yields its URL."""
    with build_context(data_dir=tmp_path / "data") as context:
        world = context.world_spec(Purpose.INTEGRATION, engine="oracle", grounding=False)
        simulator = context.simulator(world)
        reward = build_reward("reference", RewardOptions())
        env = env_options(context.settings, "sim", 3, record=False)
        specs = episode_specs("terminal")
        app = build_server(lambda: WorldEnv(simulator, reward, env), specs, **options)
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while not server.started:
                assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
                time.sleep(0.05)
            yield url
        finally:
            server.should_exit = True
            thread.join(timeout=30)


def test_http_reset_then_step_runs_an_episode(tmp_path: Path) -> None:
    with serving(tmp_path, max_sessions=4) as url, httpx.Client(base_url=url) as http:
        first = http.post("/reset", json={"index": 0})
        assert first.status_code == 200, first.text
        session = first.headers[SESSION_HEADER]
        assert first.json()["session_id"] == session
        assert first.json()["observation"]["domain"] == "terminal"
        step = http.post("/step", json=ACTION, headers={SESSION_HEADER: session})
        assert step.status_code == 200, step.text
        # The oracle returns the recorded screen: the episode was reset and stepped.
        assert step.json()["observation"]["text"] == RECORDING.turns[0].observation
        assert step.json()["reward"] == 1.0
        # The answer names both sources: the oracle that answered, the recording it follows.
        info = step.json()["observation"]["info"]
        assert (info["provenance"]["kind"], info["provenance"]["engine"]) == ("predicted", "oracle")
        assert info["reference_provenance"]["row_id"] == RECORDING.id
        state = http.get("/state", headers={SESSION_HEADER: session}).json()
        assert state["step_count"] == 1 and state["domain"] == "terminal"
        assert http.post("/close", headers={SESSION_HEADER: session}).status_code == 200
        gone = http.post("/step", json=ACTION, headers={SESSION_HEADER: session})
        assert gone.status_code == 404 and "No open session" in gone.json()["detail"]
        bad = http.post("/step", json={"action": "ls"}, headers={SESSION_HEADER: session})
        assert bad.status_code in (404, 422)
        unnamed = http.post("/step", json=ACTION)
        assert unnamed.status_code == 400 and SESSION_HEADER in unnamed.json()["detail"]


def test_one_cap_counts_http_and_websocket_sessions(tmp_path: Path) -> None:
    with serving(tmp_path, max_sessions=2) as url, httpx.Client(base_url=url) as http:
        with WorldModelClient(base_url=url).sync() as client:
            client.reset(index=0)
            assert http.post("/reset", json={}).status_code == 200  # the second place
            refused = http.post("/reset", json={})
            assert refused.status_code == 503 and "2" in refused.json()["detail"]
        # The WebSocket closed: its place is free again.
        assert http.post("/reset", json={}).status_code == 200


def test_an_idle_websocket_is_closed_and_its_place_freed(tmp_path: Path) -> None:
    async def idle_then_listen(url: str) -> int:
        async with ws_connect(url.replace("http", "ws") + "/ws") as socket:
            await socket.send('{"type": "reset", "data": {"index": 0}}')
            await socket.recv()
            try:
                await asyncio.wait_for(socket.recv(), 20)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else -1
            return 0

    with serving(tmp_path, max_sessions=1, idle_timeout_s=1.0) as url:
        assert asyncio.run(idle_then_listen(url)) == 1001
        with httpx.Client(base_url=url) as http:
            assert http.post("/reset", json={}).status_code == 200


def test_a_token_guards_everything_but_the_descriptive_routes(tmp_path: Path) -> None:
    secret = {"Authorization": "Bearer s3cret"}
    with (
        serving(tmp_path, max_sessions=4, token="s3cret") as url,
        httpx.Client(base_url=url) as http,
    ):
        for path in ("/health", "/metadata", "/schema", "/openapi.json"):
            assert http.get(path).status_code == 200, path
        assert http.post("/reset", json={}).status_code == 401
        assert (
            http.post("/reset", json={}, headers={"Authorization": "Bearer wrong"}).status_code
            == 401
        )
        opened = http.post("/reset", json={}, headers=secret)
        assert opened.status_code == 200
        with pytest.raises(ConnectionError):
            WorldModelClient(base_url=url).sync().connect()
        with WorldModelClient(base_url=url, token="s3cret").sync() as client:
            client.reset(index=0)
            result = client.step(WorldAction(action="ls"))
            assert result.observation.text.startswith("Invalid action")

        async def refused() -> None:
            async with ws_connect(url.replace("http", "ws") + "/ws"):
                pass

        with pytest.raises((InvalidStatus, ConnectionClosed)):
            asyncio.run(refused())


def test_listening_beyond_loopback_needs_a_token() -> None:
    check_exposure("127.0.0.1", "")
    check_exposure("::1", "")
    check_exposure("0.0.0.0", "token")
    with pytest.raises(BadInputError, match="AWP_ENV_TOKEN"):
        check_exposure("0.0.0.0", "")


def test_the_cli_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    env = {**os.environ, "AWP_DATA_DIR": str(tmp_path / "data")}
    env.pop("AWP_ENV_TOKEN", None)
    command = [sys.executable, "-m", "app", "env", "serve", "--domain", "terminal"]
    command += ["--engine", "oracle", "--host", "0.0.0.0", "--port", str(free_port())]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "AWP_ENV_TOKEN" in done.stderr + done.stdout and "Traceback" not in done.stderr


def test_openenv_validate_still_passes(tmp_path: Path) -> None:
    openenv = Path(sys.executable).with_name("openenv")
    with serving(tmp_path, max_sessions=4) as url:
        done = subprocess.run(
            [str(openenv), "validate", "--url", url], capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"passed": true' in done.stdout


@pytest.mark.slow
def test_several_workers_serve_behind_one_port(tmp_path: Path) -> None:
    """`--workers 2`: two server processes, and concurrent sessions all run their episodes."""
    port = free_port()
    env = {**os.environ, "AWP_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, "-m", "app", "env", "serve", "--domain", "terminal"]
    command += ["--engine", "oracle", "--port", str(port), "--workers", "2", "--no-record"]
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(server, f"{url}/health", tmp_path / "serve.log", "awp env serve --workers 2")
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()

        async def episode() -> float:
            async with ws_connect(url.replace("http", "ws") + "/ws") as socket:
                await socket.send('{"type": "reset", "data": {"index": 0}}')
                await socket.recv()
                step = {"type": "step", "data": {"action": RECORDING.turns[0].action}}
                await socket.send(json.dumps(step))
                return float(json.loads(await socket.recv())["data"]["reward"])

        async def many() -> list[float]:
            return list(await asyncio.gather(*(episode() for _ in range(8))))

        assert asyncio.run(many()) == [1.0] * 8
        # uvicorn's supervisor plus its workers (a resource tracker may join them).
        assert len(children) >= 2
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def test_concurrent_sessions_step_together(tmp_path: Path) -> None:
    """Eight sessions stepping at once are one vector step (one engine call), not eight."""
    from app.openenv_batching import StepGatherer
    from backend.domains.prompts import PromptLibrary
    from backend.engines.base import EngineConfig, build_engine
    from backend.envs.sim.episode import EnvOptions, EpisodeSpec
    from backend.simulate import Simulator

    engine = build_engine(EngineConfig(name="oracle"))
    calls: list[int] = []
    generate = engine.generate

    def counting(requests):  # type: ignore[no-untyped-def]
        calls.append(len(requests))
        return generate(requests)

    engine.generate = counting  # type: ignore[method-assign]
    simulator = Simulator(engine, PromptLibrary())
    reward = build_reward("reference", RewardOptions())
    worlds = [WorldEnv(simulator, reward, EnvOptions(record=False)) for _ in range(8)]
    for world in worlds:
        world.reset(EpisodeSpec.from_trajectory(RECORDING))
    gatherer = StepGatherer()

    async def all_at_once() -> list[Any]:
        action = RECORDING.turns[0].action
        return list(await asyncio.gather(*(gatherer.step(w, action) for w in worlds)))

    results = asyncio.run(all_at_once())
    gatherer.close()
    assert calls == [8] and gatherer.batches == 1 and gatherer.steps == 8
    assert [r.observation for r in results] == [RECORDING.turns[0].observation] * 8
