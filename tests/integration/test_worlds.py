"""Pinned worlds: the file format, and one world saved from the Playground loaded everywhere.

The Playground saves a world through its named endpoint (gradio_client); the same file then
drives Gymnasium (`world=`), the OpenEnv server's reset (OpenEnv's own client), `awp simulate
--world` and `awp rollout --world`, and each sees the world's recording, prompt and sampling.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import pytest
import yaml
from gradio_client import Client
from gradio_client.exceptions import AppError

from app.gym import ENV_ID
from app.openenv_env import WorldAction, WorldModelClient
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.envs.sim.worlds import (
    UnpinnedWorldWarning,
    dump_world,
    parse_world,
    world_prompt,
    world_spec,
)
from backend.errors import AWPError
from tests.support.app_server import RunningApp, named, start_app
from tests.support.cli import run
from tests.support.health import awp_env_server

RECORDING = "mkrww/errors"
NOTES = "The host is called fjord and every file under /srv is owned by ada."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("worlds"), engine="oracle")
    yield running
    running.close()


@pytest.fixture(scope="module")
def saved(app: RunningApp, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The world file the Playground saved from a session on a recording, with notes added."""
    client = Client(app.url, verbose=False)
    named(client.predict("terminal", RECORDING, 0, api_name="/load_turn"))
    text, path = client.predict("pinned", 0.0, 7, api_name="/save_world")
    assert Path(path).read_text(encoding="utf-8").strip() == text.strip()
    data = yaml.safe_load(text)
    assert data["domain"] == "terminal" and data["seed"] == 7 and data["temperature"] == 0.0
    assert data["recording"]["id"] == RECORDING
    data["notes"] = NOTES
    out = tmp_path_factory.mktemp("world") / "pinned.yaml"
    out.write_text(yaml.safe_dump(data), encoding="utf-8")
    return out


def recorded_actions() -> list[str]:
    return [t.action for t in next(t for t in load_bundled() if t.id == RECORDING).turns]


def recorded_observations() -> list[str | None]:
    return [t.observation for t in next(t for t in load_bundled() if t.id == RECORDING).turns]


def test_a_world_file_round_trips_in_yaml_and_json() -> None:
    world = parse_world(
        {"domain": "mcp", "task": "t", "seed": 3, "perturbations": ["errors", "schema_drift"]}
    )
    assert parse_world(dump_world(world)) == world
    assert parse_world(dump_world(world, "json")) == world
    assert parse_world({"domain": "terminal"}).temperature == 0.0  # pinned by default


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("- a list", "one mapping"),
        ("domain: [unclosed", "neither YAML nor JSON"),
        ({"domain": "terminal", "colour": "red"}, "colour"),
        ({"domain": "terminal", "perturbations": ["errors"]}, "tool domains"),
        ({"domain": "mcp", "perturbations": ["earthquake"]}, "Unknown perturbation"),
        ({"domain": "terminal", "target_query": "q"}, "search worlds"),
        ({"domain": "atlantis"}, "Unknown domain"),
    ],
)
def test_a_bad_world_file_is_a_clear_error(value: object, message: str) -> None:
    with pytest.raises(AWPError) as caught:  # a clear message, never a traceback
        parse_world(value)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_notes_perturbations_and_the_search_instruction_reach_the_prompt() -> None:
    prompts = PromptLibrary()
    search = parse_world(
        {
            "domain": "search",
            "target_query": "who built the Oresund bridge",
            "reference_answer": "a Danish-Swedish consortium, opened in 2000",
            "perturbations": ["rate_limits"],
            "notes": "The year is 2031.",
        }
    )
    prompt = world_prompt(search, prompts) or ""
    assert "Target query: who built the Oresund bridge" in prompt
    assert "Reference answer: a Danish-Swedish consortium" in prompt
    assert "none provided" not in prompt.split("## Simulation Instruction")[1][:80]
    assert "rate limit exceeded" in prompt and "The year is 2031." in prompt
    assert world_prompt(parse_world({"domain": "terminal"}), prompts) is None  # official prompt


def test_an_unpinned_world_warns_when_an_rl_edge_loads_it(tmp_path: Path, awp_data: Path) -> None:
    path = tmp_path / "hot.json"
    path.write_text(json.dumps({"domain": "terminal", "temperature": 0.7, "seed": None}))
    with pytest.warns(UnpinnedWorldWarning) as warned:
        env = gymnasium.make(ENV_ID, world=str(path), engine="persistence", record=False)
    env.close()
    assert len(warned) == 2  # the temperature, and the missing seed


