"""Gymnasium faces: `check_env`, `make` by id, the batched vector env and its autoreset."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from backend.engines.base import Engine
from backend.errors import BadInputError

ENV_ID = "app.gym:awp/WorldModel-v0"


@pytest.fixture(autouse=True)
def data_dir_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))


def count_calls(engine: Engine) -> list[int]:
    calls: list[int] = []
    generate = engine.generate

    def counting(requests):
        calls.append(len(requests))
        return generate(requests)

    engine.generate = counting  # type: ignore[method-assign]
    return calls


def test_make_by_id_passes_check_env() -> None:
    env = gymnasium.make(ENV_ID, domain="terminal", engine="persistence", max_steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)
    observation, info = env.reset(seed=3)
    assert isinstance(observation, str) and info["domain"] == "terminal"
    observation, reward, _, _, info = env.step("not a keystroke list")
    assert observation.startswith("Invalid action") and reward < 0 and info["validation_error"]
    env.close()


def test_vector_env_sends_one_engine_call_per_step_across_domains() -> None:
    envs = gymnasium.make_vec(
        ENV_ID,
        num_envs=3,
        vectorization_mode="vector_entry_point",
        domain="terminal,web,android",
        engine="persistence",
        max_steps=2,
    )
    vector = envs.unwrapped
    calls = count_calls(vector.worlds[0].simulator.engine)
    observations, infos = vector.reset(seed=0, options={"index": 0})
    assert [w.domain for w in vector.worlds] == ["terminal", "web", "android"]
    actions = [spec[0].trajectory.turns[0].action for spec in vector.specs]
    for _ in range(2):
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        assert not terminated.any()
    assert calls == [3, 3]
    assert truncated.all() and len(observations) == 3 and infos["session_id"].all()
    # Next-step autoreset: ended sub-environments reset and ignore the action; no engine call.
    observations, rewards, _, truncated, infos = vector.step(actions)
    assert calls == [3, 3] and not truncated.any() and (rewards == 0).all()
    assert observations[1] == vector.specs[1][infos["index"][1]].initial_state
    vector.close()


@pytest.mark.slow
def test_the_vector_env_spreads_over_processes() -> None:
    """`processes=2`: two worker processes, results in sub-environment order, one layout."""
    import os

    from backend.data.bundled import load_bundled

    envs = gymnasium.make_vec(
        ENV_ID,
        num_envs=5,
        vectorization_mode="vector_entry_point",
        processes=2,
        domain="terminal,web",
        engine="oracle",
        record=False,
    )
    spread = envs.unwrapped
    try:
        pids = spread.worker_pids
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert [len(part) for part in spread.slices] == [3, 2]
        observations, infos = envs.reset(options={"index": 0})
        domains = list(infos["domain"])
        assert domains == ["terminal", "web", "terminal", "web", "terminal"]
        first = {d: next(t for t in load_bundled() if t.domain == d) for d in ("terminal", "web")}
        actions = [first[d].turns[0].action for d in domains]
        observations, rewards, _, _, infos = envs.step(actions)
        # The oracle answers with each sub-environment's own recording: full reward everywhere.
        assert list(rewards) == [1.0] * 5
        expected = [first[d].turns[0].observation for d in domains]
        assert list(observations) == expected and len(infos["scores"]) == 5
    finally:
        envs.close()


@pytest.mark.parametrize(
    "action", [42, None, [1, 2, 3], b"ls"], ids=["int", "none", "ids", "bytes"]
)
def test_a_non_string_action_is_refused_clearly_and_the_episode_goes_on(action: object) -> None:
    env = gymnasium.make(ENV_ID, domain="terminal", engine="persistence", max_steps=3)
    env.reset(seed=1)
    with pytest.raises(BadInputError, match=r"An action is the agent's text \(a str\), not"):
        env.step(action)
    observation, *_ = env.step("not a keystroke list")  # nothing was spent on the refusal
    assert observation.startswith("Invalid action")
    env.close()