def test_gymnasium_runs_the_saved_world(saved: Path, awp_data: Path) -> None:
    env = gymnasium.make(ENV_ID, world=str(saved), engine="oracle", record=True)
    try:
        observation, info = env.reset()
        assert info["domain"] == "terminal"
        seen = []
        for action in recorded_actions()[:3]:
            observation, reward, *_ = env.step(action)
            seen.append(observation)
            assert reward == 1.0
        assert seen == recorded_observations()[:3]
        world_env = env.unwrapped.world  # type: ignore[attr-defined]
        stored = world_env.recorder.load_session(world_env.session_id)
    finally:
        env.close()
    assert NOTES in (stored.system_prompt or "")
    assert stored.params["seed"] == 7 and stored.params["temperature"] == 0.0


def test_the_same_seed_at_temperature_0_gives_identical_episodes(
    saved: Path, tiny_model_dir: Path, awp_data: Path
) -> None:
    episodes = []
    for _ in range(2):
        env = gymnasium.make(
            ENV_ID,
            world=str(saved),
            engine="transformers",
            model=str(tiny_model_dir),
            max_new_tokens=12,
            record=False,
            max_steps=2,
        )
        try:
            env.reset()
            episodes.append([env.step(action)[0] for action in recorded_actions()[:2]])
        finally:
            env.close()
    assert episodes[0] == episodes[1]
    assert all(isinstance(text, str) for text in episodes[0])


def test_the_cli_simulates_and_rolls_out_the_saved_world(saved: Path, awp_data: Path) -> None:
    code, out = run(
        "simulate", "--world", str(saved), "--turn", "2", "--engine", "oracle", "--json"
    )
    assert code == 0, out
    step = json.loads(out.strip().splitlines()[-1])
    assert step["observation"] == recorded_observations()[1]
    assert NOTES in step["messages"][0]["content"]
    rollouts = awp_data.parent / "rollouts"
    code, out = run(
        "rollout",
        "--world",
        str(saved),
        "--agent",
        "replay",
        "--engine",
        "oracle",
        "--out",
        str(rollouts),
    )
    assert code == 0, out
    row = json.loads((rollouts / "rollouts.jsonl").read_text().splitlines()[0])
    assert row["world"] == "pinned" and row["start"] == RECORDING
    assert [s["observation"] for s in row["steps"]] == recorded_observations()
    code, out = run(
        "rollout",
        *("--world", str(saved), "--domain", "web", "--agent", "replay", "--out", str(rollouts)),
    )
    assert code == 2 and "terminal domain" in out
    # Refused before any episode: the earlier run's file is as it was.
    assert json.loads((rollouts / "rollouts.jsonl").read_text().splitlines()[0]) == row


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    env = {**os.environ, "AWP_DATA_DIR": str(tmp_path / "data")}
    args = ("--domain", "web", "--engine", "oracle", "--max-steps", "8")
    with awp_env_server(tmp_path, *args, env=env) as url:
        yield url


def test_the_openenv_reset_takes_the_saved_world(saved: Path, server: str) -> None:
    world = yaml.safe_load(saved.read_text(encoding="utf-8"))
    with WorldModelClient(base_url=server).sync() as client:
        first = client.reset(world=world)
        assert first.observation.domain == "terminal"  # the world's, not the server's web
        seen = [client.step(WorldAction(action=a)).observation.text for a in recorded_actions()]
    assert seen == recorded_observations()


def test_a_loaded_world_starts_a_playground_session(app: RunningApp, saved: Path) -> None:
    client = Client(app.url, verbose=False)
    values = client.predict(saved.read_text(encoding="utf-8"), None, api_name="/load_world")
    domain, _, temperature, seed = values[:4]
    assert (domain, temperature, seed) == ("terminal", 0.0, 7)
    shown = named(values[4:])
    assert "cat /nonexistent_file_xyz" in shown["action"]
    text, _ = client.predict("again", 0.0, 7, api_name="/save_world")
    again = parse_world(text)
    assert again.notes == NOTES and again.name == "again"
    assert world_spec(again, PromptLibrary()).trajectory is not None
    with pytest.raises(AppError, match="Unknown domain"):
        client.predict("domain: atlantis", None, api_name="/load_world")
